// The report of `impact bench` (docs/bench.md, "Tables" and "JSON"): the markdown tables and the
// JSON document of a finished run, and its progress lines. Formats only: what is measured comes
// from the harness (host/bench/bench.hpp).
#pragma once
#include <cmath>
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/device.hpp"
#include "bench/bench.hpp"

namespace impact::cli {

// The machine and build a run was measured on (the JSON's "machine", the markdown's first lines).
struct BenchMachine {
  std::string cpu, compiler, build_type, version, git_rev, date, hostname;
  int cores = 0, omp_threads = 0;
  bool optimized = false, ndebug = false;
  double load_start = NAN, load_end = NAN;  // 1-minute load averages (NaN when unknown)
  engine::Device device;
};

// The machine now (io::machine), with the load average taken before the run.
BenchMachine bench_machine(double load_start, engine::Device device);

struct SkippedBackend {
  std::string backend, reason;
};

// A finished run: what was asked, what was skipped, where, and the measurements in plan order.
struct BenchRun {
  bench::BenchSpec spec;
  std::vector<SkippedBackend> skipped;
  BenchMachine machine;
  std::vector<bench::Measurement> results;
};

// Table cells: 3 significant digits with a k / M / G suffix, a fixed number of decimals; "-" for
// a non-finite value.
std::string eng(double v);
std::string fixed(double v, int digits);

// The markdown: header lines, then the throughput table with its ratios, the integrators' table
// (when one ran) and the CUDA peak-share table (when cuda ran).
std::string bench_markdown(const BenchRun& run);

// The JSON document without its last key, wall_seconds (the caller adds it when the run ends):
// tool, machine, settings, skipped, cost_model, results, ratios, markdown.
nlohmann::ordered_json bench_json(const BenchRun& run, const std::string& markdown);

// The progress line of measurement k (0-based) of `total`, with its newline.
std::string progress_line(const bench::Measurement& m, std::size_t k, std::size_t total, int reps);

}  // namespace impact::cli
