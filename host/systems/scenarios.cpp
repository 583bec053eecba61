// Study scenarios (see scenarios.hpp): each maps one sample's parameter values to a contact-space
// instance through the tested body mappings of bodies.hpp, and maps an impulse back to body-level
// outputs with the same mapping (so the contact velocity implied by the outputs is v0 + W P).
//
// Conventions shared by all scenarios
//   * build() checks, in this order: every value finite (else non_finite); the scenario's own
//     ranges below (else param_out_of_range); then it builds W, n, v0. A mechanism whose W or M is
//     singular (e.g. a pendulum stretched straight) gives W_not_spd. The law parameters mu, e, e_t,
//     eta0 are only copied: their ranges, the approach condition and the definiteness of W are
//     checked by impact::validate() when a law runs (build() does not duplicate it).
//   * Rotation vectors (contact, two-bodies): R = exp([r]x), the rotation by |r| rad about r/|r|
//     (identity for r = 0); any finite value is accepted.
//   * A 0/1 code (shape, eq85) must be exactly 0 or 1 (no rounding), else param_out_of_range.
//   * Valid-looking values whose mapping over- or underflows (e.g. m = 1e-320) give non_finite.
//
// contact  (n = +z)
//   params  w1 w2 w3 (1/kg, > 0): eigenvalues of W; rx ry rz (rad): rotation vector R of the
//           eigenvectors, W = R diag(w1, w2, w3) R^T; vn (m/s): v0.n = -vn; vt (m/s), phi (rad):
//           v0 = (vt cos phi, vt sin phi, -vn); mu e e_t eta0.
//   outputs none.
//
// ball  (Jia 2013, Section 8.1; table frame, n = +z, ball centre at (0, 0, r) above the contact)
//   params  m (kg), r (m) (> 0); V0x V0y V0z (m/s), w0x w0y w0z (rad/s), world frame; mu e e_t eta0.
//           Solid sphere, inertia 2/5 m r^2: W = diag(7/(2m), 7/(2m), 1/m) for any r, i.e.
//           diag(3.5, 3.5, 1) for m = 1 (Jia eqs. 81-82); v0 = V0 + w0 x (0, 0, -r).
//   outputs Vx Vy Vz wx wy wz: post-impact centre velocity and angular velocity, world frame.
//
// ball-oblique  (the ball parametrised as an experiment is: a speed and an incidence angle)
//   params  m r; speed (m/s, > 0); angle (deg, [0, 90)) of V0 from the normal; azimuth (deg) of its
//           tangential part; w0x w0y w0z; mu e e_t eta0. V0 = speed (sin a cos b, sin a sin b, -cos a).
//   outputs as ball.
//
// pencil  (Jia 2013, Section 8.2, eqs. 85-91; desk frame, n = +z, contact at the cone's vertex)
//   params  r (m): radius; h1 (m): cylinder height; h2 (m): cone height; m (kg): total mass
//           (cylinder and cone of the same density: m1 = m h1/(h1 + h2/3)); theta (rad): tilt of
//           the axis above the desk, atan(r/h2) < theta <= pi/2 (the paper's convention is
//           (0, pi/2]; below atan(r/h2) the rim of the cone's base, not the vertex, is the lowest
//           point); V0x V0y V0z (m/s): centre-of-mass velocity, desk frame; w01 w02 w03 (rad/s):
//           angular velocity in the pencil frame x_p y_p z_p (z_p the axis, away from the vertex);
//           eq85 (0/1): 0 = exact inertia of cylinder + cone, 1 = Q11 as printed in eq. (85) (see
//           scenario_detail::pencil_inertia; the paper's printed outcome (92) implies
//           Q22 = 1.16299, which is eq. (85) evaluated at r = 1 rather than the printed r = 0.5);
//           mu e e_t eta0 (paper: mu = 0.8, e = 0.5, eta0 = sqrt(17/14)).
//           R (eq. 86, rotation about y through pi/2 - theta) maps pencil-frame vectors to the desk
//           frame: z_p is (cos theta, 0, sin theta); the centre of mass is at h z_p from the vertex.
//   outputs Vx Vy Vz (desk frame, m/s) and w1 w2 w3 (pencil frame, rad/s, as the paper's omega0
//           and its eq. 87 / 92).
//
// double-pendulum-2d  (Morgan 2011 ch. 2; motion in the world x-y plane, floor normal n = +y)
//   params  q1 (rad, [-pi, pi]): bar 1 from the x axis; q2 (rad, [-pi, pi]): bar 2 relative to bar 1;
//           q1dot q2dot (rad/s); m (kg), r (m) (> 0): mass and length of each slender bar;
//           mu e e_t eta0. The tip of bar 2 must be the lowest point of the pendulum (strictly
//           below the joint and the pivot: sin(q1+q2) < 0 and sin q1 + sin(q1+q2) < 0), else
//           param_out_of_range. M and J are Morgan's as printed (bodies.hpp). The paper's J_a
//           (first row, x) is the tangential and J_b (second row, y) the normal velocity; W is
//           embedded with z out of plane (bodies.hpp: w_zz is a placeholder, laws give P_z = 0).
//   outputs q1dot_post q2dot_post (rad/s).
//   The thesis prints no example values: the defaults (q1 = -pi/3, q2 = -pi/6, q1dot = -1,
//   q2dot = 1, m = r = 1) are ours, chosen so that the tangential pause comes first and the tip
//   then sticks (the stronge law gives slip > stick), the event order of Morgan's Fig. 2.7.
//
// double-pendulum-3d  (Rodriguez & Bowling: "two bodies each with length L", six degrees of freedom
//           described by Euler angles q1..q6, striking the ground; the paper prints neither M, J nor
//           any numbers, so the model below is ours)
//   model   Body 1 hangs from a fixed spherical joint at the origin, body 2 from a spherical joint
//           at body 1's far end; each body is a uniform solid cylinder of mass m, length L and
//           radius a whose axis is body -z (so q = 0 hangs straight down). Orientations are
//           absolute (world_from_body), Kane's body-three 1-2-3 Euler angles:
//           R1 = Rx(q1) Ry(q2) Rz(q3), R2 = Rx(q4) Ry(q5) Rz(q6). The contact point is the end of
//           body 2's axis (ends treated as rounded caps of negligible size; a enters the inertia
//           only). Ground normal n = +z. M from the kinetic energy of both bodies, J = d tip / d q.
//   params  q1..q6 (rad): q1 q3 q4 q6 in [-pi, pi], q2 q5 in (-pi/2, pi/2) (gimbal lock at +-pi/2);
//           q1dot..q6dot (rad/s); m (kg), L (m), a (m) (> 0); mu e e_t eta0. The tip must be the
//           lowest point (below the joint and the pivot), else param_out_of_range.
//   outputs q1dot_post .. q6dot_post (rad/s).
//   Defaults are ours (the paper prints none): m = L = 1, a = 0.05, q = (0.5, 0.6, 0, 0.3, 0.3, 0),
//   qdot = (-0.5, -1, 0.3, -1, -1, 0.2); like the paper's example the tip slips, then sticks during
//   compression (stronge law: slip > stick).
//
// two-bodies  (n = +z from body 2 into body 1, contact point at the world origin)
//   params  shape1 shape2 (0 box, 1 ellipsoid); m1 m2 (kg); a1 b1 c1, a2 b2 c2 (m): half-extents
//           of a box or semi-axes of an ellipsoid along the body axes (all > 0); rx1 ry1 rz1,
//           rx2 ry2 rz2 (rad): rotation vectors (world_from_body); V1x..V1z, V2x..V2z (m/s) and
//           w1x..w1z, w2x..w2z (rad/s): COM and angular velocities, world frame; mu e e_t eta0.
//           Body 1 touches with its support point in direction -z, body 2 with its support point
//           in +z, both at the origin (see scenario_detail::support_point: a box's face or edge
//           gives the centre of that feature). Inertias: solid box m (b^2 + c^2)/3, ...; solid
//           ellipsoid m (b^2 + c^2)/5, ... (body frame, about the COM).
//   outputs V1x V1y V1z w1x w1y w1z V2x V2y V2z w2x w2y w2z (after the impulse, world frame).
#include "impact/rmath.hpp"
#include "impact/sampling.hpp"
#include "systems/scenarios.hpp"

