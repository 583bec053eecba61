// Frictionless Newton (kinematic) restitution: v_f.n = -e v0.n, no tangential impulse.
//   P = (1 + e) P_I,  P_I = -(n.v0 / n^T W n) n   (the plastic frictionless impulse, Chatterjee &
//   Ruina eq. 3). Parameters: e. Extras: none. Documented in docs/laws.md, "newton".
//
// This is also the prototype of a law (docs/architecture.md, "Adding a law"). A law is a struct of
// static members: no state, no base class, no registration call. include/impact/laws/all.hpp
// includes its header and names it once in IMPACT_FOR_EACH_LAW, which the host registry
// (host/engine/registry.cpp: LawInfo), the CPU reference's dispatch (host/reference/reference.cpp)
// and the CUDA kernels' instantiations (kernels/cuda/evaluate.cu, sampled.cu) expand; the types of
// the members are in impact/law_meta.hpp. The rules for everything eval() reaches:
//   - one text for host and device: every function is IMPACT_HD or IMPACT_HDI (impact/config.hpp)
//     and in headers; g++ compiles it for the host and nvcc for sm_90;
//   - no Eigen (nvcc can emit empty kernels from it), no heap, no exceptions, no containers: the
//     algebra is impact/linalg.hpp's Vec3, Sym3 and Chol3 (Eigen belongs to the reference);
//   - no libm on the host: a transcendental is math::exp, math::atan2, ... (impact/math.hpp: rmath,
//     the same bits on every machine, on the host; CUDA's on the device); sqrt is exact and stays
//     plain. scripts/check_layout.py rejects std::exp, pow, atan2 and the like here;
//   - a status, never a wrong number: a row ends `ok` with an admissible outcome or with the Status
//     that says why not (impact/problem.hpp). validate() first; every loop bounded, ending in
//     step_limit at its bound; `inconsistent` where the law has no solution; finish() makes a
//     non-finite outcome non_finite; admit() last (impact/admissible.hpp);
//   - a template in T: double and float are both built, from one source (the float rows are held
//     to the double ones: docs/laws.md, "Precision").
// Per-law GPU tuning is not a member: LaunchTraits<Law> (kernels/launch_traits.hpp) and, for an
// integrator with path probes, the SIMT model's SimtCosts<Law>.
#pragma once
#include "impact/admissible.hpp"
#include "impact/scale.hpp"
#include "impact/problem.hpp"

namespace impact {

struct NewtonLaw {
  // The law's name: `--law newton`, the registry's key (engine::find_law), `impact laws`, output
  // file names, the Python package's law argument. Lower case words joined by dashes, unique.
  static constexpr const char* name = "newton";
  // One line, for `impact laws` and the Python package's impactbatch.laws().
  static constexpr const char* summary = "frictionless, kinematic restitution e";
  // The parameters the law reads, mu, e, e_t, eta0 (ParamUse): the registry makes their input
  // columns required in tables and study configs, and validate() checks the ranges of those read
  // (mu's always: 0 when not read). A function, so that device code can call it: eval() passes it
  // to validate().
  IMPACT_HD static constexpr ParamUse use() { return ParamUse{false, true, false, false}; }  // mu, e, e_t, eta0
  // The law's own output columns after P, vf, dE and status, in table order (ExtraColumns: each a
  // name, the Result field it is read from, unit, plot symbol, meaning): the tables, `impact laws`,
  // metadata.json and the plots read them. Newton writes none; chatterjee_ruina.hpp writes an aux
  // scalar and the mode sequence, jia.hpp In_c, the modes and the step count.
  static constexpr ExtraColumns extras = {{}, 0};
  // Flops per instance (algebraic laws) and per integration step (integrators: {0, per step}),
  // derived in docs/bench.md; `--backend auto`'s rate model reads them (LawInfo::flops_per_instance,
  // engine::pick_backend), and so does `impact bench`. Here: validate 31, plastic impulse 29,
  // (1 + e) 4, finish 27.
  static constexpr Cost cost = {91, 0};  // docs/bench.md

  // The physics' one entry point: the outcome of one instance, called by every backend's
  // per-instance functor (kernels/batch.hpp for tables, kernels/sampled.hpp for reductions), one
  // thread per instance, in double and in float. p is as read, not yet validated; LawOptions holds
  // the integrators' step count and scheme (an algebraic law ignores it). eval_in_own_units
  // (impact/scale.hpp) runs the law on p divided by powers of two near its magnitudes and scales
  // the outcome back, exactly: every law goes through it, so that 1e+-300 neither overflows nor
  // underflows inside the law. An integrator adds eval(p, opt, probe), reporting its code blocks
  // to a path probe (impact/probe.hpp; jia.hpp).
  template <class T>
  IMPACT_HD static Result<T> eval(const ContactProblem<T>& p, const LawOptions& o = LawOptions{}) {
    return eval_in_own_units(p, [&](const ContactProblem<T>& q) { return eval_unit<T>(q, o); });
  }

  // The law on an instance of magnitudes near 1 (eval scales it). Not read by the machinery: a law
  // names its helpers as it likes, and one over ~150 lines goes to laws/detail/ (jia, stronge, aghili).
  template <class T>
  IMPACT_HD static Result<T> eval_unit(ContactProblem<T> p, const LawOptions& = LawOptions{}) {
    // first the checks every law shares (finite, unit normal, ranges of the parameters read,
    // approach, W positive definite); a failure is the row's status, with a zero outcome
    Status s = validate(p, use());
    if (s != Status::ok) return make_result<T>(s);
    Result<T> r = make_result<T>(Status::ok);
    r.P = (T(1) + p.e) * impulse_plastic_frictionless(p);
    // vf = v0 + W P and dE = 1/2 (v0 + vf).P, the same for every law; non_finite if they are not
    finish(p, r);
    // `ok` only if admissible: compressive, in the cone, separating, no energy gained
    admit_in_place(p, r);
    return r;
  }
};

}  // namespace impact
