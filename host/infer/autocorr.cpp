#include "infer/autocorr.hpp"

#include "infer/summary.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace impact::infer {

AutocorrTime autocorr_time(const std::vector<double>& series, std::size_t walkers, std::uint64_t n, double window_c) {
  if (walkers == 0 || n < 2 || series.size() != walkers * n)
    throw std::invalid_argument("autocorr_time: need at least 2 steps of every walker");
  // each walker's deviations from its mean, and their mean square, of the series scaled by a power
  // of two to below 2 in magnitude: f(t) does not depend on the scale, and the sums of finite
  // values cannot overflow (the same bits as unscaled wherever those do not)
  AutocorrTime r;
  for (double x : series)
    if (!std::isfinite(x)) {  // a draw that is no number: tau is unknown, and so is the ESS
      r.tau = std::nan("");
      return r;
    }
  const double scale = magnitude_scale(series.data(), series.size());
  std::vector<double> dev(series.size()), c0(walkers);
  for (std::size_t w = 0; w < walkers; ++w) {
    const double* x = series.data() + w * n;
    double m = 0;
    for (std::uint64_t i = 0; i < n; ++i) m += x[i] / scale;
    m /= static_cast<double>(n);
    double s = 0;
    for (std::uint64_t i = 0; i < n; ++i) {
      dev[w * n + i] = x[i] / scale - m;
      s += dev[w * n + i] * dev[w * n + i];
    }
    c0[w] = s / static_cast<double>(n);
  }
  double tau = 1;
  const double per_lag = static_cast<double>(walkers) * static_cast<double>(n);
  const std::uint64_t last =
      std::min<std::uint64_t>(n - 1, std::max<std::uint64_t>(1, static_cast<std::uint64_t>(kAutocorrWork / per_lag)));
  for (std::uint64_t t = 1; t <= last; ++t) {
    double f = 0;
    for (std::size_t w = 0; w < walkers; ++w) {
      if (!(c0[w] > 0)) {  // a walker that never moved: fully correlated
        f += 1;
        continue;
      }
      const double* d = dev.data() + w * n;
      double s = 0;
      for (std::uint64_t i = 0; i + t < n; ++i) s += d[i] * d[i + t];
      f += s / static_cast<double>(n) / c0[w];
    }
    tau += 2 * f / static_cast<double>(walkers);
    r.tau = tau;
    r.window = t;
    if (static_cast<double>(t) >= window_c * tau) {
      r.window_found = true;
      break;
    }
  }
  return r;
}

std::vector<AutocorrTime> autocorr_time(const EnsembleChain& c, std::uint64_t burn, double window_c) {
  if (burn >= c.steps) throw std::invalid_argument("autocorr_time: the burn-in is the whole chain");
  const std::uint64_t n = c.steps - burn;
  std::vector<AutocorrTime> out;
  std::vector<double> series(c.walkers * n);
  for (std::size_t k = 0; k < c.dim; ++k) {
    for (std::size_t w = 0; w < c.walkers; ++w)
      for (std::uint64_t i = 0; i < n; ++i) series[w * n + i] = c.at(burn + i, w, k);
    out.push_back(autocorr_time(series, c.walkers, n, window_c));
  }
  return out;
}

}  // namespace impact::infer
