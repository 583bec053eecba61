// OMP backend: the per-instance functors of kernels/batch.hpp and kernels/sampled.hpp run through
// Thrust's OMP system on all cores (compiled by g++; the same functors the CUDA kernels and the
// serial loop run). The same entry points as kernels/serial/ and kernels/cuda/.
#pragma once
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/system/omp/execution_policy.h>
#include <thrust/transform_reduce.h>

#include <cstdint>
#include <vector>

#include "kernels/batch.hpp"
#include "kernels/sampled.hpp"

namespace impact::omp {

// A batch whose work by the law's cost model (Law::cost, flops per instance at opt.steps) is below
// this runs on the calling thread: waking a team and meeting at its barrier costs more than a
// fraction of a millisecond of work gains, and on a loaded machine the barrier waits for a thread
// the scheduler has put aside, for many times the batch's own work. The rows are independent, so
// the result is the same bits either way.
constexpr double kTeamFlops = 1e6;

template <class Law, class T>
void evaluate(const BatchIn<T>& in, const BatchOut<T>& out, const LawOptions& opt) {
  const EvalFunctor<Law, T> f{in, out, opt};
  const double flops = double(in.count) * (Law::cost.flops_instance + Law::cost.flops_step * double(opt.steps));
  if (flops < kTeamFlops) {
    for (std::size_t i = 0; i < in.count; ++i) f(i);
    return;
  }
  thrust::for_each(thrust::omp::par, thrust::counting_iterator<std::size_t>(0), thrust::counting_iterator<std::size_t>(in.count),
                   f);
}

// Summary of a batch on all cores: per-row results are summarised and merged, never stored.
template <class Law, class T>
BatchSummary reduce(const BatchIn<T>& in, const LawOptions& opt, const SummaryRanges& rg) {
  return thrust::transform_reduce(thrust::omp::par, thrust::counting_iterator<std::size_t>(0),
                                  thrust::counting_iterator<std::size_t>(in.count), SummarizeFunctor<Law, T>{in, opt, rg},
                                  summary_identity(rg), MergeSummaries{});
}

// Summary of the sampled instances [begin, end) of a study on all cores: groups of kSampleGroup
// instances summarised in parallel (dynamic schedule: the integrators' rows differ in cost), then
// merged in group order on one thread, in blocks of kSampleBlock groups (memory bounded). The bits
// depend on [begin, end) alone, not on the number of threads or of processors in the affinity mask
// (a Thrust transform_reduce partitions by omp_get_num_procs(): a process bound to one core got
// other last bits), so that a run split over processes (host/dist) merges to the same summary.
constexpr std::uint64_t kSampleGroup = 256;
constexpr std::uint64_t kSampleBlock = 4096;  // groups summarised before they are merged (6 MB)

template <class Law, class T>
BatchSummary reduce_sampled(const SampleSpec& spec, std::uint64_t seed, std::uint64_t begin, std::uint64_t end,
                            const LawOptions& opt, const SummaryRanges& rg) {
  const std::uint64_t g = kSampleGroup, G = group_count(begin, end, g);
  const SampledGroupSummary<Law, T> f{spec, seed, begin, end, g, opt, rg};
  std::vector<BatchSummary> parts(static_cast<std::size_t>(G < kSampleBlock ? G : kSampleBlock));
  BatchSummary s = summary_identity(rg);
  for (std::uint64_t b = 0; b < G; b += kSampleBlock) {
    const std::int64_t m = static_cast<std::int64_t>(G - b < kSampleBlock ? G - b : kSampleBlock);
#pragma omp parallel for schedule(dynamic)
    for (std::int64_t k = 0; k < m; ++k) parts[static_cast<std::size_t>(k)] = f(b + static_cast<std::uint64_t>(k));
    for (std::int64_t k = 0; k < m; ++k) s = merge(s, parts[static_cast<std::size_t>(k)]);
  }
  return s;
}

}  // namespace impact::omp
