// The last line of defence of every law: an outcome is reported `ok` only when it is
// physically admissible. Checked once per instance, in double, on the instance rescaled by its
// own scales (max|v0| and max|W|, so that magnitudes of 1e+-300 neither overflow nor underflow):
//   - the normal impulse is compressive:           P_n >= -tol max|P_i|
//   - the impulse lies in the friction cone:        |P_t| <= mu (P_n + tol max|P_i|) (1 + tol) + tol max|P_i|
//   - the bodies separate:                          vf . n >= -tol max|v0_i|
//   - the kinetic energy is not gained:             dE <= tol K0, K0 = 1/2 v0.W^-1 v0,
//     unless the law allows a gain (Aghili's Newton-restitution law gains energy outside its
//     admissible region (41), Kane's paradox, which is its physics).
// tol: AdmissTol<T> (1e-6 in double, 2e-3 in float), far above round-off and the integrators'
// discretization error (dissipative at every step count: docs/laws.md), far below the failures it
// catches (energy gains of +33% to 1e306, cones broken 7x to 1e9x, in the adversarial cases of
// tests/kernels/test_adversarial.cpp).
// A violation turns `ok` into Status::inadmissible; every other status is left as it is.
#pragma once
#include <type_traits>

#include "impact/derived.hpp"
#include "impact/scale.hpp"

namespace impact {

// tol for T: float and double are the precisions built
template <class T>
struct AdmissTol {
  static_assert(std::is_same_v<T, double> || std::is_same_v<T, float>, "a law is built in double and float");
  static constexpr double value = std::is_same_v<T, double> ? 1e-6 : 2e-3;
};

// What failed, for tests and diagnostics (0: admissible).
enum AdmissFail : unsigned { kAdmissOk = 0, kTensile = 1, kCone = 2, kApproach = 4, kEnergy = 8 };

// p: the validated instance (unit normal); r: its outcome. `may_gain`: the law allows an energy
// gain for this instance.
// Two forms of one check. admissibility is out of line on the device (IMPACT_HD_RARE): once per
// instance, and its double arithmetic must not add to the integrators' register budget
// (tests/cli/kernel_resources.sh). admissibility_in_place is the same code inlined, for the laws
// whose rows are few instructions and memory-bound: a call takes the instance and its outcome by
// reference, so the kernel stores both to local memory for every row (248 bytes a row in double),
// traffic the law's own reads and writes then compete with.
template <class T>
IMPACT_HDI unsigned admissibility_in_place(const ContactProblem<T>& p, const Result<T>& r, bool may_gain) {
  const double tol = AdmissTol<T>::value;
  const Sym3<double> Wd{double(p.W.xx), double(p.W.xy), double(p.W.xz), double(p.W.yy), double(p.W.yz), double(p.W.zz)};
  if (!(max_abs3(to_double(p.v0)) > 0.0) || !(max_abs(Wd) > 0.0) || !(max_abs3(to_double(p.n)) > 0.0))
    return kAdmissOk;  // not a validated instance: nothing to judge
  // the instance's own units, by exact powers of two (impact/scale.hpp): an impulse scales like v / W
  const int kv = exponent_of(max_abs3(to_double(p.v0))), kw = exponent_of(max_abs(Wd));
  const Vec3<double> v0 = pow2_scale(to_double(p.v0), -kv);
  const Vec3<double> vf = pow2_scale(to_double(r.vf), -kv);
  const Vec3<double> P = pow2_scale(to_double(r.P), kw - kv);
  const Sym3<double> W{pow2_scale(Wd.xx, -kw), pow2_scale(Wd.xy, -kw), pow2_scale(Wd.xz, -kw),
                       pow2_scale(Wd.yy, -kw), pow2_scale(Wd.yz, -kw), pow2_scale(Wd.zz, -kw)};
  Vec3<double> n = pow2_scale(to_double(p.n), -exponent_of(max_abs3(to_double(p.n))));
  n = (1.0 / sqrt(dot(n, n))) * n;
  unsigned fail = kAdmissOk;
  // The tensile and cone tests are homogeneous in P: judged on P in its own scale (max|P| to
  // [1, 2), a subnormal one to 2^-51 and above), not the instance's. An impulse far below the
  // instance's scale (a grazing row, v0.n ~ 1e-300 |v0|) would otherwise square into the
  // subnormals: P_t.P_t and the cone's square underflow to 0 and pass whatever the direction
  // (found by hand while chasing a CI fuzz finding: a cone broken by 5e-4 that passed), and
  // tol max|P| to 0, the tensile slack with it.
  const Vec3<double> Ph = pow2_scale(to_double(r.P), -exponent_of(max_abs3(to_double(r.P))));
  const double Pn = dot(Ph, n);
  const double Pmax = max_abs3(Ph);  // the slack scales (no square roots: this runs once per instance)
  const Vec3<double> Pt = Ph - Pn * n;
  if (!(Pn >= -tol * Pmax)) fail |= kTensile;
  // P_n is known to tol Pmax (the tensile slack): mu times that slack too, or at mu >> 1/eps the
  // cone would be judged on P_n's round-off (a fuzz finding: mu = 6e85, decided by the last bit of n)
  const double cone = double(p.mu) * (Pn + tol * Pmax) * (1.0 + tol) + tol * Pmax;
  if (!(cone >= 0.0 && dot(Pt, Pt) <= cone * cone)) fail |= kCone;
  if (!(dot(vf, n) >= -tol * max_abs3(v0))) fail |= kApproach;
  const double dE = 0.5 * dot(v0 + vf, P);
  if (!may_gain && !(dE <= 0.0)) {  // K0 (a Cholesky solve) only for the rare rows that gain at all
    const Chol3<double> c = cholesky(W);
    if (c.ok && !(dE <= tol * contact_energy(c, v0))) fail |= kEnergy;
  }
  return fail;
}

template <class T>
IMPACT_HD_RARE unsigned admissibility(const ContactProblem<T>& p, const Result<T>& r, bool may_gain) {
  return admissibility_in_place(p, r, may_gain);
}

// Marks an ok outcome that is not admissible. `may_gain`: the law allows this instance to gain
// energy (aghili outside its region (41): aghili_admissible). admit_in_place: the check inlined
// (the algebraic laws of few instructions a row).
template <class T>
IMPACT_HD void admit(const ContactProblem<T>& p, Result<T>& r, bool may_gain = false) {
  if (r.status == Status::ok && admissibility(p, r, may_gain) != kAdmissOk) r.status = Status::inadmissible;
}
template <class T>
IMPACT_HDI void admit_in_place(const ContactProblem<T>& p, Result<T>& r, bool may_gain = false) {
  if (r.status == Status::ok && admissibility_in_place(p, r, may_gain) != kAdmissOk) r.status = Status::inadmissible;
}

}  // namespace impact
