#include "infer/smc.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

#include "impact/rmath.hpp"
#include "impact/rng.hpp"

namespace impact::infer {

namespace {

constexpr double kNoMass = -std::numeric_limits<double>::infinity();
// Philox streams of the sampler (the ensemble's and the start's are 1-10)
constexpr std::uint32_t kStreamPrior = 11, kStreamStep = 12, kStreamAccept = 13, kStreamResample = 14, kStreamPair = 15;
// Every kJumpEvery-th step of a stage proposes the whole difference (gamma = 1): a particle then lands
// where another mode's particle sits relative to its own, so particles move between modes.
constexpr std::size_t kJumpEvery = 10;
// The proposal's small Gaussian part, against the difference: keeps the chain irreducible where two
// particles coincide.
constexpr double kJitter = 1e-2;
constexpr std::uint32_t kMovesPerStage = 4096;  // the counter's room for a stage's steps

// NOLINTNEXTLINE(bugprone-narrowing-conversions): clang-tidy 14 takes an infinite constant for a narrowing
double finite_or_no_mass(double v) { return std::isfinite(v) ? v : kNoMass; }

// log sum_i exp(a_i) over the finite a_i (-inf when none).
double log_sum_exp(const double* a, std::size_t n) {
  double m = kNoMass;
  for (std::size_t i = 0; i < n; ++i) m = std::max(m, a[i]);
  if (!std::isfinite(m)) return kNoMass;
  double s = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (a[i] > kNoMass) s += rmath::exp(a[i] - m);
  return m + rmath::log(s);
}

// The ESS of the weights exp(delta ll_i) (ll_i = -inf: none), and their log sum.
double ess_of(const double* ll, std::size_t n, double delta, double* log_sum = nullptr) {
  double m = kNoMass;
  for (std::size_t i = 0; i < n; ++i)
    if (ll[i] > kNoMass) m = std::max(m, delta * ll[i]);
  if (!std::isfinite(m)) {
    if (log_sum) *log_sum = kNoMass;
    return 0;
  }
  double s = 0, s2 = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (ll[i] > kNoMass) {
      const double w = rmath::exp(delta * ll[i] - m);
      s += w;
      s2 += w * w;
    }
  if (log_sum) *log_sum = m + rmath::log(s);
  return s * s / s2;
}

// Lower-triangular L with L L^T = A (d x d, row-major), a small jitter added until it holds.
std::vector<double> cholesky(std::vector<double> A, std::size_t d) {
  double trace = 0;
  for (std::size_t k = 0; k < d; ++k) trace += A[k * d + k];
  const double base = trace > 0 && std::isfinite(trace) ? trace / static_cast<double>(d) : 1.0;
  for (double jitter = 0; jitter < base;) {
    std::vector<double> L(d * d, 0.0);
    bool ok = true;
    for (std::size_t i = 0; i < d && ok; ++i)
      for (std::size_t j = 0; j <= i; ++j) {
        double s = A[i * d + j] + (i == j ? jitter : 0.0);
        for (std::size_t k = 0; k < j; ++k) s -= L[i * d + k] * L[j * d + k];
        if (i == j) {
          if (!(s > 0) || !std::isfinite(s)) {
            ok = false;
            break;
          }
          L[i * d + i] = std::sqrt(s);
        } else {
          L[i * d + j] = s / L[j * d + j];
        }
      }
    if (ok) return L;
    jitter = jitter == 0 ? base * 1e-10 : jitter * 100;
  }
  std::vector<double> L(d * d, 0.0);  // a degenerate cloud: an isotropic step of its mean scale
  for (std::size_t k = 0; k < d; ++k) L[k * d + k] = std::sqrt(base) * 1e-3 + 1e-12;
  return L;
}

// One run's state.
struct Run {
  std::size_t first = 0, n = 0;  // its particles [first, first + n)
  double beta = 0, log_z = 0, scale = 1;
  std::size_t stage = 0;
  bool done = false;              // beta reached 1 and its last stage's steps are taken
  std::vector<double> chol;       // this stage's weighted covariance's factor (the jitter's)
  std::vector<double> snap, cum;  // the particles and their cumulative weights before the resampling
  std::size_t steps = 0, proposed = 0, accepted = 0;
  bool moving = false;
  std::vector<SmcStage> stages;
};

class Smc {
 public:
  Smc(const SmcTarget& t, const SmcOptions& o) : t_(t), o_(o), d_(t.dim), N_(o.particles), rng_{o.seed} {
    x_.resize(N_ * d_);
    lp_.assign(N_, kNoMass);
    ll_.assign(N_, kNoMass);
    runs_.resize(o.runs);
    const std::size_t n = N_ / o.runs;
    for (std::size_t r = 0; r < o.runs; ++r) runs_[r].first = r * n, runs_[r].n = n;
  }

