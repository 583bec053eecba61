// CUDA backend entry points (compiled by nvcc in kernels/cuda/evaluate.cu and sampled.cu; declared here for the
// g++-compiled host code). One thread per instance, the law evaluated in registers.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "impact/sampling.hpp"
#include "kernels/batch.hpp"
#include "kernels/cuda/stream_plan.hpp"
#include "kernels/device_rows.hpp"

namespace impact::cuda {

// True when the CUDA runtime finds at least one device. `why` says why not, otherwise names it.
bool device_available(std::string* why = nullptr);

// The current device's properties for `impact bench` (peak-rate estimates in host/engine/device.cpp).
// False, with `why`, when no device is usable. Clocks in kHz as cudaDeviceGetAttribute gives them
// (cudaDevAttrClockRate: peak SM clock; cudaDevAttrMemoryClockRate: peak memory clock).
struct DeviceInfo {
  std::string name;
  int ordinal = 0, cc_major = 0, cc_minor = 0, sm_count = 0;
  int clock_khz = 0, mem_clock_khz = 0, bus_width_bits = 0;
  std::size_t total_mem_bytes = 0;
  int driver_version = 0, runtime_version = 0;  // 1000 major + 10 minor (cudaDriverGetVersion)
};
bool device_info(DeviceInfo& out, std::string* why = nullptr);

// Makes the current device ready for timed calls: creates the runtime's context (cudaFree(0)),
// launches an empty kernel and waits for it, and allocates and frees a little device and pinned
// memory, so that the next call does not pay the one-time start-up (context creation, the first
// launch, the allocators' set-up: tenths of a second). Throws std::runtime_error on a CUDA error.
void warm_up();

// The bandwidth of a plain cudaMemcpy between pinned host memory and the current device, in bytes/s
// (the best of 3 timed copies of `bytes` after one untimed): the ceiling of the eval path, whose
// batch lives in host memory (`impact bench` reports the eval path's share of it).
struct LinkRate {
  double h2d = 0, d2h = 0;
};
LinkRate link_rate(std::size_t bytes);

// Evaluates a batch whose arrays live in host memory: copies in, runs, copies out (through
// evaluate_streamed with its default chunking, so a batch may be larger than device memory).
template <class Law, class T>
void evaluate(const BatchIn<T>& in, const BatchOut<T>& out, const LawOptions& opt);

// Chunked streaming (kernels/cuda/stream_plan.hpp, StreamOptions: chunks, stages, the regime sort):
// the batch goes through pinned staging buffers and device buffers kept per device and host thread
// across calls (no allocation after the first call of a shape), one upload, one launch sequence and
// one download per chunk, each chunk on its stage's stream, waited on by stream, never device-wide.
// A law with a regime key (HasRegimeKey: jia, stronge) has each chunk's rows ordered by key on the
// device (CUB radix sort, stable); every row's result is written to its own place, so the outputs are
// those of the unsorted evaluation, row for row (tests/kernels/test_cuda_order.cpp compares the bytes).
template <class Law, class T>
void evaluate_streamed(const BatchIn<T>& in, const BatchOut<T>& out, const LawOptions& opt, const StreamOptions& so);

// The runtime calls this host thread's batches in host memory have made on the CUDA eval path
// (evaluate, evaluate_streamed, evaluate_device_arrays), by kind (stream_plan.hpp's Call):
// CallCounts::since gives one call's.
CallCounts call_counts();

// ---- arrays owned by the caller on the device (DLPack, __cuda_array_interface__) ----------------
// The law over rows [0, n) of the caller's device arrays (kernels/device_rows.hpp: DeviceInputs,
// DeviceOutputs), each row read, evaluated and written back in one kernel (sorted by regime key
// first where the law has one, in pieces of kDeviceChunk rows), on the legacy default stream
// (ordered after the work of CuPy's and PyTorch's default streams), waited on before returning.
// Nothing goes through host memory but one flag: the first row whose W is not symmetric to 1e-12
// of max |W| (as the host path checks), returned (-1: none; otherwise the results are not to be
// kept). `device`: the CUDA device the arrays live on. Throws std::runtime_error on a CUDA error.
constexpr std::size_t kDeviceChunk = std::size_t(1) << 22;
template <class Law, class T>
std::int64_t evaluate_device_arrays(int device, const DeviceInputs& in, std::size_t n, const DeviceOutputs<T>& out,
                                    const LawOptions& opt);

// The device buffers the library has allocated in this process (cudaMalloc through its own buffers,
// not device_alloc's results): the eval paths keep theirs per host thread and device, so a repeated
// call of the same shape adds none.
std::uint64_t device_allocations();

// Device memory for results handed to Python (DLPack capsules, __cuda_array_interface__) on
// `device`, from the core's own stream-ordered pool there (cudaMallocFromPoolAsync), which keeps
// what is freed into it: after the first call of a shape, a call whose earlier results were dropped
// takes its block from the pool, with no cudaMalloc (a device without memory pools: cudaMalloc).
// Both keep the thread's current device. device_alloc throws std::runtime_error on a CUDA error;
// device_free (a deleter) waits for the device's work in flight, returns the block to the pool and
// never throws; device_free(d, nullptr) does nothing.
void* device_alloc(int device, std::size_t bytes);
void device_free(int device, void* p);
// What the pool holds: bytes reserved from the device, bytes of them handed out now, and the blocks
// handed out so far in this process.
struct ResultMemory {
  std::uint64_t reserved = 0;
  std::uint64_t used = 0;
  std::uint64_t blocks = 0;
};
ResultMemory result_memory(int device);

// Makes device (local_rank mod the number of devices) current for this host thread; returns it.
int select_device(int local_rank);

// Summary of the sampled instances [begin, end) of a study (kernels/sampled.hpp) reduced on the
// device: a grid-stride kernel of at most kCudaReduceBlocks blocks; each thread samples,
// evaluates and adds its rows' values to exact integer sums in shared memory (impact/exact_sums.hpp),
// status and histogram counts and the extremes go to shared memory atomics, the block adds its
// threads' sums, and the per-block summaries are merged on the host. Integer sums: the summary is
// the same bits for any grid, order or sort, and the CPU backends' whenever the rows are. Memory:
// kCudaReduceBlocks summaries (3 MB), whatever the range. (thrust::transform_reduce on
// thrust::cuda::par with the 1.5 KB BatchSummary as its value type compiles CUB reduce kernels
// that spill ~50-60 KB each; ptxas had not finished this file after 15 CPU-minutes, so the
// device path does not use it.)
// sort: a law with a regime key (jia, stronge) runs the range in pieces of kCudaSortPiece
// instances; per piece a first kernel samples each instance and computes its key, CUB sorts the
// indices by key (stable), and the reduction kernel's threads take the instances in key order
// (32 MB of device memory per piece); a piece whose probed keys are all alike (kernels/sampled.hpp
// sampled_keys_vary) runs unsorted. The summary is that of the unsorted run, bit for bit.
constexpr unsigned kCudaReduceBlocks = 2048;
// The default schedule (ReduceSchedule): persistent lanes. The SIMT model predicted them to cut the
// blocks' wait for their slowest warp by 4-6% of the time (docs/bench.md, "Persistent lanes"); an
// H200 measured more (perf/gpu_check.sh, same call, same summaries bit for bit,
// instances/s against grid-stride): jia double 1.13e7 -> 1.30e7 (1.15x), float 2.08e7 -> 2.19e7
// (1.05x), stronge double 2.74e7 -> 2.91e7 (1.06x), chatterjee-ruina 1.41e9 -> 1.93e9 (1.37x: its
// short instances leave the grid-stride tail idle). IMPACT_CUDA_LANES=grid-stride keeps the other.
constexpr bool kCudaPersistentLanes = true;
constexpr std::uint64_t kCudaSortPiece = std::uint64_t(1) << 22;
constexpr unsigned kCudaReduceBlock = 128;  // threads per block of the reduction kernel
// How the reduction deals the instances to the lanes; the summary is the same bits for every choice.
struct ReduceSchedule {
  bool sort = true;  // by regime key, where the law has one and the probed keys differ
  // persistent lanes: a grid of the blocks the SMs hold at once, whose warps take batches
  // of 32 instances from a work counter (kernels/cuda/sampled.cu for_each_instance); else grid-stride
  // over kCudaReduceBlocks blocks
  bool persistent = kCudaPersistentLanes;
  // deferred event searches: the lanes of a warp vote on when to search, and search
  // together (impact/search_vote.hpp; LawOptions::defer_searches); else each searches at once
  bool defer_searches = true;
};
template <class Law, class T>
BatchSummary reduce_sampled(const SampleSpec& spec, std::uint64_t seed, std::uint64_t begin, std::uint64_t end,
                            const LawOptions& opt, const SummaryRanges& rg, const ReduceSchedule& how);
// The schedule `impact reduce` and the Python package use: ReduceSchedule{}, with persistent lanes
// set by the environment variable IMPACT_CUDA_LANES=persistent|grid-stride and the event searches by
// IMPACT_CUDA_SEARCH=deferred|at-once where they are given (to compare on a device:
// perf/gpu_check.sh, perf/ab_reduce.py; std::invalid_argument for another value).
ReduceSchedule default_reduce_schedule();
template <class Law, class T>  // default_reduce_schedule()
BatchSummary reduce_sampled(const SampleSpec& spec, std::uint64_t seed, std::uint64_t begin, std::uint64_t end,
                            const LawOptions& opt, const SummaryRanges& rg);

// The instances [begin, begin + count) of a study sampled on the device, in double, as the 16
// input columns: out[k * count + i] (tests compare the bits with the host's make_instance).
void sample_instances(const SampleSpec& spec, std::uint64_t seed, std::uint64_t begin, std::size_t count, double* out);

// Philox uniforms u01(seed, index, stream) for index in [first, first + count) computed on the
// device (the same function the CPU evaluates: tests compare the bits).
void philox_uniforms(std::uint64_t seed, std::uint32_t stream, std::uint64_t first, std::size_t count, double* out);

}  // namespace impact::cuda
