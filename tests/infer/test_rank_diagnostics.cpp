// Rank-normalised split R-hat and bulk / tail ESS (infer/rank_diagnostics.hpp) on series whose
// answer is known: independent draws (R-hat 1, ESS the draw count), AR(1) chains of known
// integrated autocorrelation time, chains that disagree in location or only in scale (the folded
// R-hat sees the latter), invariance under a monotone transform (ranks only), and the series that
// have no answer (too short, constant, not finite). ArviZ's values on a sampler's chain:
// python/tests/test_arviz.py.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "infer/rank_diagnostics.hpp"

using namespace impact::infer;

namespace {

// chains x n AR(1) draws x_t = rho x_{t-1} + sqrt(1 - rho^2) e_t (stationary N(0, 1)), chain c
// shifted by shift[c] and scaled by scale[c].
std::vector<double> ar1(std::size_t chains, std::size_t n, double rho, unsigned seed, const std::vector<double>& shift = {},
                        const std::vector<double>& scale = {}) {
  std::mt19937_64 g(seed);
  std::normal_distribution<double> e(0.0, 1.0);
  std::vector<double> x(chains * n);
  for (std::size_t c = 0; c < chains; ++c) {
    double v = e(g);
    for (std::size_t i = 0; i < n; ++i) {
      v = rho * v + std::sqrt(1 - rho * rho) * e(g);
      x[c * n + i] = (shift.empty() ? 0.0 : shift[c]) + (scale.empty() ? 1.0 : scale[c]) * v;
    }
  }
  return x;
}

}  // namespace

TEST(RankDiagnostics, IndependentDrawsAreWorthTheirCount) {
  const std::size_t C = 8, n = 1000, S = C * n;
  for (unsigned seed : {1u, 2u, 3u}) {
    const std::vector<double> x = ar1(C, n, 0.0, seed);
    const RankDiagnostics d = rank_diagnostics(x.data(), C, n);
    EXPECT_NEAR(d.r_hat, 1.0, 0.01) << seed;
    // the ESS of S independent draws has a relative sd of about sqrt(2 / S) x a few
    EXPECT_NEAR(d.ess_bulk / double(S), 1.0, 0.12) << seed;
    EXPECT_NEAR(d.ess_tail / double(S), 1.0, 0.2) << seed;
  }
}

TEST(RankDiagnostics, Ar1ChainsHaveTheirKnownEss) {
  // tau = (1 + rho) / (1 - rho): rho 0.8 is 9 draws per independent one
  const std::size_t C = 8, n = 4000;
  const double rho = 0.8, tau = (1 + rho) / (1 - rho);
  const std::vector<double> x = ar1(C, n, rho, 7);
  const RankDiagnostics d = rank_diagnostics(x.data(), C, n);
  EXPECT_NEAR(d.r_hat, 1.0, 0.01);
  EXPECT_NEAR(d.ess_bulk / (double(C * n) / tau), 1.0, 0.15);
  // an indicator of a Gaussian series is never more correlated than the series (the maximal
  // correlation of a bivariate normal is |rho|: Gebelein, Lancaster), so the tail ESS is at least
  // the series' own, up to the estimate's noise, and at most the draw count
  EXPECT_GT(d.ess_tail, 0.85 * double(C * n) / tau);
  EXPECT_LT(d.ess_tail, double(C * n));
}

TEST(RankDiagnostics, ChainsThatDisagreeAreSeen) {
  const std::size_t C = 4, n = 1000;
  // one chain one sd away: R-hat well above Vehtari's 1.01
  const std::vector<double> shifted = ar1(C, n, 0.5, 11, {0, 0, 0, 1.0});
  EXPECT_GT(rank_diagnostics(shifted.data(), C, n).r_hat, 1.05);
  // same location, one chain three times as wide: only the folded draws tell
  const std::vector<double> wide = ar1(C, n, 0.5, 12, {}, {1, 1, 1, 3});
  EXPECT_GT(rank_diagnostics(wide.data(), C, n).r_hat, 1.05);
  // a chain that drifts disagrees with its own halves: the split sees it
  std::vector<double> drift = ar1(C, n, 0.5, 13);
  for (std::size_t i = 0; i < n; ++i) drift[i] += 2.0 * double(i) / double(n);
  EXPECT_GT(rank_diagnostics(drift.data(), C, n).r_hat, 1.05);
}

TEST(RankDiagnostics, OnlyRanksCount) {
  // a strictly increasing map of every draw keeps every rank and the indicator of every quantile
  const std::size_t C = 4, n = 501;  // odd: the middle draw of each chain is left out of the split
  const std::vector<double> x = ar1(C, n, 0.6, 21);
  std::vector<double> y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) y[i] = std::exp(3 * x[i]) + 5;
  const RankDiagnostics a = rank_diagnostics(x.data(), C, n), b = rank_diagnostics(y.data(), C, n);
  EXPECT_EQ(a.ess_bulk, b.ess_bulk);
  EXPECT_EQ(a.ess_tail, b.ess_tail);
  // R-hat's folded part folds about the median, which a non-linear map moves: the bulk part stays
  EXPECT_GE(b.r_hat, 0.99);
  EXPECT_TRUE(std::isfinite(a.r_hat) && std::isfinite(b.r_hat));
}

TEST(RankDiagnostics, SeriesWithoutAnAnswerAreNaN) {
  const std::vector<double> three = {1, 2, 3, 4, 5, 6};
  const RankDiagnostics s = rank_diagnostics(three.data(), 2, 3);  // fewer than 4 draws per chain
  EXPECT_TRUE(std::isnan(s.r_hat) && std::isnan(s.ess_bulk) && std::isnan(s.ess_tail));
  const std::vector<double> flat(40, 2.5);
  const RankDiagnostics f = rank_diagnostics(flat.data(), 4, 10);
  EXPECT_TRUE(std::isnan(f.r_hat) && std::isnan(f.ess_bulk) && std::isnan(f.ess_tail));
  std::vector<double> x = ar1(4, 100, 0.3, 5);
  x[17] = std::nan("");
  const RankDiagnostics q = rank_diagnostics(x.data(), 4, 100);
  EXPECT_TRUE(std::isnan(q.r_hat) && std::isnan(q.ess_bulk) && std::isnan(q.ess_tail));
  EXPECT_TRUE(std::isnan(rank_diagnostics(x.data(), 0, 100).r_hat));
}
