#include "calibrate/run.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <functional>
#include <memory>
#include <stdexcept>

#include "resume/sampler_checkpoint.hpp"
#include "calibrate/data.hpp"
#include "infer/ensemble.hpp"
#include "calibrate/fit_global.hpp"
#include "calibrate/fit_report.hpp"
#include "calibrate/model.hpp"
#include "io/samples_file.hpp"
#include "calibrate/smc_report.hpp"
#include "design/design.hpp"
#include "design/scrambled_sobol.hpp"
#include "engine/backend_cost.hpp"
#include "engine/backend_pick.hpp"
#include "engine/registry.hpp"
#include "impact/rng.hpp"
#include "io/cancel.hpp"
#include "io/checksum.hpp"
#include "io/csv.hpp"
#include "io/machine.hpp"
#include "io/npy.hpp"
#include "io/out_file.hpp"
#include "resume/owned_folder.hpp"
#include "io/progress.hpp"
#include "study/report.hpp"
#include "study/columns.hpp"
#include "study/rows.hpp"
#include "systems/scenarios.hpp"

namespace impact::calibrate {

using json = nlohmann::ordered_json;

namespace {

// The kind a calibration's manifest names (resume/owned_folder.hpp): a calibration takes no study's folder
// without --force, and no study takes its.
constexpr const char* kCalibrationKind = "calibration";

const std::vector<std::string> kFiles = {"samples.csv", "samples.npy", "predictive.csv", "summary.md", "metadata.json"};
const std::vector<std::string> kPlots = {"corner.png", "predictive.png"};  // scripts/plot_calibration.py
const std::vector<std::string> kFitFiles = {"estimate.csv", "starts.csv", "predictive.csv", "summary.md", "metadata.json"};

// What a calibration holds at once, checked when the model is set up, before the sampler starts,
// against what a run may hold (design::memory_budget_bytes), the message naming the key to lower:
//   * the chain, kept whole (the positions and log densities of every step): mcmc.steps;
//   * the sampler's batches (the start's mcmc.walkers points, then mcmc.walkers / 2 per half step;
//     fit: fit.starts): every point's coordinates, copies and log density, and one piece of the
//     model's rows (Model::piece_rows_limit: the rows held at once, whatever the batch): mcmc.walkers
//     or fit.starts;
//   * the posterior predictive: kPredictiveDraws draws over blocks of experiments of one piece.
constexpr std::size_t kPredictiveDraws = 200;

// Bytes a batch holds per point of D coordinates: the point, its proposal and draws, its log densities.
double point_bytes(std::size_t D) { return static_cast<double>(4 * D + 6) * sizeof(double); }

std::string limit_text(double budget) {
  return ", more than the " + io::gib(budget) + " a run may hold here (half of the available memory, or of ulimit -v)";
}

}  // namespace

void check_memory(const CalibrateConfig& c, const Model& m, double budget) {
  const double D = static_cast<double>(m.dim());
  const double piece = static_cast<double>(m.piece_rows_limit(budget)) * m.row_bytes();
  const double per_point = point_bytes(m.dim());
  const bool fit = c.method == "fit", smc = c.method == "smc";
  const double points = static_cast<double>(fit ? c.fit_starts : smc ? smc_particles(c, m.backend()) : c.walkers);
  // the chain kept whole (the ensemble); SMC keeps its particles and their proposals (in the batch)
  const double chain =
      fit || smc ? 0.0 : static_cast<double>(c.mcmc_steps) * static_cast<double>(c.walkers) * (D + 1) * sizeof(double);
  const double batch = points * per_point + piece;
  // the fit's global design: its unit points, parameters and log densities, kept whole
  const double design =
      fit ? static_cast<double>(fit_design_points(c, m.backend(), m.data().n)) * (2 * D + 1) * sizeof(double) : 0.0;
  const double predictive = kPredictiveDraws * per_point + piece;
  if (design + chain + std::max(batch, predictive) <= budget) return;
  // the message names the largest part's key
  if (design >= batch)
    throw std::invalid_argument("fit.global: a design of " + std::to_string(fit_design_points(c, m.backend(), m.data().n)) +
                                " points needs " + io::gib(design) + limit_text(budget) + ": fewer points");
  const std::string limit = limit_text(budget);
  if (chain >= batch)
    throw std::invalid_argument("mcmc.steps: the chain of " + std::to_string(c.walkers) + " walkers x " +
                                std::to_string(c.mcmc_steps) + " steps needs " + io::gib(chain) +
                                (batch > 0.01 * budget ? " besides the batches' " + io::gib(batch) : std::string()) + limit +
                                ": fewer steps or walkers");
  const std::string key = fit ? "fit.starts" : smc ? "smc.particles" : "mcmc.walkers";
  throw std::invalid_argument(key + ": a batch of " + std::to_string(static_cast<std::uint64_t>(points)) + " points needs " +
                              io::gib(batch) + " (their coordinates and log densities, and pieces of " +
                              std::to_string(m.piece_rows_limit(budget)) + " rows of the " + std::to_string(m.data().n) +
                              " experiments)" + (chain > 0 ? " besides the chain's " + io::gib(chain) : std::string()) + limit +
                              ": fewer " +
                              (fit   ? "starts"
                               : smc ? "particles"
                                     : "walkers"));
}

namespace {

// Vehtari et al. (2021): draws are trusted when the rank-normalised split R-hat is below 1.01.
constexpr double kRhatLimit = 1.01;

std::string num(double v) {
  std::string s;
  io::append_number(s, v);
  return s;
}

std::string summary_table(const std::vector<std::string>& names, const std::vector<ParamSummary>& ps) {
  std::string t =
      "| parameter | mean | sd | 5% | 16% | 50% | 84% | 95% | tau (steps) | ESS | converged | R-hat | ESS bulk | ESS tail |\n"
      "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|\n";
  char b[64];
  for (std::size_t k = 0; k < ps.size(); ++k) {
    t += "| " + names[k];
    for (double v : {ps[k].mean, ps[k].sd}) std::snprintf(b, sizeof b, " | %.6g", v), t += b;
    for (double v : ps[k].quantiles) std::snprintf(b, sizeof b, " | %.6g", v), t += b;
    // an unknown tau or ESS says so, not "nan"
    for (const auto& [v, fmt] : {std::pair<double, const char*>{ps[k].tau, " | %.1f"}, {ps[k].ess, " | %.0f"}}) {
      if (!std::isfinite(v)) {
        t += " | unknown";
        continue;
      }
      std::snprintf(b, sizeof b, fmt, v);
      t += b;
    }
    t += std::string(" | ") + (ps[k].converged ? "yes" : "no");
    for (const auto& [v, fmt] :
         {std::pair<double, const char*>{ps[k].r_hat, " | %.4f"}, {ps[k].ess_bulk, " | %.0f"}, {ps[k].ess_tail, " | %.0f"}}) {
      if (!std::isfinite(v)) {
        t += " | unknown";
        continue;
      }
      std::snprintf(b, sizeof b, fmt, v);
      t += b;
    }
    t += " |\n";
  }
  return t;
}

void write_samples(const std::string& dir, const EnsembleChain& ch, std::uint64_t burn, const std::vector<std::string>& names,
                   const std::vector<std::string>& titles) {
  io::write_samples_files(dir, {"step", "walker"}, names, titles, (ch.steps - burn) * ch.walkers,
                          [&](std::size_t i, std::uint64_t* ids, double* v) {
                            const std::uint64_t s = burn + i / ch.walkers, w = i % ch.walkers;
                            ids[0] = s, ids[1] = w;
                            for (std::size_t k = 0; k < ch.dim; ++k) v[k] = ch.at(s, w, k);
                            v[ch.dim] = ch.logp[s * ch.walkers + w];
                          });
}

// The posterior predictive of the model's outputs (predictive.csv): the model evaluated at up to
// kPredictiveDraws draws of the posterior (in blocks of experiments), and per
// experiment its conditions, each observed output's data and sigma (a noise parameter's: its
// posterior median), and the quantiles 5/50/95 % and
// mean of the model's output over the draws whose row is ok (`ok` of them: fewer than the draws
// where the law refused a row). kPredictiveDraws (above) is their number.

// The draws of the predictive: up to kPredictiveDraws spread evenly over the chain after the burn-in.
std::vector<double> chain_draws(const EnsembleChain& ch, std::uint64_t burn) {
  const std::size_t D = ch.dim, total = (ch.steps - burn) * ch.walkers, K = std::min(total, kPredictiveDraws);
  std::vector<double> theta(K * D);
  for (std::size_t q = 0; q < K; ++q) {
    const std::size_t flat = q * total / K, s = burn + flat / ch.walkers, w = flat % ch.walkers;
    for (std::size_t k = 0; k < D; ++k) theta[q * D + k] = ch.at(s, w, k);
  }
  return theta;
}

// theta: K draws (K x dim) of the posterior (or of its approximation). The table goes to `put` in
// blocks of experiments, each block one batch of the model (K draws x the block), so that its
// memory is bounded by the block's, not the data's size. The model's batches are collectives over
// processes: every process computes the text, the writer's `put` writes it.
// `o` receives per observed output the root mean square over the experiments of the data's
// residual from the predictive median, in the output's units and in its sigmas.
void predictive_text(Model& m, const std::vector<double>& theta, const std::function<void(const std::string&)>& put,
                     CalibrationOutcome& o) {
  const std::size_t D = m.dim(), K = theta.size() / D;
  const Experiments& d = m.data();
  const std::size_t E = d.n, O = d.observed.size();
  std::string text = "experiment";
  for (const std::string& c : d.conditions) text += "," + c;
  for (const std::string& out_name : d.observed)
    text += "," + out_name + "," + noise_name(out_name) + "," + out_name + "_q05," + out_name + "_q50," + out_name + "_q95," +
            out_name + "_mean";
  text += ",ok\n";
  put(text);
  std::vector<double> v, noise_sd(O, std::nan(""));  // a noise parameter's sd: its median over the draws
  for (std::size_t j = 0; j < O; ++j)
    if (const int k = m.noise_param(j); k >= 0) {
      v.clear();
      for (std::size_t q = 0; q < K; ++q) v.push_back(theta[q * D + static_cast<std::size_t>(k)]);
      std::sort(v.begin(), v.end());
      noise_sd[j] = sorted_quantile(v, 0.5);
    }
  const auto quantile = [&v](double p) { return v.empty() ? std::nan("") : sorted_quantile(v, p); };
  const std::size_t block = std::max<std::size_t>(1, kMaxPieceRows / std::max<std::size_t>(1, K));
  std::vector<double> sq(O, 0.0), sq_z(O, 0.0), counted(O, 0.0);
  std::vector<double> out;
  std::vector<std::uint8_t> status;
  for (std::size_t e0 = 0; e0 < E; e0 += block) {
    const std::size_t e1 = std::min(E, e0 + block), B = e1 - e0;
    m.predict(theta.data(), K, out, status, e0, e1);
    text.clear();
    for (std::size_t i = e0; i < e1; ++i) {
      text += std::to_string(i + 1);
      for (std::size_t c = 0; c < d.conditions.size(); ++c)
        text += ",", io::append_number(text, d.cond[i * d.conditions.size() + c]);
      for (std::size_t j = 0; j < O; ++j) {
        v.clear();
        for (std::size_t q = 0; q < K; ++q)
          if (status[q * B + i - e0] == 0) v.push_back(out[(q * B + i - e0) * O + j]);
        std::sort(v.begin(), v.end());
        double mean = std::nan(""), sd_unused = 0;
        if (!v.empty()) mean_sd(v, mean, sd_unused);
        const double sd = m.noise_param(j) >= 0 ? noise_sd[j] : d.sigma[i * O + j];
        for (double x : {d.obs[i * O + j], sd, quantile(0.05), quantile(0.5), quantile(0.95), mean})
          text += ",", io::append_number(text, x);
        if (const double r = d.obs[i * O + j] - quantile(0.5); std::isfinite(r))
          sq[j] += r * r, sq_z[j] += (r / sd) * (r / sd), counted[j] += 1;
      }
      std::size_t ok = 0;  // the draws whose row the law evaluated (one status per row, whatever the output)
      for (std::size_t q = 0; q < K; ++q) ok += status[q * B + i - e0] == 0;
      text += "," + std::to_string(ok) + "\n";
    }
    put(text);
  }
  o.predictive_rms.assign(O, std::nan(""));
  o.predictive_rms_sigmas.assign(O, std::nan(""));
  for (std::size_t j = 0; j < O; ++j)
    if (counted[j] > 0)
      o.predictive_rms[j] = std::sqrt(sq[j] / counted[j]), o.predictive_rms_sigmas[j] = std::sqrt(sq_z[j] / counted[j]);
}

// What metadata.json says of every run: the machine, the method, the parameters not sampled
// (ignored_params), the processes, the backend and why,
// the experiments, the rows and the timings.
// The unit, symbol and meaning of a calibration's column (metadata.json's columns, samples.npy's
// titles): a condition is a scenario parameter, an observed output a law's or the scenario's
// column, and sigma_<output> has its output's unit.
engine::ColumnInfo calibration_column(const CalibrateConfig& c, const std::string& name) {
  const systems::ScenarioInfo& sc = *systems::find_scenario(c.scenario);
  const engine::LawInfo& law = engine::law_named(c.law);
  if (name.rfind("sigma_", 0) == 0) {
    const engine::ColumnInfo o = calibration_column(c, name.substr(6));
    return {name, o.unit, "\\sigma_{" + o.symbol + "}", "noise standard deviation of " + o.name};
  }
  const int p = sc.index_of(name);
  if (p >= 0) return systems::column_info(sc.params[static_cast<std::size_t>(p)]);
  for (const study::StudyColumn& col : study::law_output_columns(law, sc))
    if (col.name == name) return study::column_info(col, law, sc);
  return {name, "", "", ""};
}

json columns_json(const CalibrateConfig& c, const Experiments& d, const std::vector<std::string>& free) {
  json cols = json::array();
  const auto add = [&](const std::string& name, const char* role) {
    const engine::ColumnInfo i = calibration_column(c, name);
    cols.push_back({{"name", i.name}, {"role", role}, {"unit", i.unit}, {"symbol", i.symbol}, {"meaning", i.meaning}});
  };
  for (const std::string& n : d.conditions) add(n, "condition");
  for (const std::string& n : d.observed) add(n, "observed");
  for (const std::string& n : free) add(n, "parameter");
  return cols;
}

// samples.npy's field titles: each free parameter's "NAME: meaning [unit]", and logp's.
std::vector<std::string> sample_titles(const CalibrateConfig& c, const std::vector<std::string>& free) {
  std::vector<std::string> t;
  t.reserve(free.size() + 1);
  for (const std::string& n : free) t.push_back(study::npy_title(calibration_column(c, n)));
  t.emplace_back("logp: log posterior density, up to the evidence");
  return t;
}

json run_json(const CalibrateConfig& c, const CalibrationOutcome& o, const Experiments& d) {
  const std::size_t experiments = d.n;
  const json out = outcome_json(c, o);
  json j = io::provenance_json();
  j["method"] = out.at("method");
  j["ignored_params"] = json::array();
  for (const design::ParamSpec& p : c.ignored) j["ignored_params"].push_back(p.name);
  j["processes"] = o.processes;
  j["backend"] = out.at("backend");
  j["backend_why"] = out.at("backend_why");
  j["experiments"] = experiments;
  j["rows_evaluated"] = o.rows;
  j["timings"] = {{"total_s", o.seconds},
                  {"law_s", o.law_seconds},
                  {"rows_per_s", o.seconds > 0 ? static_cast<double>(o.rows) / o.seconds : 0.0}};
  j["columns"] = columns_json(c, d, o.names);
  return j;
}

// A parameter's posterior quantiles, keyed by their probabilities (summary_probs).
json quantiles_json(const ParamSummary& p) {
  json q = json::object();
  for (std::size_t i = 0; i < summary_probs().size(); ++i) q[num(summary_probs()[i])] = p.quantiles[i];
  return q;
}

json metadata(const CalibrateConfig& c, const CalibrationOutcome& o, const EnsembleChain& ch, const Experiments& d) {
  json j = run_json(c, o, d);
  j["walkers"] = ch.walkers;
  j["steps"] = ch.steps;
  j["burn"] = c.burn;
  j["seed"] = c.seed;
  j["acceptance_fraction"] = o.acceptance;
  j["stranded_walkers"] = o.stranded;
  j["failed_proposals"] = o.failed_proposals;
  json ps = json::object();
  for (std::size_t k = 0; k < o.params.size(); ++k) {
    const ParamSummary& p = o.params[k];
    ps[o.names[k]] = {
        {"mean", p.mean},           {"sd", p.sd},       {"quantiles", quantiles_json(p)}, {"tau", p.tau},          {"ess", p.ess},
        {"converged", p.converged}, {"r_hat", p.r_hat}, {"ess_bulk", p.ess_bulk},         {"ess_tail", p.ess_tail}};
  }
  j["posterior"] = ps;
  return j;
}

json fit_metadata(const CalibrateConfig& c, const CalibrationOutcome& o, const Experiments& d, const json& global) {
  json j = run_json(c, o, d);
  j["seed"] = c.fit_seed;
  j["estimate"] = fit_json(o.names, o.fit);
  j["global"] = global;
  return j;
}

}  // namespace

json outcome_json(const CalibrateConfig& c, const CalibrationOutcome& o) {
  return {{"out_dir", c.out_dir},
          {"name", c.name},
          {"method", o.method},
          {"names", o.names},
          {"files", o.files},
          {"backend", engine::backend_name(o.backend)},
          {"backend_why", o.backend_why},
          {"converged", o.converged},
          {"acceptance", o.acceptance},
          {"failed_proposals", o.failed_proposals},
          {"rows", o.rows},
          {"seconds", o.seconds},
          {"table", o.table},
          {"plot_note", o.plot_note}};
}

// What summary.md and the CLI say of stranded walkers.
std::string stranded_note(const std::vector<std::size_t>& w, std::size_t walkers) {
  std::string list;
  for (std::size_t k = 0; k < w.size() && k < 8; ++k) list += (k ? ", " : "") + std::to_string(w[k]);
  if (w.size() > 8) list += ", ...";
  return std::to_string(w.size()) + " of " + std::to_string(walkers) + " walkers (" + list +
         ") stayed more than 20 log units below the bulk after the burn-in: a mode the stretch move cannot leave; "
         "the pooled quantiles mix them in (samples.csv has each walker's draws; the corner plot shows the modes)";
}

const std::vector<double>& summary_probs() {
  static const std::vector<double> p = {0.05, 0.16, 0.5, 0.84, 0.95};
  return p;
}

namespace {

// The least of `reps` timings of one log_posterior call on n points.
double batch_seconds(Model& m, const std::vector<double>& pts, std::size_t n, int reps) {
  std::vector<double> out(n);
  double best = HUGE_VAL;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    m.log_posterior(pts.data(), n, out.data());
    best = std::min(best, io::seconds_since(t0));
  }
  return best;
}

// Draw `point` from the prior (point x dim Philox uniforms of stream 7, one per coordinate, through
// each free parameter's quantile): start_from_prior's draws, the same on every machine.
void prior_draw(const Model& m, const Philox& rng, std::uint64_t point, double* x) {
  const std::size_t D = m.dim();
  for (std::size_t k = 0; k < D; ++k) {
    double u, unused;
    uniforms2(rng, point * D + k, 7, u, unused);
    x[k] = m.free()[k].quantile(u);
  }
}

// `count` points from the prior for the backend trial (start_from_prior's, the method's batch of
// `half` first). When the prior refuses that many finite ones, its first draws as they come: the
// trial times them all the same, and the method's own check then refuses the run in its own words
// (a fit's global design may still find the region a few draws missed), whatever the backend.
std::vector<double> trial_points(Model& m, const CalibrateConfig& c, std::size_t count) {
  try {
    return start_from_prior(m, count, c.seed);
  } catch (const std::invalid_argument&) {
    const std::size_t D = m.dim();
    const Philox rng{c.seed};
    std::vector<double> pts(count * D);
    for (std::size_t w = 0; w < count; ++w) prior_draw(m, rng, w, &pts[w * D]);  // start_from_prior's first round
    return pts;
  }
}

// The process that writes a run's files: rank 0, or the only one.
bool writes_files(const resume::ProcessGroup* group) { return !group || group->rank() == 0; }

}  // namespace

