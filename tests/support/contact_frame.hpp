// The contact frame of an instance, computed by the tests independently of the laws: the normal,
// two tangents, W's blocks in that frame, the sticking ratio and the invariant slip rays of a 3D
// slip; with the instance built from Eigen values and its kinetic energy. For the tests of the 3D
// friction laws (stronge and its CPU reference).
#pragma once
#include <Eigen/Dense>
#include <cmath>
#include <vector>

#include "eigen_problem.hpp"
#include "impact/problem.hpp"

namespace impact::testing {

// The instance W, n, v0, mu, e (W's upper triangle; e_t = 0, eta0 = 1).
inline ContactProblem<double> problem_of(const Eigen::Matrix3d& W, const Eigen::Vector3d& n, const Eigen::Vector3d& v0, double mu,
                                         double e) {
  ContactProblem<double> p{};
  p.W = to_sym(W);
  p.n = to_v(n);
  p.v0 = to_v(v0);
  p.mu = mu;
  p.e = e;
  p.e_t = 0.0;
  p.eta0 = 1.0;
  return p;
}

// 1/2 v0^T W^-1 v0.
inline double kinetic_energy(const ContactProblem<double>& p) {
  const Eigen::Vector3d v0 = to_e(p.v0);
  return 0.5 * v0.dot(W_of(p).ldlt().solve(v0));
}

// The options of an integrating law: `steps` steps of the given integrator.
inline LawOptions law_options(int steps, Integrator integrator = Integrator::rk4) {
  LawOptions o;
  o.steps = steps;
  o.integrator = integrator;
  return o;
}

struct Frame {
  Eigen::Vector3d n, t1, t2;
  Eigen::Matrix2d D;  // T^T W T
  Eigen::Vector2d b;  // T^T W n
  double a;           // n^T W n
};

// The frame of p with t1 = first_tangent(n) (a unit vector normal to n) and t2 = n x t1. Each
// caller keeps its own t1: its random instances draw tangential angles in that basis.
template <class FirstTangent>
Frame frame_of(const ContactProblem<double>& p, FirstTangent first_tangent) {
  Frame f;
  f.n = to_e(p.n).normalized();
  f.t1 = first_tangent(f.n);
  f.t2 = f.n.cross(f.t1);
  const Eigen::Matrix3d W = W_of(p);
  Eigen::Matrix<double, 3, 2> T;
  T.col(0) = f.t1;
  T.col(1) = f.t2;
  f.D = T.transpose() * W * T;
  f.b = T.transpose() * W * f.n;
  f.a = f.n.dot(W * f.n);
  return f;
}

// Sticking ratio: the tangential tau with the tangential part of W (n + tau) = 0.
inline Eigen::Vector2d stick_ratio(const Frame& f) { return -f.D.ldlt().solve(f.b); }

// The world direction of the tangent at angle th from t1.
inline Eigen::Vector3d tangent_at(const Frame& f, double th) { return std::cos(th) * f.t1 + std::sin(th) * f.t2; }

// Invariant slip rays: angles th where F(u) = b - mu D u is parallel to u = (cos th, sin th), the
// sign changes of k(th) = u_perp . F(u) found by a scan of `scan` points over [0, 2 pi) and
// bisected to adjacent doubles; each with g = u . F(u) (> 0: moving away from v_t = 0, < 0:
// approaching it).
struct Ray {
  double th, g;
};
inline std::vector<Ray> invariant_rays(const Frame& f, double mu, int scan) {
  auto F = [&](double th) { return Eigen::Vector2d(f.b - mu * f.D * Eigen::Vector2d(std::cos(th), std::sin(th))); };
  auto k = [&](double th) {
    const Eigen::Vector2d Fu = F(th);
    return std::cos(th) * Fu.y() - std::sin(th) * Fu.x();
  };
  std::vector<Ray> out;
  for (int i = 0; i < scan; ++i) {
    double lo = 2 * M_PI * i / scan, hi = 2 * M_PI * (i + 1) / scan, klo = k(lo);
    if ((klo < 0) == (k(hi) < 0)) continue;
    for (int it = 0; it < 200; ++it) {  // past the adjacent doubles each step leaves lo and hi as they are
      const double mid = 0.5 * (lo + hi), km = k(mid);
      if ((km < 0) == (klo < 0)) {
        lo = mid;
        klo = km;
      } else {
        hi = mid;
      }
    }
    const double th = 0.5 * (lo + hi);
    out.push_back(Ray{th, Eigen::Vector2d(std::cos(th), std::sin(th)).dot(F(th))});
  }
  return out;
}

}  // namespace impact::testing
