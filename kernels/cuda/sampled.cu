// CUDA: reduction over sampled instances (kernels/sampled.hpp) and device-side sampling of
// instance columns for bit comparisons with the host. One explicit instantiation per law and
// precision.
#include <cuda_runtime.h>

#include <cstdlib>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "impact/laws/all.hpp"
#include "kernels/cuda/cuda.hpp"
#include "kernels/cuda/util.cuh"
#include "kernels/sampled.hpp"

namespace impact::cuda {

namespace {

constexpr int kBlock = static_cast<int>(kCudaReduceBlock);
constexpr int kBinSlots = Histogram::kBins + 2;

// The histogram bin of quantity k's value x (Histogram::bin with the ranges of rg).
__device__ __forceinline__ int bin_of(const SummaryRanges& rg, int k, double x) {
  Histogram h;
  h.lo = rg.lo[k];
  h.hi = rg.hi[k];
  return h.bin(x);
}

// The regime key of instance begin + i, and i, for i < n.
template <class Law, class T>
__global__ void sampled_key_kernel(__grid_constant__ const SampleSpec spec, std::uint64_t seed, std::uint64_t begin,
                                   std::size_t n, std::uint32_t* key, std::uint32_t* index) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  key[i] = LaunchTraits<Law>::regime_key(make_instance<T>(spec, seed, begin + i));
  index[i] = static_cast<std::uint32_t>(i);
}

// One block's summary of the instances begin + o(j), j = blockIdx.x * kBlock + threadIdx.x + r * stride
// < end - begin, with o(j) = order[j] (the instances sorted by regime key), or j without an order.
// Blocks of kBlock threads that ptxas must fit on one SM (LaunchTraits<Law>::reduce_blocks_double,
// kernels/launch_traits.hpp): the register cap trades occupancy, which hides the FP64 dependency
// chains the integrators stall on, against spills to L1-resident local memory. Float and the
// algebraic laws take kReduceBlocksDefault. cli.kernel_resources checks the cap and a spill budget.
template <class Law, class T>
constexpr int reduce_min_blocks() {
  if constexpr (std::is_same_v<T, float>) return kReduceBlocksDefault;
  else return LaunchTraits<Law>::reduce_blocks_double;
}

// A thread's partial sums, added in place over the block (impact/exact_sums.hpp: exact for up to 2^24
// values, so a launch takes at most kLaunchMost instances, however they are dealt out).
using ThreadSums = exact::Sums<2, 3>;
constexpr std::uint64_t kLaunchMost = std::uint64_t(1) << 24;

// body(j) for the j < n this lane takes, in warp batches of kWarp consecutive j (batch k: lane l takes
// k kWarp + l). Without a counter, grid-stride: global warp w takes batch w + r (stride / kWarp) in
// round r. With one, persistent lanes (the grid sized to the SMs' resident blocks): a warp
// takes the next batch from the counter whenever its lanes have finished their last one, so that a
// warp whose batch was quick takes another instead of waiting at the block's barrier for the
// slowest warp (12% of jia's stall samples on an H200). The counter deals the batches from the last
// one down: sorted by regime key, the dearest first and the cheapest last, which evens the warps'
// totals out (the SIMT model: a block's time over its warps' mean 1.07 -> 1.02 for jia, 1.10 ->
// 1.03 for stronge, Schedule::persistent; the default since an H200 timed it: kCudaPersistentLanes).
// Only which warp takes which batch differs, and the exact
// sums make the summary independent of that. One loop for both, so that the law is inlined once (a
// loop per schedule doubled the code and the spills); it is warp-uniform, so the shuffle has every lane.
template <class Body>
__device__ __forceinline__ void for_each_instance(std::uint64_t n, unsigned long long* counter, const Body& body) {
  constexpr unsigned kWarp = 32, kAll = 0xffffffffu;
  static_assert(kBlock % kWarp == 0, "whole warps: every lane reaches the shuffle");
  const unsigned lane = threadIdx.x % kWarp;
  const std::uint64_t batches = (n + kWarp - 1) / kWarp, warps = static_cast<std::uint64_t>(gridDim.x) * (kBlock / kWarp);
  auto claim = [&]() {  // the number of batches the grid has taken before this warp's next one
    unsigned long long c = 0;
    if (lane == 0) c = atomicAdd(counter, 1ull);
    return static_cast<std::uint64_t>(__shfl_sync(kAll, c, 0));
  };
  std::uint64_t k = counter ? claim() : static_cast<std::uint64_t>(blockIdx.x) * (kBlock / kWarp) + threadIdx.x / kWarp;
  while (k < batches) {
    const std::uint64_t j = (counter ? batches - 1 - k : k) * kWarp + lane;
    if (j < n) body(j);
    k = counter ? claim() : k + warps;
  }
}

template <class Law, class T>
__global__ void __launch_bounds__(kBlock, (reduce_min_blocks<Law, T>()))
    sampled_reduce_kernel(__grid_constant__ const SampleSpec spec, std::uint64_t seed, std::uint64_t begin, std::uint64_t end,
                          LawOptions opt, __grid_constant__ const SummaryRanges rg, const std::uint32_t* order,
                          unsigned long long* counter, BatchSummary* out) {
  __shared__ unsigned long long status[static_cast<int>(Status::count_)];
  __shared__ unsigned long long hist[kNumQuantities][kBinSlots];
  __shared__ unsigned long long far[kNumQuantities], lo_key[kNumQuantities], hi_key[kNumQuantities];
  __shared__ ThreadSums sums[kNumQuantities][kBlock];
  __shared__ int grid_exp[kNumQuantities];           // each quantity's grid (SummaryRanges::grid), once per block
  __shared__ exact::DigitSums wide[kNumQuantities];  // the rare values of the wide tier, by atomics
  const int t = threadIdx.x;
  for (int i = t; i < static_cast<int>(Status::count_); i += kBlock) status[i] = 0;
  for (int i = t; i < kNumQuantities * kBinSlots; i += kBlock) hist[i / kBinSlots][i % kBinSlots] = 0;
  if (t < kNumQuantities) {
    far[t] = 0, lo_key[t] = ~0ull, hi_key[t] = 0, grid_exp[t] = rg.grid[t];
    wide[t] = exact::DigitSums::zero();
  }
  // The thread's sums live in shared memory (sums[k][t], added in the tree below) and the ranges in
  // the kernel parameters, so that no register holds them across the law. Everything else is an
  // integer atomic: counts, bins, and min and max as order keys (exact::order_key). Integer sums do
  // not depend on which thread took which instance, so the summary is the host's, bit for bit,
  // whenever the rows' values are.
  for (int k = 0; k < kNumQuantities; ++k) sums[k][t] = ThreadSums::zero();
  __syncthreads();
  for_each_instance(end - begin, counter, [&](std::uint64_t j) {
    const std::uint64_t i = begin + (order ? static_cast<std::uint64_t>(order[j]) : j);
    const ContactProblem<T> p = make_instance<T>(spec, seed, i);
    // what the summary needs of the instance, taken before the law: 4 numbers live across it, not 12
    const Vec3<T> n = p.n;
    const double K0 = initial_energy(p);
    const Result<T> r = Law::template eval<T>(p, opt);
    atomicAdd(&status[static_cast<int>(r.status)], 1ull);
    if (r.status != Status::ok) return;
    double x[kNumQuantities];
    summary_quantities(n, K0, r, x);
    for (int k = 0; k < kNumQuantities; ++k) {
      exact::Fixed f;
      if (exact::quantize(x[k], grid_exp[k], f)) sums[k][t].add(f);
      else if (exact::quantize(x[k], grid_exp[k] + exact::kWideShift, f)) wide[k].add(f);
      else atomicAdd(&far[k], 1ull);
      if (x[k] - x[k] == 0) {  // finite: the extremes (a read first: after the first rows few lanes write)
        const unsigned long long key = exact::order_key(x[k]);
        if (key < lo_key[k]) atomicMin(&lo_key[k], key);
        if (key > hi_key[k]) atomicMax(&hi_key[k], key);
      }
      atomicAdd(&hist[k][bin_of(rg, k, x[k])], 1ull);
    }
  });
  __syncthreads();
  for (int w = kBlock / 2; w > 0; w /= 2) {
    if (t < w)
      for (int k = 0; k < kNumQuantities; ++k) sums[k][t].add(sums[k][t + w]);
    __syncthreads();
  }
  if (t == 0) {
    BatchSummary& s = out[blockIdx.x];
    for (int i = 0; i < static_cast<int>(Status::count_); ++i) s.status[i] = status[i];
    for (int k = 0; k < kNumQuantities; ++k) {
      SumMoments m = SumMoments::identity(grid_exp[k]);
      m.far = far[k];
      m.n = status[static_cast<int>(Status::ok)] - far[k];
      m.sums.add(sums[k][0]);
      m.wide = wide[k].sums();
      if (lo_key[k] != ~0ull) m.min = exact::from_order_key(lo_key[k]);
      if (hi_key[k] != 0) m.max = exact::from_order_key(hi_key[k]);
      s.q[k] = m;
      s.h[k].lo = rg.lo[k];
      s.h[k].hi = rg.hi[k];
      for (int b = 0; b < kBinSlots; ++b) s.h[k].count[b] = hist[k][b];
    }
  }
}

__global__ void sample_kernel(SampleSpec spec, std::uint64_t seed, std::uint64_t begin, std::size_t n, double* out) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double v[kNumInputs];
  to_columns(make_instance<double>(spec, seed, begin + i), v);
  for (int k = 0; k < kNumInputs; ++k) out[k * n + i] = v[k];
}

}  // namespace

