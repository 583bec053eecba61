// Physics of the host-side mapping between bodies / mechanisms and the contact space
// (systems/bodies.hpp), and the random-instance generators of tests/support/random_instances.hpp.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>

#include <Eigen/Dense>

#include "systems/bodies.hpp"
#include "random_instances.hpp"

namespace {

using namespace impact;
using namespace impact::systems;
namespace ri = impact::randinst;

constexpr double kPi = 3.14159265358979323846;

double max_abs(const Eigen::MatrixXd& A) { return A.cwiseAbs().maxCoeff(); }

double min_eigenvalue(const Eigen::Matrix3d& W) {
  Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> es(W, Eigen::EigenvaluesOnly);
  return es.eigenvalues().minCoeff();
}

// Angular momentum about the world origin of a free body moving with (V, w):
// I_world w + com x m V (kg m^2/s).
Eigen::Vector3d angular_momentum(const systems::RigidBody& b, const Eigen::Vector3d& V, const Eigen::Vector3d& w) {
  return b.inertia_world() * w + b.com.cross(b.mass * V);
}
// Sum of the magnitudes of the terms above: the scale for round-off in a sum of momenta.
double angular_momentum_scale(const systems::RigidBody& b, const Eigen::Vector3d& V, const Eigen::Vector3d& w) {
  return (b.inertia_world() * w).norm() + b.com.norm() * b.mass * V.norm();
}

// Expects fn() to throw std::invalid_argument whose message contains `needle`.
void expect_invalid(const std::function<void()>& fn, const std::string& needle) {
  try {
    fn();
    ADD_FAILURE() << "no exception; expected std::invalid_argument mentioning '" << needle << "'";
  } catch (const std::invalid_argument& ex) {
    const std::string what = ex.what();
    EXPECT_NE(what.find(needle), std::string::npos) << "message '" << what << "' does not mention '" << needle << "'";
  } catch (...) { ADD_FAILURE() << "threw something other than std::invalid_argument"; }
}

// Jia (2013) eq. (3)-(4) literally, in body frames: S_i = R_i P_i Q_i^-1 P_i R_i^T with
// P_i = [R_i^T r_i]x and Q_i the body-frame inertia (diagonal for the random bodies).
Eigen::Matrix3d jia_S(const systems::RigidBody& b, const Eigen::Vector3d& r_world) {
  const Eigen::Matrix3d R = b.orientation.normalized().toRotationMatrix();
  const Eigen::Vector3d r = R.transpose() * r_world;
  Eigen::Matrix3d P;
  P << 0, -r.z(), r.y(), r.z(), 0, -r.x(), -r.y(), r.x(), 0;
  const Eigen::Matrix3d Qinv = b.inertia_body.diagonal().cwiseInverse().asDiagonal();
  return R * P * Qinv * P * R.transpose();
}

// ---- two rigid bodies --------------------------------------------------------------------------

TEST(BodiesTwoBody, RandomContactsMomentumVelocityEnergy) {
  ri::Rng rng(20130101);
  const int kContacts = 1000;
  for (int i = 0; i < kContacts; ++i) {
    SCOPED_TRACE("contact " + std::to_string(i));
    const bool fixed2 = (i % 2) == 1;
    const systems::TwoBodyContact c = ri::random_two_body_contact(rng, fixed2);
    ASSERT_EQ(c.b2.is_fixed(), fixed2);
    const systems::ContactSpace cs = contact_space(c);
    const Eigen::Matrix3d& W = cs.W;

    // W symmetric and positive definite, bounded below by (1/m1 + 1/m2): S is negative semidefinite.
    ASSERT_LE(max_abs(W - W.transpose()), 1e-12 * max_abs(W));
    Eigen::LDLT<Eigen::Matrix3d> ldlt(W);
    ASSERT_EQ(ldlt.info(), Eigen::Success);
    ASSERT_TRUE(ldlt.isPositive());
    const double inv_m = c.b1.inverse_mass() + c.b2.inverse_mass();
    ASSERT_GT(min_eigenvalue(W), 0.0);
    ASSERT_GE(min_eigenvalue(W), inv_m * (1.0 - 1e-12));

    // W agrees with Jia's eq. (3)-(4) written in body frames.
    Eigen::Matrix3d W_jia = inv_m * Eigen::Matrix3d::Identity() - jia_S(c.b1, c.point - c.b1.com);
    if (!fixed2) W_jia -= jia_S(c.b2, c.point - c.b2.com);
    ASSERT_LE(max_abs(W - W_jia), 1e-12 * max_abs(W));

    // n unit, the instance approaches, and it is a valid contact problem.
    ASSERT_NEAR(cs.n.norm(), 1.0, 1e-15);
    ASSERT_LT(cs.v0.dot(cs.n), 0.0);
    ContactProblem<double> p = make_problem(cs, 0.5, 0.5, 0.0, 1.0);
    ASSERT_EQ(validate(p, ParamUse{true, true, true, false}), Status::ok);

    const double E0 = kinetic_energy(c);
    for (int k = 0; k < 3; ++k) {
      const Eigen::Vector3d P = ri::normal_vec3(rng) * ri::log_uniform(rng, 0.01, 10.0);
      const systems::TwoBodyVelocities after = apply_impulse(c, P);
      const Eigen::Vector3d dV1 = after.V1 - c.b1.V, dV2 = after.V2 - c.b2.V;

      // Linear momentum: body 1 gains P; body 2 gains -P (free) or does not move (fixed).
      ASSERT_LE((c.b1.mass * dV1 - P).norm(), 1e-12 * P.norm());
      if (fixed2) {
        ASSERT_TRUE(after.V2.isZero(0.0));
        ASSERT_TRUE(after.w2.isZero(0.0));
      } else {
        ASSERT_LE((c.b1.mass * dV1 + c.b2.mass * dV2).norm(), 1e-10 * P.norm());
      }

      // Angular momentum about the world origin: conserved for two free bodies; for a fixed
      // body 2 it changes by the moment of P applied at the contact point.
      Eigen::Vector3d L0 = angular_momentum(c.b1, c.b1.V, c.b1.omega);
      Eigen::Vector3d L1 = angular_momentum(c.b1, after.V1, after.w1);
      double scale = angular_momentum_scale(c.b1, c.b1.V, c.b1.omega) + angular_momentum_scale(c.b1, after.V1, after.w1) +
                     c.point.norm() * P.norm();
      Eigen::Vector3d expected_dL = c.point.cross(P);
      if (!fixed2) {
        L0 += angular_momentum(c.b2, c.b2.V, c.b2.omega);
        L1 += angular_momentum(c.b2, after.V2, after.w2);
        scale += angular_momentum_scale(c.b2, c.b2.V, c.b2.omega) + angular_momentum_scale(c.b2, after.V2, after.w2);
        expected_dL.setZero();
      }
      ASSERT_LE((L1 - L0 - expected_dL).norm(), 1e-10 * scale);

      // Contact velocity recomputed from the body velocities equals v0 + W P.
      const Eigen::Vector3d vf = cs.v0 + W * P;
      const Eigen::Vector3d vf_bodies = contact_velocity(c, after);
      ASSERT_LE((vf_bodies - vf).norm(), 1e-10 * (cs.v0.norm() + (W * P).norm()));

      // Kinetic energy change of the bodies equals the contact-space one, 1/2 (v0 + vf)^T P.
      const double E1 = kinetic_energy(c, after);
      const double dE = 0.5 * (cs.v0 + vf).dot(P);
      ASSERT_LE(std::abs((E1 - E0) - dE), 1e-10 * std::max({E0, E1, std::abs(dE)}));
    }
  }
}

// Jia (2013) Section 8.1: solid ball m = 1, r = 1, I = 2/5 m r^2 on a fixed table, normal z.
TEST(BodiesBall, SphereOnTableJiaSection81) {
  systems::TwoBodyContact c;
  c.b1.mass = 1.0;
  c.b1.inertia_body = 0.4 * Eigen::Matrix3d::Identity();
  c.b1.com = Eigen::Vector3d(0, 0, 1);
  c.b1.V = Eigen::Vector3d(-1, 0, -5);
  c.b1.omega = Eigen::Vector3d(0, 2, 0);
  c.b2 = systems::RigidBody::fixed();
  c.point = Eigen::Vector3d::Zero();
  c.normal = Eigen::Vector3d(0, 0, 2);  // need not be unit

  const systems::ContactSpace cs = contact_space(c);
  const Eigen::Matrix3d W_expected = Eigen::Vector3d(3.5, 3.5, 1.0).asDiagonal();
  EXPECT_LE(max_abs(cs.W - W_expected), 1e-14);
  EXPECT_LE((cs.n - Eigen::Vector3d::UnitZ()).norm(), 1e-15);
  // v0 = V + omega x r1, r1 = (0, 0, -1): omega x r1 = (-2, 0, 0).
  EXPECT_LE((cs.v0 - Eigen::Vector3d(-3, 0, -5)).norm(), 1e-14);

  // The ball is isotropic: any orientation and a translated scene give the same W and v0.
  ri::Rng rng(81);
  for (int i = 0; i < 10; ++i) {
    systems::TwoBodyContact d = c;
    const Eigen::Vector3d shift = ri::normal_vec3(rng, 3.0);
    d.b1.orientation = ri::random_rotation(rng);
    d.b1.com += shift;
    d.point += shift;
    const systems::ContactSpace ds = contact_space(d);
    EXPECT_LE(max_abs(ds.W - W_expected), 1e-12);
    EXPECT_LE((ds.v0 - cs.v0).norm(), 1e-12);
  }

  // Section 8.1.4: the published outcomes map back through Jia eq. (1). e = 0:
  // V = (0.554553, 0, 0) needs P = m dV = (1.554553, 0, 5), which gives omega_y = -1.88638.
  systems::TwoBodyVelocities v = apply_impulse(c, Eigen::Vector3d(1.554553, 0, 5));
  EXPECT_LE((v.V1 - Eigen::Vector3d(0.554553, 0, 0)).norm(), 1e-12);
  EXPECT_NEAR(v.w1.y(), -1.88638, 1e-5);
  EXPECT_NEAR(v.w1.x(), 0.0, 1e-15);
  EXPECT_NEAR(v.w1.z(), 0.0, 1e-15);
  // e = 1: V = (-0.089745, 0, 5), omega_y = -0.275637.
  v = apply_impulse(c, Eigen::Vector3d(0.910255, 0, 10));
  EXPECT_LE((v.V1 - Eigen::Vector3d(-0.089745, 0, 5)).norm(), 1e-12);
  EXPECT_NEAR(v.w1.y(), -0.275637, 1e-5);
  // Kinetic energy: 1/2 |V|^2 + 1/2 (2/5) |omega|^2 = 13 + 0.8.
  EXPECT_NEAR(kinetic_energy(c), 13.8, 1e-13);
  EXPECT_EQ(kinetic_energy(c.b2), 0.0);
}

// ---- mechanisms ---------------------------------------------------------------------------------

systems::Mechanism random_mechanism(ri::Rng& rng, int n, int k) {
  systems::Mechanism m;
  Eigen::MatrixXd A(n, n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) A(i, j) = ri::normal(rng);
  m.M = A * A.transpose() + 0.2 * n * Eigen::MatrixXd::Identity(n, n);
  m.M = (0.5 * (m.M + m.M.transpose())).eval();
  m.M *= ri::log_uniform(rng, 0.1, 10.0);
  m.J.resize(k, n);
  for (int i = 0; i < k; ++i)
    for (int j = 0; j < n; ++j) m.J(i, j) = ri::normal(rng);
  m.qdot.resize(n);
  for (int j = 0; j < n; ++j) m.qdot(j) = ri::normal(rng);
  return m;
}

TEST(BodiesMechanism, RandomSpatialMechanisms) {
  ri::Rng rng(2011);
  for (int i = 0; i < 500; ++i) {
    SCOPED_TRACE("mechanism " + std::to_string(i));
    const int n = 3 + i % 5;  // 3..7
    const systems::Mechanism m = random_mechanism(rng, n, 3);
    const Eigen::Vector3d normal = ri::unit_vec3(rng) * ri::log_uniform(rng, 0.1, 10.0);
    const systems::ContactSpace cs = contact_space(m, normal);
    const Eigen::Matrix3d& W = cs.W;

    ASSERT_LE(max_abs(W - W.transpose()), 1e-12 * max_abs(W));
    ASSERT_GT(min_eigenvalue(W), 0.0);
    Eigen::LDLT<Eigen::Matrix3d> ldlt(W);
    ASSERT_TRUE(ldlt.info() == Eigen::Success && ldlt.isPositive());
    // Independent reference with an explicit (full-pivot LU) inverse.
    const Eigen::Matrix3d W_ref = m.J * m.M.fullPivLu().inverse() * m.J.transpose();
    ASSERT_LE(max_abs(W - W_ref), 1e-10 * max_abs(W_ref));
    ASSERT_LE((cs.v0 - m.J * m.qdot).norm(), 1e-12 * (m.J.norm() * m.qdot.norm()));
    ASSERT_NEAR(cs.n.norm(), 1.0, 1e-15);
    ASSERT_LE((cs.n - normal.normalized()).norm(), 1e-15);

    for (int k = 0; k < 3; ++k) {
      const Eigen::Vector3d P = ri::normal_vec3(rng) * ri::log_uniform(rng, 0.01, 10.0);
      const Eigen::VectorXd qdot1 = apply_impulse(m, P);
      const Eigen::VectorXd dq = qdot1 - m.qdot;
      // Generalized momentum balance M dqdot = J^T P (Morgan eq. 2.3).
      ASSERT_LE((m.M * dq - m.J.transpose() * P).norm(), 1e-10 * (m.M.norm() * dq.norm() + m.J.norm() * P.norm()));
      // Contact velocity change J dqdot = W P.
      ASSERT_LE((m.J * dq - W * P).norm(), 1e-10 * (m.J.norm() * dq.norm()));
      // Energy change equals the contact-space one.
      const Eigen::Vector3d vf = cs.v0 + W * P;
      const double E0 = kinetic_energy(m), E1 = kinetic_energy(m, qdot1);
      const double dE = 0.5 * (cs.v0 + vf).dot(P);
      ASSERT_LE(std::abs((E1 - E0) - dE), 1e-10 * std::max({E0, E1, std::abs(dE)}));
    }
  }
}

TEST(BodiesMechanism, PlanarEmbedding) {
  ri::Rng rng(22);
  for (int i = 0; i < 200; ++i) {
    SCOPED_TRACE("planar mechanism " + std::to_string(i));
    const int n = 2 + i % 5;  // 2..6
    const systems::Mechanism m = random_mechanism(rng, n, 2);
    const double th = ri::uniform(rng, 0.0, 2 * kPi);
    const Eigen::Vector3d normal(std::cos(th), std::sin(th), 0.0);
    const systems::ContactSpace cs = contact_space(m, 3.0 * normal);
    const Eigen::Matrix2d W2 = m.J * m.M.ldlt().solve(m.J.transpose());

    ASSERT_LE(max_abs(cs.W.topLeftCorner<2, 2>() - W2), 1e-10 * max_abs(W2));
    ASSERT_EQ(cs.W(0, 2), 0.0);
    ASSERT_EQ(cs.W(1, 2), 0.0);
    ASSERT_EQ(cs.W(2, 0), 0.0);
    ASSERT_EQ(cs.W(2, 1), 0.0);
    ASSERT_DOUBLE_EQ(cs.W(2, 2), 0.5 * (cs.W(0, 0) + cs.W(1, 1)));
    ASSERT_GT(min_eigenvalue(cs.W), 0.0);
    ASSERT_EQ(cs.v0.z(), 0.0);
    ASSERT_EQ(cs.n.z(), 0.0);
    ASSERT_LE((cs.v0.head<2>() - m.J * m.qdot).norm(), 1e-12 * m.J.norm() * m.qdot.norm());
    ASSERT_LE((cs.n - normal).norm(), 1e-15);

    // The out-of-plane impulse component is carried by the planar constraint.
    const Eigen::Vector3d P(ri::normal(rng), ri::normal(rng), 0.0);
    const Eigen::VectorXd q1 = apply_impulse(m, P);
    ASSERT_EQ(q1, apply_impulse(m, Eigen::Vector3d(P.x(), P.y(), 7.0)));
    const Eigen::VectorXd dq = q1 - m.qdot;
    ASSERT_LE((m.J * dq - (cs.W * P).head<2>()).norm(), 1e-10 * m.J.norm() * dq.norm());
    const double dE = 0.5 * (2 * cs.v0 + cs.W * P).dot(P);
    const double E0 = kinetic_energy(m), E1 = kinetic_energy(m, q1);
    ASSERT_LE(std::abs(E1 - E0 - dE), 1e-10 * std::max({E0, E1, std::abs(dE)}));
  }
}

// ---- Morgan (2011) ch. 2 double pendulum --------------------------------------------------------

// Tip of bar 2 and the kinetic energy of the two slender bars, derived independently.
Eigen::Vector2d pendulum_tip(double q1, double q2, double r) {
  return r * Eigen::Vector2d(std::cos(q1) + std::cos(q1 + q2), std::sin(q1) + std::sin(q1 + q2));
}
double pendulum_energy(double q1, double q2, double u1, double u2, double m, double r) {
  const Eigen::Vector2d e1(-std::sin(q1), std::cos(q1)), e12(-std::sin(q1 + q2), std::cos(q1 + q2));
  const Eigen::Vector2d v1 = 0.5 * r * u1 * e1;                        // COM of bar 1
  const Eigen::Vector2d v2 = r * u1 * e1 + 0.5 * r * (u1 + u2) * e12;  // COM of bar 2
  const double Ic = m * r * r / 12.0;                                  // slender bar about its COM
  return 0.5 * m * (v1.squaredNorm() + v2.squaredNorm()) + 0.5 * Ic * (u1 * u1 + (u1 + u2) * (u1 + u2));
}

TEST(BodiesMorgan, DoublePendulumPrintedFormulas) {
  // Hand-computed at q1 = -pi/3, q2 = pi/2, m = 2, r = 0.5 (m r^2 = 1/2, cos q2 = 0):
  // M = 1/2 [[5/3, 1/3], [1/3, 1/3]];
  // J = 1/2 [[sqrt3/2 - 1/2, -1/2], [1/2 + sqrt3/2, sqrt3/2]].
  const double h = std::sqrt(3.0) / 2.0;
  Eigen::Matrix2d M_hand, J_hand;
  M_hand << 5.0 / 6.0, 1.0 / 6.0, 1.0 / 6.0, 1.0 / 6.0;
  J_hand << 0.5 * (h - 0.5), -0.25, 0.5 * (0.5 + h), 0.5 * h;
  EXPECT_LE(max_abs(morgan_double_pendulum_M(-kPi / 3, kPi / 2, 2.0, 0.5) - M_hand), 1e-15);
  EXPECT_LE(max_abs(morgan_double_pendulum_J(-kPi / 3, kPi / 2, 0.5) - J_hand), 1e-15);
}

TEST(BodiesMorgan, DoublePendulumPhysics) {
  ri::Rng rng(2);
  const double m = 1.7, r = 0.8;
  for (int i = 0; i < 50; ++i) {
    SCOPED_TRACE("configuration " + std::to_string(i));
    const double q1 = ri::uniform(rng, -kPi, kPi), q2 = ri::uniform(rng, -kPi, kPi);
    // q2 = 0 or pi is a singular configuration of J (arm straight or folded); avoid it.
    if (std::abs(std::sin(q2)) < 0.05) continue;
    const double u1 = ri::normal(rng), u2 = ri::normal(rng);
    const systems::Mechanism mech = morgan_double_pendulum(q1, q2, u1, u2, m, r);

    // M is the inertia of two slender bars: 1/2 u^T M u equals their kinetic energy.
    ASSERT_NEAR(kinetic_energy(mech), pendulum_energy(q1, q2, u1, u2, m, r), 1e-13);
    // J is the Jacobian of the tip position (central differences).
    const double d = 1e-6;
    Eigen::Matrix2d J_fd;
    J_fd.col(0) = (pendulum_tip(q1 + d, q2, r) - pendulum_tip(q1 - d, q2, r)) / (2 * d);
    J_fd.col(1) = (pendulum_tip(q1, q2 + d, r) - pendulum_tip(q1, q2 - d, r)) / (2 * d);
    ASSERT_LE(max_abs(mech.J - J_fd), 1e-8);

    // Contact space against a floor with normal +y; the 2 x 2 block is SPD.
    const systems::ContactSpace cs = contact_space(mech, Eigen::Vector3d(0, 1, 0));
    const Eigen::Matrix2d W2 = cs.W.topLeftCorner<2, 2>();
    ASSERT_LE(max_abs(W2 - W2.transpose()), 1e-12 * max_abs(W2));
    Eigen::SelfAdjointEigenSolver<Eigen::Matrix2d> es(W2, Eigen::EigenvaluesOnly);
    ASSERT_GT(es.eigenvalues().minCoeff(), 0.0);
    const Eigen::Matrix2d W2_ref = mech.J * mech.M.inverse() * mech.J.transpose();
    ASSERT_LE(max_abs(W2 - W2_ref), 1e-10 * max_abs(W2_ref));

    const Eigen::Vector3d P(ri::normal(rng), ri::normal(rng), 0.0);
    const Eigen::VectorXd dq = apply_impulse(mech, P) - mech.qdot;
    ASSERT_LE((mech.J * dq - W2 * P.head<2>()).norm(), 1e-10 * mech.J.norm() * dq.norm());
    ASSERT_LE((mech.M * dq - mech.J.transpose() * P.head<2>()).norm(), 1e-10 * mech.M.norm() * dq.norm());
  }
}

// ---- conversions --------------------------------------------------------------------------------

TEST(BodiesConversions, RoundTrip) {
  Eigen::Matrix3d W;
  W << 2.0, 0.1, -0.3, 0.1, 1.5, 0.2, -0.3, 0.2, 1.0;
  const Sym3<double> S = to_sym3(W);
  EXPECT_EQ(to_eigen(S), W);
  const Eigen::Vector3d v(1.25, -2.5, 3.0);
  EXPECT_EQ(to_eigen(to_vec3(v)), v);
  const Vec3<float> vf = to_vec3<float>(v);
  EXPECT_EQ(vf.y, -2.5f);

  // to_sym3 takes the symmetric part.
  Eigen::Matrix3d A = W;
  A(0, 1) += 0.2;
  EXPECT_DOUBLE_EQ(to_sym3(A).xy, 0.2);

  systems::ContactSpace cs{W, Eigen::Vector3d(0, 0, 1), Eigen::Vector3d(0.5, 0, -1)};
  const ContactProblem<double> p = make_problem(cs, 0.3, 0.7, -0.2, 1.1);
  EXPECT_EQ(p.mu, 0.3);
  EXPECT_EQ(p.e, 0.7);
  EXPECT_EQ(p.e_t, -0.2);
  EXPECT_EQ(p.eta0, 1.1);
  const systems::ContactSpace back = to_contact_space(p);
  EXPECT_EQ(back.W, cs.W);
  EXPECT_EQ(back.n, cs.n);
  EXPECT_EQ(back.v0, cs.v0);
}

// ---- bad inputs ---------------------------------------------------------------------------------

TEST(BodiesErrors, BadInputsThrowInvalidArgument) {
  systems::TwoBodyContact good;
  good.b1.mass = 2.0;
  good.b1.inertia_body = Eigen::Vector3d(0.3, 0.4, 0.5).asDiagonal();
  good.b1.com = Eigen::Vector3d(0, 0, 1);
  good.b1.V = Eigen::Vector3d(0, 0, -1);
  good.b2 = systems::RigidBody::fixed();
  ASSERT_NO_THROW(contact_space(good));

  systems::TwoBodyContact c = good;
  c.normal.setZero();
  expect_invalid([&] { contact_space(c); }, "zero length");

  c = good;
  c.normal = Eigen::Vector3d(0, std::nan(""), 1);
  expect_invalid([&] { contact_space(c); }, "non-finite");

  c = good;
  c.b1.mass = -1.0;
  expect_invalid([&] { contact_space(c); }, "mass");
  c.b1.mass = 0.0;
  expect_invalid([&] { contact_space(c); }, "mass");
  expect_invalid([&] { (void)c.b1.inverse_mass(); }, "mass");

  c = good;
  c.b1.inertia_body = Eigen::Vector3d(0.3, -0.4, 0.5).asDiagonal();
  expect_invalid([&] { contact_space(c); }, "positive definite");
  expect_invalid([&] { (void)c.b1.inverse_inertia_world(); }, "positive definite");

  c = good;
  c.b1.inertia_body(0, 1) = 0.1;  // not symmetric
  expect_invalid([&] { contact_space(c); }, "symmetric");

  c = good;
  c.b1.orientation.coeffs().setZero();
  expect_invalid([&] { contact_space(c); }, "quaternion");

  c = good;
  c.b1 = systems::RigidBody::fixed();
  expect_invalid([&] { contact_space(c); }, "both bodies are fixed");

  c = good;
  c.b2.V = Eigen::Vector3d(1, 0, 0);
  expect_invalid([&] { contact_space(c); }, "at rest");

  c = good;
  expect_invalid([&] { apply_impulse(c, Eigen::Vector3d(0, INFINITY, 0)); }, "non-finite");

  // Mechanisms.
  systems::Mechanism m;
  m.M = Eigen::Matrix3d::Identity();
  m.J = Eigen::Matrix3d::Identity();
  m.qdot = Eigen::Vector3d(0, 0, -1);
  ASSERT_NO_THROW(contact_space(m, Eigen::Vector3d::UnitZ()));

  expect_invalid([&] { contact_space(m, Eigen::Vector3d::Zero()); }, "zero length");

  systems::Mechanism bad = m;
  bad.M(1, 1) = -1.0;  // indefinite
  expect_invalid([&] { contact_space(bad, Eigen::Vector3d::UnitZ()); }, "positive definite");
  expect_invalid([&] { apply_impulse(bad, Eigen::Vector3d::UnitZ()); }, "positive definite");
  bad = m;
  bad.M(2, 2) = 0.0;  // singular
  expect_invalid([&] { contact_space(bad, Eigen::Vector3d::UnitZ()); }, "positive definite");
  bad = m;
  bad.M(0, 2) = 0.5;  // not symmetric
  expect_invalid([&] { contact_space(bad, Eigen::Vector3d::UnitZ()); }, "symmetric");
  bad = m;
  bad.J.row(2) = bad.J.row(1);  // rank 2
  expect_invalid([&] { contact_space(bad, Eigen::Vector3d::UnitZ()); }, "full row rank");
  bad = m;
  bad.J = Eigen::MatrixXd::Ones(4, 3);
  expect_invalid([&] { contact_space(bad, Eigen::Vector3d::UnitZ()); }, "J must be");
  bad = m;
  bad.qdot = Eigen::Vector2d(1, 2);
  expect_invalid([&] { contact_space(bad, Eigen::Vector3d::UnitZ()); }, "qdot");

  // Planar mechanism: the normal must lie in the x-y plane.
  const systems::Mechanism pend = morgan_double_pendulum(-1.0, 0.7, 0.1, 0.2, 1.0, 1.0);
  ASSERT_NO_THROW(contact_space(pend, Eigen::Vector3d(0, 1, 0)));
  expect_invalid([&] { contact_space(pend, Eigen::Vector3d(0, 1, 0.01)); }, "x-y plane");
  expect_invalid([] { morgan_double_pendulum(0, 1, 0, 0, -1.0, 1.0); }, "> 0");

  ContactProblem<double> p = make_problem(contact_space(good), 0.1, 0.5, 0.0, 1.0);
  p.n = Vec3<double>{0, 0, 0};
  expect_invalid([&] { to_contact_space(p); }, "zero length");
}

// ---- random instances ---------------------------------------------------------------------------

TEST(BodiesRandomInstances, BodiesAreRealizableAndDeterministic) {
  ri::Rng rng(7), rng_again(7);
  for (int i = 0; i < 1000; ++i) {
    const systems::RigidBody b = ri::random_body(rng);
    ASSERT_GE(b.mass, 0.1);
    ASSERT_LE(b.mass, 10.0);
    const Eigen::Vector3d I = b.inertia_body.diagonal();
    ASSERT_TRUE(b.inertia_body.isDiagonal(0.0));
    ASSERT_GT(I.minCoeff(), 0.0);
    // Triangle inequality of principal moments (a real mass distribution).
    ASSERT_LE(I(0), I(1) + I(2));
    ASSERT_LE(I(1), I(0) + I(2));
    ASSERT_LE(I(2), I(0) + I(1));
    ASSERT_NEAR(b.orientation.norm(), 1.0, 1e-14);
    const systems::RigidBody b2 = ri::random_body(rng_again);
    ASSERT_EQ(b.mass, b2.mass);
    ASSERT_EQ(b.inertia_body, b2.inertia_body);
    ASSERT_EQ(b.orientation.coeffs(), b2.orientation.coeffs());
    ASSERT_EQ(b.omega, b2.omega);
  }
}

TEST(BodiesRandomInstances, ContactProblemsAreValid) {
  ri::Rng rng(8);
  for (int i = 0; i < 1000; ++i) {
    ContactProblem<double> p = ri::random_contact_problem(rng, {0.1, 0.9}, {0.2, 0.8}, {-0.5, 0.5}, {1.0, 2.0});
    ASSERT_EQ(validate(p, ParamUse{true, true, true, false}), Status::ok);
    ASSERT_TRUE(p.mu >= 0.1 && p.mu <= 0.9);
    ASSERT_TRUE(p.e >= 0.2 && p.e <= 0.8);
    ASSERT_TRUE(p.e_t >= -0.5 && p.e_t <= 0.5);
    ASSERT_TRUE(p.eta0 >= 1.0 && p.eta0 <= 2.0);
  }
}

TEST(BodiesRandomInstances, PlanarInstancesArePlanar) {
  ri::Rng rng(9);
  for (int i = 0; i < 1000; ++i) {
    SCOPED_TRACE("planar instance " + std::to_string(i));
    const bool head_on = (i % 4) == 0;
    const ri::PlanarInstance inst =
        ri::random_planar_instance(rng, ri::kMuRange, ri::kERange, ri::kEtRange, ri::kEta0Range, head_on);
    ContactProblem<double> p = inst.problem;
    ASSERT_EQ(validate(p, ParamUse{true, true, true, false}), Status::ok);
    const systems::ContactSpace cs = to_contact_space(p);
    const Eigen::Vector3d &n = cs.n, &t = inst.t, &s = inst.s;
    ASSERT_NEAR(n.dot(t), 0.0, 1e-15);
    ASSERT_LE((n.cross(t) - s).norm(), 1e-15);
    // W maps the plane (n, t) into itself and s onto a multiple of s.
    const double w = max_abs(cs.W);
    ASSERT_LE(std::abs(n.dot(cs.W * s)), 1e-14 * w);
    ASSERT_LE(std::abs(t.dot(cs.W * s)), 1e-14 * w);
    ASSERT_GT(s.dot(cs.W * s), 0.0);
    ASSERT_LT(cs.v0.dot(n), 0.0);
    ASSERT_LE(std::abs(cs.v0.dot(s)), 1e-14 * cs.v0.norm());
    if (head_on) { ASSERT_LE(cs.v0.cross(n).norm(), 1e-15 * cs.v0.norm()); }
  }
  // Both tangential signs occur.
  int pos = 0, neg = 0;
  for (int i = 0; i < 100; ++i) {
    const ri::PlanarInstance inst = ri::random_planar_instance(rng);
    (to_eigen(inst.problem.v0).dot(inst.t) > 0 ? pos : neg)++;
  }
  EXPECT_GT(pos, 10);
  EXPECT_GT(neg, 10);
  // The named wrappers.
  for (int i = 0; i < 100; ++i) {
    ContactProblem<double> p = ri::random_planar_problem_head_on(rng);
    ASSERT_EQ(validate(p, ParamUse{true, true, true, false}), Status::ok);
    ASSERT_LE(norm(cross(p.v0, p.n)), 1e-15 * norm(p.v0));
    p = ri::random_planar_problem(rng);
    ASSERT_EQ(validate(p, ParamUse{true, true, true, false}), Status::ok);
  }
}

}  // namespace

