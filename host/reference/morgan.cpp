// CPU reference of morgan (the planar closed form) by the 3D stronge integration
// (host/reference/stronge.cpp).
//
// The same integration of the same instance (the planar model is the 3D one restricted to
// the plane). Planarity is decided by plane_frame() exactly as the fast law decides it; a planar
// row's v0 is taken in its plane (v0.n n + vt t, the out-of-plane remainder being below the
// planarity tolerance, as the closed form treats it), so v_t = 0 at the start exactly when the
// closed form says so. With mu = 0 (every row accepted) the modes follow the closed form's
// convention: `slip`, or `stick` at normal incidence when W n has no tangential part, and
// `slip>reverse` when v.t passes through 0 before the end.
#include "reference/reference.hpp"

namespace impact::ref {

Result<double> morgan(const ContactProblem<double>& p_in, const Options& o) {
  ContactProblem<double> p = p_in;
  const Status st = validate(p, ParamUse{true, true, false, false});
  if (st != Status::ok) return make_result<double>(st);
  const PlaneFrame<double> fr = plane_frame(p);
  if (p.mu > 0 && !fr.planar) return make_result<double>(Status::not_planar);
  const Vec n = to_eigen(p.n), t = to_eigen(fr.t), v0 = to_eigen(p.v0);
  if (p.mu > 0) return stronge_integration(p, Vec(v0.dot(n) * n + fr.vt * t), o);
  // mu = 0: the impulse is Newton's whatever the plane; the modes follow the closed form's
  // convention in its (n, t) frame (t along v0_t, or along (W n)_t at normal incidence).
  Result<double> r = stronge_integration(p, v0, o);
  if (r.status != Status::ok) return r;
  const double bt = t.dot(to_eigen(p.W) * n);
  r.modes = ModeSeq::empty();
  if (fr.vt > 0) {
    r.modes.push(Mode::slip);
    // v.t = fr.vt + bt p_n passes through 0 before the end of the impact
    if (bt < 0 && fr.vt / -bt < to_eigen(r.P).dot(n)) r.modes.push(Mode::reverse);
  } else {
    r.modes.push(bt == 0 ? Mode::stick : Mode::slip);
  }
  return r;
}

template <>
Result<double> solve<MorganLaw>(const ContactProblem<double>& p, const Options& o) {
  return morgan(p, o);
}

}  // namespace impact::ref
