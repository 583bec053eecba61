// CPU reference for `stronge` and `morgan` (reference/stronge.cpp, reference/morgan.cpp): agreement with MorganLaw's
// planar closed form, convergence of the fast StrongeLaw to it in 3D, limiting cases (mu = 0 is
// Newton), energy, hand-worked values, scale invariance, statuses (invalid input, not_planar,
// stalled, bounded runaway) and the reference's cost per instance.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <chrono>
#include <ctime>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "impact/laws/morgan.hpp"
#include "impact/laws/stronge.hpp"
#include "impact/problem.hpp"
#include "contact_frame.hpp"
#include "eigen_problem.hpp"
#include "planar_cases.hpp"
#include "random_instances.hpp"
#include "reference/reference.hpp"

namespace {

using Eigen::Matrix2d;
using Eigen::Matrix3d;
using Eigen::Vector2d;
using Eigen::Vector3d;
using impact::LawOptions;
using impact::Mode;
using impact::Result;
using impact::Status;
using Problem = impact::ContactProblem<double>;
using namespace impact::testing;  // eigen_problem.hpp, contact_frame.hpp
namespace ri = impact::randinst;

// The instance of W's symmetric part.
Problem make(const Matrix3d& W, const Vector3d& n, const Vector3d& v0, double mu, double e) {
  return problem_of(0.5 * (W + W.transpose()), n, v0, mu, e);
}

double rel(const Result<double>& a, const Result<double>& b) { return (to_e(a.P) - to_e(b.P)).norm() / to_e(b.P).norm(); }

struct Quantiles {
  double median = 0, p99 = 0, max = 0;
  size_t n = 0;
};
Quantiles quantiles(std::vector<double> v) {
  Quantiles q;
  q.n = v.size();
  if (v.empty()) return q;
  std::sort(v.begin(), v.end());
  q.median = v[v.size() / 2];
  q.p99 = v[std::min(v.size() - 1, v.size() * 99 / 100)];
  q.max = v.back();
  return q;
}

// ---- contact frame, computed here (independently of both paths) ------------------------------
// t1: Eigen's unitOrthogonal of n.
Frame frame_of(const Problem& p) {
  return impact::testing::frame_of(p, [](const Vector3d& n) { return Vector3d(n.unitOrthogonal()); });
}

// ---- planar instances biased to sticking (want = 1) or reversal (want = 2) ---------------------
Problem biased_planar(ri::Rng& rng, int want) {
  for (;;) {
    ri::PlanarInstance pi = ri::random_planar_instance(rng, {0.0, 1.5}, {0.0, 1.0});
    Problem& p = pi.problem;
    const Matrix3d W = W_of(p);
    const Vector3d n = to_e(p.n);
    const double bb = pi.t.dot(W * n), d = pi.t.dot(W * pi.t);
    const double m = std::abs(bb / d);
    const double vn = to_e(p.v0).dot(n);
    double s = ri::coin(rng) ? 1.0 : -1.0;
    if (want == 1) {
      if (m > 1.45) continue;
      p.mu = std::min(1.5, m + ri::uniform(rng, 0.0, 0.5));
    } else {
      p.mu = std::min(1.5, m) * ri::uniform(rng, 0.0, 1.0);
      s = bb > 0 ? -1.0 : 1.0;  // the side on which the slip decelerates
    }
    const double ratio = ri::uniform(rng, 0.0, 0.5);
    p.v0 = to_v(vn * n + s * ratio * std::abs(vn) * pi.t);
    return p;
  }
}

}  // namespace

