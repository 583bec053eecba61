// The CPU reference path (`--backend reference`): host-only, double precision, written with Eigen,
// sharing no integration or law code with the fast path in include/impact/laws/. Only the
// contact-space data types (ContactProblem, Result, Status, ModeSeq) and the input checks of
// validate() are shared, so both paths report the same statuses for invalid rows and write the
// same output columns.
//
//   newton, chatterjee-ruina, aghili: the papers' formulas with Eigen's LDLT solves (no hand
//     inverses), the slip-direction fixed points solved by other means than the fast path.
//   stronge, morgan: Stronge's 3D rigid impact integrated in the normal impulse with an adaptive
//     Runge-Kutta-Fehlberg 7(8) (Boost.Odeint) under tight error control, events located to
//     ~1e-12 of the impulse scale; morgan's planar closed form is checked against the same
//     integration restricted to the plane.
//   jia: eqs. (63)-(69) integrated with the same adaptive RKF78 in a different set of variables
//     than the fast path, with the Appendix-B start and the end of the impact treated analytically.
//
// Result.steps of a reference row counts accepted adaptive steps (integrators) or iterations.
#pragma once
#include <Eigen/Dense>
#include <string>
#include <type_traits>
#include <vector>

#include "engine/registry.hpp"
#include "impact/laws/all.hpp"
#include "impact/problem.hpp"
#include "kernels/batch.hpp"

namespace impact::ref {

using Vec = Eigen::Vector3d;
using Mat = Eigen::Matrix3d;

struct Options {
  double rtol = 1e-13;       // relative error tolerance of the adaptive integrators
  double atol = 1e-15;       // absolute tolerance, relative to the instance's own scales
  long max_steps = 2000000;  // bound on accepted + rejected steps per instance (then step_limit)
};

inline Vec to_eigen(const Vec3<double>& v) { return Vec(v.x, v.y, v.z); }
inline Vec3<double> from_eigen(const Vec& v) { return Vec3<double>{v(0), v(1), v(2)}; }
inline Mat to_eigen(const Sym3<double>& W) {
  Mat m;
  m << W.xx, W.xy, W.xz, W.xy, W.yy, W.yz, W.xz, W.yz, W.zz;
  return m;
}

// Validated data of one row in Eigen form (n as normalised by validate()).
struct Row {
  Mat W;
  Vec n, v0;
  double mu, e, e_t;
};
inline Row to_row(const ContactProblem<double>& p) { return Row{to_eigen(p.W), to_eigen(p.n), to_eigen(p.v0), p.mu, p.e, p.e_t}; }

// Per-law reference evaluations of one instance (p as read from the input; each validates it).
Result<double> newton(const ContactProblem<double>& p);
Result<double> chatterjee_ruina(const ContactProblem<double>& p);
Result<double> aghili(const ContactProblem<double>& p);
Result<double> morgan(const ContactProblem<double>& p, const Options& o = Options());
Result<double> stronge(const ContactProblem<double>& p, const Options& o = Options());
Result<double> jia(const ContactProblem<double>& p, const Options& o = Options());

// Stronge's 3D rigid impact integrated in the normal impulse from the validated instance pr with
// v0 as the initial relative velocity of the dynamics (pr's own v0 for stronge; its in-plane part
// for planar morgan rows); the reference of both laws (host/reference/stronge.cpp).
Result<double> stronge_integration(const ContactProblem<double>& pr, const Vec& v0, const Options& o);

// Events of one reference Jia integration (tests and diagnostics).
struct JiaEvent {
  enum Kind { end_compression, end_restitution, stick_to_slip, slip_to_stick } kind;
  double In;  // normal impulse at the event
  Vec vt;     // tangential contact velocity at the event (world frame)
};
Result<double> jia(const ContactProblem<double>& p, const Options& o, std::vector<JiaEvent>* events);

// Fills vf = v0 + W P and dE = 1/2 (v0 + vf).P with Eigen, and flags non-finite results.
void finish(const ContactProblem<double>& p, Result<double>& r);

// The reference of one law on one instance: solve<Law>(p, o). Every law of the law list has one,
// defined beside its reference in host/reference/<law>.cpp (a law without one does not link).
template <class Law>
Result<double> solve(const ContactProblem<double>& p, const Options& o = Options());
#define IMPACT_DECLARE_REFERENCE(LAW) \
  template <>                         \
  Result<double> solve<LAW>(const ContactProblem<double>& p, const Options& o);
IMPACT_FOR_EACH_LAW(IMPACT_DECLARE_REFERENCE)
#undef IMPACT_DECLARE_REFERENCE

// The reference for a registered law on one instance.
Result<double> evaluate(const engine::LawInfo& law, const ContactProblem<double>& p, const Options& o = Options());

// Batch entry point of a law's reference, with the registry's signature: rows in parallel over
// the host's cores (OpenMP), each row evaluated by solve<Law>. LawOptions are ignored (the
// reference has no steps).
engine::BatchFn<double> batch_fn(const engine::LawInfo& law);

// The batch entry point of a law for precision T on any backend: the reference's for
// Backend::reference (double only; null in float), the registry's otherwise.
template <class T>
engine::BatchFn<T> any_batch_fn(const engine::LawInfo& law, engine::Backend b) {
  if (b != engine::Backend::reference) return engine::batch_fn<T>(law, b);
  if constexpr (std::is_same_v<T, double>) return batch_fn(law);
  else return nullptr;
}

}  // namespace impact::ref
