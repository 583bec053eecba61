// The SIMT model of `impact-simt` (perf/simt/main.cpp) (docs/bench.md, "SIMT model"): how coherently the lanes
// of a GPU warp run an integrator, predicted on the CPU from per-lane traces of the same code.
//
// Each instance runs through the law on the host with a recording probe (impact/probe.hpp): the
// code blocks of its set-up, of every iteration of its main loop, and of its finish. Lanes are
// grouped into warps exactly as the CUDA kernel assigns instances (sampled_reduce_kernel:
// instance begin + global thread + round x grid stride). A warp issues, per aligned unit, every
// block that any of its active lanes runs (a block run r times by a lane in one unit is issued
// max_r times), each at its cost in instructions; a lane's work is the cost of its own blocks.
// Predicted active threads per warp = sum of lane work / sum of warp issue; predicted time is
// proportional to the warp issue.
// Schedules: grid_stride (a round's lanes start together, align by loop iteration, and the round
// ends when its slowest lane does), refill (a lane that finishes an instance takes the warp's next
// one at once: its set-up and finish fall into the iterations of the other lanes) and sorted (the
// kernels with regime sorting: the instances ordered by LaunchTraits<Law>::regime_key, stable, then dealt out
// as grid_stride deals them, 32 consecutive ones per warp and round).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/options.hpp"
#include "impact/sampling.hpp"

