// Reference for Jia's tangential-compliance law (`jia`), independent of include/impact/laws/jia.hpp.
//
// Formulation. Jia's eqs. (63)-(69) are the impulse-space form of three massless springs between
// the bodies at the contact: a normal spring of stiffness k_n (k in compression, k / e^2 in
// restitution, so that the force is continuous and E_n <- e^2 E_n at the switch, eq. 71) and an
// isotropic tangential spring of stiffness k_t = k / eta0^2 (eta = sqrt(k_n / k_t): eta0 in
// compression, eta0 / e in restitution). We integrate that system in time t (k = 1; the outputs do
// not depend on k), with the spring deflections as state, not the energies and the scaled time of
// the fast path:
//   I' = (F_n, F_t),  F_n = k_n d_n,  d_n' = -v_n,  v = v0 + W I   (contact frame n, u, w)
//   stick: d_t' = v_t,  F_t = -k_t d_t;
//   slip:  the spring is at the cone, |k_t d_t| = mu F_n, i.e. d_t = L (cos phi, sin phi) with
//          L = mu k_n d_n / k_t, and its free end slides along d = d_t / |d_t| (Coulomb: the
//          friction force opposes the sliding), so only the perpendicular part of v_t turns it:
//          phi' = (v_t . d_perp) / L (eq. 35) and F_t = -mu F_n d (eq. 46: |dI_t/dI_n| = mu).
// Modes. Initial stick iff |v0_t| < mu eta0^2 |v0_n| (Proposition 1). Stick -> slip where
// |d_t| reaches L; slip -> stick where the sliding speed of the spring's free end,
// v_t . d - L', falls to zero (L' = -mu (k_n / k_t) v_n). End of compression at v_n = 0, end of
// the impact at d_n = 0.
// Integration: the adaptive RKF78 driver of reference/ode.hpp (Options::rtol, atol relative to the
// instance's scales), every event located inside its step.
// Singular ends, treated analytically. In a 3D slip the direction equation has the coefficient
// |v_t| / L, and L vanishes at both ends of the impact:
//  * an initial slip starts at t0 = 1e-9 T_c from the exact leading-order solution (d_n = |v0_n| t,
//    I_n = |v0_n| t^2 / 2, I_t = -mu I_n d0, d along v0_t: v changes only at O(t^2), so the
//    direction's error is O(t0^2)); from there the adaptive steps grow geometrically;
//  * a restitution that ends in slip is integrated to d_n = 1e-7 of its value at the start of
//    restitution, and the remaining
//    impulse is added in closed form: dI_n = k_n d_n^2 / (2 v_n), dI_t = -mu dI_n d (relative
//    error of the closing term O(1e-7), of the result O(1e-21)).
// Planar instances (Theorem 2) keep the w components exactly zero and phi fixed.
// Bounds: Options::max_steps attempted steps per phase and mode, 64 mode switches, a phase longer
// than 1e4 T_c: status step_limit.
#include <algorithm>
#include <cmath>

#include "impact/rmath.hpp"
#include "impact/problem.hpp"
#include "reference/ode.hpp"
#include "reference/reference.hpp"