// (1) Planar rows: ref::morgan (and ref::stronge) against MorganLaw's closed form.
TEST(RefStrongePlanar, AgreesWithMorganClosedForm) {
  ri::Rng rng(7101);
  std::vector<Problem> cases;
  for (int i = 0; i < 1200; ++i) cases.push_back(ri::random_planar_problem(rng, {0.0, 1.5}, {0.0, 1.0}));
  for (int i = 0; i < 150; ++i) cases.push_back(ri::random_planar_problem_head_on(rng, {0.0, 1.5}, {0.0, 1.0}));
  for (int i = 0; i < 200; ++i) cases.push_back(biased_planar(rng, 1));
  for (int i = 0; i < 200; ++i) cases.push_back(biased_planar(rng, 2));
  for (int i = 0; i < 50; ++i) {
    Problem p = ri::random_planar_problem(rng, {0.0, 1.5}, {0.0, 1.0});
    p.e = i % 2 ? 1.0 : 0.0;
    cases.push_back(p);
  }
  int ok = 0, stick = 0, reverse = 0, slip_only = 0;
  std::vector<double> em, es, ei;
  for (const Problem& p : cases) {
    const Result<double> m = impact::MorganLaw::eval<double>(p);
    const Result<double> rm = impact::ref::morgan(p);
    const Result<double> rs = impact::ref::stronge(p);
    ASSERT_EQ(rm.status, m.status) << impact::status_name(rm.status) << " " << describe(p);
    if (m.status != Status::ok) continue;
    ASSERT_EQ(rs.status, Status::ok) << impact::status_name(rs.status) << " " << describe(p);
    ++ok;
    const double e1 = rel(rm, m), e2 = rel(rs, m);
    const double e3 = std::abs(rm.In_c - m.In_c) / m.In_c;
    em.push_back(e1);
    es.push_back(e2);
    ei.push_back(e3);
    EXPECT_LE(e1, 1e-10) << describe(p);
    EXPECT_LE(e2, 1e-10) << describe(p);
    EXPECT_LE(e3, 1e-10) << describe(p);
    EXPECT_EQ(modes_str(rm.modes), modes_str(m.modes)) << describe(p);
    if (p.mu > 0) { EXPECT_EQ(modes_str(rs.modes), modes_str(m.modes)) << describe(p); }
    if (has_mode(m.modes, Mode::stick)) ++stick;
    else if (has_mode(m.modes, Mode::reverse)) ++reverse;
    else ++slip_only;
  }
  const Quantiles qm = quantiles(em), qs = quantiles(es), qi = quantiles(ei);
  std::printf(
      "[ RefStrongePlanar ] %d rows (%d stick, %d reverse, %d slip only); rel |P_ref - P_morgan|: morgan ref "
      "median %.2g p99 %.2g max %.2g; stronge ref median %.2g p99 %.2g max %.2g; In_c max %.2g\n",
      ok, stick, reverse, slip_only, qm.median, qm.p99, qm.max, qs.median, qs.p99, qs.max, qi.max);
  ::testing::Test::RecordProperty("planar_max_rel_P", std::to_string(qm.max));
  EXPECT_GE(ok, 1000);
  EXPECT_GE(stick, 100);
  EXPECT_GE(reverse, 100);
  EXPECT_GE(slip_only, 100);
}

// morgan's planarity decision is the fast law's: every row gets the same status.
TEST(RefStrongePlanar, NotPlanarDecidedAsMorgan) {
  ri::Rng rng(7102);
  int not_planar = 0, planar = 0;
  for (int i = 0; i < 600; ++i) {
    Problem p = i % 3 == 0 ? ri::random_planar_problem(rng, {0.0, 1.5}, {0.0, 1.0})
                           : ri::random_contact_problem(rng, {0.0, 1.5}, {0.0, 1.0});
    if (i % 10 == 1) p.mu = 0.0;  // mu = 0: every row accepted
    const Result<double> m = impact::MorganLaw::eval<double>(p);
    const Result<double> rm = impact::ref::morgan(p);
    EXPECT_EQ(rm.status, m.status) << describe(p);
    if (m.status == Status::not_planar) ++not_planar;
    if (m.status == Status::ok) {
      ++planar;
      EXPECT_LE(rel(rm, m), 1e-10) << describe(p);
      EXPECT_EQ(modes_str(rm.modes), modes_str(m.modes)) << describe(p);
    }
  }
  EXPECT_GE(not_planar, 300);
  EXPECT_GE(planar, 200);
}

