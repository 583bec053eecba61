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

// One block's summary of the instances i = begin + (blockIdx.x * kBlock + threadIdx.x) + j * stride.
template <class Law, class T>
__global__ void __launch_bounds__(kBlock)
    sampled_reduce_kernel(SampleSpec spec, std::uint64_t seed, std::uint64_t begin, std::uint64_t end, LawOptions opt,
                          SummaryRanges rg, BatchSummary* out) {
  __shared__ unsigned long long status[static_cast<int>(Status::count_)];
  __shared__ unsigned long long hist[kNumQuantities][kBinSlots];
  __shared__ Moments mom[kNumQuantities][kBlock];
  const int t = threadIdx.x;
  for (int i = t; i < static_cast<int>(Status::count_); i += kBlock) status[i] = 0;
  for (int i = t; i < kNumQuantities * kBinSlots; i += kBlock) hist[i / kBinSlots][i % kBinSlots] = 0;
  __syncthreads();
  Histogram bins[kNumQuantities];  // only lo and hi are used (Histogram::bin), the counts live in shared memory
  Moments m[kNumQuantities];
  for (int k = 0; k < kNumQuantities; ++k) {
    bins[k].lo = rg.lo[k];
    bins[k].hi = rg.hi[k];
    m[k] = Moments::identity();
  }
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * kBlock;
  for (std::uint64_t i = begin + static_cast<std::uint64_t>(blockIdx.x) * kBlock + t; i < end; i += stride) {
    const ContactProblem<T> p = make_instance<T>(spec, seed, i);
    const Result<T> r = Law::template eval<T>(p, opt);
    atomicAdd(&status[static_cast<int>(r.status)], 1ull);
    if (r.status != Status::ok) continue;
    double x[kNumQuantities];
    summary_quantities(p, r, x);
    for (int k = 0; k < kNumQuantities; ++k) {
      m[k] = merge(m[k], Moments::of(x[k]));
      atomicAdd(&hist[k][bins[k].bin(x[k])], 1ull);
    }
  }
  for (int k = 0; k < kNumQuantities; ++k) mom[k][t] = m[k];
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
                            const LawOptions& opt, const SummaryRanges& rg) {
  BatchSummary total = summary_identity(rg);
  if (end <= begin) return total;
  const std::uint64_t need = (end - begin + kBlock - 1) / kBlock;
  const unsigned blocks = need < kCudaReduceBlocks ? static_cast<unsigned>(need) : kCudaReduceBlocks;
  DeviceBuffer d(blocks * sizeof(BatchSummary));
  sampled_reduce_kernel<Law, T><<<blocks, kBlock>>>(spec, seed, begin, end, opt, rg, d.as<BatchSummary>());
  check(cudaGetLastError(), "sampled reduction kernel launch");
  check(cudaDeviceSynchronize(), "sampled reduction kernel");
  std::vector<BatchSummary> parts(blocks);
  check(cudaMemcpy(parts.data(), d.get(), blocks * sizeof(BatchSummary), cudaMemcpyDeviceToHost), "copy summaries to host");
  for (const BatchSummary& s : parts) total = merge(total, s);
  return total;
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

#define IMPACT_INSTANTIATE(LAW)                                                                            \
  template BatchSummary reduce_sampled<LAW, double>(const SampleSpec&, std::uint64_t, std::uint64_t,       \
                                                    std::uint64_t, const LawOptions&, const SummaryRanges&); \
  template BatchSummary reduce_sampled<LAW, float>(const SampleSpec&, std::uint64_t, std::uint64_t,        \
                                                   std::uint64_t, const LawOptions&, const SummaryRanges&);
IMPACT_FOR_EACH_LAW(IMPACT_INSTANTIATE)
#undef IMPACT_INSTANTIATE

}  // namespace impact::cuda
