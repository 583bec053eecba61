// CPU reference of newton: host only, double precision, Eigen (see host/reference/aghili.cpp for the
// conventions shared by the algebraic references).
//
// newton (Chatterjee-Ruina eq. 3 with restitution): the plastic frictionless impulse lambda n
//   makes n.(v0 + W n lambda) = 0; P = (1 + e) lambda n.
#include <Eigen/Dense>

#include "reference/reference.hpp"

namespace impact::ref {

Result<double> newton(const ContactProblem<double>& in) {
  ContactProblem<double> p = in;
  const Status s = validate(p, ParamUse{false, true, false, false});
  if (s != Status::ok) return make_result<double>(s);
  const Row r = to_row(p);
  // n.(v0 + W n lambda) = 0
  const double lambda = -r.n.dot(r.v0) / r.n.dot(r.W * r.n);
  Result<double> res = make_result<double>(Status::ok);
  res.P = from_eigen((1 + r.e) * lambda * r.n);
  finish(p, res);
  return res;
}

template <>
Result<double> solve<NewtonLaw>(const ContactProblem<double>& p, const Options&) {
  return newton(p);
}

}  // namespace impact::ref