// (2) 3D rows: the fast StrongeLaw converges to the reference.
namespace {
struct Row {
  Problem p;
  int kind;  // 0 random, 1 stick-targeted, 2 reversal-targeted, 3 head-on, 4 near-grazing,
             // 5 near the cone boundary (|tau| ~ mu: slow approach to v_t = 0, stiff direction)
};
std::vector<Row> rows_3d(ri::Rng& rng, int count) {
  std::vector<Row> rows;
  for (int i = 0; (int)rows.size() < count; ++i) {
    const int j = i % 20;
    const int kind = j < 7 ? 0 : j < 10 ? 1 : j < 14 ? 2 : j < 16 ? 3 : j < 18 ? 4 : 5;
    Problem p = ri::random_contact_problem(rng, {0.0, 1.5}, {0.0, 1.0});
    if (i % 23 == 0) p.e = 0.0;
    if (i % 23 == 1) p.e = 1.0;
    const Frame f = frame_of(p);
    const double tn = stick_ratio(f).norm();
    const double vn = to_e(p.v0).dot(f.n);
    const double pc = -vn / f.a;
    const double ang = ri::uniform(rng, 0.0, 2.0 * M_PI);
    const double lmin = Eigen::SelfAdjointEigenSolver<Matrix2d>(f.D).eigenvalues()(0);
    if (kind == 1) {  // sticking possible, slip stops early
      if (tn * 1.05 > 1.5) continue;
      p.mu = std::min(1.5, tn * ri::uniform(rng, 1.05, 3.0));
      const double mag = ri::uniform(rng, 0.05, 2.0) * pc * (p.mu - tn) * lmin;
      p.v0 = to_v(vn * f.n + mag * tangent_at(f, ang));
    } else if (kind == 2) {  // no sticking, v0_t on (or near) a ray approaching v_t = 0: reversal
      p.mu = std::min(1.5, tn) * ri::uniform(rng, 0.05, 0.95);
      std::vector<Ray> in;
      for (const Ray& ry : invariant_rays(f, p.mu, 3600))
        if (ry.g < 0) in.push_back(ry);
      if (in.empty()) continue;
      const Ray& ry = in[static_cast<size_t>(i) % in.size()];
      const double mag = ri::uniform(rng, 0.05, 0.5) * -ry.g * pc;
      const double off = i % 2 ? 0.0 : ri::uniform(rng, -0.05, 0.05);
      p.v0 = to_v(vn * f.n + mag * tangent_at(f, ry.th + off));
    } else if (kind == 3) {  // v_t = 0 at the start
      p.v0 = to_v(vn * f.n);
    } else if (kind == 4) {  // near-grazing: |v_n| = 0.02 .. 0.2 |v_t|
      const Vector3d v0 = to_e(p.v0), vt = v0 - v0.dot(f.n) * f.n;
      if (vt.norm() < 1e-3 * v0.norm()) continue;
      p.v0 = to_v(-ri::log_uniform(rng, 0.02, 0.2) * vt.norm() * f.n + vt);
    } else if (kind == 5) {
      if (tn > 1.4) continue;
      p.mu = tn * (1.0 + ri::uniform(rng, -1e-3, 1e-3));
      const Vector3d v0 = to_e(p.v0), vt = v0 - v0.dot(f.n) * f.n;
      if (i % 3 == 0) p.v0 = to_v(v0.dot(f.n) * f.n + ri::log_uniform(rng, 1e-4, 1.0) * vt);
    }
    rows.push_back(Row{p, kind});
  }
  return rows;
}
}  // namespace