#include <cmath>
#include <exception>
#include <limits>

#include "systems/bodies.hpp"

namespace impact::systems {

int ScenarioInfo::index_of(std::string_view param) const {
  for (std::size_t i = 0; i < params.size(); ++i)
    if (param == params[i].name) return static_cast<int>(i);
  return -1;
}

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kEta0Default = 1.1019463300386794;  // sqrt(17/14), Jia's solid sphere (nu = 0.3)
constexpr double kFeatureTol = 1e-12;                // box support: a zero body-frame component

bool all_finite(const double* v, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    if (!std::isfinite(v[i])) return false;
  return true;
}
bool positive(double x) { return x > 0.0; }
bool in_closed(double x, double lo, double hi) { return x >= lo && x <= hi; }
bool is_code01(double x) { return x == 0.0 || x == 1.0; }
// An inertia scale (m L^2) and its inverse both normal finite numbers: else the mapping over- or
// underflows (non_finite) rather than W being singular.
bool scale_ok(double x) { return x >= std::numeric_limits<double>::min() && x <= 1.0 / std::numeric_limits<double>::min(); }

Eigen::Matrix3d rotation_from_vector(const Eigen::Vector3d& r) {
  double R[3][3];  // Rodrigues with rmath's sin and cos (impact/sampling.hpp), as `impact reduce` has it
  impact::rotation_from_vector(r.x(), r.y(), r.z(), R);
  Eigen::Matrix3d M;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) M(i, j) = R[i][j];
  return M;
}

Eigen::Vector3d vec3(const double* v) { return Eigen::Vector3d(v[0], v[1], v[2]); }
void put3(const Eigen::Vector3d& v, double* out) {
  out[0] = v.x();
  out[1] = v.y();
  out[2] = v.z();
}

// W, v0 finite: the last guard before a problem leaves build() (huge or tiny values can overflow).
Status finish(const ContactSpace& cs, const double* law, ContactProblem<double>* p) {
  if (!cs.W.allFinite() || !cs.v0.allFinite() || !cs.n.allFinite()) return Status::non_finite;
  *p = make_problem(cs, law[0], law[1], law[2], law[3]);
  return Status::ok;
}

void fill_nan(double* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = std::numeric_limits<double>::quiet_NaN();
}

// A build never throws (a batch keeps every row): what the geometry and inertia code throws
// (Eigen's checks, a singular matrix) becomes the status `on_throw`.
template <class F>
Status built(Status on_throw, F&& f) {
  try {
    return f();
  } catch (const std::exception&) { return on_throw; }
}

// build() as the registry holds it: every value finite first (else non_finite), then the scenario's
// own ranges and mapping.
template <std::size_t N, Status (*Build)(const double*, ContactProblem<double>*)>
Status finite_first(const double* v, ContactProblem<double>* p) {
  return all_finite(v, N) ? Build(v, p) : Status::non_finite;
}

// The instance of bodies in contact: a throw of their geometry and inertia code is only reachable
// through overflow of valid-looking values (non_finite).
Status bodies_instance(TwoBodyContact (*contact)(const double*), const double* v, const double* law, ContactProblem<double>* p) {
  return built(Status::non_finite, [&] { return finish(contact_space(contact(v)), law, p); });
}

// The n body outputs f writes, or n NaN where it throws.
template <class F>
void body_or_nan(double* out, std::size_t n, F&& f) {
  try {
    f();
  } catch (const std::exception&) { fill_nan(out, n); }
}

