// The `fit` method of `impact calibrate` (docs/calibration.md): the maximum of the log posterior (the
// MAP estimate) by a derivative-free local optimiser of NLopt (Debian's libnlopt-cxx-dev), started
// from several points drawn from the prior, and the Laplace approximation around the best: the
// posterior taken as the normal N(MAP, Sigma), Sigma the inverse of minus the Hessian of the log
// posterior there, from central differences evaluated as one batch.
//
// Same bits on every x86-64 machine: the algorithms offered (BOBYQA, Nelder-Mead, Sbplx, COBYLA) call
// no libm transcendental (NLopt's NEWUOA calls sincos, whose bits glibc may pick per CPU: not
// offered; tests/infer/test_fit.cpp interposes them and counts), they draw no random numbers, and
// no stopping rule reads a clock. The starts are the sampler's (start_from_prior), so a seed gives the
// same fit on every backend's CPU path and for any thread count.
//
// Where the log posterior has no value (-inf: a row outside the law's domain; NaN: a row that failed)
// the optimiser is told kNoValue, far above any value of -log p it meets, and the evaluation is counted
// (FitResult::failed_evaluations): the methods step back from such points as from a bad one.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "infer/ensemble.hpp"

namespace impact::infer {

struct FitOptions {
  std::string algorithm = "bobyqa";  // bobyqa | neldermead | sbplx | cobyla (fit_algorithms())
  double xtol = 1e-8;                // relative tolerance on the parameters (NLopt's xtol_rel)
  double ftol = 1e-12;               // absolute tolerance on log p (NLopt's ftol_abs)
  std::uint64_t max_evals = 0;       // per start; 0: 400 (dim + 1)^2
  bool laplace = true;               // the Hessian at the best and the covariance from it
};

// The algorithms' names, as the config spells them, and the same as one text for messages
// ("bobyqa, neldermead, sbplx, cobyla").
const std::vector<std::string>& fit_algorithms();
std::string fit_algorithm_list();

struct FitStart {
  std::vector<double> from, to;  // dim each
  double logp = 0;               // log p at `to` (-inf: the optimiser found no point with a value)
  std::uint64_t evaluations = 0;
  std::string result;  // NLopt's stopping reason: xtol, ftol, max_evals, failure, roundoff
};

struct FitResult {
  std::size_t dim = 0;
  std::vector<FitStart> starts;
  std::size_t best = 0;     // the start whose end has the highest log p
  std::vector<double> map;  // starts[best].to
  double logp = 0;
  std::size_t agree = 0;       // starts that ended within kAgreeLogp of the best log p (0: none has a value)
  std::vector<double> lo, hi;  // the box searched (the priors' supports)
  std::uint64_t evaluations = 0, failed_evaluations = 0;
  // The Laplace approximation (empty cov when it does not hold, with why in laplace_note):
  std::vector<double> cov;   // dim x dim, row-major
  std::vector<double> sd;    // sqrt of its diagonal (NaN where none)
  std::vector<double> step;  // the finite-difference step per parameter of the Hessian used
  std::string laplace_note;  // "" when it holds
};

constexpr double kAgreeLogp = 1e-3;
constexpr double kNoValue = 1e100;

// Maximises f over the box [lo, hi] (dim each; the priors' supports) from each start (starts x dim,
// every start inside the box where f is finite). `scale` (dim): a width per parameter, from which
// the Hessian's first steps are taken (1e-4 of it). Throws std::invalid_argument for an unknown
// algorithm or a start outside the box. `after_start` (when given) is called as each start ends.
FitResult fit_map(const LogDensity& f, std::size_t dim, const std::vector<double>& starts, const std::vector<double>& lo,
                  const std::vector<double>& hi, const std::vector<double>& scale, const FitOptions& o,
                  const std::function<void()>& after_start = {});

// The Laplace approximation at x (a maximum of f inside the box): minus the inverse of the Hessian of
// f by central differences, one batch of 1 + 2 dim + 2 dim (dim - 1) points. Twice: with steps of
// 1e-4 `scale`, then of a tenth of the standard deviations the first found (exact for a normal
// posterior; otherwise the differences' error, h^2 / 12 of the fourth derivative, small against the
// curvature at that step), each step shortened to half
// the distance to the box where it would leave it. Fills r.cov, r.sd, r.step and r.laplace_note;
// r.evaluations and r.failed_evaluations count its points.
void laplace(const LogDensity& f, const std::vector<double>& x, const std::vector<double>& lo, const std::vector<double>& hi,
             const std::vector<double>& scale, FitResult& r);

}  // namespace impact::infer
