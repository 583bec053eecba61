// Chatterjee-Ruina, Aghili and Newton: published properties, invariants, cross-law limits.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>

#include "systems/bodies.hpp"
#include "impact/laws/aghili.hpp"
#include "impact/laws/chatterjee_ruina.hpp"
#include "impact/laws/morgan.hpp"
#include "impact/laws/newton.hpp"
#include "permissible.hpp"
#include "random_instances.hpp"

using namespace impact;
using impact::systems::to_eigen;
using impact::systems::to_sym3;
using impact::systems::to_vec3;
namespace ri = impact::randinst;

namespace {

double K0(const ContactProblem<double>& p) {
  const Eigen::Vector3d v = to_eigen(p.v0);
  return 0.5 * v.dot(to_eigen(p.W).ldlt().solve(v));
}

double rel(const Vec3<double>& a, const Vec3<double>& b, double scale) { return norm(a - b) / scale; }

// Independent transcription of Chatterjee & Ruina's MATLAB (appendix A.2) with Eigen: M = W^-1
// formed explicitly by LDLT, as the MATLAB forms inv(M).
Eigen::Vector3d collrule(const Eigen::Matrix3d& W, const Eigen::Vector3d& Vi, const Eigen::Vector3d& n, double mu, double e,
                         double e_t) {
  const Eigen::Matrix3d M = W.ldlt().solve(Eigen::Matrix3d::Identity());
  const Eigen::Vector3d P_I = -n * n.dot(Vi) / (n.dot(W * n));
  const Eigen::Vector3d P_II = -M * Vi;
  const Eigen::Vector3d P_hat = (1 + e) * P_I + (1 + e_t) * (P_II - P_I);
  double kappa;
  if ((P_hat - n * n.dot(P_hat)).norm() > mu * n.dot(P_hat))
    kappa = mu * (1 + e) * n.dot(P_I) / ((P_II - n * n.dot(P_II)).norm() - mu * n.dot(P_II - P_I));
  else kappa = 1 + e_t;
  return (1 + e) * P_I + kappa * (P_II - P_I);
}

// Random orthonormal frame (n, t1, t2) as matrix columns.
Eigen::Matrix3d random_frame(ri::Rng& rng) { return ri::random_rotation(rng).toRotationMatrix(); }

}  // namespace

// ---------------------------------------------------------------------------------------------
TEST(Permissible, DetectsEachViolation) {
  // ball on table, v0 = (1, 0, -5)
  ContactProblem<double> p{{3.5, 0, 0, 3.5, 0, 1}, {0, 0, 1}, {1, 0, -5}, 0.4, 0.5, 0, 1};
  ASSERT_EQ(validate(p, ParamUse{}), Status::ok);
  EXPECT_TRUE(check_permissible(p, Vec3<double>{0, 0, 7.5}, 1e-12).inside());
  EXPECT_EQ(check_permissible(p, Vec3<double>{0, 0, 12.0}, 1e-12).violated, unsigned(kEnergyViolated));
  EXPECT_EQ(check_permissible(p, Vec3<double>{0, 0, 4.0}, 1e-12).violated, unsigned(kPenetration));
  EXPECT_EQ(check_permissible(p, Vec3<double>{-2.6, 0, 6.0}, 1e-12).violated, unsigned(kOutsideCone));
  EXPECT_TRUE(check_permissible(p, Vec3<double>{0, 0, -1.0}, 1e-12).violated & kTensileImpulse);
}

TEST(ChatterjeeRuina, OutcomeIsPermissibleOnRandomRealizableInstances) {
  ri::Rng rng(20260101);
  int slip = 0, stick = 0;
  double worst = 0;
  const int N = 20000;
  for (int k = 0; k < N; ++k) {
    ContactProblem<double> p = ri::random_contact_problem(rng, {0.0, 2.0}, {0.0, 1.0}, {-1.0, 1.0});
    const Result<double> r = ChatterjeeRuinaLaw::eval(p);
    ASSERT_EQ(r.status, Status::ok) << "instance " << k;
    ASSERT_EQ(validate(p, ChatterjeeRuinaLaw::use()), Status::ok);
    const Permissible<double> q = check_permissible(p, r.P, 1e-10);
    ASSERT_TRUE(q.inside()) << "instance " << k << " violated bits " << q.violated << " energy " << q.energy_margin << " sep "
                            << q.separation << " cone " << q.cone_margin;
    worst = std::min({worst, q.energy_margin, q.separation, q.cone_margin});
    (r.modes.at(0) == Mode::slip ? slip : stick)++;
  }
  // both branches of eqs. (12)-(14) are exercised
  EXPECT_GT(slip, N / 10);
  EXPECT_GT(stick, N / 10);
  RecordProperty("worst_margin", std::to_string(worst));
}

