// Host-side mapping between physical systems and the contact space of impact::ContactProblem.
//
// Two kinds of systems are mapped:
//   * two rigid bodies in point contact (Jia 2013, eqs. 1-4, written in world quantities), where
//     body 2 may be fixed (a table, the ground: infinite mass and inertia, at rest);
//   * a mechanism in generalized coordinates, M(q) qddot = ... + J(q)^T f (Morgan 2011, eq. 2.1),
//     spatial (3 x n contact Jacobian) or planar (2 x n, motion in the world x-y plane).
// Each maps to a ContactSpace {W, n, v0}: dv = W P for an impulse P on body 1 at the contact,
// n the unit normal from body 2 into body 1, v0 the velocity of body 1's contact point relative to
// body 2's. Impulses computed by a law are mapped back with apply_impulse().
//
// Units: any consistent set (SI: kg, m, s; inertia kg m^2, impulse N s, energy J). All vectors and
// matrices are in the world frame unless a name says otherwise (inertia_body is in the body frame).
// Double precision, Eigen. Bad inputs throw std::invalid_argument with a message saying what is
// wrong; nothing here returns a status code.
#pragma once

#include <Eigen/Dense>
#include <Eigen/Geometry>

#include "impact/problem.hpp"

namespace impact::systems {

// [r]x, the matrix with [r]x u = r x u.
Eigen::Matrix3d skew(const Eigen::Vector3d& r);

// ---- rigid bodies -----------------------------------------------------------------------------

// A rigid body at the instant of impact. Angular velocity is in the WORLD frame (not the body
// frame), so the body's angular momentum about its centre of mass is inertia_world() * omega.
//
// A fixed body (RigidBody::fixed(); mass == +infinity) has zero inverse mass and zero inverse
// inertia and is at rest: impulses do not change its (zero) velocities, and its kinetic energy
// is 0. Its inertia_body, orientation and com are ignored.
struct RigidBody {
  double mass = 1.0;                                                // kg, > 0; +inf: fixed
  Eigen::Matrix3d inertia_body = Eigen::Matrix3d::Identity();       // kg m^2, about the COM, body frame; SPD
  Eigen::Quaterniond orientation = Eigen::Quaterniond::Identity();  // world_from_body (normalised on use)
  Eigen::Vector3d com = Eigen::Vector3d::Zero();                    // m, centre of mass, world frame
  Eigen::Vector3d V = Eigen::Vector3d::Zero();                      // m/s, COM velocity, world frame
  Eigen::Vector3d omega = Eigen::Vector3d::Zero();                  // rad/s, angular velocity, world frame

  // A fixed, immovable body at rest (infinite mass and inertia).
  static RigidBody fixed();
  bool is_fixed() const;

  // Throws std::invalid_argument unless the body is usable: a free body needs a finite mass > 0,
  // a finite symmetric positive definite inertia_body and a non-zero finite orientation quaternion;
  // a fixed body must be at rest (V = omega = 0). All vectors must be finite.
  void validate() const;

