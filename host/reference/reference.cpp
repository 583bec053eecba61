// Dispatch and batch driver of the CPU reference path (see reference.hpp).
#include "reference/reference.hpp"

#include <stdexcept>


namespace impact::ref {

void finish(const ContactProblem<double>& p, Result<double>& r) {
  const Vec v0 = to_eigen(p.v0);
  const Vec P = to_eigen(r.P);
  const Vec vf = v0 + to_eigen(p.W) * P;
  r.vf = from_eigen(vf);
  r.dE = 0.5 * (v0 + vf).dot(P);
  if (r.status == Status::ok && !(P.allFinite() && vf.allFinite() && std::isfinite(r.dE)))
    r.status = Status::non_finite;
}

namespace {

template <class Law>
void evaluate_batch(const BatchIn<double>& in, const BatchOut<double>& out, const LawOptions&) {
  const Options o;
  const long n = static_cast<long>(in.count);
#pragma omp parallel for schedule(dynamic, 16)
  for (long i = 0; i < n; ++i) store_result(out, i, solve<Law>(load_instance(in, i), o));
}

struct Entry {
  engine::BatchFn<double> batch;
  Result<double> (*one)(const ContactProblem<double>&, const Options&);
};

// In law-list order, as the registry's LawInfo::index.
const Entry kEntries[] = {
#define IMPACT_REFERENCE_ENTRY(LAW) {&evaluate_batch<LAW>, &solve<LAW>},
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
