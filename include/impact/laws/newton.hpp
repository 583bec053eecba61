// Frictionless Newton (kinematic) restitution: v_f.n = -e v0.n, no tangential impulse.
#pragma once
#include "impact/problem.hpp"

namespace impact {

struct NewtonLaw {
  static constexpr const char* name = "newton";
  IMPACT_HD static constexpr ParamUse use() { return ParamUse{true, false, false}; }

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