TEST(ChatterjeeRuina, MatchesAppendixA2Matlab) {
  ri::Rng rng(11);
  for (int k = 0; k < 5000; ++k) {
    ContactProblem<double> p = ri::random_contact_problem(rng, {0.0, 2.0}, {0.0, 1.0}, {-1.0, 1.0});
    const Result<double> r = ChatterjeeRuinaLaw::eval(p);
    ASSERT_EQ(r.status, Status::ok);
    const Eigen::Vector3d P = collrule(to_eigen(p.W), to_eigen(p.v0), to_eigen(p.n).normalized(), p.mu, p.e, p.e_t);
    EXPECT_LT((to_eigen(r.P) - P).norm(), 1e-10 * P.norm()) << "instance " << k;
  }
}

TEST(ChatterjeeRuina, EqualsBilinearLawWhenWDiagonalInContactFrame) {
  // Eq. (9): P_n = -(1+e) M11 V_in, P_t = -(V_it/|V_it|) min(mu P_n, (1+e_t) M22 |V_it|), with the
  // 2-direction opposing the tangential velocity, which is an eigenvector of M.
  ri::Rng rng(5);
  int clipped = 0, free_ = 0;
  for (int k = 0; k < 5000; ++k) {
    const Eigen::Matrix3d F = random_frame(rng);  // columns n, t1, t2
    const double wn = ri::log_uniform(rng, 0.05, 20), w1 = ri::log_uniform(rng, 0.05, 20);
    const double w2 = (k % 2) ? w1 : ri::log_uniform(rng, 0.05, 20);  // sphere-like or not
    const Eigen::Matrix3d W = F * Eigen::Vector3d(wn, w1, w2).asDiagonal() * F.transpose();
    const double vin = -ri::uniform(rng, 0.1, 5);
    // tangential velocity along the principal direction t1 (any direction when w1 == w2)
    Eigen::Vector3d vt = ri::uniform(rng, -5, 5) * F.col(1);
    if (k % 2) vt += ri::uniform(rng, -5, 5) * F.col(2);
    const Eigen::Vector3d v0 = vin * F.col(0) + vt;
    const double mu = ri::uniform(rng, 0, 1.5), e = ri::uniform(rng, 0, 1), et = ri::uniform(rng, -1, 1);
    ContactProblem<double> p{to_sym3(W), to_vec3(Eigen::Vector3d(F.col(0))), to_vec3(v0), mu, e, et, 1};
    const Result<double> r = ChatterjeeRuinaLaw::eval(p);
    ASSERT_EQ(r.status, Status::ok);
    const double M11 = 1 / wn, M22 = 1 / w1;
    const double Pn = -(1 + e) * M11 * vin;
    const double cap = (1 + et) * M22 * vt.norm();
    (mu * Pn < cap ? clipped : free_)++;
    const Eigen::Vector3d Pt =
        vt.norm() > 0 ? Eigen::Vector3d(-vt.normalized() * std::min(mu * Pn, cap)) : Eigen::Vector3d::Zero();
    const Eigen::Vector3d Pbil = Pn * F.col(0) + Pt;
    EXPECT_LT((to_eigen(r.P) - Pbil).norm(), 1e-12 * Pbil.norm()) << "instance " << k;
  }
  EXPECT_GT(clipped, 500);
  EXPECT_GT(free_, 500);
}