  SmcResult go(const std::function<void(double)>& progress, const SmcState* from,
               const std::function<void(const SmcState&)>& after_stage) {
    if (from) restore(*from);
    else draw_prior();
    while (true) {
      bool any = false;
      for (Run& r : runs_)
        if (!r.done && r.stage < o_.max_stages) {
          reweigh_and_resample(r);
          any = true;
        }
      if (!any) break;
      move();
      if (progress) {
        double least = 1;
        for (const Run& r : runs_) least = std::min(least, r.beta);
        progress(least);
      }
      if (after_stage) after_stage(state());
    }
    return result();
  }

  // Between stages a run is all its state says: the proposal's factor, snapshot and weights are
  // rebuilt by the next stage's reweighing, and its step counters start from zero there.
  SmcState state() const {
    SmcState st{x_, lp_, ll_, eval_, failed_, {}};
    for (const Run& r : runs_) st.runs.push_back({r.beta, r.log_z, r.scale, r.stage, r.done, r.stages});
    return st;
  }

  void restore(const SmcState& st) {
    if (st.x.size() != N_ * d_ || st.log_prior.size() != N_ || st.log_like.size() != N_ || st.runs.size() != runs_.size())
      throw std::invalid_argument("smc: the state to go on from is not of this run's particles, runs and dimension");
    x_ = st.x, lp_ = st.log_prior, ll_ = st.log_like, eval_ = st.evaluations, failed_ = st.failed;
    for (std::size_t k = 0; k < runs_.size(); ++k) {
      Run& r = runs_[k];
      const SmcRunState& q = st.runs[k];
      r.beta = q.beta, r.log_z = q.log_z, r.scale = q.scale, r.stage = static_cast<std::size_t>(q.stage), r.done = q.done;
      r.stages = q.stages;
    }
  }

 private:
  double uniform(std::uint64_t index, std::uint32_t stream, std::uint32_t block, int which) const {
    const auto w = rng_.words(index, stream, block);
    return which == 0 ? u01_double(w[0], w[1]) : u01_double(w[2], w[3]);
  }

  // The log likelihoods of the particles `which` (their prior finite), in one batch.
  void evaluate(const std::vector<std::size_t>& which, const std::vector<double>& points, std::vector<double>& out) {
    out.assign(which.size(), kNoMass);
    if (which.empty()) return;
    t_.log_likelihood(points.data(), which.size(), out.data());
    eval_ += which.size();
    for (double& v : out) {
      failed_ += std::isnan(v);
      v = finite_or_no_mass(v);
    }
  }

  // Every particle from the prior; a run whose every particle has no likelihood redraws them (at
  // most 100 times): a prior with some mass where the model holds has some particles there.
  void draw_prior() {
    std::vector<double> u(d_);
    std::vector<std::size_t> todo(N_);
    std::iota(todo.begin(), todo.end(), std::size_t{0});
    for (std::uint32_t round = 0; round < 100 && !todo.empty(); ++round) {
      std::vector<std::size_t> inside;
      std::vector<double> pts;
      for (std::size_t i : todo) {
        for (std::size_t k = 0; k < d_; ++k) u[k] = uniform(i * 64 + k / 2, kStreamPrior, round, static_cast<int>(k % 2));
        t_.from_uniforms(u.data(), &x_[i * d_]);
        lp_[i] = finite_or_no_mass(t_.log_prior(&x_[i * d_]));
        ll_[i] = kNoMass;
        if (lp_[i] > kNoMass) {
          inside.push_back(i);
          pts.insert(pts.end(), &x_[i * d_], &x_[i * d_] + d_);
        }
      }
      std::vector<double> got;
      evaluate(inside, pts, got);
      for (std::size_t q = 0; q < inside.size(); ++q) ll_[inside[q]] = got[q];
      todo.clear();
      for (const Run& r : runs_) {
        bool any = false;
        for (std::size_t i = r.first; i < r.first + r.n && !any; ++i) any = ll_[i] > kNoMass;
        if (!any)
          for (std::size_t i = r.first; i < r.first + r.n; ++i) todo.push_back(i);
      }
    }
    if (!todo.empty())
      throw std::invalid_argument("calibrate: no particle of " + std::to_string(todo.size()) +
                                  " drawn 100 times from the prior has a finite likelihood (does the model hold "
                                  "anywhere in the prior?)");
  }

