// CPU reference of chatterjee-ruina: host only, double precision, Eigen (see host/reference/aghili.cpp
// for the conventions shared by the algebraic references).
//
// chatterjee-ruina (eqs. 3, 4, 10-14): P_I = lambda n, P_II = -W^-1 v0 (LDLT), D = P_II - P_I.
//   Along the ray P(k) = (1+e) P_I + k D, the tangential part is k D_t (P_I is normal) and the
//   normal part (1+e) lambda + k D_n. The candidate k = 1 + e_t (eq. 10) is kept when it lies in
//   the cone (stick, eq. 14); otherwise k is where the ray meets the cone boundary,
//   k |D_t| = mu ((1+e) lambda + k D_n) (eqs. 12, 13), clamped to [0, 1 + e_t] like the fast path.
#include <Eigen/Dense>
#include <algorithm>

#include "reference/reference.hpp"

namespace impact::ref {

Result<double> chatterjee_ruina(const ContactProblem<double>& in) {
  ContactProblem<double> p = in;
  const Status s = validate(p, ParamUse{true, true, true, false});
  if (s != Status::ok) return make_result<double>(s);
  const Row r = to_row(p);
  const Eigen::LDLT<Mat> ldlt(r.W);
  const double lambda = -r.n.dot(r.v0) / r.n.dot(r.W * r.n);  // P_I = lambda n   (3)
  const Vec PII = -ldlt.solve(r.v0);                          // (4)
  const Vec D = PII - lambda * r.n;
  const double Dn = r.n.dot(D);
  const double Dt = (D - Dn * r.n).norm();
  const double kmax = 1 + r.e_t;
  // ray P(k) = (1+e) P_I + k D: normal part (1+e) lambda + k Dn, tangential part k |D_t|
  double k = kmax;
  Result<double> res = make_result<double>(Status::ok);
  if (kmax * Dt > r.mu * ((1 + r.e) * lambda + kmax * Dn)) {  // candidate (10) outside the cone (12)
    const double denom = Dt - r.mu * Dn;
    k = denom > 0 ? r.mu * (1 + r.e) * lambda / denom : 0.0;  // (13)
    k = std::min(k, kmax);
    res.modes.push(Mode::slip);
  } else {
    res.modes.push(Mode::stick);  // (14)
  }
  res.P = from_eigen((1 + r.e) * lambda * r.n + k * D);  // (11)
  res.aux[0] = k;
  finish(p, res);
  return res;
}

template <>
Result<double> solve<ChatterjeeRuinaLaw>(const ContactProblem<double>& p, const Options&) {
  return chatterjee_ruina(p);
}

}  // namespace impact::ref
