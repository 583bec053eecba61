// The fit method (infer/fit.hpp): NLopt's local optimisers from several starts find the maximum of
// a known log density, the Laplace approximation there is minus the inverse Hessian (exact for a
// normal, within the differences' h^2 / 12 for a quartic), an estimate at a bound of the box or next
// to points without a value is said, and a fit repeats bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "infer/fit.hpp"

using namespace impact::infer;

namespace {

// A correlated normal in 3 dimensions: mean m, covariance S (its precision P = S^-1 written out).
const double kMean[3] = {0.3, -1.2, 2.5};
const double kCov[9] = {0.04, 0.018, -0.01, 0.018, 0.09, 0.012, -0.01, 0.012, 0.0625};

// P = S^-1 by Gauss-Jordan (the test's own arithmetic, not the code's)
std::vector<double> inverse3(const double* a) {
  double m[3][6];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 6; ++j) m[i][j] = j < 3 ? a[i * 3 + j] : (j - 3 == i);
  for (int c = 0; c < 3; ++c) {
    const double p = m[c][c];
    for (int j = 0; j < 6; ++j) m[c][j] /= p;
    for (int i = 0; i < 3; ++i)
      if (i != c) {
        const double f = m[i][c];
        for (int j = 0; j < 6; ++j) m[i][j] -= f * m[c][j];
      }
  }
  std::vector<double> out(9);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) out[i * 3 + j] = m[i][j + 3];
  return out;
}

LogDensity gaussian() {
  const std::vector<double> P = inverse3(kCov);
  return [P](const double* x, std::size_t n, double* out) {
    for (std::size_t i = 0; i < n; ++i) {
      double d[3], q = 0;
      for (int k = 0; k < 3; ++k) d[k] = x[i * 3 + k] - kMean[k];
      for (int k = 0; k < 3; ++k)
        for (int l = 0; l < 3; ++l) q += d[k] * P[k * 3 + l] * d[l];
      out[i] = -0.5 * q + 7.0;  // an offset: only differences count
    }
  };
}

const std::vector<double> kLo = {-2, -4, 0}, kHi = {2, 2, 5}, kScale = {1, 1, 1};
const std::vector<double> kStarts = {-1.0, 1.0, 1.0, 1.5, -3.0, 4.0, 0.0, 0.0, 0.5};

}  // namespace

TEST(FitMap, CorrelatedGaussianEveryAlgorithm) {
  for (const std::string& alg : fit_algorithms()) {
    FitOptions o;
    o.algorithm = alg;
    o.xtol = 1e-10;
    const FitResult r = fit_map(gaussian(), 3, kStarts, kLo, kHi, kScale, o);
    ASSERT_EQ(r.starts.size(), 3u);
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(r.map[k], kMean[k], 1e-4 * std::sqrt(kCov[k * 4])) << alg << " param " << k;
    EXPECT_NEAR(r.logp, 7.0, 1e-7) << alg;
    EXPECT_EQ(r.agree, 3u) << alg;
    EXPECT_EQ(r.failed_evaluations, 0u) << alg;
    ASSERT_EQ(r.cov.size(), 9u) << alg << ": " << r.laplace_note;
    for (int i = 0; i < 9; ++i) EXPECT_NEAR(r.cov[i], kCov[i], 1e-5 * 0.0625) << alg << " cov " << i;
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(r.sd[k], std::sqrt(kCov[k * 4]), 1e-5) << alg;
    for (const FitStart& s : r.starts) EXPECT_NE(s.result, "failure") << alg;
  }
}

// log p = -x^2 / 2 - x^4 / 12 - (y - 1)^2 / 8: the maximum at (0, 1) with curvatures 1 and 1/4; the
// x difference's error is h^2 f'''' / 12 = h^2 / 6 of the curvature at the second pass' h = sd / 10.
TEST(FitMap, LaplaceOfANonGaussianMaximum) {
  const LogDensity f = [](const double* x, std::size_t n, double* out) {
    for (std::size_t i = 0; i < n; ++i) {
      const double a = x[2 * i], b = x[2 * i + 1] - 1;
      out[i] = -0.5 * a * a - a * a * a * a / 12 - b * b / 8;
    }
  };
  const FitResult r = fit_map(f, 2, {1.0, 0.0, -2.0, 3.0}, {-3, -5}, {3, 5}, {1, 1}, FitOptions{});
  EXPECT_NEAR(r.map[0], 0, 1e-5);
  EXPECT_NEAR(r.map[1], 1, 1e-5);
  ASSERT_EQ(r.cov.size(), 4u) << r.laplace_note;
  EXPECT_NEAR(r.cov[0], 1.0, 2.5e-3);          // 1 / (1 + h^2 / 6) with h = 0.1: 1 - 1.7e-3
  EXPECT_GT(std::fabs(r.cov[0] - 1.0), 1e-4);  // ... and that error is there: the differences were taken at ~0.1
  EXPECT_NEAR(r.cov[3], 4.0, 1e-6);
  EXPECT_NEAR(r.cov[1], 0.0, 1e-6);
  EXPECT_NEAR(r.step[0], 0.1, 1e-3);
  EXPECT_NEAR(r.step[1], 0.2, 1e-3);
}

