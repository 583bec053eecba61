#include "study/config.hpp"

#include "study/config_keys.hpp"
#include "design/salib_problem.hpp"

#include <climits>
#include <cstdlib>
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <stdexcept>

#include "engine/options.hpp"
#include "engine/registry.hpp"
#include "io/config_tree.hpp"
#include "io/number.hpp"
#include "design/param_text.hpp"
#include "systems/bodies.hpp"
#include "systems/scenarios.hpp"
#include "study/columns.hpp"

namespace impact::study {

using namespace impact::engine;

using json = nlohmann::ordered_json;
using io::ConfigError;
using io::ConfigReader;
using io::ConfigTree;
using io::json_type_name;
using io::show_value;
using io::split;

// ---- parameters ---------------------------------------------------------------------------------

design::ParamSpec parse_param(const std::string& name, const json& v, const std::string& where) {
  const std::string key = "params." + name;
  const auto fail = [&](const std::string& msg) -> void { throw ConfigError(where + key + ": " + msg); };
  const std::string forms = design::param_forms_text() + " (a string), or a table {dist = ..., ...} / {linspace = [A, B, COUNT]}";
  // The one text grammar and rule set of a marginal (design/param_text.hpp); its errors name the key.
  const auto built = [&](auto make) -> design::ParamSpec {
    try {
      return make();
    } catch (const std::invalid_argument& e) { throw ConfigError(where + e.what()); }
  };
  if (v.is_number()) {
    const double a = v.get<double>();
    return built([&] { return design::param_from_numbers(name, key, design::ParamKind::fixed, &a); });
  }
  if (v.is_string()) return built([&] { return design::parse_param_text(name, key, v.get<std::string>()); });
  if (!v.is_object()) fail("expected " + forms + ", got " + json_type_name(v));
  const auto need = [&](const char* k) -> double {
    if (!v.contains(k)) fail(std::string("missing '") + k + "'");
    const json& x = v.at(k);
    if (x.is_number()) return x.get<double>();
    std::string why;
    if (x.is_string()) {
      const io::ParsedNumber p = io::parse_number_text(io::trim_blanks(x.get<std::string>()));
      if (p.ok()) return p.value;
      why = io::number_fault_hint(p.fault);
    }
    fail(std::string(k) + ": expected a number, got " + json_type_name(x) + " " + show_value(x) + why);
    return 0;
  };
  const auto only = [&](const std::set<std::string>& allowed) {
    for (auto it = v.begin(); it != v.end(); ++it)
      if (!allowed.count(it.key())) {
        std::string list;
        for (const std::string& k : allowed) list += (list.empty() ? "" : ", ") + k;
        fail("unknown key '" + it.key() + "' (known here: " + list + ")");
      }
  };
  if (v.contains("linspace")) {
    only({"linspace"});
    const json& l = v.at("linspace");
    if (!l.is_array() || l.size() != 3 || !l[0].is_number() || !l[1].is_number() || !l[2].is_number())
      fail("linspace: expected [A, B, COUNT]");
    const double n[3] = {l[0].get<double>(), l[1].get<double>(), l[2].get<double>()};
    return built([&] { return design::param_from_numbers(name, key, design::ParamKind::linspace, n); });
  }
  if (v.contains("E1")) {
    // eta0 from the elastic constants of both bodies (Hertz-Mindlin, systems/bodies.hpp)
    if (name != "eta0") fail("elastic constants {E1, nu1, E2, nu2} give eta0 only");
    only({"E1", "nu1", "E2", "nu2"});
    const double E2 = v.contains("E2") ? need("E2") : std::numeric_limits<double>::infinity();
    const double nu2 = v.contains("nu2") ? need("nu2") : 0.3;
    if (v.contains("nu2") && !v.contains("E2")) fail("nu2 without E2 (body 2 is rigid without E2)");
    const double E1 = need("E1"), nu1 = need("nu1");
    double eta0 = 0;
    try {
      eta0 = systems::eta0_from_elastic(E1, nu1, E2, nu2);
    } catch (const std::invalid_argument& e) { fail(e.what()); }
    return built([&] { return design::param_from_numbers(name, key, design::ParamKind::fixed, &eta0); });
  }
  if (!v.contains("dist")) fail("a table needs 'dist' or 'linspace' (expected " + forms + "; for eta0 also {E1, nu1, E2, nu2})");
  if (!v.at("dist").is_string()) fail("dist: expected a string");
  const std::string d = v.at("dist").get<std::string>();
  const design::ParamForm* f = design::find_param_form(d);
  if (!f || f->kind == design::ParamKind::linspace) {
    std::string known;
    for (const design::ParamForm* g = design::param_forms_begin(); g != design::param_forms_end(); ++g)
      if (g->kind != design::ParamKind::linspace) known += (known.empty() ? "" : ", ") + std::string(g->name);
    fail("dist: unknown distribution '" + d + "' (known: " + known + "; a grid is {linspace = [A, B, COUNT]})");
  }
  std::set<std::string> fields = {"dist"};
  for (int i = 0; i < f->arity; ++i) fields.insert(f->fields[i]);
  only(fields);
  double n[4] = {0, 0, 0, 0};
  for (int i = 0; i < f->arity; ++i) n[i] = need(f->fields[i]);
  return built([&] { return design::param_from_numbers(name, key, f->kind, n); });
}

// ---- the study ----------------------------------------------------------------------------------

std::string default_out_dir(const ConfigReader& r, const std::string& table, const std::string& name) {
  // one plain name, so that the folder stays inside out/
  const bool blank = std::all_of(name.begin(), name.end(), [](unsigned char ch) { return std::isspace(ch) != 0; });
  if (blank || name == "." || name == ".." || name.find('/') != std::string::npos)
    r.fail(table + ".name",
           "expected a plain name, without '/' and not '.' or '..', for the default output folder "
           "out/NAME (or give output.dir), got '" +
               name + "'");
  return "out/" + name;
}

const json& read_config_head(const ConfigReader& r, const std::string& table, const std::set<std::string>& keys,
                             const std::string& holds, ConfigHead& head) {
  const json& root = r.t.root;
  if (!root.contains(table)) throw ConfigError(r.t.file + ":1:1: " + table + ": missing table [" + table + "] (" + holds + ")");
  const json& t = r.table(root.at(table), table);
  r.expect_keys(t, table, keys);
  if (t.contains("name")) head.name = r.str(t.at("name"), table + ".name");
  if (t.contains("description")) head.description = r.str(t.at("description"), table + ".description");
  const std::string key = table + ".scenario";
  if (!t.contains("scenario")) r.fail(key, "missing (known: " + systems::scenario_list() + ")");
  head.scenario = r.str(t.at("scenario"), key);
  if (!systems::find_scenario(head.scenario))
    r.fail(key, "unknown scenario '" + head.scenario + "' (known: " + systems::scenario_list() + ")");
  return t;
}

namespace {

// [study]: its head (read_config_head), law(s); returns the scenario.
const systems::ScenarioInfo& resolve_study(const ConfigReader& r, StudyConfig& c) {
  ConfigHead head{c.name, c.description, c.scenario};
  const json& st = read_config_head(r, "study", io::keys_under(study_key_docs(), "study"), "scenario and law(s)", head);
  c.name = head.name, c.description = head.description, c.scenario = head.scenario;
  const systems::ScenarioInfo& sc = *systems::find_scenario(c.scenario);
  if (st.contains("law") && st.contains("laws")) r.fail("study.laws", "give either 'law' or 'laws', not both");
  if (st.contains("law")) c.laws = {r.str(st.at("law"), "study.law")};
  if (st.contains("laws")) c.laws = r.strings(st.at("laws"), "study.laws");
  const std::string lawkey = st.contains("law") ? "study.law" : "study.laws";
  if (c.laws.empty()) r.fail(lawkey, "at least one law is needed (known: " + law_names() + ")");
  std::set<std::string> seen;
  for (const std::string& l : c.laws) {
    if (!find_law(l)) r.fail(lawkey, "unknown law '" + l + "' (known: " + law_names() + ")");
    if (!seen.insert(l).second) r.fail(lawkey, "law '" + l + "' listed twice");
  }
  return sc;
}

// [run]: backend, precision and integrator (to their enums here), steps, chunk.
void resolve_run(const ConfigReader& r, const json& root, StudyConfig& c) {
  engine::resolve_run_keys(r, root,
                           engine::RunKeys{c.backend, c.precision, c.integrator, c.steps, &c.chunk, true, kMaxSteps, kMaxChunk});
}

// [design]: kind, n, seed, skip_first, file (relative to the config file's folder).
void resolve_design(const ConfigReader& r, const json& d, StudyConfig& c) {
  const ConfigTree& t = r.t;
  r.expect_keys(d, "design", io::keys_under(study_key_docs(), "design"));
  if (d.contains("kind")) {
    const std::string k = r.str(d.at("kind"), "design.kind");
    try {
      c.design.kind = design::parse_design_kind("design.kind", k);
    } catch (const std::invalid_argument& e) { throw ConfigError(t.at("design.kind") + e.what()); }
  }
  if (d.contains("n")) c.design.n = static_cast<std::size_t>(r.integer(d.at("n"), "design.n", 1, design::kMaxDesignRows));
  if (d.contains("seed")) c.design.seed = r.integer(d.at("seed"), "design.seed", 0, std::numeric_limits<std::uint64_t>::max());
  if (d.contains("skip_first")) c.design.skip_first = r.boolean(d.at("skip_first"), "design.skip_first");
  if (d.contains("file")) c.design.file = r.str(d.at("file"), "design.file");
  if (d.contains("second_order")) c.design.second_order = r.boolean(d.at("second_order"), "design.second_order");
  if (c.design.second_order && c.design.kind != design::DesignKind::saltelli)
    r.fail("design.second_order", "second-order Sobol indices need design.kind = \"saltelli\"");
  if (c.design.kind == design::DesignKind::imported && c.design.file.empty())
    r.fail("design.file", "design.kind = imported needs a file");
  if (c.design.kind != design::DesignKind::imported && c.design.kind != design::DesignKind::saltelli && !c.design.file.empty())
    r.fail("design.file", "only used with design.kind = imported (a sample matrix) or saltelli (SALib's Saltelli matrix)");
  if (c.design.kind == design::DesignKind::grid && d.contains("n"))
    r.fail("design.n", "not used by a grid design (its size is the product of the linspace counts)");
  // a relative file in a config file is relative to that file's folder
  c.design.file = t.path_beside("design.file", c.design.file);
}

// [params]: every parameter the study sets, each one the scenario has; from_salib = "FILE" adds a
// SALib problem's (read_salib_problem; relative to the config file's folder).
void resolve_params(const ConfigReader& r, const json& root, const systems::ScenarioInfo& sc, StudyConfig& c) {
  const json& ps = r.table(root.at("params"), "params");
  const auto unknown = [&](const std::string& key, const std::string& name) {
    std::string known;
    for (const systems::ScenarioParam& p : sc.params) known += (known.empty() ? "" : ", ") + std::string(p.name);
    r.fail(key, "scenario " + c.scenario + " has no parameter '" + name + "' (known: " + known + ")");
  };
  const auto twice = [&](const std::string& key, const std::string& name) {
    for (const design::ParamSpec& p : c.params)
      if (p.name == name) r.fail(key, "'" + name + "' is set twice (here and in params.from_salib's problem)");
  };
  if (ps.contains("from_salib")) {
    const std::string file = r.t.path_beside("params.from_salib", r.str(ps.at("from_salib"), "params.from_salib"));
    std::vector<design::ParamSpec> got;
    try {
      got = design::read_salib_problem(file);
    } catch (const ConfigError& e) { throw ConfigError(r.t.at("params.from_salib") + "params.from_salib: " + e.what()); }
    for (const design::ParamSpec& p : got) {
      if (sc.index_of(p.name) < 0) unknown("params.from_salib", p.name);
      twice("params.from_salib", p.name);
      c.params.push_back(p);
    }
  }
  for (auto it = ps.begin(); it != ps.end(); ++it) {
    const std::string key = "params." + it.key();
    if (it.key() == "from_salib") continue;
    twice(key, it.key());
    if (sc.index_of(it.key()) < 0) {
      std::string known;
      for (const systems::ScenarioParam& p : sc.params) known += (known.empty() ? "" : ", ") + std::string(p.name);
      r.fail(key, "scenario " + c.scenario + " has no parameter '" + it.key() + "' (known: " + known + ")");
    }
    c.params.push_back(parse_param(it.key(), it.value(), r.t.at(key)));
  }
}

// [output]: dir (default out/NAME), formats, columns (checked once every column is known).
void resolve_output(const ConfigReader& r, const json& root, StudyConfig& c) {
  if (root.contains("output")) {
    const json& o = r.table(root.at("output"), "output");
    r.expect_keys(o, "output", io::keys_under(study_key_docs(), "output"));
    c.out_dir = o.contains("dir") ? r.folder(o.at("dir"), "output.dir") : default_out_dir(r, "study", c.name);
    if (o.contains("formats")) c.formats = r.strings(o.at("formats"), "output.formats");
    if (o.contains("columns")) c.columns = r.strings(o.at("columns"), "output.columns");
    if (o.contains("csv_max_rows"))
      c.csv_max_rows = r.integer(o.at("csv_max_rows"), "output.csv_max_rows", 0, std::numeric_limits<std::uint64_t>::max());
  } else {
    c.out_dir = default_out_dir(r, "study", c.name);
  }
  for (const std::string& f : c.formats)
    if (f != "csv" && f != "npy" && f != "salib") r.fail("output.formats", "unknown format '" + f + "' (known: csv, npy, salib)");
}

// Checks that a name is a column the study can produce (for output.columns, sensitivity and
// plots), or where allowed a parameter of the scenario.
struct ColumnCheck {
  const ConfigReader& r;
  const systems::ScenarioInfo& sc;
  StudyColumns cols;

