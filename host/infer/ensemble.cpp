#include "infer/ensemble.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "impact/rmath.hpp"
#include "impact/rng.hpp"

namespace impact::infer {

double EnsembleChain::acceptance_fraction() const {
  std::uint64_t n = 0;
  for (std::uint64_t a : accepted) n += a;
  const double moves = static_cast<double>(steps) * static_cast<double>(walkers);
  return moves > 0 ? static_cast<double>(n) / moves : 0.0;
}

namespace {

void check(const std::vector<double>& start, std::size_t dim, const EnsembleOptions& o) {
  if (dim == 0) throw std::invalid_argument("calibrate: no free parameter to sample");
  if (o.walkers % 2 != 0 || o.walkers < 2 * dim)
    throw std::invalid_argument("calibrate: walkers must be even and at least 2 x the free parameters (" +
                                std::to_string(2 * dim) + "), got " + std::to_string(o.walkers));
  if (!(o.a > 1.0) || !std::isfinite(o.a)) throw std::invalid_argument("calibrate: the stretch scale a must be finite and > 1");
  if (o.steps == 0) throw std::invalid_argument("calibrate: steps must be >= 1");
  if (start.size() != o.walkers * dim)
    throw std::invalid_argument("calibrate: the start has " + std::to_string(start.size()) + " values, expected walkers x " +
                                "parameters = " + std::to_string(o.walkers * dim));
  for (std::size_t i = 0; i < start.size(); ++i)
    if (!std::isfinite(start[i]))
      throw std::invalid_argument("calibrate: walker " + std::to_string(i / dim) + " starts at a non-finite value");
}

// Every walker's start where the density is positive and finite. (A start in a lower-dimensional
// plane keeps the ensemble in it: the summary shows it as parameters that never spread.)
void check_start(const std::vector<double>& lp) {
  std::size_t nan = 0;
  for (double v : lp) nan += std::isnan(v);
  if (nan == lp.size())
    throw std::invalid_argument("calibrate: the log density is NaN at every walker's start (the model fails there)");
  for (std::size_t w = 0; w < lp.size(); ++w) {
    if (std::isnan(lp[w]))
      throw std::invalid_argument("calibrate: the log density is NaN at walker " + std::to_string(w) + "'s start");
    if (!std::isfinite(lp[w]))
      throw std::invalid_argument("calibrate: walker " + std::to_string(w) + " starts where the density is " +
                                  (lp[w] > 0 ? "infinite" : "zero (outside the prior's or the data's support)"));
  }
}

}  // namespace

EnsembleChain run_ensemble(const std::vector<double>& start, std::size_t dim, const LogDensity& f, const EnsembleOptions& o,
                           const std::function<void(std::uint64_t)>& progress) {
  return run_ensemble(start, dim, f, o, progress, nullptr, {});
}

EnsembleChain run_ensemble(const std::vector<double>& start, std::size_t dim, const LogDensity& f, const EnsembleOptions& o,
                           const std::function<void(std::uint64_t)>& progress, const EnsembleState* from,
                           const std::function<void(const EnsembleChain&, std::uint64_t)>& after_step) {
  check(start, dim, o);
  const std::size_t W = o.walkers, half = W / 2;
  EnsembleChain c;
  c.walkers = W;
  c.dim = dim;
  c.steps = o.steps;
  c.x.resize(o.steps * W * dim);
  c.logp.resize(o.steps * W);
  c.accepted.assign(W, 0);
  std::vector<double> pos = start, lp(W);
  std::uint64_t s0 = 0;
  if (from) {
    const EnsembleChain& p = from->chain;
    if (p.walkers != W || p.dim != dim || p.steps == 0 || p.steps > o.steps || p.x.size() != p.steps * W * dim ||
        p.logp.size() != p.steps * W || p.accepted.size() != W)
      throw std::invalid_argument("ensemble: the state to go on from is not of this chain's walkers, dimension and steps");
    std::copy(p.x.begin(), p.x.end(), c.x.begin());
    std::copy(p.logp.begin(), p.logp.end(), c.logp.begin());
    c.accepted = p.accepted;
    c.evaluations = p.evaluations;
    c.failed_proposals = p.failed_proposals;
    s0 = p.steps;
    pos.assign(p.x.end() - static_cast<std::ptrdiff_t>(W * dim), p.x.end());
    lp.assign(p.logp.end() - static_cast<std::ptrdiff_t>(W), p.logp.end());
    if (progress) progress(s0);
  } else {
    f(pos.data(), W, lp.data());
    c.evaluations += W;
    check_start(lp);
  }

  const Philox rng{o.seed};
  std::vector<double> prop(half * dim), lq(half), z(half), lu(half);
  for (std::uint64_t s = s0; s < o.steps; ++s) {
    for (std::size_t h = 0; h < 2; ++h) {
      const std::size_t first = h * half, other = (1 - h) * half;
      for (std::size_t i = 0; i < half; ++i) {
        const std::size_t k = first + i;
        const std::uint64_t index = s * W + k;
        double u_z, u_acc, u_j, unused;
        uniforms2(rng, index, 0, u_z, u_acc);
        uniforms2(rng, index, 1, u_j, unused);
        std::size_t j = static_cast<std::size_t>(u_j * static_cast<double>(half));
        if (j >= half) j = half - 1;
        j += other;
        const double t = (o.a - 1.0) * u_z + 1.0;
        z[i] = t * t / o.a;
        lu[i] = rmath::log(u_acc);
        for (std::size_t d = 0; d < dim; ++d) {
          const double xj = pos[j * dim + d];
          prop[i * dim + d] = xj + z[i] * (pos[k * dim + d] - xj);
        }
      }
      f(prop.data(), half, lq.data());
      c.evaluations += half;
      for (std::size_t i = 0; i < half; ++i) {
        const std::size_t k = first + i;
        if (std::isnan(lq[i]) || lq[i] == HUGE_VAL) {  // the model failed there
          ++c.failed_proposals;
          continue;
        }
        const double log_ratio = static_cast<double>(dim - 1) * rmath::log(z[i]) + (lq[i] - lp[k]);
        if (!(lu[i] < log_ratio)) continue;  // -inf outside the support: never accepted
        for (std::size_t d = 0; d < dim; ++d) pos[k * dim + d] = prop[i * dim + d];
        lp[k] = lq[i];
        ++c.accepted[k];
      }
    }
    std::copy(pos.begin(), pos.end(), c.x.begin() + static_cast<std::ptrdiff_t>(s * W * dim));
    std::copy(lp.begin(), lp.end(), c.logp.begin() + static_cast<std::ptrdiff_t>(s * W));
    if (progress) progress(s + 1);
    if (after_step) after_step(c, s + 1);
  }
  return c;
}

}  // namespace impact::infer
