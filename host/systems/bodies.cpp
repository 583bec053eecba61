// Mapping of rigid bodies and mechanisms to the contact space, and of impulses back.
// See bodies.hpp for conventions (world frame, SI units, P acts on body 1).
#include "impact/rmath.hpp"
#include "systems/bodies.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

namespace impact::systems {

namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();
// Relative asymmetry accepted for matrices that must be symmetric (inertias, M).
constexpr double kSymTol = 1e-10;
// The pivot tolerance of impact::validate(): a W produced here always passes it.
constexpr double kContactSpdTol = 64 * kEps;
// |n_z| / |n| accepted for the normal of a planar mechanism.
constexpr double kPlanarNormalTol = 1e-12;

[[noreturn]] void fail(const std::string& msg) { throw std::invalid_argument("bodies: " + msg); }

template <class Mat>
Mat symmetric_part(const Mat& A) {
  return Mat(0.5 * (A + A.transpose()));
}

// LDLT of a matrix that must be finite, symmetric (relative kSymTol) and positive definite:
// every pivot of D positive and above size * eps relative to the largest one.
template <class Mat>
Eigen::LDLT<Mat> spd_ldlt(const Mat& A, const std::string& name) {
  if (A.rows() == 0 || A.rows() != A.cols())
    fail(name + " must be a non-empty square matrix (got " + std::to_string(A.rows()) + " x " + std::to_string(A.cols()) + ")");
  if (!A.allFinite()) fail(name + " has a non-finite entry");
  const double scale = A.cwiseAbs().maxCoeff();
  const double asym = (A - A.transpose()).cwiseAbs().maxCoeff();
  if (!(scale > 0.0)) fail(name + " is zero; it must be symmetric positive definite");
  if (asym > kSymTol * scale)
    fail(name + " is not symmetric (max |A - A^T| = " + std::to_string(asym) +
         ", relative to max |A| = " + std::to_string(scale) + ")");
  Eigen::LDLT<Mat> ldlt(symmetric_part(A));
  if (ldlt.info() != Eigen::Success) fail(name + ": LDLT factorization failed");
  const auto D = ldlt.vectorD();
  const double dmax = D.maxCoeff();
  const double dmin = D.minCoeff();
  if (!(dmax > 0.0) || !(dmin > double(A.rows()) * kEps * dmax))
    fail(name + " is not positive definite (LDLT pivots in [" + std::to_string(dmin) + ", " + std::to_string(dmax) + "])");
  return ldlt;
}

// Throws unless W passes the positive-definiteness test of impact::validate().
void require_contact_spd(const Eigen::Matrix3d& W, const std::string& what) {
  if (!W.allFinite()) fail(what + ": W has a non-finite entry");
  if (!cholesky(to_sym3(W), kContactSpdTol).ok) fail(what + ": W is not positive definite");
}

Eigen::Vector3d unit_normal(const Eigen::Vector3d& normal) {
  if (!normal.allFinite()) fail("the contact normal has a non-finite component");
  const double nn = normal.norm();
  if (!(nn > 0.0)) fail("the contact normal has zero length");
  return normal / nn;
}

void require_finite(const Eigen::Vector3d& v, const std::string& name) {
  if (!v.allFinite()) fail(name + " has a non-finite component");
}

// Kinetic energy of body b moving with (V, w) (world frame).
double body_energy(const RigidBody& b, const Eigen::Vector3d& V, const Eigen::Vector3d& w) {
  if (b.is_fixed()) return 0.0;
  return 0.5 * b.mass * V.squaredNorm() + 0.5 * w.dot(b.inertia_world() * w);
}

// Checked sizes of a mechanism, plus the LDLT of M.
struct MechanismFactor {
  Eigen::Index n, k;
  Eigen::LDLT<Eigen::MatrixXd> ldlt;
};

MechanismFactor factor(const Mechanism& m) {
  const Eigen::Index n = m.M.rows();
  if (n < 1 || m.M.cols() != n)
    fail("Mechanism: M must be square n x n with n >= 1 (got " + std::to_string(m.M.rows()) + " x " + std::to_string(m.M.cols()) +
         ")");
  if (m.J.cols() != n || (m.J.rows() != 2 && m.J.rows() != 3))
    fail("Mechanism: J must be 2 x n (planar) or 3 x n (spatial) with n = " + std::to_string(n) + " (got " +
         std::to_string(m.J.rows()) + " x " + std::to_string(m.J.cols()) + ")");
  if (m.qdot.size() != n)
    fail("Mechanism: qdot must have n = " + std::to_string(n) + " entries (got " + std::to_string(m.qdot.size()) + ")");
  if (!m.J.allFinite()) fail("Mechanism: J has a non-finite entry");
  if (!m.qdot.allFinite()) fail("Mechanism: qdot has a non-finite entry");
  return MechanismFactor{n, m.J.rows(), spd_ldlt(m.M, "Mechanism: M")};
}

}  // namespace

