// Variance-based sensitivity: first-order and total Sobol indices from a Saltelli design
// (design/design.hpp, DesignKind::saltelli, SALib row order A, AB_1..AB_d, B per base row), with the
// Saltelli et al. (2010) first-order estimator and Jansen's total-effect estimator, and
// percentile-free normal bootstrap confidence intervals (as SALib: z * sd of the bootstrap
// replicates). With the second-order layout (A, AB_1..AB_d, BA_1..BA_d, B) also the second-order
// indices of Saltelli (2002): S2_ij = mean(fBA_i fAB_j - fA fB) / V - S_i - S_j.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace impact::design {

struct SobolIndices {
  std::vector<double> S1, S1_conf, ST, ST_conf;  // one per parameter; *_conf: half-width
  std::vector<double> S2, S2_conf;               // second order: d x d row-major, (i, j) for i < j; NaN elsewhere
  std::size_t used = 0;                          // base rows whose every evaluation was finite (others are dropped)
};

// y: N (d + 2) outputs in Saltelli/SALib order, or N (2d + 2) with second_order (non-finite values
// drop their whole base row).
// bootstrap: number of resamples (>= 10); conf: confidence level in (0, 1), e.g. 0.95.
// Throws std::invalid_argument when y.size() != N (d + 2) or fewer than 2 usable base rows.
// A constant output (zero variance over [fA; fB]) gives NaN indices and half-widths.
// As SALib, fB enters the first-order estimator centred on the mean of all outputs in use:
// S_i = mean((fB - c) (fAB_i - fA)) / V, c = mean of every finite base row's d + 2 outputs.
SobolIndices sobol_indices(const std::vector<double>& y, std::size_t d, std::size_t bootstrap, double conf, std::uint64_t seed,
                           bool second_order = false);

}  // namespace impact::design
