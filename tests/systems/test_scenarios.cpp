// Study scenarios (systems/scenarios.hpp): contact-space mapping against body-level physics computed
// independently here (energies, contact velocities, momenta), the papers' printed numbers (Jia 2013
// Sections 8.1 and 8.2), and the documented statuses of bad parameter values.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include <Eigen/Dense>
#include <Eigen/Geometry>

#include "impact/rmath.hpp"
#include "systems/bodies.hpp"
#include "impact/laws/jia.hpp"
#include "impact/laws/stronge.hpp"
#include "random_instances.hpp"
#include "systems/sample_spec.hpp"
#include "systems/scenarios.hpp"

using namespace impact;
using namespace impact::systems;
namespace ri = impact::randinst;
namespace sd = impact::systems::scenario_detail;

namespace {

constexpr double kPi = 3.14159265358979323846;
const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

const systems::ScenarioInfo& scn(const char* name) {
  const systems::ScenarioInfo* s = find_scenario(name);
  if (!s) throw std::runtime_error(std::string("no scenario ") + name);
  return *s;
}

std::vector<double> defaults(const systems::ScenarioInfo& s) {
  std::vector<double> v;
  for (const systems::ScenarioParam& p : s.params) v.push_back(p.value);
  return v;
}

double& at(std::vector<double>& v, const systems::ScenarioInfo& s, const char* name) {
  const int i = s.index_of(name);
  if (i < 0) throw std::runtime_error(std::string("no parameter ") + name + " in " + s.name);
  return v[static_cast<std::size_t>(i)];
}
double get(const std::vector<double>& v, const systems::ScenarioInfo& s, const char* name) {
  return at(const_cast<std::vector<double>&>(v), s, name);
}
Eigen::Vector3d get3(const std::vector<double>& v, const systems::ScenarioInfo& s, const char* a, const char* b, const char* c) {
  return Eigen::Vector3d(get(v, s, a), get(v, s, b), get(v, s, c));
}

Status build(const systems::ScenarioInfo& s, const std::vector<double>& v, ContactProblem<double>* p) {
  return s.build(v.data(), p);
}
Status build(const systems::ScenarioInfo& s, const std::vector<double>& v) {
  ContactProblem<double> p{};
  return s.build(v.data(), &p);
}

std::vector<double> body(const systems::ScenarioInfo& s, const std::vector<double>& v, const Eigen::Vector3d& P) {
  std::vector<double> out(s.body_outputs.size(), kNaN);
  const double Pa[3] = {P.x(), P.y(), P.z()};
  s.body(v.data(), Pa, out.data());
  return out;
}

Eigen::Vector3d v3(const double* x) { return Eigen::Vector3d(x[0], x[1], x[2]); }

Eigen::Matrix3d rotvec(const Eigen::Vector3d& r) {
  const double a = r.norm();
  return a > 0 ? Eigen::AngleAxisd(a, r / a).toRotationMatrix() : Eigen::Matrix3d::Identity();
}
Eigen::Vector3d to_rotvec(const Eigen::Matrix3d& R) {
  const Eigen::AngleAxisd aa(R);
  return aa.angle() * aa.axis();
}

// ---- independent body-level physics (written here, not taken from scenarios.cpp) ---------------

// Pencil of Jia Section 8.2 integrated in thin discs along the axis (z from the vertex; radius
// r z/h2 on the cone, r on the cylinder), three-point Gauss-Legendre per piece: exact for the
// polynomial integrands (degree <= 4). Returns h (COM from the vertex), Q11 and Q33 about the COM.
struct PencilMass {
  double h, Q11, Q33, m1, m2;
};
PencilMass pencil_by_slices(double r, double h1, double h2, double m) {
  const double xg[3] = {-std::sqrt(0.6), 0.0, std::sqrt(0.6)}, wg[3] = {5.0 / 9, 8.0 / 9, 5.0 / 9};
  auto integrate = [&](auto f) {  // over [0, h2] and [h2, h2 + h1] of f(z, rho(z)) dz
    double s = 0;
    const double lo[2] = {0.0, h2}, hi[2] = {h2, h2 + h1};
    for (int piece = 0; piece < 2; ++piece) {
      const double c = 0.5 * (lo[piece] + hi[piece]), hw = 0.5 * (hi[piece] - lo[piece]);
      for (int k = 0; k < 3; ++k) {
        const double z = c + hw * xg[k];
        const double rho = piece == 0 ? r * z / h2 : r;
        s += hw * wg[k] * f(z, rho);
      }
    }
    return s;
  };
  const double vol = integrate([](double, double rho) { return rho * rho; });  // volume / pi
  const double dens = m / vol;
  const double h = integrate([&](double z, double rho) { return rho * rho * z; }) / vol;
  // thin disc of radius rho: about a diameter rho^2/4 per unit mass, about its axis rho^2/2
  const double Q11 = dens * integrate([&](double z, double rho) { return rho * rho * (rho * rho / 4 + (z - h) * (z - h)); });
  const double Q33 = dens * integrate([&](double, double rho) { return rho * rho * rho * rho / 2; });
  const double m2 = dens * r * r * h2 / 3;
  return PencilMass{h, Q11, Q33, m - m2, m2};
}

// Jia (2013) eq. (85) as printed (transcribed here independently of scenarios.cpp).
double jia_eq85(double r, double h1, double h2, double m) {
  const double h = (6 * h1 * h1 + 12 * h1 * h2 + 3 * h2 * h2) / (12 * h1 + 4 * h2);
  const double l = h1 / 2 + h2 - h;
  return m / (h1 + h2 / 3) * (h1 * ((3 * r * r + h1 * h1) / 12 + l * l) + h2 / 3 * (3.0 / 5 * (r * r / 4 + h2 * h2) + h * h));
}

Eigen::Matrix3d jia_R(double th) {  // eq. (86)
  Eigen::Matrix3d R;
  R << std::sin(th), 0, std::cos(th), 0, 1, 0, -std::cos(th), 0, std::sin(th);
  return R;
}

// Spatial double pendulum of double-pendulum-3d, written independently: rotations composed with
// Eigen's AngleAxis, angular velocity from the skew part of dR/dt R^T with dR/dt by the product rule.
struct Pend3 {
  Eigen::Matrix3d R1, R2;
  Eigen::Vector3d d1, d2;
};
Eigen::Matrix3d euler123(double a, double b, double c) {
  return (Eigen::AngleAxisd(a, Eigen::Vector3d::UnitX()) * Eigen::AngleAxisd(b, Eigen::Vector3d::UnitY()) *
          Eigen::AngleAxisd(c, Eigen::Vector3d::UnitZ()))
      .toRotationMatrix();
}
Eigen::Matrix3d hat(const Eigen::Vector3d& x) {
  Eigen::Matrix3d S;
  S << 0, -x.z(), x.y(), x.z(), 0, -x.x(), -x.y(), x.x(), 0;
  return S;
}
Eigen::Vector3d omega_123(double a, double b, double c, double ad, double bd, double cd) {
  const Eigen::Matrix3d Rx = Eigen::AngleAxisd(a, Eigen::Vector3d::UnitX()).toRotationMatrix();
  const Eigen::Matrix3d Ry = Eigen::AngleAxisd(b, Eigen::Vector3d::UnitY()).toRotationMatrix();
  const Eigen::Matrix3d Rz = Eigen::AngleAxisd(c, Eigen::Vector3d::UnitZ()).toRotationMatrix();
  const Eigen::Matrix3d Rdot = hat(Eigen::Vector3d::UnitX()) * Rx * Ry * Rz * ad +
                               Rx * hat(Eigen::Vector3d::UnitY()) * Ry * Rz * bd +
                               Rx * Ry * hat(Eigen::Vector3d::UnitZ()) * Rz * cd;
  const Eigen::Matrix3d W = Rdot * (Rx * Ry * Rz).transpose();
  return Eigen::Vector3d(W(2, 1) - W(1, 2), W(0, 2) - W(2, 0), W(1, 0) - W(0, 1)) / 2;
}
Eigen::Vector3d pend3_tip(const double* q, double L) {
  const Eigen::Vector3d ax(0, 0, -L);
  return euler123(q[0], q[1], q[2]) * ax + euler123(q[3], q[4], q[5]) * ax;
}

// Kinetic energy and contact velocity (body 1's contact point relative to body 2's) of a scenario's
// bodies at the given velocities, laid out as the scenario's body_outputs.
struct BodyState {
  double K;
  Eigen::Vector3d vc;
};

// The pre-impact velocities of a scenario, in its body_outputs layout, read from the parameters.
std::vector<double> initial_velocities(const systems::ScenarioInfo& s, const std::vector<double>& v) {
  std::vector<const char*> keys;
  if (s.name == "ball") keys = {"V0x", "V0y", "V0z", "w0x", "w0y", "w0z"};
  if (s.name == "ball-oblique") {  // V0 from the speed and the angles, computed here
    const double sp = get(v, s, "speed"), a = get(v, s, "angle") * M_PI / 180, b = get(v, s, "azimuth") * M_PI / 180;
    return {sp * std::sin(a) * std::cos(b),
            sp * std::sin(a) * std::sin(b),
            -sp * std::cos(a),
            get(v, s, "w0x"),
            get(v, s, "w0y"),
            get(v, s, "w0z")};
  }
  if (s.name == "pencil") keys = {"V0x", "V0y", "V0z", "w01", "w02", "w03"};
  if (s.name == "double-pendulum-2d") keys = {"q1dot", "q2dot"};
  if (s.name == "double-pendulum-3d") keys = {"q1dot", "q2dot", "q3dot", "q4dot", "q5dot", "q6dot"};
  if (s.name == "two-bodies") keys = {"V1x", "V1y", "V1z", "w1x", "w1y", "w1z", "V2x", "V2y", "V2z", "w2x", "w2y", "w2z"};
  std::vector<double> out;
  for (const char* k : keys) out.push_back(get(v, s, k));
  return out;
}

// Body b (0: above, 1: below) of a two-bodies sample, computed here from the parameters: mass, the
// support point (the contact point, at the origin, relative to the COM) and the world inertia about
// the COM (solid box m(b^2 + c^2)/3, solid ellipsoid m(b^2 + c^2)/5, ...).
struct TwoBodyPart {
  double m;
  Eigen::Vector3d sp;
  Eigen::Matrix3d Iw;
};
TwoBodyPart two_body_part(const systems::ScenarioInfo& s, const std::vector<double>& v, int b) {
  const std::string k = std::to_string(b + 1);
  const int shape = static_cast<int>(get(v, s, ("shape" + k).c_str()));
  const double m = get(v, s, ("m" + k).c_str());
  const double abc[3] = {get(v, s, ("a" + k).c_str()), get(v, s, ("b" + k).c_str()), get(v, s, ("c" + k).c_str())};
  const double rv[3] = {get(v, s, ("rx" + k).c_str()), get(v, s, ("ry" + k).c_str()), get(v, s, ("rz" + k).c_str())};
  const double dir[3] = {0, 0, b == 0 ? -1.0 : 1.0};
  double sp[3];
  sd::support_point(shape, abc, rv, dir, sp);
  const Eigen::Matrix3d R = rotvec(v3(rv));
  const double f = shape == 0 ? 1.0 / 3 : 1.0 / 5;
  const Eigen::Matrix3d Ib =
      (f * m *
       Eigen::Vector3d(abc[1] * abc[1] + abc[2] * abc[2], abc[0] * abc[0] + abc[2] * abc[2], abc[0] * abc[0] + abc[1] * abc[1]))
          .asDiagonal();
  return {m, v3(sp), R * Ib * R.transpose()};
}

BodyState body_state(const systems::ScenarioInfo& s, const std::vector<double>& v, const std::vector<double>& o) {
  if (s.name == "ball" || s.name == "ball-oblique") {
    const double m = get(v, s, "m"), r = get(v, s, "r");
    const Eigen::Vector3d V = v3(&o[0]), w = v3(&o[3]);
    return {0.5 * m * V.squaredNorm() + 0.5 * 0.4 * m * r * r * w.squaredNorm(), V + w.cross(Eigen::Vector3d(0, 0, -r))};
  }
  if (s.name == "pencil") {
    const double r = get(v, s, "r"), h1 = get(v, s, "h1"), h2 = get(v, s, "h2"), m = get(v, s, "m");
    const PencilMass pm = pencil_by_slices(r, h1, h2, m);
    const double Q11 = get(v, s, "eq85") == 1.0 ? jia_eq85(r, h1, h2, m) : pm.Q11;
    const Eigen::Vector3d V = v3(&o[0]), wp = v3(&o[3]);
    const Eigen::Matrix3d R = jia_R(get(v, s, "theta"));
    const double K = 0.5 * m * V.squaredNorm() + 0.5 * (Q11 * (wp.x() * wp.x() + wp.y() * wp.y()) + pm.Q33 * wp.z() * wp.z());
    return {K, V + R * wp.cross(Eigen::Vector3d(0, 0, -pm.h))};  // eq. (88), first line
  }
  if (s.name == "double-pendulum-2d") {
    const double q1 = get(v, s, "q1"), q2 = get(v, s, "q2"), m = get(v, s, "m"), r = get(v, s, "r");
    const double u1 = o[0], u2 = o[1];
    const Eigen::Vector2d e1(-std::sin(q1), std::cos(q1)), e12(-std::sin(q1 + q2), std::cos(q1 + q2));
    const Eigen::Vector2d vc1 = 0.5 * r * u1 * e1, vc2 = r * u1 * e1 + 0.5 * r * (u1 + u2) * e12;
    const Eigen::Vector2d tip = r * u1 * e1 + r * (u1 + u2) * e12;
    const double K =
        0.5 * m * (vc1.squaredNorm() + vc2.squaredNorm()) + 0.5 * (m * r * r / 12) * (u1 * u1 + (u1 + u2) * (u1 + u2));
    return {K, Eigen::Vector3d(tip.x(), tip.y(), 0)};
  }
  if (s.name == "double-pendulum-3d") {
    double q[6];
    const char* qn[6] = {"q1", "q2", "q3", "q4", "q5", "q6"};
    for (int i = 0; i < 6; ++i) q[i] = get(v, s, qn[i]);
    const double m = get(v, s, "m"), L = get(v, s, "L"), a = get(v, s, "a");
    const Eigen::Matrix3d R1 = euler123(q[0], q[1], q[2]), R2 = euler123(q[3], q[4], q[5]);
    const Eigen::Vector3d d1 = R1 * Eigen::Vector3d(0, 0, -L), d2 = R2 * Eigen::Vector3d(0, 0, -L);
    const Eigen::Vector3d w1 = omega_123(q[0], q[1], q[2], o[0], o[1], o[2]);
    const Eigen::Vector3d w2 = omega_123(q[3], q[4], q[5], o[3], o[4], o[5]);
    const Eigen::Matrix3d Ib =
        Eigen::Vector3d(m * (3 * a * a + L * L) / 12, m * (3 * a * a + L * L) / 12, m * a * a / 2).asDiagonal();
    const Eigen::Vector3d Vc1 = w1.cross(d1 / 2), Vc2 = w1.cross(d1) + w2.cross(d2 / 2);
    const double K = 0.5 * m * (Vc1.squaredNorm() + Vc2.squaredNorm()) + 0.5 * w1.dot(R1 * Ib * R1.transpose() * w1) +
                     0.5 * w2.dot(R2 * Ib * R2.transpose() * w2);
    return {K, w1.cross(d1) + w2.cross(d2)};
  }
  if (s.name == "two-bodies") {
    double K = 0;
    Eigen::Vector3d vc = Eigen::Vector3d::Zero();
    for (int b = 0; b < 2; ++b) {
      const TwoBodyPart part = two_body_part(s, v, b);
      const Eigen::Vector3d V = v3(&o[6 * b]), w = v3(&o[6 * b + 3]);
      K += 0.5 * part.m * V.squaredNorm() + 0.5 * w.dot(part.Iw * w);
      // the contact point (origin) relative to the COM is the support point offset
      vc += (b == 0 ? 1.0 : -1.0) * (V + w.cross(part.sp));
    }
    return {K, vc};
  }
  ADD_FAILURE() << "no body state for " << s.name;
  return {0, Eigen::Vector3d::Zero()};
}

// Random valid parameter values of a scenario (rejection until build() is ok).
std::vector<double> random_values(const systems::ScenarioInfo& s, ri::Rng& rng) {
  for (int attempt = 0; attempt < 10000; ++attempt) {
    std::vector<double> v = defaults(s);
    at(v, s, "mu") = ri::uniform(rng, 0, 1);
    at(v, s, "e") = ri::uniform(rng, 0, 1);
    at(v, s, "e_t") = ri::uniform(rng, -1, 1);
    at(v, s, "eta0") = ri::uniform(rng, 0.5, 3);
    if (s.name == "contact") {
      for (const char* k : {"w1", "w2", "w3"}) at(v, s, k) = ri::log_uniform(rng, 0.05, 20);
      for (const char* k : {"rx", "ry", "rz"}) at(v, s, k) = ri::uniform(rng, -4, 4);
      at(v, s, "vn") = ri::uniform(rng, -1, 3);
      at(v, s, "vt") = ri::uniform(rng, -2, 2);
      at(v, s, "phi") = ri::uniform(rng, -7, 7);
    } else if (s.name == "ball") {
      at(v, s, "m") = ri::log_uniform(rng, 0.1, 10);
      at(v, s, "r") = ri::log_uniform(rng, 0.05, 3);
      for (const char* k : {"V0x", "V0y", "V0z", "w0x", "w0y", "w0z"}) at(v, s, k) = ri::normal(rng, 3);
    } else if (s.name == "ball-oblique") {
      at(v, s, "m") = ri::log_uniform(rng, 0.1, 10);
      at(v, s, "r") = ri::log_uniform(rng, 0.05, 3);
      at(v, s, "speed") = ri::log_uniform(rng, 0.1, 10);
      at(v, s, "angle") = ri::uniform(rng, 0, 89);
      at(v, s, "azimuth") = ri::uniform(rng, -180, 180);
      for (const char* k : {"w0x", "w0y", "w0z"}) at(v, s, k) = ri::normal(rng, 3);
    } else if (s.name == "pencil") {
      at(v, s, "r") = ri::log_uniform(rng, 0.05, 1);
      at(v, s, "h1") = ri::log_uniform(rng, 0.3, 6);
      at(v, s, "h2") = ri::log_uniform(rng, 0.1, 1.5);
      at(v, s, "m") = ri::log_uniform(rng, 0.1, 5);
      const double lo = std::atan2(get(v, s, "r"), get(v, s, "h2"));
      at(v, s, "theta") = ri::uniform(rng, lo + 1e-3, kPi / 2);
      at(v, s, "eq85") = ri::coin(rng) ? 1.0 : 0.0;
      for (const char* k : {"V0x", "V0y", "V0z", "w01", "w02", "w03"}) at(v, s, k) = ri::normal(rng, 3);
    } else if (s.name == "double-pendulum-2d") {
      at(v, s, "q1") = ri::uniform(rng, -kPi, kPi);
      at(v, s, "q2") = ri::uniform(rng, -kPi, kPi);
      if (std::abs(std::sin(get(v, s, "q2"))) < 0.05) continue;  // nearly straight or folded
      at(v, s, "q1dot") = ri::normal(rng, 2);
      at(v, s, "q2dot") = ri::normal(rng, 2);
      at(v, s, "m") = ri::log_uniform(rng, 0.1, 10);
      at(v, s, "r") = ri::log_uniform(rng, 0.1, 3);
    } else if (s.name == "double-pendulum-3d") {
      for (const char* k : {"q1", "q3", "q4", "q6"}) at(v, s, k) = ri::uniform(rng, -kPi, kPi);
      for (const char* k : {"q2", "q5"}) at(v, s, k) = ri::uniform(rng, -1.4, 1.4);
      for (const char* k : {"q1dot", "q2dot", "q3dot", "q4dot", "q5dot", "q6dot"}) at(v, s, k) = ri::normal(rng, 2);
      at(v, s, "m") = ri::log_uniform(rng, 0.1, 10);
      at(v, s, "L") = ri::log_uniform(rng, 0.1, 3);
      at(v, s, "a") = get(v, s, "L") * ri::log_uniform(rng, 0.02, 0.3);
      double q[6];
      const char* qn[6] = {"q1", "q2", "q3", "q4", "q5", "q6"};
      for (int i = 0; i < 6; ++i) q[i] = get(v, s, qn[i]);
      const Eigen::Vector3d d1 = euler123(q[0], q[1], q[2]).col(2), d2 = euler123(q[3], q[4], q[5]).col(2);
      if (d1.cross(d2).norm() < 0.1) continue;  // nearly aligned bodies: W nearly singular
    } else if (s.name == "two-bodies") {
      at(v, s, "shape1") = ri::coin(rng) ? 1.0 : 0.0;
      at(v, s, "shape2") = ri::coin(rng) ? 1.0 : 0.0;
      at(v, s, "m1") = ri::log_uniform(rng, 0.1, 10);
      at(v, s, "m2") = ri::log_uniform(rng, 0.1, 10);
      for (const char* k : {"a1", "b1", "c1", "a2", "b2", "c2"}) at(v, s, k) = ri::log_uniform(rng, 0.1, 2);
      for (const char* k : {"rx1", "ry1", "rz1", "rx2", "ry2", "rz2"}) at(v, s, k) = ri::normal(rng, 2);
      for (const char* k : {"V1x", "V1y", "V1z", "w1x", "w1y", "w1z", "V2x", "V2y", "V2z", "w2x", "w2y", "w2z"})
        at(v, s, k) = ri::normal(rng, 2);
    }
    if (build(s, v) == Status::ok) return v;
  }
  ADD_FAILURE() << "no valid random values for " << s.name;
  return defaults(s);
}

double max_abs(const Eigen::MatrixXd& A) { return A.cwiseAbs().maxCoeff(); }

const char* const kNames[] = {"contact",   "ball", "ball-oblique", "pencil", "double-pendulum-2d", "double-pendulum-3d",
                              "two-bodies"};

}  // namespace

