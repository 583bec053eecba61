// How many independent draws a chain is worth: the integrated autocorrelation time of each
// parameter, by the estimator of emcee (Foreman-Mackey et al. 2013, after Goodman and Weare 2010):
// the walkers' normalised autocorrelation functions averaged,
//   f(t) = 1/W sum_w  [1/n sum_{i < n - t} (x_i - m_w)(x_{i+t} - m_w)] / [1/n sum_i (x_i - m_w)^2],
//   tau(M) = 1 + 2 sum_{t=1..M} f(t),
// with Sokal's automatic window: the smallest M with M >= c tau(M) (c = 5). The sums run lag by lag
// up to that window (no FFT: the same bits on every machine, and O(n M) per walker), and at most up
// to the lag where W n M reaches kAutocorrWork multiply-adds (a chain that has not decorrelated by
// then reports window_found = false: not converged). A walker that never moved counts as
// f(t) = 1 at every lag.
#pragma once
#include <cstdint>
#include <vector>

#include "infer/ensemble.hpp"

namespace impact::infer {

constexpr double kAutocorrWork = 4e9;

struct AutocorrTime {
  double tau = 0;             // in steps (NaN: unknown, a draw of the series is not finite)
  std::uint64_t window = 0;   // M
  bool window_found = false;  // some M within the searched lags satisfied M >= c tau(M)
};

// Per parameter, over steps [burn, steps) of the chain.
std::vector<AutocorrTime> autocorr_time(const EnsembleChain& c, std::uint64_t burn, double window_c = 5.0);

// The same for one parameter given as series (walkers x n, row-major).
AutocorrTime autocorr_time(const std::vector<double>& series, std::size_t walkers, std::uint64_t n, double window_c = 5.0);

}  // namespace impact::infer