// eta0 from elastic constants (Hertz-Mindlin): Jia's footnote value for like materials at nu = 0.3,
// (2 - nu) / (2 (1 - nu)) for any nu, the same against a rigid body, symmetric in the bodies, and
// errors naming the body and the constant.
TEST(Bodies, Eta0FromElasticConstants) {
  using impact::systems::eta0_from_elastic;
  EXPECT_NEAR(eta0_from_elastic(200e9, 0.3, 200e9, 0.3), std::sqrt(17.0 / 14.0), 1e-15);
  for (double nu : {-0.5, 0.0, 0.2, 0.45}) {
    const double like = std::sqrt((2.0 - nu) / (2.0 * (1.0 - nu)));
    EXPECT_NEAR(eta0_from_elastic(3e9, nu, 3e9, nu), like, 1e-14) << nu;
    EXPECT_NEAR(eta0_from_elastic(3e9, nu, INFINITY, 0.3), like, 1e-14) << nu;  // rigid body 2
  }
  const double a = eta0_from_elastic(200e9, 0.29, 0.01e9, 0.49), b = eta0_from_elastic(0.01e9, 0.49, 200e9, 0.29);
  EXPECT_DOUBLE_EQ(a, b);
  EXPECT_GT(a, 1.0);
  EXPECT_THROW(eta0_from_elastic(0, 0.3, 1e9, 0.3), std::invalid_argument);
  EXPECT_THROW(eta0_from_elastic(1e9, 0.5, 1e9, 0.3), std::invalid_argument);
  EXPECT_THROW(eta0_from_elastic(INFINITY, 0.3, 1e9, 0.3), std::invalid_argument);
  try {
    eta0_from_elastic(1e9, 0.3, -2.0, 0.3);
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("body 2: Young's modulus"), std::string::npos) << e.what();
  }
}
