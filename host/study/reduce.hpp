// Sampled studies reduced on the fly (`impact reduce`): instances [first, first + n) of a
// SampleSpec evaluated with one law and folded into status counts, moments and histograms
// (impact/stats.hpp), in chunks, with memory flat in n. Any shard can be recomputed alone (same
// seed, same range) and merged.
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "engine/options.hpp"
#include "engine/registry.hpp"
#include "impact/sampling.hpp"
#include "impact/stats.hpp"

namespace impact::study {

// Quantity keys (--range, the JSON) and descriptions: Pn, Pt, vfn, dE_K0.
const char* quantity_key(int k);
const char* quantity_name(int k);

// Histogram ranges set by hand: "QUANTITY=LO:HI" (std::invalid_argument naming the setting).
struct RangeOverride {
  int quantity;
  double lo, hi;
};
RangeOverride parse_range(const std::string& setting);

struct ReduceSpec {
  const engine::LawInfo* law = nullptr;
  std::string scenario;  // its name, for the outputs
  SampleSpec spec;
  std::uint64_t n = 0, first = 0, seed = 1;
  engine::Backend backend = engine::Backend::omp;
  engine::Precision precision = engine::Precision::f64;
  LawOptions opt;
  std::uint64_t chunk = 0;  // instances per reduction call (0: 2^16 on CPUs, 2^24 on CUDA)
  std::vector<RangeOverride> ranges;
  std::string cases_out;    // also write the instances as a CSV ("" none, "-" stdout)
};

struct ReduceResult {
  BatchSummary summary;
  SummaryRanges ranges;
  std::uint64_t chunk = 0;   // as used
  double wall_seconds = 0;   // everything, pilot included
  double study_seconds = 0;  // the reduction of the n instances (the rate's denominator)
  double cpu_seconds = 0;    // user + system, all threads
  long peak_rss_kb = 0;
};

// A reduction as a user states it (the CLI's options, the Python package's arguments): names and
// settings as text, checked and resolved by reduce_spec().
struct ReduceRequest {
  std::string law;
  std::string scenario = "contact";
  std::uint64_t n = 1000000;
  std::uint64_t first = 0;
  std::uint64_t seed = 1;
  std::vector<std::string> sets;    // KEY=DIST
  std::vector<std::string> ranges;  // QUANTITY=LO:HI histogram ranges
  std::string backend = "auto";     // auto, cuda, omp, serial
  std::string precision = "double";
  int steps = 250;
  std::string integrator = "rk4";
  std::uint64_t chunk = 0;  // instances per reduction call (0: 2^16 on CPUs, 2^24 on CUDA)
  std::string cases_out;    // CSV of the sampled instances ("" none)
};

// The spec of a request, every name and setting checked before any work (std::invalid_argument
// naming the option); `why`: how the backend was chosen (engine::BackendPick::why).
ReduceSpec reduce_spec(const ReduceRequest& q, std::string* why);

// The summary as JSON text: law, scenario, options, the study's settings, timings, status counts,
// and per quantity the moments and the histogram (the CLI's --out, the Python package's reduce()).
std::string reduce_json(const ReduceSpec& a, const ReduceResult& r);

// Runs the reduction; progress lines go to `log` (null: none).
ReduceResult reduce(const ReduceSpec& spec, std::FILE* log);

// The sampled instances [first, first + n) as CSV (index + the input columns of
// docs/INTERFACE.md), written block by block: memory stays flat.
void write_cases(const std::string& path, const SampleSpec& spec, std::uint64_t seed, std::uint64_t first,
                 std::uint64_t n);

}  // namespace impact::study
