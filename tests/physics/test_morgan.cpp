// impact::MorganLaw (planar closed form, Morgan 2011 ch. 2-3) against an independent event-located
// RK4 integration of the same normal-impulse-space ODE (tests/planar_ode_reference.hpp), plus
// the integrator's own hand-worked checks and the law's limiting cases.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "impact/laws/morgan.hpp"
#include "impact/problem.hpp"
#include "planar_cases.hpp"
#include "planar_ode_reference.hpp"
#include "random_instances.hpp"

namespace {

using Eigen::Matrix2d;
using Eigen::Matrix3d;
using Eigen::Vector3d;
using namespace impact_test;  // planar_ode_reference.hpp, planar_cases.hpp

// ---- conversions ------------------------------------------------------------------------------
impact::Vec3<double> to_v(const Vector3d& a) { return impact::Vec3<double>{a.x(), a.y(), a.z()}; }
Vector3d to_e(const impact::Vec3<double>& a) { return Vector3d(a.x, a.y, a.z); }
impact::Sym3<double> to_sym(const Matrix3d& W) {
  return impact::Sym3<double>{W(0, 0), W(0, 1), W(0, 2), W(1, 1), W(1, 2), W(2, 2)};
}

struct Instance {
  Matrix3d W;
  Vector3d n, v0;
  double mu = 0, e = 0;
  std::string origin;  // "random", "targeted-stick", ...
};

impact::ContactProblem<double> to_problem(const Instance& c) {
  impact::ContactProblem<double> p{};
  p.W = to_sym(c.W);
  p.n = to_v(c.n);
  p.v0 = to_v(c.v0);
  p.mu = c.mu;
  p.e = c.e;
  p.e_t = 0.0;
  p.eta0 = 1.0;
  return p;
}

Instance from_problem(const impact::ContactProblem<double>& p, const std::string& origin) {
  Instance c;
  c.W << p.W.xx, p.W.xy, p.W.xz, p.W.xy, p.W.yy, p.W.yz, p.W.xz, p.W.yz, p.W.zz;
  c.n = to_e(p.n);
  c.v0 = to_e(p.v0);
  c.mu = p.mu;
  c.e = p.e;
  c.origin = origin;
  return c;
}

std::string describe(const Instance& c) {
  std::ostringstream os;
  os.precision(17);
  os << c.origin << ": W=[" << c.W.row(0) << "; " << c.W.row(1) << "; " << c.W.row(2) << "] n=[" << c.n.transpose() << "] v0=["
     << c.v0.transpose() << "] mu=" << c.mu << " e=" << c.e;
  return os.str();
}

// ---- local planar instance generator (for targeted instances; the main random set comes from
// tests/support/random_instances.hpp) ------------------------------------------------------------------
// W is block diagonal in an orthonormal frame (n, t, s): a 2x2 SPD block in (n, t) plus an
// independent w_ss; the frame is a random rotation of the world axes; v0 = vn n + vt t.
Matrix3d random_rotation(std::mt19937_64& rng) {
  std::normal_distribution<double> N(0.0, 1.0);
  Eigen::Quaterniond q(N(rng), N(rng), N(rng), N(rng));
  q.normalize();
  return q.toRotationMatrix();
}

double log_uniform(std::mt19937_64& rng, double lo, double hi) {
  std::uniform_real_distribution<double> U(std::log(lo), std::log(hi));
  return std::exp(U(rng));
}

// Block (a = n^T W n, b = t^T W n, d = t^T W t) with eigenvalues log-uniform in [0.1, 10].
Matrix2d random_spd2(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> Uang(0.0, M_PI);
  const double l1 = log_uniform(rng, 0.1, 10.0), l2 = log_uniform(rng, 0.1, 10.0);
  const double th = Uang(rng);
  Eigen::Matrix2d Rt;
  Rt << std::cos(th), -std::sin(th), std::sin(th), std::cos(th);
  return Rt * Eigen::Vector2d(l1, l2).asDiagonal() * Rt.transpose();
}

Instance embed_planar(const Matrix3d& R, const Matrix2d& B, double wss, double vn, double vt, double mu, double e) {
  Matrix3d Wl = Matrix3d::Zero();
  Wl.topLeftCorner<2, 2>() = B;
  Wl(2, 2) = wss;
  Instance c;
  c.W = R * Wl * R.transpose();
  c.W = 0.5 * (c.W + c.W.transpose()).eval();
  c.n = R.col(0);
  c.v0 = vn * R.col(0) + vt * R.col(1);
  c.mu = mu;
  c.e = e;
  return c;
}

Instance local_random_planar(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> U01(0.0, 1.0);
  const Matrix3d R = random_rotation(rng);
  const Matrix2d B = random_spd2(rng);
  const double wss = log_uniform(rng, 0.1, 10.0);
  const double vn = -(0.1 + 1.9 * U01(rng));
  const double vt = (2.0 * U01(rng) - 1.0) * 3.0 * std::abs(vn);
  Instance c = embed_planar(R, B, wss, vn, vt, 1.5 * U01(rng), U01(rng));
  c.origin = "random";
  return c;
}

impact::Mode to_mode(OdeMode m) {
  switch (m) {
    case OdeMode::slip: return impact::Mode::slip;
    case OdeMode::stick: return impact::Mode::stick;
    case OdeMode::reverse: return impact::Mode::reverse;
  }
  return impact::Mode::none;
}
std::string modes_str(const std::vector<OdeMode>& m) {
  std::string s;
  for (size_t k = 0; k < m.size(); ++k) s += (k ? ">" : "") + std::string(impact_test::ode_mode_name(m[k]));
  return s;
}
std::string modes_str(impact::ModeSeq m) {
  std::string s;
  for (int k = 0; k < m.size(); ++k) s += (k ? ">" : "") + std::string(impact::mode_name(m.at(k)));
  return s;
}
bool same_modes(const std::vector<OdeMode>& a, impact::ModeSeq b) {
  if (static_cast<int>(a.size()) != b.size()) return false;
  for (size_t k = 0; k < a.size(); ++k)
    if (to_mode(a[k]) != b.at(static_cast<int>(k))) return false;
  return true;
}

PlanarOdeResult run_ode(const Instance& c) { return integrate_planar_impact(c.W, c.n, c.v0, c.mu, c.e); }

double kinetic_energy(const Instance& c) { return 0.5 * c.v0.dot(c.W.ldlt().solve(c.v0)); }

Vector3d newton_impulse(const Instance& c, double e) {
  const Vector3d n = c.n.normalized();
  return (1.0 + e) * (-c.v0.dot(n) / n.dot(c.W * n)) * n;
}

// Comparison bookkeeping shared by the agreement tests.
struct Agreement {
  double max_P = 0, max_Inc = 0, max_vf = 0, max_dE_pos = -1e300;
  int n = 0;
};

// Checks one instance: Morgan ok, P (relative to |P|), In_c, modes, dE <= 0.
void check_against_ode(const Instance& c, const PlanarOdeResult& o, Agreement& ag) {
  ASSERT_TRUE(o.ok) << "ODE reference failed (" << o.fail << ") for " << describe(c);
  const impact::Result<double> r = impact::MorganLaw::eval<double>(to_problem(c));
  ASSERT_EQ(r.status, impact::Status::ok) << impact::status_name(r.status) << " for " << describe(c);
  const Vector3d P = to_e(r.P), vf = to_e(r.vf);
  const double eP = (P - o.P).norm() / o.P.norm();
  const double eI = std::abs(r.In_c - o.In_c) / o.In_c;
  const double ev = (vf - o.vf).norm() / c.v0.norm();
  const double K0 = kinetic_energy(c);
  ag.max_P = std::max(ag.max_P, eP);
  ag.max_Inc = std::max(ag.max_Inc, eI);
  ag.max_vf = std::max(ag.max_vf, ev);
  ag.max_dE_pos = std::max(ag.max_dE_pos, r.dE / K0);
  ++ag.n;
  std::ostringstream os;
  os.precision(17);
  os << describe(c) << "\n  morgan: P=[" << P.transpose() << "] In_c=" << r.In_c << " modes=" << modes_str(r.modes)
     << "\n  ode:    P=[" << o.P.transpose() << "] In_c=" << o.In_c << " modes=" << modes_str(o.modes) << " p_tan=" << o.p_tan
     << " p_end=" << o.p_end;
  EXPECT_LE(eP, 1e-9) << os.str();
  EXPECT_LE(eI, 1e-9) << os.str();
  EXPECT_LE(ev, 1e-9) << os.str();
  EXPECT_TRUE(same_modes(o.modes, r.modes)) << os.str();
  EXPECT_LE(r.dE, 1e-12 * K0) << os.str();
}

}  // namespace