// ---- registry ----------------------------------------------------------------------------------

TEST(Scenarios, RegistryNamesParamsAndLookup) {
  ASSERT_EQ(all_scenarios().size(), 7u);
  for (std::size_t i = 0; i < 7; ++i) EXPECT_EQ(all_scenarios()[i].name, kNames[i]);
  EXPECT_EQ(scenario_list(), "contact, ball, ball-oblique, pencil, double-pendulum-2d, double-pendulum-3d, two-bodies");
  EXPECT_EQ(find_scenario("nope"), nullptr);
  EXPECT_EQ(find_scenario(""), nullptr);
  EXPECT_EQ(find_scenario("Ball"), nullptr);
  for (const systems::ScenarioInfo& s : all_scenarios()) {
    SCOPED_TRACE(s.name);
    EXPECT_EQ(find_scenario(s.name), &s);
    EXPECT_FALSE(s.summary.empty());
    ASSERT_NE(s.build, nullptr);
    ASSERT_NE(s.body, nullptr);
    for (std::size_t i = 0; i < s.params.size(); ++i) {
      EXPECT_EQ(s.index_of(s.params[i].name), static_cast<int>(i)) << s.params[i].name;  // unique names
      // every parameter states its unit and symbol apart from its meaning
      EXPECT_FALSE(std::string(s.params[i].unit).empty()) << s.params[i].name;
      EXPECT_FALSE(std::string(s.params[i].symbol).empty()) << s.params[i].name;
      EXPECT_FALSE(std::string(s.params[i].help).empty()) << s.params[i].name;
    }
    EXPECT_EQ(s.index_of("nope"), -1);
    for (const char* k : {"mu", "e", "e_t", "eta0"}) EXPECT_GE(s.index_of(k), 0) << k;
    const std::vector<double> d = defaults(s);
    EXPECT_DOUBLE_EQ(get(d, s, "eta0"), std::sqrt(17.0 / 14.0));
    EXPECT_EQ(get(d, s, "e_t"), 0.0);
    EXPECT_EQ(get(d, s, "e"), 0.5);
    EXPECT_EQ(get(d, s, "mu"), s.name == "pencil" ? 0.8 : 0.4);  // Jia (90) for the pencil
  }
  EXPECT_TRUE(scn("contact").body_outputs.empty());
  const auto names = [](const std::vector<engine::ColumnInfo>& cols) {
    std::vector<std::string> n;
    for (const engine::ColumnInfo& c : cols) n.push_back(c.name);
    return n;
  };
  EXPECT_EQ(names(scn("ball").body_outputs), (std::vector<std::string>{"Vx", "Vy", "Vz", "wx", "wy", "wz"}));
  EXPECT_EQ(names(scn("ball-oblique").body_outputs), names(scn("ball").body_outputs));
  for (const systems::ScenarioInfo& s : all_scenarios())
    for (const engine::ColumnInfo& o : s.body_outputs) {
      EXPECT_FALSE(o.unit.empty()) << s.name << " " << o.name;
      EXPECT_FALSE(o.symbol.empty()) << s.name << " " << o.name;
      EXPECT_FALSE(o.meaning.empty()) << s.name << " " << o.name;
    }
  EXPECT_EQ(scn("double-pendulum-2d").body_outputs.size(), 2u);
  EXPECT_EQ(scn("double-pendulum-3d").body_outputs.size(), 6u);
  EXPECT_EQ(scn("two-bodies").body_outputs.size(), 12u);
}

