// What the outputs record about the machine and the process: host and CPU names, the time, memory
// and load, the compiler and build type, resource use.
#pragma once
#include <chrono>
#include <string>

#include <nlohmann/json.hpp>

namespace impact::io {

// What a run's metadata.json says first, of what ran where and when: impact_version,
// git_revision, date (UTC), host {name, cpu, omp_threads}.
nlohmann::ordered_json provenance_json();

std::string hostname();    // "unknown" when not available
std::string cpu_model();   // /proc/cpuinfo "model name" (or Hardware / CPU part), "unknown"
std::string utc_now();     // ISO 8601, e.g. 2026-11-24T21:00:00Z
std::string compiler();    // e.g. "g++ 12.2.0"
std::string build_type();  // "Release", "optimized, assertions on" or "Debug"
bool build_optimized();
bool build_ndebug();
int hardware_threads();

double mem_available_bytes();  // /proc/meminfo MemAvailable (8 GiB when unknown)
double load_average();         // 1-minute load average, NaN when unknown
long peak_rss_kb();            // peak resident set size of this process
double cpu_seconds();          // user + system CPU time of this process so far (all threads)
// Seconds of steady_clock since t0: the one stopwatch of the phase timings.
double seconds_since(std::chrono::steady_clock::time_point t0);
// A memory size for messages: "1.5 GiB" (3 significant digits).
std::string gib(double bytes);

}  // namespace impact::io