// =================================================================================================
// The reference integrator on its own: cases worked by hand.
// =================================================================================================

// mu = 0: energetic restitution equals Newton's, P = (1 + e) P_I, for any W (planar or not).
TEST(MorganOdeReference, FrictionlessEqualsNewton) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> U(-1.0, 1.0), U01(0.0, 1.0);
  for (int i = 0; i < 50; ++i) {
    Matrix3d A;
    for (int k = 0; k < 9; ++k) A(k / 3, k % 3) = U(rng);
    Instance c;
    c.W = A * A.transpose() + 0.2 * Matrix3d::Identity();
    c.n = Vector3d(U(rng), U(rng), U(rng)).normalized();
    c.v0 = Vector3d(U(rng), U(rng), U(rng));
    if (c.v0.dot(c.n) > -0.05) c.v0 -= (c.v0.dot(c.n) + 0.5) * c.n;
    c.mu = 0.0;
    c.e = U01(rng);
    const PlanarOdeResult o = run_ode(c);
    ASSERT_TRUE(o.ok) << o.fail;
    const Vector3d PN = newton_impulse(c, c.e);
    EXPECT_LE((o.P - PN).norm(), 1e-12 * PN.norm()) << describe(c);
    EXPECT_NEAR(o.In_c, PN.norm() / (1.0 + c.e), 1e-12 * PN.norm());
  }
}

