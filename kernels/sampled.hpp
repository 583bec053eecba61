// Reduction over sampled instances: index -> make_instance (impact/sampling.hpp) -> Law::eval ->
// the row's summary (impact/stats.hpp), merged over an index range [begin, end) with no
// per-instance storage. The serial loop and Thrust's OMP system (kernels/omp_backend.hpp) run the
// group functor below; the GPU runs a block-accumulating kernel over the same per-row pieces
// (kernels/cuda_sampled.cu).
//
// The functor maps a GROUP index g to the summary of the instances begin + g G .. begin + (g+1) G
// - 1 (clipped at end), accumulated in place (O(1) per row: a Welford merge and a histogram
// increment) instead of building and merging a full BatchSummary (~1.5 KB, O(bins)) per row;
// the group summaries are then merged by thrust::transform_reduce over a counting iterator.
// With G = 1 this is exactly transform_reduce(summarize_row). Counts and histograms do not
// depend on G or on the merge order; moments agree to round-off.
#pragma once
#include <cstddef>
#include <cstdint>

#include "impact/sampling.hpp"
#include "impact/stats.hpp"
#include "kernels/batch.hpp"

namespace impact {

// The summarised quantities of an ok row, computed as summarize_row() does.
template <class T>
IMPACT_HDI void row_quantities(const ContactProblem<T>& p, const Result<T>& res, double x[kNumQuantities]) {
  const Vec3<T> n = (T(1) / norm(p.n)) * p.n;
  x[kPn] = double(dot(res.P, n));
  x[kPt] = double(norm(tangential(res.P, n)));
  x[kVfn] = double(dot(res.vf, n));
  x[kEnergyRatio] = double(res.dE) / double(contact_energy(cholesky(p.W), p.v0));
}

// Adds one evaluated row to s: the same quantities and the same arithmetic as summarize_row()
// followed by merge() (tests/test_sampling.cpp checks bit equality).
template <class T>
IMPACT_HDI void accumulate_row(BatchSummary& s, const ContactProblem<T>& p, const Result<T>& res) {
  ++s.status[static_cast<int>(res.status)];
  if (res.status != Status::ok) return;
  double x[kNumQuantities];
  row_quantities(p, res, x);
  for (int k = 0; k < kNumQuantities; ++k) {
    s.q[k] = merge(s.q[k], Moments::of(x[k]));
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

inline std::uint64_t group_count(std::uint64_t begin, std::uint64_t end, std::uint64_t group) {
  return end > begin ? (end - begin + group - 1) / group : 0;
}

// Serial backend: one pass in index order.
template <class Law, class T>
BatchSummary reduce_sampled_serial(const SampleSpec& spec, std::uint64_t seed, std::uint64_t begin,
                                   std::uint64_t end, const LawOptions& opt, const SummaryRanges& rg) {
  BatchSummary s = summary_identity(rg);
  for (std::uint64_t i = begin; i < end; ++i) {
    const ContactProblem<T> p = make_instance<T>(spec, seed, i);
    accumulate_row(s, p, Law::template eval<T>(p, opt));
  }
  return s;
}

// Materialized samples: instances [begin, begin + count) as the 16 input columns of
// docs/INTERFACE.md (cols[k][i], BatchIn order), e.g. to write a CSV for `impact eval`.
template <class T>
IMPACT_HDI void store_instance_columns(T* const* cols, std::size_t i, const ContactProblem<T>& p) {
  T v[kInstanceColumns];
  instance_columns(p, v);
  for (int k = 0; k < kInstanceColumns; ++k) cols[k][i] = v[k];
}

template <class T>
void materialize(const SampleSpec& spec, std::uint64_t seed, std::uint64_t begin, std::size_t count,
                 T* const cols[kInstanceColumns]) {
  for (std::size_t i = 0; i < count; ++i) store_instance_columns(cols, i, make_instance<T>(spec, seed, begin + i));
}

// A BatchIn view of 16 columns in BatchIn order (materialized instances, or device copies; a null
// law-parameter column means "not read").
template <class T>
BatchIn<T> batch_in_of(const T* const cols[kInstanceColumns], std::size_t count) {
  BatchIn<T> in{};
  for (int k = 0; k < 6; ++k) in.W[k] = cols[k];
  for (int k = 0; k < 3; ++k) in.n[k] = cols[6 + k], in.v[k] = cols[9 + k];
  in.mu = cols[12];
  in.e = cols[13];
  in.e_t = cols[14];
  in.eta0 = cols[15];
  in.count = count;
  return in;
}

}  // namespace impact