TEST(Scenarios, BallKeysAreThoseOfImpactReduce) {
  const systems::ScenarioInfo& s = scn("ball");
  const std::vector<systems::SpecKey>& keys = spec_keys(impact::Scenario::ball);
  ASSERT_EQ(keys.size(), s.params.size());
  for (std::size_t i = 0; i < keys.size(); ++i) EXPECT_STREQ(keys[i].name, s.params[i].name);
}

TEST(Scenarios, DefaultsBuildAndValidate) {
  for (const systems::ScenarioInfo& s : all_scenarios()) {
    SCOPED_TRACE(s.name);
    ContactProblem<double> p{};
    ASSERT_EQ(build(s, defaults(s), &p), Status::ok);
    EXPECT_EQ(validate(p, ParamUse{true, true, true, false}), Status::ok);
    const double P[3] = {0.1, -0.2, 0.7};
    std::vector<double> out(s.body_outputs.size(), kNaN);
    s.body(defaults(s).data(), P, out.data());
    for (double x : out) EXPECT_TRUE(std::isfinite(x));
  }
}

// ---- (a)-(c): W SPD, energy and contact velocity from the body level --------------------------

TEST(Scenarios, BodyLevelEnergyAndContactVelocityMatchContactSpace) {
  ri::Rng rng(20240611);
  for (const systems::ScenarioInfo& s : all_scenarios()) {
    double worst_E = 0, worst_v = 0, worst_v0 = 0;
    for (int i = 0; i < 200; ++i) {
      SCOPED_TRACE(s.name + " sample " + std::to_string(i));
      const std::vector<double> v = random_values(s, rng);
      ContactProblem<double> p{};
      ASSERT_EQ(build(s, v, &p), Status::ok);
      const Eigen::Matrix3d W = to_eigen(p.W);
      const Eigen::Vector3d v0 = to_eigen(p.v0), n = to_eigen(p.n);
      // (a) W symmetric positive definite, n a unit vector
      ASSERT_LE(max_abs(W - W.transpose()), 0.0);
      const Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> es(W);
      ASSERT_GT(es.eigenvalues().minCoeff(), 1e-12 * es.eigenvalues().maxCoeff());
      ASSERT_NEAR(n.norm(), 1.0, 1e-15);
      if (s.name == "contact") {
        // W's eigenvalues are the parameters, its eigenvectors the rotated axes; v0 as documented
        const Eigen::Matrix3d R = rotvec(get3(v, s, "rx", "ry", "rz"));
        const Eigen::Vector3d w = get3(v, s, "w1", "w2", "w3");
        for (int k = 0; k < 3; ++k) ASSERT_LE((W * R.col(k) - w(k) * R.col(k)).norm(), 1e-12 * w.maxCoeff());
        const double vt = get(v, s, "vt"), phi = get(v, s, "phi");
        // bit for bit, with the scenarios' trigonometry (rmath: the same bits on every machine)
        ASSERT_LE((v0 - Eigen::Vector3d(vt * rmath::cos(phi), vt * rmath::sin(phi), -get(v, s, "vn"))).norm(), 0.0);
        ASSERT_EQ(n, Eigen::Vector3d::UnitZ());
        continue;
      }
      Eigen::Vector3d P = ri::normal_vec3(rng, 2.0);
      if (s.name == "double-pendulum-2d") {
        P.z() = 0;  // planar: the out-of-plane impulse is carried by the joints (bodies.hpp)
        ASSERT_EQ(n, Eigen::Vector3d::UnitY());
      } else {
        ASSERT_EQ(n, Eigen::Vector3d::UnitZ());
      }
      const BodyState b0 = body_state(s, v, initial_velocities(s, v));
      const BodyState b1 = body_state(s, v, body(s, v, P));
      const double vscale = v0.norm() + (W * P).norm();
      // the initial contact velocity of the bodies is v0
      worst_v0 = std::max(worst_v0, (b0.vc - v0).norm() / vscale);
      ASSERT_LE((b0.vc - v0).norm(), 1e-12 * vscale);
      // (b) dK from the bodies = v0.P + 1/2 P^T W P
      const double dE = v0.dot(P) + 0.5 * P.dot(W * P);
      const double Escale = b0.K + b1.K;
      worst_E = std::max(worst_E, std::abs(b1.K - b0.K - dE) / Escale);
      ASSERT_LE(std::abs(b1.K - b0.K - dE), 1e-12 * Escale) << b0.K << " " << b1.K << " " << dE;
      // (c) contact velocity after = v0 + W P
      worst_v = std::max(worst_v, (b1.vc - (v0 + W * P)).norm() / vscale);
      ASSERT_LE((b1.vc - (v0 + W * P)).norm(), 1e-12 * vscale);
    }
    std::printf("[ Scenarios ] %-19s 200 samples: max rel err  dK %.2g  v_after %.2g  v0 %.2g\n", s.name.c_str(), worst_E,
                worst_v, worst_v0);
  }
}

