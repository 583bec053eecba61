#include "calibrate/fit_global.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "design/scrambled_sobol.hpp"

namespace impact::calibrate {

namespace {

// The start that began at basin b's point (starts are the basins in order), or r.starts.size().
const infer::FitStart* start_of(const infer::FitResult& r, std::size_t b) { return b < r.starts.size() ? &r.starts[b] : nullptr; }

}  // namespace

GlobalStage global_stage(Model& m, std::size_t points, std::uint64_t seed, std::size_t batch,
                         const std::function<void(std::size_t)>& progress) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::size_t D = m.dim();
  GlobalStage g;
  g.points = points;
  const std::vector<double> u = design::scrambled_sobol(D, points, seed);
  std::vector<double> x(u.size()), logp(points);
  for (std::size_t i = 0; i < points; ++i)
    for (std::size_t k = 0; k < D; ++k) x[i * D + k] = m.free()[k].quantile(u[i * D + k]);
  batch = std::max<std::size_t>(batch, 1);
  for (std::size_t i = 0; i < points; i += batch) {
    const std::size_t n = std::min(batch, points - i);
    m.log_posterior(&x[i * D], n, &logp[i]);
    if (progress) progress(i + n);
  }
  for (double v : logp) g.no_value += !std::isfinite(v);
  // The valley probes: one more batch, of at most 3 x 32 x 31 / 2 points.
  const infer::UnitLogp at = [&](const std::vector<double>& q) {
    std::vector<double> qx(q.size()), v(q.size() / D);
    for (std::size_t i = 0; i < q.size(); ++i) qx[i] = m.free()[i % D].quantile(q[i]);
    m.log_posterior(qx.data(), v.size(), v.data());
    g.probes += v.size();
    return v;
  };
  g.basins = infer::merge_by_valleys(infer::find_basins(u, D, logp), u, D, at);
  for (const infer::Basin& b : g.basins) g.x.insert(g.x.end(), &x[b.point * D], &x[b.point * D] + D);
  g.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return g;
}

std::vector<double> basin_starts(const GlobalStage& g, std::size_t dim, std::size_t starts) {
  const std::size_t n = std::min(starts, g.basins.size());
  return std::vector<double>(g.x.begin(), g.x.begin() + static_cast<std::ptrdiff_t>(n * dim));
}

std::string basins_table(const std::vector<std::string>& names, const GlobalStage& g, const infer::FitResult& r) {
  const std::size_t D = names.size();
  std::string t = "| basin | log p (design) |";
  for (const std::string& n : names) t += " " + n + " |";
  t += " climbed to log p |\n|---:|---:|";
  for (std::size_t k = 0; k < D; ++k) t += "---:|";
  t += "---|\n";
  char b[64];
  for (std::size_t i = 0; i < g.basins.size(); ++i) {
    std::snprintf(b, sizeof b, "| %zu | %.4f |", i + 1, g.basins[i].logp);
    t += b;
    for (std::size_t k = 0; k < D; ++k) std::snprintf(b, sizeof b, " %.6g |", g.x[i * D + k]), t += b;
    const infer::FitStart* s = start_of(r, i);
    if (!s) {
      t += " not started (fit.starts) |\n";
      continue;
    }
    std::snprintf(b, sizeof b, " %.4f", s->logp);
    t += b;
    for (std::size_t j = 0; j < i; ++j)  // the same maximum as an earlier start's
      if (std::abs(r.starts[j].logp - s->logp) <= infer::kAgreeLogp) {
        t += " (as basin " + std::to_string(j + 1) + ")";
        break;
      }
    t += " |\n";
  }
  return t;
}

nlohmann::ordered_json basins_json(const std::vector<std::string>& names, const GlobalStage& g, const infer::FitResult& r) {
  nlohmann::ordered_json j;
  j["points"] = g.points;
  j["no_value"] = g.no_value;
  j["valley_probes"] = g.probes;
  j["seconds"] = g.seconds;
  j["basins"] = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < g.basins.size(); ++i) {
    nlohmann::ordered_json b, at;
    b["logp"] = g.basins[i].logp;
    b["link"] = std::isfinite(g.basins[i].link) ? nlohmann::ordered_json(g.basins[i].link) : nlohmann::ordered_json();
    for (std::size_t k = 0; k < names.size(); ++k) at[names[k]] = g.x[i * names.size() + k];
    b["at"] = at;
    const infer::FitStart* s = start_of(r, i);
    b["end_logp"] = s && std::isfinite(s->logp) ? nlohmann::ordered_json(s->logp) : nlohmann::ordered_json();
    j["basins"].push_back(b);
  }
  return j;
}

}  // namespace impact::calibrate