TEST(AllLaws, CoincideWhenFrictionless) {
  // With mu = 0 every law reduces to Newton's P = (1+e) P_I (Chatterjee-Ruina section 4.2.5);
  // for the energetic laws the energetic and kinematic coefficients coincide without friction.
  ri::Rng rng(77);
  for (int k = 0; k < 10000; ++k) {
    ContactProblem<double> p = ri::random_contact_problem(rng, {0.0, 0.0}, {0.0, 1.0}, {-1.0, 1.0});
    const Result<double> rn = NewtonLaw::eval(p);
    const Result<double> rc = ChatterjeeRuinaLaw::eval(p);
    const Result<double> ra = AghiliLaw::eval(p);
    const Result<double> rm = MorganLaw::eval(p);
    ASSERT_EQ(rn.status, Status::ok);
    ASSERT_EQ(rc.status, Status::ok);
    ASSERT_EQ(ra.status, Status::ok);
    ASSERT_EQ(rm.status, Status::ok);
    const double s = norm(rn.P);
    const Vec3<double> nn = (1.0 / norm(p.n)) * p.n;
    const Vec3<double> expect = ((1 + p.e) * -dot(p.v0, nn) / quad(p.W, nn)) * nn;
    EXPECT_LT(rel(rn.P, expect, s), 1e-14);
    EXPECT_LT(rel(rc.P, rn.P, s), 1e-12) << k;
    EXPECT_LT(rel(ra.P, rn.P, s), 1e-12) << k;
    EXPECT_LT(rel(rm.P, rn.P, s), 1e-12) << k;
    // and the normal restitution is exactly e
    EXPECT_NEAR(dot(rc.vf, nn), -p.e * dot(p.v0, nn), 1e-12 * norm(p.v0));
  }
}

// ---------------------------------------------------------------------------------------------
TEST(Aghili, DiscriminatorSignIsCriticalCoF) {
  // sigma >= 0 exactly when mu >= mu_cr (eqs. 21-24), on random instances; sticking also needs a
  // compressive sticking impulse (4d), otherwise mu_cr is +inf.
  ri::Rng rng(3);
  int stick = 0, slip = 0;
  for (int k = 0; k < 20000; ++k) {
    ContactProblem<double> p = ri::random_contact_problem(rng, {0.0, 2.0}, {0.0, 1.0}, {-1.0, 1.0});
    ASSERT_EQ(validate(p, AghiliLaw::use()), Status::ok);
    const AghiliBounds<double> b = aghili_bounds(p, cholesky(p.W));
    if (b.i_n > 0) {
      EXPECT_EQ(b.sigma >= 0, p.mu >= b.mu_cr) << k << " sigma " << b.sigma << " mu " << p.mu << " mu_cr " << b.mu_cr;
    } else {
      EXPECT_TRUE(std::isinf(b.mu_cr));
    }
    // and sigma at mu = mu_cr is zero (the root of eq. 21)
    if (b.i_n > 0) {
      ContactProblem<double> q = p;
      q.mu = b.mu_cr;
      const AghiliBounds<double> bq = aghili_bounds(q, cholesky(q.W));
      EXPECT_NEAR(bq.sigma, 0.0, 1e-12 * b.i_n * b.i_n * (1 + b.mu_cr * b.mu_cr));
    }
    const Result<double> r = AghiliLaw::eval(p);
    if (r.status != Status::ok) continue;
    const bool sticks = r.modes.at(0) == Mode::stick;
    EXPECT_EQ(sticks, b.sigma >= 0 && b.i_n >= 0);
    (sticks ? stick : slip)++;
  }
  EXPECT_GT(stick, 2000);
  EXPECT_GT(slip, 2000);
}

TEST(Aghili, CriticalCoFIsPaperFormulaWhenGCommutesWithE) {
  // eq. (23): mu_cr = a/(e+1), a = |xi_t|/|xi_n|, xi = G v-, for E = diag(e, 0, 0); exact when W
  // is diagonal in the contact frame.
  ri::Rng rng(8);
  for (int k = 0; k < 2000; ++k) {
    const Eigen::Matrix3d F = random_frame(rng);
    const Eigen::Vector3d w(ri::log_uniform(rng, 0.05, 20), ri::log_uniform(rng, 0.05, 20), ri::log_uniform(rng, 0.05, 20));
    const Eigen::Matrix3d W = F * w.asDiagonal() * F.transpose();
    const Eigen::Vector3d v0 = -ri::uniform(rng, 0.1, 5) * F.col(0) + ri::normal_vec3(rng, 2.0);
    if (v0.dot(F.col(0)) >= 0) continue;
    ContactProblem<double> p{to_sym3(W), to_vec3(Eigen::Vector3d(F.col(0))), to_vec3(v0), 0.5, ri::uniform(rng, 0, 1), 0.0, 1};
    const AghiliBounds<double> b = aghili_bounds(p, cholesky(p.W));
    const Eigen::Vector3d xi = W.ldlt().solve(v0);
    const Eigen::Vector3d n = F.col(0);
    const double a = (xi - n * n.dot(xi)).norm() / std::fabs(n.dot(xi));
    EXPECT_NEAR(b.mu_cr, a / (p.e + 1), 1e-12 * (1 + b.mu_cr));
  }
}

