// Stronge: 3D rigid frictional impact in normal-impulse space (Rodriguez & Bowling; Morgan 2011
// ch. 4), law `stronge`: Coulomb friction, no tangential compliance, Stronge's energetic
// restitution.
//
// The contact slips against Coulomb's cone (the slip direction turns as the tangential velocity
// changes), sticks when the friction it needs is inside the cone, or slips out along the unique
// outgoing ray. Compression ends at v_n = 0; the impact ends when the normal work of restitution is
// e^2 that of compression. The slip is integrated with a fixed step in the normal impulse
// (h = p_c / steps, RK4 or Euler), in a Sundman-transformed time near v_t = 0, and in closed form
// along invariant rays; every event is located inside its step.
//
// Parameters: mu, e (e_t and eta0 are not used). Extras: In_c, the contact-mode sequence and the
// count of steps plus closed-form segments. Bounds: a row that would need more steps or events than
// its budget ends with status step_limit; mu above 2^64 is evaluated as the unbounded-friction
// limit. The integrator is detail/stronge.hpp.
#pragma once
#include "impact/laws/detail/stronge.hpp"

namespace impact {

struct StrongeLaw {
  static constexpr const char* name = "stronge";
  static constexpr const char* summary = "3D rigid, Coulomb slip/stick, Stronge's energetic restitution (fixed-step)";
  IMPACT_HD static constexpr ParamUse use() { return ParamUse{true, true, false, false}; }  // mu, e, e_t, eta0
  static constexpr ExtraColumns extras = {
      {{"In_c", Extra::In_c, "N s", "I_{n,c}", "normal impulse at the end of compression"},
       {"modes", Extra::Modes, "", "\\mathrm{modes}", "contact-mode sequence, e.g. slip>stick"},
       {"steps", Extra::Steps, "1", "\\mathrm{steps}", "integration steps plus closed-form segments"}},
      3};
  static constexpr Cost cost = {0, 192};  // per step: docs/bench.md

  // On the device the lanes of a warp vote on when to run their event searches (LaneVote,
  // impact/search_vote.hpp); on the host each searches at once.
  template <class T>
  IMPACT_HD static Result<T> eval(const ContactProblem<T>& p, const LawOptions& opt = LawOptions{}) {
    NoProbe probe;
    return eval<T>(p, opt, probe, LaneVote{opt.defer_searches});
  }
  // The same, reporting the code blocks it runs to a path probe (impact/probe.hpp).
  template <class T, class Probe>
  IMPACT_HD static Result<T> eval(const ContactProblem<T>& p, const LawOptions& opt, Probe& probe) {
    return eval<T>(p, opt, probe, SearchAtOnce{});
  }

  // The outcome on p, evaluated in p's own units (impact/scale.hpp).
  template <class T, class Probe, class Vote>
  IMPACT_HD static Result<T> eval(const ContactProblem<T>& p, const LawOptions& opt, Probe& probe, const Vote& vote) {
    return eval_in_own_units(
        p, [&](const ContactProblem<T>& q) { return detail::Stronge::eval_unit<T>(q, opt, use(), probe, vote); });
  }
};

}  // namespace impact
