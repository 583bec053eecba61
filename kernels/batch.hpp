// Structure-of-arrays batch layout and the per-instance functor that every backend runs:
// serial loop (host), Thrust OMP and CUDA (later). One call = one impact instance, the whole law
// evaluated in registers; the functor reads its inputs once and writes its outputs once.
#pragma once
#include <cstddef>
#include <cstdint>

#include "impact/problem.hpp"
#include "impact/stats.hpp"

namespace impact {

// Input columns, each an array of `count` values.
template <class T>
struct BatchIn {
  const T* W[6];  // xx xy xz yy yz zz
  const T* n[3];
  const T* v[3];
  const T* mu;    // may be null when the law does not read it (then 0)
  const T* e;
  const T* e_t;
  const T* eta0;
  std::size_t count;
};

template <class T>
struct BatchOut {
  T* P[3];
  T* vf[3];
  T* dE;
  T* In_c;
  T* aux[kAux];
  std::uint32_t* modes;
  std::int32_t* steps;
  std::uint8_t* status;
};

template <class T> IMPACT_HDI ContactProblem<T> load_instance(const BatchIn<T>& in, std::size_t i) {
  ContactProblem<T> p;
  p.W = Sym3<T>{in.W[0][i], in.W[1][i], in.W[2][i], in.W[3][i], in.W[4][i], in.W[5][i]};
  p.n = Vec3<T>{in.n[0][i], in.n[1][i], in.n[2][i]};
  p.v0 = Vec3<T>{in.v[0][i], in.v[1][i], in.v[2][i]};
  p.mu = in.mu ? in.mu[i] : T(0);
  p.e = in.e ? in.e[i] : T(0);
  p.e_t = in.e_t ? in.e_t[i] : T(0);
  p.eta0 = in.eta0 ? in.eta0[i] : T(1);
  return p;
}

template <class T> IMPACT_HDI void store_result(const BatchOut<T>& out, std::size_t i, const Result<T>& r) {
  out.P[0][i] = r.P.x; out.P[1][i] = r.P.y; out.P[2][i] = r.P.z;
  out.vf[0][i] = r.vf.x; out.vf[1][i] = r.vf.y; out.vf[2][i] = r.vf.z;
  out.dE[i] = r.dE;
  out.In_c[i] = r.In_c;
  for (int k = 0; k < kAux; ++k) out.aux[k][i] = r.aux[k];
  out.modes[i] = r.modes.bits;
  out.steps[i] = r.steps;
  out.status[i] = static_cast<std::uint8_t>(r.status);
}

template <class Law, class T>
struct EvalFunctor {
  BatchIn<T> in;
  BatchOut<T> out;
  LawOptions opt;
  IMPACT_HDI void operator()(std::size_t i) const {
    store_result(out, i, Law::template eval<T>(load_instance(in, i), opt));
  }
};

// Evaluates row i and returns its summary instead of storing it (on-device reduction).
template <class Law, class T>
struct SummarizeFunctor {
  BatchIn<T> in;
  LawOptions opt;
  SummaryRanges ranges;
  IMPACT_HDI BatchSummary operator()(std::size_t i) const {
    const ContactProblem<T> p = load_instance(in, i);
    return summarize_row(p, Law::template eval<T>(p, opt), ranges);
  }
};

struct MergeSummaries {
  IMPACT_HDI BatchSummary operator()(const BatchSummary& a, const BatchSummary& b) const { return merge(a, b); }
};

template <class Law, class T>
BatchSummary reduce_serial(const BatchIn<T>& in, const LawOptions& opt, const SummaryRanges& rg) {
  SummarizeFunctor<Law, T> f{in, opt, rg};
  BatchSummary s = summary_identity(rg);
  for (std::size_t i = 0; i < in.count; ++i) s = merge(s, f(i));
  return s;
}

// Serial backend: the baseline every other backend is compared against.
template <class Law, class T>
void evaluate_serial(const BatchIn<T>& in, const BatchOut<T>& out, const LawOptions& opt) {
  EvalFunctor<Law, T> f{in, out, opt};
  for (std::size_t i = 0; i < in.count; ++i) f(i);
}

}  // namespace impact
