// `impact reduce`: a study of N sampled impact instances (impact/sampling.hpp) evaluated with one
// law and reduced on the fly into status counts, moments and histograms (impact/stats.hpp), with
// memory flat in N. The index range [first, first + n) is processed in chunks; any shard of it
// can be recomputed alone (same seed, same --range) and merged.
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "study/reduce.hpp"

namespace CLI {
class App;
}

namespace impact::cli {

struct ReduceArgs {
  std::string law;
  std::string scenario = "contact";
  std::uint64_t n = 1000000;
  std::uint64_t first = 0;
  std::uint64_t seed = 1;
  std::vector<std::string> sets;    // KEY=DIST
  std::vector<std::string> ranges;  // QUANTITY=LO:HI histogram ranges
  std::string backend = "auto";
  std::string precision = "double";
  int steps = 250;
  std::string integrator = "rk4";
  std::uint64_t chunk = 0;          // instances per reduction call (0: 2^16 on CPUs, 2^24 on CUDA)
  std::string out;                  // JSON summary ("" none, "-" stdout)
  std::string cases_out;            // CSV of the sampled instances ("" none)
  bool quiet = false;               // no progress lines, no table
};


// Registers the `reduce` subcommand and its options on app.
CLI::App* add_reduce_subcommand(CLI::App& app, ReduceArgs& args);

// Runs the study: the table goes to `table` (null: none), progress lines to `log` (null: none).
// Usage errors throw std::invalid_argument.
study::ReduceResult run_reduce(const ReduceArgs& args, std::FILE* table, std::FILE* log);

}  // namespace impact::cli