TEST(RefStronge3D, FastLawConvergesToReference) {
  ri::Rng rng(7103);
  const std::vector<Row> rows = rows_3d(rng, 1400);
  const int Ns[3] = {250, 1000, 4000};
  std::vector<double> err[3];
  int ok = 0, stick = 0, reverse = 0, slip_only = 0, grazing = 0, stalled = 0, fast_limited = 0;
  int status_mismatch = 0, boundary = 0, max_steps = 0;
  for (const Row& row : rows) {
    const Problem& p = row.p;
    const Result<double> ref = impact::ref::stronge(p);
    const Result<double> f4 = impact::StrongeLaw::eval<double>(p, law_options(4000));
    if (ref.status != Status::ok || f4.status != Status::ok) {
      if (ref.status == Status::stalled && f4.status == Status::stalled) {
        ++stalled;
        continue;
      }
      // the fast law's step bound (64 p_c of slip) may end long grazing slips; nothing else differs
      if (ref.status == Status::ok && f4.status == Status::step_limit) {
        ++fast_limited;
        continue;
      }
      ++status_mismatch;
      ADD_FAILURE() << "ref " << impact::status_name(ref.status) << " fast " << impact::status_name(f4.status) << " "
                    << describe(p);
      continue;
    }
    ++ok;
    max_steps = std::max(max_steps, ref.steps);
    if (row.kind == 4) ++grazing;
    if (row.kind == 5) ++boundary;
    if (has_mode(ref.modes, Mode::stick)) ++stick;
    else if (has_mode(ref.modes, Mode::reverse)) ++reverse;
    else ++slip_only;
    EXPECT_EQ(modes_str(f4.modes), modes_str(ref.modes)) << describe(p);
    const double e4 = rel(f4, ref);
    EXPECT_LE(e4, 1e-8) << describe(p);
    EXPECT_LE(std::abs(f4.In_c - ref.In_c), 1e-8 * ref.In_c) << describe(p);
    err[2].push_back(e4);
    for (int k = 0; k < 2; ++k) {
      const Result<double> fk = impact::StrongeLaw::eval<double>(p, law_options(Ns[k]));
      if (fk.status == Status::ok) err[k].push_back(rel(fk, ref));
    }
  }
  std::printf(
      "[ RefStronge3D ] %zu rows: %d ok (%d stick, %d reverse, %d slip only, %d near-grazing), %d stalled in "
      "both, %d step_limit in the fast law only, %d other status mismatches; %d rows near the cone boundary; "
      "most reference steps on a row %d\n",
      rows.size(), ok, stick, reverse, slip_only, grazing, stalled, fast_limited, status_mismatch, boundary, max_steps);
  for (int k = 0; k < 3; ++k) {
    const Quantiles q = quantiles(err[k]);
    std::printf("[ RefStronge3D ] fast N = %4d vs reference (%zu rows): rel |dP| median %.2e p99 %.2e max %.2e\n", Ns[k], q.n,
                q.median, q.p99, q.max);
    const std::string key = "fast_N" + std::to_string(Ns[k]);
    ::testing::Test::RecordProperty(key + "_median", std::to_string(q.median));
    ::testing::Test::RecordProperty(key + "_p99", std::to_string(q.p99));
    ::testing::Test::RecordProperty(key + "_max", std::to_string(q.max));
  }
  EXPECT_GE(ok, 1000);
  EXPECT_GE(stick, 200);
  EXPECT_GE(reverse, 50);
  EXPECT_GE(slip_only, 200);
  EXPECT_GE(grazing, 80);
  EXPECT_GE(boundary, 80);
  EXPECT_LE(fast_limited, 10);
  EXPECT_LE(max_steps, 5000);  // the stiff approach near the cone boundary is closed along its ray
}

// Stalled rows (v_n back to 0 in restitution before the energy target) stall in both paths.
TEST(RefStronge3D, StalledRowsStallInBoth) {
  ri::Rng rng(7104);
  int stalled = 0, scanned = 0;
  for (; scanned < 60000 && stalled < 4; ++scanned) {
    const Problem p = ri::random_contact_problem(rng, {1.5, 3.0}, {0.5, 1.0});
    const Result<double> f = impact::StrongeLaw::eval<double>(p);
    if (f.status != Status::stalled) continue;
    ++stalled;
    EXPECT_EQ(impact::ref::stronge(p).status, Status::stalled) << describe(p);
  }
  std::printf("[ RefStronge3D ] %d stalled rows in %d scanned, all stalled in the reference\n", stalled, scanned);
  EXPECT_GE(stalled, 3);
}

// (3) mu = 0 is Newton's impulse; energy never increases.
TEST(RefStronge, FrictionlessIsNewton) {
  ri::Rng rng(7105);
  for (int i = 0; i < 1000; ++i) {
    Problem p =
        i % 2 ? ri::random_contact_problem(rng, {0.0, 0.0}, {0.0, 1.0}) : ri::random_planar_problem(rng, {0.0, 0.0}, {0.0, 1.0});
    if (i % 7 == 0) p.e = (i % 14 == 0) ? 0.0 : 1.0;
    const Vector3d n = to_e(p.n).normalized(), v0 = to_e(p.v0);
    const double pc = -v0.dot(n) / n.dot(W_of(p) * n);
    const Vector3d PN = (1.0 + p.e) * pc * n;
    for (int law = 0; law < 2; ++law) {
      const Result<double> r = law ? impact::ref::morgan(p) : impact::ref::stronge(p);
      ASSERT_EQ(r.status, Status::ok) << describe(p);
      EXPECT_LE((to_e(r.P) - PN).norm(), 1e-12 * PN.norm()) << describe(p);
      EXPECT_NEAR(r.In_c, pc, 1e-12 * pc) << describe(p);
      EXPECT_NEAR(to_e(r.vf).dot(n), -p.e * v0.dot(n), 1e-12 * v0.norm()) << describe(p);
    }
  }
}