// Every law outcome mapped back through body(): the body-level energy change is the law's dE.
TEST(Scenarios, LawOutcomeEnergyAtTheBodyLevel) {
  for (const systems::ScenarioInfo& s : all_scenarios()) {
    if (s.body_outputs.empty()) continue;
    SCOPED_TRACE(s.name);
    const std::vector<double> v = defaults(s);
    ContactProblem<double> p{};
    ASSERT_EQ(build(s, v, &p), Status::ok);
    const Result<double> r = StrongeLaw::eval<double>(p);
    ASSERT_EQ(r.status, Status::ok);
    const BodyState b0 = body_state(s, v, initial_velocities(s, v));
    const BodyState b1 = body_state(s, v, body(s, v, to_eigen(r.P)));
    EXPECT_NEAR(b1.K - b0.K, r.dE, 1e-10 * b0.K);
    EXPECT_LE(b1.K, b0.K * (1 + 1e-12));
    EXPECT_NEAR((b1.vc - to_eigen(r.vf)).norm(), 0.0, 1e-10 * to_eigen(p.v0).norm());
    if (s.name == "double-pendulum-2d" || s.name == "double-pendulum-3d") {
      // documented choice of the defaults: slip, then stick in compression (Morgan Fig. 2.7; the
      // Rodriguez-Bowling example sticks in compression too)
      EXPECT_EQ(r.modes.at(0), Mode::slip);
      EXPECT_EQ(r.modes.at(1), Mode::stick);
      ContactProblem<double> plastic = p;  // e = 0 ends at compression: it sticks before that
      plastic.e = 0.0;
      const Result<double> r0 = StrongeLaw::eval<double>(plastic);
      ASSERT_EQ(r0.status, Status::ok);
      EXPECT_EQ(r0.modes.at(1), Mode::stick);
    }
    std::printf("[ Scenarios ] %-19s defaults, stronge: P = (%.6g, %.6g, %.6g), K %.6g -> %.6g, modes %d:%d:%d\n", s.name.c_str(),
                r.P.x, r.P.y, r.P.z, b0.K, b1.K, int(r.modes.at(0)), int(r.modes.at(1)), int(r.modes.at(2)));
  }
}

