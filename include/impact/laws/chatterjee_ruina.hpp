// Chatterjee & Ruina (1998) algebraic collision law with normal restitution e (kinematic),
// tangential restitution e_t and friction mu: eqs. (3), (4), (10)-(14), MATLAB of appendix A.2.
//   P_I  = -(n.v0 / n.W n) n          perfectly plastic, frictionless           (3)
//   P_II = -W^-1 v0                   perfectly plastic, sticking               (4)
//   P^   = (1+e) P_I + (1+e_t)(P_II - P_I)                                     (10)
//   if |P^_t| > mu P^.n: kappa = mu (1+e) n.P_I / (|P_II,t| - mu n.(P_II - P_I))   (12, 13)
//   else kappa = 1 + e_t                                                        (14)
//   P = (1+e) P_I + kappa (P_II - P_I)                                          (11)
// aux[0] = kappa. Mode: stick (candidate inside the cone) or slip (projected onto the cone).
#pragma once
#include "impact/admissible.hpp"
#include "impact/scale.hpp"
#include "impact/problem.hpp"

namespace impact {

struct ChatterjeeRuinaLaw {
  static constexpr const char* name = "chatterjee-ruina";
  static constexpr const char* summary = "algebraic (e, e_t, mu) law, Chatterjee & Ruina 1998";
  IMPACT_HD static constexpr ParamUse use() { return ParamUse{true, true, true, false}; }  // mu, e, e_t, eta0
  static constexpr ExtraColumns extras = {
      {{"kappa", Extra::Aux0, "1", "\\kappa",
        "tangential impulse factor kappa of eq. (11): 1 + e_t when sticking, eq. (13) when slipping"},
       {"modes", Extra::Modes, "", "\\mathrm{modes}", "stick (candidate impulse inside the cone) or slip (projected onto it)"}},
      2};
  static constexpr Cost cost = {192, 0};  // docs/bench.md

  // The outcome on p, evaluated in p's own units (impact/scale.hpp).
  template <class T>
  IMPACT_HD static Result<T> eval(const ContactProblem<T>& p, const LawOptions& o = LawOptions{}) {
    return eval_in_own_units(p, [&](const ContactProblem<T>& q) { return eval_unit<T>(q, o); });
  }

  // The law on an instance of magnitudes near 1 (eval scales it).
  template <class T>
  IMPACT_HD static Result<T> eval_unit(ContactProblem<T> p, const LawOptions& = LawOptions{}) {
    Status s = validate(p, use());
    if (s != Status::ok) return make_result<T>(s);
    Result<T> r = make_result<T>(Status::ok);
    const Chol3<T> c = cholesky(p.W);
    const Vec3<T> PI = impulse_plastic_frictionless(p);
    const Vec3<T> PII = -chol_solve(c, p.v0);
    const Vec3<T> D = PII - PI;
    const Vec3<T> Phat = (T(1) + p.e) * PI + (T(1) + p.e_t) * D;
    T kappa = T(1) + p.e_t;
    const T phat_n = dot(p.n, Phat);
    if (norm(tangential(Phat, p.n)) > p.mu * phat_n) {
      const T denom = norm(tangential(PII, p.n)) - p.mu * dot(p.n, D);
      // Outside the cone the denominator is positive (the segment from (1+e)P_I, inside the
      // cone, to P^ crosses the cone once); guard against round-off at the cone's edge.
      kappa = denom > T(0) ? p.mu * (T(1) + p.e) * dot(p.n, PI) / denom : T(0);
      if (kappa > T(1) + p.e_t) kappa = T(1) + p.e_t;
      r.modes.push(Mode::slip);
    } else {
      r.modes.push(Mode::stick);
    }
    r.P = (T(1) + p.e) * PI + kappa * D;
    r.aux[0] = kappa;
    finish(p, r);
    admit_in_place(p, r);
    return r;
  }
};

}  // namespace impact