template <class Law, class T>
BatchSummary reduce_sampled(const SampleSpec& spec, std::uint64_t seed, std::uint64_t begin, std::uint64_t end,
                            const LawOptions& opt, const SummaryRanges& rg, const ReduceSchedule& how) {
  BatchSummary total = summary_identity(rg);
  if (end <= begin) return total;
  const bool sorted = HasRegimeKey<Law>::value && how.sort;
  LawOptions law_opt = opt;
  law_opt.defer_searches = how.defer_searches;
  // a launch takes at most kLaunchMost instances (the bound of a block's exact sums)
  const std::uint64_t piece = sorted ? kCudaSortPiece : (end - begin < kLaunchMost ? end - begin : kLaunchMost);
  static_assert(kCudaSortPiece <= kLaunchMost, "a sorted piece is one launch");
  const std::uint64_t most = end - begin < piece ? end - begin : piece;
  const std::uint64_t need = (most + kBlock - 1) / kBlock;
  unsigned grid = kCudaReduceBlocks;
  if (how.persistent) {  // as many blocks as the SMs hold at once
    int dev = 0, sms = 0, per_sm = 0;
    check(cudaGetDevice(&dev), "cudaGetDevice");
    check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), "SM count");
    check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, sampled_reduce_kernel<Law, T>, kBlock, 0),
          "reduction kernel occupancy");
    grid = static_cast<unsigned>(sms > 0 && per_sm > 0 ? sms * per_sm : 1);
  }
  const unsigned blocks = need < grid ? static_cast<unsigned>(need) : grid;
  DeviceBuffer d(blocks * sizeof(BatchSummary));
  DeviceBuffer counter;  // persistent lanes' work counter
  if (how.persistent) counter.alloc(sizeof(unsigned long long));
  KeyOrder order;
  if (sorted) order.alloc(most);
  std::vector<BatchSummary> parts(blocks);
  for (std::uint64_t b = begin; b < end; b += piece) {
    const std::uint64_t e = end - b < piece ? end : b + piece;
    const std::uint32_t* ord = nullptr;
    if constexpr (HasRegimeKey<Law>::value) {
      if (sorted && sampled_keys_vary<Law, T>(spec, seed, b, e - b)) {  // else the plain order
        const std::size_t m = static_cast<std::size_t>(e - b);
        sampled_key_kernel<Law, T><<<blocks_for(m, kBlock), kBlock>>>(spec, seed, b, m, order.key_in(), order.index_in());
        check(cudaGetLastError(), "regime key kernel launch");
        ord = order.sort(m, nullptr);
      }
    }
    const std::uint64_t nb = (e - b + kBlock - 1) / kBlock;
    const unsigned used = nb < blocks ? static_cast<unsigned>(nb) : blocks;
    unsigned long long* next = nullptr;
    if (how.persistent) {
      next = counter.as<unsigned long long>();
      check(cudaMemset(next, 0, sizeof *next), "reset the work counter");
    }
    sampled_reduce_kernel<Law, T><<<used, kBlock>>>(spec, seed, b, e, law_opt, rg, ord, next, d.as<BatchSummary>());
    check(cudaGetLastError(), "sampled reduction kernel launch");
    check(cudaDeviceSynchronize(), "sampled reduction kernel");
    check(cudaMemcpy(parts.data(), d.get(), used * sizeof(BatchSummary), cudaMemcpyDeviceToHost), "copy summaries to host");
    for (unsigned k = 0; k < used; ++k) total = merge(total, parts[k]);
  }
  return total;
}

