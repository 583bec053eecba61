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

#include "impact/problem.hpp"

namespace impact::host {

struct ScenarioParam {
  const char* name;     // key in a study config, e.g. "V0x"
  double value;         // default
  const char* help;     // meaning and unit
};

// One scenario. `params` fixes the order of the value arrays passed to build() and body().
struct ScenarioInfo {
  std::string name;
  std::string summary;
  std::vector<ScenarioParam> params;
  std::vector<std::string> body_outputs;   // names of the columns body() writes, e.g. "Vx", "wy"

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
const ScenarioInfo* find_scenario(std::string_view name);  // null when unknown
std::string scenario_list();                               // "contact, ball, pencil, ..."

}  // namespace impact::host
