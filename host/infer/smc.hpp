// Adaptive-tempered sequential Monte Carlo (Del Moral, Doucet & Jasra 2006; the adaptive schedule
// of Zhou, Johansen & Aston 2016, as PyMC's sample_smc runs it): particles drawn from the prior are
// carried through the tempered targets p(theta) L(theta)^beta, beta from 0 to 1. Each stage
//   * picks the next beta by bisection, so that the effective sample size of the incremental weights
//     L^(beta' - beta) is ess_target x the run's particles (or beta' = 1 where that is above it);
//   * adds log mean(incremental weight) to the run's log evidence;
//   * resamples the particles (systematic);
//   * moves them with random-walk Metropolis steps at beta', each proposing y = x + gamma (s_a - s_b)
//     + e: s_a and s_b two particles of the run before the resampling, drawn by their weights (the
//     differential-evolution step of ter Braak 2006 from a snapshot fixed during the stage, so that
//     the step's law is symmetric and fixed: a Metropolis kernel of the tempered target), e a small
//     Gaussian (1e-2 of the weighted covariance) that keeps the chain irreducible.
//     gamma = f 2.38 / sqrt(2 dim), f adapted from the stage's acceptance toward 0.234
//     (f <- f exp(2 (acc - 0.234)), within [1/16, 4]), and gamma = 1 every 10th step: a difference
//     between a particle of one mode and one of another carries a particle across. A difference
//     follows the local shape of the particles' cloud: within a mode it is the mode's own scale,
//     where a Gaussian of the pooled covariance spans the gaps between modes and is refused there.
//     The number of steps is adapted in the stage from its running acceptance: steps until a
//     particle has moved with probability moved_probability, (1 - acc)^steps <= 1 -
//     moved_probability (PyMC's rule), at least 2 and at most max_moves.
// The stage after beta reaches 1 is the last: its particles, after the resampling and the moves, are
// equal-weight draws of the posterior.
//
// Evidence and its error: `runs` independent populations of particles / runs each (their own
// schedules and random streams) advance together, so that every evaluation of all particles is ONE
// batch (the target's log likelihood of every particle that moves, of every run). Z is the mean of
// the runs' unbiased estimates Z_r, log Z = log mean_r Z_r, and its standard error is that of the
// mean in log space, sd_r(log Z_r) / sqrt(runs) (the runs are independent: the error is measured,
// not modelled). 16 runs by default: over 60 seeds of a 2-D Gaussian and of a two-mode mixture
// (4096 particles), (log Z - exact) / se had an rms of 1.03 and 1.08 and no |value| above 3; fewer
// runs underrate a multimodal run's spread (a run's Z is skewed there: its rare large values are
// what few runs miss). The posterior draws are every run's, pooled.
//
// Reproducible: every random number is Philox's for (seed, particle, stage and step, stream), the
// arithmetic is sequential and rmath's: the same bits on every machine, for any thread or process
// count of the batches (the target's rows do not depend on their batch).
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace impact::infer {

struct SmcOptions {
  std::size_t particles = 2048;  // in all, `runs` populations of particles / runs
  std::size_t runs = 16;         // independent populations (the evidence's error)
  double ess_target = 0.5;       // of the incremental weights, over a run's particles
  std::uint64_t seed = 1;
  std::size_t max_stages = 500;
  std::size_t max_moves = 64;       // Metropolis steps per stage at most
  double moved_probability = 0.95;  // steps until a particle has moved with this probability
};

// The target: the prior (its log density, -inf outside its support, and a draw from it by
// uniforms in (0, 1), one per dimension) and the log likelihood of a batch of points inside the
// support (n x dim; -inf: no mass there; NaN: the model failed, counted, no mass).
struct SmcTarget {
  std::size_t dim = 0;
  std::function<double(const double* x)> log_prior;
  std::function<void(const double* u, double* x)> from_uniforms;
  std::function<void(const double* x, std::size_t n, double* out)> log_likelihood;
};

// One stage of one run.
struct SmcStage {
  double beta = 0;        // reached at this stage
  double ess = 0;         // of the incremental weights, over the run's particles
  double log_z_step = 0;  // log mean incremental weight
  double acceptance = 0;  // of the Metropolis steps
  std::size_t moves = 0;  // Metropolis steps taken
  double scale = 0;       // the proposal's f
};

struct SmcResult {
  std::size_t dim = 0, particles = 0, runs = 0;
  std::vector<double> x;                      // the final equal-weight particles (particles x dim), run after run
  std::vector<double> log_like;               // their log likelihoods
  std::vector<double> log_prior;              // and log priors
  std::vector<std::uint32_t> run;             // the run of each particle
  std::vector<std::vector<SmcStage>> stages;  // per run
  std::vector<double> run_log_z;              // per run
  double log_z = 0, log_z_se = 0;             // log mean_r Z_r, sd_r(log Z_r) / sqrt(runs)
  std::uint64_t evaluations = 0;              // points whose log likelihood was asked (prior draws included)
  std::uint64_t failed = 0;                   // of those, NaN (the model failed): no mass
  bool finished = true;                       // every run reached beta = 1 within max_stages
  std::size_t stage_count() const;            // the most stages of a run
};

// Throws std::invalid_argument for options that cannot run (naming the key: smc.particles, ...),
// and when no particle of a run has a finite log likelihood after 100 redraws from the prior. The
// callback, when given, is called after every stage with the least beta over the runs.
SmcResult run_smc(const SmcTarget& t, const SmcOptions& o, const std::function<void(double)>& progress = {});

// The sampler between two stages: every particle with its log prior and likelihood, and each run's
// schedule so far. A checkpoint holds it; run_smc goes on from it with the bits of the uninterrupted
// run (every random number is a Philox draw of the particle, the stage and the step).
struct SmcRunState {
  double beta = 0, log_z = 0, scale = 1;
  std::uint64_t stage = 0;
  bool done = false;
  std::vector<SmcStage> stages;
};
struct SmcState {
  std::vector<double> x, log_prior, log_like;  // particles x dim, particles, particles
  std::uint64_t evaluations = 0, failed = 0;
  std::vector<SmcRunState> runs;
};

// The same, going on from `from` (null: from the prior), and calling `after_stage` (when given)
// after every stage of every run with the state reached.
SmcResult run_smc(const SmcTarget& t, const SmcOptions& o, const std::function<void(double)>& progress, const SmcState* from,
                  const std::function<void(const SmcState&)>& after_stage);

// A mode of the posterior: a cluster of the final particles (find_modes).
struct SmcMode {
  double mass = 0;                    // the fraction of particles in it
  std::vector<double> mean, sd;       // per parameter
  std::vector<double> q05, q50, q95;  // per parameter
  double log_like_max = 0;            // the best log likelihood of its particles
};

// The modes of equal-weight draws (n x dim): the draws scaled per parameter by their pooled sd,
// their minimum spanning tree over distinct draws (at most 3000, every other draw joins the cluster
// of its nearest), cut at every edge longer than `gap` times the median edge and `jump` times the
// longest other edge at either of its ends (a sparse tail grows its edges gradually; a valley
// between modes is one long edge between short ones, even where a light mode's few draws are
// sparse); a cluster of less than `min_mass` of the draws joins the cluster of its nearest draw. `label` receives each draw's mode,
// modes in decreasing mass. A unimodal posterior is one mode.
std::vector<SmcMode> find_modes(const std::vector<double>& x, std::size_t dim, const std::vector<double>& log_like,
                                std::vector<std::uint32_t>& label, double gap = 8.0, double min_mass = 0.01, double jump = 4.0);

}  // namespace impact::infer
