#include "calibrate/smc_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "io/samples_file.hpp"

namespace impact::calibrate {

namespace {

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

// The effective sample size of parameter k from the spread of the independent runs' means: a run of
// n_eff independent draws has a mean of variance sd^2 / n_eff, so ESS = runs x sd^2 / (the variance
// of the runs' means), at most the particles (its own error is that of a variance from `runs`
// values: about sqrt(2 / (runs - 1)), 37% for 16 runs). NaN with fewer than 2 runs.
double runs_ess(const SmcResult& r, std::size_t k, double sd) {
  if (r.runs < 2 || !r.dim) return std::nan("");
  std::vector<double> sum(r.runs, 0.0), count(r.runs, 0.0);
  const std::size_t n = r.x.size() / r.dim;
  for (std::size_t i = 0; i < n; ++i) sum[r.run[i]] += r.x[i * r.dim + k], count[r.run[i]] += 1;
  std::vector<double> mean;
  for (std::size_t j = 0; j < r.runs; ++j)
    if (count[j] > 0) mean.push_back(sum[j] / count[j]);
  if (mean.size() < 2) return std::nan("");
  double m = 0, s = 0;
  infer::mean_sd(mean, m, s);
  const double ess = static_cast<double>(mean.size()) * sd * sd / (s * s);
  if (std::isnan(ess)) return ess;               // unknown (a non-finite draw): said as unknown, never the count
  return std::min(ess, static_cast<double>(n));  // runs' means that agree exactly: every draw counts
}

}  // namespace

std::vector<infer::ParamSummary> smc_summary(const SmcResult& r, const std::vector<double>& probs) {
  std::vector<infer::ParamSummary> out(r.dim);
  const std::size_t n = r.dim ? r.x.size() / r.dim : 0;
  std::vector<double> v(n);
  for (std::size_t k = 0; k < r.dim; ++k) {
    for (std::size_t i = 0; i < n; ++i) v[i] = r.x[i * r.dim + k];
    infer::ParamSummary& ps = out[k];
    infer::mean_sd(v, ps.mean, ps.sd);
    std::sort(v.begin(), v.end());
    for (double p : probs) ps.quantiles.push_back(infer::sorted_quantile(v, p));
    ps.tau = std::nan("");
    ps.ess = runs_ess(r, k, ps.sd);
    ps.converged = r.finished;
  }
  return out;
}

void write_smc_samples(const std::string& dir, const SmcResult& r, const std::vector<std::uint32_t>& mode,
                       const std::vector<std::string>& names, const std::vector<std::string>& titles) {
  io::write_samples_files(dir, {"particle", "run", "mode"}, names, titles, r.dim ? r.x.size() / r.dim : 0,
                          [&](std::size_t i, std::uint64_t* ids, double* v) {
                            ids[0] = i, ids[1] = r.run[i], ids[2] = mode[i];
                            for (std::size_t k = 0; k < r.dim; ++k) v[k] = r.x[i * r.dim + k];
                            v[r.dim] = r.log_prior[i] + r.log_like[i];
                          });
}

std::string smc_table(const std::vector<std::string>& names, const std::vector<infer::ParamSummary>& ps) {
  std::string t =
      "| parameter | mean | sd | 5% | 16% | 50% | 84% | 95% | ESS (from the runs) |\n"
      "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (std::size_t k = 0; k < ps.size(); ++k) {
    t += "| " + names[k];
    for (double v : {ps[k].mean, ps[k].sd}) t += fmt(" | %.6g", v);
    for (double v : ps[k].quantiles) t += fmt(" | %.6g", v);
    t += std::isfinite(ps[k].ess) ? fmt(" | %.0f |\n", ps[k].ess) : " | unknown (one run) |\n";
  }
  return t;
}

std::string smc_evidence_line(const SmcResult& r) {
  return "log evidence log Z = " + fmt("%.4f", r.log_z) + " +- " + fmt("%.4f", r.log_z_se) + " (the mean of " +
         std::to_string(r.runs) + " independent runs' Z; the error from their spread), " + std::to_string(r.stage_count()) +
         " stages at most, " + std::to_string(r.evaluations) + " points evaluated" +
         (r.failed ? ", " + std::to_string(r.failed) + " of them where the model failed (no mass)" : std::string()) +
         (r.finished ? "" : "; WARNING: some run did not reach beta = 1 within smc.max_stages: not the posterior") + "\n";
}

