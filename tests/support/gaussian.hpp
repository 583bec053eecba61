// The log density of a multivariate normal N(mean, S), normalised, by the Cholesky factor L of S
// (lower, row-major): a target whose moments and evidence are known, for the samplers' tests.
#pragma once
#include <cmath>
#include <cstddef>
#include <utility>
#include <vector>

namespace impact::test {

constexpr double kLog2Pi = 1.8378770664093454836;

struct Gaussian {
  std::size_t d;
  std::vector<double> mean, L;
  double log_det = 0;
  Gaussian(std::vector<double> m, const std::vector<double>& S) : d(m.size()), mean(std::move(m)), L(d * d, 0.0) {
    for (std::size_t i = 0; i < d; ++i)
      for (std::size_t j = 0; j <= i; ++j) {
        double s = S[i * d + j];
        for (std::size_t k = 0; k < j; ++k) s -= L[i * d + k] * L[j * d + k];
        L[i * d + j] = i == j ? std::sqrt(s) : s / L[j * d + j];
      }
    for (std::size_t i = 0; i < d; ++i) log_det += 2 * std::log(L[i * d + i]);
  }
  double operator()(const double* x) const {
    std::vector<double> z(d);
    double q = 0;
    for (std::size_t i = 0; i < d; ++i) {  // L z = x - mean
      double s = x[i] - mean[i];
      for (std::size_t k = 0; k < i; ++k) s -= L[i * d + k] * z[k];
      z[i] = s / L[i * d + i];
      q += z[i] * z[i];
    }
    return -0.5 * (q + log_det + static_cast<double>(d) * kLog2Pi);
  }
};

}  // namespace impact::test