// The instances of planar_cases.hpp worked by hand, each in a random frame R: the ODE reference's
// impulse within 1e-12 (relative), In_c within in_c_tol and the modes, where it ran (the caller
// asserts o.ok).
namespace {
PlanarOdeResult hand_worked_ode(const HandWorked& h, const Matrix3d& R, const char* origin, double in_c_tol) {
  Instance c = embed_planar(R, h.B, h.wss, h.vn, h.vt, h.mu, h.e);
  c.origin = origin;
  const PlanarOdeResult o = run_ode(c);
  if (!o.ok) return o;
  const Vector3d Pexp = h.Pn * R.col(0) + h.Pt * R.col(1);
  EXPECT_LE((o.P - Pexp).norm(), 1e-12 * Pexp.norm()) << describe(c);
  EXPECT_NEAR(o.In_c, h.In_c, in_c_tol);
  EXPECT_EQ(modes_str(o.modes), h.modes);
  return o;
}
}  // namespace

TEST(MorganOdeReference, ParticleSticksHandWorked) {
  std::mt19937_64 rng(12);
  for (const impact_test::ParticleCase& k : impact_test::kParticleCases) {
    const HandWorked h = impact_test::particle_hand_worked(k);
    const PlanarOdeResult o = hand_worked_ode(h, random_rotation(rng), "particle", 1e-12);
    ASSERT_TRUE(o.ok) << o.fail;
    EXPECT_EQ(ode_has(o, OdeMode::stick), k.sticks);
    if (k.sticks) {
      EXPECT_NEAR(o.p_tan, h.p_tan, 1e-12);
      EXPECT_EQ(o.tan_in_compression, k.in_compression);
    } else {
      EXPECT_EQ(o.tan_events, 0);
    }
  }
}

