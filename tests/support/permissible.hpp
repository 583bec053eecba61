// The permissible region in impulse space of Chatterjee & Ruina (1998), section 3.2, for any
// law's outcome P (a test's check, tests/support: the product's own rule of an admissible outcome is
// impact/admissible.hpp):
//   1. energy:            (P - P_II)^T W^-1 (P - P_II) <= v0^T W^-1 v0   (eq. 6), i.e. dE <= 0
//   2. non-penetration:   vf . n >= 0
//   3. compressive:       P . n >= 0
//   4. friction cone:     |P - (n.P) n| <= mu n.P
// Each is checked with a tolerance relative to the instance's own scales (energy: the initial
// contact energy K0; velocity: |v0|; impulse: |P_II|), so instances of any magnitude compare alike.
#pragma once
#include "impact/problem.hpp"

namespace impact {

enum PermissibleBits : unsigned {
  kEnergyViolated = 1u,
  kPenetration = 2u,
  kTensileImpulse = 4u,
  kOutsideCone = 8u,
};

template <class T>
struct Permissible {
  unsigned violated;  // bitwise or of PermissibleBits
  T energy_margin;    // -dE / K0       (>= 0 inside)
  T separation;       // vf.n / |v0|    (>= 0 inside)
  T normal_impulse;   // P.n / |P_II|   (>= 0 inside)
  T cone_margin;      // (mu P.n - |P_t|) / |P_II|  (>= 0 inside)
  IMPACT_HDI bool inside() const { return violated == 0u; }
};

// p must be validated (unit n, SPD W). rel_tol is the allowed violation relative to the scales.
template <class T>
IMPACT_HD Permissible<T> check_permissible(const ContactProblem<T>& p, Vec3<T> P, T rel_tol) {
  const Chol3<T> c = cholesky(p.W);
  const Vec3<T> PII = -chol_solve(c, p.v0);
  const T K0 = T(0.5) * dot(p.v0, -PII);  // 1/2 v0^T W^-1 v0
  const Vec3<T> vf = p.v0 + p.W * P;
  const T dE = T(0.5) * dot(p.v0 + vf, P);
  const T vscale = norm(p.v0);
  const T pscale = norm(PII);
  Permissible<T> out{};
  out.energy_margin = -dE / K0;
  out.separation = dot(vf, p.n) / vscale;
  out.normal_impulse = dot(P, p.n) / pscale;
  out.cone_margin = (p.mu * dot(P, p.n) - norm(tangential(P, p.n))) / pscale;
  out.violated = 0u;
  if (out.energy_margin < -rel_tol) out.violated |= kEnergyViolated;
  if (out.separation < -rel_tol) out.violated |= kPenetration;
  if (out.normal_impulse < -rel_tol) out.violated |= kTensileImpulse;
  if (out.cone_margin < -rel_tol) out.violated |= kOutsideCone;
  return out;
}

}  // namespace impact
