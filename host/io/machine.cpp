#include "io/machine.hpp"
#include "io/version.hpp"

#include <omp.h>

#include <cstdio>

#include <sys/resource.h>
#include <unistd.h>

#include <cmath>
#include <ctime>
#include <fstream>
#include <thread>

namespace impact::io {

nlohmann::ordered_json provenance_json() {
  nlohmann::ordered_json j;
  j["impact_version"] = version();
  j["git_revision"] = git_revision();
  j["date"] = utc_now();
  j["host"] = {{"name", hostname()}, {"cpu", cpu_model()}, {"omp_threads", omp_get_max_threads()}};
  return j;
}

std::string hostname() {
  char b[256] = {0};
  if (gethostname(b, sizeof b - 1) != 0) return "unknown";
  return b;
}

std::string cpu_model() {
  std::ifstream f("/proc/cpuinfo");
  std::string line, fallback;
  while (std::getline(f, line)) {
    const std::size_t c = line.find(':');
    if (c == std::string::npos) continue;
    std::string key = line.substr(0, c);
    while (!key.empty() && (key.back() == ' ' || key.back() == '\t')) key.pop_back();
    std::string val = line.substr(c + 1);
    while (!val.empty() && val.front() == ' ') val.erase(val.begin());
    if (key == "model name" && !val.empty()) return val;
    if ((key == "Hardware" || key == "CPU part") && fallback.empty()) fallback = val;
  }
  return fallback.empty() ? "unknown" : fallback;
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string compiler() {
#if defined(__clang__)
  return std::string("clang ") + __clang_version__;
#elif defined(__GNUC__)
  return std::string("g++ ") + __VERSION__;
#else
  return "unknown";
#endif
}

bool build_optimized() {
#if defined(__OPTIMIZE__)
  return true;
#else
  return false;
#endif
}

bool build_ndebug() {
#if defined(NDEBUG)
  return true;
#else
  return false;
#endif
}

std::string build_type() {
  return build_optimized() && build_ndebug() ? "Release" : build_optimized() ? "optimized, assertions on" : "Debug";
}

int hardware_threads() { return static_cast<int>(std::thread::hardware_concurrency()); }

double mem_available_bytes() {
  std::ifstream f("/proc/meminfo");
  std::string key, unit;
  double kb = 0;
  while (f >> key >> kb >> unit)
    if (key == "MemAvailable:") return kb * 1024.0;
  return 8.0 * (1ull << 30);  // unknown: assume 8 GiB
}

double load_average() {
  std::ifstream f("/proc/loadavg");
  double l = NAN;
  if (!(f >> l)) return NAN;
  return l;
}

long peak_rss_kb() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;  // kilobytes on Linux
}

double cpu_seconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + 1e-6 * ru.ru_utime.tv_usec + ru.ru_stime.tv_sec + 1e-6 * ru.ru_stime.tv_usec;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string gib(double bytes) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.3g GiB", bytes / double(1ull << 30));
  return buf;
}

}  // namespace impact::io