TEST(MorganOdeReference, ReversalHandWorked) {
  std::mt19937_64 rng(13);
  const HandWorked h = impact_test::reversal_hand_worked();
  for (int rep = 0; rep < 5; ++rep) {
    const Matrix3d R = random_rotation(rng);
    const PlanarOdeResult o = hand_worked_ode(h, R, "reversal", 1e-12);
    ASSERT_TRUE(o.ok) << o.fail;
    EXPECT_NEAR(o.Wc, h.Wc, 1e-12);
    EXPECT_NEAR(o.p_tan, h.p_tan, 1e-12);
    EXPECT_TRUE(o.tan_in_compression);
    const Vector3d vexp = h.vf_n * R.col(0) + h.vf_t * R.col(1);
    EXPECT_LE((o.vf - vexp).norm(), 1e-12);
  }
}

TEST(MorganOdeReference, JamThenStickHandWorked) {
  std::mt19937_64 rng(14);
  const PlanarOdeResult o = hand_worked_ode(impact_test::jam_hand_worked(), random_rotation(rng), "jam", 1e-11);
  ASSERT_TRUE(o.ok) << o.fail;
  EXPECT_TRUE(o.tan_in_compression);
}

// =================================================================================================
// MorganLaw against the reference.
// =================================================================================================

namespace {

// Instances biased towards one category (used only when random sampling leaves it short).
// want_slide: 0 any, 1 sticking, 2 reversal.
Instance biased_instance(std::mt19937_64& rng, int want_slide, int want_cat) {
  std::uniform_real_distribution<double> U01(0.0, 1.0);
  const Matrix3d R = random_rotation(rng);
  const Matrix2d B = random_spd2(rng);
  const double wss = log_uniform(rng, 0.1, 10.0);
  const double vn = -(0.1 + 1.9 * U01(rng));
  const double tau = std::abs(B(0, 1) / B(1, 1));
  double mu = 1.5 * U01(rng), e = U01(rng), vt_ratio = 3.0 * U01(rng);
  if (want_slide == 1) {
    mu = std::min(1.5, tau + 0.5 * U01(rng));
    vt_ratio = 0.5 * U01(rng);
  } else if (want_slide == 2) {
    mu = tau * U01(rng);
    vt_ratio = 0.5 * U01(rng);
  } else if (want_cat == cat_a) {
    e = 0.5 + 0.5 * U01(rng);
    vt_ratio = 0.2 + 1.5 * U01(rng);
  } else if (want_cat == cat_b) {
    vt_ratio = 0.3 * U01(rng);
  } else {
    vt_ratio = 1.0 + 5.0 * U01(rng);
  }
  // sign of vt: towards the side where friction drives it to zero (b - mu s d has sign -s)
  double s = U01(rng) < 0.5 ? 1.0 : -1.0;
  if (want_slide || want_cat != cat_c) s = (B(0, 1) > 0) ? -1.0 : 1.0;
  Instance c = embed_planar(R, B, wss, vn, s * vt_ratio * std::abs(vn), mu, e);
  c.origin = want_slide == 1   ? std::string("targeted-stick")
             : want_slide == 2 ? std::string("targeted-reverse")
                               : std::string("targeted-") + "abc"[want_cat];
  return c;
}

}  // namespace

