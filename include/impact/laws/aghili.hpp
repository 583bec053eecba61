// Aghili: Newton-restitution frictional impact with a stick/slip discriminator, written in contact
// space (law `aghili`; restitution matrix E = diag(e, e_t, e_t) in (n, t)).
//
// The impact sticks when the sticking impulse i = -W^-1 (I + E) v- lies in the friction cone with
// i_n >= 0 (the discriminator sigma = mu^2 i_n^2 - |i_t|^2 >= 0); otherwise it slips along the unit
// direction u of the average tangential velocity, a self-consistent u found among the (at most
// four) roots of a trigonometric polynomial, continued in mu from the frictionless direction when
// several exist. Each row also reports Aghili's energetic-consistency bounds: the critical
// coefficient mu_cr, mu* (eq. 38), e* (eq. 30) and e*_global (eq. 32), and is judged by the
// admissible region (41).
//
// Parameters: mu, e, e_t (eta0 is not used). Extras: sigma, mu_cr, mu_star, e_star, e_star_global,
// the mode (stick or slip) and the root-finding iterations. No slip direction: status
// `inconsistent`. The bounds and the slip solve are detail/aghili.hpp.
#pragma once
#include "impact/laws/detail/aghili.hpp"

namespace impact {

struct AghiliLaw {
  static constexpr const char* name = "aghili";
  static constexpr const char* summary = "Newton restitution with stick/slip discriminator, Aghili";
  IMPACT_HD static constexpr ParamUse use() { return ParamUse{true, true, true, false}; }  // mu, e, e_t, eta0
  static constexpr ExtraColumns extras = {
      {{"sigma", Extra::Aux0, "(N s)^2", "\\sigma", "discriminator mu^2 i_n^2 - |i_t|^2 of the sticking impulse (>= 0: stick)"},
       {"mu_cr", Extra::Aux1, "1", "\\mu_{cr}", "critical coefficient of friction |i_t| / i_n (eqs. 21-23)"},
       {"mu_star", Extra::Aux2, "1", "\\mu^*", "energetic bound mu* = n.W n / |(W n)_t| (eq. 38; inf when uncoupled)"},
       {"e_star", Extra::Aux3, "1", "e^*", "largest energetically consistent e for this v0 (eq. 30; -1 if none)"},
       {"e_star_global", Extra::Aux4, "1", "e^*_{global}", "largest e consistent for every v0 (eq. 32; -1 if none)"},
       {"modes", Extra::Modes, "", "\\mathrm{modes}", "stick or slip"},
       {"steps", Extra::Steps, "1", "\\mathrm{steps}", "root-finding iterations of the slip direction"}},
      7};
  static constexpr Cost cost = {3069, 0};  // flops per instance: docs/bench.md

  // The outcome on p, evaluated in p's own units (impact/scale.hpp).
  template <class T>
  IMPACT_HD static Result<T> eval(const ContactProblem<T>& p, const LawOptions& = LawOptions{}) {
    return in_own_units(p, [&](const ContactProblem<T>& q) { return detail::aghili::eval_unit<T>(q, use()); });
  }

  // f, the law on an instance in its own units, run on p scaled there and back (eval_in_own_units),
  // sigma as an impulse squared; the CPU reference runs its own f through this too. sigma scaled
  // back beyond the range of the type (impulses of 1e155 and up) would read inf in an ok row: the
  // row is non_finite, as an outcome beyond the range is (impact/scale.hpp). Below the range
  // (impulses of 1e-155 and down) it rounds to a signed zero or a subnormal, the correctly rounded
  // value, which keeps its sign. The test is here, not in the scaling every law shares, so that the
  // other laws' machine code is what it was.
  template <class T, class F>
  IMPACT_HD static Result<T> in_own_units(const ContactProblem<T>& p, F f) {
    Result<T> r = eval_in_own_units(p, f, 2);
    if (r.status == Status::ok && !std::isfinite(r.aux[0])) r.status = Status::non_finite;
    return r;
  }
};

}  // namespace impact