  // The next beta of run r, its evidence step, the proposal from its weighted particles, and the
  // systematic resampling.
  void reweigh_and_resample(Run& r) {
    const double* ll = &ll_[r.first];
    const double target = o_.ess_target * static_cast<double>(r.n), room = 1 - r.beta;
    double delta = room;
    if (ess_of(ll, r.n, room) < target) {
      double lo = 0, hi = room;
      for (int it = 0; it < 64; ++it) {
        const double mid = 0.5 * (lo + hi);
        (ess_of(ll, r.n, mid) >= target ? lo : hi) = mid;
      }
      delta = lo > 0 ? lo : hi;  // every weight but a few zero: the least step that moves
    }
    double log_sum = kNoMass;
    SmcStage st;
    st.ess = ess_of(ll, r.n, delta, &log_sum);
    st.log_z_step = log_sum - rmath::log(static_cast<double>(r.n));
    r.log_z += st.log_z_step;
    r.beta = delta >= room ? 1.0 : r.beta + delta;
    st.beta = r.beta;
    // normalized weights, the weighted mean and covariance (the proposal's), then the resampling
    std::vector<double> W(r.n, 0.0);
    for (std::size_t i = 0; i < r.n; ++i)
      if (ll[i] > kNoMass) W[i] = rmath::exp(delta * ll[i] - (log_sum));
    std::vector<double> mean(d_, 0.0), cov(d_ * d_, 0.0);
    for (std::size_t i = 0; i < r.n; ++i)
      for (std::size_t k = 0; k < d_; ++k) mean[k] += W[i] * x_[(r.first + i) * d_ + k];
    for (std::size_t i = 0; i < r.n; ++i)
      for (std::size_t a = 0; a < d_; ++a)
        for (std::size_t b = 0; b <= a; ++b)
          cov[a * d_ + b] += W[i] * (x_[(r.first + i) * d_ + a] - mean[a]) * (x_[(r.first + i) * d_ + b] - mean[b]);
    for (std::size_t a = 0; a < d_; ++a)
      for (std::size_t b = 0; b < a; ++b) cov[b * d_ + a] = cov[a * d_ + b];
    for (double& v : cov) v *= kJitter * kJitter;
    r.chol = cholesky(cov, d_);
    r.snap.assign(&x_[r.first * d_], &x_[r.first * d_] + r.n * d_);
    r.cum.resize(r.n);
    double total = 0;
    for (std::size_t i = 0; i < r.n; ++i) r.cum[i] = total += W[i];
    std::vector<std::size_t> from(r.n);
    const double u0 = uniform(r.first, kStreamResample, static_cast<std::uint32_t>(r.stage), 0) / static_cast<double>(r.n);
    double cum = 0;
    for (std::size_t i = 0, j = 0; i < r.n; ++i) {
      const double at = u0 + static_cast<double>(i) / static_cast<double>(r.n);
      while (j + 1 < r.n && cum + W[j] < at) cum += W[j++];
      from[i] = j;
    }
    std::vector<double> x(r.n * d_), lp(r.n), llr(r.n);
    for (std::size_t i = 0; i < r.n; ++i) {
      std::copy(&x_[(r.first + from[i]) * d_], &x_[(r.first + from[i]) * d_] + d_, &x[i * d_]);
      lp[i] = lp_[r.first + from[i]];
      llr[i] = ll_[r.first + from[i]];
    }
    std::copy(x.begin(), x.end(), &x_[r.first * d_]);
    std::copy(lp.begin(), lp.end(), &lp_[r.first]);
    std::copy(llr.begin(), llr.end(), &ll_[r.first]);
    r.steps = r.proposed = r.accepted = 0;
    r.moving = true;
    r.stages.push_back(st);
  }

