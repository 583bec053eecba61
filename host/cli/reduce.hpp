// `impact reduce`: a study of N sampled impact instances (impact/sampling.hpp) evaluated with one
// law and reduced on the fly into status counts, moments and histograms (impact/stats.hpp), with
// memory flat in N. The index range [first, first + n) is processed in chunks; any shard of it
// can be recomputed alone (same seed, same --range) and merged.
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "sampled/reduce.hpp"

namespace CLI {
class App;
}

namespace impact::cli {

struct ReduceArgs {
  sampled::ReduceRequest req;                   // law, scenario, n, settings, backend, ... (sampled/reduce.hpp)
  std::string out;                              // JSON summary ("" none, "-" stdout)
  bool quiet = false;                           // no progress lines, no table
  std::vector<std::string> integrator_options;  // --steps, --integrator where given: the integrators'
  // a run over several processes (host/dist, under mpirun): who computes which chunks; the merging
  // process prints and writes, the others only compute. local_rank picks the GPU.
  resume::ProcessGroup* plan = nullptr;
  int local_rank = 0;
};

// Registers the `reduce` subcommand and its options on app.
CLI::App* add_reduce_subcommand(CLI::App& app, ReduceArgs& args);

// Runs the study: the table goes to `table` (null: none), progress lines to `log` (null: none).
// Usage errors throw std::invalid_argument.
sampled::ReduceResult run_reduce(const ReduceArgs& args, std::FILE* table, std::FILE* log);

}  // namespace impact::cli
