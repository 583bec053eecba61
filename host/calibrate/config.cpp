#include "calibrate/config.hpp"

#include "calibrate/config_keys.hpp"

#include <algorithm>

#include "design/param_text.hpp"
#include "engine/registry.hpp"
#include "impact/columns.hpp"
#include "study/columns.hpp"
#include "study/config.hpp"
#include "systems/scenarios.hpp"

namespace impact::calibrate {

using json = nlohmann::ordered_json;
using io::ConfigReader;

namespace {

std::vector<std::string> strings(const ConfigReader& r, const json& v, const std::string& key) {
  if (!v.is_array()) r.fail(key, std::string("expected an array of strings, got ") + io::json_type_name(v));
  std::vector<std::string> out;
  for (std::size_t i = 0; i < v.size(); ++i) out.push_back(r.str(v[i], key + "[" + std::to_string(i) + "]"));
  return out;
}

// [calibrate]: its head (study::read_config_head), law(s) and method.
void resolve_head(const ConfigReader& r, CalibrateConfig& c) {
  study::ConfigHead head{c.name, c.description, c.scenario};
  const json& s =
      study::read_config_head(r, "calibrate", io::keys_under(calibrate_key_docs(), "calibrate"), "scenario and law", head);
  c.name = head.name, c.description = head.description, c.scenario = head.scenario;
  if (s.contains("laws")) {
    c.laws = strings(r, s.at("laws"), "calibrate.laws");
    for (std::size_t i = 0; i < c.laws.size(); ++i) {
      const std::string key = "calibrate.laws[" + std::to_string(i) + "]";
      if (!engine::find_law(c.laws[i])) r.fail(key, "unknown law '" + c.laws[i] + "' (known: " + engine::law_names() + ")");
      if (std::find(c.laws.begin(), c.laws.begin() + static_cast<std::ptrdiff_t>(i), c.laws[i]) !=
          c.laws.begin() + static_cast<std::ptrdiff_t>(i))
        r.fail(key, "'" + c.laws[i] + "' twice");
    }
    if (c.laws.size() == 1) r.fail("calibrate.laws", "expected two laws or more to compare (or calibrate.law for one)");
  }
  if (!s.contains("law") && c.laws.empty()) r.fail("calibrate.law", "missing (known: " + engine::law_names() + ")");
  c.law = s.contains("law") ? r.str(s.at("law"), "calibrate.law") : c.laws.front();
  if (!engine::find_law(c.law)) r.fail("calibrate.law", "unknown law '" + c.law + "' (known: " + engine::law_names() + ")");
  if (s.contains("method")) {
    c.method = r.str(s.at("method"), "calibrate.method");
    if (c.method == "mcmc") c.method = "ensemble";  // its old name
    if (c.method != "smc" && c.method != "ensemble" && c.method != "fit")
      r.fail("calibrate.method", "unknown method '" + c.method +
                                     "' (known: smc, the posterior by tempered sequential "
                                     "Monte Carlo, with its evidence and modes; ensemble (or mcmc), the posterior by the "
                                     "stretch-move sampler; fit, its maximum and the Laplace approximation)");
  }
  if (!c.laws.empty() && c.method != "smc")
    r.fail("calibrate.method",
           "calibrate.laws compares the laws' evidence, which only smc computes: the method must be "
           "\"smc\" (it is \"" +
               c.method + "\")");
}

// [smc]: read whatever the method, as [fit] and [mcmc]
void resolve_smc(const ConfigReader& r, const json& root, CalibrateConfig& c) {
  c.smc.particles = 0;
  if (!root.contains("smc")) return;
  const json& m = r.table(root.at("smc"), "smc");
  r.expect_keys(m, "smc", io::keys_under(calibrate_key_docs(), "smc"));
  if (m.contains("runs")) c.smc.runs = r.integer(m.at("runs"), "smc.runs", 2, 1024);
  if (m.contains("particles") && !(m.at("particles").is_string() && m.at("particles").get<std::string>() == "auto")) {
    c.smc.particles = r.integer(m.at("particles"), "smc.particles", 2, std::size_t(1) << 24);
    if (c.smc.particles % c.smc.runs)
      r.fail("smc.particles", "expected a multiple of smc.runs (" + std::to_string(c.smc.runs) + "), or \"auto\"");
    if (c.smc.particles / c.smc.runs < 2 * c.free.size() + 2)
      r.fail("smc.particles",
             "expected at least " + std::to_string(2 * c.free.size() + 2) + " per run (" + std::to_string(c.smc.runs) + " runs)");
  }
  if (m.contains("ess_target")) {
    c.smc.ess_target = r.num(m.at("ess_target"), "smc.ess_target");
    if (!(c.smc.ess_target > 0 && c.smc.ess_target < 1)) r.fail("smc.ess_target", "expected a fraction in (0, 1)");
  }
  if (m.contains("seed")) c.smc.seed = r.integer(m.at("seed"), "smc.seed", 0, UINT64_MAX);
  if (m.contains("max_stages")) c.smc.max_stages = r.integer(m.at("max_stages"), "smc.max_stages", 1, 100000);
  if (m.contains("moves")) c.smc.max_moves = r.integer(m.at("moves"), "smc.moves", 2, 4095);
}

// [fit]: read whatever the method (a config may carry both tables and switch with --set)
void resolve_fit(const ConfigReader& r, const json& root, CalibrateConfig& c) {
  if (!root.contains("fit")) return;
  const json& f = r.table(root.at("fit"), "fit");
  r.expect_keys(f, "fit", io::keys_under(calibrate_key_docs(), "fit"));
  if (f.contains("algorithm")) {
    c.fit.algorithm = r.str(f.at("algorithm"), "fit.algorithm");
    const std::vector<std::string>& known = fit_algorithms();
    if (std::find(known.begin(), known.end(), c.fit.algorithm) == known.end())
      r.fail("fit.algorithm", "unknown algorithm '" + c.fit.algorithm + "' (known: " + fit_algorithm_list() + ")");
  }
  if (f.contains("starts")) c.fit_starts = r.integer(f.at("starts"), "fit.starts", 1, 100000);
  if (f.contains("seed")) c.fit_seed = r.integer(f.at("seed"), "fit.seed", 0, UINT64_MAX);
  if (f.contains("global")) {  // "auto", or the design's points (0: none)
    const json& g = f.at("global");
    c.fit_global_auto = g.is_string() && g.get<std::string>() == "auto";
    if (!c.fit_global_auto) {
      if (g.is_string()) r.fail("fit.global", "expected \"auto\" or a number of points (0: no global stage)");
      c.fit_global = r.integer(g, "fit.global", 0, kMaxFitDesign);
      if (c.fit_global > 0 && c.fit_global < 16) r.fail("fit.global", "expected 0 (no global stage) or at least 16 points");
    }
  }
  for (const char* k : {"xtol", "ftol"})
    if (f.contains(k)) {
      const std::string key = std::string("fit.") + k;
      const double v = r.num(f.at(k), key);
      if (!(v > 0) || !(v < 1)) r.fail(key, "expected a tolerance in (0, 1)");
      (k[0] == 'x' ? c.fit.xtol : c.fit.ftol) = v;
    }
  if (f.contains("max_evals")) {  // 0: the default, 400 (free + 1)^2 (what metadata.json says of an unset one)
    c.fit.max_evals = r.integer(f.at("max_evals"), "fit.max_evals", 0, 1u << 30);
    if (c.fit.max_evals > 0 && c.fit.max_evals < 10) r.fail("fit.max_evals", "expected 0 (the default) or at least 10");
  }
  if (f.contains("laplace")) c.fit.laplace = r.boolean(f.at("laplace"), "fit.laplace");
}

void resolve_data(const ConfigReader& r, const json& root, CalibrateConfig& c) {
  if (!root.contains("data")) r.fail("data", "missing (the [data] table: file and observed)");
  const json& d = r.table(root.at("data"), "data");
  r.expect_keys(d, "data", io::keys_under(calibrate_key_docs(), "data"));
  if (!d.contains("file")) r.fail("data.file", "missing (a CSV of the experiments)");
  c.data.file = r.t.path_beside("data.file", r.str(d.at("file"), "data.file"));  // relative to the config
  if (!d.contains("observed")) r.fail("data.observed", R"(missing (the outputs measured, e.g. ["Vx", "Vz"]))");
  c.data.observed = strings(r, d.at("observed"), "data.observed");
  if (c.data.observed.empty()) r.fail("data.observed", "expected at least one output");
  if (d.contains("ignore")) c.data.ignore = strings(r, d.at("ignore"), "data.ignore");
  for (const auto* list : {&c.data.observed, &c.data.ignore})  // a name once (twice is a typo of another)
    for (auto it = list->begin(); it != list->end(); ++it)
      if (std::find(list->begin(), it, *it) != it)
        r.fail(list == &c.data.observed ? "data.observed" : "data.ignore", "'" + *it + "' twice");
  for (const std::string& o : c.data.observed)
    if (std::find(c.data.ignore.begin(), c.data.ignore.end(), o) != c.data.ignore.end())
      r.fail("data.ignore", "'" + o + "' is observed (data.observed) and ignored");
  if (d.contains("sigma")) {
    const json& s = r.table(d.at("sigma"), "data.sigma");
    for (auto it = s.begin(); it != s.end(); ++it) {
      const std::string key = "data.sigma." + it.key();
      if (std::find(c.data.observed.begin(), c.data.observed.end(), it.key()) == c.data.observed.end())
        r.fail(key, "not an observed output");
      if (!it.value().is_number()) {  // a distribution: a free noise parameter sigma_<output> with that prior
        const design::ParamSpec p = study::parse_param(noise_name(it.key()), it.value(), r.t.at(key));
        const bool positive = (p.kind == design::ParamKind::lognormal) ||
                              (p.kind == design::ParamKind::uniform && p.a > 0 && p.b > p.a) ||
                              (p.kind == design::ParamKind::truncnormal && p.lo > 0);
        if (!positive)
          r.fail(key,
                 "a noise parameter's prior must hold only standard deviations > 0: lognormal:MU:SIGMA, "
                 "uniform:LO:HI with 0 < LO < HI, or truncnormal with LO > 0 (got " +
                     design::param_text(p) + ")");
        c.data.noise.push_back(it.key());
        c.free.push_back(p);
        continue;
      }
      const double v = r.num(it.value(), key);
      if (!(v > 0) || !std::isfinite(v)) r.fail(key, "expected a standard deviation > 0, got " + io::show_value(it.value()));
      c.data.sigma[it.key()] = v;
    }
  }
}

void resolve_params(const ConfigReader& r, const json& root, const systems::ScenarioInfo& sc, CalibrateConfig& c) {
  if (!root.contains("params")) r.fail("params", "missing (the free parameters with their priors)");
  const json& ps = r.table(root.at("params"), "params");
  for (auto it = ps.begin(); it != ps.end(); ++it) {
    const std::string key = "params." + it.key();
    if (sc.index_of(it.key()) < 0) r.fail(key, "no parameter of scenario " + sc.name);
    const design::ParamSpec p = study::parse_param(it.key(), it.value(), r.t.at(key));
    if (p.kind == design::ParamKind::linspace) r.fail(key, "a grid is no prior (a free parameter takes a distribution)");
    if (p.kind == design::ParamKind::uniform && !(p.b > p.a)) r.fail(key, "a uniform prior needs LO < HI (it has no density)");
    if (p.kind == design::ParamKind::fixed) c.fixed.emplace_back(p.name, p.a);
    else c.free.push_back(p);
    c.data.not_conditions.push_back(p.name);
  }
  // a law's parameter that this law does not read is set aside (CalibrateConfig::ignored)
  const engine::LawInfo& law = engine::law_named(c.law);
  std::vector<design::ParamSpec> read;
  for (const design::ParamSpec& p : c.free) {
    bool unread = false;
    for (int k = in_mu; k <= in_eta0; ++k) unread = unread || (p.name == kInputNames[k] && !law.reads(k));
    (unread ? c.ignored : read).push_back(p);
  }
  c.free = std::move(read);
  if (c.free.empty()) {
    std::string unread;
    for (const design::ParamSpec& p : c.ignored) unread += (unread.empty() ? "" : ", ") + p.name;
    r.fail("params", unread.empty() ? "no free parameter (give one a distribution: its prior)"
                                    : "no free parameter that law " + c.law + " reads (it does not read " + unread + ")");
  }
}

// Every observed output is a real output column of the law in the scenario.
void check_observed(const ConfigReader& r, const CalibrateConfig& c) {
  const std::vector<study::StudyColumn> cols =
      study::law_output_columns(*engine::find_law(c.law), *systems::find_scenario(c.scenario));
  for (std::size_t i = 0; i < c.data.observed.size(); ++i) {
    bool found = false;
    std::string known;
    for (const study::StudyColumn& col : cols)
      if (col.kind == study::ColKind::real) {
        found = found || col.name == c.data.observed[i];
        known += (known.empty() ? "" : ", ") + col.name;
      }
    if (!found)
      r.fail("data.observed",
             "'" + c.data.observed[i] + "' is no output of " + c.law + " in scenario " + c.scenario + " (known: " + known + ")");
  }
}

void resolve_mcmc(const ConfigReader& r, const json& root, CalibrateConfig& c) {
  const std::size_t d = c.free.size();
  c.walkers = std::max<std::size_t>(16, 4 * d);
  bool burn_set = false;
  if (root.contains("mcmc")) {
    const json& m = r.table(root.at("mcmc"), "mcmc");
    r.expect_keys(m, "mcmc", io::keys_under(calibrate_key_docs(), "mcmc"));
    if (m.contains("walkers")) {
      c.walkers = r.integer(m.at("walkers"), "mcmc.walkers", 2 * d, 1u << 20);
      if (c.walkers % 2) r.fail("mcmc.walkers", "expected an even number (the walkers move in two halves)");
    }
    if (m.contains("steps")) c.mcmc_steps = r.integer(m.at("steps"), "mcmc.steps", 2, 100000000);
    if (m.contains("burn")) {
      c.burn = r.integer(m.at("burn"), "mcmc.burn", 0, c.mcmc_steps - 2);
      burn_set = true;
    }
    if (m.contains("seed")) c.seed = r.integer(m.at("seed"), "mcmc.seed", 0, UINT64_MAX);
    if (m.contains("a")) {
      c.a = r.num(m.at("a"), "mcmc.a");
      if (!(c.a > 1) || !std::isfinite(c.a)) r.fail("mcmc.a", "expected a finite number > 1");
    }
  }
  c.walkers += c.walkers % 2;
  if (!burn_set) c.burn = c.mcmc_steps / 4;
}

// A method's table set on the command line (--set, the Python keywords) that the run's method does
// not read would change nothing, so a run refuses it: a file may carry every method's table and
// switch with --set calibrate.method, but a setting typed for this run is meant for it.
void check_sets_are_read(const ConfigReader& r, const CalibrateConfig& c) {
  const std::string reads = c.method == "ensemble" ? "mcmc" : c.method;
  bool integrates = engine::law_named(c.law).integrator();
  for (const std::string& l : c.laws) integrates = integrates || engine::law_named(l).integrator();
  for (const auto& [key, at] : r.t.where) {
    if (at.first != 0) continue;  // from the file
    if ((key == "run.steps" || key == "run.integrator") && !integrates)
      r.fail(key, "calibrate.law" + std::string(c.laws.empty() ? " " + c.law + " is" : "s are all") +
                      " algebraic (no integration steps): this setting would change nothing");
    const std::string table = key.substr(0, key.find_first_of(".["));
    if (table != "smc" && table != "mcmc" && table != "fit") continue;
    if (table == reads) continue;
    const std::string runs = table == "mcmc" ? "ensemble" : table;
    r.fail(key, "calibrate.method is " + c.method + ", which reads [" + reads + "], not [" + table +
                    "]: this setting would change nothing (set calibrate.method=" + runs + " to use it)");
  }
}

}  // namespace

CalibrateConfig resolve_calibrate_config(const io::ConfigTree& t) {
  const ConfigReader r{t};
  const json& root = t.root;
  r.expect_keys(root, "", io::keys_under(calibrate_key_docs(), ""));
  CalibrateConfig c;
  resolve_head(r, c);
  // [run]: as a study's, without the reference backend and run.chunk
  engine::resolve_run_keys(r, root, engine::RunKeys{c.backend, c.precision, c.integrator, c.steps, nullptr, false, 1000000, 0});
  resolve_data(r, root, c);
  resolve_params(r, root, *systems::find_scenario(c.scenario), c);
  // the noise parameters (data.sigma's distributions) after the scenario's
  std::stable_partition(c.free.begin(), c.free.end(), [](const design::ParamSpec& p) { return noise_output(p.name).empty(); });
  check_observed(r, c);
  resolve_mcmc(r, root, c);
  resolve_smc(r, root, c);
  resolve_fit(r, root, c);
  const json none = json::object();
  const json& o = root.contains("output") ? r.table(root.at("output"), "output") : none;
  r.expect_keys(o, "output", io::keys_under(calibrate_key_docs(), "output"));
  c.out_dir = o.contains("dir") ? r.folder(o.at("dir"), "output.dir") : study::default_out_dir(r, "calibrate", c.name);
  if (o.contains("plots")) c.plots = r.boolean(o.at("plots"), "output.plots");
  return c;
}

CalibrateConfig load_calibrate_config(const CalibrateRequest& q) {
  io::ConfigTree t = q.text.empty() ? io::load_config_file(q.config) : io::parse_config_text(q.text, q.config, q.toml);
  for (const std::string& s : q.sets) io::apply_override(t, s);
  if (!q.out.empty()) io::apply_override(t, "output.dir=" + json(q.out).dump());  // checked as the config's
  if (!q.backend.empty()) io::apply_override(t, "run.backend=" + json(q.backend).dump());
  CalibrateConfig c = resolve_calibrate_config(t);
  if (q.judge_sets) check_sets_are_read(ConfigReader{t}, c);
  c.checkpoint = q.checkpoint;
  return c;
}

std::size_t smc_particles(const CalibrateConfig& c, engine::Backend backend) {
  if (c.smc.particles) return c.smc.particles;
  const std::size_t want = backend == engine::Backend::cuda ? 32768 : 2048;
  const std::size_t per = std::max<std::size_t>((want + c.smc.runs - 1) / c.smc.runs, 2 * c.free.size() + 2);
  return per * c.smc.runs;
}

std::size_t fit_design_points(const CalibrateConfig& c, engine::Backend backend, std::size_t experiments) {
  if (!c.fit_global_auto) return c.fit_global;
  // About a second of the law: 2e9 flops per second on a CPU (the 2-core development VM's rate on
  // jia and stronge batches, omp), 1e11 on a GPU (an H200's on jia batches of 5e4 rows); the cost
  // model's flops per row are within a factor of two of the measured rates of every law.
  const double budget = backend == engine::Backend::cuda ? 1e11 : 2e9;
  const double per_point = std::max(1.0, engine::law_named(c.law).flops_per_instance(c.steps) * static_cast<double>(experiments));
  std::size_t m = 256;
  while (m < 65536 && 2.0 * static_cast<double>(m) * per_point <= budget) m *= 2;
  return m;
}

json to_json(const CalibrateConfig& c) {
  json j;
  j["calibrate"] = {{"name", c.name},         {"description", c.description},
                    {"scenario", c.scenario}, {"law", c.law},
                    {"laws", c.laws},         {"method", c.method}};
  j["run"] = {{"backend", c.backend},
              {"precision", engine::precision_name(c.precision)},
              {"integrator", engine::integrator_name(c.integrator)},
              {"steps", c.steps}};
  json sigma = json::object();
  for (const auto& [k, v] : c.data.sigma) sigma[k] = v;
  for (const design::ParamSpec& p : c.free)
    if (const std::string o = noise_output(p.name); !o.empty()) sigma[o] = design::param_text(p);
  j["data"] = {{"file", c.data.file}, {"observed", c.data.observed}, {"sigma", sigma}, {"ignore", c.data.ignore}};
  json ps = json::object();
  for (const auto& [k, v] : c.fixed) ps[k] = v;
  for (const design::ParamSpec& p : c.free)
    if (noise_output(p.name).empty()) ps[p.name] = design::param_text(p);           // noise parameters: in data.sigma
  for (const design::ParamSpec& p : c.ignored) ps[p.name] = design::param_text(p);  // set aside again when read
  j["params"] = ps;
  j["smc"] = {{"particles", c.smc.particles ? json(c.smc.particles) : json("auto")},
              {"runs", c.smc.runs},
              {"ess_target", c.smc.ess_target},
              {"seed", c.smc.seed},
              {"max_stages", c.smc.max_stages},
              {"moves", c.smc.max_moves}};
  j["mcmc"] = {{"walkers", c.walkers}, {"steps", c.mcmc_steps}, {"burn", c.burn}, {"seed", c.seed}, {"a", c.a}};
  j["fit"] = {{"starts", c.fit_starts},
              {"seed", c.fit_seed},
              {"global", c.fit_global_auto ? json("auto") : json(c.fit_global)},
              {"algorithm", c.fit.algorithm},
              {"xtol", c.fit.xtol},
              {"ftol", c.fit.ftol},
              {"max_evals", c.fit.max_evals},
              {"laplace", c.fit.laplace}};
  j["output"] = {{"dir", c.out_dir}, {"plots", c.plots}};
  return j;
}

}  // namespace impact::calibrate