// ---- ball: Jia (2013) Section 8.1 -----------------------------------------------------------------

TEST(ScenarioBall, JiaSection81) {
  const systems::ScenarioInfo& s = scn("ball");
  std::vector<double> v = defaults(s);
  ContactProblem<double> p{};
  ASSERT_EQ(build(s, v, &p), Status::ok);
  // eqs. (81)-(82): W = 1/m - S = diag(1 + 5/2, 1 + 5/2, 1) for m = r = 1
  EXPECT_LE(max_abs(to_eigen(p.W) - Eigen::Vector3d(3.5, 3.5, 1.0).asDiagonal().toDenseMatrix()), 1e-15);
  // V0 = (-1, 0, -5), w0 = (0, 2, 0) give v0 = (-3, 0, -5) (Section 8.1.1)
  EXPECT_LE((to_eigen(p.v0) - Eigen::Vector3d(-3, 0, -5)).norm(), 1e-15);
  EXPECT_EQ(p.mu, 0.4);
  EXPECT_EQ(p.e, 0.5);
  // scaling: W = 1/m diag(1 + 5/2, 1 + 5/2, 1) for any r
  at(v, s, "m") = 2.0;
  at(v, s, "r") = 0.3;
  ASSERT_EQ(build(s, v, &p), Status::ok);
  EXPECT_LE(max_abs(to_eigen(p.W) - Eigen::Vector3d(1.75, 1.75, 0.5).asDiagonal().toDenseMatrix()), 1e-15);

  // Section 8.1.4 (reproduced by the jia law, NOTES.md): e = 0 and e = 1 through body()
  struct Case {
    double e, Vx, Vz, wy;
  } cases[] = {{0.0, 0.554553, 0.0, -1.88638}, {1.0, -0.089745, 5.0, -0.275637}};
  for (const Case& c : cases) {
    std::vector<double> d = defaults(s);
    at(d, s, "e") = c.e;
    ASSERT_EQ(build(s, d, &p), Status::ok);
    LawOptions o;
    o.steps = 2000;
    const Result<double> r = JiaLaw::eval(p, o);
    ASSERT_EQ(r.status, Status::ok);
    const std::vector<double> out = body(s, d, to_eigen(r.P));
    EXPECT_NEAR(out[0], c.Vx, 1e-4);
    EXPECT_NEAR(out[1], 0.0, 1e-12);
    EXPECT_NEAR(out[2], c.Vz, 1e-9);
    EXPECT_NEAR(out[3], 0.0, 1e-12);
    EXPECT_NEAR(out[4], c.wy, 1e-4);
    EXPECT_NEAR(out[5], 0.0, 1e-12);
  }
}

// ---- pencil: Jia (2013) Section 8.2 -----------------------------------------------------------------

TEST(ScenarioPencil, HAndInertiaAgainstSlices) {
  ri::Rng rng(85);
  for (int i = 0; i < 100; ++i) {
    const double r = ri::log_uniform(rng, 0.05, 2), h1 = ri::log_uniform(rng, 0.1, 6), h2 = ri::log_uniform(rng, 0.1, 2),
                 m = ri::log_uniform(rng, 0.1, 10);
    const PencilMass pm = pencil_by_slices(r, h1, h2, m);
    // Jia's h formula is the centre of mass
    ASSERT_NEAR(sd::pencil_com_height(h1, h2), pm.h, 1e-13 * (h1 + h2));
    double Q11 = 0, Q33 = 0, Q85 = 0, Q33b = 0;
    sd::pencil_inertia(r, h1, h2, m, false, &Q11, &Q33);
    ASSERT_NEAR(Q11, pm.Q11, 1e-12 * pm.Q11);
    ASSERT_NEAR(Q33, pm.Q33, 1e-12 * pm.Q33);
    // eq. (85) as printed moves the cone's moment from its vertex by h^2 instead of from its centre
    // of mass by (h - 3 h2/4)^2: it exceeds the true Q11 by m2 (3/2) h h2
    sd::pencil_inertia(r, h1, h2, m, true, &Q85, &Q33b);
    ASSERT_NEAR(Q85, jia_eq85(r, h1, h2, m), 1e-13 * Q85);
    ASSERT_NEAR(Q85 - pm.Q11, 1.5 * pm.m2 * pm.h * h2, 1e-11 * pm.Q11);
    ASSERT_EQ(Q33b, Q33);
  }
  // the paper's pencil (89): h = 72.75/38
  const PencilMass pm = pencil_by_slices(0.5, 3, 0.5, 1);
  EXPECT_NEAR(pm.h, 72.75 / 38, 1e-15);
  EXPECT_NEAR(jia_eq85(0.5, 3, 0.5, 1), 0.97944078947368, 1e-12);
  EXPECT_NEAR(pm.Q11, 0.90386945983379, 1e-12);
}

TEST(ScenarioPencil, WAndV0AreJiaEq88) {
  const systems::ScenarioInfo& s = scn("pencil");
  ri::Rng rng(88);
  for (int i = 0; i < 100; ++i) {
    SCOPED_TRACE(i);
    const std::vector<double> v = i == 0 ? defaults(s) : random_values(s, rng);
    ContactProblem<double> p{};
    ASSERT_EQ(build(s, v, &p), Status::ok);
    const double r = get(v, s, "r"), h1 = get(v, s, "h1"), h2 = get(v, s, "h2"), m = get(v, s, "m");
    const double th = get(v, s, "theta"), sn = std::sin(th), cs = std::cos(th);
    const double h = pencil_by_slices(r, h1, h2, m).h;
    const double Q22 = get(v, s, "eq85") == 1.0 ? jia_eq85(r, h1, h2, m) : pencil_by_slices(r, h1, h2, m).Q11;
    Eigen::Matrix3d S;
    S << sn * sn, 0, -sn * cs, 0, 1, 0, -sn * cs, 0, cs * cs;
    const Eigen::Matrix3d W88 = Eigen::Matrix3d::Identity() / m + h * h / Q22 * S;
    const Eigen::Vector3d w0 = get3(v, s, "w01", "w02", "w03");
    const Eigen::Vector3d v88 = get3(v, s, "V0x", "V0y", "V0z") + h * Eigen::Vector3d(-w0.y() * sn, w0.x(), w0.y() * cs);
    EXPECT_LE(max_abs(to_eigen(p.W) - W88), 1e-12 * W88.norm());
    EXPECT_LE((to_eigen(p.v0) - v88).norm(), 1e-12 * v88.norm());
  }
  // the paper's example: "the contact point initially slides at v0 = (-3.50114, -1.91447, 0)"
  // (the tangential part; the normal part is V0z + h w02 cos(theta) = -2.5 - h/4)
  ContactProblem<double> p{};
  ASSERT_EQ(build(s, defaults(s), &p), Status::ok);
  EXPECT_NEAR(p.v0.x, -3.50114, 5e-6);
  EXPECT_NEAR(p.v0.y, -1.91447, 5e-6);
  EXPECT_NEAR(p.v0.z, -2.5 - 72.75 / 38 / 4, 1e-14);
}