namespace impact::perf {

constexpr int kWarp = 32;  // lanes per warp

// The code path of a set of instances: for instance i its units are unit_begin[i] ..
// unit_begin[i+1]-1: the set-up, one per loop iteration, the finish; unit u holds the block ids
// seg[unit_end[u-1] .. unit_end[u]).
struct PathTrace {
  std::vector<std::uint8_t> seg;
  std::vector<std::uint32_t> unit_end;
  std::vector<std::uint8_t> sub;  // per unit: a sub-step of the iteration before (probe.sub())
  std::vector<std::uint32_t> unit_begin{0};
  std::vector<std::uint8_t> ok;    // status ok (the kernel reduces only those)
  std::vector<std::uint32_t> key;  // LaunchTraits<Law>::regime_key of each instance
  std::size_t instances() const { return unit_begin.size() - 1; }
  std::uint32_t unit_start(std::uint32_t u) const { return u ? unit_end[u - 1] : 0; }  // seg index of unit u
};

// The blocks of a law's kernel: the law's own (SimtCosts<Law>: name, cost),
// then the reduction kernel's per-instance work: sampling the instance (Philox draws, Box-Muller,
// the rotation: ~2000 instructions) and merging an ok row into the thread's moments and the
// block's histograms (~850).
struct SimtBlocks {
  std::vector<std::string> name;
  std::vector<std::string> code;  // the functions its instructions come from (SimtCosts<Law>::code)
  std::vector<int> cost;
  int law_blocks = 0;      // ids 0..law_blocks-1 are the law's; then sample, reduce
  double law_latency = 0;  // SimtCosts<Law>::latency: cycles between a warp's issues in the law's blocks
  int search_block = -1;   // SimtCosts<Law>::search: the block that opens an event search inside a step
  int descent_block = -1;  // SimtCosts<Law>::descent: the block that marks an iteration of the second phase
                           // (stronge's tau-steps), which predicted_count_keys predicts apart
  int count() const { return static_cast<int>(cost.size()); }
  int sample() const { return law_blocks; }
  int reduce() const { return law_blocks + 1; }
};
constexpr int kSimtSampleCost = 2000, kSimtReduceCost = 850;

// Warp geometry of the kernel being modelled: `warps` warps of the grid (global warps 0..warps-1)
// over `rounds` grid-stride rounds, grid stride `stride` threads.
struct SimtGeometry {
  int warps = 64;
  int rounds = 8;
  std::uint64_t stride = 0;  // 0: the CUDA reduction kernel's (kCudaReduceBlocks x its block size)
  std::uint64_t begin = 0;   // first instance index
};
// nested_search: grid_stride with the sub-steps run inside their step's iteration, as separate
// code: the structure of the kernels the calibration figures were measured on (docs/perf-log.md).
// persistent: sorted, with the batches of kWarp consecutive instances taken from a work counter, the
// last (dearest keys) first, by whichever warp is free first (kernels/cuda/sampled.cu's persistent
// lanes) instead of by round: the same batches, so the same active threads, but the warps of a
// block finish together.
// deferred: persistent, with the event searches of a law that defers them (SimtCosts<Law>::search) held
// back and run together as the CUDA kernels' warp vote lets them (impact/search_vote.hpp); for a
// law without, persistent.
enum class Schedule { grid_stride, refill, sorted, nested_search, persistent, deferred };
// Instances per thread (simt_model's per_lane; docs/bench.md, "Two levers weighed on the model"): on the
// persistent and deferred schedules a batch is per_lane x kWarp consecutive instances of the sorted
// order, and lane l carries instances l, l + kWarp, ... of it, one per code site: the kernel's body
// holds each block once per instance, so a warp issues a site's block when any lane's instance of
// that site runs it. A lane's instances advance together: iteration k of each in one unit, and the
// lane stays in the loop until its last instance is done. The deferred vote counts instances, not
// lanes. A batch carries per_lane times the instances, so geom.warps / per_lane warps take them (the
// registers of per_lane instances per thread hold the SM to fewer warps).
constexpr int kSimtMaxPerLane = 4;

struct SimtBlockUse {
  std::string name;
  std::string code;                      // SimtBlocks::code
  double cost = 0;                       // instructions per run (SimtBlocks::cost): lane_work / cost = runs per instance
  double lane_work = 0, warp_issue = 0;  // instructions per instance
};
struct SimtResult {
  std::size_t instances = 0;
  double active_threads = 0;  // per warp, of 32
  double warp_issue = 0;      // instructions a warp issues per instance (x 32 lanes: the kernel time)
  // the same, counting each warp as long as its block's slowest (a block of kSimtBlockWarps warps
  // holds its slots until the barrier after the loop: the kernel's time in the latency-bound regime)
  double block_issue = 0;
  double kernel_issue = 0;     // the part of warp_issue in the kernel's own blocks (sample, reduce)
  double lane_work = 0;        // instructions per instance
  double law_latency = 0;      // the law's own latency (SimtBlocks::law_latency; 0: GpuTiming's)
  double mean_iterations = 0;  // loop iterations per instance
  int per_lane = 1;            // instances per thread
  // the part of warp_issue (of kernel_issue) issued in a unit where another instance of the same
  // lanes runs the same block: independent instructions the compiler can interleave (per_lane > 1)
  double overlapped_issue = 0, kernel_overlapped_issue = 0;
  std::vector<SimtBlockUse> blocks;  // per block, largest warp issue first
};

// Occupancy-aware time (docs/bench.md, "Occupancy and time"). A scheduler issues at most one warp
// instruction per cycle; a warp that issued waits on average `latency` cycles before its next
// instruction is ready (dependency chains, the FP64 and special-function pipes, memory), so A
// resident warps keep a scheduler busy max(issue, latency-weighted issue / A) cycles (Little's
// law). Two latencies: the law's blocks (FP64 arithmetic chains) and the kernel's own per-instance
// blocks (Philox sampling, shared-memory histogram atomics, global stores), which wait longer. A
// block keeps its warps' slots until its slowest warp is done: the time counts the block issue.
// The two latencies are the fitted constants (perf/simt/test_simt.cpp holds the model to the
// H200 figures within +-30%; docs/perf-log.md).
constexpr int kSimtBlockWarps = 4;  // the kernels' 128-thread blocks
struct GpuTiming {
  int sms = 132;                 // H200
  double clock_hz = 1.98e9;      // H200 under load
  int schedulers_per_sm = 4;     // sm_90
  int max_warps_per_sm = 64;     // sm_90
  int registers_per_sm = 65536;  // sm_90
  double law_latency = 12.5;     // cycles between a warp's issues in a law's blocks: jia's fit
                                 // (SimtCosts<JiaLaw>::latency, static_assert in simt.cpp); a law with
                                 // probes states its own, SimtCosts<Law>::latency, which the model uses
  double kernel_latency = 23.0;  // the same in the sampling and reduction blocks (fitted)
  // Cycles a warp waits after a local-memory load (LDL) and store (STL): spills, and a struct the
  // compiler keeps in memory. Fitted (docs/bench.md, "Local memory in the model") to the ratios
  // between the H200's rates of one build at 3, 4, 5 or 4, 5, 6 blocks per SM (jia and stronge,
  // double and float; perf/simt/test_simt.cpp, SimtLocalMemory), with each configuration's local
  // instructions from perf/sass/local_traffic.py. The law latencies above were fitted without this
  // term: it tells how a build's time changes with its local traffic, not an absolute time.
  double local_load_latency = 62.0;
  double local_store_latency = 0.0;  // a store is issued, then nothing waits on it
  // The share of a warp's cycles between its issues that waits on its own fixed-latency dependencies
  // (Nsight Compute's "wait": 2.4 of 6.9 cycles, H200, stronge double at 25% occupancy). With k
  // independent instances per lane (SimtResult::per_lane), the overlapped issue has k instructions
  // ready per dependency: that share of its latency falls to 1/k, the rest (the issue itself, the
  // scheduler's queue, instruction fetch, the pipes' throttles, memory) stays.
  double dependent_share = 2.4 / 6.9;
};
// A kernel's local-memory instructions per instance, counted per lane (perf/sass/local_traffic.py):
// loads (LDL) and stores (STL). A warp issues each once for its active lanes.
struct LocalTraffic {
  double loads = 0, stores = 0;
};
// Fraction of the SM's warp slots a kernel of `registers` per thread fills with blocks of
// `block_threads` threads (the register file alone; allocation in units of 8 registers per thread).
double theoretical_occupancy(int registers, int block_threads, const GpuTiming& g = GpuTiming{});
// Resident warps per scheduler at `occupancy`.
double warps_per_scheduler(double occupancy, const GpuTiming& g = GpuTiming{});
// Seconds for `instances` instances whose warps issue law_issue + kernel_issue instructions per
// instance (the law's blocks, the kernel's own), each warp held block_factor times as long by its
// block's slowest warp, at `occupancy`.
double predicted_seconds(double law_issue, double kernel_issue, double block_factor, double instances, double occupancy,
                         const GpuTiming& g = GpuTiming{});
// The same with local-memory instructions, warp instructions per instance (local_loads, local_stores):
// each is issued and then waits its latency (GpuTiming::local_load_latency, local_store_latency).
double predicted_seconds(double law_issue, double kernel_issue, double local_loads, double local_stores, double block_factor,
                         double instances, double occupancy, const GpuTiming& g);
// The same from a model run: SimtResult's warp, kernel and block issue, and for a law with probes its
// own latency (SimtResult::law_latency, SimtCosts<Law>::latency), which replaces g.law_latency.
double predicted_seconds(const SimtResult& r, double instances, double occupancy, const GpuTiming& g = GpuTiming{});
// The same with the kernel's local traffic (per lane; a warp's at the model's active threads).
double predicted_seconds(const SimtResult& r, const LocalTraffic& local, double instances, double occupancy,
                         const GpuTiming& g = GpuTiming{});
// Blocks of `block_threads` per SM as an occupancy (the fraction of the SM's warp slots).
double occupancy_of_blocks(int blocks, int block_threads, const GpuTiming& g = GpuTiming{});

// True for the laws whose headers carry path probes (the integrators jia and stronge).
bool simt_supported(const std::string& law);
// The law's blocks (SimtCosts<Law>, simt_costs.hpp) and the kernel's sample and reduce blocks.
SimtBlocks simt_blocks(const std::string& law);

// Instances of `spec` that the kernel's first geom.warps warps process in geom.rounds rounds, in
// order (warp, round, lane), run through the law with a recording probe.
PathTrace trace_paths(const std::string& law, engine::Precision precision, const SampleSpec& spec, std::uint64_t seed,
                      const LawOptions& opt, const SimtGeometry& geom);

// The model on a trace recorded with trace_paths(geom); per_lane instances per thread (1 to
// kSimtMaxPerLane; above 1 on the persistent and deferred schedules only).
SimtResult simt_model(const PathTrace& trace, const SimtBlocks& blocks, const SimtGeometry& geom, Schedule schedule,
                      int per_lane = 1);

// Per instance: its loop iterations, and those of them that run `block` (-1: every iteration).
std::vector<std::uint32_t> iterations_running(const PathTrace& trace, int block);
// Regime keys from a predictor of each instance's iteration count (docs/bench.md, "Two levers
// weighed on the model"): its iterations outside the descent block (SimtBlocks::descent_block) and in it, each
// known to a log-correlation (1: exactly) by multiplicative log-normal noise, seeded; whether an
// instance has descent iterations at all is known. Sorted by the key, the instances are in the
// predicted count's order (1/64 of an iteration).
std::vector<std::uint32_t> predicted_count_keys(const PathTrace& trace, int descent_block, double outside_correlation,
                                                double descent_correlation, std::uint64_t seed);

// Keys of counts known to a log-correlation (1: exactly; the same log-normal errors as
// predicted_count_keys, seeded): 64 x the predicted count, so sorted by the key the instances are in
// the predicted count's order (1/64 of an iteration).
std::vector<std::uint32_t> count_keys(const std::vector<std::uint32_t>& counts, double correlation, std::uint64_t seed);

// Two passes over the path (docs/bench.md, "Two passes: the path split at the first tau-step"): a
// kernel that ends an instance's first pass at its first loop iteration that runs `block`, keeps its
// state, and runs the rest in a second pass over only the instances that reached it, sorted anew.
// Per instance: the loop iterations of the first pass (all of them where no iteration runs the
// block) and of the second (0: the instance is not in it).
struct PassCounts {
  std::vector<std::uint32_t> first, second;
};
PassCounts pass_counts(const PathTrace& trace, int block);

// Coherence by loop iterations alone: the instances of a pass in key order (stable), dealt out kWarp
// at a time from the last one down (as the persistent lanes deal), each warp holding kWarp lanes for
// as many iterations as its longest one runs (a partial warp of the first instances too). So the
// key that is the count itself gives the fewest slots of any key: the oracle. work = the lanes'
// iterations, slots = the warps' lane-iterations; both add over passes, and active() = kWarp x work /
// slots is the active threads per warp.
struct IterationCoherence {
  double work = 0, slots = 0;
  double active() const { return slots > 0 ? kWarp * work / slots : static_cast<double>(kWarp); }
  IterationCoherence& operator+=(const IterationCoherence& o) {
    work += o.work;
    slots += o.slots;
    return *this;
  }
};
// The pass holds the instances with in[i] != 0 (empty `in`: every instance).
IterationCoherence iteration_coherence(const std::vector<std::uint32_t>& iterations, const std::vector<std::uint32_t>& key,
                                       const std::vector<std::uint8_t>& in = {});

// The instance a grid-stride kernel gives lane `lane` of global warp `warp` in round `round`.
std::uint64_t simt_instance(const SimtGeometry& geom, int warp, int round, int lane);

}  // namespace impact::perf
