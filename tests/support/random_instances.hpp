// Physically realizable random impact instances for tests (header-only).
//
// Every generator draws from a caller-owned std::mt19937_64, so a fixed seed gives the same
// instances on every run with the same standard library. (The engine is fully specified, but the
// algorithms of std::uniform_real_distribution, std::normal_distribution and
// std::bernoulli_distribution are implementation-defined, so other standard libraries may draw
// other instances; tests must assert properties, not particular values.)
// Units are SI; all vectors are in the world frame.
#pragma once

#include <algorithm>
#include <cmath>
#include <random>
#include <utility>

#include <Eigen/Dense>
#include <Eigen/Geometry>

#include "systems/bodies.hpp"
#include "impact/problem.hpp"

namespace impact::randinst {

using Rng = std::mt19937_64;
using Range = std::pair<double, double>;  // closed interval [first, second]

inline double uniform(Rng& rng, double lo, double hi) {
  return lo == hi ? lo : std::uniform_real_distribution<double>(lo, hi)(rng);
}
inline double uniform(Rng& rng, Range r) { return uniform(rng, r.first, r.second); }
// exp(uniform(log lo, log hi)), lo > 0.
inline double log_uniform(Rng& rng, double lo, double hi) { return std::exp(uniform(rng, std::log(lo), std::log(hi))); }
inline double normal(Rng& rng, double sigma = 1.0) { return std::normal_distribution<double>(0.0, sigma)(rng); }
inline bool coin(Rng& rng, double p_true = 0.5) { return std::bernoulli_distribution(p_true)(rng); }

// Vector with independent N(0, sigma^2) components.
inline Eigen::Vector3d normal_vec3(Rng& rng, double sigma = 1.0) {
  const double x = normal(rng, sigma), y = normal(rng, sigma), z = normal(rng, sigma);
  return Eigen::Vector3d(x, y, z);
}

// Uniformly distributed unit vector.
inline Eigen::Vector3d unit_vec3(Rng& rng) {
  for (;;) {
    const Eigen::Vector3d v = normal_vec3(rng);
    const double nv = v.norm();
    if (nv > 1e-8) return v / nv;
  }
}

// Uniformly distributed rotation (normalised 4D Gaussian = Haar measure on SO(3)).
inline Eigen::Quaterniond random_rotation(Rng& rng) {
  for (;;) {
    const double w = normal(rng), x = normal(rng), y = normal(rng), z = normal(rng);
    Eigen::Quaterniond q(w, x, y, z);
    const double nq = q.norm();
    if (nq > 1e-8) {
      q.coeffs() /= nq;
      return q;
    }
  }
}

// Principal moments (kg m^2) of a homogeneous box or ellipsoid of mass m (kg) and half-extents
// a, b, c (m) along the body axes. They satisfy the triangle inequality by construction.
inline Eigen::Vector3d box_moments(double m, double a, double b, double c) {
  return Eigen::Vector3d(b * b + c * c, a * a + c * c, a * a + b * b) * (m / 3.0);
}
inline Eigen::Vector3d ellipsoid_moments(double m, double a, double b, double c) {
  return Eigen::Vector3d(b * b + c * c, a * a + c * c, a * a + b * b) * (m / 5.0);
}

// Size of a free body (m): sqrt(trace(I_body) / (2 m)), the RMS half-extent up to a shape factor.
inline double body_scale(const systems::RigidBody& b) { return std::sqrt(b.inertia_body.trace() / (2.0 * b.mass)); }

// Random free rigid body: mass log-uniform in [0.1, 10] kg; a box or an ellipsoid (fair coin)
// with half-extents log-uniform in [0.05, 2] m, its inertia computed from the shape; uniform
// random orientation; com ~ N(0, 1 m^2) per axis; V ~ N(0, 1 (m/s)^2), omega ~ N(0, 1 (rad/s)^2)
// per axis (world frame).
inline systems::RigidBody random_body(Rng& rng) {
  systems::RigidBody b;
  b.mass = log_uniform(rng, 0.1, 10.0);
  const double a = log_uniform(rng, 0.05, 2.0);
  const double bb = log_uniform(rng, 0.05, 2.0);
  const double c = log_uniform(rng, 0.05, 2.0);
  const bool box = coin(rng);
  b.inertia_body = (box ? box_moments(b.mass, a, bb, c) : ellipsoid_moments(b.mass, a, bb, c)).asDiagonal();
  b.orientation = random_rotation(rng);
  b.com = normal_vec3(rng);
  b.V = normal_vec3(rng);
  b.omega = normal_vec3(rng);
  return b;
}

// Random contact between a random free body 1 and either a random free body 2 or a fixed body.
// The contact point lies at a distance of 0.5 to 1.5 times body 1's scale from its com, in a
// random direction; body 2's com lies at 0.5 to 1.5 times its scale from the point. The normal is
// a random unit vector. Body 1's velocity is adjusted so that v0 . n < 0: a separating normal
// part is reflected, and an approach slower than 1e-3 |v0| is replaced by v0 . n = -0.1 m/s.
inline systems::TwoBodyContact random_two_body_contact(Rng& rng, bool second_fixed) {
  systems::TwoBodyContact c;
  c.b1 = random_body(rng);
  c.point = c.b1.com + body_scale(c.b1) * uniform(rng, 0.5, 1.5) * unit_vec3(rng);
  if (second_fixed) {
    c.b2 = systems::RigidBody::fixed();
  } else {
    c.b2 = random_body(rng);
    c.b2.com = c.point + body_scale(c.b2) * uniform(rng, 0.5, 1.5) * unit_vec3(rng);
  }
  c.normal = unit_vec3(rng);
  const Eigen::Vector3d v0 = systems::contact_velocity(c, systems::velocities(c));
  // Changing V1 by a n changes v0 by a n.
  double vn = v0.dot(c.normal);
  if (vn > 0.0) {  // reflect the normal part: v0.n -> -v0.n
    c.b1.V -= 2.0 * vn * c.normal;
    vn = -vn;
  }
  if (-vn < 1e-3 * v0.norm() + 1e-9) c.b1.V += (-0.1 - vn) * c.normal;  // now v0.n = -0.1 m/s
  return c;
}

// Parameter ranges used when a test does not say.
inline constexpr Range kMuRange{0.0, 1.0};
inline constexpr Range kERange{0.0, 1.0};
inline constexpr Range kEtRange{-1.0, 1.0};
inline constexpr Range kEta0Range{0.5, 3.0};

// A ContactProblem from a random two-body contact (body 2 fixed with probability 1/2), via
// systems::contact_space(), with parameters uniform in the given ranges.
inline ContactProblem<double> random_contact_problem(Rng& rng, Range mu_range = kMuRange, Range e_range = kERange,
                                                     Range et_range = kEtRange, Range eta0_range = kEta0Range) {
  const systems::TwoBodyContact c = random_two_body_contact(rng, coin(rng));
  const systems::ContactSpace cs = systems::contact_space(c);
  const double mu = uniform(rng, mu_range), e = uniform(rng, e_range);
  const double e_t = uniform(rng, et_range), eta0 = uniform(rng, eta0_range);
  return systems::make_problem(cs, mu, e, e_t, eta0);
}

// A random instance whose dynamics are planar, with its frame.
struct PlanarInstance {
  ContactProblem<double> problem;
  Eigen::Vector3d t;  // unit tangent in the plane of motion (n, t)
  Eigen::Vector3d s;  // unit out-of-plane direction, s = n x t
};

// Planar instance: in an orthonormal frame (n, t, s), rotated to a uniformly random world frame
// (or the world frame n = x, t = y, s = z when random_frame is false),
//   W = [[W_nt (2 x 2 SPD), 0], [0, w_ss]],
// with W_nt's eigenvalues log-uniform in [0.05, 20] 1/kg along a random in-plane direction and
// w_ss log-uniform in [0.05, 20] 1/kg; v0 = v_n n + v_t t with v_n uniform in [-5, -0.1] m/s and
// v_t uniform in [-5, 5] m/s, or v_t = 0 exactly (v0 = v_n n) when zero_tangential is true.
inline PlanarInstance random_planar_instance(Rng& rng, Range mu_range = kMuRange, Range e_range = kERange,
                                             Range et_range = kEtRange, Range eta0_range = kEta0Range,
                                             bool zero_tangential = false, bool random_frame = true) {
  const double l1 = log_uniform(rng, 0.05, 20.0), l2 = log_uniform(rng, 0.05, 20.0);
  const double phi = uniform(rng, 0.0, 6.283185307179586);
  const double w_ss = log_uniform(rng, 0.05, 20.0);
  const Eigen::Matrix2d Rp = Eigen::Rotation2Dd(phi).toRotationMatrix();
  const Eigen::Matrix2d Wnt = Rp * Eigen::Vector2d(l1, l2).asDiagonal() * Rp.transpose();
  Eigen::Matrix3d Wloc = Eigen::Matrix3d::Zero();
  Wloc.topLeftCorner<2, 2>() = 0.5 * (Wnt + Wnt.transpose());
  Wloc(2, 2) = w_ss;

  const Eigen::Matrix3d Q = random_frame ? random_rotation(rng).toRotationMatrix() : Eigen::Matrix3d::Identity();
  PlanarInstance inst;
  const Eigen::Vector3d n = Q.col(0);
  inst.t = Q.col(1);
  inst.s = Q.col(2);
  const double vn = uniform(rng, -5.0, -0.1);
  const double vt = zero_tangential ? 0.0 : uniform(rng, -5.0, 5.0);
  const Eigen::Vector3d v0 = zero_tangential ? Eigen::Vector3d(vn * n) : Eigen::Vector3d(vn * n + vt * inst.t);

  systems::ContactSpace cs;
  cs.W = Q * Wloc * Q.transpose();
  cs.W = 0.5 * (cs.W + cs.W.transpose()).eval();
  cs.n = n;
  cs.v0 = v0;
  const double mu = uniform(rng, mu_range), e = uniform(rng, e_range);
  const double e_t = uniform(rng, et_range), eta0 = uniform(rng, eta0_range);
  inst.problem = systems::make_problem(cs, mu, e, e_t, eta0);
  return inst;
}

inline ContactProblem<double> random_planar_problem(Rng& rng, Range mu_range = kMuRange, Range e_range = kERange,
                                                    Range et_range = kEtRange, Range eta0_range = kEta0Range) {
  return random_planar_instance(rng, mu_range, e_range, et_range, eta0_range, false).problem;
}

// Planar instance with v0 exactly along n (no initial tangential velocity).
inline ContactProblem<double> random_planar_problem_head_on(Rng& rng, Range mu_range = kMuRange, Range e_range = kERange,
                                                            Range et_range = kEtRange, Range eta0_range = kEta0Range) {
  return random_planar_instance(rng, mu_range, e_range, et_range, eta0_range, true).problem;
}

}  // namespace impact::randinst
