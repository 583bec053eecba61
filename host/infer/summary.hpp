// What a chain says of each free parameter: the posterior mean, sd and quantiles of the draws after
// the burn-in (every walker's), the integrated autocorrelation time and the effective sample size
// (infer/autocorr.hpp), whether the chain is long enough to trust them (emcee's rule: at least 50
// tau steps after the burn-in, and a closed autocorrelation window), and R-hat with the bulk and
// tail ESS of each walker taken as a chain (infer/rank_diagnostics.hpp; ArviZ's r_hat, ess_bulk
// and ess_tail of the same draws).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "infer/ensemble.hpp"

namespace impact::infer {

struct ParamSummary {
  double mean = 0, sd = 0;
  std::vector<double> quantiles;  // at the probabilities asked, in their order
  double tau = 0;                 // steps (NaN: unknown)
  double ess = 0;                 // draws (walkers x steps / tau; NaN when tau is unknown)
  bool converged = false;         // the window closed and steps >= 50 tau
  // the walkers as chains: rank-normalised split R-hat, bulk and tail ESS (infer/rank_diagnostics.hpp)
  double r_hat = 0, ess_bulk = 0, ess_tail = 0;
};

// A power of two within a factor 2 of the largest finite |x| (1 when there is none): values divided
// by it are below 2 in magnitude, exactly (a power of two only moves the exponent) unless a value
// is so much smaller than the largest that it falls among the subnormals, so that sums and squares
// of finite values cannot overflow, and a result scaled back has the bits of the plain formula
// wherever that one does not overflow and the scaled values stay normal numbers.
double magnitude_scale(const double* x, std::size_t n);

// The mean and the sample sd (n - 1) of v, robust to magnitude (magnitude_scale): finite for any
// finite values whose mean and sd are representable (samples near 1e308 included); sd 0 for one value.
void mean_sd(const std::vector<double>& v, double& mean, double& sd);

// Quantile p of sorted values (linear between order statistics: R's type 7, numpy's default; finite
// for finite values of any magnitude).
double sorted_quantile(const std::vector<double>& sorted, double p);

std::vector<ParamSummary> summarize(const EnsembleChain& c, std::uint64_t burn, const std::vector<double>& probs);

// Walkers stranded away from the bulk after the burn-in: a walker whose highest log posterior over
// the steps after `burn` stays more than `gap` below the median of the walkers' mean log posteriors.
// The stretch move carries no walker across a deep valley, so such walkers stay in a mode whose
// posterior mass their number does not measure (a mode 70 log units down holds a fraction e^-70 of
// it, not 9 of 64 walkers); the pooled quantiles then mix them in. Returns their indices.
constexpr double kStrandedGap = 20.0;
std::vector<std::size_t> stranded_walkers(const EnsembleChain& c, std::uint64_t burn, double gap = kStrandedGap);

}  // namespace impact::infer
