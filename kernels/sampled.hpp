// Reduction over sampled instances: index -> make_instance (impact/sampling.hpp) -> Law::eval ->
// the row's summary (impact/stats.hpp), merged over an index range [begin, end) with no
// per-instance storage. The serial loop (kernels/serial/) and Thrust's OMP system (kernels/omp/)
// run the pieces below; the GPU runs a block-accumulating kernel over the same per-row pieces
// (kernels/cuda/sampled.cu).
//
// The functor maps a GROUP index g to the summary of the instances begin + g G .. begin + (g+1) G
// - 1 (clipped at end), accumulated in place (O(1) per row: exact integer sums and a histogram
// increment) instead of building and merging a full BatchSummary (~1.5 KB, O(bins)) per row;
// the group summaries are then merged by thrust::transform_reduce over a counting iterator.
// With G = 1 this is exactly transform_reduce(summarize_row). Nothing depends on G or on the
// merge order: the moments are exact integer sums (impact/stats.hpp SumMoments).
#pragma once
#include <cstddef>
#include <cstdint>

#include "impact/sampling.hpp"
#include "impact/stats.hpp"
#include "kernels/batch.hpp"

namespace impact {

// Adds one evaluated row to s: the same quantities and the same arithmetic as summarize_row()
// followed by merge() (tests/kernels/test_sampled.cpp checks bit equality).
template <class T>
IMPACT_HDI void accumulate_row(BatchSummary& s, const ContactProblem<T>& p, const Result<T>& res) {
  ++s.status[static_cast<int>(res.status)];
  if (res.status != Status::ok) return;
  double x[kNumQuantities];
  summary_quantities(p, res, x);
  for (int k = 0; k < kNumQuantities; ++k) {
    s.q[k].add(x[k]);
    s.h[k].add(x[k]);
  }
}

// Group g of [begin, end) -> its summary.
template <class Law, class T>
struct SampledGroupSummary {
  SampleSpec spec;
  std::uint64_t seed, begin, end, group;
  LawOptions opt;
  SummaryRanges ranges;
  IMPACT_HD BatchSummary operator()(std::uint64_t g) const {
    BatchSummary s = summary_identity(ranges);
    const std::uint64_t i0 = begin + g * group;
    const std::uint64_t i1 = end - i0 < group ? end : i0 + group;
    for (std::uint64_t i = i0; i < i1; ++i) {
      const ContactProblem<T> p = make_instance<T>(spec, seed, i);
      accumulate_row(s, p, Law::template eval<T>(p, opt));
    }
    return s;
  }
};

// Whether the sampled instances [begin, begin + n) are worth sorting by regime key
// (kernels/batch.hpp keys_look_uniform: the keys of kKeyProbes of them, computed on the host by the
// same source as the device's sampling and key code).
template <class Law, class T>
bool sampled_keys_vary(const SampleSpec& spec, std::uint64_t seed, std::uint64_t begin, std::uint64_t n) {
  return keys_vary<Law>(static_cast<std::size_t>(n), [&](std::size_t i) { return make_instance<T>(spec, seed, begin + i); });
}

inline std::uint64_t group_count(std::uint64_t begin, std::uint64_t end, std::uint64_t group) {
  return end > begin ? (end - begin + group - 1) / group : 0;
}

// Materialized samples: instances [begin, begin + count) as the input columns (cols[k][i],
// InputColumn order), e.g. to write a CSV for `impact eval`.
template <class T>
IMPACT_HDI void store_instance_columns(T* const* cols, std::size_t i, const ContactProblem<T>& p) {
  T v[kNumInputs];
  to_columns(p, v);
  for (int k = 0; k < kNumInputs; ++k) cols[k][i] = v[k];
}

template <class T>
void materialize(const SampleSpec& spec, std::uint64_t seed, std::uint64_t begin, std::size_t count, T* const cols[kNumInputs]) {
  for (std::size_t i = 0; i < count; ++i) store_instance_columns(cols, i, make_instance<T>(spec, seed, begin + i));
}

}  // namespace impact
