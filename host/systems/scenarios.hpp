// Study scenarios: physical systems that build one contact-space instance per sample (`impact
// study`). A scenario has named scalar parameters (each with a default), builds an
// impact::ContactProblem<double> from one sample's parameter values, and maps the impulse a law
// computed back to body-level outputs (post-impact V and omega, or qdot+).
//
//   contact             raw contact-space parameters (eigenvalues of W, rotation angles, v0)
//   ball                sphere on a fixed table, Jia (2013) Section 8.1
//   pencil              cylinder on a cone striking a table tip first, Jia (2013) Section 8.2, eq. (85)
//   double-pendulum-2d  planar double pendulum striking the ground, Morgan (2011) ch. 2
//   double-pendulum-3d  Rodriguez & Bowling's six-coordinate spatial double pendulum
//   two-bodies          two free boxes or ellipsoids, orientations and velocities as parameters
//
// Every scenario has the law parameters mu, e, e_t, eta0 among its parameters. Values are in any
// consistent unit set (SI in the docs). Host-only, double precision, Eigen inside.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "engine/column_info.hpp"
#include "impact/problem.hpp"

namespace impact::systems {

// Units and symbols as engine/column_info.hpp states them.
struct ScenarioParam {
  const char* name;    // key in a study config, e.g. "V0x"
  double value;        // default
  const char* unit;    // SI unit ("1": a pure number or a code)
  const char* symbol;  // mathtext, for plot labels
  const char* help;    // meaning and the range it must lie in
};

// One scenario. `params` fixes the order of the value arrays passed to build() and body().
struct ScenarioInfo {
  std::string name;
  std::string summary;
  std::vector<ScenarioParam> params;
  std::vector<engine::ColumnInfo> body_outputs;  // the columns body() writes, e.g. Vx, wy

  // Builds the contact-space instance of one sample from params.size() values (in `params`
  // order). Returns Status::ok, or the status of a sample that cannot be built:
  // param_out_of_range (a geometric or inertial parameter outside its range: non-positive mass or
  // length, an angle outside its documented range), non_finite (a NaN/inf value), W_not_spd. Never
  // throws for bad values: a batch keeps every row. On ok, *p holds W, n, v0, mu, e, e_t, eta0.
  Status (*build)(const double* values, ContactProblem<double>* p);

  // Body-level outputs after the impulse P (world frame, on body 1 at the contact; the contact
  // space of build()) for the same values: writes body_outputs.size() numbers to out.
  // Only called for rows whose build() returned ok.
  void (*body)(const double* values, const double P[3], double* out);

  // Index of a parameter in `params`, or -1.
  int index_of(std::string_view param) const;
};

const std::vector<ScenarioInfo>& all_scenarios();
// A parameter as a column: its name, unit, symbol and help.
inline engine::ColumnInfo column_info(const ScenarioParam& p) { return {p.name, p.unit, p.symbol, p.help}; }
// The instance standing in for a sample the scenario cannot build: one every law accepts (the row
// keeps its build status; the law's results for it are not used).
ContactProblem<double> placeholder_instance();
const ScenarioInfo* find_scenario(std::string_view name);  // null when unknown
std::string scenario_list();                               // "contact, ball, pencil, ..."

// ---- geometry and inertia used by the scenarios (exposed for tests; see scenarios.cpp) --------
namespace scenario_detail {

// Jia (2013) Section 8.2 pencil: distance h (m) of the centre of mass from the cone's vertex,
// h = (6 h1^2 + 12 h1 h2 + 3 h2^2) / (12 h1 + 4 h2) (same density in cylinder and cone).
double pencil_com_height(double h1, double h2);

// The pencil's principal moments about its centre of mass (kg m^2): Q11 = Q22 (transverse) and Q33
// (axial). eq85 = false: exact composition of the cylinder and the cone (each moved to o_p by the
// parallel-axis theorem from its own centre of mass). eq85 = true: Q11 as printed in Jia's eq. (85),
// whose cone term is moved from the vertex instead of the cone's centre of mass, i.e. exceeds the
// exact value by m2 (3/2) h h2. Q33 = m1 r^2/2 + 3 m2 r^2/10 in both cases.
void pencil_inertia(double r, double h1, double h2, double m, bool eq85, double* Q11, double* Q33);

// World-frame offset from the centre of a box (shape 0, half-extents abc) or an ellipsoid (shape 1,
// semi-axes abc) rotated by the rotation vector rotvec (rad) to its support point in direction dir
// (the point of the body farthest along dir). A box's body-frame direction component with
// |d_i| <= 1e-12 |d| counts as zero: the centre of the supporting face or edge is returned.
void support_point(int shape, const double abc[3], const double rotvec[3], const double dir[3], double out[3]);

// Generalized inertia M (6 x 6, row-major) and contact Jacobian J (3 x 6, row-major, world x, y,
// z velocity of the tip) of the spatial double pendulum of scenario double-pendulum-3d, for its
// parameter values (in that scenario's `params` order).
void spatial_pendulum_MJ(const double* values, double M[36], double J[18]);

}  // namespace scenario_detail

}  // namespace impact::systems
