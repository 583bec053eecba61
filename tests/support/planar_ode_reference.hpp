// Independent numerical reference for planar frictional impact in normal-impulse space
// (Morgan 2011 ch. 2-3; Stronge's energetic restitution), used to check impact::MorganLaw.
//
// It integrates, in 3D world coordinates (Eigen, double), the ODE with the normal impulse p_n as
// the independent variable and state y = (v (3), P (3), Wn):
//   dP/dp_n = n + f,   dv/dp_n = W (n + f),   dWn/dp_n = v.n
// with f = -mu vhat_t (slip, vhat_t the unit tangential velocity) or f = tau (stick; tau in the
// tangent plane with tangential part of W (n + tau) = 0, admissible when |tau| <= mu).
//
// Fixed-step classical RK4 (h = p_scale / 4000, p_scale = |v0.n| / n^T W n) with the events
// located, never stepped over: after every step the active event functions are evaluated
//   - tangential pause: v.d crosses 0 (d = +-t0, the current slip direction along the fixed
//     in-plane tangent t0), only while slipping;
//   - normal pause:     v.n crosses 0, only in compression;
//   - end of impact:    Wn - (1 - e^2) W_c crosses 0, only in restitution;
// and when one changes sign its root is found by Brent's method on the step, each trial point
// re-integrated from the step's start by a single RK4 sub-step, to ~1e-14 relative. The mode is
// switched there (stick if |tau| <= mu, otherwise slip reversed), and the integration goes on
// from the located point. All loops are bounded; a bound that is hit sets `ok = false`.
//
// Nothing here uses the closed form. In a planar instance the tangential velocity stays on the
// line of t0, so the slip direction is vhat_t = sign(v.t0) t0: constant between events. Each
// mode's right-hand side is used as its smooth continuation across a step, and modes change only
// at located events. (Re-evaluating vhat_t = v_t / |v_t| from the RK stage states instead makes
// the out-of-plane round-off in v stiff as |v_t| -> 0 -- a decay rate ~ mu w_ss / |v_t| -- and
// explicit RK4 blows it up into a spurious 3D slip that never reaches v_t = 0.)
#pragma once
#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace impact_test {

enum class OdeMode { slip, stick, reverse };

inline const char* ode_mode_name(OdeMode m) {
  switch (m) {
    case OdeMode::slip: return "slip";
    case OdeMode::stick: return "stick";
    case OdeMode::reverse: return "reverse";
  }
  return "?";
}

struct PlanarOdeOptions {
  double steps_per_scale = 4000.0;  // h = p_scale / steps_per_scale
  long max_steps = 20000000;        // RK4 steps (not counting root-finding sub-steps)
  int max_events = 16;              // located events
  int max_root_iters = 200;         // Brent iterations per event
  double root_rel_tol = 1e-14;      // event location, relative to max(p_n, p_scale)
};

struct PlanarOdeResult {
  bool ok = false;
  std::string fail;                                        // why ok is false
  Eigen::Vector3d P = Eigen::Vector3d::Zero();             // impulse on body 1 (world)
  Eigen::Vector3d vf = Eigen::Vector3d::Zero();            // final relative contact velocity
  double dE = 0.0;                                         // 1/2 (v0 + vf).P
  double In_c = std::numeric_limits<double>::quiet_NaN();  // p_n at the normal pause
  double Wc = std::numeric_limits<double>::quiet_NaN();    // normal work at the normal pause
  double p_end = 0.0;                                      // total normal impulse
  double p_scale = 0.0;                                    // |v0.n| / n^T W n
  // First tangential pause (v_t reaching 0 while slipping), NaN when none happened.
  double p_tan = std::numeric_limits<double>::quiet_NaN();
  bool tan_in_compression = false;
  int tan_events = 0;
  std::vector<OdeMode> modes;
  long steps = 0;
  int events = 0;
  Eigen::Vector3d t0 = Eigen::Vector3d::Zero();  // in-plane tangent used for the events
};

