// Scale covariance: every law evaluates its instance in its own units. Before the law
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

#include "impact/pow2.hpp"
#include "impact/problem.hpp"

namespace impact {

struct Scales {
  int kv = 0, kw = 0, kn = 0;
};

// kv and kw packed into one int (12 bits each, offset 2048): what stays live while the law runs,
// one register instead of three on the device.
IMPACT_HDI int pack_scales(const Scales& s) { return ((s.kv + 2048) << 12) | (s.kw + 2048); }
IMPACT_HDI Scales unpack_scales(int k) {
  Scales s;
  s.kv = (k >> 12) - 2048;
  s.kw = (k & 0xfff) - 2048;
  return s;
}

template <class T>
inline constexpr T kSmallestNormal = T(2.2250738585072014e-308);
template <>
inline constexpr float kSmallestNormal<float> = 1.17549435e-38f;

template <class T>
IMPACT_HDI Scales instance_scales(const ContactProblem<T>& p) {
  Scales s;
  s.kv = exponent_of(max_abs3(p.v0));
  s.kw = exponent_of(max_abs(p.W));
  s.kw -= s.kw & 1;  // even: sqrt(W) scales exactly
  s.kn = exponent_of(max_abs3(p.n));
  return s;
}

template <class T>
IMPACT_HDI void to_unit_scales(ContactProblem<T>& p, const Scales& s) {
  p.v0 = pow2_scale(p.v0, -s.kv);
  p.n = pow2_scale(p.n, -s.kn);
  p.W = Sym3<T>{pow2_scale(p.W.xx, -s.kw), pow2_scale(p.W.xy, -s.kw), pow2_scale(p.W.xz, -s.kw),
                pow2_scale(p.W.yy, -s.kw), pow2_scale(p.W.yz, -s.kw), pow2_scale(p.W.zz, -s.kw)};
}

// aux0_impulse_power: the power of an impulse that aux[0] carries (aghili's sigma = mu^2 i_n^2 -
// |i_t|^2: 2); the other aux scalars of every law are dimensionless.
template <class T>
IMPACT_HDI void from_unit_scales(Result<T>& r, const Scales& s, int aux0_impulse_power = 0) {
  const int ki = s.kv - s.kw;
  const bool unit_impulse = max_abs3(r.P) > T(0);
  const Vec3<T> Pu = r.P;
  r.P = pow2_scale(r.P, ki);
  r.vf = pow2_scale(r.vf, s.kv);
  r.dE = pow2_scale(r.dE, s.kv + ki);
  r.In_c = pow2_scale(r.In_c, ki);
  if (aux0_impulse_power) r.aux[0] = pow2_scale(r.aux[0], aux0_impulse_power * ki);
  // beyond the range of the type: an overflow, or an impulse so small that its components at the
  // type's precision relative to |P| fall into the subnormal numbers or to zero (its direction then
  // has a few bits or none: the bodies would keep approaching, the cone is not kept; 1e300 kg-like
  // masses at 1e-300 m/s). The smallest impulse kept: 2^-970 (~1e-292) in double, 2^-103 in float.
  // Also (fuzz findings, tests/fuzz/findings): velocities whose scale is that small (v0 subnormal:
  // vf comes back with a few bits, pointing anywhere); a component of P that the law computed and
  // the scaling pushes below the normal numbers (mu ~ 1e300 on a grazing row: the normal impulse
  // |P_t| / mu underflows, and P_t is left outside the cone); In_c beyond the range. And an impulse
  // below that floor in the law's own units, whatever it scales back to: a grazing row (v0.n ~
  // 1e-300 |v0|, |v0| ~ 1e150) whose impulse the law computed in subnormal arithmetic, with a few
  // bits (found by hand while chasing a CI fuzz finding, which it does not explain: chatterjee-ruina
  // slid onto a cone of mu = 0.01 with kappa ~ 1e-321 and left it by 5e-4 once scaled back).
  if (r.status != Status::ok) return;
  const T smallest = kSmallestNormal<T>;
  bool lost = !(isfinite3(r.P) && isfinite3(r.vf) && std::isfinite(r.dE) && std::isfinite(r.In_c));
  lost = lost || (unit_impulse && !(max_abs3(r.P) >= smallest / Eps<T>::value && max_abs3(Pu) >= smallest / Eps<T>::value));
  lost = lost || !(pow2_scale(T(1), s.kv) >= smallest / Eps<T>::value);
  lost = lost || (Pu.x != T(0) && !(tabs(r.P.x) >= smallest)) || (Pu.y != T(0) && !(tabs(r.P.y) >= smallest)) ||
         (Pu.z != T(0) && !(tabs(r.P.z) >= smallest));
  if (lost) r.status = Status::non_finite;
}

// The law's outcome on p, computed on p in its own units: f(q) evaluates the law on the scaled q.
template <class T, class F>
IMPACT_HDI Result<T> eval_in_own_units(ContactProblem<T> p, F f, int aux0_impulse_power = 0) {
  int packed;
  {
    const Scales s = instance_scales(p);
    to_unit_scales(p, s);
    packed = pack_scales(s);
  }
  Result<T> r = f(p);
  from_unit_scales(r, unpack_scales(packed), aux0_impulse_power);
  return r;
}

}  // namespace impact