TEST(ScenarioPencil, PostImpactVelocitiesOfEq92) {
  // The paper's outcome (92) from its final impulse I = (3.86262, 0.668974, 5.365) (Fig. 17):
  // V = V0 + I/m holds with the printed numbers; omega (eq. 87) needs Q22 = 1.16299, which is
  // eq. (85) evaluated with r = 1, not the printed r = 0.5 (eq. 85 gives 0.97944 there, the exact
  // inertia 0.90387). h does not depend on r, so v0 above is unaffected. body() is evaluated here
  // on those values directly (with r = 1, theta = pi/3 the cone's rim, not the vertex, would be the
  // lowest point, so build() rejects them).
  const systems::ScenarioInfo& s = scn("pencil");
  std::vector<double> v = defaults(s);
  const double I[3] = {3.86262, 0.668974, 5.365};
  const double h = 72.75 / 38;
  const double Q22_implied = h * I[1] / (0.101238 - (-1.0));
  EXPECT_NEAR(Q22_implied, jia_eq85(1.0, 3, 0.5, 1), 2e-5);
  at(v, s, "r") = 1.0;
  at(v, s, "eq85") = 1.0;
  EXPECT_EQ(build(s, v), Status::param_out_of_range);
  const std::vector<double> out = body(s, v, v3(I));
  const double want[6] = {-0.467507, 0.668974, 2.865, 0.101238, -1.59079, -0.5};
  for (int k = 0; k < 6; ++k) EXPECT_NEAR(out[k], want[k], 2e-5) << s.body_outputs[k].name;
  // Not reproduced: the kinetic energies "12.65 -> 4.71624" of the paper correspond to an inertia
  // 0.2 * identity (neither eq. 85 nor the exact one): 1/2 |V|^2 + 0.1 |omega|^2.
  const double K0 = 0.5 * 25 + 0.1 * (1 + 0.25 + 0.25), K1 = 0.5 * (0.467507 * 0.467507 + 0.668974 * 0.668974 + 2.865 * 2.865) +
                                                             0.1 * (0.101238 * 0.101238 + 1.59079 * 1.59079 + 0.25);
  EXPECT_NEAR(K0, 12.65, 1e-12);
  EXPECT_NEAR(K1, 4.71624, 1e-5);
}

TEST(ScenarioPencil, ThetaRange) {
  const systems::ScenarioInfo& s = scn("pencil");
  std::vector<double> v = defaults(s);
  const double lo = std::atan2(0.5, 0.5);  // pi/4 for r = h2
  for (double th : {lo, lo - 1e-9, 0.0, -0.3, kPi / 2 + 1e-12, 2.0, kPi})
    EXPECT_EQ((at(v, s, "theta") = th, build(s, v)), Status::param_out_of_range) << th;
  for (double th : {lo + 1e-9, kPi / 3, kPi / 2}) EXPECT_EQ((at(v, s, "theta") = th, build(s, v)), Status::ok) << th;
  // the vertex is the lowest point exactly above lo: the rim of the cone's base at height
  // h2 sin(theta) - r cos(theta) above the vertex
  at(v, s, "r") = 0.2;
  at(v, s, "theta") = 0.5;  // tan 0.5 = 0.546 > 0.2/0.5
  EXPECT_EQ(build(s, v), Status::ok);
  at(v, s, "r") = 0.3;  // 0.6 > 0.546
  EXPECT_EQ(build(s, v), Status::param_out_of_range);
}

// ---- double-pendulum-2d: Morgan (2011) ch. 2 ---------------------------------------------------

TEST(ScenarioPendulum2d, IsMorgansMechanismAgainstTheFloor) {
  const systems::ScenarioInfo& s = scn("double-pendulum-2d");
  ri::Rng rng(2011);
  for (int i = 0; i < 50; ++i) {
    const std::vector<double> v = i == 0 ? defaults(s) : random_values(s, rng);
    ContactProblem<double> p{};
    ASSERT_EQ(build(s, v, &p), Status::ok);
    const systems::Mechanism mech = morgan_double_pendulum(get(v, s, "q1"), get(v, s, "q2"), get(v, s, "q1dot"),
                                                           get(v, s, "q2dot"), get(v, s, "m"), get(v, s, "r"));
    const systems::ContactSpace cs = contact_space(mech, Eigen::Vector3d::UnitY());
    EXPECT_EQ(to_eigen(p.W), cs.W);
    EXPECT_EQ(to_eigen(p.v0), cs.v0);
    EXPECT_EQ(to_eigen(p.n), Eigen::Vector3d(0, 1, 0));  // J_b (the y row) is the normal velocity
    const Eigen::Vector3d P(ri::normal(rng), ri::normal(rng), 0.0);
    const Eigen::VectorXd u = apply_impulse(mech, P);
    const std::vector<double> out = body(s, v, P);
    EXPECT_EQ(out[0], u(0));
    EXPECT_EQ(out[1], u(1));
  }
  // defaults: approaching the floor with a tangential velocity
  ContactProblem<double> p{};
  ASSERT_EQ(build(s, defaults(s), &p), Status::ok);
  EXPECT_LT(p.v0.y, 0.0);
  EXPECT_NE(p.v0.x, 0.0);
}

TEST(ScenarioPendulum2d, TipMustBeLowestAndStraightArmIsSingular) {
  const systems::ScenarioInfo& s = scn("double-pendulum-2d");
  std::vector<double> v = defaults(s);
  at(v, s, "q1") = -kPi / 3;
  at(v, s, "q2") = kPi / 2;  // bar 2 points up: the joint is below the tip
  EXPECT_EQ(build(s, v), Status::param_out_of_range);
  at(v, s, "q1") = kPi / 3;
  at(v, s, "q2") = -kPi / 2;  // tip below the joint but above the pivot
  EXPECT_EQ(build(s, v), Status::param_out_of_range);
  at(v, s, "q1") = -kPi / 2;
  at(v, s, "q2") = 0.0;  // hanging straight: the tip cannot move vertically
  EXPECT_EQ(build(s, v), Status::W_not_spd);
}

// ---- double-pendulum-3d ------------------------------------------------------------------------

TEST(ScenarioPendulum3d, MassMatrixAndJacobianIndependently) {
  const systems::ScenarioInfo& s = scn("double-pendulum-3d");
  ri::Rng rng(3);
  for (int i = 0; i < 50; ++i) {
    SCOPED_TRACE(i);
    const std::vector<double> v = i == 0 ? defaults(s) : random_values(s, rng);
    double Ma[36], Ja[18];
    sd::spatial_pendulum_MJ(v.data(), Ma, Ja);
    const Eigen::Matrix<double, 6, 6, Eigen::RowMajor> M(Ma);
    const Eigen::Matrix<double, 3, 6, Eigen::RowMajor> J(Ja);
    double q[6];
    const char* qn[6] = {"q1", "q2", "q3", "q4", "q5", "q6"};
    for (int k = 0; k < 6; ++k) q[k] = get(v, s, qn[k]);
    const double L = get(v, s, "L");
    // J: central differences of the tip position
    for (int k = 0; k < 6; ++k) {
      double qp[6], qm[6];
      std::copy(q, q + 6, qp);
      std::copy(q, q + 6, qm);
      const double d = 1e-6;
      qp[k] += d;
      qm[k] -= d;
      const Eigen::Vector3d fd = (pend3_tip(qp, L) - pend3_tip(qm, L)) / (2 * d);
      ASSERT_LE((J.col(k) - fd).norm(), 1e-8 * L) << k;
    }
    // M: 1/2 u^T M u is the kinetic energy of the two bodies for random u
    for (int t = 0; t < 5; ++t) {
      std::vector<double> u(6);
      for (double& x : u) x = ri::normal(rng);
      const Eigen::Map<const Eigen::Matrix<double, 6, 1>> uv(u.data());
      const BodyState b = body_state(s, v, u);
      ASSERT_NEAR(0.5 * uv.dot(M * uv), b.K, 1e-13 * b.K);
      ASSERT_LE((J * uv - b.vc).norm(), 1e-13 * b.vc.norm() + 1e-15);
    }
  }
}

TEST(ScenarioPendulum3d, RangesAndSingularConfigurations) {
  const systems::ScenarioInfo& s = scn("double-pendulum-3d");
  std::vector<double> v = defaults(s);
  for (const char* k : {"q2", "q5"}) {
    std::vector<double> w = v;
    EXPECT_EQ((at(w, s, k) = kPi / 2, build(s, w)), Status::param_out_of_range) << k;
    EXPECT_EQ((at(w, s, k) = -kPi / 2, build(s, w)), Status::param_out_of_range) << k;
  }
  for (const char* k : {"q1", "q3", "q4", "q6"}) {
    std::vector<double> w = v;
    EXPECT_EQ((at(w, s, k) = kPi + 1e-9, build(s, w)), Status::param_out_of_range) << k;
    EXPECT_EQ((at(w, s, k) = -4.0, build(s, w)), Status::param_out_of_range) << k;
  }
  // body 2 pointing upwards (joint below the tip)
  std::vector<double> w = v;
  at(w, s, "q4") = 3.0;
  at(w, s, "q5") = 0.0;
  EXPECT_EQ(build(s, w), Status::param_out_of_range);
  // both bodies aligned: W = J M^-1 J^T singular
  w = v;
  at(w, s, "q4") = get(v, s, "q1");
  at(w, s, "q5") = get(v, s, "q2");
  EXPECT_EQ(build(s, w), Status::W_not_spd);
}

