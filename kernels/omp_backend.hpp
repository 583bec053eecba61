// OpenMP backend: the per-instance functor of kernels/batch.hpp run through Thrust's OMP system on
// all cores (compiled by g++; the same functor the CUDA kernel and the serial loop run).
#pragma once
#include <thrust/for_each.h>
#include <thrust/transform_reduce.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/system/omp/execution_policy.h>

#include "kernels/batch.hpp"
#include "kernels/sampled.hpp"

namespace impact {

template <class Law, class T>
void evaluate_omp(const BatchIn<T>& in, const BatchOut<T>& out, const LawOptions& opt) {
  thrust::for_each(thrust::omp::par, thrust::counting_iterator<std::size_t>(0),
                   thrust::counting_iterator<std::size_t>(in.count), EvalFunctor<Law, T>{in, out, opt});
}

// On-device reduction on all cores: per-row results are summarised and merged, never stored.
template <class Law, class T>
BatchSummary reduce_omp(const BatchIn<T>& in, const LawOptions& opt, const SummaryRanges& rg) {
  return thrust::transform_reduce(thrust::omp::par, thrust::counting_iterator<std::size_t>(0),
                                  thrust::counting_iterator<std::size_t>(in.count),
                                  SummarizeFunctor<Law, T>{in, opt, rg}, summary_identity(rg), MergeSummaries{});
}

// Reduction over the sampled instances [begin, end) of a study (kernels/sampled.hpp) on all cores:
// a transform_reduce over a counting iterator of groups of kOmpSampleGroup instances.
constexpr std::uint64_t kOmpSampleGroup = 256;

template <class Law, class T>
BatchSummary reduce_sampled_omp(const SampleSpec& spec, std::uint64_t seed, std::uint64_t begin, std::uint64_t end,
                                const LawOptions& opt, const SummaryRanges& rg) {
  const std::uint64_t g = kOmpSampleGroup;
  return thrust::transform_reduce(thrust::omp::par, thrust::counting_iterator<std::uint64_t>(0),
                                  thrust::counting_iterator<std::uint64_t>(group_count(begin, end, g)),
                                  SampledGroupSummary<Law, T>{spec, seed, begin, end, g, opt, rg},
                                  summary_identity(rg), MergeSummaries{});
}

}  // namespace impact