  void operator()(const std::string& name, const std::string& key, bool allow_params) const {
    if (cols.has_output(name)) return;
    if (allow_params && sc.index_of(name) >= 0) return;
    r.fail(key, "unknown column '" + name + "' (outputs: " + cols.output_list() +
                    (allow_params ? "; or a parameter of the scenario" : "") + ")");
  }
};

// [sensitivity]: outputs, bootstrap, confidence (a Saltelli design).
void resolve_sensitivity(const ConfigReader& r, const json& sens, const ColumnCheck& check, StudyConfig& c) {
  const json& s = r.table(sens, "sensitivity");
  r.expect_keys(s, "sensitivity", io::keys_under(study_key_docs(), "sensitivity"));
  if (s.contains("outputs")) c.sens_outputs = r.strings(s.at("outputs"), "sensitivity.outputs");
  if (s.contains("bootstrap")) c.bootstrap = r.integer(s.at("bootstrap"), "sensitivity.bootstrap", 10, kMaxBootstrap);
  if (s.contains("confidence")) {
    c.confidence = r.num(s.at("confidence"), "sensitivity.confidence");
    if (!(c.confidence > 0 && c.confidence < 1)) r.fail("sensitivity.confidence", "expected a number in (0, 1)");
  }
  if (c.sens_outputs.empty()) r.fail("sensitivity.outputs", "name at least one output column");
  for (const std::string& o : c.sens_outputs) check(o, "sensitivity.outputs", false);
  if (c.design.kind != design::DesignKind::saltelli)
    r.fail("sensitivity",
           "Sobol indices need design.kind = \"saltelli\" (got " + std::string(design_kind_name(c.design.kind)) + ")");
}

// plots[i]: kind, x, y, file, title, law, bins.
PlotSpec resolve_plot(const ConfigReader& r, const json& plot, std::size_t i, const systems::ScenarioInfo& sc,
                      const ColumnCheck& check, const StudyConfig& c) {
  const std::string key = "plots[" + std::to_string(i) + "]";
  const json& p = r.table(plot, key);
  r.expect_keys(p, key, io::keys_under(study_key_docs(), "plots[]"));
  PlotSpec ps;
  if (!p.contains("kind")) r.fail(key + ".kind", "missing (sweep, hist or scatter)");
  ps.kind = r.str(p.at("kind"), key + ".kind");
  if (ps.kind != "sweep" && ps.kind != "hist" && ps.kind != "scatter")
    r.fail(key + ".kind", "expected sweep, hist or scatter, got '" + ps.kind + "'");
  if (p.contains("x")) ps.x = r.str(p.at("x"), key + ".x");
  if (p.contains("y")) ps.y = r.strings(p.at("y"), key + ".y");
  if (p.contains("title")) ps.title = r.str(p.at("title"), key + ".title");
  if (p.contains("law")) {
    ps.law = r.str(p.at("law"), key + ".law");
    bool found = false;
    for (const std::string& l : c.laws) found |= l == ps.law;
    if (!found) r.fail(key + ".law", "law '" + ps.law + "' is not one of study.laws");
  }
  if (p.contains("bins")) ps.bins = static_cast<int>(r.integer(p.at("bins"), key + ".bins", 2, kMaxBins));
  if (ps.y.empty()) r.fail(key + ".y", "name at least one column");
  if (ps.kind == "hist" && !ps.x.empty()) r.fail(key + ".x", "a histogram has no x (put the columns in y)");
  if (ps.kind != "hist" && ps.x.empty()) r.fail(key + ".x", "missing (the column on the horizontal axis)");
  if (ps.kind == "scatter" && ps.y.size() != 1) r.fail(key + ".y", "a scatter plot takes one y column");
  if (ps.kind == "sweep" && sc.index_of(ps.x) < 0)
    r.fail(key + ".x", "a sweep's x must be a scenario parameter, got '" + ps.x + "'");
  if (ps.kind == "sweep" && c.design.kind != design::DesignKind::grid)
    r.fail(key + ".kind", std::string("a sweep needs design.kind = \"grid\" (got ") + design_kind_name(c.design.kind) +
                              "); use a scatter plot for sampled designs");
  if (!ps.x.empty()) check(ps.x, key + ".x", true);
  for (const std::string& y : ps.y) check(y, key + ".y", true);
  ps.file = p.contains("file") ? r.str(p.at("file"), key + ".file") : c.name + "-" + std::to_string(i + 1) + ".png";
  // a picture's own name in the folder: plain, a stem, and a format matplotlib draws that no table
  // or report of a run has (so that no plot replaces one), e.g. "fig.png"
  const std::size_t dot = ps.file.rfind('.');
  const std::string ext = dot == std::string::npos ? "" : ps.file.substr(dot);
  if (!io::owned_name(ps.file) || ps.file.find('/') != std::string::npos || dot == 0 || dot == std::string::npos ||
      (ext != ".png" && ext != ".pdf" && ext != ".svg"))
    r.fail(key + ".file", "a picture's file name inside output.dir: NAME.png, .pdf or .svg, without '/' (got " +
                              io::show_value(p.contains("file") ? p.at("file") : json(ps.file)) + ")");
  for (const PlotSpec& other : c.plots)
    if (other.file == ps.file) r.fail(key + ".file", "'" + ps.file + "' is another plot's file too");
  return ps;
}

}  // namespace

StudyConfig resolve_config(const ConfigTree& t) {
  const ConfigReader r{t};
  StudyConfig c;
  const json& root = t.root;
  r.expect_keys(root, "", io::keys_under(study_key_docs(), ""));
  const systems::ScenarioInfo& sc = resolve_study(r, c);
  resolve_run(r, root, c);
  if (root.contains("design")) resolve_design(r, r.table(root.at("design"), "design"), c);
  if (root.contains("params")) resolve_params(r, root, sc, c);
  resolve_output(r, root, c);
  // every column name the study can produce, for output.columns, sensitivity and plots
  const ColumnCheck check{r, sc, study_columns(c.laws, sc)};
  for (const std::string& col : c.columns) check(col, "output.columns", false);
  if (root.contains("sensitivity")) resolve_sensitivity(r, root.at("sensitivity"), check, c);
  if (root.contains("plots")) {
    const json& pl = root.at("plots");
    if (!pl.is_array()) r.fail("plots", std::string("expected an array of tables ([[plots]]), got ") + json_type_name(pl));
    for (std::size_t i = 0; i < pl.size(); ++i) c.plots.push_back(resolve_plot(r, pl[i], i, sc, check, c));
  }
  return c;
}

json to_json(const StudyConfig& c) {
  json j;
  j["study"] = {{"name", c.name}, {"description", c.description}, {"scenario", c.scenario}, {"laws", c.laws}};
  j["run"] = {{"backend", c.backend},
              {"precision", precision_name(c.precision)},
              {"integrator", integrator_name(c.integrator)},
              {"steps", c.steps},
              {"chunk", c.chunk}};
  json d = {{"kind", design_kind_name(c.design.kind)}};
  if (c.design.kind != design::DesignKind::grid) d["n"] = c.design.n;  // a grid's size comes from its linspaces
  d["seed"] = c.design.seed;
  d["skip_first"] = c.design.skip_first;
  if (!c.design.file.empty()) d["file"] = c.design.file;
  if (c.design.kind == design::DesignKind::saltelli) d["second_order"] = c.design.second_order;
  j["design"] = d;
  json ps = json::object();
  const auto num = [](double x) -> json {
    if (std::isinf(x)) return json(x > 0 ? "inf" : "-inf");
    return json(x);
  };
  for (const design::ParamSpec& p : c.params) {
    switch (p.kind) {
      case design::ParamKind::fixed: ps[p.name] = num(p.a); break;
      case design::ParamKind::uniform: ps[p.name] = {{"dist", "uniform"}, {"lo", num(p.a)}, {"hi", num(p.b)}}; break;
      case design::ParamKind::normal: ps[p.name] = {{"dist", "normal"}, {"mean", num(p.a)}, {"sd", num(p.b)}}; break;
      case design::ParamKind::lognormal: ps[p.name] = {{"dist", "lognormal"}, {"mu", num(p.a)}, {"sigma", num(p.b)}}; break;
      case design::ParamKind::truncnormal:
        ps[p.name] = {{"dist", "truncnormal"}, {"mean", num(p.a)}, {"sd", num(p.b)}, {"lo", num(p.lo)}, {"hi", num(p.hi)}};
        break;
      case design::ParamKind::linspace: ps[p.name] = {{"linspace", {num(p.a), num(p.b), p.count}}}; break;
    }
  }
  j["params"] = ps;
  j["output"] = {{"dir", c.out_dir}, {"formats", c.formats}, {"columns", c.columns}, {"csv_max_rows", c.csv_max_rows}};
  if (!c.sens_outputs.empty())
    j["sensitivity"] = {{"outputs", c.sens_outputs}, {"bootstrap", c.bootstrap}, {"confidence", c.confidence}};
  json pl = json::array();
  for (const PlotSpec& p : c.plots) {
    json o = {{"kind", p.kind}};
    if (!p.x.empty()) o["x"] = p.x;
    o["y"] = p.y;
    o["file"] = p.file;
    if (!p.title.empty()) o["title"] = p.title;
    if (!p.law.empty()) o["law"] = p.law;
    if (p.kind == "hist") o["bins"] = p.bins;
    pl.push_back(o);
  }
  if (!pl.empty()) j["plots"] = pl;
  return j;
}

bool same_study(const StudyConfig& a, const StudyConfig& b) {
  const auto same_plot = [](const PlotSpec& x, const PlotSpec& y) {
    return x.kind == y.kind && x.x == y.x && x.y == y.y && x.file == y.file && x.title == y.title && x.law == y.law &&
           (x.kind != "hist" || x.bins == y.bins);
  };
  if (a.plots.size() != b.plots.size()) return false;
  for (std::size_t i = 0; i < a.plots.size(); ++i)
    if (!same_plot(a.plots[i], b.plots[i])) return false;
  return a.name == b.name && a.description == b.description && a.scenario == b.scenario && a.laws == b.laws &&
         a.backend == b.backend && a.precision == b.precision && a.integrator == b.integrator && a.steps == b.steps &&
         a.chunk == b.chunk && a.design.kind == b.design.kind && a.design.n == b.design.n && a.design.seed == b.design.seed &&
         a.design.skip_first == b.design.skip_first && a.design.file == b.design.file &&
         a.design.second_order == b.design.second_order && a.params == b.params && a.out_dir == b.out_dir &&
         a.formats == b.formats && a.columns == b.columns && a.csv_max_rows == b.csv_max_rows &&
         a.sens_outputs == b.sens_outputs && a.bootstrap == b.bootstrap && a.confidence == b.confidence;
}

}  // namespace impact::study