TEST(MorganVsOde, RandomPlanarInstancesAgree) {
  impact::randinst::Rng rng(20110501);
  std::vector<Instance> cases;
  std::vector<PlanarOdeResult> odes;
  std::array<int, 3> cat_count{0, 0, 0};
  int stick_count = 0, reverse_count = 0, random_count = 0;
  auto add = [&](const Instance& c, const PlanarOdeResult& o) {
    cases.push_back(c);
    odes.push_back(o);
    if (o.ok) {
      ++cat_count[classify(o)];
      if (ode_has(o, OdeMode::stick)) ++stick_count;
      if (ode_has(o, OdeMode::reverse)) ++reverse_count;
    }
  };
  // mu in [0, 1.5], e in [0, 1]; W block diagonal in a random (n, t, s) frame, v0 in span(n, t).
  for (int i = 0; i < 2000; ++i) {
    const Instance c = from_problem(impact::randinst::random_planar_problem(rng, {0.0, 1.5}, {0.0, 1.0}), "random");
    add(c, run_ode(c));
    ++random_count;
  }
  // Top up any class with fewer than 50 instances with targeted ones: (a), (b), (c), sticking,
  // and (not required by Fig. 2.8, but the other outcome of a tangential pause) reversal.
  const int kMin = 50;
  for (int want = 0; want < 5; ++want) {
    auto count = [&]() { return want == 3 ? stick_count : want == 4 ? reverse_count : cat_count[want]; };
    for (int attempt = 0; attempt < 200000 && count() < kMin; ++attempt) {
      const Instance c = biased_instance(rng, want == 3 ? 1 : want == 4 ? 2 : 0, want >= 3 ? cat_a : want);
      const PlanarOdeResult o = run_ode(c);
      if (!o.ok) continue;
      const bool hit = want == 3 ? ode_has(o, OdeMode::stick) : want == 4 ? ode_has(o, OdeMode::reverse) : classify(o) == want;
      if (hit) add(c, o);
    }
  }
  Agreement ag;
  for (size_t i = 0; i < cases.size(); ++i) {
    check_against_ode(cases[i], odes[i], ag);
    if (HasFatalFailure()) return;
  }
  std::printf("[ MorganVsOde ] %d instances (%d random, %d targeted)\n", ag.n, random_count, ag.n - random_count);
  for (int k = 0; k < 3; ++k) std::printf("[ MorganVsOde ]   %-56s %d\n", cat_name(k), cat_count[k]);
  std::printf("[ MorganVsOde ]   %-56s %d\n", "sticking", stick_count);
  std::printf("[ MorganVsOde ]   %-56s %d\n", "reversal", reverse_count);
  std::printf("[ MorganVsOde ] max rel |dP| %.3g, max rel |dIn_c| %.3g, max |dvf|/|v0| %.3g, max dE/K0 %.3g\n", ag.max_P,
              ag.max_Inc, ag.max_vf, ag.max_dE_pos);
  EXPECT_GE(ag.n, 2000);
  for (int k = 0; k < 3; ++k) EXPECT_GE(cat_count[k], kMin) << cat_name(k);
  EXPECT_GE(stick_count, kMin) << "sticking";
  EXPECT_GE(reverse_count, kMin) << "reversal";
}

// The ends of the parameter ranges: e = 0 and e = 1, tiny and large mu.
TEST(MorganVsOde, ParameterExtremesAgree) {
  impact::randinst::Rng rng(77);
  Agreement ag;
  const double es[] = {0.0, 1.0};
  const double mus[] = {1e-3, 1.5, 3.0};
  for (double e : es)
    for (double mu : mus)
      for (int i = 0; i < 100; ++i) {
        const Instance c = from_problem(impact::randinst::random_planar_problem(rng, {mu, mu}, {e, e}), "extreme");
        check_against_ode(c, run_ode(c), ag);
        if (HasFatalFailure()) return;
      }
  std::printf("[ MorganVsOde ] extremes: %d instances, max rel |dP| %.3g\n", ag.n, ag.max_P);
}

// Normal incidence (v0 = v_n n, no initial tangential velocity): stick from the start when
// |tau| <= mu, otherwise slip along -tau. First with n and t on world axes (v_t exactly 0), then
// in random frames (v_t at round-off level).
TEST(MorganVsOde, NormalIncidenceAgrees) {
  impact::randinst::Rng rng(78);
  Agreement ag;
  int stick_start = 0;
  for (int i = 0; i < 400; ++i) {
    const bool random_frame = i >= 200;
    const impact::randinst::PlanarInstance pi = impact::randinst::random_planar_instance(
        rng, {0.0, 1.5}, {0.0, 1.0}, impact::randinst::kEtRange, impact::randinst::kEta0Range,
        /*zero_tangential=*/true, random_frame);
    const Instance c =
        from_problem(pi.problem, random_frame ? "normal incidence, random frame" : "normal incidence, world frame");
    const PlanarOdeResult o = run_ode(c);
    if (o.ok && !o.modes.empty() && o.modes.front() == OdeMode::stick) ++stick_start;
    check_against_ode(c, o, ag);
    if (HasFatalFailure()) return;
  }
  std::printf("[ MorganVsOde ] normal incidence: %d instances (%d stick from the start), max rel |dP| %.3g\n", ag.n, stick_start,
              ag.max_P);
}

