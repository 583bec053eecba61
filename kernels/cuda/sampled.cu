// CUDA: reduction over sampled instances (kernels/sampled.hpp) and device-side sampling of
// instance columns for bit comparisons with the host. One explicit instantiation per law and
// precision.
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>
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
__global__ void sampled_key_kernel(__grid_constant__ const SampleSpec spec, std::uint64_t seed, std::uint64_t begin, std::size_t n,
                                   std::uint32_t* key, std::uint32_t* index) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  key[i] = Law::regime_key(make_instance<T>(spec, seed, begin + i));
  index[i] = static_cast<std::uint32_t>(i);
}

// One block's summary of the instances begin + o(j), j = blockIdx.x * kBlock + threadIdx.x + r * stride
// < end - begin, with o(j) = order[j] (the instances sorted by regime key), or j without an order.
// Blocks of kBlock threads that ptxas must fit on one SM: 4 caps the kernel at 128 registers (65536
// per SM / 512 threads), 25% occupancy, 4 warps per scheduler instead of 2 to hide the FP64
// dependency chains the integrators stall on. The law's state then partly spills (ptxas: jia double
// 730 B stored / 2700 B loaded, stronge 1080 / 2752), to L1-resident local memory, and still every
// law gained on an H200, same call, same summaries bit for bit (2026-11-26, against no bound, i.e.
// 240 and 254 registers): jia double 1.25x, float 1.14x; stronge double 1.41x, float 1.22x;
// chatterjee-ruina 1.17x, newton 1.22x, aghili 1.20x, morgan 1.21x. 3 (168 registers) gained less,
// 5 (96) and 6 (80) lost on the integrators in double (jia 1.06x and 0.96x). The register cap and a
// spill budget are checked by cli.kernel_resources.
constexpr int kReduceMinBlocks = 4;

template <class Law, class T>
__global__ void __launch_bounds__(kBlock, kReduceMinBlocks)
    sampled_reduce_kernel(__grid_constant__ const SampleSpec spec, std::uint64_t seed, std::uint64_t begin,
                          std::uint64_t end, LawOptions opt, __grid_constant__ const SummaryRanges rg,
                          const std::uint32_t* order, BatchSummary* out) {
  __shared__ unsigned long long status[static_cast<int>(Status::count_)];
  __shared__ unsigned long long hist[kNumQuantities][kBinSlots];
  __shared__ Moments mom[kNumQuantities][kBlock];
  const int t = threadIdx.x;
  for (int i = t; i < static_cast<int>(Status::count_); i += kBlock) status[i] = 0;
  for (int i = t; i < kNumQuantities * kBinSlots; i += kBlock) hist[i / kBinSlots][i % kBinSlots] = 0;
  __syncthreads();
  // The thread's moments live in shared memory (mom[k][t], merged in the tree below) and the
  // histogram ranges in the kernel parameters, so that no register holds them across the law.
  for (int k = 0; k < kNumQuantities; ++k) mom[k][t] = Moments::identity();
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * kBlock;
  const std::uint64_t n = end - begin;
  for (std::uint64_t j = static_cast<std::uint64_t>(blockIdx.x) * kBlock + t; j < n; j += stride) {
    const std::uint64_t i = begin + (order ? static_cast<std::uint64_t>(order[j]) : j);
    const ContactProblem<T> p = make_instance<T>(spec, seed, i);
    const Result<T> r = Law::template eval<T>(p, opt);
    atomicAdd(&status[static_cast<int>(r.status)], 1ull);
    if (r.status != Status::ok) continue;
    double x[kNumQuantities];
    summary_quantities(p, r, x);
    for (int k = 0; k < kNumQuantities; ++k) {
      mom[k][t] = merge(mom[k][t], Moments::of(x[k]));
      atomicAdd(&hist[k][bin_of(rg, k, x[k])], 1ull);
    }
  }
  __syncthreads();
  for (int w = kBlock / 2; w > 0; w /= 2) {  // fixed tree: deterministic
    if (t < w)
      for (int k = 0; k < kNumQuantities; ++k) mom[k][t] = merge(mom[k][t], mom[k][t + w]);
    __syncthreads();
  }
  if (t == 0) {
    BatchSummary& s = out[blockIdx.x];
    for (int i = 0; i < static_cast<int>(Status::count_); ++i) s.status[i] = status[i];
    for (int k = 0; k < kNumQuantities; ++k) {
      s.q[k] = mom[k][0];
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
                            const LawOptions& opt, const SummaryRanges& rg, bool sort) {
  BatchSummary total = summary_identity(rg);
  if (end <= begin) return total;
  const bool sorted = HasRegimeKey<Law>::value && sort;
  const std::uint64_t piece = sorted ? kCudaSortPiece : end - begin;
  const std::uint64_t most = end - begin < piece ? end - begin : piece;
  const std::uint64_t need = (most + kBlock - 1) / kBlock;
  const unsigned blocks = need < kCudaReduceBlocks ? static_cast<unsigned>(need) : kCudaReduceBlocks;
  DeviceBuffer d(blocks * sizeof(BatchSummary));
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
    sampled_reduce_kernel<Law, T><<<used, kBlock>>>(spec, seed, b, e, opt, rg, ord, d.as<BatchSummary>());
    check(cudaGetLastError(), "sampled reduction kernel launch");
    check(cudaDeviceSynchronize(), "sampled reduction kernel");
    check(cudaMemcpy(parts.data(), d.get(), used * sizeof(BatchSummary), cudaMemcpyDeviceToHost),
          "copy summaries to host");
    for (unsigned k = 0; k < used; ++k) total = merge(total, parts[k]);
  }
  return total;
}

template <class Law, class T>
BatchSummary reduce_sampled(const SampleSpec& spec, std::uint64_t seed, std::uint64_t begin, std::uint64_t end,
                            const LawOptions& opt, const SummaryRanges& rg) {
  return reduce_sampled<Law, T>(spec, seed, begin, end, opt, rg, true);
}

void sample_instances(const SampleSpec& spec, std::uint64_t seed, std::uint64_t begin, std::size_t count,
                      double* out) {
  if (count == 0) return;
  const std::size_t bytes = kNumInputs * count * sizeof(double);
  DeviceBuffer d(bytes);
  const int block = 128;
  sample_kernel<<<blocks_for(count, block), block>>>(spec, seed, begin, count, d.as<double>());
  check(cudaGetLastError(), "sample kernel launch");
  check(cudaDeviceSynchronize(), "sample kernel");
  check(cudaMemcpy(out, d.get(), bytes, cudaMemcpyDeviceToHost), "copy samples to host");
}

#define IMPACT_INSTANTIATE_T(LAW, T)                                                                          \
  template BatchSummary reduce_sampled<LAW, T>(const SampleSpec&, std::uint64_t, std::uint64_t, std::uint64_t, \
                                               const LawOptions&, const SummaryRanges&, bool);                 \
  template BatchSummary reduce_sampled<LAW, T>(const SampleSpec&, std::uint64_t, std::uint64_t, std::uint64_t, \
                                               const LawOptions&, const SummaryRanges&);
#define IMPACT_INSTANTIATE(LAW) IMPACT_INSTANTIATE_T(LAW, double) IMPACT_INSTANTIATE_T(LAW, float)
IMPACT_FOR_EACH_LAW(IMPACT_INSTANTIATE)
#undef IMPACT_INSTANTIATE
#undef IMPACT_INSTANTIATE_T

}  // namespace impact::cuda