  // 1/m (1/kg); 0 for a fixed body.
  double inverse_mass() const;
  // R_world_from_body as a proper rotation matrix (quaternion normalised).
  Eigen::Matrix3d rotation() const;
  // R I_body R^T (kg m^2, world frame). Throws for a fixed body (its inertia is infinite).
  Eigen::Matrix3d inertia_world() const;
  // R I_body^-1 R^T (1/(kg m^2), world frame), via an LDLT solve (no explicit inverse of
  // I_body); exactly symmetric. Zero for a fixed body.
  Eigen::Matrix3d inverse_inertia_world() const;
};

// Kinetic energy 1/2 m |V|^2 + 1/2 omega^T I_world omega (J); 0 for a fixed body.
double kinetic_energy(const RigidBody& b);

// Two bodies touching at one point. The impulse P of a law acts on body 1 at `point`, -P on body 2.
struct TwoBodyContact {
  RigidBody b1, b2;
  Eigen::Vector3d point = Eigen::Vector3d::Zero();    // m, world contact point
  Eigen::Vector3d normal = Eigen::Vector3d::UnitZ();  // from body 2 into body 1; need not be unit
};

// Velocities of both bodies (world frame): COM velocities V (m/s), angular velocities w (rad/s).
struct TwoBodyVelocities {
  Eigen::Vector3d V1, w1, V2, w2;
};

// ---- contact space ----------------------------------------------------------------------------

// The contact-space data every law works on (see impact::ContactProblem and docs/INTERFACE.md).
struct ContactSpace {
  Eigen::Matrix3d W;   // inverse inertia at the contact, dv = W P (1/kg), symmetric positive definite
  Eigen::Vector3d n;   // unit normal, from body 2 into body 1
  Eigen::Vector3d v0;  // m/s, velocity of body 1's contact point relative to body 2's
};

// Jia (2013) eqs. (1)-(4) in world quantities: with r_i = point - com_i and I_iw^-1 the world
// inverse inertia,
//   W  = (1/m1 + 1/m2) 1 - [r1]x I1w^-1 [r1]x - [r2]x I2w^-1 [r2]x,
//   v0 = V1 + w1 x r1 - V2 - w2 x r2,
// n = normal / |normal|. W is returned exactly symmetric. Throws std::invalid_argument for an
// invalid body (see RigidBody::validate), both bodies fixed, a zero or non-finite normal or point.
ContactSpace contact_space(const TwoBodyContact& c);

// The bodies' current velocities (b1.V, b1.omega, b2.V, b2.omega).
TwoBodyVelocities velocities(const TwoBodyContact& c);

// Velocity of body 1's contact point relative to body 2's for the given body velocities
// (Jia eq. 2): V1 + w1 x r1 - V2 - w2 x r2. With velocities(c) this is contact_space(c).v0.
Eigen::Vector3d contact_velocity(const TwoBodyContact& c, const TwoBodyVelocities& v);

// Body velocities after impulse P (N s, world frame) on body 1 at the contact point and -P on
// body 2 (Jia eq. 1): dV1 = P/m1, dw1 = I1w^-1 (r1 x P), dV2 = -P/m2, dw2 = -I2w^-1 (r2 x P).
// A fixed body keeps zero velocities. The contact velocity afterwards is v0 + W P.
TwoBodyVelocities apply_impulse(const TwoBodyContact& c, const Eigen::Vector3d& P);

// Total kinetic energy of both bodies (J), at their current velocities or at given ones.
double kinetic_energy(const TwoBodyContact& c);
double kinetic_energy(const TwoBodyContact& c, const TwoBodyVelocities& v);

// ---- mechanisms in generalized coordinates ----------------------------------------------------

// A mechanism at the instant of impact (Morgan 2011, eqs. 2.1-2.5): M qddot = ... + J^T f.
// Units of q are the mechanism's own (m or rad per coordinate); M is whatever makes
// 1/2 qdot^T M qdot an energy and J maps qdot to the contact point's velocity (m/s).
//   k = 3: J's rows are the world x, y, z velocity of the contact point (relative to the other,
//          fixed or prescribed-at-rest, body).
//   k = 2: planar mechanism in the world x-y plane; J's rows are the x and y velocity.
struct Mechanism {
  Eigen::MatrixXd M;     // n x n symmetric positive definite generalized inertia
  Eigen::MatrixXd J;     // k x n contact Jacobian, v_contact = J qdot, k = 2 or 3
  Eigen::VectorXd qdot;  // n generalized velocities before impact
};

// W = J M^-1 J^T (via LDLT of M; no explicit inverse) and v0 = J qdot, n = normal/|normal|.
// k = 3: W must be positive definite, i.e. J must have full row rank.
// k = 2: the planar block W2 = J M^-1 J^T (2 x 2, must be positive definite) is embedded with z
//   out of plane as W = [[W2, 0], [0, w_zz]], v0 = (J qdot, 0). The out-of-plane direction is
//   constrained by the planar joints, so its true inverse inertia is 0; w_zz = trace(W2)/2 is a
//   placeholder that keeps W positive definite and of the right scale. For a planar instance every
//   law gives a zero out-of-plane impulse, so w_zz does not affect outcomes. The normal must lie
//   in the x-y plane (|n_z| <= 1e-12 |n|; n_z is then set to 0).
// Throws std::invalid_argument for inconsistent sizes, non-finite entries, M not symmetric
// (relative 1e-10) or not positive definite, a rank-deficient J, or a bad normal.
ContactSpace contact_space(const Mechanism& m, const Eigen::Vector3d& normal);

// qdot+ = qdot + M^-1 J^T P (Morgan eq. 2.4). For k = 2 only P's x and y components are used
// (the out-of-plane component is carried by the planar constraint).
Eigen::VectorXd apply_impulse(const Mechanism& m, const Eigen::Vector3d& P);

// 1/2 qdot^T M qdot, at the given generalized velocities or at m.qdot.
double kinetic_energy(const Mechanism& m, const Eigen::VectorXd& qdot);
double kinetic_energy(const Mechanism& m);

// ---- contact compliance from the materials ----------------------------------------------------
// Jia's eta0 (the ratio of the normal to the tangential contact frequency, eta0^2 = k_n / k_t with
// the masses of eq. 5) from the elastic constants of both bodies by Hertz-Mindlin:
//   eta0^2 = E* / (4 G*),  1/E* = sum (1 - nu_i^2) / E_i,  1/G* = sum (2 - nu_i) / G_i,
//   G_i = E_i / (2 (1 + nu_i));
// for like materials (2 - nu) / (2 (1 - nu)) (Jia 2013's footnote: sqrt(17/14) at nu = 0.3). E2 =
// +inf: a rigid body 2 (its terms vanish). Throws std::invalid_argument for E <= 0, nu outside
// (-1, 0.5), or a non-finite value (E1, nu1, nu2).
double eta0_from_elastic(double E1, double nu1, double E2, double nu2);

// Morgan (2011) ch. 2, planar double pendulum: two equal slender bars of length r (m) and mass
// m (kg) hanging from a fixed pin; q1 (rad) the absolute angle of bar 1 from the x axis, q2 (rad)
// the angle of bar 2 relative to bar 1; the contact point is the free end of bar 2, at
// r (cos q1 + cos(q1+q2), sin q1 + sin(q1+q2)). Exactly as printed:
//   M = m r^2 [[cos q2 + 5/3, cos q2 / 2 + 1/3], [cos q2 / 2 + 1/3, 1/3]]
//   J = r [[-sin q1 - sin(q1+q2), -sin(q1+q2)], [cos q1 + cos(q1+q2), cos(q1+q2)]]
Eigen::Matrix2d morgan_double_pendulum_M(double q1, double q2, double m, double r);
Eigen::Matrix2d morgan_double_pendulum_J(double q1, double q2, double r);
// The planar (k = 2) Mechanism of that pendulum with generalized velocities (q1dot, q2dot).
Mechanism morgan_double_pendulum(double q1, double q2, double q1dot, double q2dot, double m, double r);

// ---- conversions to and from impact::ContactProblem -------------------------------------------

template <class T = double>
inline Vec3<T> to_vec3(const Eigen::Vector3d& v) {
  return Vec3<T>{T(v.x()), T(v.y()), T(v.z())};
}

// The symmetric part of A, (A + A^T)/2, as six entries.
template <class T = double>
inline Sym3<T> to_sym3(const Eigen::Matrix3d& A) {
  return Sym3<T>{T(A(0, 0)), T(0.5 * (A(0, 1) + A(1, 0))), T(0.5 * (A(0, 2) + A(2, 0))),
                 T(A(1, 1)), T(0.5 * (A(1, 2) + A(2, 1))), T(A(2, 2))};
}

template <class T>
inline Eigen::Vector3d to_eigen(const Vec3<T>& v) {
  return Eigen::Vector3d(double(v.x), double(v.y), double(v.z));
}

template <class T>
inline Eigen::Matrix3d to_eigen(const Sym3<T>& A) {
  Eigen::Matrix3d M;
  M << double(A.xx), double(A.xy), double(A.xz),  //
      double(A.xy), double(A.yy), double(A.yz),   //
      double(A.xz), double(A.yz), double(A.zz);
  return M;
}

// ContactProblem from contact-space data plus the law parameters (Coulomb mu, restitution e,
// tangential restitution e_t, Jia's stiffness ratio eta0; see docs/INTERFACE.md for ranges).
// No range checks here: impact::validate() does them when a law runs.
ContactProblem<double> make_problem(const ContactSpace& cs, double mu, double e, double e_t, double eta0);

// Back from a ContactProblem: W, n (normalised; throws std::invalid_argument if zero) and v0.
ContactSpace to_contact_space(const ContactProblem<double>& p);

}  // namespace impact::systems
