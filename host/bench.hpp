// `impact bench`: throughput of every law x backend x precision (x steps for the integrators),
// measured in one run so that ratios are meaningful. See docs/bench.md.
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace impact::host {

struct BenchArgs {
  std::vector<std::string> laws;        // empty: all
  std::vector<std::string> backends;    // empty: serial, omp, and cuda when usable
  std::vector<std::string> precisions;  // empty: double, float
  std::vector<int> steps;               // integrators; empty: 250, 1000
  std::string scenario = "contact";
  std::uint64_t seed = 1;
  double min_time = 0.5;                // seconds per repetition (instance count grows to reach it)
  int reps = 5;
  int warmup = 1;
  std::string json;                     // "" none
  std::string markdown;                 // "" none, "-" stdout
  bool quiet = false;
};

CLI::App* add_bench_subcommand(CLI::App& app, BenchArgs& args);
// Returns the process exit code.
int run_bench(const BenchArgs& args, std::FILE* table, std::FILE* log);

}  // namespace impact::host