std::vector<double> start_from_prior(Model& m, std::size_t walkers, std::uint64_t seed, const char* what) {
  const std::size_t D = m.dim(), W = walkers;
  // the points, their draws and log densities held at once (a run's check_memory has weighed them
  // already; a CalibrationModel's start() has not)
  const double budget = design::memory_budget_bytes();
  const double need = static_cast<double>(W) * point_bytes(D);
  if (need > budget)
    throw std::invalid_argument(std::string(what) + ": " + std::to_string(W) + " points need " + io::gib(need) +
                                " (their coordinates, draws and log densities)" + limit_text(budget) + ": fewer " + what);
  const Philox rng{seed};
  std::vector<double> start(W * D);
  std::vector<std::size_t> todo(W);
  for (std::size_t w = 0; w < W; ++w) todo[w] = w;
  for (std::uint32_t round = 0; round < 100 && !todo.empty(); ++round) {
    std::vector<double> pts(todo.size() * D), got(todo.size());
    for (std::size_t t = 0; t < todo.size(); ++t)
      prior_draw(m, rng, static_cast<std::uint64_t>(round) * W + todo[t], &pts[t * D]);
    m.log_posterior(pts.data(), todo.size(), got.data());
    std::vector<std::size_t> left;
    for (std::size_t t = 0; t < todo.size(); ++t) {
      if (std::isfinite(got[t])) std::copy(&pts[t * D], &pts[t * D] + D, &start[todo[t] * D]);
      else left.push_back(todo[t]);
    }
    todo = left;
  }
  if (!todo.empty()) {
    // why, at the first draw of a walker left: the law's statuses on the data, or the data's distance
    std::vector<double> first(D);
    prior_draw(m, rng, todo[0], first.data());
    // one point asked for (SMC's check that the model holds somewhere): no count of what asked
    const std::string who = W == 1 ? std::string("none of 100 draws from the prior has a finite posterior")
                                   : std::to_string(todo.size()) + " of " + std::to_string(W) + " " + what +
                                         " found no start with a finite posterior in 100 draws from the prior";
    throw std::invalid_argument("calibrate: " + who + " (does the model hold anywhere in it?); at the first draw, " +
                                m.why_not_finite(first.data()));
  }
  return start;
}