  // The Metropolis steps of every run still moving, each step of all of them one batch.
  void move() {
    std::vector<double> z(d_), y(d_);
    while (true) {
      std::vector<std::size_t> who, inside;
      std::vector<double> prop, pts, lpy;
      for (Run& r : runs_) {
        if (!r.moving) continue;
        const std::uint32_t block = static_cast<std::uint32_t>(r.stage * kMovesPerStage + r.steps);
        const double gamma = (r.steps + 1) % kJumpEvery == 0 ? 1.0 : r.scale * 2.38 / std::sqrt(2.0 * static_cast<double>(d_));
        for (std::size_t i = r.first; i < r.first + r.n; ++i) {
          for (std::size_t k = 0; k < d_; ++k)
            z[k] = rmath::normal_quantile(uniform(i * 64 + k / 2, kStreamStep, block, static_cast<int>(k % 2)));
          std::size_t pa, pb;
          pair(r, i, block, pa, pb);
          for (std::size_t a = 0; a < d_; ++a) {
            double s = x_[i * d_ + a] + gamma * (r.snap[pa * d_ + a] - r.snap[pb * d_ + a]);
            for (std::size_t b = 0; b <= a; ++b) s += r.chol[a * d_ + b] * z[b];
            y[a] = s;
          }
          const double l = finite_or_no_mass(t_.log_prior(y.data()));
          who.push_back(i);
          prop.insert(prop.end(), y.begin(), y.end());
          lpy.push_back(l);
          if (l > kNoMass) {
            inside.push_back(who.size() - 1);
            pts.insert(pts.end(), y.begin(), y.end());
          }
        }
      }
      if (who.empty()) return;
      std::vector<double> got, lly(who.size(), kNoMass);
      evaluate(inside, pts, got);
      for (std::size_t q = 0; q < inside.size(); ++q) lly[inside[q]] = got[q];
      std::size_t at = 0;
      for (Run& r : runs_) {
        if (!r.moving) continue;
        const std::uint32_t block = static_cast<std::uint32_t>(r.stage * kMovesPerStage + r.steps);
        for (std::size_t i = r.first; i < r.first + r.n; ++i, ++at) {
          const double now = lp_[i] + r.beta * ll_[i], then = lpy[at] + r.beta * lly[at];
          ++r.proposed;
          if (!(then > kNoMass)) continue;
          const double u = uniform(i, kStreamAccept, block, 0);
          if (!(now > kNoMass) || rmath::log(u) < then - now) {
            std::copy(&prop[at * d_], &prop[at * d_] + d_, &x_[i * d_]);
            lp_[i] = lpy[at];
            ll_[i] = lly[at];
            ++r.accepted;
          }
        }
        ++r.steps;
        const double acc = static_cast<double>(r.accepted) / static_cast<double>(r.proposed);
        const double need = acc >= 1   ? 1.0
                            : acc <= 0 ? static_cast<double>(o_.max_moves)
                                       : rmath::log(1 - o_.moved_probability) / rmath::log(1 - acc);
        if (r.steps >= o_.max_moves || (r.steps >= 2 && static_cast<double>(r.steps) >= need)) finish_stage(r, acc);
      }
    }
  }

  // Two particles of the run's snapshot, each drawn by its weight, the pair drawn again (up to 8
  // times) while they are one particle, and left as one (a zero difference) after that: each try
  // gives (a, b) with probability w_a w_b, so P(a, b) = P(b, a), the difference's law is symmetric
  // and the proposal a random walk (the snapshot is fixed during the stage: the kernel is the
  // Metropolis kernel of a fixed symmetric step). Redrawing only the second would weigh a pair by
  // its first particle's weight too, and break the symmetry.
  void pair(const Run& r, std::size_t i, std::uint32_t block, std::size_t& a, std::size_t& b) const {
    const auto pick = [&](double u) {
      const double at = u * r.cum.back();
      const std::size_t k = static_cast<std::size_t>(std::upper_bound(r.cum.begin(), r.cum.end(), at) - r.cum.begin());
      return std::min(k, r.n - 1);
    };
    for (std::uint64_t t = 0; t < 8; ++t) {
      a = pick(uniform(i * 8 + t, kStreamPair, block, 0));
      b = pick(uniform(i * 8 + t, kStreamPair, block, 1));
      if (a != b) return;
    }
  }

