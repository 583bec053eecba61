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
#include "resume/process_group.hpp"

namespace impact::sampled {

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
  std::string cases_out;   // also write the instances as a CSV ("" none, "-" stdout)
  std::string checkpoint;  // keep finished chunks in this folder (resume/checkpoint.hpp; "" none)
  bool resume = false;     // use the chunks an earlier run of the same reduction left there
};

// One process's share of a reduction spread over several (host/dist: MPI ranks).
struct ProcessLoad {
  std::uint64_t chunks = 0, instances = 0;
  double busy_seconds = 0;                // in the law's reduction calls
  std::uint64_t loaded = 0, corrupt = 0;  // chunks taken from the checkpoint, and files found bad there
};

// The summary of one chunk (index k: instances [first + k chunk, first + (k + 1) chunk) of the run).
struct ChunkSummary {
  std::uint64_t index = 0;
  BatchSummary summary;
};

// Who computes which chunks of a reduction and how their summaries meet: without a process group
// this process computes every chunk in order; with one (resume/process_group.hpp; MPI ranks taking
// chunks from a shared counter: dist::MpiGroup), each process computes the chunks next() hands it,
// every chunk's summary is gathered to rank 0, and rank 0 merges them in chunk order from the
// identity: the same merges in the same order as one process, so the summary is the same bits
// whatever the number of processes and whichever took which chunk.

struct ReduceResult {
  BatchSummary summary;
  std::vector<ProcessLoad> loads;  // with a process group, on rank 0: every process's share
  SummaryRanges ranges;
  std::uint64_t chunk = 0;                              // as used
  std::uint64_t chunks_loaded = 0, chunks_corrupt = 0;  // with a checkpoint: chunks read back, files found bad
  double wall_seconds = 0;                              // everything, pilot included
  double study_seconds = 0;                             // the reduction of the n instances (the rate's denominator)
  double cpu_seconds = 0;                               // user + system, all threads
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
  std::string checkpoint;   // folder of finished chunks ("" none)
  bool resume = false;      // continue from the chunks there
};

// The spec of a request, every name and setting checked before any work (std::invalid_argument
// naming the option); `why`: how the backend was chosen (engine::BackendPick::why).
ReduceSpec reduce_spec(const ReduceRequest& q, std::string* why);

// The summary as JSON text: law, scenario, options, the study's settings, timings, status counts,
// and per quantity the moments and the histogram (the CLI's --out, the Python package's reduce()).
std::string reduce_json(const ReduceSpec& a, const ReduceResult& r);

// Runs the reduction; progress lines go to `log` (null: none). With a process group, the chunks
// this process computes are those the group hands it, and the summary is complete on rank 0 only.
ReduceResult reduce(const ReduceSpec& spec, std::FILE* log, resume::ProcessGroup* group = nullptr);

// The sampled instances [first, first + n) as CSV (index + the input columns of
// docs/INTERFACE.md), written block by block: memory stays flat.
void write_cases(const std::string& path, const SampleSpec& spec, std::uint64_t seed, std::uint64_t first, std::uint64_t n);

}  // namespace impact::sampled
