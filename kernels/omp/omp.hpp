// OMP backend: the per-instance functors of kernels/batch.hpp and kernels/sampled.hpp run through
// Thrust's OMP system on all cores (compiled by g++; the same functors the CUDA kernels and the
// serial loop run). The same entry points as kernels/serial/ and kernels/cuda/.
#pragma once
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/system/omp/execution_policy.h>
#include <thrust/transform_reduce.h>

#include "kernels/batch.hpp"
#include "kernels/sampled.hpp"

namespace impact::omp {

template <class Law, class T>
void evaluate(const BatchIn<T>& in, const BatchOut<T>& out, const LawOptions& opt) {
  thrust::for_each(thrust::omp::par, thrust::counting_iterator<std::size_t>(0),
                   thrust::counting_iterator<std::size_t>(in.count), EvalFunctor<Law, T>{in, out, opt});
}

// Summary of a batch on all cores: per-row results are summarised and merged, never stored.
template <class Law, class T>
BatchSummary reduce(const BatchIn<T>& in, const LawOptions& opt, const SummaryRanges& rg) {
  return thrust::transform_reduce(thrust::omp::par, thrust::counting_iterator<std::size_t>(0),
                                  thrust::counting_iterator<std::size_t>(in.count),
                                  SummarizeFunctor<Law, T>{in, opt, rg}, summary_identity(rg), MergeSummaries{});
}

// Summary of the sampled instances [begin, end) of a study on all cores: a transform_reduce over a
// counting iterator of groups of kSampleGroup instances.
constexpr std::uint64_t kSampleGroup = 256;

template <class Law, class T>
BatchSummary reduce_sampled(const SampleSpec& spec, std::uint64_t seed, std::uint64_t begin, std::uint64_t end,
                            const LawOptions& opt, const SummaryRanges& rg) {
  const std::uint64_t g = kSampleGroup;
  return thrust::transform_reduce(thrust::omp::par, thrust::counting_iterator<std::uint64_t>(0),
                                  thrust::counting_iterator<std::uint64_t>(group_count(begin, end, g)),
                                  SampledGroupSummary<Law, T>{spec, seed, begin, end, g, opt, rg},
                                  summary_identity(rg), MergeSummaries{});
}

}  // namespace impact::omp
