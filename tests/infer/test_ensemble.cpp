// The ensemble sampler (infer/ensemble.hpp) and the autocorrelation time (infer/autocorr.hpp)
// on targets whose answer is known: correlated Gaussians in 2 and 5 dimensions and Haario's banana
// (mean and covariance within Monte Carlo error, the error taken from the chain's own effective
// sample size), an AR(1) series of known tau; the stretch move's affine invariance, exactly; the
// same bits for a seed whatever the threads of the log density; and the starts that cannot run.
#include <gtest/gtest.h>

#include <omp.h>

#include <cmath>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "infer/autocorr.hpp"
#include "infer/ensemble.hpp"
#include "infer/summary.hpp"
#include "errors.hpp"
#include "gaussian.hpp"

using namespace impact::infer;
using impact::test::Gaussian;

namespace {

LogDensity batch(std::function<double(const double*)> f, std::size_t dim) {
  return [f, dim](const double* x, std::size_t n, double* out) {
#pragma omp parallel for schedule(static)
    for (long i = 0; i < static_cast<long>(n); ++i) out[i] = f(x + static_cast<std::size_t>(i) * dim);
  };
}

std::vector<double> start_near(std::size_t walkers, std::size_t dim, const std::vector<double>& at, double spread,
                               unsigned seed) {
  std::mt19937_64 g(seed);
  std::normal_distribution<double> n(0.0, 1.0);
  std::vector<double> s(walkers * dim);
  for (std::size_t w = 0; w < walkers; ++w)
    for (std::size_t k = 0; k < dim; ++k) s[w * dim + k] = at[k] + spread * n(g);
  return s;
}

// A correlated 3D Gaussian sampled by 24 walkers over 300 steps from starts near its mean: the
// chain the bit-for-bit tests run again (chain seed `seed`, starts drawn with `start_seed`).
struct Gaussian3Run {
  Gaussian g{{1.0, 2.0, 3.0}, {1, 0.3, 0, 0.3, 2, 0.5, 0, 0.5, 3}};
  EnsembleOptions o;
  std::vector<double> x0;
};
Gaussian3Run gaussian3_run(std::uint64_t seed, unsigned start_seed) {
  Gaussian3Run r;
  r.o.walkers = 24;
  r.o.steps = 300;
  r.o.seed = seed;
  r.x0 = start_near(24, 3, {1, 2, 3}, 0.3, start_seed);
  return r;
}

// The chain's mean and covariance over steps [burn, steps), and each parameter's effective size.
struct Moments {
  std::vector<double> mean, cov, ess;
};
Moments moments(const EnsembleChain& c, std::uint64_t burn) {
  const std::size_t d = c.dim;
  Moments m;
  m.mean.assign(d, 0.0);
  m.cov.assign(d * d, 0.0);
  const double n = static_cast<double>((c.steps - burn) * c.walkers);
  for (std::uint64_t s = burn; s < c.steps; ++s)
    for (std::size_t w = 0; w < c.walkers; ++w)
      for (std::size_t k = 0; k < d; ++k) m.mean[k] += c.at(s, w, k) / n;
  for (std::uint64_t s = burn; s < c.steps; ++s)
    for (std::size_t w = 0; w < c.walkers; ++w)
      for (std::size_t i = 0; i < d; ++i)
        for (std::size_t j = 0; j < d; ++j) m.cov[i * d + j] += (c.at(s, w, i) - m.mean[i]) * (c.at(s, w, j) - m.mean[j]) / n;
  for (const AutocorrTime& t : autocorr_time(c, burn)) {
    EXPECT_TRUE(t.window_found);
    m.ess.push_back(n / t.tau);
  }
  return m;
}

// Mean and covariance within 4.5 standard errors of the truth, each error from the chain's ESS
// (the covariance's: of a Gaussian's sample covariance, sqrt((S_ii S_jj + S_ij^2) / ESS)).
void expect_gaussian(const EnsembleChain& c, std::uint64_t burn, const std::vector<double>& mean, const std::vector<double>& S) {
  const Moments m = moments(c, burn);
  const std::size_t d = c.dim;
  for (std::size_t i = 0; i < d; ++i) {
    EXPECT_NEAR(m.mean[i], mean[i], 4.5 * std::sqrt(S[i * d + i] / m.ess[i])) << "mean " << i;
    for (std::size_t j = 0; j < d; ++j) {
      const double ess = std::min(m.ess[i], m.ess[j]);
      const double se = std::sqrt((S[i * d + i] * S[j * d + j] + S[i * d + j] * S[i * d + j]) / ess);
      EXPECT_NEAR(m.cov[i * d + j], S[i * d + j], 4.5 * se) << "cov " << i << "," << j;
    }
  }
  EXPECT_GT(c.acceptance_fraction(), 0.2);
  EXPECT_LT(c.acceptance_fraction(), 0.9);
}

}  // namespace

