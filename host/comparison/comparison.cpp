#include "comparison/comparison.hpp"

#include <sys/stat.h>

#include <chrono>
#include <cmath>
#include <stdexcept>

#include "impact/rmath.hpp"
#include "io/config_tree.hpp"
#include "io/out_file.hpp"
#include "resume/owned_folder.hpp"
#include "study/report.hpp"

namespace impact::comparison {

using json = nlohmann::ordered_json;

namespace {

constexpr const char* kComparisonKind = "comparison";

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

// ln BF of law i against the best, and its error (the two runs' errors combined; 0 for the best).
double ln_bf(const Comparison& k, std::size_t i) { return k.laws[i].o.log_z - k.laws[k.best].o.log_z; }
double ln_bf_se(const Comparison& k, std::size_t i) {
  if (i == k.best) return 0.0;
  const double a = k.laws[i].o.log_z_se, b = k.laws[k.best].o.log_z_se;
  return std::sqrt(a * a + b * b);
}

// The law's own config: the request's, for this law alone, into OUT/LAW.
CalibrateConfig law_config(const CalibrateRequest& q, const CalibrateConfig& c, const std::string& law) {
  CalibrateRequest r = q;
  r.sets.emplace_back("calibrate.laws=[]");
  r.sets.push_back("calibrate.law=" + json(law).dump());
  r.out = c.out_dir + "/" + law;
  r.judge_sets = false;  // judged with every law of the comparison (run.steps may serve some of them)
  try {
    CalibrateConfig one = calibrate::load_calibrate_config(r);
    one.plots = c.plots;
    // each law keeps its checkpoint in DIR/LAW; on --resume a law without one starts afresh (it had
    // not begun, or it finished and removed it: running it again gives its bits again)
    one.checkpoint = c.checkpoint;
    if (!c.checkpoint.dir.empty()) {
      one.checkpoint.dir = c.checkpoint.dir + "/" + law;
      struct stat st {};
      if (c.checkpoint.resume && ::lstat((one.checkpoint.dir + "/" + resume::kCheckpointFile).c_str(), &st) != 0)
        one.checkpoint.resume = false;
    }
    return one;
  } catch (const io::ConfigError& e) { throw std::invalid_argument("calibrate.laws: for law " + law + ": " + e.what()); }
}

resume::FolderClaim claim_comparison(const CalibrateConfig& c, bool force, resume::ProcessGroup* group) {
  resume::FolderRequest r;
  r.dir = c.out_dir;
  r.kind = kComparisonKind;
  r.files = {"comparison.md", "comparison.json"};
  r.removed_first = {"comparison.json"};  // it marks a complete comparison
  if (c.plots) r.files.emplace_back("comparison.png"), r.removed_first.emplace_back("comparison.png");
  r.force = force;
  return calibrate::claim_on_rank0(r, group);
}

std::string table(const Comparison& k) {
  std::string t = "| law | log Z | ln BF vs best | the best law's support (Kass & Raftery) | best log posterior |";
  for (const std::string& o : k.observed) t += " rms " + o + " (sigmas) |";
  t += " modes | not sampled | seconds |\n|---|---:|---:|---|---:|";
  for (std::size_t j = 0; j < k.observed.size(); ++j) t += "---:|";
  t += "---:|---|---:|\n";
  for (std::size_t i = 0; i < k.laws.size(); ++i) {
    const LawRun& l = k.laws[i];
    t += "| " + l.law + fmt(" | %.3f", l.o.log_z) + fmt(" +- %.3f", l.o.log_z_se);
    t += i == k.best ? " | 0 | best"
                     : fmt(" | %.3f", ln_bf(k, i)) + fmt(" +- %.3f", ln_bf_se(k, i)) + " | " + kass_raftery(-ln_bf(k, i));
    t += fmt(" | %.4f", l.o.max_log_posterior);
    for (std::size_t j = 0; j < k.observed.size(); ++j)
      t += fmt(" | %.4g", l.o.predictive_rms[j]) + fmt(" (%.3g)", l.o.predictive_rms_sigmas[j]);
    std::string unread;
    for (const std::string& n : l.ignored) unread += (unread.empty() ? "" : ", ") + n;
    t += " | " + std::to_string(l.o.modes.size()) + " | " + (unread.empty() ? "-" : unread) + fmt(" | %.1f |\n", l.o.seconds);
  }
  return t;
}

std::string posteriors(const Comparison& k) {
  std::string t = "| law | parameter | mean | sd | 5% | 95% | ESS |\n|---|---|---:|---:|---:|---:|---:|\n";
  const std::vector<double>& probs = calibrate::summary_probs();
  for (const LawRun& l : k.laws)
    for (std::size_t p = 0; p < l.o.names.size(); ++p) {
      const calibrate::ParamSummary& s = l.o.params[p];
      t += "| " + l.law + " | " + l.o.names[p] + fmt(" | %.6g", s.mean) + fmt(" | %.3g", s.sd);
      for (std::size_t i = 0; i < probs.size(); ++i)
        if (probs[i] == 0.05 || probs[i] == 0.95) t += fmt(" | %.6g", s.quantiles[i]);
      t += std::isfinite(s.ess) ? fmt(" | %.0f |\n", s.ess) : " | - |\n";
    }
  return t;
}

std::string markdown(const Comparison& k, const CalibrateConfig& c) {
  std::string obs;
  for (const std::string& o : k.observed) obs += (obs.empty() ? "" : ", ") + o;
  const LawRun& b = k.laws[k.best];
  std::string md = "# Which law explains the data: " + c.name + "\n\n" + (c.description.empty() ? "" : c.description + "\n\n") +
                   "Data: " + c.data.file + " (observed " + obs + "), scenario " + c.scenario +
                   ". Each law calibrated by SMC on the same data and priors; its run in LAW/ (summary.md, "
                   "samples, predictive).\n\n" +
                   k.table + "\nBest: **" + b.law + "**";
  if (k.laws.size() > 1) {
    std::size_t second = k.best == 0 ? 1 : 0;
    for (std::size_t i = 0; i < k.laws.size(); ++i)
      if (i != k.best && k.laws[i].o.log_z > k.laws[second].o.log_z) second = i;
    md += " (ln BF " + fmt("%.2f", -ln_bf(k, second)) + " +- " + fmt("%.2f", ln_bf_se(k, second)) + " over " +
          k.laws[second].law + ": " + kass_raftery(-ln_bf(k, second)) + ")";
  }
  md +=
      ".\n\n"
      "log Z is the log evidence, log p(data | law), with its error from the spread of SMC's independent runs; "
      "ln BF = log Z(law) - log Z(best), its error the two runs' combined. Kass & Raftery (1995) read the natural "
      "log of a Bayes factor as: below 1 not worth more than a bare mention, 1 to 3 positive, 3 to 5 strong, "
      "above 5 very strong evidence for the better law. The evidence integrates the likelihood over the prior, "
      "so a law pays for parameters its data do not pin down (the Occam factor): a richer law wins only by "
      "fitting better. A difference within about 2 errors is no difference. The rms columns are the root mean "
      "square over the experiments of the data's residual from the posterior predictive median, in the "
      "output's units and (in brackets) in its sigmas: near 1 when the law explains the data to their noise.\n\n"
      "## Each law's posterior\n\n" +
      posteriors(k);
  return md;
}

}  // namespace

const char* kass_raftery(double x) {
  return x < 1 ? "not worth more than a bare mention" : x < 3 ? "positive" : x < 5 ? "strong" : "very strong";
}

json comparison_json(const Comparison& k) {
  json j;
  j["name"] = k.name;
  j["observed"] = k.observed;
  j["laws"] = json::object();
  for (std::size_t i = 0; i < k.laws.size(); ++i) {
    const LawRun& l = k.laws[i];
    json rms = json::object(), rms_z = json::object(), post = json::object();
    for (std::size_t o = 0; o < k.observed.size(); ++o)
      rms[k.observed[o]] = l.o.predictive_rms[o], rms_z[k.observed[o]] = l.o.predictive_rms_sigmas[o];
    for (std::size_t p = 0; p < l.o.names.size(); ++p)
      post[l.o.names[p]] = {{"mean", l.o.params[p].mean}, {"sd", l.o.params[p].sd}};
    json modes = json::array();
    for (const infer::SmcMode& m : l.o.modes) modes.push_back(m.mass);
    j["laws"][l.law] = {{"log_evidence", l.o.log_z},
                        {"se", l.o.log_z_se},
                        {"bayes_factor_vs_best", rmath::exp(ln_bf(k, i))},
                        {"log_bayes_factor_vs_best", ln_bf(k, i)},
                        {"log_bayes_factor_se", ln_bf_se(k, i)},
                        {"support_for_best", i == k.best ? "best" : kass_raftery(-ln_bf(k, i))},
                        {"predictive_rms", rms},
                        {"predictive_rms_sigmas", rms_z},
                        {"map_log_posterior", l.o.max_log_posterior},
                        {"posterior", post},
                        {"mode_masses", modes},
                        {"ignored_params", l.ignored},
                        {"converged", l.o.converged},
                        {"seconds", l.o.seconds},
                        {"dir", l.law}};
  }
  j["best"] = k.laws[k.best].law;
  j["seconds"] = k.seconds;
  return j;
}

Comparison run_comparison(const CalibrateRequest& q, const CalibrateConfig& c, bool force, std::FILE* progress,
                          resume::ProcessGroup* group) {
  const auto t0 = std::chrono::steady_clock::now();
  const bool writer = !group || group->rank() == 0;
  Comparison k;
  k.name = c.name;
  k.out_dir = c.out_dir;
  k.observed = c.data.observed;
  std::vector<CalibrateConfig> configs;  // every law's resolved before anything runs or is written
  for (const std::string& law : c.laws) configs.push_back(law_config(q, c, law));
  const resume::FolderClaim claim = claim_comparison(c, force, group);
  for (std::size_t i = 0; i < configs.size(); ++i) {
    if (progress)
      std::fprintf(progress, "law %s (%zu of %zu) into %s\n", configs[i].law.c_str(), i + 1, configs.size(),
                   configs[i].out_dir.c_str());
    LawRun l;
    l.law = configs[i].law;
    l.dir = configs[i].out_dir;
    for (const design::ParamSpec& p : configs[i].ignored) l.ignored.push_back(p.name);
    l.o = calibrate::run_calibration(configs[i], force, progress, group);
    k.laws.push_back(std::move(l));
    if (k.laws.back().o.log_z > k.laws[k.best].o.log_z) k.best = i;
  }
  k.table = table(k);
  k.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!writer) return k;
  if (const std::string n = resume::claim_note(claim); !n.empty() && progress) std::fprintf(progress, "%s\n", n.c_str());
  io::write_file(c.out_dir + "/comparison.md", markdown(k, c));
  io::write_file(c.out_dir + "/comparison.json", comparison_json(k).dump(2) + "\n");
  k.files = {"comparison.md", "comparison.json"};
  if (c.plots) {
    k.plot_note = study::run_plot_script("plot_calibration.py", c.out_dir, {"comparison.png"}, progress == nullptr,
                                         progress ? progress : stderr, "impact calibrate", {"--comparison"});
    if (k.plot_note.find("not drawn") == std::string::npos) k.files.emplace_back("comparison.png");
  }
  return k;
}

}  // namespace impact::comparison