ReduceSchedule default_reduce_schedule() {
  ReduceSchedule how;
  // NAME=a|b: true for a, false for b, `otherwise` when unset or empty
  auto choice = [](const char* name, const char* a, const char* b, bool otherwise) {
    const char* e = std::getenv(name);
    if (!e || !*e) return otherwise;
    const std::string v = e;
    if (v != a && v != b) throw std::invalid_argument(std::string(name) + "=" + v + ": expected " + a + " or " + b);
    return v == a;
  };
  how.persistent = choice("IMPACT_CUDA_LANES", "persistent", "grid-stride", how.persistent);
  how.defer_searches = choice("IMPACT_CUDA_SEARCH", "deferred", "at-once", how.defer_searches);
  return how;
}

template <class Law, class T>
BatchSummary reduce_sampled(const SampleSpec& spec, std::uint64_t seed, std::uint64_t begin, std::uint64_t end,
                            const LawOptions& opt, const SummaryRanges& rg) {
  return reduce_sampled<Law, T>(spec, seed, begin, end, opt, rg, default_reduce_schedule());
}

void sample_instances(const SampleSpec& spec, std::uint64_t seed, std::uint64_t begin, std::size_t count, double* out) {
  if (count == 0) return;
  const std::size_t bytes = kNumInputs * count * sizeof(double);
  DeviceBuffer d(bytes);
  const int block = 128;
  sample_kernel<<<blocks_for(count, block), block>>>(spec, seed, begin, count, d.as<double>());
  check(cudaGetLastError(), "sample kernel launch");
  check(cudaDeviceSynchronize(), "sample kernel");
  check(cudaMemcpy(out, d.get(), bytes, cudaMemcpyDeviceToHost), "copy samples to host");
}

#define IMPACT_INSTANTIATE_T(LAW, T)                                                                            \
  template BatchSummary reduce_sampled<LAW, T>(const SampleSpec&, std::uint64_t, std::uint64_t, std::uint64_t,  \
                                               const LawOptions&, const SummaryRanges&, const ReduceSchedule&); \
  template BatchSummary reduce_sampled<LAW, T>(const SampleSpec&, std::uint64_t, std::uint64_t, std::uint64_t,  \
                                               const LawOptions&, const SummaryRanges&);
#define IMPACT_INSTANTIATE(LAW) IMPACT_INSTANTIATE_T(LAW, double) IMPACT_INSTANTIATE_T(LAW, float)
IMPACT_FOR_EACH_LAW(IMPACT_INSTANTIATE)
#undef IMPACT_INSTANTIATE
#undef IMPACT_INSTANTIATE_T

}  // namespace impact::cuda