TEST(Ensemble, CorrelatedGaussians) {
  {  // 2-D, correlation 0.95, scales 1 and 10
    const std::vector<double> mean = {1.0, -3.0}, S = {1.0, 9.5, 9.5, 100.0};
    const Gaussian g(mean, S);
    EnsembleOptions o;
    o.walkers = 32;
    o.steps = 3000;
    o.seed = 11;
    const EnsembleChain c = run_ensemble(start_near(32, 2, {0, 0}, 0.5, 1), 2, batch(g, 2), o);
    expect_gaussian(c, 500, mean, S);
  }
  {  // 5-D, a random covariance of condition number ~1e3
    const std::size_t d = 5;
    std::mt19937_64 gen(5);
    std::normal_distribution<double> n(0.0, 1.0);
    std::vector<double> A(d * d), S(d * d, 0.0), mean(d);
    for (double& a : A) a = n(gen);
    for (std::size_t i = 0; i < d; ++i) A[i * d + i] += (i + 1) * 3.0;
    for (std::size_t i = 0; i < d; ++i)
      for (std::size_t j = 0; j < d; ++j)
        for (std::size_t k = 0; k < d; ++k) S[i * d + j] += A[i * d + k] * A[j * d + k];
    for (double& m : mean) m = 5 * n(gen);
    const Gaussian g(mean, S);
    EnsembleOptions o;
    o.walkers = 40;
    o.steps = 6000;
    o.seed = 12;
    const EnsembleChain c = run_ensemble(start_near(40, d, mean, 0.1, 2), d, batch(g, d), o);
    expect_gaussian(c, 1000, mean, S);
  }
}

// Haario et al.'s banana: x ~ N(0, diag(100, 1)), y = (x1, x2 + b (x1^2 - 100)), b = 0.03. Its mean
// is 0 and its variances 100 and 1 + 2 b^2 100^2 = 19; its covariance is 0.
TEST(Ensemble, Banana) {
  const double b = 0.03;
  const auto logp = [b](const double* y) {
    const double x1 = y[0], x2 = y[1] - b * (y[0] * y[0] - 100.0);
    return -0.5 * (x1 * x1 / 100.0 + x2 * x2);
  };
  EnsembleOptions o;
  o.walkers = 48;
  o.steps = 12000;
  o.seed = 3;
  const EnsembleChain c = run_ensemble(start_near(48, 2, {0, 0}, 1.0, 3), 2, batch(logp, 2), o);
  const std::uint64_t burn = 2000;
  const Moments m = moments(c, burn);
  // standard errors from the chain's own fourth moments and ESS
  const double n = static_cast<double>((c.steps - burn) * c.walkers);
  for (int k = 0; k < 2; ++k) {
    double m4 = 0;
    for (std::uint64_t s = burn; s < c.steps; ++s)
      for (std::size_t w = 0; w < c.walkers; ++w) m4 += std::pow(c.at(s, w, k) - m.mean[k], 4) / n;
    const double var = m.cov[k * 3];
    EXPECT_NEAR(m.mean[k], 0.0, 4.5 * std::sqrt(var / m.ess[k])) << k;
    EXPECT_NEAR(var, k == 0 ? 100.0 : 19.0, 4.5 * std::sqrt((m4 - var * var) / m.ess[k])) << k;
  }
  EXPECT_NEAR(m.cov[1], 0.0, 4.5 * std::sqrt(100.0 * 19.0 / std::min(m.ess[0], m.ess[1])));
}