// Morgan's planar double pendulum (ch. 2): two slender bars (length r, mass m), W = J M^-1 J^T
// in the floor frame (x tangential, y normal), embedded in 3D with a placeholder w_zz and then
// rotated to a random world frame.
TEST(MorganPendulum, DoublePendulumAgreesWithOde) {
  std::mt19937_64 rng(2011);
  std::uniform_real_distribution<double> U(-1.0, 1.0), U01(0.0, 1.0);
  const double m = 1.3, r = 0.7;
  Agreement ag;
  int cats[3] = {0, 0, 0}, stick = 0;
  for (int i = 0; i < 300; ++i) {
    const double q1 = -M_PI / 2 + 0.6 * U(rng);
    const double q2 = (U01(rng) < 0.5 ? -1.0 : 1.0) * (0.3 + 2.2 * U01(rng));
    Matrix2d J, M;
    J << -std::sin(q1) - std::sin(q1 + q2), -std::sin(q1 + q2),  //
        std::cos(q1) + std::cos(q1 + q2), std::cos(q1 + q2);
    J *= r;
    M << std::cos(q2) + 5.0 / 3.0, std::cos(q2) / 2.0 + 1.0 / 3.0,  //
        std::cos(q2) / 2.0 + 1.0 / 3.0, 1.0 / 3.0;
    M *= m * r * r;
    const Matrix2d W2 = J * M.inverse() * J.transpose();
    Eigen::Vector2d u0, v2;
    do {
      u0 = Eigen::Vector2d(3.0 * U(rng), 3.0 * U(rng));
      v2 = J * u0;
    } while (!(v2.y() < -0.05 * v2.norm()));
    Matrix3d W = Matrix3d::Zero();
    W.topLeftCorner<2, 2>() = W2;
    W(2, 2) = 1.0;  // placeholder out-of-plane entry
    const Matrix3d Rw = random_rotation(rng);
    Instance c;
    c.W = Rw * W * Rw.transpose();
    c.W = 0.5 * (c.W + c.W.transpose()).eval();
    c.n = Rw * Vector3d(0, 1, 0);
    c.v0 = Rw * Vector3d(v2.x(), v2.y(), 0.0);
    c.mu = 1.2 * U01(rng);
    c.e = U01(rng);
    c.origin = "double pendulum q=(" + std::to_string(q1) + "," + std::to_string(q2) + ")";
    const PlanarOdeResult o = run_ode(c);
    check_against_ode(c, o, ag);
    if (HasFatalFailure()) return;
    ++cats[classify(o)];
    if (ode_has(o, OdeMode::stick)) ++stick;
    // The generalised speeds after impact, u_f = u0 + M^-1 J^T P (floor frame), reproduce vf.
    const impact::Result<double> res = impact::MorganLaw::eval<double>(to_problem(c));
    const Vector3d Pl = Rw.transpose() * to_e(res.P);
    const Eigen::Vector2d uf = u0 + M.inverse() * J.transpose() * Eigen::Vector2d(Pl.x(), Pl.y());
    const Vector3d vfl = Rw.transpose() * to_e(res.vf);
    EXPECT_LE((J * uf - Eigen::Vector2d(vfl.x(), vfl.y())).norm(), 1e-10 * v2.norm());
    EXPECT_LE(std::abs(Pl.z()), 1e-12 * Pl.norm());
  }
  std::printf("[ MorganPendulum ] %d configurations: (a) %d (b) %d (c) %d stick %d; max rel |dP| %.3g\n", ag.n, cats[0], cats[1],
              cats[2], stick, ag.max_P);
}

// =================================================================================================
// MorganLaw's limiting cases and properties.
// =================================================================================================

