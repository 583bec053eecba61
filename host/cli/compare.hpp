// `impact compare`: runs the fast path (serial / omp / cuda, float or double, fixed steps) and the
// CPU reference (host/reference/compare.hpp) on the same rows and reports, per output column, the
// max, p99 and median of the absolute and relative differences, the rows whose status or mode
// sequence differs, and the rows beyond a tolerance (written to a file). Exit status 3 when any
// row is beyond the tolerance, so that it can gate scripts.
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace impact::cli {

struct CompareArgs {
  std::string law;
  std::string in;                 // a CSV of instances (or of results with --given), or:
  std::string scenario;           // a sampled study (impact/sampling.hpp, as `impact reduce`)
  std::uint64_t n = 1000000;      //   its size: instances [0, n)
  std::uint64_t study_seed = 1;   //   its seed
  std::vector<std::string> sets;  // its KEY=DIST settings
  std::string backend = "auto";
  std::string precision = "double";
  int steps = 250;
  std::string integrator = "rk4";
  double tol = 0;                              // 0: default of the precision (ref::kDefaultTol*)
  std::size_t sample = 0;                      // compare a uniform random subset of K rows (0: every row; a study: 1000)
  std::uint64_t seed = 1;                      // seed of the subset
  std::string fail_out;                        // rows beyond tolerance ("" : <law>_compare_failures.csv)
  std::string report;                          // optional JSON report
  bool given = false;                          // the input holds results (an `impact eval` table) to check
  bool strict = false;                         // rows the fast path gave up on (step_limit, non_finite) count as failures
  bool modes_must_match = false;               // a differing mode sequence counts as a failure
  std::vector<std::string> fast_path_options;  // --backend, --steps, --integrator where given
};

constexpr int kExitBeyondTolerance = 3;
// No row compared at all (no rows, or every row unresolved by one path or both): not a pass.
constexpr int kExitNothingCompared = 4;

// Registers `impact compare` and its options on app (filling args when parsed).
CLI::App* add_compare_subcommand(CLI::App& app, CompareArgs& args);

// Runs the comparison and prints the report to `out`; returns the exit code (0 pass, 3 a row beyond
// tolerance, 4 nothing compared, 5 unverified: rows ok in the fast path that the reference left
// unresolved; docs/cpu-reference.md); throws io::InputError / std::invalid_argument / std::runtime_error.
int run_compare(const CompareArgs& args, std::FILE* out);

}  // namespace impact::cli
