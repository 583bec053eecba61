// Adaptive integration with event location for the CPU reference path (host only).
//
// Boost.Odeint's Runge-Kutta-Fehlberg 7(8) (13 stages, 8th-order solution, 7th-order error
// estimate) under its standard step-size controller advances y' = f(x, y) from x0 until the first
// of a set of event functions g_k(x, y) crosses zero (or x reaches x_end). A crossing inside an
// accepted step [x0, x0 + h] is located by the Illinois variant of regula falsi on the sub-step
// length t in [0, h], each trial point being one RKF78 step of length t from the accepted step's
// start (t <= h, so its error is within the controller's tolerance), to |dt| <= 4 eps (|x| + h).
// Every loop is bounded: at most Options::max_steps attempted steps, 200 iterations per event; an
// accepted step that does not advance x (below its round-off) ends the integration (step_limit).
#pragma once
#include <array>
// uBLAS (Rosenbrock4's linear algebra) would otherwise re-check every LU solve in release builds
#ifndef BOOST_UBLAS_NDEBUG
#define BOOST_UBLAS_NDEBUG 1
#endif
#include <boost/numeric/odeint.hpp>
#include <utility>
#include <cmath>
#include <limits>

namespace impact::ref {

template <int N>
using State = std::array<double, N>;

struct OdeResult {
  enum Kind { event, reached_end, step_limit, non_finite } kind = reached_end;
  int which = -1;     // index of the event that fired first
  double x = 0;       // where the integration stopped
  long steps = 0;     // accepted steps
  long attempts = 0;  // attempted steps (accepted + rejected)
};

// The stepping loop and event location shared by both steppers. try_step(z, x, h) attempts one
// controlled step (true when accepted: x advanced, h the next proposal; else h reduced);
// single_step(z, xs, t) advances z by one uncontrolled step of length t. Events are evaluated on
// y = to_y(z).
template <int N, int K, class TryStep, class SingleStep, class ToY, class G>
OdeResult event_loop(const TryStep& try_step, const SingleStep& single_step, const ToY& to_y, const G& g, double x0, State<N>& z,
                     double x_end, double h0, long max_steps, const std::array<int, K>* init_sign) {
  OdeResult res;
  double x = x0;
  double h = h0;
  std::array<double, K> g0, g1;
  g(x, to_y(z), g0);
  std::array<int, K> sign0;
  for (int k = 0; k < K; ++k) sign0[k] = g0[k] > 0 ? 1 : g0[k] < 0 ? -1 : 0;
  if (init_sign) sign0 = *init_sign;

  const double eps = std::numeric_limits<double>::epsilon();
  while (true) {
    if (res.attempts >= max_steps) {
      res.kind = OdeResult::step_limit;
      break;
    }
    if (x_end - x <= 0) {
      res.kind = OdeResult::reached_end;
      break;
    }
    if (h > x_end - x) h = x_end - x;
    const State<N> zs = z;
    const double xs = x;
    double hs = h;
    ++res.attempts;
    if (!try_step(z, x, h)) continue;  // h was reduced; z, x unchanged
    if (!(x > xs)) {                   // an accepted step below the round-off of x: the integration cannot advance
      res.kind = OdeResult::step_limit;
      z = zs;
      x = xs;
      break;
    }
    ++res.steps;
    hs = x - xs;
    bool finite = true;
    for (int i = 0; i < N; ++i) finite = finite && std::isfinite(z[i]);
    if (!finite) {
      res.kind = OdeResult::non_finite;
      z = zs;
      x = xs;
      break;
    }
    g(x, to_y(z), g1);
    // earliest sign change among the armed events
    int first = -1;
    double t_first = hs;
    State<N> z_first = z;
    for (int k = 0; k < K; ++k) {
      if (sign0[k] == 0) continue;
      if (!(g1[k] * sign0[k] <= 0)) continue;
      // locate in [0, hs]
      double a = 0, b = hs, ga = 0, gb = g1[k];
      {
        std::array<double, K> gg;
        g(xs, to_y(zs), gg);
        ga = gg[k];
      }
      State<N> zb = z;
      int side = 0;
      for (int it = 0; it < 200 && (b - a) > 4 * eps * (std::fabs(xs) + hs); ++it) {
        double t = (a * gb - b * ga) / (gb - ga);
        if (!(t > a && t < b)) t = 0.5 * (a + b);
        State<N> zt = zs;
        single_step(zt, xs, t);
        std::array<double, K> gt;
        g(xs + t, to_y(zt), gt);
        if (gt[k] * sign0[k] <= 0) {
          b = t;
          gb = gt[k];
          zb = zt;
          if (side == -1) ga *= 0.5;
          side = -1;
        } else {
          a = t;
          ga = gt[k];
          if (side == 1) gb *= 0.5;
          side = 1;
        }
      }
      if (b < t_first || first < 0) {
        t_first = b;
        first = k;
        z_first = zb;
      }
    }
    if (first >= 0) {
      z = z_first;
      x = xs + t_first;
      res.kind = OdeResult::event;
      res.which = first;
      break;
    }
    for (int k = 0; k < K; ++k)
      if (sign0[k] == 0) sign0[k] = g1[k] > 0 ? 1 : g1[k] < 0 ? -1 : 0;
  }
  res.x = x;
  return res;
}

// f(x, y, dydx) evaluates the right-hand side; g(x, y, out) writes the K event functions. An event
// k fires where g_k changes sign from its sign at x0 (events that start at exactly 0 are armed once
// they become non-zero). `scale` holds per-component absolute scales for the error control (the
// tolerance of component i is atol * scale[i] + rtol |y_i|). On return y is the state at res.x.
// init_sign (optional) overrides the signs at x0: +1 makes event k fire where g_k becomes <= 0,
// whatever round-off gives at x0 itself (for events whose function starts at zero by construction).
template <int N, int K, class F, class G>
OdeResult integrate_until(const F& f, const G& g, double x0, State<N>& y, double x_end, double h0, const State<N>& scale,
                          double rtol, double atol, long max_steps, const std::array<int, K>* init_sign = nullptr) {
  namespace ode = boost::numeric::odeint;
  using Stepper = ode::runge_kutta_fehlberg78<State<N>>;
  // integrate z = y / scale so that one absolute tolerance applies to every component
  State<N> sc, inv;
  for (int i = 0; i < N; ++i) {
    sc[i] = scale[i] > 0 ? scale[i] : 1.0;
    inv[i] = 1.0 / sc[i];
  }
  auto fz = [&](const State<N>& z, State<N>& dz, double x) {
    State<N> yy;
    for (int i = 0; i < N; ++i) yy[i] = z[i] * sc[i];
    State<N> dy;
    f(x, yy, dy);
    for (int i = 0; i < N; ++i) dz[i] = dy[i] * inv[i];
  };
  auto to_y = [&](const State<N>& z) {
    State<N> yy;
    for (int i = 0; i < N; ++i) yy[i] = z[i] * sc[i];
    return yy;
  };
  State<N> z;
  for (int i = 0; i < N; ++i) z[i] = y[i] * inv[i];
    // (GCC warns about Boost's stepper copy with its scratch buffers not yet sized: harmless)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
  auto controlled = ode::make_controlled(atol, rtol, Stepper());
#pragma GCC diagnostic pop
  Stepper single;
  auto try_step = [&](State<N>& zz, double& xx, double& hh) { return controlled.try_step(fz, zz, xx, hh) == ode::success; };
  auto single_step = [&](State<N>& zz, double xs, double t) { single.do_step(fz, zz, xs, t); };
  OdeResult res = event_loop<N, K>(try_step, single_step, to_y, g, x0, z, x_end, h0, max_steps, init_sign);
  y = to_y(z);
  return res;
}

// The same for stiff systems: Boost.Odeint's Rosenbrock4 (Shampine's L-stable 4th-order
// Rosenbrock method with an embedded 3rd-order estimate) under its own controller. jac(x, y, J)
// writes the Jacobian df/dy (the systems here are autonomous). Events and tolerances as above.
template <int N, int K, class F, class J, class G>
OdeResult integrate_until_stiff(const F& f, const J& jac, const G& g, double x0, State<N>& y, double x_end, double h0,
                                const State<N>& scale, double rtol, double atol, long max_steps,
                                const std::array<int, K>* init_sign = nullptr) {
  namespace ode = boost::numeric::odeint;
  using Vector = boost::numeric::ublas::vector<double>;
  using Matrix = boost::numeric::ublas::matrix<double>;
  State<N> sc, inv;
  for (int i = 0; i < N; ++i) {
    sc[i] = scale[i] > 0 ? scale[i] : 1.0;
    inv[i] = 1.0 / sc[i];
  }
  auto to_y = [&](const State<N>& z) {
    State<N> yy;
    for (int i = 0; i < N; ++i) yy[i] = z[i] * sc[i];
    return yy;
  };
  auto sys = [&](const Vector& z, Vector& dz, double x) {
    State<N> yy, dy;
    for (int i = 0; i < N; ++i) yy[i] = z[i] * sc[i];
    f(x, yy, dy);
    for (int i = 0; i < N; ++i) dz[i] = dy[i] * inv[i];
  };
  auto jz = [&](const Vector& z, Matrix& Jz, const double& x, Vector& dfdt) {
    State<N> yy;
    for (int i = 0; i < N; ++i) yy[i] = z[i] * sc[i];
    std::array<std::array<double, N>, N> Jy;
    jac(x, yy, Jy);
    for (int i = 0; i < N; ++i) {
      dfdt[i] = 0;
      for (int j = 0; j < N; ++j) Jz(i, j) = inv[i] * Jy[i][j] * sc[j];
    }
  };
  auto system = std::make_pair(sys, jz);
  ode::rosenbrock4_controller<ode::rosenbrock4<double>> controlled(atol, rtol);
  ode::rosenbrock4<double> single;
  Vector buf(N);
  auto try_step = [&](State<N>& zz, double& xx, double& hh) {
    for (int i = 0; i < N; ++i) buf[i] = zz[i];
    if (controlled.try_step(system, buf, xx, hh) != ode::success) return false;
    for (int i = 0; i < N; ++i) zz[i] = buf[i];
    return true;
  };
  auto single_step = [&](State<N>& zz, double xs, double t) {
    for (int i = 0; i < N; ++i) buf[i] = zz[i];
    single.do_step(system, buf, xs, t);
    for (int i = 0; i < N; ++i) zz[i] = buf[i];
  };
  State<N> z;
  for (int i = 0; i < N; ++i) z[i] = y[i] * inv[i];
  OdeResult res = event_loop<N, K>(try_step, single_step, to_y, g, x0, z, x_end, h0, max_steps, init_sign);
  y = to_y(z);
  return res;
}

}  // namespace impact::ref
