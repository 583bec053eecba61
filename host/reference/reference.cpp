// Dispatch and batch driver of the CPU reference path (see reference.hpp).
#include "reference/reference.hpp"

#include <algorithm>
#include <stdexcept>
#include <type_traits>

#include "impact/admissible.hpp"
#include "impact/scale.hpp"

namespace impact::ref {

void finish(const ContactProblem<double>& p, Result<double>& r) {
  const Vec v0 = to_eigen(p.v0);
  const Vec P = to_eigen(r.P);
  const Vec vf = v0 + to_eigen(p.W) * P;
  r.vf = from_eigen(vf);
  r.dE = 0.5 * (v0 + vf).dot(P);
  if (r.status == Status::ok && !(P.allFinite() && vf.allFinite() && std::isfinite(r.dE))) r.status = Status::non_finite;
}

namespace {

// The reference's outcome, held to the same admissibility as the fast path (impact/admissible.hpp):
// an ok row that gains energy, leaves the friction cone or does not separate is `inadmissible`
// here too. Aghili may gain energy outside its region (41), read from its own outputs.
template <class Law>
Result<double> checked(const ContactProblem<double>& p, const Options& o) {
  // Each law solved in the instance's own units, by the fast path's exact scaling of W, v0 and n:
  // W^-1 by cofactors, |v|^2, |n|^2 and the integrators' absolute floors are then taken on
  // magnitudes near 1 (in SI units they overflow from |W| ~ 1e154, and a slip would read as a
  // frictionless `stick`; a normal of length 1e-160 would square to 0). Aghili scales itself, its
  // sigma as an impulse squared (AghiliLaw::in_own_units); admit() judges in own units too.
  Result<double> r;
  if constexpr (std::is_same_v<Law, AghiliLaw>) r = solve<Law>(p, o);
  else r = eval_in_own_units(p, [&](const ContactProblem<double>& q) { return solve<Law>(q, o); });
  bool may_gain = false;
  if constexpr (std::is_same_v<Law, AghiliLaw>) {
    const double mu_cr = r.aux[1], mu_star = r.aux[2], e_star = r.aux[3];
    may_gain = !((p.mu >= mu_cr && p.e <= e_star) || (p.mu < std::min(mu_cr, mu_star)));
  }
  admit(p, r, may_gain);
  return r;
}

template <class Law>
void evaluate_batch(const BatchIn<double>& in, const BatchOut<double>& out, const LawOptions&) {
  const Options o;
  const long n = static_cast<long>(in.count);
#pragma omp parallel for schedule(dynamic, 16)
  for (long i = 0; i < n; ++i) store_result(out, i, checked<Law>(load_instance(in, i), o));
}

struct Entry {
  engine::BatchFn<double> batch;
  Result<double> (*one)(const ContactProblem<double>&, const Options&);
};

// In law-list order, as the registry's LawInfo::index.
const Entry kEntries[] = {
#define IMPACT_REFERENCE_ENTRY(LAW) {&evaluate_batch<LAW>, &checked<LAW>},
    IMPACT_FOR_EACH_LAW(IMPACT_REFERENCE_ENTRY)
#undef IMPACT_REFERENCE_ENTRY
};

const Entry& entry(const engine::LawInfo& law) {
  if (law.index < 0 || law.index >= static_cast<int>(std::size(kEntries)))
    throw std::invalid_argument("no reference for law '" + law.name + "'");
  return kEntries[law.index];
}

}  // namespace

Result<double> evaluate(const engine::LawInfo& law, const ContactProblem<double>& p, const Options& o) {
  return entry(law).one(p, o);
}

engine::BatchFn<double> batch_fn(const engine::LawInfo& law) { return entry(law).batch; }

}  // namespace impact::ref
