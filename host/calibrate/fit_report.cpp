#include "calibrate/fit_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <Eigen/Cholesky>
#include <Eigen/Core>

#include "impact/rmath.hpp"
#include "impact/rng.hpp"
#include "io/csv.hpp"
#include "io/out_file.hpp"

namespace impact::calibrate {

namespace {

constexpr double kZ95 = 1.6448536269514722;  // the normal's 95 % quantile

std::string num(double v) {
  std::string s;
  io::append_number(s, v);
  return s;
}

// the Laplace normal's 5 % and 95 % quantiles, within the prior's support (a noise sd's q05 is not
// negative)
double q05(const FitResult& r, std::size_t k) {
  const double q = r.map[k] - kZ95 * r.sd[k];
  return r.lo.empty() || !(q < r.lo[k]) ? q : r.lo[k];
}
double q95(const FitResult& r, std::size_t k) {
  const double q = r.map[k] + kZ95 * r.sd[k];
  return r.hi.empty() || !(q > r.hi[k]) ? q : r.hi[k];
}

}  // namespace

void prior_box(const design::ParamSpec& p, double& lo, double& hi, double& scale) {
  if (p.kind == design::ParamKind::uniform) lo = p.a, hi = p.b;
  else if (p.kind == design::ParamKind::truncnormal) lo = p.lo, hi = p.hi;
  else lo = p.quantile(1e-12), hi = p.quantile(1 - 1e-12);
  scale = p.quantile(0.95) - p.quantile(0.05);
}

void write_fit_files(const std::string& dir, const std::vector<std::string>& names, const FitResult& r) {
  std::string t = "parameter,estimate,sd,q05,q95\n";
  for (std::size_t k = 0; k < r.dim; ++k) {
    t += names[k];
    for (double v : {r.map[k], r.sd[k], q05(r, k), q95(r, k)}) t += "," + num(v);
    t += "\n";
  }
  io::write_file(dir + "/estimate.csv", t);
  t = "start";
  for (const std::string& n : names) t += "," + n + "_from";
  for (const std::string& n : names) t += "," + n;
  t += ",logp,evaluations,result\n";
  for (std::size_t s = 0; s < r.starts.size(); ++s) {
    const FitStart& st = r.starts[s];
    t += std::to_string(s + 1);
    for (double v : st.from) t += "," + num(v);
    for (double v : st.to) t += "," + num(v);
    t += "," + num(st.logp) + "," + std::to_string(st.evaluations) + "," + st.result + "\n";
  }
  io::write_file(dir + "/starts.csv", t);
}

std::string fit_table(const std::vector<std::string>& names, const FitResult& r) {
  std::string t = "| parameter | estimate | sd | 5% | 95% |\n|---|---:|---:|---:|---:|\n";
  char b[160];
  for (std::size_t k = 0; k < r.dim; ++k) {
    std::snprintf(b, sizeof b, "| %s | %.6g | %.3g | %.6g | %.6g |\n", names[k].c_str(), r.map[k], r.sd[k], q05(r, k), q95(r, k));
    t += b;
  }
  return t;
}

std::string fit_note(const FitResult& r, bool from_basins) {
  char b[200];
  std::snprintf(b, sizeof b, "log posterior at the estimate %.6g; %zu of %zu starts reached it (within %g); %llu evaluations",
                r.logp, r.agree, r.starts.size(), kAgreeLogp, static_cast<unsigned long long>(r.evaluations));
  std::string t = b;
  if (r.failed_evaluations) t += " (" + std::to_string(r.failed_evaluations) + " without a value)";
  t += ".\n";
  // the other optima the starts found, best first, each once
  std::vector<std::size_t> other;
  for (std::size_t s = 0; s < r.starts.size(); ++s)
    if (r.starts[s].logp < r.logp - kAgreeLogp) other.push_back(s);
  std::stable_sort(other.begin(), other.end(), [&](std::size_t a, std::size_t c) { return r.starts[a].logp > r.starts[c].logp; });
  std::size_t shown = 0;
  double last = HUGE_VAL;
  for (std::size_t s : other) {
    if (std::fabs(r.starts[s].logp - last) <= kAgreeLogp) continue;
    if (shown++ == 0)
      t += from_basins ? "\nother maxima, climbed from the best points of other basins of the global design:\n"
                       : "\nother optima the starts ended in (a local method finds the maximum near its start):\n";
    if (shown > 5) {
      t += "- ...\n";
      break;
    }
    last = r.starts[s].logp;
    char b2[48];
    std::snprintf(b2, sizeof b2, "%.6g", last);
    t += std::string(from_basins ? "- basin " : "- start ") + std::to_string(s + 1) + ": log p " + b2 + " at (";
    for (std::size_t k = 0; k < r.dim; ++k) std::snprintf(b2, sizeof b2, "%s%.6g", k ? ", " : "", r.starts[s].to[k]), t += b2;
    t += ")\n";
  }
  if (r.agree < 2 && r.starts.size() > 1 && !from_basins)
    t += "\nwarning: only one start reached the best value: more starts (fit.starts) may find a better one.\n";
  if (!r.laplace_note.empty()) t += "\nwarning: no Laplace approximation: " + r.laplace_note + " (sd is NaN).\n";
  return t;
}

nlohmann::ordered_json fit_json(const std::vector<std::string>& names, const FitResult& r) {
  nlohmann::ordered_json j, ps = nlohmann::ordered_json::object(), cov = nlohmann::ordered_json::array();
  for (std::size_t k = 0; k < r.dim; ++k)
    ps[names[k]] = {{"estimate", r.map[k]},
                    {"sd", r.sd[k]},
                    {"q05", q05(r, k)},
                    {"q95", q95(r, k)},
                    {"step", r.step.empty() ? 0.0 : r.step[k]}};
  if (!r.cov.empty())
    for (std::size_t k = 0; k < r.dim; ++k)
      cov.push_back(std::vector<double>(r.cov.begin() + static_cast<std::ptrdiff_t>(k * r.dim),
                                        r.cov.begin() + static_cast<std::ptrdiff_t>((k + 1) * r.dim)));
  j["params"] = ps;
  j["covariance"] = cov;  // [] when the Laplace approximation does not hold
  j["laplace_note"] = r.laplace_note;
  j["logp"] = r.logp;
  j["best_start"] = r.best + 1;
  j["starts_agreeing"] = r.agree;
  j["starts"] = r.starts.size();
  j["evaluations"] = r.evaluations;
  j["failed_evaluations"] = r.failed_evaluations;
  return j;
}

std::vector<double> laplace_draws(const FitResult& r, const std::vector<double>& lo, const std::vector<double>& hi,
                                  std::uint64_t seed, std::size_t count) {
  const std::size_t D = r.dim;
  if (r.cov.size() != D * D) return r.map;
  Eigen::MatrixXd S(static_cast<Eigen::Index>(D), static_cast<Eigen::Index>(D));
  for (std::size_t k = 0; k < D; ++k)
    for (std::size_t l = 0; l < D; ++l) S(k, l) = r.cov[k * D + l];
  const Eigen::MatrixXd L = Eigen::LLT<Eigen::MatrixXd>(S).matrixL();
  const Philox rng{seed};
  std::vector<double> out, z(D), x(D);
  for (std::uint64_t i = 0; i < 20 * count && out.size() < count * D; ++i) {
    for (std::size_t k = 0; k < D; k += 2) {
      double u1, u2;
      uniforms2(rng, i * D + k, 8, u1, u2);
      z[k] = rmath::normal_quantile(u1);
      if (k + 1 < D) z[k + 1] = rmath::normal_quantile(u2);
    }
    bool inside = true;
    for (std::size_t k = 0; k < D; ++k) {
      x[k] = r.map[k];
      for (std::size_t l = 0; l <= k; ++l) x[k] += L(k, l) * z[l];
      inside = inside && x[k] >= lo[k] && x[k] <= hi[k];
    }
    if (inside) out.insert(out.end(), x.begin(), x.end());
  }
  return out.empty() ? r.map : out;
}

}  // namespace impact::calibrate
