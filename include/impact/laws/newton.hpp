// Frictionless Newton (kinematic) restitution: v_f.n = -e v0.n, no tangential impulse.
#pragma once
#include "impact/admissible.hpp"
#include "impact/scale.hpp"
#include "impact/problem.hpp"

namespace impact {

struct NewtonLaw {
  static constexpr const char* name = "newton";
  static constexpr const char* summary = "frictionless, kinematic restitution e";
  IMPACT_HD static constexpr ParamUse use() { return ParamUse{false, true, false, false}; }  // mu, e, e_t, eta0
  static constexpr ExtraColumns extras = {{}, 0};
  static constexpr Cost cost = {91, 0};  // docs/bench.md

  // The outcome on p, evaluated in p's own units (impact/scale.hpp).
  template <class T> IMPACT_HD static Result<T> eval(const ContactProblem<T>& p, const LawOptions& o = LawOptions{}) {
    return eval_in_own_units(p, [&](const ContactProblem<T>& q) { return eval_unit<T>(q, o); });
  }

  // The law on an instance of magnitudes near 1 (eval scales it).
  template <class T> IMPACT_HD static Result<T> eval_unit(ContactProblem<T> p, const LawOptions& = LawOptions{}) {
    Status s = validate(p, use());
    if (s != Status::ok) return make_result<T>(s);
    Result<T> r = make_result<T>(Status::ok);
    r.P = (T(1) + p.e) * impulse_plastic_frictionless(p);
    finish(p, r);
    admit(p, r);
    return r;
  }
};

}  // namespace impact