namespace ode_detail {

using Vec3 = Eigen::Vector3d;
using State = Eigen::Matrix<double, 7, 1>;  // v, P, Wn

inline Vec3 vel(const State& y) { return y.segment<3>(0); }

struct Ctx {
  const Eigen::Matrix3d* W;
  Vec3 n;
  double mu;
  bool stick;  // stick mode: f = tau
  Vec3 tau;    // sticking tangential impulse rate
  Vec3 d;      // slip direction of the current segment: sign(v.t0) t0
};

inline State rhs(const Ctx& c, const State& y) {
  const Vec3 v = vel(y);
  const Vec3 f = c.stick ? c.tau : Vec3(-c.mu * c.d);
  const Vec3 dP = c.n + f;
  State dy;
  dy.segment<3>(0) = (*c.W) * dP;
  dy.segment<3>(3) = dP;
  dy(6) = v.dot(c.n);
  return dy;
}

// Classical RK4 increment over h (the state itself is accumulated with compensated summation).
inline State rk4_inc(const Ctx& c, const State& y, double h) {
  const State k1 = rhs(c, y);
  const State k2 = rhs(c, y + 0.5 * h * k1);
  const State k3 = rhs(c, y + 0.5 * h * k2);
  const State k4 = rhs(c, y + h * k3);
  return (h / 6.0) * (k1 + 2.0 * k2 + 2.0 * k3 + k4);
}

// Kahan-compensated accumulation of y += dy (and of p += h), so that thousands of steps add
// only round-off of order eps, not steps * eps.
template <class V>
inline void kahan_add(V& sum, V& comp, const V& inc) {
  const V t = inc - comp;
  const V s2 = sum + t;
  comp = (s2 - sum) - t;
  sum = s2;
}

// Sticking rate: tau in the tangent plane with T^T W (n + tau) = 0.
inline Vec3 stick_rate(const Eigen::Matrix3d& W, const Vec3& n) {
  Vec3 a = std::abs(n.x()) < 0.57735 ? Vec3::UnitX() : (std::abs(n.y()) < 0.57735 ? Vec3::UnitY() : Vec3::UnitZ());
  Vec3 t1 = (a - a.dot(n) * n).normalized();
  Vec3 t2 = n.cross(t1);
  Eigen::Matrix<double, 3, 2> T;
  T.col(0) = t1;
  T.col(1) = t2;
  const Eigen::Matrix2d A = T.transpose() * W * T;
  const Eigen::Vector2d b = T.transpose() * W * n;
  const Eigen::Vector2d x = -A.ldlt().solve(b);
  return T * x;
}

enum EventKind { ev_tan = 0, ev_comp = 1, ev_end = 2 };

// Brent's method for G(s) = 0 on [a, b] with G(a) < 0 <= G(b) (Numerical Recipes' zbrent).
// Returns the bracket's upper end, a point where G >= 0 (the event has happened), once the
// bracket is narrower than tol.
template <class F>
double brent_upper(F&& G, double a, double b, double fa, double fb, double tol, int max_iter, bool& ok) {
  ok = true;
  double c = b, fc = fb, d = b - a, e = d;
  for (int it = 0; it < max_iter; ++it) {
    if ((fb > 0 && fc > 0) || (fb < 0 && fc < 0) || (fb == 0 && fc == 0)) {
      c = a;
      fc = fa;
      d = e = b - a;
    }
    if (std::abs(fc) < std::abs(fb)) {
      a = b;
      b = c;
      c = a;
      fa = fb;
      fb = fc;
      fc = fa;
    }
    const double tol1 = 2.0 * std::numeric_limits<double>::epsilon() * std::abs(b) + 0.5 * tol;
    const double xm = 0.5 * (c - b);
    if (std::abs(xm) <= tol1 || fb == 0.0) return fb >= 0.0 ? b : c;  // fb, fc differ in sign
    if (std::abs(e) >= tol1 && std::abs(fa) > std::abs(fb)) {
      const double s = fb / fa;
      double p, q;
      if (a == c) {
        p = 2.0 * xm * s;
        q = 1.0 - s;
      } else {
        const double qq = fa / fc, rr = fb / fc;
        p = s * (2.0 * xm * qq * (qq - rr) - (b - a) * (rr - 1.0));
        q = (qq - 1.0) * (rr - 1.0) * (s - 1.0);
      }
      if (p > 0.0) q = -q;
      p = std::abs(p);
      if (2.0 * p < std::min(3.0 * xm * q - std::abs(tol1 * q), std::abs(e * q))) {
        e = d;
        d = p / q;
      } else {
        d = xm;
        e = d;
      }
    } else {
      d = xm;
      e = d;
    }
    a = b;
    fa = fb;
    b += std::abs(d) > tol1 ? d : (xm > 0.0 ? tol1 : -tol1);
    fb = G(b);
  }
  ok = false;
  return fb >= 0.0 ? b : c;
}

}  // namespace ode_detail