// The maximum of a normal lies beyond the box: the estimate is at its bound, and no normal
// approximation is claimed there.
TEST(FitMap, EstimateAtABoundHasNoLaplace) {
  const LogDensity f = [](const double* x, std::size_t n, double* out) {
    for (std::size_t i = 0; i < n; ++i) out[i] = -0.5 * (x[i] - 1.5) * (x[i] - 1.5) / 0.01;
  };
  const FitResult r = fit_map(f, 1, {0.2, 0.7}, {0}, {1}, {1}, FitOptions{});
  EXPECT_NEAR(r.map[0], 1.0, 1e-7);
  EXPECT_TRUE(r.cov.empty());
  EXPECT_TRUE(std::isnan(r.sd[0]));
  EXPECT_NE(r.laplace_note.find("at the bound of its prior"), std::string::npos) << r.laplace_note;
}

// A region without a value (-inf: outside the law's domain; NaN: a failed row) next to the maximum:
// the optimiser steps back from it, counts it, and the estimate is the maximum where f has values.
TEST(FitMap, StepsBackFromPointsWithoutAValue) {
  for (const std::string& alg : fit_algorithms()) {
    const LogDensity f = [](const double* x, std::size_t n, double* out) {
      for (std::size_t i = 0; i < n; ++i)
        out[i] = x[2 * i] < 0.1 ? -HUGE_VAL
                 : x[2 * i + 1] > 0.9
                     ? std::nan("")
                     : -((x[2 * i] - 0.3) * (x[2 * i] - 0.3) + (x[2 * i + 1] - 0.5) * (x[2 * i + 1] - 0.5)) / 0.002;
    };
    FitOptions o;
    o.algorithm = alg;
    const FitResult r = fit_map(f, 2, {0.8, 0.2, 0.15, 0.85}, {0, 0}, {1, 1}, {1, 1}, o);
    EXPECT_NEAR(r.map[0], 0.3, 1e-4) << alg;
    EXPECT_NEAR(r.map[1], 0.5, 1e-4) << alg;
    EXPECT_GT(r.failed_evaluations, 0u) << alg << ": the optimiser met the region without a value";
    ASSERT_EQ(r.cov.size(), 4u) << alg << ": " << r.laplace_note;
    EXPECT_NEAR(r.sd[0], std::sqrt(0.001), 1e-6) << alg;
  }
}

TEST(FitMap, SameBitsTwiceAndBadArgumentsSaid) {
  const FitResult a = fit_map(gaussian(), 3, kStarts, kLo, kHi, kScale, FitOptions{});
  const FitResult b = fit_map(gaussian(), 3, kStarts, kLo, kHi, kScale, FitOptions{});
  ASSERT_EQ(a.cov.size(), b.cov.size());
  EXPECT_EQ(std::memcmp(a.map.data(), b.map.data(), 3 * sizeof(double)), 0);
  EXPECT_EQ(std::memcmp(a.cov.data(), b.cov.data(), a.cov.size() * sizeof(double)), 0);
  EXPECT_EQ(a.evaluations, b.evaluations);
  FitOptions bad;
  bad.algorithm = "newuoa";
  try {
    fit_map(gaussian(), 3, kStarts, kLo, kHi, kScale, bad);
    FAIL() << "an unknown algorithm ran";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("known: bobyqa, neldermead, sbplx, cobyla"), std::string::npos) << e.what();
  }
  EXPECT_THROW(fit_map(gaussian(), 3, {9.0, 0.0, 1.0}, kLo, kHi, kScale, FitOptions{}), std::invalid_argument);
}

// An exception of the log density (Python's Ctrl-C, a failed process group) stops the optimiser and
// comes out of fit_map as it was, not through NLopt's C frames.
TEST(FitMap, AnExceptionOfTheDensityComesOutWhole) {
  int calls = 0;
  const LogDensity f = [&](const double* x, std::size_t n, double* out) {
    if (++calls == 7) throw std::runtime_error("interrupted");
    gaussian()(x, n, out);
  };
  for (const std::string& alg : fit_algorithms()) {
    calls = 0;
    FitOptions o;
    o.algorithm = alg;
    try {
      fit_map(f, 3, kStarts, kLo, kHi, kScale, o);
      FAIL() << alg << ": no exception";
    } catch (const std::runtime_error& e) { EXPECT_STREQ(e.what(), "interrupted") << alg; }
    EXPECT_EQ(calls, 7) << alg << ": the optimiser went on after the exception";
  }
}

// The second pass (steps of a tenth of the first sd) meets points without a value: no approximation,
// and nothing of the first pass stays (sd NaN, as the note says); a posterior narrower than doubles
// resolve is said as such, not as a bound.
TEST(FitMap, ALaplaceThatFailsLeavesNoSd) {
  const LogDensity f = [](const double* x, std::size_t n, double* out) {
    for (std::size_t i = 0; i < n; ++i) out[i] = std::fabs(x[i]) > 0.05 ? -HUGE_VAL : -0.5 * x[i] * x[i];
  };
  FitResult r = fit_map(f, 1, {0.01}, {-1}, {1}, {1}, FitOptions{});
  EXPECT_NEAR(r.map[0], 0, 1e-6);
  EXPECT_TRUE(r.cov.empty());
  EXPECT_TRUE(std::isnan(r.sd[0])) << r.sd[0];
  EXPECT_NE(r.laplace_note.find("no value at some point"), std::string::npos) << r.laplace_note;
  const LogDensity narrow = [](const double* x, std::size_t n, double* out) {
    for (std::size_t i = 0; i < n; ++i) out[i] = -0.5 * (x[i] - 3) * (x[i] - 3) / 1e-40;
  };
  laplace(narrow, {3.0}, {0}, {10}, {10}, r);
  EXPECT_TRUE(std::isnan(r.sd[0]));
  EXPECT_NE(r.laplace_note.find("narrower than double precision"), std::string::npos) << r.laplace_note;
}
