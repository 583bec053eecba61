// Scale covariance (issue 14): every law evaluates its instance in its own units. Before the law
// runs, W, v0 and n are divided by powers of two near their magnitudes (max|W| to [1, 4) with an
// even exponent, max|v0| and max|n| to [1, 2)), and the outcome is multiplied back: an impulse by
// 2^(kv - kw), a velocity by 2^kv, an energy by 2^(2 kv - kw). Powers of two are exact in binary
// floating point and every operation of the laws (+, -, *, /, sqrt of an even power, ratios in
// transcendental functions) commutes with them, so an ordinary instance gets the bits it always
// got, while one with magnitudes of 1e+-150 and beyond no longer overflows or underflows inside
// the law (|v|^2, v^T W^-1 v, lengths as sqrt(x.x)). An outcome beyond the range of the type after
// the scaling back is `non_finite`.
#pragma once
#include <cmath>

#include "impact/problem.hpp"

namespace impact {

struct Scales {
  int kv = 0, kw = 0, kn = 0;
};

// ilogb of the largest magnitude, 0 when it is zero or not finite (validate() reports those).
template <class T> IMPACT_HDI int exponent_of(T m) {
  using std::ilogb;
  return m > T(0) && std::isfinite(m) ? static_cast<int>(ilogb(m)) : 0;
}

template <class T> IMPACT_HDI Scales instance_scales(const ContactProblem<T>& p) {
  Scales s;
  s.kv = exponent_of(max_abs3(p.v0));
  s.kw = exponent_of(max_abs(p.W));
  s.kw -= s.kw & 1;  // even: sqrt(W) scales exactly
  s.kn = exponent_of(max_abs3(p.n));
  return s;
}

template <class T> IMPACT_HDI T pow2_scale(T x, int k) {
  using std::ldexp;
  return ldexp(x, k);
}
template <class T> IMPACT_HDI Vec3<T> pow2_scale(Vec3<T> a, int k) {
  return Vec3<T>{pow2_scale(a.x, k), pow2_scale(a.y, k), pow2_scale(a.z, k)};
}

template <class T> IMPACT_HDI void to_unit_scales(ContactProblem<T>& p, const Scales& s) {
  p.v0 = pow2_scale(p.v0, -s.kv);
  p.n = pow2_scale(p.n, -s.kn);
  p.W = Sym3<T>{pow2_scale(p.W.xx, -s.kw), pow2_scale(p.W.xy, -s.kw), pow2_scale(p.W.xz, -s.kw),
                pow2_scale(p.W.yy, -s.kw), pow2_scale(p.W.yz, -s.kw), pow2_scale(p.W.zz, -s.kw)};
}

// aux0_impulse_power: the power of an impulse that aux[0] carries (aghili's sigma = mu^2 i_n^2 -
// |i_t|^2: 2); the other aux scalars of every law are dimensionless.
template <class T> IMPACT_HDI void from_unit_scales(Result<T>& r, const Scales& s, int aux0_impulse_power = 0) {
  const int ki = s.kv - s.kw;
  const bool unit_impulse = max_abs3(r.P) > T(0);
  r.P = pow2_scale(r.P, ki);
  r.vf = pow2_scale(r.vf, s.kv);
  r.dE = pow2_scale(r.dE, s.kv + ki);
  r.In_c = pow2_scale(r.In_c, ki);
  if (aux0_impulse_power) r.aux[0] = pow2_scale(r.aux[0], aux0_impulse_power * ki);
  // beyond the range of the type: an overflow, or an impulse that underflows to zero (the bodies
  // would keep approaching: 1e300 kg-like masses at 1e-300 m/s)
  if (r.status == Status::ok &&
      (!(isfinite3(r.P) && isfinite3(r.vf) && std::isfinite(r.dE)) || (max_abs3(r.P) == T(0) && unit_impulse)))
    r.status = Status::non_finite;
}

// The law's outcome on p, computed on p in its own units: f(q) evaluates the law on the scaled q.
template <class T, class F> IMPACT_HDI Result<T> eval_in_own_units(ContactProblem<T> p, F f, int aux0_impulse_power = 0) {
  const Scales s = instance_scales(p);
  to_unit_scales(p, s);
  Result<T> r = f(p);
  from_unit_scales(r, s, aux0_impulse_power);
  return r;
}

}  // namespace impact