void on_every_process(resume::ProcessGroup* group, const std::function<void()>& f) {
  if (!group || group->size() < 2) return f();
  std::string err;
  std::exception_ptr mine;
  try {
    f();
  } catch (const std::exception& e) {
    err = e.what();
    if (err.empty()) err = "an error";
    mine = std::current_exception();
  }
  const std::vector<std::string> all = group->allgather(err, "");
  if (mine) std::rethrow_exception(mine);
  for (std::size_t p = 0; p < all.size(); ++p)
    if (!all[p].empty()) throw std::invalid_argument("process " + std::to_string(p) + ": " + all[p]);
}

resume::FolderClaim claim_on_rank0(const resume::FolderRequest& r, resume::ProcessGroup* group) {
  resume::FolderClaim claim;
  on_every_process(group, [&] {
    if (writes_files(group)) claim = resume::claim_folder(r);
  });
  return claim;
}

std::unique_ptr<Model> make_model(const CalibrateConfig& c, std::string* why, resume::ProcessGroup* group) {
  const bool shared = group && group->size() > 1;
  const systems::ScenarioInfo& sc = *systems::find_scenario(c.scenario);
  const engine::LawInfo& law = *engine::find_law(c.law);
  Experiments data;
  auto make = [&](engine::Backend b, Experiments d) {
    auto m = std::make_unique<Model>(sc, law, b, c.precision, engine::law_options(c.steps, c.integrator), c.fixed, c.free,
                                     std::move(d));
    m->set_group(group);
    return m;
  };
  std::unique_ptr<Model> named;
  bool cuda = false;
  engine::Workload w;
  w.laws = {&law};
  w.precision = c.precision;
  w.steps = c.steps;
  on_every_process(group, [&] {
    data = read_experiments(c.data, sc);
    if (c.backend != "auto") {  // named: taken (cuda without a usable device: std::invalid_argument saying why)
      const engine::BackendPick b = engine::pick_backend(c.backend, w, false);
      if (why) *why = b.why;
      named = make(b.backend, data);
    } else {
      cuda = engine::cuda_usable();
    }
  });
  if (named) return named;
  if (shared) cuda = group->all(cuda);  // the same candidates on every process: cuda where all have it
  // the batch the method evaluates: half the walkers (mcmc), one point (fit)
  const std::size_t half = c.method == "fit" ? 1 : c.method == "smc" ? smc_particles(c, engine::Backend::omp) : c.walkers / 2;
  const std::size_t batch = half * data.n;
  // auto: a trial. The rate models cannot say what a batch of the sampler costs: the rows of a
  // calibration are not random contact (stronge on the Cornell rows ran at 2e6 rows/s on one thread
  // of the 2-core development VM, where the model says 1.7e4/s), and a small batch's time is mostly
  // fixed cost: on the GPU its launch, copies and wait, the slowest instance's integration on one
  // lane included (an H200 took 3.4 ms per 768-row batch of jia on the Cornell data, 16 CPU threads
  // 2.6), on omp the team's wake-up. So each backend (omp, serial, cuda where usable) times batches
  // of the sampler's own points drawn from the prior at two sizes, L = max(the method's batch, 8)
  // points and L / 8, each after a first call that is not counted (the GPU context's start, the
  // buffers), and is modelled as fixed cost + rows / rate (engine::cost_from_two_batches); the
  // backend of least modelled time for the method's batch runs the chain. The CPU paths give the
  // same bits, so the choice between them changes no result.
  // The candidates are engine::auto_candidates' (serial only for a batch under kParallelRows rows: on
  // a larger one the team pays, and one thread of a dear law is long to time: jia's 49152 rows, 2.2 s
  // on an H200's host), each only where every process has it: the processes time the same
  // candidates in the same order, batch for batch.
  const engine::AutoCandidates candidates = engine::auto_candidates(w, double(batch));
  const std::vector<engine::Backend>& mine = candidates.backends;
  bool serial = std::find(mine.begin(), mine.end(), engine::Backend::serial) != mine.end();
  if (shared) serial = group->all(serial);
  std::vector<std::unique_ptr<Model>> ms;
  for (engine::Backend b : {engine::Backend::omp, engine::Backend::serial, engine::Backend::cuda})
    if ((b != engine::Backend::serial || serial) && (b != engine::Backend::cuda || cuda)) ms.push_back(make(b, data));
  const std::size_t large = std::max<std::size_t>(half, 8), small = large / 8;
  std::vector<double> pts = trial_points(*ms[0], c, large);
  std::vector<engine::BatchCost> costs;
  for (const auto& m : ms) {
    const bool gpu = m->backend() == engine::Backend::cuda;
    const double first = batch_seconds(*m, pts, large, 1);  // the GPU's: its context, buffers, code loaded
    // the least of 5 (a thread team just woken, a clock just raised: an H200 host's omp timed 6 ms
    // for a 768-row jia batch at 2 repetitions, 2.3 ms per batch in the chain); a long CPU batch: once
    // (over processes rank 0's times decide, so that every process makes the same batches)
    bool once = !gpu && first > 0.5;
    if (shared) once = group->allgather(once ? "1" : "0", "")[0] == "1";
    const double t_large = once ? first : batch_seconds(*m, pts, large, 5);
    const double t_small = batch_seconds(*m, pts, small, once ? 1 : 5);
    const double rows = static_cast<double>(data.n);
    costs.push_back(engine::cost_from_two_batches(m->backend(), static_cast<double>(small) * rows, t_small,
                                                  static_cast<double>(large) * rows, t_large));
  }
  const engine::CostPick pick = engine::cheapest(costs, static_cast<double>(batch));
  std::size_t best = pick.best;
  if (shared) best = std::stoul(group->allgather(std::to_string(best), "")[0]);  // rank 0's choice
  if (why) {
    // as eval's trial says it (engine::TrialBatch): why the GPU was not timed
    const std::string aside =
        cuda ? ""
             : "; cuda not a candidate: " +
                   (candidates.no_gpu.empty() ? "a process of the run has no usable device" : candidates.no_gpu);
    *why = " (auto: trial batches of " + std::to_string(small * data.n) + " and " + std::to_string(large * data.n) +
           " rows: " + pick.why + (shared ? " on rank 0" : "") + aside + ")";
  }
  ms[best]->reset_counters();  // the run's rate counts the chain's rows only
  return std::move(ms[best]);
}