// ---- two-bodies --------------------------------------------------------------------------------

TEST(ScenarioTwoBodies, MomentaAreConserved) {
  const systems::ScenarioInfo& s = scn("two-bodies");
  ri::Rng rng(12);
  for (int i = 0; i < 200; ++i) {
    SCOPED_TRACE(i);
    const std::vector<double> v = random_values(s, rng);
    const Eigen::Vector3d P = ri::normal_vec3(rng, 2.0);
    const std::vector<double> o0 = initial_velocities(s, v), o1 = body(s, v, P);
    const double m1 = get(v, s, "m1"), m2 = get(v, s, "m2");
    // linear momentum
    const Eigen::Vector3d p0 = m1 * v3(&o0[0]) + m2 * v3(&o0[6]), p1 = m1 * v3(&o1[0]) + m2 * v3(&o1[6]);
    ASSERT_LE((p1 - p0).norm(), 1e-12 * (p0.norm() + m1 * P.norm()));
    // angular momentum about the contact point (origin): sum com x m V + I_w w
    auto Lmom = [&](const std::vector<double>& o) {
      Eigen::Vector3d Lm = Eigen::Vector3d::Zero();
      double scale = 0;
      for (int b = 0; b < 2; ++b) {
        const TwoBodyPart part = two_body_part(s, v, b);
        const Eigen::Vector3d com = -part.sp;
        const Eigen::Vector3d contrib = com.cross(part.m * v3(&o[6 * b])) + part.Iw * v3(&o[6 * b + 3]);
        Lm += contrib;
        scale += contrib.norm() + com.norm() * P.norm();
      }
      return std::make_pair(Lm, scale);
    };
    const auto L0 = Lmom(o0), L1 = Lmom(o1);
    ASSERT_LE((L1.first - L0.first).norm(), 1e-12 * (L0.second + L1.second));
  }
}

TEST(ScenarioTwoBodies, SwappingRolesIsConsistent) {
  // Rotating the whole scene by pi about x puts body 1 below body 2: the swapped scenario (body 1 :=
  // rotated body 2 and vice versa) has W' = Q W Q^T, v0' = -Q v0, and the impulse -Q P on the new
  // body 1 gives the rotated velocities.
  const systems::ScenarioInfo& s = scn("two-bodies");
  const Eigen::Matrix3d Q = Eigen::Vector3d(1, -1, -1).asDiagonal();
  ri::Rng rng(21);
  const char* per[] = {"shape", "m", "a", "b", "c"};
  for (int i = 0; i < 100; ++i) {
    SCOPED_TRACE(i);
    const std::vector<double> v = random_values(s, rng);
    std::vector<double> w = v;
    for (const char* k : per) {
      at(w, s, (std::string(k) + "1").c_str()) = get(v, s, (std::string(k) + "2").c_str());
      at(w, s, (std::string(k) + "2").c_str()) = get(v, s, (std::string(k) + "1").c_str());
    }
    for (int b = 1; b <= 2; ++b) {
      const std::string k = std::to_string(b), o = std::to_string(3 - b);
      const Eigen::Vector3d rv = to_rotvec(Q * rotvec(get3(v, s, ("rx" + o).c_str(), ("ry" + o).c_str(), ("rz" + o).c_str())));
      const Eigen::Vector3d V = Q * get3(v, s, ("V" + o + "x").c_str(), ("V" + o + "y").c_str(), ("V" + o + "z").c_str());
      const Eigen::Vector3d om = Q * get3(v, s, ("w" + o + "x").c_str(), ("w" + o + "y").c_str(), ("w" + o + "z").c_str());
      const char* ax[3] = {"x", "y", "z"};
      for (int c = 0; c < 3; ++c) {
        at(w, s, (std::string("r") + ax[c] + k).c_str()) = rv(c);
        at(w, s, ("V" + k + ax[c]).c_str()) = V(c);
        at(w, s, ("w" + k + ax[c]).c_str()) = om(c);
      }
    }
    ContactProblem<double> p{}, ps{};
    ASSERT_EQ(build(s, v, &p), Status::ok);
    ASSERT_EQ(build(s, w, &ps), Status::ok);
    const Eigen::Matrix3d W = to_eigen(p.W), Ws = to_eigen(ps.W);
    ASSERT_LE(max_abs(Ws - Q * W * Q.transpose()), 1e-12 * W.norm());
    ASSERT_LE((to_eigen(ps.v0) + Q * to_eigen(p.v0)).norm(), 1e-12 * (1 + to_eigen(p.v0).norm()));
    const Eigen::Vector3d P = ri::normal_vec3(rng);
    const std::vector<double> o = body(s, v, P), os = body(s, w, -Q * P);
    for (int b = 0; b < 2; ++b)
      for (int part = 0; part < 2; ++part) {
        const Eigen::Vector3d x = Q * v3(&o[6 * b + 3 * part]), y = v3(&os[6 * (1 - b) + 3 * part]);
        ASSERT_LE((x - y).norm(), 1e-12 * (1 + x.norm())) << b << " " << part;
      }
  }
}

TEST(ScenarioTwoBodies, SupportPoints) {
  ri::Rng rng(7);
  const double abc[3] = {0.5, 0.3, 0.2};
  const double down[3] = {0, 0, -1};
  double sp[3];
  // a box in a generic orientation touches with a vertex
  for (int i = 0; i < 100; ++i) {
    const Eigen::Vector3d rv = ri::normal_vec3(rng, 2.0);
    sd::support_point(0, abc, rv.data(), down, sp);
    const Eigen::Vector3d b = rotvec(rv).transpose() * v3(sp);
    for (int k = 0; k < 3; ++k) ASSERT_NEAR(std::abs(b(k)), abc[k], 1e-14);
    // and it is the lowest of the eight vertices
    for (int c = 0; c < 8; ++c) {
      const Eigen::Vector3d vert(c & 1 ? abc[0] : -abc[0], c & 2 ? abc[1] : -abc[1], c & 4 ? abc[2] : -abc[2]);
      ASSERT_GE((rotvec(rv) * vert).z(), sp[2] - 1e-14);
    }
  }
  // face: identity orientation gives the centre of the bottom face
  const double zero[3] = {0, 0, 0};
  sd::support_point(0, abc, zero, down, sp);
  EXPECT_EQ(v3(sp), Eigen::Vector3d(0, 0, -0.2));
  // edge: 45 degrees about x: the centre of a bottom edge along the body x axis
  const Eigen::Vector3d rv = to_rotvec(Eigen::AngleAxisd(kPi / 4, Eigen::Vector3d::UnitX()).toRotationMatrix());
  sd::support_point(0, abc, rv.data(), down, sp);
  const Eigen::Vector3d be = rotvec(rv).transpose() * v3(sp);
  EXPECT_EQ(be(0), 0.0);
  EXPECT_NEAR(std::abs(be(1)), 0.3, 1e-15);
  EXPECT_NEAR(std::abs(be(2)), 0.2, 1e-15);
  // ellipsoid: on the surface, with the outward normal along the direction
  for (int i = 0; i < 100; ++i) {
    const Eigen::Vector3d rv2 = ri::normal_vec3(rng, 2.0), dir = ri::unit_vec3(rng);
    sd::support_point(1, abc, rv2.data(), dir.data(), sp);
    const Eigen::Vector3d b = rotvec(rv2).transpose() * v3(sp);
    const Eigen::Vector3d g(b(0) / (abc[0] * abc[0]), b(1) / (abc[1] * abc[1]), b(2) / (abc[2] * abc[2]));
    ASSERT_NEAR(b.cwiseQuotient(v3(abc)).squaredNorm(), 1.0, 1e-13);
    ASSERT_LE((rotvec(rv2) * g).normalized().cross(dir).norm(), 1e-12);
    ASSERT_GT((rotvec(rv2) * g).dot(dir), 0.0);
  }
}