namespace impact::ref {

namespace {

struct Sys {
  Mat W;   // W in the contact frame (n, u, w)
  Vec v0;  // v0 in the contact frame
  double mu, e, kt;
  bool planar;
};

// y: I_n, I_u, I_w, d_n, then stick: d_u, d_w; slip: phi, (unused)
using Y = State<6>;

Vec velocity(const Sys& S, const Y& y) { return S.v0 + S.W * Vec(y[0], y[1], y[2]); }

void rhs(const Sys& S, double kn, bool stick, const Y& y, Y& dy) {
  const Vec v = velocity(S, y);
  const double Fn = kn * y[3];
  dy[0] = Fn;
  dy[3] = -v(0);
  dy[1] = dy[2] = dy[4] = dy[5] = 0;
  if (S.mu == 0) return;
  if (stick) {
    dy[1] = -S.kt * y[4];
    dy[2] = -S.kt * y[5];
    dy[4] = v(1);
    dy[5] = S.planar ? 0.0 : v(2);
    if (S.planar) dy[2] = 0;
  } else {
    const double c = rmath::cos(y[4]), s = rmath::sin(y[4]);
    dy[1] = -S.mu * Fn * c;
    dy[2] = S.planar ? 0.0 : -S.mu * Fn * s;
    const double L = S.mu * kn * y[3] / S.kt;
    dy[4] = (S.planar || !(L > 0)) ? 0.0 : (-v(1) * s + v(2) * c) / L;
  }
}

// Jacobian of the slip right-hand side (3D), for the stiff integrator.
void jac_slip(const Sys& S, double kn, const Y& y, std::array<std::array<double, 6>, 6>& J) {
  for (auto& row : J) row.fill(0.0);
  const Vec v = velocity(S, y);
  const double c = rmath::cos(y[4]), s = rmath::sin(y[4]);
  J[0][3] = kn;
  J[1][3] = -S.mu * kn * c;
  J[1][4] = S.mu * kn * y[3] * s;
  J[2][3] = -S.mu * kn * s;
  J[2][4] = -S.mu * kn * y[3] * c;
  for (int j = 0; j < 3; ++j) J[3][j] = -S.W(0, j);
  const double L = S.mu * kn * y[3] / S.kt;
  if (!(L > 0)) return;
  const double f4 = (-v(1) * s + v(2) * c) / L;
  for (int j = 0; j < 3; ++j) J[4][j] = (-S.W(1, j) * s + S.W(2, j) * c) / L;
  J[4][3] = -f4 / y[3];
  J[4][4] = (-v(1) * c - v(2) * s) / L;
}

// The contact frame (n, u, w) of a validated instance: u along v0's tangential part (else along
// that of W n, else any); planarity as every law decides it (problem.hpp). R's columns are n, u, w.
Sys make_system(const ContactProblem<double>& p, Mat& R) {
  const PlaneFrame<double> fr = plane_frame(p);
  const Vec n = to_eigen(p.n);
  const Vec u = to_eigen(fr.t);
  const Vec w = n.cross(u);
  R.col(0) = n;
  R.col(1) = u;
  R.col(2) = w;
  Sys S;
  S.W = R.transpose() * to_eigen(p.W) * R;
  S.W = 0.5 * (S.W + S.W.transpose()).eval();
  S.v0 = R.transpose() * to_eigen(p.v0);
  S.mu = p.mu;
  S.e = p.e;
  S.kt = 1.0 / (p.eta0 * p.eta0);
  S.planar = fr.planar;
  if (S.planar) {
    S.W(0, 2) = S.W(2, 0) = S.W(1, 2) = S.W(2, 1) = 0;
    S.v0(2) = 0;
  }
  return S;
}

// The state of the integration between phases.
struct Phase {
  Y y{0, 0, 0, 0, 0, 0};
  double t = 0;
  bool stick = false, compression = true;
  double kn = 1;
  double dn_r0 = 0;  // d_n at the start of restitution
};

// Scales (k = 1): frictionless compression time, deflection and impulse.
struct Scales {
  double Tc, ds, Is;
  explicit Scales(const Sys& S) {
    const double wnn = S.W(0, 0);
    const double vs = S.v0.norm();
    Tc = M_PI / (2 * std::sqrt(wnn));
    ds = vs / std::sqrt(wnn);
    Is = vs / wnn;
  }
};

constexpr double kEpsEnd = 1e-7;
constexpr long kExplicitBudget = 4000;

// One phase (constant mode and restitution state) integrated to its first event: the end of the
// phase (0) or a mode switch (1). A 3D slip is stiff where |v_t| / L is large (small mu:
// everywhere): after a budget of explicit steps the phase is redone from its start with the
// Rosenbrock integrator (counted in stiff_phases).
OdeResult integrate_phase(const Sys& S, const Scales& sc, Phase& ph, const Options& o, long& steps, double& stiff_phases) {
  const bool slip_end = !ph.compression && !ph.stick && S.mu > 0;
  const bool stick = ph.stick, compression = ph.compression;
  const double kn = ph.kn, dn_r0 = ph.dn_r0;
  auto f = [&](double, const Y& yy, Y& dy) { rhs(S, kn, stick, yy, dy); };
  auto g = [&](double, const Y& yy, std::array<double, 2>& out) {
    const Vec v = velocity(S, yy);
    if (compression) out[0] = -v(0);
    else out[0] = slip_end ? yy[3] - kEpsEnd * dn_r0 : yy[3];
    if (S.mu == 0) {
      out[1] = 1;
    } else if (stick) {
      const double L = S.mu * kn * yy[3] / S.kt;
      out[1] = L - rmath::hypot(yy[4], S.planar ? 0.0 : yy[5]);
    } else {
      const double Ldot = -S.mu * (kn / S.kt) * v(0);
      out[1] = v(1) * rmath::cos(yy[4]) + (S.planar ? 0.0 : v(2) * rmath::sin(yy[4])) - Ldot;
    }
  };
  const std::array<int, 2> sign{1, 1};
  const Y scale{sc.Is, sc.Is, sc.Is, sc.ds, stick ? sc.ds : 1.0, stick ? sc.ds : 1.0};
  const double h0 = 1e-3 * sc.Tc;
  const bool may_be_stiff = !stick && S.mu > 0 && !S.planar;
  const Y y_start = ph.y;
  OdeResult res = integrate_until<6, 2>(f, g, ph.t, ph.y, ph.t + 1e4 * sc.Tc, h0, scale, o.rtol, o.atol,
                                        may_be_stiff ? std::min(o.max_steps, kExplicitBudget) : o.max_steps, &sign);
  if (may_be_stiff && res.kind == OdeResult::step_limit) {
    steps += res.steps;
    ph.y = y_start;
    auto jac = [&](double, const Y& yy, std::array<std::array<double, 6>, 6>& J) { jac_slip(S, kn, yy, J); };
    res = integrate_until_stiff<6, 2>(f, jac, g, ph.t, ph.y, ph.t + 1e4 * sc.Tc, h0, scale, o.rtol, o.atol, o.max_steps, &sign);
    ++stiff_phases;
  }
  steps += res.steps;
  ph.t = res.x;
  return res;
}

// The mode switch at a phase's event 1: stick -> slip along the spring, or slip -> stick with the
// spring at its slip length.
Mode switch_mode(const Sys& S, Phase& ph) {
  Y& y = ph.y;
  if (ph.stick) {
    ph.stick = false;
    y[4] = rmath::atan2(S.planar ? 0.0 : y[5], y[4]);
    y[5] = 0;
    return Mode::slip;
  }
  ph.stick = true;
  const double L = S.mu * ph.kn * y[3] / S.kt;
  const double phi = y[4];
  y[4] = L * rmath::cos(phi);
  y[5] = S.planar ? 0.0 : L * rmath::sin(phi);
  return Mode::stick;
}

}  // namespace

Result<double> jia(const ContactProblem<double>& p, const Options& o) { return jia(p, o, nullptr); }

Result<double> jia(const ContactProblem<double>& pin, const Options& o, std::vector<JiaEvent>* events) {
  ContactProblem<double> p = pin;
  const Status st = validate(p, ParamUse{true, true, false, true});
  if (st != Status::ok) return make_result<double>(st);
  Result<double> r = make_result<double>(Status::ok);
  Mat R;
  const Sys S = make_system(p, R);
  const Scales sc(S);

  Phase ph;
  Y& y = ph.y;
  const double v0t = rmath::hypot(S.v0(1), S.v0(2));
  ph.stick = S.mu > 0 && v0t < S.mu * p.eta0 * p.eta0 * (-S.v0(0));
  r.modes.push(ph.stick ? Mode::stick : Mode::slip);
  if (!ph.stick && S.mu > 0) {
    y[4] = rmath::atan2(S.v0(2), S.v0(1));  // slip along v0_t (u: phi = 0)
    if (!S.planar) {
      const double t0 = 1e-9 * sc.Tc;
      y[3] = -S.v0(0) * t0;
      y[0] = 0.5 * y[3] * t0;
      y[1] = -S.mu * y[0] * rmath::cos(y[4]);
      y[2] = -S.mu * y[0] * rmath::sin(y[4]);
      ph.t = t0;
    }
  }
  int switches = 0;
  long steps = 0;
  auto record = [&](JiaEvent::Kind k) {
    if (!events) return;
    const Vec v = velocity(S, y);
    events->push_back(JiaEvent{k, y[0], v(1) * R.col(1) + v(2) * R.col(2)});
  };

  while (true) {
    if (switches > 64) {
      r.status = Status::step_limit;
      break;
    }
    const bool slip_end = !ph.compression && !ph.stick && S.mu > 0;
    const OdeResult res = integrate_phase(S, sc, ph, o, steps, r.aux[0]);  // aux[0]: stiff phases (diagnostic)
    if (res.kind == OdeResult::non_finite) {
      r.status = Status::non_finite;
      break;
    }
    if (res.kind != OdeResult::event) {
      r.status = Status::step_limit;
      break;
    }
    if (res.which == 0) {
      if (ph.compression) {
        record(JiaEvent::end_compression);
        r.In_c = y[0];
        if (S.e == 0) break;
        ph.compression = false;
        ph.kn = 1.0 / (S.e * S.e);
        y[3] *= S.e * S.e;  // force k_n d_n continuous, E_n <- e^2 E_n
        ph.dn_r0 = y[3];
        continue;
      }
      if (slip_end) {
        // closing term of the slip to d_n = 0: v is constant to first order
        const Vec v = velocity(S, y);
        const double dIn = v(0) > 0 ? ph.kn * y[3] * y[3] / (2 * v(0)) : 0.0;
        y[0] += dIn;
        y[1] -= S.mu * dIn * rmath::cos(y[4]);
        if (!S.planar) y[2] -= S.mu * dIn * rmath::sin(y[4]);
        y[3] = 0;
      }
      record(JiaEvent::end_restitution);
      break;
    }
    ++switches;
    record(ph.stick ? JiaEvent::stick_to_slip : JiaEvent::slip_to_stick);
    r.modes.push(switch_mode(S, ph));
  }
  r.steps = static_cast<std::int32_t>(steps);
  if (r.status == Status::ok) r.P = from_eigen(R * Vec(y[0], y[1], y[2]));
  finish(p, r);
  return r;
}

template <>
Result<double> solve<JiaLaw>(const ContactProblem<double>& p, const Options& o) {
  return jia(p, o, nullptr);
}

}  // namespace impact::ref
