#include "infer/rank_diagnostics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "impact/rmath.hpp"
#include "infer/summary.hpp"

namespace impact::infer {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A set of equally long chains, row-major.
struct Chains {
  std::vector<double> v;
  std::size_t m = 0, n = 0;  // chains, draws per chain
  double at(std::size_t c, std::size_t i) const { return v[c * n + i]; }
};

// Each chain's first and last n/2 draws as two chains.
Chains split(const double* x, std::size_t chains, std::size_t n) {
  Chains s;
  s.m = 2 * chains;
  s.n = n / 2;
  s.v.reserve(s.m * s.n);
  for (std::size_t c = 0; c < chains; ++c) {
    s.v.insert(s.v.end(), x + c * n, x + c * n + s.n);
    s.v.insert(s.v.end(), x + c * n + (n - s.n), x + c * n + n);
  }
  return s;
}

// Phi^-1((r - 3/8) / (S + 1/4)) of each draw's rank r among all S (ties: their mean rank).
Chains z_scale(Chains s) {
  const std::size_t S = s.v.size();
  std::vector<std::size_t> order(S);
  std::iota(order.begin(), order.end(), std::size_t(0));
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return s.v[a] < s.v[b]; });
  std::vector<double> z(S);
  for (std::size_t i = 0; i < S;) {
    std::size_t j = i;
    while (j + 1 < S && s.v[order[j + 1]] == s.v[order[i]]) ++j;
    const double rank = 0.5 * (static_cast<double>(i + 1) + static_cast<double>(j + 1));
    const double q = rmath::normal_quantile((rank - 0.375) / (static_cast<double>(S) + 0.25));
    for (std::size_t k = i; k <= j; ++k) z[order[k]] = q;
    i = j + 1;
  }
  s.v = std::move(z);
  return s;
}

double mean_of(const double* x, std::size_t n) {
  double m = 0;
  for (std::size_t i = 0; i < n; ++i) m += x[i];
  return m / static_cast<double>(n);
}

// The sample variance (n - 1) of x.
double variance(const std::vector<double>& x) {
  const double m = mean_of(x.data(), x.size());
  double ss = 0;
  for (double v : x) ss += (v - m) * (v - m);
  return ss / static_cast<double>(x.size() - 1);
}

// The classic potential scale reduction: sqrt((n - 1)/n + B / (n W)).
double psrf(const Chains& s) {
  std::vector<double> means(s.m), vars(s.m);
  for (std::size_t c = 0; c < s.m; ++c) {
    const std::vector<double> chain(s.v.begin() + static_cast<std::ptrdiff_t>(c * s.n),
                                    s.v.begin() + static_cast<std::ptrdiff_t>((c + 1) * s.n));
    means[c] = mean_of(chain.data(), s.n);
    vars[c] = variance(chain);
  }
  const double n = static_cast<double>(s.n);
  const double between = n * variance(means), within = mean_of(vars.data(), vars.size());
  return std::sqrt((between / within + n - 1) / n);
}

// Geyer's ESS of the chains (module comment).
double ess(const Chains& s) {
  const std::size_t m = s.m, n = s.n;
  std::vector<double> means(m);
  for (std::size_t c = 0; c < m; ++c) means[c] = mean_of(s.v.data() + c * n, n);
  // the chains' mean autocovariance at lag t (divisor n, as the FFT's biased estimate)
  const auto acov = [&](std::size_t t) {
    double sum = 0;
    for (std::size_t c = 0; c < m; ++c) {
      const double* x = s.v.data() + c * n;
      double a = 0;
      for (std::size_t i = 0; i + t < n; ++i) a += (x[i] - means[c]) * (x[i + t] - means[c]);
      sum += a / static_cast<double>(n);
    }
    return sum / static_cast<double>(m);
  };
  const double nd = static_cast<double>(n);
  const double mean_var = acov(0) * nd / (nd - 1);
  double var_plus = mean_var * (nd - 1) / nd;
  if (m > 1) var_plus += variance(means);
  if (!(var_plus > 0)) return kNaN;  // constant draws
  const auto rho = [&](std::size_t t) { return 1 - (mean_var - acov(t)) / var_plus; };
  std::vector<double> r(n, 0.0);
  double even = 1, odd = rho(1);
  r[0] = even;
  r[1] = odd;
  // initial positive sequence: pairs of lags while their sum stays positive
  std::size_t t = 1;
  while (t + 3 < n && even + odd > 0) {
    even = rho(t + 1);
    odd = rho(t + 2);
    if (even + odd >= 0) r[t + 1] = even, r[t + 2] = odd;
    t += 2;
  }
  // the last lag of the sequence kept: -1 when no pair was (t = 1), as in the paper's indexing
  const long max_t = static_cast<long>(t) - 2;
  if (even > 0) r[static_cast<std::size_t>(max_t + 1)] = even;
  // initial monotone sequence: no pair above the one before it
  for (long k = 1; k + 2 <= max_t; k += 2) {
    const std::size_t i = static_cast<std::size_t>(k);
    if (r[i + 1] + r[i + 2] > r[i - 1] + r[i]) r[i + 1] = r[i + 2] = (r[i - 1] + r[i]) / 2;
  }
  double tau = -1;
  for (long k = 0; k <= max_t; ++k) tau += 2 * r[static_cast<std::size_t>(k)];
  if (static_cast<std::size_t>(max_t + 1) < n) tau += r[static_cast<std::size_t>(max_t + 1)];
  const double draws = static_cast<double>(m * n);
  tau = std::max(tau, rmath::log(10.0) / rmath::log(draws));  // 1 / log10(draws)
  return draws / tau;
}

}  // namespace

RankDiagnostics rank_diagnostics(const double* x, std::size_t chains, std::size_t n) {
  RankDiagnostics d{kNaN, kNaN, kNaN};
  const std::size_t S = chains * n;
  if (chains == 0 || n < 4) return d;
  for (std::size_t i = 0; i < S; ++i)
    if (!std::isfinite(x[i])) return d;
  std::vector<double> sorted(x, x + S);
  std::sort(sorted.begin(), sorted.end());
  if (sorted.front() == sorted.back()) return d;
  const Chains s = split(x, chains, n);
  const Chains z = z_scale(s);
  // folded about the median of all draws, then split (as the posterior package and az.summary)
  const double median = sorted_quantile(sorted, 0.5);
  std::vector<double> folded(S);
  for (std::size_t i = 0; i < S; ++i) folded[i] = std::fabs(x[i] - median);
  d.r_hat = std::max(psrf(z), psrf(z_scale(split(folded.data(), chains, n))));
  d.ess_bulk = ess(z);
  double tail = HUGE_VAL;
  for (double p : {0.05, 0.95}) {
    const double q = sorted_quantile(sorted, p);
    std::vector<double> ind(S);
    for (std::size_t i = 0; i < S; ++i) ind[i] = x[i] <= q ? 1.0 : 0.0;
    const double e = ess(split(ind.data(), chains, n));
    tail = std::isnan(e) ? e : std::min(tail, e);
    if (std::isnan(tail)) break;
  }
  d.ess_tail = tail;
  return d;
}

}  // namespace impact::infer