TEST(RefStronge, EnergyNeverIncreases) {
  ri::Rng rng(7106);
  double worst = -1e300;
  int ok = 0;
  const std::vector<Row> rows = rows_3d(rng, 2000);
  for (size_t i = 0; i < rows.size(); ++i) {
    Problem p = rows[i].p;
    if (i % 10 == 0) p.e = 1.0;
    const Result<double> r = impact::ref::stronge(p);
    if (r.status != Status::ok) {
      EXPECT_EQ(r.status, Status::stalled) << describe(p);
      continue;
    }
    ++ok;
    const double K0 = kinetic_energy(p);
    const Vector3d vf = to_e(r.vf);
    worst = std::max(worst, r.dE / K0);
    EXPECT_LE(r.dE, 1e-12 * K0) << describe(p);
    EXPECT_NEAR(r.dE, 0.5 * vf.dot(W_of(p).ldlt().solve(vf)) - K0, 1e-10 * K0) << describe(p);
    // outcome in the friction cone, separating, compressive
    const Vector3d P = to_e(r.P), n = to_e(p.n).normalized();
    EXPECT_GE(vf.dot(n), -1e-12 * to_e(p.v0).norm()) << describe(p);
    EXPECT_LE((P - P.dot(n) * n).norm(), p.mu * P.dot(n) * (1 + 1e-12) + 1e-15 * P.norm()) << describe(p);
  }
  std::printf("[ RefStronge ] %d ok rows, max dE/K0 %.3g\n", ok, worst);
  EXPECT_GE(ok, 1900);
}

// (4) Hand-worked values (tests/support/planar_cases.hpp, as in tests/physics/test_morgan.cpp) and a
// 3D closed form.
namespace {
Problem embed_planar(const Matrix3d& R, const Matrix2d& B, double wss, double vn, double vt, double mu, double e) {
  Matrix3d Wl = Matrix3d::Zero();
  Wl.topLeftCorner<2, 2>() = B;
  Wl(2, 2) = wss;
  return make(R * Wl * R.transpose(), R.col(0), vn * R.col(0) + vt * R.col(1), mu, e);
}
void expect_both(const Problem& p, const Vector3d& Pexp, double Inc, const std::string& modes) {
  for (int law = 0; law < 2; ++law) {
    const Result<double> r = law ? impact::ref::morgan(p) : impact::ref::stronge(p);
    ASSERT_EQ(r.status, Status::ok) << describe(p);
    EXPECT_LE((to_e(r.P) - Pexp).norm(), 1e-8 * Pexp.norm()) << (law ? "morgan " : "stronge ") << describe(p);
    EXPECT_NEAR(r.In_c, Inc, 1e-8 * Inc) << describe(p);
    EXPECT_EQ(modes_str(r.modes), modes) << describe(p);
  }
}
}  // namespace

TEST(RefStronge, HandWorkedPlanarValues) {
  ri::Rng rng(7107);
  const auto expect_hand_worked = [&rng](const impact_test::HandWorked& h) {
    const Matrix3d R = ri::random_rotation(rng).toRotationMatrix();
    const Problem p = embed_planar(R, h.B, h.wss, h.vn, h.vt, h.mu, h.e);
    expect_both(p, h.Pn * R.col(0) + h.Pt * R.col(1), h.In_c, h.modes);
  };
  for (const impact_test::ParticleCase& k : impact_test::kParticleCases) expect_hand_worked(impact_test::particle_hand_worked(k));
  expect_hand_worked(impact_test::reversal_hand_worked());
  expect_hand_worked(impact_test::jam_hand_worked());
}

