// Jia (2013): 3D impact with tangential compliance, integrated in impulse space (law `jia`).
//
// Springs in the normal direction (stiffness k0 in compression, k0/e^2 in restitution) and in the
// tangent plane (k_perp, eta0 = sqrt(k0 / k_perp)) carry the contact; Coulomb's cone bounds the
// tangential spring force, so the contact sticks, slips, and switches between them (Proposition 1:
// initial stick iff |v0_perp| < mu eta0^2 |v0_n|). Restitution is energetic: the normal spring
// returns e^2 of the energy stored in compression. The state (I_n, I_t, the tangential spring
// deflection G, sqrt(E_n)) is integrated with a fixed step in a scaled time in which the equations
// are smooth and `steps` is about the number of steps of the whole impact (RK4 or Euler), and every
// event (mode switch, end of compression, end of impact) is located inside its step.
//
// Parameters: mu, e, eta0 (e_t is not used). Extras: In_c, the contact-mode sequence and the step
// count. Bounds: a row that would need more steps or mode switches than its budget ends with status
// step_limit, never with a wrong number. The integrator is detail/jia.hpp.
#pragma once
#include "impact/laws/detail/jia.hpp"

namespace impact {

struct JiaLaw {
  static constexpr const char* name = "jia";
  static constexpr const char* summary = "3D tangential compliance, energetic restitution, Jia 2013 (fixed-step integration)";
  IMPACT_HD static constexpr ParamUse use() { return ParamUse{true, true, false, true}; }  // mu, e, e_t, eta0
  static constexpr ExtraColumns extras = {
      {{"In_c", Extra::In_c, "N s", "I_{n,c}", "normal impulse at the end of compression"},
       {"modes", Extra::Modes, "", "\\mathrm{modes}", "contact-mode sequence, e.g. slip>stick>slip"},
       {"steps", Extra::Steps, "1", "\\mathrm{steps}", "integration steps"}},
      3};
  static constexpr Cost cost = {0, 363};  // per step: docs/bench.md

  // The outcome on p, evaluated in p's own units (impact/scale.hpp).
  template <class T>
  IMPACT_HD static Result<T> eval(const ContactProblem<T>& p, const LawOptions& opt = LawOptions{}) {
    return eval_in_own_units(p, [&](const ContactProblem<T>& q) { return detail::Jia::solve<T>(q, opt, use(), nullptr); });
  }
  // The same, reporting the code blocks it runs to a path probe (impact/probe.hpp).
  template <class T, class Probe>
  IMPACT_HD static Result<T> eval(const ContactProblem<T>& p, const LawOptions& opt, Probe& probe) {
    return eval_in_own_units(p, [&](const ContactProblem<T>& q) { return detail::Jia::solve<T>(q, opt, use(), nullptr, probe); });
  }
};

}  // namespace impact
