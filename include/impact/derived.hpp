// The quantities derived from an evaluated instance, defined once for every consumer (study
// tables, `impact eval`'s summary, the on-device reductions, `impact compare`'s scales), computed in
// double from the instance's own precision:
//   P_n = P.n, P_t = |P - P_n n|, vf_n = vf.n, vf_t = |vf - vf_n n|   (n normalised here)
//   K0 = 1/2 v0.W^-1 v0 (the initial contact energy), and dE / K0.
#pragma once
#include "impact/pow2.hpp"
#include "impact/problem.hpp"

namespace impact {

struct ContactParts {
  double Pn, Pt, vfn, vft;
};

template <class T>
IMPACT_HDI Vec3<double> to_double(Vec3<T> a) {
  return Vec3<double>{double(a.x), double(a.y), double(a.z)};
}

template <class U, class T>
IMPACT_HDI ContactParts contact_parts(Vec3<U> n, Vec3<T> P, Vec3<T> vf) {
  const Vec3<double> nd = to_double(n);
  const double nl = sqrt(dot(nd, nd));
  const Vec3<double> u{nd.x / nl, nd.y / nl, nd.z / nl};
  const Vec3<double> Pd = to_double(P), vd = to_double(vf);
  ContactParts c;
  c.Pn = dot(Pd, u);
  c.vfn = dot(vd, u);
  c.Pt = norm(Pd - c.Pn * u);
  c.vft = norm(vd - c.vfn * u);
  return c;
}

// K0 = 1/2 v0.W^-1 v0 in double (NaN when W is not positive definite).
template <class T>
IMPACT_HDI double initial_energy(const ContactProblem<T>& p) {
  const Sym3<double> W{double(p.W.xx), double(p.W.xy), double(p.W.xz), double(p.W.yy), double(p.W.yz), double(p.W.zz)};
  return contact_energy(cholesky(W), to_double(p.v0));
}

// The four summarised quantities of an ok row (impact/stats.hpp): P_n, P_t, vf_n, dE / K0, from
// what they need of the instance: its normal n and K0 = initial_energy(p). (A kernel takes these
// two before the law, so that 4 numbers stay live across the law instead of the instance's 12.)
template <class U, class T>
IMPACT_HDI void summary_quantities(Vec3<U> n, double K0, const Result<T>& r, double x[4]) {
  const ContactParts c = contact_parts(n, r.P, r.vf);
  x[0] = c.Pn;
  x[1] = c.Pt;
  x[2] = c.vfn;
  x[3] = double(r.dE) / K0;
}
// From an instance as read (a normal of any length): n scaled first by the power of two nearest
// below its largest component, which is exact and leaves the bits of a normal of ordinary length,
// so that one of length 1e-200 or 1e200 has its direction here too (its square would underflow or
// overflow). The kernels' n, made unit on the device, takes the overload above as it is.
template <class T>
IMPACT_HDI void summary_quantities(const ContactProblem<T>& p, const Result<T>& r, double x[4]) {
  summary_quantities(with_unit_exponent(to_double(p.n)), initial_energy(p), r, x);
}

}  // namespace impact