TEST(MorganLaw, FrictionlessIsNewton) {
  std::mt19937_64 rng(31);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  for (int i = 0; i < 500; ++i) {
    Instance c = local_random_planar(rng);
    c.mu = 0.0;
    if (i % 2) {  // also a generic (non-planar) W: mu = 0 is accepted for every instance
      Matrix3d A;
      for (int k = 0; k < 9; ++k) A(k / 3, k % 3) = U(rng);
      c.W = A * A.transpose() + 0.2 * Matrix3d::Identity();
      c.v0 += 0.3 * c.n.cross(c.v0);
    }
    const impact::Result<double> r = impact::MorganLaw::eval<double>(to_problem(c));
    ASSERT_EQ(r.status, impact::Status::ok) << describe(c);
    const Vector3d PN = newton_impulse(c, c.e);
    EXPECT_LE((to_e(r.P) - PN).norm(), 1e-12 * PN.norm()) << describe(c);
    EXPECT_NEAR(r.In_c, PN.norm() / (1.0 + c.e), 1e-12 * PN.norm()) << describe(c);
    // and the kinematic outcome of Newton's law: vf.n = -e v0.n
    EXPECT_NEAR(to_e(r.vf).dot(c.n), -c.e * c.v0.dot(c.n), 1e-12 * c.v0.norm()) << describe(c);
  }
}

TEST(MorganLaw, PlasticEndsAtCompression) {
  std::mt19937_64 rng(32);
  for (int i = 0; i < 500; ++i) {
    Instance c = local_random_planar(rng);
    c.e = 0.0;
    const impact::Result<double> r = impact::MorganLaw::eval<double>(to_problem(c));
    ASSERT_EQ(r.status, impact::Status::ok) << describe(c);
    const Vector3d P = to_e(r.P), vf = to_e(r.vf);
    EXPECT_NEAR(P.dot(c.n), r.In_c, 1e-12 * P.norm()) << describe(c);
    EXPECT_NEAR(vf.dot(c.n), 0.0, 1e-12 * c.v0.norm()) << describe(c);
  }
}

TEST(MorganLaw, EnergyNeverIncreases) {
  std::mt19937_64 rng(33);
  std::uniform_real_distribution<double> U01(0.0, 1.0);
  double worst = -1e300;
  for (int i = 0; i < 5000; ++i) {
    Instance c = local_random_planar(rng);
    if (i % 4 == 0) c.e = 1.0;
    if (i % 8 == 1) c.e = 0.0;
    const impact::Result<double> r = impact::MorganLaw::eval<double>(to_problem(c));
    ASSERT_EQ(r.status, impact::Status::ok) << describe(c);
    const double K0 = kinetic_energy(c);
    worst = std::max(worst, r.dE / K0);
    EXPECT_LE(r.dE, 1e-12 * K0) << describe(c);
    // dE agrees with the kinetic energy of vf
    const Vector3d vf = to_e(r.vf);
    EXPECT_NEAR(r.dE, 0.5 * vf.dot(c.W.ldlt().solve(vf)) - K0, 1e-10 * K0) << describe(c);
  }
  std::printf("[ MorganLaw ] max dE/K0 over 5000 instances: %.3g\n", worst);
}

TEST(MorganLaw, NonPlanarIsRejected) {
  std::mt19937_64 rng(34);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  for (int i = 0; i < 100; ++i) {
    Instance c = local_random_planar(rng);
    c.mu = 0.1 + 0.9 * (U(rng) + 1.0) / 2.0;
    const Matrix3d R = random_rotation(rng);
    if (i % 2 == 0) {
      // generic W: couples n and t to s = n x t
      Matrix3d A;
      for (int k = 0; k < 9; ++k) A(k / 3, k % 3) = U(rng);
      c.W = A * A.transpose() + 0.2 * Matrix3d::Identity();
    } else {
      // v0 in span(n, t), but W couples n and t to s = n x t, so the motion leaves the plane.
      Matrix3d Wl;
      Wl << 1.0, 0.2, 0.3, 0.2, 1.5, 0.1, 0.3, 0.1, 2.0;
      c.W = R * Wl * R.transpose();
      c.n = R.col(0);
      c.v0 = -1.0 * R.col(0) + 0.4 * R.col(1);
    }
    const impact::Result<double> r = impact::MorganLaw::eval<double>(to_problem(c));
    EXPECT_EQ(r.status, impact::Status::not_planar) << describe(c) << " status " << impact::status_name(r.status);
  }
}
