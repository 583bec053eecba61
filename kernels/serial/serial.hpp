// Serial backend: one host thread, instances in index order. The baseline every other backend is
// compared against (tests/kernels/). The same entry points as kernels/omp/ and kernels/cuda/.
#pragma once
#include "kernels/batch.hpp"
#include "kernels/sampled.hpp"

namespace impact::serial {

template <class Law, class T>
void evaluate(const BatchIn<T>& in, const BatchOut<T>& out, const LawOptions& opt) {
  EvalFunctor<Law, T> f{in, out, opt};
  for (std::size_t i = 0; i < in.count; ++i) f(i);
}

// Summary of a batch (rows evaluated and merged in index order, never stored).
template <class Law, class T>
BatchSummary reduce(const BatchIn<T>& in, const LawOptions& opt, const SummaryRanges& rg) {
  SummarizeFunctor<Law, T> f{in, opt, rg};
  BatchSummary s = summary_identity(rg);
  for (std::size_t i = 0; i < in.count; ++i) s = merge(s, f(i));
  return s;
}

// Summary of the sampled instances [begin, end) of a study: one pass in index order.
template <class Law, class T>
BatchSummary reduce_sampled(const SampleSpec& spec, std::uint64_t seed, std::uint64_t begin, std::uint64_t end,
                            const LawOptions& opt, const SummaryRanges& rg) {
  BatchSummary s = summary_identity(rg);
  for (std::uint64_t i = begin; i < end; ++i) {
    const ContactProblem<T> p = make_instance<T>(spec, seed, i);
    accumulate_row(s, p, Law::template eval<T>(p, opt));
  }
  return s;
}

}  // namespace impact::serial