  void finish_stage(Run& r, double acc) {
    r.moving = false;
    SmcStage& st = r.stages.back();
    st.acceptance = acc;
    st.moves = r.steps;
    st.scale = r.scale;
    r.scale = std::clamp(r.scale * rmath::exp(2 * (acc - 0.234)), 1.0 / 16, 4.0);
    ++r.stage;
    if (r.beta >= 1) r.done = true;
  }

  SmcResult result() const {
    SmcResult s;
    s.dim = d_;
    s.particles = N_;
    s.runs = runs_.size();
    s.x = x_;
    s.log_like = ll_;
    s.log_prior = lp_;
    s.evaluations = eval_;
    s.failed = failed_;
    for (const Run& r : runs_) {
      s.stages.push_back(r.stages);
      s.run_log_z.push_back(r.log_z);
      s.finished = s.finished && r.done;
      for (std::size_t i = 0; i < r.n; ++i) s.run.push_back(static_cast<std::uint32_t>(&r - runs_.data()));
    }
    const double R = static_cast<double>(runs_.size());
    s.log_z = log_sum_exp(s.run_log_z.data(), s.run_log_z.size()) - rmath::log(R);
    double m = 0, v = 0;
    for (double z : s.run_log_z) m += z / R;
    for (double z : s.run_log_z) v += (z - m) * (z - m);
    s.log_z_se = R > 1 ? std::sqrt(v / (R - 1) / R) : std::nan("");
    return s;
  }