// An AR(1) series x_t = rho x_{t-1} + sqrt(1 - rho^2) e_t has tau = (1 + rho) / (1 - rho).
TEST(Ensemble, AutocorrTimeOfAnAr1Series) {
  for (double rho : {0.0, 0.5, 0.9}) {
    const std::size_t walkers = 32;
    const std::uint64_t n = 20000;
    std::vector<double> s(walkers * n);
    std::mt19937_64 g(7);
    std::normal_distribution<double> e(0.0, 1.0);
    for (std::size_t w = 0; w < walkers; ++w) {
      double x = e(g);
      for (std::uint64_t i = 0; i < n; ++i) s[w * n + i] = x = rho * x + std::sqrt(1 - rho * rho) * e(g);
    }
    const AutocorrTime t = autocorr_time(s, walkers, n);
    const double want = (1 + rho) / (1 - rho);
    EXPECT_TRUE(t.window_found);
    EXPECT_NEAR(t.tau, want, 0.06 * want) << rho;
    EXPECT_GE(static_cast<double>(t.window), 5.0 * t.tau);
  }
  // a walker that never moves is fully correlated: no window closes
  std::vector<double> stuck(2 * 100, 1.0);
  for (int i = 0; i < 100; ++i) stuck[i] = std::sin(i * 1.7);
  EXPECT_FALSE(autocorr_time(stuck, 2, 100).window_found);
}

// The chain of q(y) = p(A^-1 y), A = diag(8, 1/32) (a power of two: exact), started at A x0, is A
// times the chain of p started at x0, bit for bit: the stretch move does not see the scales.
TEST(Ensemble, AffineInvarianceIsExact) {
  const Gaussian g({0.5, -1.0}, {2.0, 0.9, 0.9, 1.0});
  const double A[2] = {8.0, 1.0 / 32.0};
  const auto scaled = [&](const double* y) {
    const double x[2] = {y[0] / A[0], y[1] / A[1]};
    return g(x);
  };
  EnsembleOptions o;
  o.walkers = 16;
  o.steps = 400;
  o.seed = 21;
  std::vector<double> x0 = start_near(16, 2, {0, 0}, 1.0, 9), y0 = x0;
  for (std::size_t i = 0; i < y0.size(); ++i) y0[i] *= A[i % 2];
  const EnsembleChain cx = run_ensemble(x0, 2, batch(g, 2), o), cy = run_ensemble(y0, 2, batch(scaled, 2), o);
  ASSERT_EQ(cx.x.size(), cy.x.size());
  std::size_t same = 0;
  for (std::size_t i = 0; i < cx.x.size(); ++i) same += cx.x[i] * A[i % 2] == cy.x[i];
  EXPECT_EQ(same, cx.x.size());
  EXPECT_EQ(cx.accepted, cy.accepted);
  EXPECT_GT(cx.acceptance_fraction(), 0.3);
}