namespace {

// The files a method writes, and its plots (drawn when output.plots).
std::vector<std::string> method_files(const CalibrateConfig& c) { return c.method == "fit" ? kFitFiles : kFiles; }
std::vector<std::string> method_plots(const CalibrateConfig& c) {
  return c.method == "fit" ? std::vector<std::string>{"predictive.png"} : kPlots;
}

// Claims the output folder for the method's files (and plots when drawn): an earlier run's files
// that this one does not write go; the plots go before the script runs, so that a failed drawing
// leaves none of an earlier run. Over processes rank 0 claims, and every process learns whether it
// could before any goes on (on_every_process: a refusal ends every process, rank 0 saying why).
// The fingerprint a checkpoint must match to be this run's (resume/sampler_checkpoint.hpp): the method,
// the resolved config less what does not change the bits (the output keys; the backend within
// the CPU's, which give the same bits), the data file's bytes, the device kind and the sampler's
// sizes.
nlohmann::ordered_json run_fingerprint(const CalibrateConfig& c, const Model& m, const nlohmann::ordered_json& sizes) {
  nlohmann::ordered_json cfg = to_json(c);
  cfg.erase("output");
  if (cfg.contains("run")) cfg["run"].erase("backend");
  const io::FileSum d = io::file_sum(c.data.file);
  nlohmann::ordered_json f;
  f["method"] = c.method == "mcmc" ? "ensemble" : c.method;
  f["config"] = cfg;
  f["data"] = {{"bytes", d.bytes}, {"crc32", d.crc32}};
  f["device"] = m.backend() == engine::Backend::cuda ? "gpu" : "cpu";
  f["sizes"] = sizes;
  return f;
}

// The run's checkpoint (null without --checkpoint): its folder claimed and, when resuming, its state
// read and the model's row count restored. Before the output folder is claimed, so that a resume
// that cannot go on leaves the output folder as it was.
std::unique_ptr<resume::SamplerCheckpoint> open_checkpoint(const CalibrateConfig& c, Model& m,
                                                           const nlohmann::ordered_json& sizes, resume::ProcessGroup* group,
                                                           std::FILE* progress) {
  if (c.checkpoint.dir.empty()) return nullptr;
  const bool writer = writes_files(group);
  if (writer) io::make_dirs(c.checkpoint.dir, "--checkpoint");
  claim_on_rank0(resume::checkpoint_request(c.checkpoint), group);
  auto ck = std::make_unique<resume::SamplerCheckpoint>(c.checkpoint, run_fingerprint(c, m, sizes), writer);
  if (ck->resuming()) {
    m.restore_rows(ck->counters().rows);
    if (progress)
      std::fprintf(progress, "calibrate %s: going on from %s/%s at %s\n", c.name.c_str(), c.checkpoint.dir.c_str(),
                   resume::kCheckpointFile, ck->where().c_str());
  }
  return ck;
}

resume::FolderClaim claim_output(const CalibrateConfig& c, bool force, resume::ProcessGroup* group) {
  resume::FolderRequest r;
  r.dir = c.out_dir;
  r.kind = kCalibrationKind;
  r.files = method_files(c);
  r.removed_first = {"metadata.json"};
  if (c.plots) {
    const std::vector<std::string> plots = method_plots(c);
    r.files.insert(r.files.end(), plots.begin(), plots.end());
    r.removed_first.insert(r.removed_first.end(), plots.begin(), plots.end());
  }
  r.force = force;
  return claim_on_rank0(r, group);
}

// The tail every method shares: its last files, summary.md and metadata.json (`meta` and, last in it,
// the method's files and the config), the end of its checkpoint (null: none), then the plots and the
// file list.
void finish(const CalibrateConfig& c, const std::string& summary, json meta, resume::SamplerCheckpoint* ck,
            const resume::FolderClaim& claim, std::FILE* progress, CalibrationOutcome& o) {
  io::write_file(c.out_dir + "/summary.md", summary);
  meta["files"] = method_files(c);
  meta["config"] = to_json(c);
  io::write_file(c.out_dir + "/metadata.json", meta.dump(2) + "\n");
  if (ck) ck->finish();
  if (const std::string n = resume::claim_note(claim); !n.empty() && progress) std::fprintf(progress, "%s\n", n.c_str());
  o.files = method_files(c);
  if (c.plots) {
    const std::vector<std::string> plots = method_plots(c);
    o.plot_note = study::run_plot_script("plot_calibration.py", c.out_dir, plots, progress == nullptr,
                                         progress ? progress : stderr, "impact calibrate");
    if (o.plot_note.find("not drawn") == std::string::npos) o.files.insert(o.files.end(), plots.begin(), plots.end());
  }
}

std::string run_line(const CalibrateConfig& c, const CalibrationOutcome& o, std::size_t experiments, const std::string& how) {
  std::string unread;
  for (const design::ParamSpec& p : c.ignored) unread += (unread.empty() ? "" : ", ") + p.name;
  return "# " + c.name + "\n\n" + (c.description.empty() ? "" : c.description + "\n\n") + "law " + c.law + ", scenario " +
         c.scenario + ", " + std::to_string(experiments) + " experiments, " + how + ", backend " +
         engine::backend_name(o.backend) + o.backend_why + "\n\n" +
         (unread.empty() ? "" : "Not sampled: " + unread + " (free in the config; " + c.law + " does not read it).\n\n");
}

// The tail every method shares: the model's counters of the inference (rows and law time, before
// the predictive adds its own), the posterior predictive at `draws` (every process computes it: its
// batches are collectives; the writer's file is returned uncommitted, to be committed with the
// method's other files) and the run's time.
io::OutFile predict_and_count(const CalibrateConfig& c, Model& m, const std::vector<double>& draws, bool writer,
                              std::chrono::steady_clock::time_point t0, CalibrationOutcome& o) {
  o.rows = m.rows_evaluated();
  o.law_seconds = m.law_seconds();
  io::OutFile predictive;
  if (writer) predictive.open(c.out_dir + "/predictive.csv");
  predictive_text(
      m, draws,
      [&](const std::string& t) {
        if (writer) predictive.put(t);
      },
      o);
  o.seconds = io::seconds_since(t0);
  return predictive;
}

CalibrationOutcome run_mcmc(const CalibrateConfig& c, bool force, std::FILE* progress, Model& m, CalibrationOutcome o,
                            std::chrono::steady_clock::time_point t0, resume::ProcessGroup* group) {
  const bool writer = writes_files(group);
  const std::size_t experiments = m.data().n;
  const std::vector<double> start =
      start_from_prior(m, c.walkers, c.seed);  // before the folder: a model that holds nowhere writes nothing
  const std::unique_ptr<resume::SamplerCheckpoint> ck =
      open_checkpoint(c, m, {{"walkers", c.walkers}, {"steps", c.mcmc_steps}}, group, progress);
  const resume::FolderClaim claim = claim_output(c, force, group);
  EnsembleOptions eo;
  eo.walkers = c.walkers;
  eo.steps = c.mcmc_steps;
  eo.seed = c.seed;
  eo.a = c.a;
  io::Progress bar(progress, c.mcmc_steps, "calibrate " + c.name);
  const EnsembleChain ch = run_ensemble(
      start, m.dim(), [&](const double* x, std::size_t n, double* out) { m.log_posterior(x, n, out); }, eo,
      [&](std::uint64_t s) {
        io::check_cancelled();  // Python's Ctrl-C (a no-op in the CLI)
        bar.update(s);
      },
      ck && ck->resuming() ? &ck->ensemble() : nullptr,
      [&](const EnsembleChain& so_far, std::uint64_t done) {
        if (ck) ck->save(so_far, done, {m.rows_evaluated()});
      });
  bar.finish();
  o.params = summarize(ch, c.burn, summary_probs());
  o.converged = true;
  for (const ParamSummary& p : o.params) o.converged = o.converged && p.converged;
  o.stranded = stranded_walkers(ch, c.burn);
  for (std::size_t i = c.burn * ch.walkers; i < ch.logp.size(); ++i)
    if (std::isfinite(ch.logp[i]) && !(ch.logp[i] <= o.max_log_posterior)) o.max_log_posterior = ch.logp[i];
  o.acceptance = ch.acceptance_fraction();
  o.failed_proposals = ch.failed_proposals;
  o.table = summary_table(o.names, o.params);
  io::OutFile predictive = predict_and_count(c, m, chain_draws(ch, c.burn), writer, t0, o);
  if (!writer) return o;
  write_samples(c.out_dir, ch, c.burn, o.names, sample_titles(c, o.names));
  predictive.commit();
  std::string md = run_line(c, o, experiments,
                            std::to_string(c.walkers) + " walkers x " + std::to_string(c.mcmc_steps) + " steps (burn-in " +
                                std::to_string(c.burn) + ")") +
                   o.table + "\nacceptance fraction " + num(o.acceptance) + "; failed proposals " +
                   std::to_string(o.failed_proposals) + "\n";
  if (!o.converged)
    md +=
        "\nwarning: the chain is shorter than 50 autocorrelation times after the burn-in for some parameter "
        "(converged: no); run more steps before trusting the quantiles.\n";
  if (!o.stranded.empty()) md += "\nwarning: " + stranded_note(o.stranded, ch.walkers) + "\n";
  std::string high;
  for (std::size_t k = 0; k < o.params.size(); ++k)
    if (!(o.params[k].r_hat <= kRhatLimit)) high += (high.empty() ? "" : ", ") + o.names[k];
  if (!high.empty())
    md += "\nwarning: R-hat above " + num(kRhatLimit) + " (or unknown) for " + high +
          ": the walkers disagree (Vehtari et al. 2021); run more steps or look for modes.\n";
  finish(c, md, metadata(c, o, ch, m.data()), ck.get(), claim, progress, o);
  return o;
}

CalibrationOutcome run_smc_method(const CalibrateConfig& c, bool force, std::FILE* progress, Model& m, CalibrationOutcome o,
                                  std::chrono::steady_clock::time_point t0, resume::ProcessGroup* group) {
  const bool writer = writes_files(group);
  const std::size_t experiments = m.data().n, D = m.dim();
  infer::SmcOptions so = c.smc;
  so.particles = smc_particles(c, m.backend());
  start_from_prior(m, 1, so.seed, "particles");  // before the folder: a model that holds nowhere writes nothing
  const std::unique_ptr<resume::SamplerCheckpoint> ck =
      open_checkpoint(c, m, {{"particles", so.particles}, {"runs", so.runs}}, group, progress);
  const resume::FolderClaim claim = claim_output(c, force, group);
  infer::SmcTarget t;
  t.dim = D;
  t.log_prior = [&](const double* x) { return m.log_prior(x); };
  t.from_uniforms = [&](const double* u, double* x) {
    for (std::size_t k = 0; k < D; ++k) x[k] = m.free()[k].quantile(u[k]);
  };
  t.log_likelihood = [&](const double* x, std::size_t n, double* out) { m.log_likelihood(x, n, out); };
  io::Progress bar(progress, 1000, "calibrate " + c.name + " (beta x 1000)");
  const infer::SmcResult r = infer::run_smc(
      t, so,
      [&](double beta) {
        io::check_cancelled();  // Python's Ctrl-C (a no-op in the CLI)
        bar.update(static_cast<std::uint64_t>(beta * 1000));
      },
      ck && ck->resuming() ? &ck->smc() : nullptr,
      [&](const infer::SmcState& st) {
        if (ck) ck->save(st, {m.rows_evaluated()});
      });
  bar.finish();
  std::vector<std::uint32_t> mode;
  o.modes = infer::find_modes(r.x, D, r.log_like, mode);
  o.params = smc_summary(r, summary_probs());
  o.converged = r.finished;
  o.log_z = r.log_z;
  o.log_z_se = r.log_z_se;
  for (std::size_t i = 0; i < r.log_like.size(); ++i)
    if (const double lp = r.log_prior[i] + r.log_like[i]; std::isfinite(lp) && !(lp <= o.max_log_posterior))
      o.max_log_posterior = lp;
  o.failed_proposals = r.failed;
  o.table = smc_table(o.names, o.params);
  io::OutFile predictive = predict_and_count(c, m, smc_draws(r, kPredictiveDraws), writer, t0, o);
  if (!writer) return o;
  write_smc_samples(c.out_dir, r, mode, o.names, sample_titles(c, o.names));
  predictive.commit();
  char how[160];
  std::snprintf(how, sizeof how, "SMC, %zu particles in %zu runs (ESS target %.3g, seed %llu)", r.particles, r.runs,
                so.ess_target, static_cast<unsigned long long>(so.seed));
  std::string md = run_line(c, o, experiments, how) + o.table + "\n" + smc_evidence_line(r) + "\n## Modes\n\n" +
                   smc_modes_table(o.names, o.modes) + "\n## Stages\n\n" + smc_stages_table(r);
  json j = run_json(c, o, m.data());
  j["seed"] = so.seed;
  j["ess_target"] = so.ess_target;
  smc_json(j, o.names, r, o.modes);
  json ps = json::object();
  for (std::size_t k = 0; k < o.params.size(); ++k) {
    const ParamSummary& p = o.params[k];
    ps[o.names[k]] = {
        {"mean", p.mean}, {"sd", p.sd}, {"quantiles", quantiles_json(p)}, {"ess", std::isfinite(p.ess) ? json(p.ess) : json()}};
  }
  j["posterior"] = ps;
  finish(c, md, std::move(j), ck.get(), claim, progress, o);
  return o;
}

CalibrationOutcome run_fit(const CalibrateConfig& c, bool force, std::FILE* progress, Model& m, CalibrationOutcome o,
                           std::chrono::steady_clock::time_point t0, resume::ProcessGroup* group) {
  const bool writer = writes_files(group);
  const std::size_t experiments = m.data().n, D = m.dim();
  const std::size_t points = fit_design_points(c, m.backend(), experiments);
  // The starts: prior draws, or the global design's basins; either is found before the folder is
  // claimed, so that a model that holds nowhere writes nothing (the design's rows are the law's
  // alone: a folder refused after it has cost only their time).
  std::vector<double> start = points ? std::vector<double>{} : start_from_prior(m, c.fit_starts, c.fit_seed, "starts");
  GlobalStage g;
  if (points) {
    io::Progress design_bar(progress, points, "fit " + c.name + ": global design");
    // batches of about 2^20 rows: progress and Ctrl-C between them (the model pieces each batch)
    const std::size_t batch = std::max<std::size_t>(16, (std::size_t{1} << 20) / std::max<std::size_t>(experiments, 1));
    g = global_stage(m, points, c.fit_seed, batch, [&](std::size_t done) {
      io::check_cancelled();
      design_bar.update(done);
    });
    design_bar.finish();
    if (g.basins.empty()) {
      const std::vector<double> u = design::scrambled_sobol(D, 1, c.fit_seed);
      std::vector<double> first(D);
      for (std::size_t k = 0; k < D; ++k) first[k] = m.free()[k].quantile(u[k]);
      throw std::invalid_argument("fit.global: none of the " + std::to_string(points) +
                                  " points of the global design has a finite log posterior (does the model hold "
                                  "anywhere in the prior?); at the first point, " +
                                  m.why_not_finite(first.data()));
    }
    start = basin_starts(g, D, c.fit_starts);
    o.fit_design = points, o.fit_basins = g.basins.size();
  }
  const resume::FolderClaim claim = claim_output(c, force, group);
  std::vector<double> lo(D), hi(D), scale(D);
  for (std::size_t k = 0; k < D; ++k) prior_box(m.free()[k], lo[k], hi[k], scale[k]);
  io::Progress bar(progress, start.size() / D, "fit " + c.name);
  std::size_t done = 0;
  const LogDensity f = [&](const double* x, std::size_t n, double* out) {
    io::check_cancelled();
    m.log_posterior(x, n, out);
  };
  o.fit = fit_map(f, D, start, lo, hi, scale, c.fit, [&] { bar.update(++done); });
  o.max_log_posterior = o.fit.logp;
  bar.finish();
  const FitResult& r = o.fit;
  // prior draws: two starts agreeing on the best; the global stage's starts are distinct basins
  o.converged = r.cov.size() == D * D && (points || r.agree >= std::min<std::size_t>(2, r.starts.size()));
  o.table = fit_table(o.names, r);
  io::OutFile predictive = predict_and_count(c, m, laplace_draws(r, lo, hi, c.fit_seed, kPredictiveDraws), writer, t0, o);
  if (!writer) return o;
  write_fit_files(c.out_dir, o.names, r);
  predictive.commit();
  const std::string how = points ? "fit (" + c.fit.algorithm + ", a global design of " + std::to_string(points) + " points, " +
                                       std::to_string(g.basins.size()) + " basins, the best " + std::to_string(r.starts.size()) +
                                       " climbed)"
                                 : "fit (" + c.fit.algorithm + ", " + std::to_string(c.fit_starts) + " starts from the prior)";
  std::string md = run_line(c, o, experiments, how) + o.table + "\n" + fit_note(r, points > 0) + "\n";
  if (points)
    md +=
        "\n## Basins of the global design\n\nThe best point of each basin found among the design's best points "
        "(nearest-better clustering in prior CDF space, then the hill-valley test: no two basins without a "
        "valley between them), and where the local optimiser climbed from it:\n\n" +
        basins_table(o.names, g, r);
  finish(c, md, fit_metadata(c, o, m.data(), points ? basins_json(o.names, g, r) : json()), nullptr, claim, progress, o);
  return o;
}

}  // namespace

CalibrationOutcome run_calibration(const CalibrateConfig& c, bool force, std::FILE* progress, resume::ProcessGroup* group) {
  const auto t0 = std::chrono::steady_clock::now();
  CalibrationOutcome o;
  o.method = c.method;
  o.processes = group ? group->size() : 1;
  if (group && group->rank() != 0) progress = nullptr;  // rank 0 speaks
  const std::unique_ptr<Model> model = make_model(c, &o.backend_why, group);
  check_memory(c, *model, design::memory_budget_bytes());  // before any batch: the model's own set-up is the data's size
  o.backend = model->backend();
  for (const design::ParamSpec& p : c.free) o.names.push_back(p.name);
  if (c.method == "fit") {
    if (!c.checkpoint.dir.empty())
      throw std::invalid_argument(
          "--checkpoint: the fit keeps no checkpoint (its global design is one batch and its "
          "starts are short climbs); checkpoints are SMC's and the ensemble's");
    return run_fit(c, force, progress, *model, std::move(o), t0, group);
  }
  if (c.method == "smc") return run_smc_method(c, force, progress, *model, std::move(o), t0, group);
  return run_mcmc(c, force, progress, *model, std::move(o), t0, group);
}

}  // namespace impact::calibrate
