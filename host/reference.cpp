// Dispatch and batch driver of the CPU reference path (see reference.hpp).
#include "reference.hpp"

#include <stdexcept>

#include "impact/laws/aghili.hpp"
#include "impact/laws/chatterjee_ruina.hpp"
#include "impact/laws/jia.hpp"
#include "impact/laws/morgan.hpp"
#include "impact/laws/newton.hpp"
#include "impact/laws/stronge.hpp"

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

Result<double> evaluate(const std::string& name, const ContactProblem<double>& p, const Options& o) {
  if (name == NewtonLaw::name) return newton(p);
  if (name == ChatterjeeRuinaLaw::name) return chatterjee_ruina(p);
  if (name == AghiliLaw::name) return aghili(p);
  if (name == MorganLaw::name) return morgan(p, o);
  if (name == StrongeLaw::name) return stronge(p, o);
  if (name == JiaLaw::name) return jia(p, o);
  throw std::invalid_argument("no reference for law '" + name + "'");
}

template <class Law>
void evaluate_batch(const BatchIn<double>& in, const BatchOut<double>& out, const LawOptions&) {
  const Options o;
  const std::string name = Law::name;
  const long n = static_cast<long>(in.count);
#pragma omp parallel for schedule(dynamic, 16)
  for (long i = 0; i < n; ++i) store_result(out, i, evaluate(name, load_instance(in, i), o));
}

template void evaluate_batch<NewtonLaw>(const BatchIn<double>&, const BatchOut<double>&, const LawOptions&);
template void evaluate_batch<ChatterjeeRuinaLaw>(const BatchIn<double>&, const BatchOut<double>&, const LawOptions&);
template void evaluate_batch<AghiliLaw>(const BatchIn<double>&, const BatchOut<double>&, const LawOptions&);
template void evaluate_batch<MorganLaw>(const BatchIn<double>&, const BatchOut<double>&, const LawOptions&);
template void evaluate_batch<StrongeLaw>(const BatchIn<double>&, const BatchOut<double>&, const LawOptions&);
template void evaluate_batch<JiaLaw>(const BatchIn<double>&, const BatchOut<double>&, const LawOptions&);

}  // namespace impact::ref