// A seed is one chain: whatever the log density's threads; another seed, another chain.
TEST(Ensemble, SameBitsForASeedWhateverTheThreads) {
  Gaussian3Run run = gaussian3_run(99, 4);
  const Gaussian& g = run.g;
  EnsembleOptions& o = run.o;
  const std::vector<double>& x0 = run.x0;
  std::vector<EnsembleChain> chains;
  const int threads_before = omp_get_max_threads();
  for (int threads : {1, 2, 5}) {
    omp_set_num_threads(threads);
    chains.push_back(run_ensemble(x0, 3, batch(g, 3), o));
  }
  omp_set_num_threads(threads_before);
  for (const EnsembleChain& c : chains) {
    ASSERT_EQ(c.x.size(), chains[0].x.size());
    EXPECT_EQ(std::memcmp(c.x.data(), chains[0].x.data(), c.x.size() * sizeof(double)), 0);
    EXPECT_EQ(std::memcmp(c.logp.data(), chains[0].logp.data(), c.logp.size() * sizeof(double)), 0);
  }
  o.seed = 100;
  EXPECT_NE(run_ensemble(x0, 3, batch(g, 3), o).x, chains[0].x);
  EXPECT_EQ(chains[0].evaluations, 24u + 300u * 24u);
}

TEST(Ensemble, StartsThatCannotRunAreRefusedNamingTheWalker) {
  const auto message = [](auto&& f) { return impact::test::invalid_argument_of(f); };
  const auto positive = [](const double* x) { return x[0] > 0 ? -x[0] : -HUGE_VAL; };  // exp(-x) on x > 0
  EnsembleOptions o;
  o.walkers = 4;
  o.steps = 10;
  std::vector<double> s = {1, 2, -1, 3};
  EXPECT_EQ(message([&] { run_ensemble(s, 1, batch(positive, 1), o); }),
            "calibrate: walker 2 starts where the density is zero (outside the prior's or the data's support)");
  const auto nan = [](const double*) { return std::nan(""); };
  EXPECT_EQ(message([&] {
              run_ensemble({1, 2, 3, 4}, 1, batch(nan, 1), o);
            }),
            "calibrate: the log density is NaN at every walker's start (the model fails there)");
  o.walkers = 3;
  EXPECT_NE(message([&] { run_ensemble({1, 2, 3}, 1, batch(positive, 1), o); }).find("walkers must be even"), std::string::npos);
  o.walkers = 2;
  EXPECT_NE(message([&] { run_ensemble({1, 2, 3, 4}, 2, batch(positive, 1), o); }).find("at least 2 x"), std::string::npos);
  // proposals where the model fails are rejected and counted, never taken
  o.walkers = 8;
  o.steps = 200;
  const auto holes = [](const double* x) { return std::fmod(std::fabs(x[0]), 1.0) < 0.1 ? std::nan("") : -0.5 * x[0] * x[0]; };
  const EnsembleChain c = run_ensemble({0.5, -0.5, 0.3, -0.3, 0.2, -0.2, 0.6, -0.6}, 1, batch(holes, 1), o);
  EXPECT_GT(c.failed_proposals, 0u);
  for (double lp : c.logp) EXPECT_FALSE(std::isnan(lp));
}

