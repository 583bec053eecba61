// Rank-normalised split R-hat and the bulk and tail effective sample sizes of Vehtari, Gelman,
// Simpson, Carpenter and Buerkner (2021), "Rank-normalization, folding, and localization: an
// improved R-hat for assessing convergence of MCMC", Bayesian Analysis 16(2):
//   - each chain split in halves (an odd draw in the middle left out), so that a chain that drifts
//     disagrees with itself;
//   - R-hat: the larger of the classic potential scale reduction of the rank-normalised draws (z =
//     Phi^-1((rank - 3/8) / (S + 1/4)), ties at their mean rank) and of the rank-normalised folded
//     draws |x - median| (a difference in scale, not only in location);
//   - ESS bulk: the ESS of the rank-normalised split draws; ESS tail: the smaller ESS of the
//     indicators x <= q05 and x <= q95;
//   - each ESS by Geyer's initial positive and monotone sequences over the chains' mean
//     autocovariance, with the between-chain variance in the denominator.
// The autocovariances are direct sums lag by lag up to where Geyer's sequence stops (no FFT: the
// same bits on every machine); ArviZ's FFT gives the same values to rounding.
#pragma once
#include <cstddef>

namespace impact::infer {

struct RankDiagnostics {
  double r_hat = 0;     // NaN with fewer than 2 draws per split chain, or a non-finite draw
  double ess_bulk = 0;  // draws; NaN with fewer than 4 draws per chain, constant draws or a non-finite one
  double ess_tail = 0;
};

// `x`: chains x n draws, row-major (chain c's draws at x[c n .. c n + n)).
RankDiagnostics rank_diagnostics(const double* x, std::size_t chains, std::size_t n);

}  // namespace impact::infer