namespace {
struct RandomMechanism {
  systems::Mechanism m;
  Eigen::Vector3d normal;
};
RandomMechanism random_mechanism(ri::Rng& rng) {
  const int n = 3 + static_cast<int>(ri::uniform(rng, 0, 4.999));
  Eigen::MatrixXd A(n, n), J(3, n);
  for (int i = 0; i < n * n; ++i) A.data()[i] = ri::normal(rng);
  for (int i = 0; i < 3 * n; ++i) J.data()[i] = ri::normal(rng);
  RandomMechanism r;
  r.m.M = A * A.transpose() + 0.2 * Eigen::MatrixXd::Identity(n, n);
  r.m.J = J;
  r.m.qdot = Eigen::VectorXd(n);
  for (int i = 0; i < n; ++i) r.m.qdot(i) = ri::normal(rng);
  r.normal = ri::unit_vec3(rng);
  if ((J * r.m.qdot).dot(r.normal) > 0) r.normal = -r.normal;
  return r;
}
}  // namespace

TEST(Aghili, EnergyBalanceInGeneralizedCoordinates) {
  // W_loss = v-bar . i (eq. 26) equals K+ - K- (eq. 34) computed from qdot- and qdot+ = qdot- +
  // M^-1 A^T i; and it equals eq. (28) in stick, eq. (36) in slip.
  ri::Rng rng(99);
  int stick = 0, slip = 0;
  for (int k = 0; k < 5000; ++k) {
    const RandomMechanism rm = random_mechanism(rng);
    const systems::ContactSpace cs = systems::contact_space(rm.m, rm.normal);
    const double mu = ri::uniform(rng, 0, 1.5), e = ri::uniform(rng, 0, 1), et = ri::uniform(rng, -1, 1);
    ContactProblem<double> p = systems::make_problem(cs, mu, e, et, 1);
    const Result<double> r = AghiliLaw::eval(p);
    if (r.status != Status::ok) continue;
    const Eigen::VectorXd qp = systems::apply_impulse(rm.m, to_eigen(r.P));
    const double Km = systems::kinetic_energy(rm.m, rm.m.qdot), Kp = systems::kinetic_energy(rm.m, qp);
    const Eigen::Vector3d vm = cs.v0, vp = rm.m.J * qp;
    const double Wloss = 0.5 * (vm + vp).dot(to_eigen(r.P));
    // tolerance relative to the energies in play: outside the admissible region a sticking
    // impact with e_t != 0 can multiply the kinetic energy (Kp >> Km)
    const double tol = 1e-12 * (Km + Kp) * 100;
    EXPECT_NEAR(Wloss, Kp - Km, tol) << k;
    EXPECT_NEAR(r.dE, Kp - Km, tol) << k;
    const Eigen::Vector3d n = cs.n;
    const Eigen::Matrix3d G = cs.W.ldlt().solve(Eigen::Matrix3d::Identity());
    const Eigen::Matrix3d E = et * Eigen::Matrix3d::Identity() + (e - et) * n * n.transpose();
    if (r.modes.at(0) == Mode::stick) {
      ++stick;
      const Eigen::Matrix3d I = Eigen::Matrix3d::Identity();
      const double w28 = -0.5 * vm.dot((I - E) * G * (I + E) * vm);
      EXPECT_NEAR(Wloss, w28, tol) << k;
    } else {
      ++slip;
      const Eigen::Vector3d vbar = 0.5 * (vm + vp);
      const Eigen::Vector3d vbt = vbar - n * n.dot(vbar);
      const Eigen::Vector3d u = vbt.normalized();
      const double g = 1.0 / (n.dot(cs.W * n) - mu * n.dot(cs.W * u));
      const double vn = vm.dot(n);
      const double w36 = -0.5 * (1 - e * e) * g * vn * vn + (1 + e) * g * mu * vbt.norm() * vn;
      EXPECT_NEAR(Wloss, w36, tol) << k;
      // slip impulse on the cone, opposing the average tangential velocity (eqs. 18c, 16)
      const Eigen::Vector3d P = to_eigen(r.P);
      const Eigen::Vector3d Pt = P - n * n.dot(P);
      EXPECT_NEAR(Pt.norm(), mu * n.dot(P), 1e-12 * P.norm());
      if (mu > 0) { EXPECT_LT((Pt.normalized() + u).norm(), 1e-9) << k; }
      // normal restitution is kinematic
      EXPECT_NEAR(vp.dot(n), -e * vn, 1e-10 * vm.norm());
    }
  }
  EXPECT_GT(stick, 500);
  EXPECT_GT(slip, 500);
}