  const SmcTarget& t_;
  const SmcOptions& o_;
  const std::size_t d_, N_;
  const Philox rng_;
  std::vector<double> x_, lp_, ll_;
  std::vector<Run> runs_;
  std::uint64_t eval_ = 0, failed_ = 0;
};

void check(const SmcTarget& t, const SmcOptions& o) {
  if (t.dim == 0 || t.dim > 64) throw std::invalid_argument("calibrate: SMC samples 1 to 64 free parameters");
  if (o.runs < 2) throw std::invalid_argument("smc.runs: at least 2 (the evidence's error is their spread)");
  if (o.particles % o.runs != 0 || o.particles / o.runs < 2 * t.dim + 2)
    throw std::invalid_argument("smc.particles: a multiple of smc.runs (" + std::to_string(o.runs) + ") with at least " +
                                std::to_string(2 * t.dim + 2) + " per run, got " + std::to_string(o.particles));
  if (o.particles > (std::size_t(1) << 24)) throw std::invalid_argument("smc.particles: at most 2^24");
  if (!(o.ess_target > 0 && o.ess_target < 1)) throw std::invalid_argument("smc.ess_target: in (0, 1)");
  if (o.max_stages < 1) throw std::invalid_argument("smc.max_stages: at least 1");
  if (o.max_moves < 2 || o.max_moves >= kMovesPerStage)
    throw std::invalid_argument("smc.moves: from 2 to " + std::to_string(kMovesPerStage - 1));
  if (!(o.moved_probability > 0 && o.moved_probability < 1))
    throw std::invalid_argument("calibrate: the moved probability must be in (0, 1)");
}

// Union-find over m items.
struct Sets {
  std::vector<std::size_t> up;
  explicit Sets(std::size_t m) : up(m) { std::iota(up.begin(), up.end(), std::size_t{0}); }
  std::size_t root(std::size_t i) {
    while (up[i] != i) i = up[i] = up[up[i]];
    return i;
  }
  void join(std::size_t a, std::size_t b) {
    a = root(a), b = root(b);
    if (a != b) up[std::max(a, b)] = std::min(a, b);
  }
};

double quantile_of(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  const double h = p * static_cast<double>(v.size() - 1);
  const std::size_t lo = static_cast<std::size_t>(h);
  return lo + 1 >= v.size() ? v.back() : v[lo] + (h - static_cast<double>(lo)) * (v[lo + 1] - v[lo]);
}

}  // namespace

std::vector<SmcMode> find_modes(const std::vector<double>& x, std::size_t dim, const std::vector<double>& log_like,
                                std::vector<std::uint32_t>& label, double gap, double min_mass, double jump) {
  const std::size_t n = dim ? x.size() / dim : 0;
  label.assign(n, 0);
  if (n == 0) return {};
  // each parameter scaled by its pooled sd (a mode is compact against the distances between modes)
  std::vector<double> scale(dim, 1.0);
  for (std::size_t k = 0; k < dim; ++k) {
    double m = 0, v = 0;
    for (std::size_t i = 0; i < n; ++i) m += x[i * dim + k] / static_cast<double>(n);
    for (std::size_t i = 0; i < n; ++i) v += (x[i * dim + k] - m) * (x[i * dim + k] - m);
    const double sd = std::sqrt(v / static_cast<double>(n));
    if (sd > 0 && std::isfinite(sd)) scale[k] = sd;
  }
  const auto dist2 = [&](std::size_t a, std::size_t b) {
    double s = 0;
    for (std::size_t k = 0; k < dim; ++k) {
      const double t = (x[a * dim + k] - x[b * dim + k]) / scale[k];
      s += t * t;
    }
    return s;
  };
  // the distinct draws (resampled copies are one point), at most kMax of them, spread over the list
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return std::lexicographical_compare(&x[a * dim], &x[a * dim] + dim, &x[b * dim], &x[b * dim] + dim) ||
           (std::equal(&x[a * dim], &x[a * dim] + dim, &x[b * dim]) && a < b);
  });
  std::vector<std::size_t> distinct;
  for (std::size_t q = 0; q < n; ++q)
    if (q == 0 || !std::equal(&x[order[q] * dim], &x[order[q] * dim] + dim, &x[order[q - 1] * dim])) distinct.push_back(order[q]);
  constexpr std::size_t kMax = 3000;
  std::vector<std::size_t> pts;
  for (std::size_t q = 0; q < distinct.size(); ++q)
    if (distinct.size() <= kMax || q * kMax / distinct.size() != (q + 1) * kMax / distinct.size()) pts.push_back(distinct[q]);
  const std::size_t m = pts.size();
  // Prim's minimum spanning tree over them
  std::vector<double> best(m, HUGE_VAL);
  std::vector<std::size_t> parent(m, 0);
  std::vector<char> in(m, 0);
  std::vector<std::pair<double, std::pair<std::size_t, std::size_t>>> edges;
  best[0] = 0;
  for (std::size_t step = 0; step < m; ++step) {
    std::size_t u = m;
    for (std::size_t i = 0; i < m; ++i)
      if (!in[i] && (u == m || best[i] < best[u])) u = i;
    in[u] = 1;
    if (step > 0) edges.push_back({std::sqrt(best[u]), {parent[u], u}});
    for (std::size_t i = 0; i < m; ++i)
      if (!in[i]) {
        const double d2 = dist2(pts[u], pts[i]);
        if (d2 < best[i]) best[i] = d2, parent[i] = u;
      }
  }
  std::vector<double> lengths;
  lengths.reserve(edges.size());
  for (const auto& e : edges) lengths.push_back(e.first);
  const double typical = lengths.empty() ? 0.0 : quantile_of(lengths, 0.5);
  // an edge is a gap between modes when it is long against the tree's median edge AND against the
  // edges next to it: along a sparse tail the edges grow gradually, so none is long against its
  // neighbours, while the edge across a valley is long against the edges of both its ends
  std::vector<double> longest(m, 0.0), second(m, 0.0);  // per point: its two longest incident edges
  for (const auto& e : edges)
    for (std::size_t p : {e.second.first, e.second.second})
      if (e.first > longest[p]) second[p] = longest[p], longest[p] = e.first;
      else if (e.first > second[p]) second[p] = e.first;
  const auto other = [&](std::size_t p, double len) { return len >= longest[p] ? second[p] : longest[p]; };
  Sets sets(m);
  for (const auto& e : edges) {
    const double beside = std::max(other(e.second.first, e.first), other(e.second.second, e.first));
    if (!(e.first > gap * typical && e.first > jump * beside)) sets.join(e.second.first, e.second.second);
  }
  // every draw to the cluster of its nearest point of the tree
  std::vector<std::size_t> of(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t near = 0;
    double d2 = HUGE_VAL;
    for (std::size_t q = 0; q < m; ++q)
      if (const double t = dist2(i, pts[q]); t < d2) d2 = t, near = q;
    of[i] = sets.root(near);
  }
  // clusters below min_mass join the cluster of their nearest draw in a larger one, smallest first
  for (bool merged = true; merged;) {
    merged = false;
    std::vector<std::size_t> count(m, 0);
    for (std::size_t c : of) ++count[c];
    std::size_t small = m;
    for (std::size_t c = 0; c < m; ++c)
      if (count[c] > 0 && static_cast<double>(count[c]) < min_mass * static_cast<double>(n) &&
          (small == m || count[c] < count[small]))
        small = c;
    if (small == m) break;
    std::size_t to = m;  // over the tree's points: the nearest pair across
    double d2 = HUGE_VAL;
    for (std::size_t a = 0; a < m; ++a) {
      if (sets.root(a) != small) continue;
      for (std::size_t b = 0; b < m; ++b)
        if (const std::size_t rb = sets.root(b); rb != small && count[rb] > 0)
          if (const double t = dist2(pts[a], pts[b]); t < d2) d2 = t, to = rb;
    }
    if (to == m) break;  // one cluster left
    sets.join(small, to);
    for (std::size_t& c : of) c = sets.root(c);
    merged = true;
  }
  // modes by decreasing mass (then by their first draw)
  std::vector<std::size_t> ids;
  for (std::size_t c : of)
    if (std::find(ids.begin(), ids.end(), c) == ids.end()) ids.push_back(c);
  std::vector<std::size_t> count(m, 0);
  for (std::size_t c : of) ++count[c];
  std::stable_sort(ids.begin(), ids.end(), [&](std::size_t a, std::size_t b) { return count[a] > count[b]; });
  std::vector<SmcMode> modes(ids.size());
  for (std::size_t k = 0; k < ids.size(); ++k) {
    SmcMode& md = modes[k];
    std::vector<std::size_t> members;
    for (std::size_t i = 0; i < n; ++i)
      if (of[i] == ids[k]) members.push_back(i), label[i] = static_cast<std::uint32_t>(k);
    md.mass = static_cast<double>(members.size()) / static_cast<double>(n);
    md.log_like_max = -HUGE_VAL;
    for (std::size_t i : members)
      if (i < log_like.size()) md.log_like_max = std::max(md.log_like_max, log_like[i]);
    for (std::size_t p = 0; p < dim; ++p) {
      std::vector<double> v;
      v.reserve(members.size());
      for (std::size_t i : members) v.push_back(x[i * dim + p]);
      double mean = 0, ss = 0;
      for (double t : v) mean += t / static_cast<double>(v.size());
      for (double t : v) ss += (t - mean) * (t - mean);
      md.mean.push_back(mean);
      md.sd.push_back(v.size() > 1 ? std::sqrt(ss / static_cast<double>(v.size() - 1)) : 0.0);
      md.q05.push_back(quantile_of(v, 0.05));
      md.q50.push_back(quantile_of(v, 0.5));
      md.q95.push_back(quantile_of(v, 0.95));
    }
  }
  return modes;
}

std::size_t SmcResult::stage_count() const {
  std::size_t n = 0;
  for (const auto& s : stages) n = std::max(n, s.size());
  return n;
}

SmcResult run_smc(const SmcTarget& t, const SmcOptions& o, const std::function<void(double)>& progress) {
  return run_smc(t, o, progress, nullptr, {});
}

SmcResult run_smc(const SmcTarget& t, const SmcOptions& o, const std::function<void(double)>& progress, const SmcState* from,
                  const std::function<void(const SmcState&)>& after_stage) {
  check(t, o);
  return Smc(t, o).go(progress, from, after_stage);
}

}  // namespace impact::infer
