// What a chain says of each free parameter: the posterior mean, sd and quantiles of the draws after
// the burn-in (every walker's), the integrated autocorrelation time and the effective sample size
// (calibrate/autocorr.hpp), and whether the chain is long enough to trust them (emcee's rule: at
// least 50 tau steps after the burn-in, and a closed autocorrelation window).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "calibrate/ensemble.hpp"

namespace impact::calibrate {

struct ParamSummary {
  double mean = 0, sd = 0;
  std::vector<double> quantiles;  // at the probabilities asked, in their order
  double tau = 0;                 // steps
  double ess = 0;                 // draws (walkers x steps / tau)
  bool converged = false;         // the window closed and steps >= 50 tau
};

// Quantile p of sorted values (linear between order statistics: R's type 7, numpy's default).
double sorted_quantile(const std::vector<double>& sorted, double p);

std::vector<ParamSummary> summarize(const EnsembleChain& c, std::uint64_t burn, const std::vector<double>& probs);

}  // namespace impact::calibrate
