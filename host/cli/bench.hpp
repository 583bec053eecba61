// `impact bench`: throughput of every law x backend x precision (x steps for the integrators),
// measured in one run so that ratios are meaningful. See docs/bench.md.
//
// The instances are sampled once (the generator of `impact reduce`, include/impact/sampling.hpp)
// into structure-of-arrays columns; every measurement calls the law's batch entry point
// (batch_fn<T>(law, backend), per-row results written to memory as `impact eval` does) on the
// same batch. The batch size adapts so that one repetition lasts about --min-time seconds.
//
// This file and bench.cpp are the command (options, checks, the run); the measurements are
// host/bench/bench.hpp, the device description host/engine/device.hpp, the tables and the JSON
// bench_report.hpp.
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace impact::cli {

struct BenchArgs {
  std::vector<std::string> laws;        // empty: all
  std::vector<std::string> backends;    // empty: serial, omp, and cuda when usable
  std::vector<std::string> precisions;  // empty: double, float
  std::vector<int> steps;               // integrators; empty: 250, 1000
  std::string scenario = "contact";
  std::uint64_t seed = 1;
  double min_time = 0.5;  // seconds per repetition (instance count grows to reach it)
  int reps = 5;
  int warmup = 1;
  std::uint64_t max_n = 1u << 21;  // instances in a batch at most (memory); beyond: repeated calls
  std::string json;                // "" none, "-" stdout
  std::string markdown;            // "" none, "-" stdout
  bool quiet = false;              // no progress lines, no table on stdout (unless --markdown -)
  std::vector<std::string> sets;   // KEY=DIST settings of the scenario
};

CLI::App* add_bench_subcommand(CLI::App& app, BenchArgs& args);
// Runs the benchmark: the markdown table goes to `table` (null: none), progress lines to `log`
// (null: none). Usage errors throw std::invalid_argument. Returns the process exit code.
int run_bench(const BenchArgs& args, std::FILE* table, std::FILE* log);

}  // namespace impact::cli