Eigen::Matrix3d skew(const Eigen::Vector3d& r) {
  Eigen::Matrix3d S;
  S << 0.0, -r.z(), r.y(),  //
      r.z(), 0.0, -r.x(),   //
      -r.y(), r.x(), 0.0;
  return S;
}

// ---- RigidBody --------------------------------------------------------------------------------

RigidBody RigidBody::fixed() {
  RigidBody b;
  b.mass = std::numeric_limits<double>::infinity();
  b.inertia_body = Eigen::Matrix3d::Zero();  // unused: the inverse inertia of a fixed body is 0
  return b;
}

bool RigidBody::is_fixed() const { return mass == std::numeric_limits<double>::infinity(); }

void RigidBody::validate() const {
  require_finite(com, "RigidBody: com");
  require_finite(V, "RigidBody: V");
  require_finite(omega, "RigidBody: omega");
  if (is_fixed()) {
    if (!V.isZero(0.0) || !omega.isZero(0.0)) fail("RigidBody: a fixed body (infinite mass) must be at rest (V = omega = 0)");
    return;
  }
  if (!(std::isfinite(mass) && mass > 0.0))
    fail("RigidBody: mass must be finite and > 0, or +inf for a fixed body (got " + std::to_string(mass) + ")");
  (void)rotation();
  (void)spd_ldlt(inertia_body, "RigidBody: inertia_body");
}

double RigidBody::inverse_mass() const {
  if (is_fixed()) return 0.0;
  if (!(std::isfinite(mass) && mass > 0.0)) fail("RigidBody: mass must be finite and > 0 (got " + std::to_string(mass) + ")");
  return 1.0 / mass;
}

Eigen::Matrix3d RigidBody::rotation() const {
  const double qn = orientation.norm();
  if (!orientation.coeffs().allFinite() || !(qn > 0.0)) fail("RigidBody: orientation must be a finite, non-zero quaternion");
  return orientation.normalized().toRotationMatrix();
}

Eigen::Matrix3d RigidBody::inertia_world() const {
  if (is_fixed()) fail("RigidBody: a fixed body has infinite inertia");
  (void)spd_ldlt(inertia_body, "RigidBody: inertia_body");
  const Eigen::Matrix3d R = rotation();
  return symmetric_part(Eigen::Matrix3d(R * symmetric_part(inertia_body) * R.transpose()));
}

Eigen::Matrix3d RigidBody::inverse_inertia_world() const {
  if (is_fixed()) return Eigen::Matrix3d::Zero();
  const Eigen::Matrix3d R = rotation();
  const auto ldlt = spd_ldlt(inertia_body, "RigidBody: inertia_body");
  const Eigen::Matrix3d IinvRt = ldlt.solve(R.transpose());  // I_body^-1 R^T
  return symmetric_part(Eigen::Matrix3d(R * IinvRt));
}

double kinetic_energy(const RigidBody& b) {
  b.validate();
  return body_energy(b, b.V, b.omega);
}

// ---- two bodies -------------------------------------------------------------------------------

namespace {
void validate_contact(const TwoBodyContact& c) {
  c.b1.validate();
  c.b2.validate();
  if (c.b1.is_fixed() && c.b2.is_fixed()) fail("TwoBodyContact: both bodies are fixed");
  require_finite(c.point, "TwoBodyContact: point");
}
}  // namespace

