// What a fit (calibrate.method = fit, infer/fit.hpp) writes and says: the box and widths a prior
// gives the optimiser, the tables of estimate.csv and starts.csv, summary.md's table and notes,
// metadata.json's "estimate", and the draws of the Laplace normal for the predictive.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "infer/fit.hpp"
#include "design/design.hpp"

namespace impact::calibrate {

using infer::fit_map;
using infer::FitResult;
using infer::FitStart;
using infer::kAgreeLogp;
using infer::kNoValue;
using infer::laplace;
using infer::LogDensity;

// The box the optimiser searches for a parameter with prior p, and a width to set its steps by:
// uniform [a, b] and truncnormal [lo, hi] as given; normal and lognormal between their quantiles
// 1e-12 and 1 - 1e-12 (no posterior mass that the data can move there is lost to a fit). The width:
// between the prior's quantiles 5 % and 95 %.
void prior_box(const design::ParamSpec& p, double& lo, double& hi, double& scale);

// estimate.csv (parameter, estimate, sd, q05, q95: the Laplace normal's, within the prior's support)
// and starts.csv (start,
// <name>_from..., <name>..., logp, evaluations, result), each written whole.
void write_fit_files(const std::string& dir, const std::vector<std::string>& names, const FitResult& r);

// summary.md's table (the same columns as estimate.csv) and the notes under it: how many starts
// agree, the other optima they found, and why the Laplace approximation does not hold where not.
// Starts `from_basins` (the global stage's) began in distinct basins by construction: their other
// maxima are named by basin, and their disagreement is no warning.
std::string fit_table(const std::vector<std::string>& names, const FitResult& r);
std::string fit_note(const FitResult& r, bool from_basins);

// metadata.json's "estimate": per parameter estimate, sd, q05, q95; the covariance; log p; the
// starts' agreement; the evaluations.
nlohmann::ordered_json fit_json(const std::vector<std::string>& names, const FitResult& r);

// Up to `count` draws (count x dim) of the Laplace normal N(map, cov) inside the box [lo, hi] (draws
// outside it are dropped; Philox stream 8 of `seed`, rmath's normal quantile: the same bits on every
// machine); only the estimate when the approximation does not hold.
std::vector<double> laplace_draws(const FitResult& r, const std::vector<double>& lo, const std::vector<double>& hi,
                                  std::uint64_t seed, std::size_t count);

}  // namespace impact::calibrate
