// Planar impacts for the tests of morgan, stronge and their CPU references: the event orders of
// Morgan's Fig. 2.8 read from the independent ODE reference (planar_ode_reference.hpp), and the
// instances worked by hand with their outcomes.
#pragma once
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>

#include "planar_ode_reference.hpp"

namespace impact_test {

// ---- classification (Morgan Fig. 2.8 event orders) ---------------------------------------------
enum Category { cat_a = 0, cat_b = 1, cat_c = 2 };
inline const char* cat_name(int k) {
  static const char* names[] = {"(a) normal pause first, tangential pause in restitution",
                                "(b) tangential pause first (compression)", "(c) no tangential pause"};
  return names[k];
}
inline int classify(const PlanarOdeResult& o) {
  if (o.tan_events == 0) return cat_c;
  return o.tan_in_compression ? cat_b : cat_a;
}
inline bool ode_has(const PlanarOdeResult& o, OdeMode m) { return std::find(o.modes.begin(), o.modes.end(), m) != o.modes.end(); }

// ---- worked by hand ----------------------------------------------------------------------------
// A planar instance in its own frame (n, t, s): W = [[B, 0], [0, wss]] with B the (n, t) block,
// v0 = vn n + vt t; its outcome P = Pn n + Pt t, the normal impulse at the end of compression In_c,
// the work of compression Wc, the normal impulse at the tangential pause p_tan, the final velocity
// vf = vf_n n + vf_t t and the mode sequence (NaN where a case does not work a value out).
struct HandWorked {
  Eigen::Matrix2d B;
  double wss, vn, vt, mu, e;
  double Pn, Pt, In_c, Wc, p_tan, vf_n, vf_t;
  const char* modes;
};

// A particle (W = I/m, no n-t coupling) sliding on a floor: friction stops the slip at
// p = m vt / mu and it sticks (tau = 0); the normal impulse is (1 + e) m |vn|.
struct ParticleCase {
  double vn, vt, mu, e;
  bool sticks;
  bool in_compression;
};
inline constexpr double kParticleMass = 2.0;
inline constexpr ParticleCase kParticleCases[] = {
    {-1.0, 0.5, 0.4, 1.0, true, false},   // pause at p = 2.5 (m|vn| = 2): category (a), stick
    {-1.0, 0.5, 0.4, 0.5, true, false},   // pause 2.5 <= end 3: (a)
    {-1.0, 0.3, 0.4, 0.5, true, true},    // pause 1.5 < 2: (b)
    {-1.0, 0.9, 0.4, 0.5, false, false},  // pause 4.5 > end 3: (c)
};
inline HandWorked particle_hand_worked(const ParticleCase& k) {
  const double m = kParticleMass, nan = std::numeric_limits<double>::quiet_NaN();
  HandWorked h;
  h.B = Eigen::Matrix2d::Identity() / m;
  h.wss = 1.0 / m;
  h.vn = k.vn;
  h.vt = k.vt;
  h.mu = k.mu;
  h.e = k.e;
  h.Pn = (1.0 + k.e) * m * std::abs(k.vn);
  h.p_tan = m * k.vt / k.mu;
  h.Pt = -k.mu * std::min(h.Pn, h.p_tan);
  h.In_c = m * std::abs(k.vn);
  h.Wc = h.vf_n = h.vf_t = nan;
  h.modes = k.sticks ? "slip>stick" : "slip";
  return h;
}

// Friction reversal in compression. In (n, t): W = [[2, 1], [1, 1]], w_ss = 1.5,
// mu = 0.5 (|tau| = |b/d| = 1 > mu: no sticking), v0 = -1 n - 0.3 t, e = 0.5.
//   slip with v_t < 0: r = +0.5, dv_n = 2.5, dv_t = 1.5 -> v_t = 0 at p = 0.2, v_n = -0.5.
//   reversed (r = -0.5): dv_n = 1.5, dv_t = 0.5 -> v_n = 0 at p = 0.2 + 1/3.
//   W_c = -(1 + 0.5)/2 * 0.2 - 0.5/2 * (1/3) = -0.15 - 1/12; target (1 - e^2) W_c:
//   restitution work 1/2 * 1.5 * dp^2 = e^2 |W_c|; then v_n = 1.5 dp, v_t = 0.5 (pend - 0.2).
inline HandWorked reversal_hand_worked() {
  HandWorked h;
  h.B << 2.0, 1.0, 1.0, 1.0;
  h.wss = 1.5;
  h.vn = -1.0;
  h.vt = -0.3;
  h.mu = 0.5;
  h.e = 0.5;
  h.In_c = 0.2 + 1.0 / 3.0;
  h.Wc = -0.15 - 1.0 / 12.0;
  const double dp = std::sqrt(0.25 * -h.Wc / 0.75);
  h.Pn = h.In_c + dp;
  h.Pt = 0.5 * 0.2 - 0.5 * (h.Pn - 0.2);
  h.p_tan = 0.2;
  h.vf_n = 1.5 * dp;
  h.vf_t = 0.5 * (h.Pn - 0.2);
  h.modes = "slip>reverse";
  return h;
}

// Jam: with this W and mu the slip first drives v_n more negative (a + r b < 0) until the
// tangential velocity stops; the instance then sticks. In (n, t): W = [[1, 0.9], [0.9, 1]],
// w_ss = 0.7, mu = 1.2, v0 = -1 n + 0.5 t, e = 1: r = -1.2, dv_n = 1 - 1.08 = -0.08,
// dv_t = 0.9 - 1.2 = -0.3. v_t = 0 at p = 5/3 with v_n = -1 - 0.08 * 5/3; tau = -0.9
// (|tau| <= mu: stick), then dv_n = 1 - 0.81 = 0.19; e = 1: restitution work = |W_c|.
inline HandWorked jam_hand_worked() {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  HandWorked h;
  h.B << 1.0, 0.9, 0.9, 1.0;
  h.wss = 0.7;
  h.vn = -1.0;
  h.vt = 0.5;
  h.mu = 1.2;
  h.e = 1.0;
  const double p1 = 0.5 / 0.3, vn1 = -1.0 - 0.08 * p1;
  h.In_c = p1 + (-vn1) / 0.19;
  h.Wc = 0.5 * (-1.0 + vn1) * p1 + 0.5 * vn1 * (h.In_c - p1);
  h.Pn = h.In_c + std::sqrt(2.0 * -h.Wc / 0.19);
  h.Pt = -1.2 * p1 - 0.9 * (h.Pn - p1);
  h.p_tan = p1;
  h.vf_n = h.vf_t = nan;
  h.modes = "slip>stick";
  return h;
}

}  // namespace impact_test