ContactSpace contact_space(const TwoBodyContact& c) {
  validate_contact(c);
  ContactSpace cs;
  cs.n = unit_normal(c.normal);
  // Jia eq. (3)-(4): W = (1/m1 + 1/m2) 1 - S, S = sum_i [r_i]x I_iw^-1 [r_i]x.
  cs.W = (c.b1.inverse_mass() + c.b2.inverse_mass()) * Eigen::Matrix3d::Identity();
  for (const RigidBody* b : {&c.b1, &c.b2}) {
    if (b->is_fixed()) continue;
    const Eigen::Matrix3d Rx = skew(c.point - b->com);
    cs.W -= Rx * b->inverse_inertia_world() * Rx;
  }
  cs.W = symmetric_part(cs.W);
  require_contact_spd(cs.W, "TwoBodyContact");
  cs.v0 = contact_velocity(c, velocities(c));
  return cs;
}

TwoBodyVelocities velocities(const TwoBodyContact& c) { return TwoBodyVelocities{c.b1.V, c.b1.omega, c.b2.V, c.b2.omega}; }

Eigen::Vector3d contact_velocity(const TwoBodyContact& c, const TwoBodyVelocities& v) {
  const Eigen::Vector3d r1 = c.point - c.b1.com;
  const Eigen::Vector3d r2 = c.point - c.b2.com;
  return v.V1 + v.w1.cross(r1) - v.V2 - v.w2.cross(r2);
}

TwoBodyVelocities apply_impulse(const TwoBodyContact& c, const Eigen::Vector3d& P) {
  validate_contact(c);
  require_finite(P, "apply_impulse: P");
  TwoBodyVelocities v = velocities(c);
  if (!c.b1.is_fixed()) {
    const Eigen::Vector3d r1 = c.point - c.b1.com;
    v.V1 += c.b1.inverse_mass() * P;
    v.w1 += c.b1.inverse_inertia_world() * r1.cross(P);
  }
  if (!c.b2.is_fixed()) {
    const Eigen::Vector3d r2 = c.point - c.b2.com;
    v.V2 -= c.b2.inverse_mass() * P;
    v.w2 -= c.b2.inverse_inertia_world() * r2.cross(P);
  }
  return v;
}

double kinetic_energy(const TwoBodyContact& c) { return kinetic_energy(c, velocities(c)); }

double kinetic_energy(const TwoBodyContact& c, const TwoBodyVelocities& v) {
  validate_contact(c);
  return body_energy(c.b1, v.V1, v.w1) + body_energy(c.b2, v.V2, v.w2);
}

// ---- mechanisms -------------------------------------------------------------------------------

ContactSpace contact_space(const Mechanism& m, const Eigen::Vector3d& normal) {
  const MechanismFactor f = factor(m);
  const Eigen::MatrixXd Wk = symmetric_part(Eigen::MatrixXd(m.J * f.ldlt.solve(m.J.transpose())));
  const Eigen::VectorXd vk = m.J * m.qdot;
  ContactSpace cs;
  if (f.k == 3) {
    cs.W = Wk;
    cs.v0 = vk;
    cs.n = unit_normal(normal);
  } else {
    // Planar: z is out of plane; w_zz = trace(W2)/2 is a placeholder (see bodies.hpp).
    cs.W.setZero();
    cs.W.topLeftCorner<2, 2>() = Wk;
    cs.W(2, 2) = 0.5 * Wk.trace();
    cs.v0 << vk(0), vk(1), 0.0;
    Eigen::Vector3d nrm = unit_normal(normal);
    if (std::abs(nrm.z()) > kPlanarNormalTol)
      fail("Mechanism: a planar (2 x n) mechanism needs a normal in the x-y plane (n_z / |n| = " + std::to_string(nrm.z()) + ")");
    nrm.z() = 0.0;
    cs.n = nrm.normalized();
  }
  if (!cholesky(to_sym3(cs.W), kContactSpdTol).ok)
    fail("Mechanism: W = J M^-1 J^T is not positive definite; J must have full row rank (" + std::to_string(f.k) + ")");
  return cs;
}

