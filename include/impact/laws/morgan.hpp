// Morgan (2011): closed-form planar rigid impact in normal-impulse space, Coulomb friction and
// Stronge's energetic restitution (ch. 2-3). No iteration: the velocity moves along straight
// lines in p_n, bending where the tangential velocity reaches zero (friction reversal or
// sticking, eq. 2.12) and the normal work E_n = int v_n dp_n is piecewise quadratic (eq. 2.21).
//
// Contact-space form. Choose t in the tangent plane along v0's tangential part (or, for normal
// incidence, along the tangential part of W n) and s = n x t. The instance is planar when
// v0.s = 0 and W couples neither n nor t to s (s^T W n = s^T W t = 0), all to a tolerance
// relative to the instance's scale. With mu = 0 friction is absent and every instance is
// accepted (the impulse stays along n). Otherwise a non-planar instance gets `not_planar`.
// In (n, t): a = n^T W n, b = t^T W n, d = t^T W t. With tangential impulse rate r = dp_t/dp_n:
//   dv_n/dp_n = a + r b,  dv_t/dp_n = b + r d.
//   slip:  r = -mu sign(v_t);   stick (needs |m| <= mu): r = m = -b/d  (eq. 3.1);
//   at v_t = 0 with |m| > mu slip resumes in the opposite direction (a "reverse").
// Compression ends at v_n = 0 (the normal pause), with work E_c; the impact ends when E_n
// reaches (1 - e^2) E_c (energetic restitution). The segments are walked in order of their
// events, so all three event orders of Fig. 2.8 and sticking fall out of one loop (<= 6 segments).
#pragma once
#include "impact/admissible.hpp"
#include "impact/scale.hpp"
#include "impact/problem.hpp"

namespace impact {

struct MorganLaw {
  static constexpr const char* name = "morgan";
  static constexpr const char* summary = "planar closed form, energetic restitution, Morgan 2011";
  IMPACT_HD static constexpr ParamUse use() { return ParamUse{true, true, false, false}; }  // mu, e, e_t, eta0
  static constexpr ExtraColumns extras = {
      {{"In_c", Extra::In_c, "N s", "I_{n,c}", "normal impulse at the end of compression"},
       {"modes", Extra::Modes, "", "\\mathrm{modes}", "contact-mode sequence, e.g. slip>stick"},
       {"steps", Extra::Steps, "1", "\\mathrm{steps}", "closed-form segments"}},
      3};
  static constexpr Cost cost = {295, 0};  // docs/bench.md
  static constexpr int kMaxSegments = 8;

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
    const Vec3<T> n = p.n;
    const Vec3<T> Wn = p.W * n;
    const PlaneFrame<T> fr = plane_frame(p);
    if (p.mu > T(0) && !fr.planar) return make_result<T>(Status::not_planar);
    const Vec3<T> t = fr.t;
    T vt = fr.vt;
    const T a = dot(n, Wn);
    const T b = dot(t, Wn);
    const T d = quad(p.W, t);
    const T m = -b / d;  // stick ratio (eq. 3.1)
    const bool can_stick = tabs(m) <= p.mu;

    T vn = dot(p.v0, n);
    T pn = T(0), pt = T(0), En = T(0), Etarget = T(0);
    bool compression = true;
    // mode: +1 / -1 slip with that sign of v_t, 0 stick
    int sgn;
    if (vt > T(0)) {
      sgn = 1;
      r.modes.push(Mode::slip);
    } else if (can_stick) {
      sgn = 0;
      r.modes.push(Mode::stick);
    } else {
      sgn = b > T(0) ? 1 : -1;  // v_t = 0, slip starts the way the dynamics push it
      r.modes.push(Mode::slip);
    }
    const T inf = T(1) / T(0);
    bool done = false;
    int seg = 0;
    for (; seg < kMaxSegments && !done; ++seg) {
      const T rr = sgn == 0 ? m : -p.mu * T(sgn);
      const T rn = a + rr * b;
      const T rt = sgn == 0 ? T(0) : b + rr * d;
      // distances in p_n to each candidate event
      T dt = inf, dc = inf, de = inf, dstall = inf;
      if (sgn != 0 && vt * rt < T(0)) dt = -vt / rt;
      if (compression) {
        if (rn > T(0)) dc = -vn / rn;
      } else {
        const T dE = Etarget - En;  // >= 0
        if (dE <= T(0)) {
          de = T(0);
        } else {
          const T disc = vn * vn + T(2) * rn * dE;
          if (disc >= T(0) && vn + sqrt(disc) > T(0)) de = T(2) * dE / (vn + sqrt(disc));
          if (rn < T(0)) dstall = -vn / rn;
        }
      }
      const T dmin = tmin(tmin(dt, dc), tmin(de, dstall));
      if (!(dmin < inf)) {
        r.status = Status::inconsistent;  // no event ahead: the normal velocity never turns
        return r;
      }
      // advance along the segment
      En += vn * dmin + T(0.5) * rn * dmin * dmin;
      vn += rn * dmin;
      vt += rt * dmin;
      pn += dmin;
      pt += rr * dmin;
      if (dmin == de) {
        done = true;
      } else if (dmin == dstall) {
        r.status = Status::stalled;
        r.steps = seg + 1;
        return r;
      } else if (dmin == dc) {
        vn = T(0);
        compression = false;
        r.In_c = pn;
        Etarget = (T(1) - p.e * p.e) * En;
        if (p.e == T(0)) done = true;
      } else {  // tangential pause
        vt = T(0);
        if (can_stick) {
          sgn = 0;
          r.modes.push(Mode::stick);
        } else {
          sgn = -sgn;
          r.modes.push(Mode::reverse);
        }
      }
    }
    r.steps = seg;
    if (!done) {
      r.status = Status::step_limit;
      return r;
    }
    r.P = pn * n + pt * t;
    finish(p, r);
    admit_in_place(p, r);
    return r;
  }
};

}  // namespace impact