// 3D closed form: W does not couple n to the tangent plane (b = 0) but D is anisotropic, so the
// slip direction turns all the way to v_t = 0 (a genuinely 3D slip), v_n = v_n0 + a p whatever the
// friction, and the slip stops and sticks with tau = 0: P = (1 + e) p_c n - T D^-1 v0_t once the
// slip ends before the impact (Lyapunov bound p_stop <= sqrt(v_t^T D^-1 v_t) / (mu sqrt(lmin D))).
TEST(RefStronge, HandWorked3DDecoupledSlipToStick) {
  ri::Rng rng(7108);
  int checked = 0;
  double worst = 0;
  for (int i = 0; i < 200; ++i) {
    const Matrix3d R = ri::random_rotation(rng).toRotationMatrix();
    const double a = ri::log_uniform(rng, 0.1, 10.0);
    const double l1 = ri::log_uniform(rng, 0.1, 10.0), l2 = l1 * ri::uniform(rng, 1.5, 10.0);
    const double phi = ri::uniform(rng, 0.0, M_PI);
    const Matrix2d Rp = Eigen::Rotation2Dd(phi).toRotationMatrix();
    const Matrix2d D = Rp * Vector2d(l1, l2).asDiagonal() * Rp.transpose();
    Matrix3d Wl = Matrix3d::Zero();
    Wl(0, 0) = a;
    Wl.bottomRightCorner<2, 2>() = D;
    const double mu = ri::uniform(rng, 0.1, 1.5), e = ri::uniform(rng, 0.0, 1.0);
    const double vn = -ri::uniform(rng, 0.5, 2.0), pc = -vn / a;
    const double ang = ri::uniform(rng, 0.0, 2.0 * M_PI);
    Vector2d vt(std::cos(ang), std::sin(ang));
    // magnitude: slip bound at most 0.9 of the impact
    const double bound_unit = std::sqrt(vt.dot(D.ldlt().solve(vt))) / (mu * std::sqrt(l1));
    vt *= ri::uniform(rng, 0.05, 0.9) * (1.0 + e) * pc / bound_unit;
    const Problem p = make(R * Wl * R.transpose(), R.col(0), vn * R.col(0) + vt(0) * R.col(1) + vt(1) * R.col(2), mu, e);
    const Vector2d qt = -D.ldlt().solve(vt);
    const Vector3d Pexp = (1.0 + e) * pc * R.col(0) + qt(0) * R.col(1) + qt(1) * R.col(2);
    const Result<double> r = impact::ref::stronge(p);
    ASSERT_EQ(r.status, Status::ok) << describe(p);
    const double err = (to_e(r.P) - Pexp).norm() / Pexp.norm();
    worst = std::max(worst, err);
    EXPECT_LE(err, 1e-8) << describe(p);
    EXPECT_NEAR(r.In_c, pc, 1e-10 * pc) << describe(p);
    EXPECT_EQ(modes_str(r.modes), "slip>stick") << describe(p);
    ++checked;
  }
  std::printf("[ RefStronge ] 3D decoupled slip-to-stick closed form: %d rows, max rel |dP| %.3g\n", checked, worst);
}

// (5) Scale invariance: v0 -> c v0 scales P by c.
TEST(RefStronge, ScaleInvariance) {
  ri::Rng rng(7109);
  const double cs[] = {1e-3, 0.37, 2.9, 1e3};
  const std::vector<Row> rows = rows_3d(rng, 400);
  double worst = 0;
  int n = 0;
  for (const Row& row : rows) {
    const Result<double> r = impact::ref::stronge(row.p);
    if (r.status != Status::ok) continue;
    for (double c : cs) {
      Problem q = row.p;
      q.v0 = to_v(c * to_e(row.p.v0));
      const Result<double> s = impact::ref::stronge(q);
      ASSERT_EQ(s.status, Status::ok) << c << " " << describe(row.p);
      const double e = (to_e(s.P) - c * to_e(r.P)).norm() / (c * to_e(r.P).norm());
      worst = std::max(worst, e);
      ++n;
      EXPECT_LE(e, 1e-12) << "c = " << c << " " << describe(row.p);
      EXPECT_EQ(modes_str(s.modes), modes_str(r.modes)) << describe(row.p);
    }
  }
  std::printf("[ RefStronge ] scale invariance: %d scaled rows, max rel deviation %.3g\n", n, worst);
  EXPECT_GE(n, 1400);
}