Eigen::VectorXd apply_impulse(const Mechanism& m, const Eigen::Vector3d& P) {
  const MechanismFactor f = factor(m);
  require_finite(P, "apply_impulse: P");
  const Eigen::VectorXd Pk = P.head(f.k);
  return m.qdot + f.ldlt.solve(m.J.transpose() * Pk);
}

double kinetic_energy(const Mechanism& m, const Eigen::VectorXd& qdot) {
  if (m.M.rows() != m.M.cols() || qdot.size() != m.M.rows()) fail("kinetic_energy: M must be square and qdot of matching size");
  return 0.5 * qdot.dot(m.M * qdot);
}

double kinetic_energy(const Mechanism& m) { return kinetic_energy(m, m.qdot); }

// ---- Morgan's double pendulum -----------------------------------------------------------------

Eigen::Matrix2d morgan_double_pendulum_M(double q1, double q2, double m, double r) {
  (void)q1;  // M depends on the relative angle only
  const double c2 = rmath::cos(q2);
  Eigen::Matrix2d M;
  M << c2 + 5.0 / 3.0, c2 / 2.0 + 1.0 / 3.0,  //
      c2 / 2.0 + 1.0 / 3.0, 1.0 / 3.0;
  return m * r * r * M;
}

Eigen::Matrix2d morgan_double_pendulum_J(double q1, double q2, double r) {
  const double s1 = rmath::sin(q1), c1 = rmath::cos(q1);
  const double s12 = rmath::sin(q1 + q2), c12 = rmath::cos(q1 + q2);
  Eigen::Matrix2d J;
  J << -s1 - s12, -s12,  //
      c1 + c12, c12;
  return r * J;
}

Mechanism morgan_double_pendulum(double q1, double q2, double q1dot, double q2dot, double m, double r) {
  if (!(m > 0.0 && std::isfinite(m)) || !(r > 0.0 && std::isfinite(r)))
    fail("morgan_double_pendulum: m and r must be finite and > 0");
  Mechanism mech;
  mech.M = morgan_double_pendulum_M(q1, q2, m, r);
  mech.J = morgan_double_pendulum_J(q1, q2, r);
  mech.qdot = Eigen::Vector2d(q1dot, q2dot);
  return mech;
}

// ---- conversions ------------------------------------------------------------------------------

ContactProblem<double> make_problem(const ContactSpace& cs, double mu, double e, double e_t, double eta0) {
  return ContactProblem<double>{to_sym3(cs.W), to_vec3(cs.n), to_vec3(cs.v0), mu, e, e_t, eta0};
}

ContactSpace to_contact_space(const ContactProblem<double>& p) {
  ContactSpace cs;
  cs.W = to_eigen(p.W);
  cs.n = unit_normal(to_eigen(p.n));
  cs.v0 = to_eigen(p.v0);
  return cs;
}

double eta0_from_elastic(double E1, double nu1, double E2, double nu2) {
  auto check = [](double E, double nu, const char* which, bool may_be_rigid) {
    if (!(E > 0) || (!may_be_rigid && !std::isfinite(E)))
      throw std::invalid_argument(std::string(which) + ": Young's modulus E must be > 0 and finite" +
                                  (may_be_rigid ? " (or +inf: rigid)" : "") + ", got " + std::to_string(E));
    if (!(nu > -1.0 && nu < 0.5))
      throw std::invalid_argument(std::string(which) + ": Poisson's ratio nu must lie in (-1, 0.5), got " + std::to_string(nu));
  };
  check(E1, nu1, "body 1", false);
  check(E2, nu2, "body 2", true);
  double inv_E = 0, inv_G = 0;
  for (const auto& [E, nu] : {std::pair<double, double>{E1, nu1}, std::pair<double, double>{E2, nu2}}) {
    if (std::isinf(E)) continue;
    const double G = E / (2.0 * (1.0 + nu));
    inv_E += (1.0 - nu * nu) / E;
    inv_G += (2.0 - nu) / G;
  }
  return std::sqrt(inv_G / (4.0 * inv_E));
}

}  // namespace impact::systems
