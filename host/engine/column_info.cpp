#include "engine/column_info.hpp"

namespace impact::engine {

namespace {

std::vector<ColumnInfo> make_contact_columns() {
  std::vector<ColumnInfo> c = {{"sample_id", "", "\\mathrm{sample}", "index of the sample in the study's design"}};
  const char* xyz[] = {"x", "y", "z"};
  const char* pairs[] = {"xx", "xy", "xz", "yy", "yz", "zz"};
  for (const char* p : pairs)
    c.push_back({std::string("W_") + p, "1/kg", std::string("W_{") + p + "}",
                 std::string("inverse inertia at the contact, entry ") + p + " (symmetric, world frame)"});
  for (const char* a : xyz)
    c.push_back(
        {std::string("n_") + a, "1", std::string("n_") + a, std::string("unit contact normal from body 2 into body 1, ") + a});
  for (const char* a : xyz)
    c.push_back({std::string("v_") + a, "m/s", std::string("v_{0,") + a + "}",
                 std::string("relative contact velocity before the impact, ") + a});
  c.push_back({"mu", "1", "\\mu", "Coulomb friction coefficient"});
  c.push_back({"e", "1", "e", "normal restitution (kinematic or energetic per law)"});
  c.push_back({"e_t", "1", "e_t", "tangential restitution"});
  c.push_back({"eta0", "1", "\\eta_0", "Jia's stiffness ratio sqrt(k_n / k_t)"});
  for (const char* a : xyz)
    c.push_back({std::string("P_") + a, "N s", std::string("P_") + a, std::string("impulse on body 1, ") + a});
  c.push_back({"P_n", "N s", "P_n", "normal impulse P.n"});
  c.push_back({"P_t", "N s", "P_t", "tangential impulse |P - P_n n|"});
  for (const char* a : xyz)
    c.push_back({std::string("vf_") + a, "m/s", std::string("v_{f,") + a + "}",
                 std::string("relative contact velocity after the impact, ") + a});
  c.push_back({"vf_n", "m/s", "v_{f,n}", "normal separation speed after the impact vf.n"});
  c.push_back({"vf_t", "m/s", "v_{f,t}", "tangential slip speed after the impact |vf - vf_n n|"});
  c.push_back({"dE", "J", "\\Delta E", "change of kinetic energy (<= 0 when dissipative)"});
  c.push_back({"status", "", "\\mathrm{status}", "ok, or why the row has no admissible outcome"});
  return c;
}

}  // namespace

const std::vector<ColumnInfo>& contact_columns() {
  static const std::vector<ColumnInfo> c = make_contact_columns();
  return c;
}

const ColumnInfo* contact_column(std::string_view name) {
  for (const ColumnInfo& c : contact_columns())
    if (c.name == name) return &c;
  return nullptr;
}

ColumnInfo column_info(const ExtraColumn& x) { return {x.name, x.unit, x.symbol, x.meaning}; }

std::string described(const ColumnInfo& c) {
  return c.unit.empty() || c.unit == "1" ? c.meaning : c.meaning + " [" + c.unit + "]";
}

}  // namespace impact::engine
