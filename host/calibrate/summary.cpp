#include "calibrate/summary.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "calibrate/autocorr.hpp"

namespace impact::calibrate {

double sorted_quantile(const std::vector<double>& sorted, double p) {
  if (sorted.empty() || !(p >= 0 && p <= 1)) throw std::invalid_argument("sorted_quantile: no values, or p outside [0, 1]");
  const double h = p * static_cast<double>(sorted.size() - 1);
  const std::size_t lo = static_cast<std::size_t>(h);
  if (lo + 1 >= sorted.size()) return sorted.back();
  return sorted[lo] + (h - static_cast<double>(lo)) * (sorted[lo + 1] - sorted[lo]);
}

std::vector<ParamSummary> summarize(const EnsembleChain& c, std::uint64_t burn, const std::vector<double>& probs) {
  const std::vector<AutocorrTime> taus = autocorr_time(c, burn);
  const std::uint64_t n = c.steps - burn;
  std::vector<ParamSummary> out(c.dim);
  std::vector<double> v(n * c.walkers);
  for (std::size_t k = 0; k < c.dim; ++k) {
    for (std::uint64_t s = 0; s < n; ++s)
      for (std::size_t w = 0; w < c.walkers; ++w) v[s * c.walkers + w] = c.at(burn + s, w, k);
    ParamSummary& ps = out[k];
    double m = 0;
    for (double x : v) m += x;
    m /= static_cast<double>(v.size());
    double ss = 0;
    for (double x : v) ss += (x - m) * (x - m);
    ps.mean = m;
    ps.sd = v.size() > 1 ? std::sqrt(ss / static_cast<double>(v.size() - 1)) : 0.0;
    std::sort(v.begin(), v.end());
    for (double p : probs) ps.quantiles.push_back(sorted_quantile(v, p));
    ps.tau = taus[k].tau;
    ps.ess = static_cast<double>(v.size()) / std::max(1.0, ps.tau);
    ps.converged = taus[k].window_found && static_cast<double>(n) >= 50.0 * ps.tau;
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

}  // namespace impact::calibrate