// ---- statuses of bad values --------------------------------------------------------------------

TEST(Scenarios, BadValuesGiveTheDocumentedStatus) {
  for (const systems::ScenarioInfo& s : all_scenarios()) {
    SCOPED_TRACE(s.name);
    const std::vector<double> d = defaults(s);
    // any NaN or infinite value: non_finite
    for (std::size_t i = 0; i < d.size(); ++i)
      for (double bad : {kNaN, kInf, -kInf}) {
        std::vector<double> v = d;
        v[i] = bad;
        EXPECT_EQ(build(s, v), Status::non_finite) << s.params[i].name << " = " << bad;
      }
  }
  struct Bad {
    const char* scenario;
    const char* param;
    double value;
  };
  const Bad bad[] = {
      {"contact", "w1", 0.0},
      {"contact", "w2", -1.0},
      {"contact", "w3", -1e-300},
      {"ball", "m", 0.0},
      {"ball", "m", -1.0},
      {"ball", "r", 0.0},
      {"ball", "r", -2.0},
      {"pencil", "r", 0.0},
      {"pencil", "h1", -1.0},
      {"pencil", "h2", 0.0},
      {"pencil", "m", 0.0},
      {"pencil", "theta", 0.0},
      {"pencil", "theta", 1.6},
      {"pencil", "eq85", 0.5},
      {"pencil", "eq85", 2.0},
      {"pencil", "eq85", -1.0},
      {"pencil", "eq85", 1.0 + 1e-15},
      {"double-pendulum-2d", "m", 0.0},
      {"double-pendulum-2d", "r", -1.0},
      {"double-pendulum-2d", "q1", 3.2},
      {"double-pendulum-2d", "q2", -3.2},
      {"double-pendulum-3d", "m", 0.0},
      {"double-pendulum-3d", "L", -1.0},
      {"double-pendulum-3d", "a", 0.0},
      {"double-pendulum-3d", "q2", 1.6},
      {"two-bodies", "shape1", 0.5},
      {"two-bodies", "shape2", 2.0},
      {"two-bodies", "shape1", -1.0},
      {"two-bodies", "shape2", 1e-300},
      {"two-bodies", "shape1", 0.9999999999999999},
      {"two-bodies", "m1", 0.0},
      {"two-bodies", "m2", -1.0},
      {"two-bodies", "a1", 0.0},
      {"two-bodies", "b1", -0.1},
      {"two-bodies", "c1", 0.0},
      {"two-bodies", "a2", 0.0},
      {"two-bodies", "b2", 0.0},
      {"two-bodies", "c2", -3.0},
  };
  for (const Bad& b : bad) {
    const systems::ScenarioInfo& s = scn(b.scenario);
    std::vector<double> v = defaults(s);
    at(v, s, b.param) = b.value;
    EXPECT_EQ(build(s, v), Status::param_out_of_range) << b.scenario << " " << b.param << " = " << b.value;
  }
  // valid-looking values whose mapping would overflow
  {
    const systems::ScenarioInfo& b = scn("ball");
    std::vector<double> v = defaults(b);
    at(v, b, "m") = 1e-320;
    EXPECT_EQ(build(b, v), Status::non_finite);
    for (const char* name : {"double-pendulum-2d", "double-pendulum-3d"}) {
      const systems::ScenarioInfo& s = scn(name);
      std::vector<double> w = defaults(s);
      at(w, s, "m") = 1e-310;  // m L^2 subnormal: W would overflow
      EXPECT_EQ(build(s, w), Status::non_finite) << name;
    }
  }
  // law parameters are only copied: their ranges are impact::validate()'s
  for (const systems::ScenarioInfo& s : all_scenarios()) {
    std::vector<double> v = defaults(s);
    at(v, s, "mu") = -1;
    at(v, s, "e") = 2;
    at(v, s, "eta0") = -1;
    ContactProblem<double> p{};
    EXPECT_EQ(build(s, v, &p), Status::ok) << s.name;
    EXPECT_EQ(validate(p, ParamUse{true, true, true, false}), Status::param_out_of_range) << s.name;
  }
  // a receding contact builds (no_approach is validate()'s)
  const systems::ScenarioInfo& c = scn("contact");
  std::vector<double> v = defaults(c);
  at(v, c, "vn") = -1;
  ContactProblem<double> p{};
  ASSERT_EQ(build(c, v, &p), Status::ok);
  EXPECT_EQ(validate(p, ParamUse{true, true, true, false}), Status::no_approach);
}

// A study writes every parameter and every output as a column of one table (CSV header, .npy
// field names): no two may share a name.
TEST(Scenarios, ColumnNamesAreUnique) {
  const std::vector<std::string> contact = {"sample_id", "P_x",   "P_y",   "P_z",     "P_n",    "P_t",          "vf_x",  "vf_y",
                                            "vf_z",      "vf_n",  "vf_t",  "dE",      "status", "In_c",         "modes", "steps",
                                            "kappa",     "sigma", "mu_cr", "mu_star", "e_star", "e_star_global"};
  for (const systems::ScenarioInfo& s : all_scenarios()) {
    std::vector<std::string> names = contact;
    for (const systems::ScenarioParam& p : s.params) names.push_back(p.name);
    for (const engine::ColumnInfo& o : s.body_outputs) names.push_back(o.name);
    std::sort(names.begin(), names.end());
    const auto dup = std::adjacent_find(names.begin(), names.end());
    EXPECT_EQ(dup, names.end()) << s.name << ": column '" << *dup << "' twice";
  }
}

// ball-oblique is the ball at V0 = speed (sin a cos b, sin a sin b, -cos a): the same instance and
// the same body outputs as the ball scenario given those components; out-of-range speed or angle is
// param_out_of_range.
TEST(Scenarios, BallObliqueIsTheBallAtASpeedAndAngle) {
  const systems::ScenarioInfo& bo = scn("ball-oblique");
  const systems::ScenarioInfo& b = scn("ball");
  for (double angle : {0.0, 10.0, 45.0, 80.0}) {
    for (double az : {0.0, 30.0, -120.0}) {
      std::vector<double> v = defaults(bo);
      v[bo.index_of("speed")] = 3.0;
      v[bo.index_of("angle")] = angle;
      v[bo.index_of("azimuth")] = az;
      v[bo.index_of("w0y")] = 1.5;
      v[bo.index_of("mu")] = 0.3;
      const double a = angle * (M_PI / 180.0), c = az * (M_PI / 180.0);
      std::vector<double> w = defaults(b);
      w[b.index_of("V0x")] = 3.0 * rmath::sin(a) * rmath::cos(c);  // the scenarios' trigonometry
      w[b.index_of("V0y")] = 3.0 * rmath::sin(a) * rmath::sin(c);
      w[b.index_of("V0z")] = -3.0 * rmath::cos(a);
      w[b.index_of("w0y")] = 1.5;
      w[b.index_of("mu")] = 0.3;
      ContactProblem<double> p{}, q{};
      ASSERT_EQ(bo.build(v.data(), &p), Status::ok);
      ASSERT_EQ(b.build(w.data(), &q), Status::ok);
      EXPECT_EQ(std::memcmp(&p, &q, sizeof p), 0) << angle << " " << az;
      const double P[3] = {0.1, -0.2, 2.0};
      double o1[6], o2[6];
      bo.body(v.data(), P, o1);
      b.body(w.data(), P, o2);
      for (int k = 0; k < 6; ++k) EXPECT_EQ(o1[k], o2[k]);
    }
  }
  std::vector<double> v = defaults(bo);
  ContactProblem<double> p{};
  v[bo.index_of("angle")] = 90.0;
  EXPECT_EQ(bo.build(v.data(), &p), Status::param_out_of_range);
  v[bo.index_of("angle")] = 30.0;
  v[bo.index_of("speed")] = 0.0;
  EXPECT_EQ(bo.build(v.data(), &p), Status::param_out_of_range);
}