// The law parameters every scenario carries, last (mu's default differs per scenario); the indices
// are P##MU, P##E, P##ET, P##ETA.
#define LAW_PARAMS(X, P, mu_default)                                                             \
  X(P##MU, "mu", mu_default, "1", "\\mu", "Coulomb friction coefficient (>= 0)")                 \
  X(P##E, "e", 0.5, "1", "e", "restitution ([0, 1]; kinematic or energetic per law)")            \
  X(P##ET, "e_t", 0.0, "1", "e_t", "tangential restitution ([-1, 1]; chatterjee-ruina, aghili)") \
  X(P##ETA, "eta0", kEta0Default, "1", "\\eta_0", "Jia's stiffness ratio sqrt(k_n/k_t) (> 0; jia)")
// Each scenario below states its parameters once, in one list in the order of the values build() and
// body() receive: each one's index, key, default, unit, symbol and meaning. Its index enum and its
// table entry are expanded from the list:
#define PARAM_INDEX(index, key, value, unit, symbol, help) index,
#define PARAM_ENTRY(index, key, value, unit, symbol, help) ScenarioParam{key, value, unit, symbol, help},

// ---- contact ----------------------------------------------------------------------------------

#define CONTACT_PARAMS(X)                                                                      \
  X(cW1, "w1", 1.0, "1/kg", "w_1", "first eigenvalue of W (> 0)")                              \
  X(cW2, "w2", 1.0, "1/kg", "w_2", "second eigenvalue of W (> 0)")                             \
  X(cW3, "w3", 1.0, "1/kg", "w_3", "third eigenvalue of W (> 0)")                              \
  X(cRX, "rx", 0.0, "rad", "r_{x}", "rotation vector of W's eigenvectors, x (any)")            \
  X(cRY, "ry", 0.0, "rad", "r_{y}", "rotation vector of W's eigenvectors, y (any)")            \
  X(cRZ, "rz", 0.0, "rad", "r_{z}", "rotation vector of W's eigenvectors, z (any)")            \
  X(cVN, "vn", 1.0, "m/s", "v_n", "approach speed, v0.n = -vn (> 0 to collide)")               \
  X(cVT, "vt", 0.5, "m/s", "v_t", "tangential speed")                                          \
  X(cPHI, "phi", 0.0, "rad", "\\phi", "direction of the tangential velocity in the x-y plane") \
  LAW_PARAMS(X, c, 0.4)
enum ContactIdx { CONTACT_PARAMS(PARAM_INDEX) cN };

Status contact_build(const double* v, ContactProblem<double>* p) {
  if (!positive(v[cW1]) || !positive(v[cW2]) || !positive(v[cW3])) return Status::param_out_of_range;
  // the device scenario's functions (impact/sampling.hpp): `impact reduce --scenario contact` with
  // the same values builds the same bits
  const double w[3] = {v[cW1], v[cW2], v[cW3]};
  ContactSpace cs;
  cs.W = to_eigen(contact_W(w, v[cRX], v[cRY], v[cRZ]));
  cs.n = Eigen::Vector3d::UnitZ();
  cs.v0 = to_eigen(contact_v0(v[cVN], v[cVT], v[cPHI]));
  return finish(cs, v + cMU, p);
}

void contact_body(const double*, const double*, double*) {}

// ---- ball -------------------------------------------------------------------------------------

#define BALL_PARAMS(X)                                                                        \
  X(bM, "m", 1.0, "kg", "m", "mass of the sphere (> 0)")                                      \
  X(bR, "r", 1.0, "m", "r", "radius of the sphere (> 0)")                                     \
  X(bV0X, "V0x", -1.0, "m/s", "V_{0x}", "centre velocity x")                                  \
  X(bV0Y, "V0y", 0.0, "m/s", "V_{0y}", "centre velocity y")                                   \
  X(bV0Z, "V0z", -5.0, "m/s", "V_{0z}", "centre velocity z (< 0 to collide)")                 \
  X(bW0X, "w0x", 0.0, "rad/s", "\\omega_{0x}", "angular velocity x")                          \
  X(bW0Y, "w0y", 2.0, "rad/s", "\\omega_{0y}", "angular velocity y")                          \
  X(bW0Z, "w0z", 0.0, "rad/s", "\\omega_{0z}", "angular velocity z (moves no contact point)") \
  LAW_PARAMS(X, b, 0.4)
enum BallIdx { BALL_PARAMS(PARAM_INDEX) bN };

TwoBodyContact ball_contact(const double* v) {
  TwoBodyContact c;
  const double m = v[bM], r = v[bR];
  c.b1.mass = m;
  c.b1.inertia_body = (0.4 * m * r * r) * Eigen::Matrix3d::Identity();
  c.b1.com = Eigen::Vector3d(0.0, 0.0, r);
  c.b1.V = vec3(v + bV0X);
  c.b1.omega = vec3(v + bW0X);
  c.b2 = RigidBody::fixed();
  return c;  // at the origin, n = +z: TwoBodyContact's defaults
}

Status ball_build(const double* v, ContactProblem<double>* p) {
  if (!positive(v[bM]) || !positive(v[bR])) return Status::param_out_of_range;
  return bodies_instance(ball_contact, v, v + bMU, p);
}

void ball_body(const double* v, const double P[3], double* out) {
  body_or_nan(out, 6, [&] {
    const TwoBodyVelocities a = apply_impulse(ball_contact(v), vec3(P));
    put3(a.V1, out);
    put3(a.w1, out + 3);
  });
}

// ---- ball at a speed and an incidence angle ------------------------------------------------------

#define BALL_OBLIQUE_PARAMS(X)                                                                        \
  X(aM, "m", 1.0, "kg", "m", "mass of the sphere (> 0)")                                              \
  X(aR, "r", 1.0, "m", "r", "radius of the sphere (> 0)")                                             \
  X(aSPEED, "speed", 5.0, "m/s", "|V_0|", "impact speed |V0| (> 0)")                                  \
  X(aANGLE, "angle", 30.0, "deg", "\\alpha", "incidence angle a of V0 from the normal (0 <= a < 90)") \
  X(aAZ, "azimuth", 0.0, "deg", "\\beta", "direction b of V0's tangential part from the x axis")      \
  X(aW0X, "w0x", 0.0, "rad/s", "\\omega_{0x}", "angular velocity x")                                  \
  X(aW0Y, "w0y", 0.0, "rad/s", "\\omega_{0y}", "angular velocity y")                                  \
  X(aW0Z, "w0z", 0.0, "rad/s", "\\omega_{0z}", "angular velocity z (moves no contact point)")         \
  LAW_PARAMS(X, a, 0.4)
enum BallAngleIdx { BALL_OBLIQUE_PARAMS(PARAM_INDEX) aN };

// The ball's parameters (BallIdx) of a ball-oblique sample: V0 = speed (sin a cos b, sin a sin b,
// -cos a), a the angle from the normal, b the azimuth; false when speed or angle is out of range.
bool ball_values_of(const double* v, double* b) {
  if (!(v[aSPEED] > 0) || !(v[aANGLE] >= 0 && v[aANGLE] < 90)) return false;
  const double a = v[aANGLE] * (M_PI / 180.0), az = v[aAZ] * (M_PI / 180.0);
  b[bM] = v[aM];
  b[bR] = v[aR];
  b[bV0X] = v[aSPEED] * rmath::sin(a) * rmath::cos(az);
  b[bV0Y] = v[aSPEED] * rmath::sin(a) * rmath::sin(az);
  b[bV0Z] = -v[aSPEED] * rmath::cos(a);
  for (int k = 0; k < 3; ++k) b[bW0X + k] = v[aW0X + k];
  for (int k = 0; k < 4; ++k) b[bMU + k] = v[aMU + k];
  return true;
}

Status ball_angle_build(const double* v, ContactProblem<double>* p) {
  double b[bN];
  if (!ball_values_of(v, b)) return Status::param_out_of_range;
  return ball_build(b, p);
}

void ball_angle_body(const double* v, const double P[3], double* out) {
  double b[bN];
  if (ball_values_of(v, b)) ball_body(b, P, out);
  else fill_nan(out, 6);
}

// ---- pencil -----------------------------------------------------------------------------------

#define PENCIL_PARAMS(X)                                                                                              \
  X(pR, "r", 0.5, "m", "r", "radius of the cylinder and of the cone's base (> 0)")                                    \
  X(pH1, "h1", 3.0, "m", "h_1", "height of the cylinder (> 0)")                                                       \
  X(pH2, "h2", 0.5, "m", "h_2", "height of the cone (> 0)")                                                           \
  X(pM, "m", 1.0, "kg", "m", "total mass, cylinder and cone of equal density (> 0)")                                  \
  X(pTH, "theta", kPi / 3.0, "rad", "\\theta", "tilt of the axis above the desk (atan(r/h2) < theta <= pi/2)")        \
  X(pV0X, "V0x", -5.0 * rmath::cos(kPi / 6.0), "m/s", "V_{0x}", "COM velocity x, desk frame")                         \
  X(pV0Y, "V0y", 0.0, "m/s", "V_{0y}", "COM velocity y, desk frame")                                                  \
  X(pV0Z, "V0z", -5.0 * rmath::sin(kPi / 6.0), "m/s", "V_{0z}", "COM velocity z, desk frame")                         \
  X(pW1, "w01", -1.0, "rad/s", "\\omega_{01}", "angular velocity about x_p, pencil frame")                            \
  X(pW2, "w02", -0.5, "rad/s", "\\omega_{02}", "angular velocity about y_p, pencil frame")                            \
  X(pW3, "w03", -0.5, "rad/s", "\\omega_{03}", "angular velocity about the axis z_p, pencil frame")                   \
  X(pQ85, "eq85", 0.0, "1", "\\mathrm{eq85}", "inertia: 0 exact cylinder + cone, 1 Q11 as printed in eq. (85) (0/1)") \
  LAW_PARAMS(X, p, 0.8)
enum PencilIdx { PENCIL_PARAMS(PARAM_INDEX) pN };

Eigen::Matrix3d pencil_R(double theta) {
  const double s = rmath::sin(theta), c = rmath::cos(theta);
  Eigen::Matrix3d R;
  R << s, 0.0, c,     //
      0.0, 1.0, 0.0,  //
      -c, 0.0, s;
  return R;  // eq. (86): desk_from_pencil
}

TwoBodyContact pencil_contact(const double* v) {
  double Q11 = 0.0, Q33 = 0.0;
  scenario_detail::pencil_inertia(v[pR], v[pH1], v[pH2], v[pM], v[pQ85] == 1.0, &Q11, &Q33);
  const double h = scenario_detail::pencil_com_height(v[pH1], v[pH2]);
  const Eigen::Matrix3d R = pencil_R(v[pTH]);
  TwoBodyContact c;
  c.b1.mass = v[pM];
  c.b1.inertia_body = Eigen::Vector3d(Q11, Q11, Q33).asDiagonal();
  c.b1.orientation = Eigen::Quaterniond(R);
  c.b1.com = h * R.col(2);  // the vertex (contact) is at the origin
  c.b1.V = vec3(v + pV0X);
  c.b1.omega = R * vec3(v + pW1);  // omega0 is given in the pencil frame
  c.b2 = RigidBody::fixed();
  return c;  // at the origin, n = +z: TwoBodyContact's defaults
}

Status pencil_build(const double* v, ContactProblem<double>* p) {
  if (!positive(v[pR]) || !positive(v[pH1]) || !positive(v[pH2]) || !positive(v[pM]) || !is_code01(v[pQ85]))
    return Status::param_out_of_range;
  // The vertex is the lowest point iff the axis is steeper than the cone's half-angle.
  if (!(v[pTH] > rmath::atan2(v[pR], v[pH2]) && v[pTH] <= 0.5 * kPi)) return Status::param_out_of_range;
  return bodies_instance(pencil_contact, v, v + pMU, p);
}

void pencil_body(const double* v, const double P[3], double* out) {
  body_or_nan(out, 6, [&] {
    const TwoBodyContact c = pencil_contact(v);
    const TwoBodyVelocities a = apply_impulse(c, vec3(P));
    put3(a.V1, out);
    put3(pencil_R(v[pTH]).transpose() * a.w1, out + 3);
  });
}

// ---- double-pendulum-2d -----------------------------------------------------------------------

#define PEND2_PARAMS(X)                                                                  \
  X(dQ1, "q1", -kPi / 3.0, "rad", "q_1", "angle of bar 1 from the x axis ([-pi, pi])")   \
  X(dQ2, "q2", -kPi / 6.0, "rad", "q_2", "angle of bar 2 relative to bar 1 ([-pi, pi])") \
  X(dU1, "q1dot", -1.0, "rad/s", "\\dot{q}_1", "rate of q1")                             \
  X(dU2, "q2dot", 1.0, "rad/s", "\\dot{q}_2", "rate of q2")                              \
  X(dM, "m", 1.0, "kg", "m", "mass of each bar (> 0)")                                   \
  X(dR, "r", 1.0, "m", "r", "length of each bar (> 0)")                                  \
  LAW_PARAMS(X, d, 0.4)
enum Pend2Idx { PEND2_PARAMS(PARAM_INDEX) dN };

Status pend2_build(const double* v, ContactProblem<double>* p) {
  if (!positive(v[dM]) || !positive(v[dR]) || !in_closed(v[dQ1], -kPi, kPi) || !in_closed(v[dQ2], -kPi, kPi))
    return Status::param_out_of_range;
  if (!scale_ok(v[dM] * v[dR] * v[dR])) return Status::non_finite;
  const double s12 = rmath::sin(v[dQ1] + v[dQ2]);
  if (!(s12 < 0.0 && rmath::sin(v[dQ1]) + s12 < 0.0)) return Status::param_out_of_range;
  // J rank-deficient: the arm straight or folded (q2 = 0 or pi)
  return built(Status::W_not_spd, [&] {
    const Mechanism mech = morgan_double_pendulum(v[dQ1], v[dQ2], v[dU1], v[dU2], v[dM], v[dR]);
    return finish(contact_space(mech, Eigen::Vector3d::UnitY()), v + dMU, p);
  });
}

void pend2_body(const double* v, const double P[3], double* out) {
  body_or_nan(out, 2, [&] {
    const Mechanism mech = morgan_double_pendulum(v[dQ1], v[dQ2], v[dU1], v[dU2], v[dM], v[dR]);
    const Eigen::VectorXd u = apply_impulse(mech, vec3(P));
    out[0] = u(0);
    out[1] = u(1);
  });
}

// ---- double-pendulum-3d -----------------------------------------------------------------------

#define PEND3_PARAMS(X)                                                                \
  X(sQ1, "q1", 0.5, "rad", "q_1", "body 1 Euler angle about x ([-pi, pi])")            \
  X(sQ2, "q2", 0.6, "rad", "q_2", "body 1 Euler angle about y' (in (-pi/2, pi/2))")    \
  X(sQ3, "q3", 0.0, "rad", "q_3", "body 1 Euler angle about its axis z'' ([-pi, pi])") \
  X(sQ4, "q4", 0.3, "rad", "q_4", "body 2 Euler angle about x ([-pi, pi])")            \
  X(sQ5, "q5", 0.3, "rad", "q_5", "body 2 Euler angle about y' (in (-pi/2, pi/2))")    \
  X(sQ6, "q6", 0.0, "rad", "q_6", "body 2 Euler angle about its axis z'' ([-pi, pi])") \
  X(sU1, "q1dot", -0.5, "rad/s", "\\dot{q}_1", "rate of q1")                           \
  X(sU2, "q2dot", -1.0, "rad/s", "\\dot{q}_2", "rate of q2")                           \
  X(sU3, "q3dot", 0.3, "rad/s", "\\dot{q}_3", "rate of q3")                            \
  X(sU4, "q4dot", -1.0, "rad/s", "\\dot{q}_4", "rate of q4")                           \
  X(sU5, "q5dot", -1.0, "rad/s", "\\dot{q}_5", "rate of q5")                           \
  X(sU6, "q6dot", 0.2, "rad/s", "\\dot{q}_6", "rate of q6")                            \
  X(sM, "m", 1.0, "kg", "m", "mass of each body (> 0)")                                \
  X(sL, "L", 1.0, "m", "L", "length of each body (> 0)")                               \
  X(sA, "a", 0.05, "m", "a", "radius of each body, inertia only (> 0)")                \
  LAW_PARAMS(X, s, 0.4)
enum Pend3Idx { PEND3_PARAMS(PARAM_INDEX) sN };

// Body-three 1-2-3: R = Rx(a) Ry(b) Rz(c); world angular velocity = E (adot, bdot, cdot).
void euler123(double a, double b, double c, Eigen::Matrix3d& R, Eigen::Matrix3d& E) {
  const Eigen::Matrix3d Rx = Eigen::AngleAxisd(a, Eigen::Vector3d::UnitX()).toRotationMatrix();
  const Eigen::Matrix3d Rxy = Rx * Eigen::AngleAxisd(b, Eigen::Vector3d::UnitY()).toRotationMatrix();
  R = Rxy * Eigen::AngleAxisd(c, Eigen::Vector3d::UnitZ()).toRotationMatrix();
  E.col(0) = Eigen::Vector3d::UnitX();
  E.col(1) = Rx.col(1);
  E.col(2) = Rxy.col(2);
}

struct SpatialPendulum {
  Eigen::Matrix<double, 6, 6> M;
  Eigen::Matrix<double, 3, 6> J;
  Eigen::Vector3d d1, d2;  // proximal-to-distal end of each body, world frame
};

SpatialPendulum spatial_pendulum(const double* v) {
  const double m = v[sM], L = v[sL], a = v[sA];
  Eigen::Matrix3d R1, E1, R2, E2;
  euler123(v[sQ1], v[sQ2], v[sQ3], R1, E1);
  euler123(v[sQ4], v[sQ5], v[sQ6], R2, E2);
  const Eigen::Vector3d axis(0.0, 0.0, -L);
  SpatialPendulum s;
  s.d1 = R1 * axis;
  s.d2 = R2 * axis;
  const double It = m * (3.0 * a * a + L * L) / 12.0, Ia = 0.5 * m * a * a;
  const Eigen::Matrix3d Ib = Eigen::Vector3d(It, It, Ia).asDiagonal();
  // Angular-velocity Jacobians (3 x 6) and the velocity Jacobians of the COMs and the tip:
  // d(R x)/dt = w x (R x) = -[R x]x w.
  Eigen::Matrix<double, 3, 6> Jw1 = Eigen::Matrix<double, 3, 6>::Zero(), Jw2 = Jw1;
  Jw1.leftCols<3>() = E1;
  Jw2.rightCols<3>() = E2;
  const Eigen::Matrix<double, 3, 6> Jd1 = -skew(s.d1) * Jw1, Jd2 = -skew(s.d2) * Jw2;
  const Eigen::Matrix<double, 3, 6> Jc1 = 0.5 * Jd1, Jc2 = Jd1 + 0.5 * Jd2;
  s.J = Jd1 + Jd2;
  const Eigen::Matrix3d I1w = R1 * Ib * R1.transpose(), I2w = R2 * Ib * R2.transpose();
  s.M = m * (Jc1.transpose() * Jc1 + Jc2.transpose() * Jc2) + Jw1.transpose() * I1w * Jw1 + Jw2.transpose() * I2w * Jw2;
  s.M = (0.5 * (s.M + s.M.transpose())).eval();
  return s;
}

Mechanism spatial_mechanism(const double* v) {
  const SpatialPendulum s = spatial_pendulum(v);
  Mechanism mech;
  mech.M = s.M;
  mech.J = s.J;
  mech.qdot = Eigen::Map<const Eigen::Matrix<double, 6, 1>>(v + sU1);
  return mech;
}

Status pend3_build(const double* v, ContactProblem<double>* p) {
  if (!positive(v[sM]) || !positive(v[sL]) || !positive(v[sA])) return Status::param_out_of_range;
  if (!scale_ok(v[sM] * v[sA] * v[sA]) || !scale_ok(v[sM] * v[sL] * v[sL])) return Status::non_finite;
  for (int k : {sQ1, sQ3, sQ4, sQ6})
    if (!in_closed(v[k], -kPi, kPi)) return Status::param_out_of_range;
  for (int k : {sQ2, sQ5})
    if (!(std::abs(v[k]) < 0.5 * kPi)) return Status::param_out_of_range;
  // J rank-deficient (bodies aligned) or M singular
  return built(Status::W_not_spd, [&] {
    const SpatialPendulum s = spatial_pendulum(v);
    // the tip is the lowest point: below the joint (d2.z < 0) and below the pivot (z = 0)
    if (!(s.d2.z() < 0.0 && s.d1.z() + s.d2.z() < 0.0)) return Status::param_out_of_range;
    return finish(contact_space(spatial_mechanism(v), Eigen::Vector3d::UnitZ()), v + sMU, p);
  });
}

void pend3_body(const double* v, const double P[3], double* out) {
  body_or_nan(out, 6, [&] {
    const Eigen::VectorXd u = apply_impulse(spatial_mechanism(v), vec3(P));
    for (int i = 0; i < 6; ++i) out[i] = u(i);
  });
}

// ---- two-bodies -------------------------------------------------------------------------------

#define TWO_PARAMS(X)                                                                     \
  X(tS1, "shape1", 0.0, "1", "\\mathrm{shape}_1", "shape of body 1 (0 box, 1 ellipsoid)") \
  X(tS2, "shape2", 1.0, "1", "\\mathrm{shape}_2", "shape of body 2 (0 box, 1 ellipsoid)") \
  X(tM1, "m1", 1.0, "kg", "m_1", "mass of body 1 (> 0)")                                  \
  X(tM2, "m2", 2.0, "kg", "m_2", "mass of body 2 (> 0)")                                  \
  X(tA1, "a1", 0.5, "m", "a_1", "body 1 half-extent / semi-axis along body x (> 0)")      \
  X(tB1, "b1", 0.3, "m", "b_1", "body 1 half-extent / semi-axis along body y (> 0)")      \
  X(tC1, "c1", 0.2, "m", "c_1", "body 1 half-extent / semi-axis along body z (> 0)")      \
  X(tA2, "a2", 0.4, "m", "a_2", "body 2 half-extent / semi-axis along body x (> 0)")      \
  X(tB2, "b2", 0.6, "m", "b_2", "body 2 half-extent / semi-axis along body y (> 0)")      \
  X(tC2, "c2", 0.3, "m", "c_2", "body 2 half-extent / semi-axis along body z (> 0)")      \
  X(tRX1, "rx1", 0.3, "rad", "r_{x1}", "body 1 rotation vector x (any)")                  \
  X(tRY1, "ry1", -0.2, "rad", "r_{y1}", "body 1 rotation vector y (any)")                 \
  X(tRZ1, "rz1", 0.5, "rad", "r_{z1}", "body 1 rotation vector z (any)")                  \
  X(tRX2, "rx2", 0.1, "rad", "r_{x2}", "body 2 rotation vector x (any)")                  \
  X(tRY2, "ry2", 0.4, "rad", "r_{y2}", "body 2 rotation vector y (any)")                  \
  X(tRZ2, "rz2", -0.3, "rad", "r_{z2}", "body 2 rotation vector z (any)")                 \
  X(tV1X, "V1x", 0.5, "m/s", "V_{1x}", "body 1 COM velocity x")                           \
  X(tV1Y, "V1y", 0.0, "m/s", "V_{1y}", "body 1 COM velocity y")                           \
  X(tV1Z, "V1z", -1.0, "m/s", "V_{1z}", "body 1 COM velocity z")                          \
  X(tW1X, "w1x", 0.2, "rad/s", "\\omega_{1x}", "body 1 angular velocity x")               \
  X(tW1Y, "w1y", -0.3, "rad/s", "\\omega_{1y}", "body 1 angular velocity y")              \
  X(tW1Z, "w1z", 0.1, "rad/s", "\\omega_{1z}", "body 1 angular velocity z")               \
  X(tV2X, "V2x", 0.0, "m/s", "V_{2x}", "body 2 COM velocity x")                           \
  X(tV2Y, "V2y", 0.2, "m/s", "V_{2y}", "body 2 COM velocity y")                           \
  X(tV2Z, "V2z", 0.5, "m/s", "V_{2z}", "body 2 COM velocity z")                           \
  X(tW2X, "w2x", -0.1, "rad/s", "\\omega_{2x}", "body 2 angular velocity x")              \
  X(tW2Y, "w2y", 0.0, "rad/s", "\\omega_{2y}", "body 2 angular velocity y")               \
  X(tW2Z, "w2z", 0.3, "rad/s", "\\omega_{2z}", "body 2 angular velocity z")               \
  LAW_PARAMS(X, t, 0.4)
enum TwoIdx { TWO_PARAMS(PARAM_INDEX) tN };

Eigen::Vector3d solid_moments(int shape, double m, double a, double b, double c) {
  const double k = shape == 0 ? 1.0 / 3.0 : 1.0 / 5.0;
  return k * m * Eigen::Vector3d(b * b + c * c, a * a + c * c, a * a + b * b);
}

RigidBody two_body(const double* v, int which) {
  const int shape = static_cast<int>(v[which == 1 ? tS1 : tS2]);
  const double m = v[which == 1 ? tM1 : tM2];
  const double* abc = v + (which == 1 ? tA1 : tA2);
  const double* rot = v + (which == 1 ? tRX1 : tRX2);
  const double dir[3] = {0.0, 0.0, which == 1 ? -1.0 : 1.0};
  double s[3];
  scenario_detail::support_point(shape, abc, rot, dir, s);
  RigidBody b;
  b.mass = m;
  b.inertia_body = solid_moments(shape, m, abc[0], abc[1], abc[2]).asDiagonal();
  b.orientation = Eigen::Quaterniond(rotation_from_vector(vec3(rot)));
  b.com = -vec3(s);  // the support point sits at the origin
  b.V = vec3(v + (which == 1 ? tV1X : tV2X));
  b.omega = vec3(v + (which == 1 ? tW1X : tW2X));
  return b;
}

TwoBodyContact two_contact(const double* v) {
  TwoBodyContact c;
  c.b1 = two_body(v, 1);
  c.b2 = two_body(v, 2);
  return c;  // at the origin, n = +z: TwoBodyContact's defaults
}

Status two_build(const double* v, ContactProblem<double>* p) {
  if (!is_code01(v[tS1]) || !is_code01(v[tS2])) return Status::param_out_of_range;
  for (int k : {tM1, tM2, tA1, tB1, tC1, tA2, tB2, tC2})
    if (!positive(v[k])) return Status::param_out_of_range;
  return bodies_instance(two_contact, v, v + tMU, p);
}

void two_body_out(const double* v, const double P[3], double* out) {
  body_or_nan(out, 12, [&] {
    const TwoBodyVelocities a = apply_impulse(two_contact(v), vec3(P));
    put3(a.V1, out);
    put3(a.w1, out + 3);
    put3(a.V2, out + 6);
    put3(a.w2, out + 9);
  });
}

// ---- registry ---------------------------------------------------------------------------------

// The body-level outputs, each with its unit, symbol and meaning (engine/column_info.hpp).
std::vector<engine::ColumnInfo> ball_outputs() {
  std::vector<engine::ColumnInfo> o;
  for (const char* a : {"x", "y", "z"})
    o.push_back(
        {std::string("V") + a, "m/s", std::string("V_") + a + "^+", std::string("centre velocity ") + a + " after the impact"});
  for (const char* a : {"x", "y", "z"})
    o.push_back({std::string("w") + a, "rad/s", std::string("\\omega_") + a + "^+",
                 std::string("angular velocity ") + a + " after the impact"});
  return o;
}

std::vector<engine::ColumnInfo> rates_after(int n) {
  std::vector<engine::ColumnInfo> o;
  for (int k = 1; k <= n; ++k) {
    const std::string i = std::to_string(k);
    o.push_back({"q" + i + "dot_post", "rad/s", "\\dot{q}_" + i + "^+", "rate of q" + i + " after the impact"});
  }
  return o;
}

std::vector<engine::ColumnInfo> two_body_outputs() {
  std::vector<engine::ColumnInfo> o;
  for (const char* b : {"1", "2"}) {
    for (const char* a : {"x", "y", "z"})
      o.push_back({std::string("V") + b + a + "_post", "m/s", std::string("V_{") + b + a + "}^+",
                   std::string("body ") + b + " COM velocity " + a + " after the impact"});
    for (const char* a : {"x", "y", "z"})
      o.push_back({std::string("w") + b + a + "_post", "rad/s", std::string("\\omega_{") + b + a + "}^+",
                   std::string("body ") + b + " angular velocity " + a + " after the impact"});
  }
  return o;
}

std::vector<ScenarioInfo> make_scenarios() {
  std::vector<ScenarioInfo> s;
  s.push_back(ScenarioInfo{"contact",
                           "raw contact space: W = R diag(w1, w2, w3) R^T (R from the rotation vector rx, ry, rz), "
                           "n = z, v0 = (vt cos phi, vt sin phi, -vn)",
                           {CONTACT_PARAMS(PARAM_ENTRY)},
                           {},
                           finite_first<cN, contact_build>,
                           contact_body});
  s.push_back(ScenarioInfo{"ball",
                           "solid sphere on a fixed table (Jia 2013, Section 8.1), n = z",
                           {BALL_PARAMS(PARAM_ENTRY)},
                           ball_outputs(),
                           finite_first<bN, ball_build>,
                           ball_body});
  s.push_back(ScenarioInfo{"ball-oblique",
                           "the ball scenario at a speed and an incidence angle: V0 = speed (sin a cos b, sin a sin b, -cos a)",
                           {BALL_OBLIQUE_PARAMS(PARAM_ENTRY)},
                           ball_outputs(),
                           finite_first<aN, ball_angle_build>,
                           ball_angle_body});
  s.push_back(ScenarioInfo{"pencil",
                           "cylinder on a cone striking a desk with the cone's vertex (Jia 2013, Section 8.2), n = z",
                           {PENCIL_PARAMS(PARAM_ENTRY)},
                           {{"Vx", "m/s", "V_x^+", "COM velocity x after the impact, desk frame"},
                            {"Vy", "m/s", "V_y^+", "COM velocity y after the impact, desk frame"},
                            {"Vz", "m/s", "V_z^+", "COM velocity z after the impact, desk frame"},
                            {"w1", "rad/s", "\\omega_1^+", "angular velocity about x_p after the impact, pencil frame"},
                            {"w2", "rad/s", "\\omega_2^+", "angular velocity about y_p after the impact, pencil frame"},
                            {"w3", "rad/s", "\\omega_3^+", "angular velocity about the axis z_p after the impact, pencil frame"}},
                           finite_first<pN, pencil_build>,
                           pencil_body});
  s.push_back(ScenarioInfo{"double-pendulum-2d",
                           "planar double pendulum of two slender bars striking a floor with its tip (Morgan 2011 "
                           "ch. 2), n = y",
                           {PEND2_PARAMS(PARAM_ENTRY)},
                           rates_after(2),
                           finite_first<dN, pend2_build>,
                           pend2_body});
  s.push_back(ScenarioInfo{"double-pendulum-3d",
                           "spatial double pendulum of two cylinders on spherical joints, absolute body-three 1-2-3 "
                           "Euler angles, striking the ground with its tip (after Rodriguez & Bowling), n = z",
                           {PEND3_PARAMS(PARAM_ENTRY)},
                           rates_after(6),
                           finite_first<sN, pend3_build>,
                           pend3_body});
  s.push_back(ScenarioInfo{"two-bodies",
                           "two free boxes or ellipsoids touching at the origin with their support points, n = z "
                           "from body 2 (below) into body 1 (above)",
                           {TWO_PARAMS(PARAM_ENTRY)},
                           two_body_outputs(),
                           finite_first<tN, two_build>,
                           two_body_out});
  return s;
}

#undef CONTACT_PARAMS
#undef BALL_PARAMS
#undef BALL_OBLIQUE_PARAMS
#undef PENCIL_PARAMS
#undef PEND2_PARAMS
#undef PEND3_PARAMS
#undef TWO_PARAMS
#undef LAW_PARAMS
#undef PARAM_INDEX
#undef PARAM_ENTRY

}  // namespace

const std::vector<ScenarioInfo>& all_scenarios() {
  static const std::vector<ScenarioInfo> s = make_scenarios();
  return s;
}

const ScenarioInfo* find_scenario(std::string_view name) {
  for (const ScenarioInfo& s : all_scenarios())
    if (s.name == name) return &s;
  return nullptr;
}

std::string scenario_list() {
  std::string out;
  for (const ScenarioInfo& s : all_scenarios()) {
    if (!out.empty()) out += ", ";
    out += s.name;
  }
  return out;
}

// ---- scenario_detail --------------------------------------------------------------------------

namespace scenario_detail {

double pencil_com_height(double h1, double h2) {
  return (6.0 * h1 * h1 + 12.0 * h1 * h2 + 3.0 * h2 * h2) / (12.0 * h1 + 4.0 * h2);
}

void pencil_inertia(double r, double h1, double h2, double m, bool eq85, double* Q11, double* Q33) {
  const double h = pencil_com_height(h1, h2);
  const double vol = h1 + h2 / 3.0;  // volumes / (pi r^2)
  const double m1 = m * h1 / vol, m2 = m * (h2 / 3.0) / vol;
  const double l = 0.5 * h1 + h2 - h;  // cylinder centre o1 to o_p
  const double cyl = m1 * ((3.0 * r * r + h1 * h1) / 12.0 + l * l);
  if (eq85) {
    // Jia (2013) eq. (85) as printed: the cone's moment about its vertex o2, moved by h^2.
    *Q11 = m / vol * (h1 * ((3.0 * r * r + h1 * h1) / 12.0 + l * l) + h2 / 3.0 * (0.6 * (0.25 * r * r + h2 * h2) + h * h));
  } else {
    // Cone about its own centre of mass (3 h2/4 from the vertex): 3 r^2/20 + 3 h2^2/80.
    const double dc = h - 0.75 * h2;
    *Q11 = cyl + m2 * (0.15 * r * r + 0.0375 * h2 * h2 + dc * dc);
  }
  *Q33 = 0.5 * m1 * r * r + 0.3 * m2 * r * r;
}

void support_point(int shape, const double abc[3], const double rotvec[3], const double dir[3], double out[3]) {
  const Eigen::Matrix3d R = rotation_from_vector(vec3(rotvec));
  Eigen::Vector3d d = R.transpose() * vec3(dir);
  const double dn = d.norm();
  if (dn > 0.0) d /= dn;
  const Eigen::Vector3d ax = vec3(abc);
  Eigen::Vector3d s;
  if (shape == 0) {
    for (int i = 0; i < 3; ++i) s(i) = std::abs(d(i)) <= kFeatureTol ? 0.0 : (d(i) > 0.0 ? ax(i) : -ax(i));
  } else {
    const Eigen::Vector3d a2d = ax.cwiseProduct(ax).cwiseProduct(d);  // D^2 d
    const double q = std::sqrt(d.dot(a2d));
    s = q > 0.0 ? Eigen::Vector3d(a2d / q) : Eigen::Vector3d::Zero();
  }
  put3(R * s, out);
}

void spatial_pendulum_MJ(const double* values, double M[36], double J[18]) {
  const SpatialPendulum s = spatial_pendulum(values);
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) M[6 * i + j] = s.M(i, j);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 6; ++j) J[6 * i + j] = s.J(i, j);
}

}  // namespace scenario_detail

ContactProblem<double> placeholder_instance() {
  ContactProblem<double> p{};
  p.W = Sym3<double>{1, 0, 0, 1, 0, 1};
  p.n = Vec3<double>{0, 0, 1};
  p.v0 = Vec3<double>{0, 0, -1};
  p.mu = 0;
  p.e = 0;
  p.e_t = 0;
  p.eta0 = 1;
  return p;
}

}  // namespace impact::systems
