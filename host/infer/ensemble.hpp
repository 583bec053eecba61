// The affine-invariant ensemble sampler of Goodman and Weare (2010), the "stretch move", in the
// parallel form of Foreman-Mackey et al. (2013, emcee): the walkers are split into two halves, and
// every walker of a half moves against a walker of the other half, so that a half's proposals are
// one batch of log-density calls (on the GPU: one batch of impacts).
//
// Move of walker k (a half's walkers all at once):
//   j   uniform among the other half's walkers
//   z   from g(z) ~ 1/sqrt(z) on [1/a, a]:  z = ((a - 1) u + 1)^2 / a
//   Y = X_j + z (X_k - X_j), accepted with probability min(1, z^(d-1) p(Y) / p(X_k)).
// The random numbers are Philox draws of (seed, step * walkers + k) (impact/rng.hpp) and the
// arithmetic is IEEE with rmath's log (impact/rmath.hpp), so a seed gives the same chain, bit for
// bit, on every x86-64 machine and for any thread count of the log density. The move is
// affine-invariant: the chain of p(A x + b) is A^-1 (chain of p - b), exactly where A scales by
// powers of two (tests/infer/test_ensemble.cpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace impact::infer {

// The log density of n points at once (row-major, n x dim) up to a constant: out[i] = log p(x_i),
// -inf outside the support. NaN (or +inf) says the model failed at that point: the proposal is
// rejected and counted (EnsembleChain::failed_proposals).
using LogDensity = std::function<void(const double* x, std::size_t n, double* out)>;

struct EnsembleOptions {
  std::size_t walkers = 32;  // even, at least 2 dim
  std::uint64_t steps = 1000;
  std::uint64_t seed = 1;
  double a = 2.0;  // the stretch scale (Goodman and Weare's 2), > 1
};

struct EnsembleChain {
  std::size_t walkers = 0, dim = 0;
  std::uint64_t steps = 0;
  std::vector<double> x;                // [step][walker][dim]: the positions after each step
  std::vector<double> logp;             // [step][walker]
  std::vector<std::uint64_t> accepted;  // per walker, over all steps
  std::uint64_t evaluations = 0;        // points whose log density was asked, the start included
  std::uint64_t failed_proposals = 0;   // proposals whose log density was NaN or +inf (rejected)

  double at(std::uint64_t step, std::size_t walker, std::size_t k) const { return x[(step * walkers + walker) * dim + k]; }
  // Accepted moves over all moves.
  double acceptance_fraction() const;
};

// Runs the sampler from `start` (walkers x dim, row-major; every walker where the density is
// positive and finite). Throws std::invalid_argument for options or a start that cannot run,
// naming the walker. `progress` (when given) is called after each step with the steps done.
EnsembleChain run_ensemble(const std::vector<double>& start, std::size_t dim, const LogDensity& f, const EnsembleOptions& o,
                           const std::function<void(std::uint64_t)>& progress = {});

// Where a chain stopped: its first `steps` steps as run_ensemble wrote them (x, logp for those
// steps only), with the counters. A checkpoint holds it; the sampler goes on from it with the bits
// of the uninterrupted chain (every random number is a Philox draw of the step and the walker).
struct EnsembleState {
  EnsembleChain chain;  // chain.steps: the steps done
};

// The same, going on from `from` (null: from `start`), and calling `after_step` (when given) after
// every step with the chain so far (its x and logp hold `steps_done` steps; the rest is not yet
// written).
EnsembleChain run_ensemble(const std::vector<double>& start, std::size_t dim, const LogDensity& f, const EnsembleOptions& o,
                           const std::function<void(std::uint64_t)>& progress, const EnsembleState* from,
                           const std::function<void(const EnsembleChain& c, std::uint64_t steps_done)>& after_step);

}  // namespace impact::infer
