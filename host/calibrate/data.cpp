#include "calibrate/data.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "io/csv.hpp"

namespace impact::calibrate {

namespace {

enum class Role { condition, observed, sigma, ignored };

struct Column {
  std::string name;
  Role role;
  std::size_t slot;  // index among the conditions, the observed outputs, or the observed output of a sigma
};

bool listed(const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); }

std::vector<Column> header_roles(const std::vector<io::CsvField>& f, const io::CsvReader& r, const DataSpec& spec,
                                 const systems::ScenarioInfo& sc, Experiments& d) {
  std::vector<Column> cols;
  for (const io::CsvField& x : f) {
    const std::string name(x.text);
    for (const Column& c : cols)
      if (c.name == name) throw io::InputError(io::located(r.path(), r.line_no(), x.col, "column '" + name + "' twice"));
    const auto obs = std::find(spec.observed.begin(), spec.observed.end(), name);
    const std::string sig = noise_output(name);
    if (listed(spec.ignore, name)) {
      cols.push_back({name, Role::ignored, 0});
    } else if (obs != spec.observed.end()) {
      cols.push_back({name, Role::observed, static_cast<std::size_t>(obs - spec.observed.begin())});
    } else if (!sig.empty() && listed(spec.observed, sig)) {
      cols.push_back(
          {name, Role::sigma,
           static_cast<std::size_t>(std::find(spec.observed.begin(), spec.observed.end(), sig) - spec.observed.begin())});
    } else if (sc.index_of(name) >= 0 && listed(spec.not_conditions, name)) {
      throw io::InputError(io::located(r.path(), r.line_no(), x.col,
                                       "column '" + name +
                                           "' sets a parameter [params] fixes or frees; a condition of "
                                           "the experiments is a parameter [params] does not name"));
    } else if (sc.index_of(name) >= 0) {
      cols.push_back({name, Role::condition, d.conditions.size()});
      d.conditions.push_back(name);
    } else {
      std::string obs_list;
      for (const std::string& o : spec.observed) obs_list += (obs_list.empty() ? "" : ", ") + o;
      throw io::InputError(io::located(r.path(), r.line_no(), x.col,
                                       "column '" + name + "' names no parameter of scenario " + sc.name +
                                           ", no observed output (" + obs_list + ") and no sigma_<output>"));
    }
  }
  return cols;
}

}  // namespace

Experiments read_experiments(const DataSpec& spec, const systems::ScenarioInfo& sc) {
  if (spec.observed.empty()) throw std::invalid_argument("data.observed: no output to compare");
  io::CsvReader r(spec.file, "a table of experiments");
  std::vector<io::CsvField> f;
  if (!r.next(f)) throw io::InputError(io::located(spec.file, 1, 0, "no header: expected the experiments' columns"));
  Experiments d;
  d.observed = spec.observed;
  const std::vector<Column> cols = header_roles(f, r, spec, sc, d);
  for (const std::string& name : spec.ignore)  // a name of no column is a typo, as any other unknown name
    if (std::none_of(cols.begin(), cols.end(), [&](const Column& c) { return c.name == name; })) {
      std::string names;
      for (const Column& c : cols) names += (names.empty() ? "" : ", ") + c.name;
      throw io::InputError(io::located(r.path(), r.line_no(), 0,
                                       "data.ignore: '" + name + "' is no column of the header (its columns: " + names + ")"));
    }
  const std::size_t O = spec.observed.size();
  std::vector<bool> has_obs(O, false), has_sigma(O, false);
  for (const Column& c : cols) {
    if (c.role == Role::observed) has_obs[c.slot] = true;
    if (c.role == Role::sigma) has_sigma[c.slot] = true;
  }
  for (std::size_t j = 0; j < O; ++j) {
    if (!has_obs[j]) throw std::invalid_argument("data.observed: '" + spec.observed[j] + "' has no column in " + spec.file);
    const bool noise = std::find(spec.noise.begin(), spec.noise.end(), spec.observed[j]) != spec.noise.end();
    if (has_sigma[j] && noise)
      throw std::invalid_argument("data.sigma." + spec.observed[j] + ": " + spec.file + " has a column sigma_" +
                                  spec.observed[j] + " (one uncertainty per output: the column or the noise parameter)");
    if (noise) continue;
    if (has_sigma[j] && spec.sigma.count(spec.observed[j]))
      throw std::invalid_argument("data.sigma." + spec.observed[j] + ": " + spec.file + " has a column sigma_" +
                                  spec.observed[j] + " (one uncertainty per output: the column or the constant)");
    if (!has_sigma[j] && !spec.sigma.count(spec.observed[j]))
      throw std::invalid_argument("data: '" + spec.observed[j] + "' has no uncertainty: a column sigma_" + spec.observed[j] +
                                  " in " + spec.file + ", or data.sigma." + spec.observed[j]);
  }
  while (r.next(f)) {
    if (f.size() != cols.size())
      throw io::InputError(
          io::located(r.path(), r.line_no(), 0,
                      "expected " + std::to_string(cols.size()) + " fields (the header's), got " + std::to_string(f.size())));
    d.cond.resize(d.cond.size() + d.conditions.size());
    d.obs.resize(d.obs.size() + O);
    d.sigma.resize(d.sigma.size() + O);
    double* cond = &d.cond[d.n * d.conditions.size()];
    double* obs = &d.obs[d.n * O];
    double* sig = &d.sigma[d.n * O];
    for (std::size_t j = 0; j < O; ++j)
      if (!has_sigma[j]) {
        const auto it = spec.sigma.find(spec.observed[j]);
        sig[j] = it != spec.sigma.end() ? it->second : std::nan("");  // NaN: a noise parameter's
      }
    for (std::size_t k = 0; k < cols.size(); ++k) {
      if (cols[k].role == Role::ignored) continue;
      const double v = io::parse_number(f[k], r, cols[k].name);
      if (!std::isfinite(v))
        throw io::InputError(
            io::located(r.path(), r.line_no(), f[k].col,
                        "expected a finite number in column '" + cols[k].name + "', got '" + std::string(f[k].text) + "'"));
      if (cols[k].role == Role::sigma && !(v > 0))
        throw io::InputError(io::located(
            r.path(), r.line_no(), f[k].col,
            "expected a standard deviation > 0 in column '" + cols[k].name + "', got '" + std::string(f[k].text) + "'"));
      if (cols[k].role == Role::condition) cond[cols[k].slot] = v;
      else if (cols[k].role == Role::observed) obs[cols[k].slot] = v;
      else sig[cols[k].slot] = v;
    }
    ++d.n;
  }
  if (d.n == 0) throw io::InputError(io::located(spec.file, r.line_no() + 1, 0, "no experiment: expected rows after the header"));
  return d;
}

}  // namespace impact::calibrate
