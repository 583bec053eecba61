// CUDA backend entry points (compiled by nvcc in kernels/cuda/evaluate.cu and sampled.cu; declared here for the
// g++-compiled host code). One thread per instance, the law evaluated in registers.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "impact/sampling.hpp"
#include "kernels/batch.hpp"

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

// Chunked streaming: the batch is cut into chunks of `chunk_rows` rows (0: about a quarter of
// the batch, between 2^14 and 2^17 rows); chunk k goes through pinned host staging buffers and
// device buffers of stream k mod `streams` (>= 2): host packing, cudaMemcpyAsync in, kernel,
// cudaMemcpyAsync out, so the kernel of chunk k overlaps the copies of chunks k-1 and k+1.
// Device and pinned memory: `streams` chunks' worth, whatever the batch size.
// sort: a law with a regime key (HasRegimeKey: jia, stronge) has each chunk's rows ordered by key
// on the device (CUB radix sort, stable) and evaluated in that order, so that a warp holds rows on
// similar code paths; every row's result is written to its own place, so the outputs are those of
// the unsorted evaluation, row for row (tests/kernels/test_cuda_order.cpp compares the bytes). A
// chunk whose probed keys are all alike (kernels/batch.hpp batch_keys_vary) is not sorted.
struct StreamOptions {
  std::size_t chunk_rows = 0;
  int streams = 3;
  bool sort = true;
};
template <class Law, class T>
void evaluate_streamed(const BatchIn<T>& in, const BatchOut<T>& out, const LawOptions& opt, const StreamOptions& so);

// Evaluates a batch whose columns already live in device memory (the current device): the law's
// kernels (sorted by regime key where the law has one, as evaluate_streamed) on the legacy default
// stream (ordered after the work of CuPy's and PyTorch's default streams), which is
// synchronized before returning. No host copy.
template <class Law, class T>
void evaluate_on_device(const BatchIn<T>& device_in, const BatchOut<T>& device_out, const LawOptions& opt);

// ---- arrays owned by the caller on the device (DLPack, __cuda_array_interface__) ----------------
// A float32 or float64 array on the device with element strides (the batch index first, then the
// array's own indices; a stride 0 broadcasts), or a constant for every row (data null).
struct DeviceView {
  const void* data = nullptr;
  bool f64 = true;
  std::int64_t stride[3] = {0, 0, 0};
  double value = 0;
};
// evaluate()'s arguments: W (N, 3, 3), n and v (N, 3), the parameters mu, e, e_t, eta0 (N,);
// has[k] false: the law does not read parameter k.
struct DeviceInputs {
  DeviceView W, n, v, param[4];
  bool has[4] = {true, true, true, true};
};
// The results, C-contiguous device arrays of N rows: P and vf (N, 3), the real columns (N,) by
// OutputColumn (out_dE, out_In_c, out_aux0 + k: null where not wanted), modes, steps, status (N,).
template <class T>
struct DeviceOutputs {
  T* P = nullptr;
  T* vf = nullptr;
  T* real[kNumRealOutputs] = {};
  std::uint32_t* modes = nullptr;
  std::int32_t* steps = nullptr;
  std::uint8_t* status = nullptr;
};
template <class T>
using DeviceLawFn = void (*)(const BatchIn<T>&, const BatchOut<T>&, const LawOptions&);

// Reads the caller's device arrays into the law's columns (in chunks of kDeviceChunk rows, in
// device memory: a gather kernel converting to T, W's upper triangle), runs `law`
// (evaluate_on_device<Law, T>) and writes the results into the caller's device arrays (a scatter
// kernel). Nothing goes through host memory but one flag: the first row whose W is not symmetric
// to 1e-12 of max |W| (as the host path checks), returned (-1: none; then nothing is evaluated).
// `device`: the CUDA device the arrays live on. Throws std::runtime_error on a CUDA error.
constexpr std::size_t kDeviceChunk = std::size_t(1) << 22;
template <class T>
std::int64_t evaluate_device_arrays(DeviceLawFn<T> law, int device, const DeviceInputs& in, std::size_t n,
                                    const DeviceOutputs<T>& out, const LawOptions& opt);

// The device buffers the library has allocated in this process (cudaMalloc through its own buffers,
// not device_alloc's results): the device-array path keeps its scratch per host thread and device,
// so a repeated call of the same shape adds none.
std::uint64_t device_allocations();

// Device memory for results handed to Python (DLPack capsules, __cuda_array_interface__): on
// `device`; device_free(nullptr) does nothing. Throw std::runtime_error on a CUDA error.
void* device_alloc(int device, std::size_t bytes);
void device_free(void* p);

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
// benches/gpu_check.sh, benches/ab_reduce.py; std::invalid_argument for another value).
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