TEST(Aghili, DissipativeInsideAdmissibleRegion) {
  // eq. (41) with the paper's restitution matrix E = diag(e, 0, 0): inside the region the impact
  // never creates energy; outside it, it can (Kane's paradox), so the bound is not vacuous.
  ri::Rng rng(41);
  int inside = 0, outside_gain = 0, inside_stick = 0, inside_slip = 0, inside_no_solution = 0;
  for (int k = 0; k < 20000; ++k) {
    ContactProblem<double> p = ri::random_contact_problem(rng, {0.0, 2.0}, {0.0, 1.0}, {0.0, 0.0});
    const Result<double> r = AghiliLaw::eval(p);
    ASSERT_EQ(validate(p, AghiliLaw::use()), Status::ok);
    const AghiliBounds<double> b = aghili_bounds(p, cholesky(p.W));
    const bool adm = aghili_admissible(b, p.mu, p.e);
    if (adm) {
      if (r.status == Status::inconsistent) {
        // Aghili's slip model with the average-velocity direction (eq. 16) has no self-consistent
        // direction here: the average tangential velocity winds past zero (see aghili.hpp).
        ++inside_no_solution;
        continue;
      }
      ASSERT_EQ(r.status, Status::ok) << k;
      ++inside;
      (r.modes.at(0) == Mode::stick ? inside_stick : inside_slip)++;
      EXPECT_LE(r.dE, 1e-12 * K0(p)) << k << " mu " << p.mu << " e " << p.e;
    } else if (r.status == Status::ok && r.dE > 1e-9 * K0(p)) {
      ++outside_gain;
    }
  }
  EXPECT_GT(inside_stick, 1000);
  EXPECT_GT(inside_slip, 1000);
  EXPECT_GT(outside_gain, 10);
  // rare, and reported as a per-row status rather than a wrong number
  EXPECT_LT(inside_no_solution, inside / 100);
  std::printf("aghili (41): inside %d (stick %d, slip %d, no slip solution %d), outside with energy gain %d\n", inside,
              inside_stick, inside_slip, inside_no_solution, outside_gain);
  RecordProperty("inside", inside);
  RecordProperty("outside_energy_gain", outside_gain);
}

TEST(Aghili, BoundsClosedForms) {
  // e*_global (32) with e_t = 0: G - e^2 G_nn n n^T is PSD iff e <= 1/sqrt(G_nn W_nn);
  // mu* (38) = W_nn / |W_nt|; e* (30) is a root of v^T(G - EGE)v.
  ri::Rng rng(12);
  for (int k = 0; k < 3000; ++k) {
    ContactProblem<double> p = ri::random_contact_problem(rng, {0.0, 2.0}, {0.0, 1.0}, {0.0, 0.0});
    ASSERT_EQ(validate(p, AghiliLaw::use()), Status::ok);
    const AghiliBounds<double> b = aghili_bounds(p, cholesky(p.W));
    const Eigen::Matrix3d W = to_eigen(p.W);
    const Eigen::Vector3d n = to_eigen(p.n), v = to_eigen(p.v0);
    const Eigen::Matrix3d G = W.ldlt().solve(Eigen::Matrix3d::Identity());
    const double Gnn = n.dot(G * n), Wnn = n.dot(W * n);
    EXPECT_NEAR(b.e_star_global, 1 / std::sqrt(Gnn * Wnn), 1e-9);
    EXPECT_NEAR(b.mu_star, Wnn / (W * n - n * Wnn).norm(), 1e-12 * b.mu_star);
    const Eigen::Matrix3d E = b.e_star * n * n.transpose();
    EXPECT_NEAR(v.dot((G - E * G * E) * v), 0.0, 1e-10 * v.dot(G * v));
    EXPECT_GE(b.e_star, b.e_star_global - 1e-12);  // (32) is the conservative bound
  }
}