// Invalid rows get validate()'s status; a runaway instance ends with a status, within the bound.
TEST(RefStronge, InvalidInputAndBoundedRunaway) {
  ri::Rng rng(7110);
  const Problem good = ri::random_contact_problem(rng, {0.1, 1.5}, {0.0, 1.0});
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // good with one input spoiled by `spoil`: status s from both references
  auto expect = [&](auto spoil, Status s) {
    Problem p = good;
    spoil(p);
    EXPECT_EQ(impact::ref::stronge(p).status, s);
    EXPECT_EQ(impact::ref::morgan(p).status, s);
  };
  expect([&](Problem& p) { p.W.xy = nan; }, Status::non_finite);
  expect([&](Problem& p) { p.n = impact::Vec3<double>{0, 0, 0}; }, Status::bad_normal);
  expect([&](Problem& p) { p.mu = -0.1; }, Status::param_out_of_range);
  expect([&](Problem& p) { p.e = 1.5; }, Status::param_out_of_range);
  expect([&](Problem& p) { p.v0 = to_v(-to_e(good.v0)); }, Status::no_approach);
  expect([&](Problem& p) { p.W = impact::Sym3<double>{1, 1, 0, 1, 0, 1}; }, Status::W_not_spd);

  // tiny step budget: step_limit, never a hang
  impact::ref::Options tight;
  tight.max_steps = 20;
  int limited = 0;
  for (int i = 0; i < 200; ++i) {
    Problem q = ri::random_contact_problem(rng, {0.1, 1.5}, {0.0, 1.0});
    const Result<double> r = impact::ref::stronge(q, tight);
    EXPECT_TRUE(r.status == Status::ok || r.status == Status::step_limit || r.status == Status::stalled);
    if (r.status == Status::step_limit) ++limited;
    EXPECT_LE(r.steps, 20);
  }
  EXPECT_GE(limited, 50);
  // extreme grazing (|v_n| = 1e-8 |v_t|): finite result or a status
  int graze_ok = 0;
  for (int i = 0; i < 50; ++i) {
    Problem q = ri::random_contact_problem(rng, {0.1, 1.5}, {0.0, 1.0});
    const Frame f = frame_of(q);
    const Vector3d v0 = to_e(q.v0), vt = v0 - v0.dot(f.n) * f.n;
    q.v0 = to_v(-1e-8 * vt.norm() * f.n + vt);
    const Result<double> r = impact::ref::stronge(q);
    EXPECT_TRUE(r.status == Status::ok || r.status == Status::step_limit || r.status == Status::stalled)
        << impact::status_name(r.status);
    if (r.status == Status::ok) {
      ++graze_ok;
      EXPECT_TRUE(std::isfinite(r.dE) && r.dE <= 1e-12 * kinetic_energy(q));
    }
  }
  std::printf("[ RefStronge ] tight budget: %d step_limit of 200; extreme grazing: %d of 50 ok\n", limited, graze_ok);
}

// Cost of the reference per instance (single thread; process CPU time, which a loaded machine
// inflates less than wall time, and wall time).
TEST(RefStronge, CostPerInstance) {
  ri::Rng rng(7111);
  const std::vector<Row> rows = rows_3d(rng, 2000);
  std::vector<Problem> planar;
  for (int i = 0; i < 2000; ++i) planar.push_back(ri::random_planar_problem(rng, {0.0, 1.5}, {0.0, 1.0}));
  double sink = 0;
  long steps_sum = 0;
  const std::clock_t c0 = std::clock();
  const auto t0 = std::chrono::steady_clock::now();
  for (const Row& row : rows) {
    const Result<double> r = impact::ref::stronge(row.p);
    sink += r.P.x;
    steps_sum += r.steps;
  }
  const std::clock_t c1 = std::clock();
  const auto t1 = std::chrono::steady_clock::now();
  for (const Problem& p : planar) sink += impact::ref::morgan(p).P.x;
  const std::clock_t c2 = std::clock();
  const auto t2 = std::chrono::steady_clock::now();
  const double cpu3 = 1e6 * double(c1 - c0) / CLOCKS_PER_SEC / rows.size();
  const double cpup = 1e6 * double(c2 - c1) / CLOCKS_PER_SEC / planar.size();
  const double wall3 = std::chrono::duration<double, std::micro>(t1 - t0).count() / rows.size();
  const double wallp = std::chrono::duration<double, std::micro>(t2 - t1).count() / planar.size();
  std::printf(
      "[ RefStronge ] cost: stronge (3D mix, %.1f accepted steps/row) %.1f us/instance CPU (%.0f rows/s), %.1f us "
      "wall; morgan (planar) %.1f us/instance CPU (%.0f rows/s), %.1f us wall\n",
      double(steps_sum) / rows.size(), cpu3, 1e6 / cpu3, wall3, cpup, 1e6 / cpup, wallp);
  ::testing::Test::RecordProperty("stronge_us_per_instance_cpu", std::to_string(cpu3));
  ::testing::Test::RecordProperty("morgan_us_per_instance_cpu", std::to_string(cpup));
  EXPECT_TRUE(std::isfinite(sink));
}
