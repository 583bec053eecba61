#include "design/salib_problem.hpp"

#include <limits>

#include "io/config_tree.hpp"

namespace impact::design {

using json = nlohmann::ordered_json;

// A SALib problem file (params.from_salib): {"num_vars", "names", "bounds", "dists"} as SALib's
// ProblemSpec holds it, each parameter as a ParamSpec: unif [lo, hi] (also without dists), norm
// [mean, sd], lognorm [mean, sd] of the log, truncnorm [lo, hi, mean, sd]. Groups and the other
// distributions have no counterpart here: refused with their place in the file.
std::vector<ParamSpec> read_salib_problem(const std::string& path) {
  const io::ConfigTree p = io::load_config_file(path);
  const io::ConfigReader r{p};
  const json& root = p.root;
  if (!root.is_object()) throw io::ConfigError(path + ": a SALib problem is a JSON object (num_vars, names, bounds, dists)");
  r.expect_keys(root, "", {"num_vars", "names", "bounds", "dists", "groups", "outputs"});
  if (!root.contains("names") || !root.contains("bounds"))
    throw io::ConfigError(path + ": a SALib problem needs names and bounds");
  if (root.contains("groups") && !root.at("groups").is_null())
    r.fail("groups", "groups are not supported (each name is one scenario parameter)");
  const std::vector<std::string> names = r.strings(root.at("names"), "names");
  const json& bounds = root.at("bounds");
  if (!bounds.is_array() || bounds.size() != names.size())
    r.fail("bounds", "expected one [lo, hi] per name (" + std::to_string(names.size()) + "), got " + io::show_value(bounds));
  std::vector<std::string> dists(names.size(), "unif");
  if (root.contains("dists") && !root.at("dists").is_null()) {
    dists = r.strings(root.at("dists"), "dists");
    if (dists.size() != names.size())
      r.fail("dists", "expected one distribution per name (" + std::to_string(names.size()) + ")");
  }
  if (root.contains("num_vars") &&
      r.integer(root.at("num_vars"), "num_vars", 0, std::numeric_limits<std::uint64_t>::max()) != names.size())
    r.fail("num_vars", "expected the number of names, " + std::to_string(names.size()));
  std::vector<ParamSpec> out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string key = "bounds[" + std::to_string(i) + "]";
    const json& b = bounds[i];
    const std::string& d = dists[i];
    const std::size_t want = d == "truncnorm" ? 4 : 2;
    if (d != "unif" && d != "norm" && d != "lognorm" && d != "truncnorm")
      r.fail("dists[" + std::to_string(i) + "]", "'" + d + "' has no counterpart in a study (unif, norm, lognorm, truncnorm)");
    if (!b.is_array() || b.size() != want)
      r.fail(key, "expected " + std::to_string(want) + " numbers for " + d + ", got " + io::show_value(b));
    std::vector<double> v;
    for (std::size_t k = 0; k < want; ++k) v.push_back(r.num(b[k], key + "[" + std::to_string(k) + "]"));
    ParamSpec ps;
    ps.name = names[i];
    if (d == "unif") ps.kind = ParamKind::uniform, ps.a = v[0], ps.b = v[1];
    if (d == "norm") ps.kind = ParamKind::normal, ps.a = v[0], ps.b = v[1];
    if (d == "lognorm") ps.kind = ParamKind::lognormal, ps.a = v[0], ps.b = v[1];
    if (d == "truncnorm") ps.kind = ParamKind::truncnormal, ps.lo = v[0], ps.hi = v[1], ps.a = v[2], ps.b = v[3];
    try {
      ps.validate(key);
    } catch (const std::invalid_argument& e) { throw io::ConfigError(p.at(key) + e.what()); }
    out.push_back(ps);
  }
  return out;
}

// The SALib problem of a study's varied parameters (salib/problem.json): every distribution in
// SALib's form; a linspace as unif over its end points (the range SALib's analyses assume).
json salib_problem(const std::vector<ParamSpec>& params) {
  json names = json::array(), bounds = json::array(), dists = json::array();
  for (const ParamSpec& p : params) {
    if (p.kind == ParamKind::fixed) continue;
    names.push_back(p.name);
    switch (p.kind) {
      case ParamKind::uniform:
      case ParamKind::linspace: bounds.push_back({p.a, p.b}), dists.push_back("unif"); break;
      case ParamKind::normal: bounds.push_back({p.a, p.b}), dists.push_back("norm"); break;
      case ParamKind::lognormal: bounds.push_back({p.a, p.b}), dists.push_back("lognorm"); break;
      case ParamKind::truncnormal: bounds.push_back({p.lo, p.hi, p.a, p.b}), dists.push_back("truncnorm"); break;
      case ParamKind::fixed: break;
    }
  }
  return {{"num_vars", names.size()}, {"names", names}, {"bounds", bounds}, {"dists", dists}};
}

}  // namespace impact::design