std::string smc_modes_table(const std::vector<std::string>& names, const std::vector<SmcMode>& modes) {
  std::string t = "| mode | mass |";
  for (const std::string& n : names) t += " " + n + " (mean +- sd) |";
  t += " best log likelihood |\n|---|---:|";
  for (std::size_t k = 0; k < names.size(); ++k) t += "---:|";
  t += "---:|\n";
  for (std::size_t m = 0; m < modes.size(); ++m) {
    t += "| " + std::to_string(m + 1) + fmt(" | %.3f", modes[m].mass);
    for (std::size_t k = 0; k < names.size(); ++k) t += fmt(" | %.5g", modes[m].mean[k]) + fmt(" +- %.3g", modes[m].sd[k]);
    t += fmt(" | %.4g |\n", modes[m].log_like_max);
  }
  return t;
}

std::string smc_stages_table(const SmcResult& r) {
  std::string t = "| stage | runs | beta | ESS / particles | acceptance | steps |\n|---:|---:|---:|---:|---:|---:|\n";
  const double per = static_cast<double>(r.particles) / static_cast<double>(std::max<std::size_t>(1, r.runs));
  for (std::size_t s = 0; s < r.stage_count(); ++s) {
    double beta = 0, ess = 0, acc = 0, moves = 0, count = 0;
    for (const auto& run : r.stages)
      if (s < run.size()) {
        beta += run[s].beta, ess += run[s].ess / per, acc += run[s].acceptance, moves += static_cast<double>(run[s].moves);
        ++count;
      }
    t += "| " + std::to_string(s + 1) + " | " + std::to_string(static_cast<int>(count)) + fmt(" | %.4g", beta / count) +
         fmt(" | %.3f", ess / count) + fmt(" | %.3f", acc / count) + fmt(" | %.1f |\n", moves / count);
  }
  return t;
}

void smc_json(nlohmann::ordered_json& j, const std::vector<std::string>& names, const SmcResult& r,
              const std::vector<SmcMode>& modes) {
  j["particles"] = r.particles;
  j["runs"] = r.runs;
  j["finished"] = r.finished;
  j["evaluations"] = r.evaluations;
  j["failed_evaluations"] = r.failed;
  j["log_evidence"] = {{"value", r.log_z}, {"se", r.log_z_se}, {"runs", r.run_log_z}};
  nlohmann::ordered_json ms = nlohmann::ordered_json::array();
  for (const SmcMode& m : modes) {
    nlohmann::ordered_json p = nlohmann::ordered_json::object();
    for (std::size_t k = 0; k < names.size(); ++k)
      p[names[k]] = {{"mean", m.mean[k]}, {"sd", m.sd[k]}, {"q05", m.q05[k]}, {"q50", m.q50[k]}, {"q95", m.q95[k]}};
    ms.push_back({{"mass", m.mass}, {"log_like_max", m.log_like_max}, {"params", p}});
  }
  j["modes"] = ms;
  nlohmann::ordered_json st = nlohmann::ordered_json::array();
  for (const auto& run : r.stages) {
    nlohmann::ordered_json one = nlohmann::ordered_json::array();
    for (const infer::SmcStage& s : run)
      one.push_back({{"beta", s.beta},
                     {"ess", s.ess},
                     {"log_z_step", s.log_z_step},
                     {"acceptance", s.acceptance},
                     {"moves", s.moves},
                     {"scale", s.scale}});
    st.push_back(one);
  }
  j["stages"] = st;
}

std::vector<double> smc_draws(const SmcResult& r, std::size_t count) {
  const std::size_t n = r.dim ? r.x.size() / r.dim : 0, K = std::min(n, count);
  std::vector<double> theta(K * r.dim);
  for (std::size_t q = 0; q < K; ++q) {
    const std::size_t i = q * n / K;
    std::copy(&r.x[i * r.dim], &r.x[i * r.dim] + r.dim, &theta[q * r.dim]);
  }
  return theta;
}

}  // namespace impact::calibrate
