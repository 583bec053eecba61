#include "infer/summary.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "infer/autocorr.hpp"
#include "infer/rank_diagnostics.hpp"

namespace impact::infer {

double sorted_quantile(const std::vector<double>& sorted, double p) {
  if (sorted.empty() || !(p >= 0 && p <= 1)) throw std::invalid_argument("sorted_quantile: no values, or p outside [0, 1]");
  const double h = p * static_cast<double>(sorted.size() - 1);
  const std::size_t lo = static_cast<std::size_t>(h);
  if (lo + 1 >= sorted.size()) return sorted.back();
  const double f = h - static_cast<double>(lo), a = sorted[lo], b = sorted[lo + 1];
  // neighbours of opposite signs near the largest double: b - a overflows, the weighted mean does not
  return std::isfinite(b - a) ? a + f * (b - a) : (1 - f) * a + f * b;
}

double magnitude_scale(const double* x, std::size_t n) {
  double big = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (std::isfinite(x[i])) big = std::max(big, std::fabs(x[i]));
  if (!(big > 0)) return 1.0;
  int e = 0;
  std::frexp(big, &e);  // big in [2^(e-1), 2^e): 2^(e-1) is a double even for the largest
  return std::ldexp(1.0, e - 1);
}

void mean_sd(const std::vector<double>& v, double& mean, double& sd) {
  const double s = magnitude_scale(v.data(), v.size());
  double m = 0;
  for (double x : v) m += x / s;
  m /= static_cast<double>(v.size());
  double ss = 0;
  for (double x : v) ss += (x / s - m) * (x / s - m);
  mean = m * s;
  sd = v.size() > 1 ? std::sqrt(ss / static_cast<double>(v.size() - 1)) * s : 0.0;
}

std::vector<ParamSummary> summarize(const EnsembleChain& c, std::uint64_t burn, const std::vector<double>& probs) {
  const std::vector<AutocorrTime> taus = autocorr_time(c, burn);
  const std::uint64_t n = c.steps - burn;
  std::vector<ParamSummary> out(c.dim);
  std::vector<double> v(n * c.walkers), chains(n * c.walkers);
  for (std::size_t k = 0; k < c.dim; ++k) {
    for (std::uint64_t s = 0; s < n; ++s)
      for (std::size_t w = 0; w < c.walkers; ++w) v[s * c.walkers + w] = chains[w * n + s] = c.at(burn + s, w, k);
    ParamSummary& ps = out[k];
    const RankDiagnostics rd = rank_diagnostics(chains.data(), c.walkers, n);
    ps.r_hat = rd.r_hat;
    ps.ess_bulk = rd.ess_bulk;
    ps.ess_tail = rd.ess_tail;
    mean_sd(v, ps.mean, ps.sd);
    std::sort(v.begin(), v.end());
    for (double p : probs) ps.quantiles.push_back(sorted_quantile(v, p));
    ps.tau = taus[k].tau;
    // an unknown tau (NaN) is an unknown ESS, never the full count
    ps.ess = std::isfinite(ps.tau) ? static_cast<double>(v.size()) / std::max(1.0, ps.tau) : std::nan("");
    ps.converged = std::isfinite(ps.tau) && taus[k].window_found && static_cast<double>(n) >= 50.0 * ps.tau;
  }
  return out;
}

std::vector<std::size_t> stranded_walkers(const EnsembleChain& c, std::uint64_t burn, double gap) {
  std::vector<double> mean(c.walkers, 0.0), best(c.walkers, -HUGE_VAL);
  const double n = static_cast<double>(c.steps - burn);
  for (std::uint64_t s = burn; s < c.steps; ++s)
    for (std::size_t w = 0; w < c.walkers; ++w) {
      const double lp = c.logp[s * c.walkers + w];
      mean[w] += lp / n;
      best[w] = std::max(best[w], lp);
    }
  std::vector<double> sorted = mean;
  std::sort(sorted.begin(), sorted.end());
  const double median = sorted_quantile(sorted, 0.5);
  std::vector<std::size_t> out;
  for (std::size_t w = 0; w < c.walkers; ++w)
    if (best[w] < median - gap) out.push_back(w);
  return out;
}

}  // namespace impact::infer
