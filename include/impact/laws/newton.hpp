// Frictionless Newton (kinematic) restitution: v_f.n = -e v0.n, no tangential impulse.
#pragma once
#include "impact/problem.hpp"

namespace impact {

struct NewtonLaw {
  static constexpr const char* name = "newton";
  static constexpr const char* summary = "frictionless, kinematic restitution e";
  IMPACT_HD static constexpr ParamUse use() { return ParamUse{false, true, false, false}; }  // mu, e, e_t, eta0
  static constexpr ExtraColumns extras = {{}, 0};
  static constexpr Cost cost = {91, 0};  // docs/bench.md

  template <class T> IMPACT_HD static Result<T> eval(ContactProblem<T> p, const LawOptions& = LawOptions{}) {
    Status s = validate(p, use());
    if (s != Status::ok) return make_result<T>(s);
    Result<T> r = make_result<T>(Status::ok);
    r.P = (T(1) + p.e) * impulse_plastic_frictionless(p);
    finish(p, r);
    return r;
  }
};

}  // namespace impact
