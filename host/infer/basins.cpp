#include "infer/basins.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace impact::infer {

std::vector<Basin> find_basins(const std::vector<double>& u, std::size_t dim, const std::vector<double>& logp,
                               const BasinOptions& o) {
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < logp.size(); ++i)
    if (std::isfinite(logp[i])) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return logp[a] > logp[b]; });
  const std::size_t want = o.candidates ? o.candidates : std::max<std::size_t>(64, logp.size() / 16);
  if (order.size() > want) order.resize(want);
  if (order.empty()) return {};
  std::vector<double> link(order.size(), HUGE_VAL);
  for (std::size_t i = 1; i < order.size(); ++i) {
    const double* a = &u[order[i] * dim];
    double best = HUGE_VAL;
    for (std::size_t j = 0; j < i; ++j) {
      const double* b = &u[order[j] * dim];
      double d2 = 0;
      for (std::size_t k = 0; k < dim; ++k) d2 += (a[k] - b[k]) * (a[k] - b[k]);
      best = std::min(best, d2);
    }
    link[i] = std::sqrt(best);
  }
  double mean = 0;
  for (std::size_t i = 1; i < order.size(); ++i) mean += link[i];
  if (order.size() > 1) mean /= static_cast<double>(order.size() - 1);
  std::vector<Basin> out;
  for (std::size_t i = 0; i < order.size(); ++i)
    if (i == 0 || link[i] > o.factor * mean) out.push_back({order[i], logp[order[i]], link[i]});
  return out;
}

std::vector<Basin> merge_by_valleys(const std::vector<Basin>& basins, const std::vector<double>& u, std::size_t dim,
                                    const UnitLogp& f, std::size_t probes, std::size_t max_basins) {
  const std::size_t n = std::min(basins.size(), max_basins);
  if (n < 2 || probes == 0) return {basins.begin(), basins.begin() + static_cast<std::ptrdiff_t>(n)};
  // The probes of every pair (a < b), in pair order.
  std::vector<double> q;
  for (std::size_t b = 1; b < n; ++b)
    for (std::size_t a = 0; a < b; ++a)
      for (std::size_t k = 1; k <= probes; ++k) {
        const double t = static_cast<double>(k) / static_cast<double>(probes + 1);
        for (std::size_t d = 0; d < dim; ++d) {
          const double ua = u[basins[a].point * dim + d], ub = u[basins[b].point * dim + d];
          q.push_back(ua + t * (ub - ua));
        }
      }
  const std::vector<double> v = f(q);
  std::vector<Basin> out{basins[0]};
  std::size_t at = 0;
  for (std::size_t b = 1; b < n; ++b) {
    bool joins = false;
    for (std::size_t a = 0; a < b; ++a, at += probes) {
      bool valley = false;
      for (std::size_t k = 0; k < probes; ++k) valley = valley || !std::isfinite(v[at + k]) || v[at + k] < basins[b].logp;
      joins = joins || !valley;
    }
    if (!joins) out.push_back(basins[b]);
  }
  return out;
}

}  // namespace impact::infer