// W: symmetric positive definite 3x3 (world), n: contact normal (normalised here), v0 with
// v0.n < 0, mu >= 0, e in [0, 1] (energetic).
inline PlanarOdeResult integrate_planar_impact(const Eigen::Matrix3d& W, Eigen::Vector3d n, const Eigen::Vector3d& v0, double mu,
                                               double e, const PlanarOdeOptions& opt = PlanarOdeOptions()) {
  using namespace ode_detail;
  PlanarOdeResult r;
  n.normalize();
  const double v0n = v0.dot(n);
  if (!(v0n < 0.0)) {
    r.fail = "no approach";
    return r;
  }
  const double Wnn = n.dot(W * n);
  const double p_scale = -v0n / Wnn;
  r.p_scale = p_scale;
  const double h = p_scale / opt.steps_per_scale;
  const double vscale = v0.norm();

  Ctx c;
  c.W = &W;
  c.n = n;
  c.mu = mu;
  c.stick = false;
  c.tau = stick_rate(W, n);

  // Fixed in-plane tangent t0: along v0's tangential part, else along the slip that would start.
  const Vec3 vt0 = v0 - v0n * n;
  if (vt0.norm() > 1e-12 * vscale) {
    r.t0 = vt0.normalized();
    c.d = r.t0;
    r.modes.push_back(OdeMode::slip);
  } else if (c.tau.norm() <= mu) {
    r.t0 = c.tau.norm() > 0 ? Vec3(c.tau.normalized()) : Vec3(W * n - Wnn * n).normalized();
    c.stick = true;
    c.d = r.t0;
    r.modes.push_back(OdeMode::stick);
  } else {
    r.t0 = -c.tau.normalized();
    c.d = r.t0;
    r.modes.push_back(OdeMode::slip);
  }

  State y;
  y.segment<3>(0) = v0;
  y.segment<3>(3).setZero();
  y(6) = 0.0;
  State ycomp = State::Zero();
  double p = 0.0, pcomp = 0.0;
  bool compression = true;
  double target = 0.0;

  // Event function values, arranged so that "before" is < 0 and "happened" is >= 0.
  auto gval = [&](int k, const State& s) -> double {
    switch (k) {
      case ev_tan: return -vel(s).dot(c.d);
      case ev_comp: return vel(s).dot(n);
      default: return s(6) - target;
    }
  };
  auto active = [&](int k) -> bool {
    switch (k) {
      case ev_tan: return !c.stick;
      case ev_comp: return compression;
      default: return !compression;
    }
  };

  bool done = false;
  while (!done) {
    if (r.steps >= opt.max_steps) {
      r.fail = "max_steps";
      return r;
    }
    ++r.steps;
    const State ya = y;
    const State dyh = rk4_inc(c, ya, h);
    const State yb = ya + dyh;
    // Find the earliest event in (p, p + h].
    int best = -1;
    double best_s = h;
    for (int k = 0; k < 3; ++k) {
      if (!active(k)) continue;
      const double gb = gval(k, yb);
      if (!(gb >= 0.0)) continue;
      const double ga = gval(k, ya);
      double s;
      if (ga >= 0.0) {
        s = 0.0;  // already at the event (e.g. e = 0 ends at the normal pause)
      } else {
        bool ok = true;
        const double tol = opt.root_rel_tol * std::max(p + h, p_scale);
        s = brent_upper([&](double x) { return gval(k, State(ya + rk4_inc(c, ya, x))); }, 0.0, h, ga, gb, tol, opt.max_root_iters,
                        ok);
        if (!ok) {
          r.fail = "root finding did not converge";
          return r;
        }
      }
      if (best < 0 || s < best_s) {
        best = k;
        best_s = s;
      }
    }
    if (best < 0) {
      kahan_add(y, ycomp, dyh);
      kahan_add(p, pcomp, h);
      continue;
    }
    if (++r.events > opt.max_events) {
      r.fail = "max_events";
      return r;
    }
    if (best_s > 0.0) {
      kahan_add(y, ycomp, State(rk4_inc(c, ya, best_s)));
      kahan_add(p, pcomp, best_s);
    }
    switch (best) {
      case ev_tan: {
        ++r.tan_events;
        if (r.tan_events == 1) {
          r.p_tan = p;
          r.tan_in_compression = compression;
        }
        if (c.tau.norm() <= mu) {
          c.stick = true;
          r.modes.push_back(OdeMode::stick);
        } else {
          c.d = -c.d;
          r.modes.push_back(OdeMode::reverse);
        }
        break;
      }
      case ev_comp: {
        compression = false;
        r.In_c = p;
        r.Wc = y(6);
        target = (1.0 - e * e) * r.Wc;
        break;
      }
      default: done = true; break;
    }
  }
  r.ok = true;
  r.p_end = p;
  r.vf = vel(y);
  r.P = y.segment<3>(3);
  r.dE = 0.5 * (v0 + r.vf).dot(r.P);
  return r;
}

}  // namespace impact_test