// A chain of samples near 1e308 (a prior as wide as the doubles): the summary's mean and sd are
// the scaled chain's, exactly (a power of two only moves the exponent), and tau too; the plain sums
// overflow there. An unknown tau is an unknown ESS, never the full count.
TEST(Ensemble, SummaryHoldsAtAnyMagnitude) {
  EnsembleChain ch;
  ch.walkers = 8;
  ch.dim = 1;
  ch.steps = 400;
  ch.x.resize(ch.walkers * ch.steps);
  ch.logp.assign(ch.walkers * ch.steps, 0.0);
  std::mt19937_64 g(11);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (double& x : ch.x) x = u(g);
  EnsembleChain big = ch;
  const double scale = std::ldexp(1.0, 1022);  // 4.5e307: samples up to 1.8e308, the sum of 3200 of them overflows
  for (double& x : big.x) x *= scale;
  const std::vector<double> p = {0.05, 0.5, 0.95};
  const ParamSummary a = summarize(ch, 100, p)[0], b = summarize(big, 100, p)[0];
  ASSERT_TRUE(std::isfinite(b.mean) && std::isfinite(b.sd) && std::isfinite(b.tau)) << b.mean << " " << b.sd << " " << b.tau;
  EXPECT_EQ(b.mean, a.mean * scale);
  EXPECT_EQ(b.sd, a.sd * scale);
  EXPECT_EQ(b.tau, a.tau);
  EXPECT_EQ(b.ess, a.ess);
  for (std::size_t k = 0; k < p.size(); ++k) EXPECT_EQ(b.quantiles[k], a.quantiles[k] * scale);
  EXPECT_NEAR(a.mean, 0.5, 0.02);
  // values of both signs near the largest double: no overflow in x - mean either
  for (std::size_t i = 0; i < big.x.size(); ++i) big.x[i] = (i % 2 ? 1.0 : -1.0) * ch.x[i] * scale * 3.9;
  const ParamSummary c = summarize(big, 100, p)[0];
  EXPECT_TRUE(std::isfinite(c.mean) && std::isfinite(c.sd) && std::isfinite(c.tau)) << c.mean << " " << c.sd << " " << c.tau;
  EXPECT_DOUBLE_EQ(sorted_quantile({-1.7e308, 1.7e308}, 0.25), -0.85e308);  // b - a overflows
  double m = 0, sd = 0;
  mean_sd({1e308, 1.5e308, 1.7e308}, m, sd);
  EXPECT_DOUBLE_EQ(m, 1.4e308);
  EXPECT_NEAR(sd, 0.3605551275463989e308, 1e293);
  // an unknown tau: the ESS says so
  EnsembleChain bad = ch;
  bad.x[5 * ch.walkers + 3] = std::nan("");
  const ParamSummary n = summarize(bad, 0, p)[0];
  EXPECT_TRUE(std::isnan(n.tau) || std::isnan(n.ess)) << n.tau << " " << n.ess;
  EXPECT_TRUE(std::isnan(n.ess)) << "ESS " << n.ess << " claimed with tau " << n.tau;
  EXPECT_FALSE(n.converged);
}

// A chain that goes on from its state after step k (a checkpoint's) is the uninterrupted chain, bit
// for bit, and asks the density only for the steps it has left.
TEST(Ensemble, GoingOnFromAStateIsTheUninterruptedChain) {
  Gaussian3Run run = gaussian3_run(41, 5);
  const Gaussian& g = run.g;
  EnsembleOptions& o = run.o;
  const std::vector<double>& x0 = run.x0;
  const EnsembleChain whole = run_ensemble(x0, 3, batch(g, 3), o);
  for (std::uint64_t k : {std::uint64_t{1}, std::uint64_t{137}, std::uint64_t{299}}) {
    EnsembleState at;
    run_ensemble(x0, 3, batch(g, 3), o, {}, nullptr, [&](const EnsembleChain& c, std::uint64_t done) {
      if (done != k) return;
      at.chain = c;
      at.chain.steps = done;
      at.chain.x.resize(done * c.walkers * c.dim);
      at.chain.logp.resize(done * c.walkers);
    });
    std::uint64_t asked = 0;
    const LogDensity counted = [&](const double* x, std::size_t n, double* out) {
      asked += n;
      batch(g, 3)(x, n, out);
    };
    const EnsembleChain rest = run_ensemble(x0, 3, counted, o, {}, &at, {});
    EXPECT_EQ(rest.x, whole.x) << k;
    EXPECT_EQ(rest.logp, whole.logp) << k;
    EXPECT_EQ(rest.accepted, whole.accepted) << k;
    EXPECT_EQ(rest.evaluations, whole.evaluations) << k;
    EXPECT_EQ(asked, (o.steps - k) * o.walkers) << k;  // no step again, no start
  }
  EnsembleState wrong;
  wrong.chain.walkers = 24, wrong.chain.dim = 2, wrong.chain.steps = 5;
  EXPECT_THROW(run_ensemble(x0, 3, batch(g, 3), o, {}, &wrong, {}), std::invalid_argument);
}
