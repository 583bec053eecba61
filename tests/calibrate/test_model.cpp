// The calibration's model (calibrate/model.hpp) and the sampler together: data simulated from known
// parameters with Gaussian noise, and the posterior's 90% credible intervals cover the truth at a
// rate consistent with 90% over 50 replicates; the log posterior is the prior plus the Gaussian
// log likelihood of the study's own outputs; what the model cannot evaluate, and bad data, are said.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h>

#include "infer/ensemble.hpp"
#include "infer/fit.hpp"
#include "infer/smc.hpp"
#include "errors.hpp"
#include "calibrate/model.hpp"
#include "calibrate/run.hpp"
#include "infer/summary.hpp"
#include "design/param_text.hpp"
#include "engine/registry.hpp"

using namespace impact;
using namespace impact::calibrate;

namespace {

const systems::ScenarioInfo& ball() { return *systems::find_scenario("ball"); }

design::ParamSpec prior(const std::string& name, const std::string& text) {
  return design::parse_param_text(name, "params." + name, text);
}

// 24 ball impacts: incoming V0x in [-6, 6] and spin w0y in [-4, 4] vary (the conditions), V0z = -3,
// so that some slide throughout (they inform mu) and some end in stick; observed the rebound Vx and
// Vz with noise sd `noise`, from chatterjee-ruina at (mu, e).
Experiments simulate(std::uint64_t seed, double mu, double e, double noise) {
  Experiments d;
  d.conditions = {"V0x", "w0y"};
  d.observed = {"Vx", "Vz"};
  d.n = 24;
  for (std::size_t i = 0; i < d.n; ++i) {
    d.cond.push_back(-6.0 + 12.0 * static_cast<double>(i) / 23.0);
    d.cond.push_back(2.0 * (static_cast<double>(i % 5) - 2.0));
  }
  d.obs.assign(d.n * 2, 0.0);
  d.sigma.assign(d.n * 2, noise);
  Model truth(ball(), *engine::find_law("chatterjee-ruina"), engine::Backend::serial, engine::Precision::f64,
              engine::law_options(250, Integrator::rk4), {{"V0z", -3.0}}, {prior("mu", "uniform:0:1"), prior("e", "uniform:0:1")},
              d);
  const double theta[2] = {mu, e};
  std::vector<double> m;
  std::vector<std::uint8_t> st;
  truth.predict(theta, m, st);
  std::mt19937_64 g(seed);
  std::normal_distribution<double> n(0.0, noise);
  for (std::size_t i = 0; i < m.size(); ++i) {
    EXPECT_EQ(st[i / 2], 0);
    d.obs[i] = m[i] + n(g);
  }
  return d;
}

Model model_of(Experiments d) {
  return Model(ball(), *engine::find_law("chatterjee-ruina"), engine::Backend::serial, engine::Precision::f64,
               engine::law_options(250, Integrator::rk4), {{"V0z", -3.0}},
               {prior("mu", "uniform:0:1"), prior("e", "uniform:0:1")}, std::move(d));
}

}  // namespace

TEST(CalibrateModel, LogPosteriorIsPriorPlusGaussianLikelihood) {
  Model m = model_of(simulate(1, 0.3, 0.6, 0.02));
  const double theta[2] = {0.35, 0.55};
  double lp = 0;
  m.log_posterior(theta, 1, &lp);
  std::vector<double> pred;
  std::vector<std::uint8_t> st;
  m.predict(theta, pred, st);
  double want = 0;  // the uniform priors on [0, 1] have log density 0
  for (std::size_t i = 0; i < pred.size(); ++i) {
    const double z = (m.data().obs[i] - pred[i]) / 0.02;
    want += -0.5 * z * z - std::log(0.02) - 0.5 * std::log(2 * M_PI);
  }
  EXPECT_NEAR(lp, want, 1e-9 * std::fabs(want));
  // outside the prior: -inf, and the law is not asked
  const std::uint64_t rows = m.rows_evaluated();
  const double out[4] = {1.5, 0.5, 0.3, -0.1};
  double lps[2];
  m.log_posterior(out, 2, lps);
  EXPECT_EQ(lps[0], -HUGE_VAL);
  EXPECT_EQ(lps[1], -HUGE_VAL);
  EXPECT_EQ(m.rows_evaluated(), rows);
  // the likelihood alone evaluates every point, whatever its prior: mu = 1.5 is a friction the law
  // takes; inside the prior it is the posterior less the log prior (0 here), bit for bit
  double ll[2];
  m.log_likelihood(out, 2, ll);
  EXPECT_TRUE(std::isfinite(ll[0])) << ll[0];
  EXPECT_EQ(m.rows_evaluated(), rows + 2 * 24);
  double at[1];
  m.log_likelihood(theta, 1, at);
  EXPECT_EQ(at[0], lp);
}

// A named backend is taken as named, with no reason given; cuda named without a usable device is
// refused saying why (`auto`'s trial: AutoTimesATrialBatch).
TEST(CalibrateModel, NamedBackendIsTaken) {
  CalibrateRequest q;
  q.config = std::string(IMPACT_SOURCE_ROOT) + "/examples/calibration/ball-synthetic.toml";
  for (const char* b : {"serial", "omp"}) {
    q.backend = b;
    std::string why = "unset";
    const std::unique_ptr<Model> m = make_model(load_calibrate_config(q), &why);
    EXPECT_EQ(engine::backend_name(m->backend()), std::string(b));
    EXPECT_EQ(why, "");
  }
  if (engine::cuda_usable()) GTEST_SKIP() << "a usable GPU: cuda is not refused here";
  q.backend = "cuda";
  EXPECT_THROW(make_model(load_calibrate_config(q)), std::invalid_argument);
}

// Free law parameters only: the experiments' instances are built once and their law parameters set
// per point. The same bits as building every row, in double and in float, for jia and stronge too.
TEST(CalibrateModel, ReusedInstancesGiveTheSameBits) {
  for (const char* law : {"chatterjee-ruina", "jia", "stronge"})
    for (engine::Precision prec : {engine::Precision::f64, engine::Precision::f32}) {
      SCOPED_TRACE(std::string(law) + (prec == engine::Precision::f32 ? " float" : " double"));
      Experiments d = simulate(3, 0.3, 0.6, 0.02);
      d.observed = {"Vx", "Vz", "wy", "P_t"};
      d.obs.assign(d.n * 4, 0.5);
      d.sigma.assign(d.n * 4, 0.1);
      const auto make = [&] {
        return Model(ball(), *engine::find_law(law), engine::Backend::serial, prec, engine::law_options(100, Integrator::rk4),
                     {{"V0z", -3.0}}, {prior("mu", "uniform:0:1"), prior("e", "uniform:0:1"), prior("eta0", "lognormal:0:0.5")},
                     d);
      };
      Model fast = make(), slow = make();
      slow.set_reuse_instances(false);
      EXPECT_TRUE(fast.reuses_instances());
      EXPECT_FALSE(slow.reuses_instances());
      std::vector<double> theta;
      std::mt19937_64 g(4);
      std::uniform_real_distribution<double> u(0.05, 0.95);
      for (int p = 0; p < 12; ++p) theta.insert(theta.end(), {u(g), u(g), 0.5 + u(g)});
      std::vector<double> a(12), b(12);
      fast.log_posterior(theta.data(), 12, a.data());
      slow.log_posterior(theta.data(), 12, b.data());
      for (int p = 0; p < 12; ++p) {
        EXPECT_TRUE(std::isfinite(a[p]));
        EXPECT_EQ(std::memcmp(&a[p], &b[p], sizeof(double)), 0) << a[p] << " vs " << b[p];
      }
    }
  // a free geometric parameter: every row is built
  const Experiments d = simulate(3, 0.3, 0.6, 0.02);
  Model m(ball(), *engine::find_law("newton"), engine::Backend::serial, engine::Precision::f64,
          engine::law_options(100, Integrator::rk4), {}, {prior("mu", "uniform:0:1"), prior("r", "uniform:0.5:2")}, d);
  EXPECT_FALSE(m.reuses_instances());
}

TEST(CalibrateModel, BadModelsAreSaid) {
  const auto message = [](auto&& f) { return impact::test::invalid_argument_of(f); };
  const Experiments d = simulate(2, 0.3, 0.6, 0.02);
  const engine::LawInfo& cr = *engine::find_law("chatterjee-ruina");
  const LawOptions opt = engine::law_options(250, Integrator::rk4);
  EXPECT_NE(message([&] {
              Model(ball(), cr, engine::Backend::serial, engine::Precision::f64, opt, {}, {prior("nu", "uniform:0:1")}, d);
            }).find("free parameter 'nu' is no parameter of scenario ball"),
            std::string::npos);
  EXPECT_NE(message([&] {
              Model(ball(), cr, engine::Backend::serial, engine::Precision::f64, opt, {}, {prior("V0x", "uniform:0:1")}, d);
            }).find("'V0x' is both a free parameter and a condition"),
            std::string::npos);
  EXPECT_NE(message([&] {
              Model(ball(), cr, engine::Backend::serial, engine::Precision::f64, opt, {}, {prior("mu", "0.3")}, d);
            }).find("params.mu: a free parameter's prior is a distribution"),
            std::string::npos);
  Experiments bad = d;
  bad.observed[1] = "Vq";
  EXPECT_NE(message([&] {
              Model(ball(), cr, engine::Backend::serial, engine::Precision::f64, opt, {}, {prior("mu", "uniform:0:1")}, bad);
            }).find("observed 'Vq' is no output of chatterjee-ruina in scenario ball (known: P_x"),
            std::string::npos);
  bad = d;
  bad.sigma[5] = 0;
  EXPECT_EQ(message([&] {
              Model(ball(), cr, engine::Backend::serial, engine::Precision::f64, opt, {}, {prior("mu", "uniform:0:1")}, bad);
            }),
            "experiment 3: the uncertainty of Vz must be finite and > 0");
  // e > 1 is outside the law's domain: likelihood 0, not a failure
  Model m = Model(ball(), cr, engine::Backend::serial, engine::Precision::f64, opt, {{"V0z", -3.0}},
                  {prior("mu", "uniform:0:1"), prior("e", "uniform:0:2")}, d);
  const double theta[2] = {0.3, 1.5};
  double lp = 0;
  m.log_posterior(theta, 1, &lp);
  EXPECT_EQ(lp, -HUGE_VAL);
}

// Coverage: 50 data sets from mu = 0.3, e = 0.6; each one's 90% central credible interval of mu and
// of e. Over the 100 intervals the count covering the truth is Binomial(100, 0.9) if the posterior
// is right: 90 +- 3; below 80 (p < 0.001) it is not.
TEST(CalibrateModel, CredibleIntervalsCoverTheTruth) {
  int covered[2] = {0, 0};
  double worst_rhat_like = 0;
  const int replicates = 50;
  for (int r = 0; r < replicates; ++r) {
    Model m = model_of(simulate(100 + r, 0.3, 0.6, 0.02));
    EnsembleOptions o;
    o.walkers = 16;
    o.steps = 1200;
    o.seed = 1000 + r;
    std::vector<double> start;
    std::mt19937_64 g(r);
    std::uniform_real_distribution<double> u(0.1, 0.9);
    for (std::size_t w = 0; w < o.walkers * 2; ++w) start.push_back(u(g));
    const EnsembleChain c = run_ensemble(
        start, 2, [&](const double* x, std::size_t n, double* out) { m.log_posterior(x, n, out); }, o);
    const std::vector<ParamSummary> s = summarize(c, 400, {0.05, 0.5, 0.95});
    const double truth[2] = {0.3, 0.6};
    for (int k = 0; k < 2; ++k) {
      covered[k] += s[k].quantiles[0] <= truth[k] && truth[k] <= s[k].quantiles[2];
      worst_rhat_like = std::max(worst_rhat_like, s[k].tau);
      EXPECT_LT(s[k].sd, 0.05) << "replicate " << r << " param " << k << " mean " << s[k].mean;  // the data do inform
    }
    EXPECT_EQ(c.failed_proposals, 0u);
  }
  const int total = covered[0] + covered[1];
  EXPECT_GE(total, 80) << "mu " << covered[0] << "/50, e " << covered[1] << "/50";
  EXPECT_LE(total, 99);
  RecordProperty("coverage_mu", covered[0]);
  RecordProperty("coverage_e", covered[1]);
  RecordProperty("largest_tau", std::to_string(worst_rhat_like));
  std::printf("coverage of the 90%% intervals: mu %d/50, e %d/50; largest tau %.1f steps\n", covered[0], covered[1],
              worst_rhat_like);
}

// The fit method's coverage: over the same 50 data sets, the 90% intervals of the Laplace normal at
// the maximum (calibrate.method = fit) cover the truth at a rate consistent with 90% (the same
// binomial bounds), and each estimate lies within 4 Laplace sds of the truth.
TEST(CalibrateModel, LaplaceIntervalsOfTheFitCoverTheTruth) {
  int covered[2] = {0, 0};
  const int replicates = 50;
  for (int r = 0; r < replicates; ++r) {
    Model m = model_of(simulate(100 + r, 0.3, 0.6, 0.02));
    const std::vector<double> starts = start_from_prior(m, 4, 1000 + r);
    const FitResult f = fit_map([&](const double* x, std::size_t n, double* out) { m.log_posterior(x, n, out); }, 2, starts,
                                {0, 0}, {1, 1}, {0.9, 0.9}, FitOptions{});
    ASSERT_EQ(f.cov.size(), 4u) << "replicate " << r << ": " << f.laplace_note;
    const double truth[2] = {0.3, 0.6};
    for (int k = 0; k < 2; ++k) {
      const double lo = f.map[k] - 1.6448536269514722 * f.sd[k], hi = f.map[k] + 1.6448536269514722 * f.sd[k];
      covered[k] += lo <= truth[k] && truth[k] <= hi;
      EXPECT_LT(std::fabs(f.map[k] - truth[k]), 4 * f.sd[k]) << "replicate " << r << " param " << k;
      EXPECT_LT(f.sd[k], 0.05);
    }
  }
  const int total = covered[0] + covered[1];
  EXPECT_GE(total, 80) << "mu " << covered[0] << "/50, e " << covered[1] << "/50";
  EXPECT_LE(total, 99);
  RecordProperty("fit_coverage_mu", covered[0]);
  RecordProperty("fit_coverage_e", covered[1]);
  std::printf("coverage of the fit's 90%% Laplace intervals: mu %d/50, e %d/50\n", covered[0], covered[1]);
}

// `auto`: each backend times batches of the method's own points at two sizes (the ensemble's batch:
// half its 16 walkers, 8 points, x 24 experiments = 192 rows, and 1 point, 24 rows) on omp, serial
// (under kParallelRows rows) and (with a usable GPU) cuda, and is modelled as fixed cost + rows /
// rate; the reason gives every line and its time for the method's batch, and the model runs on the
// least.
namespace {
double text_seconds(const std::string& t) {  // "17 us", "1.2 ms", "3 s"
  const double v = std::stod(t);
  return t.find(" us") != std::string::npos ? v * 1e-6 : t.find(" ms") != std::string::npos ? v * 1e-3 : v;
}
}  // namespace

TEST(CalibrateModel, AutoModelsEachBackendFromTwoTrialBatches) {
  CalibrateRequest q;
  q.config = std::string(IMPACT_SOURCE_ROOT) + "/examples/calibration/ball-synthetic.toml";
  for (const char* law : {"chatterjee-ruina", "jia"}) {
    q.sets = {std::string("calibrate.law=\"") + law + "\"", "calibrate.method=\"ensemble\""};
    const CalibrateConfig c = load_calibrate_config(q);
    std::string why;
    const std::unique_ptr<Model> m = make_model(c, &why);
    const std::string head = " (auto: trial batches of 24 and 192 rows: ", tail = " for a batch of 192 rows: ";
    ASSERT_EQ(why.rfind(head, 0), 0u) << why;
    const std::size_t at_tail = why.find(tail);
    ASSERT_NE(at_tail, std::string::npos) << why;
    // the choice, then why cuda was not timed where it was not (a machine without a usable device)
    const std::string chosen_and_aside = why.substr(at_tail + tail.size()), name = engine::backend_name(m->backend());
    const bool cuda_timed = why.find(" cuda ") != std::string::npos && why.find("cuda not a candidate") == std::string::npos;
    EXPECT_EQ(chosen_and_aside.rfind(name + (cuda_timed ? ")" : "; cuda not a candidate: "), 0), 0u) << why;
    EXPECT_EQ(why.back(), ')') << why;
    // "omp 5 us + rows / 2e+06/s = 17 us; serial ...": the model's backend has the least time (as
    // printed, to 3 digits: two that print alike are a tie the reason cannot break)
    const std::string lines = why.substr(head.size(), at_tail - head.size());
    double least = HUGE_VAL, chosen = HUGE_VAL;
    int named = 0;
    for (std::size_t at = 0; at < lines.size();) {
      std::size_t end = lines.find("; ", at);
      if (end == std::string::npos) end = lines.size();
      const std::string part = lines.substr(at, end - at);
      const std::string b = part.substr(0, part.find(' '));
      const double t = text_seconds(part.substr(part.rfind(" = ") + 3));
      least = std::min(least, t);
      if (b == engine::backend_name(m->backend())) chosen = t;
      ++named;
      at = end + 2;
    }
    EXPECT_EQ(named, 1 + (omp_get_max_threads() > 1 ? 1 : 0) + (engine::cuda_usable() ? 1 : 0)) << why;
    EXPECT_EQ(chosen, least) << why;
    std::printf("calibrate auto, %s: %s%s\n", law, engine::backend_name(m->backend()), why.c_str());
  }
}

// A noise parameter sigma_<output>: the likelihood is the Gaussian's with that sd for every
// experiment (its normalisation -E log s included), the data's sigma for the other outputs; a sd
// <= 0 has likelihood 0; its prior is the config's; it does not touch the law's instances.
TEST(CalibrateModel, NoiseParameterIsTheGaussiansSd) {
  Experiments d = simulate(3, 0.3, 0.6, 0.02);
  for (std::size_t i = 0; i < d.n; ++i) d.sigma[i * 2] = std::nan("");  // Vx: by the noise parameter
  Model m(ball(), *engine::find_law("chatterjee-ruina"), engine::Backend::serial, engine::Precision::f64,
          engine::law_options(250, Integrator::rk4), {{"V0z", -3.0}},
          {prior("mu", "uniform:0:1"), prior("e", "uniform:0:1"), prior("sigma_Vx", "lognormal:-4:1")}, d);
  EXPECT_EQ(m.noise_param(0), 2);
  EXPECT_EQ(m.noise_param(1), -1);
  EXPECT_TRUE(m.reuses_instances());
  const double theta[3] = {0.32, 0.58, 0.035};
  double ll = 0;
  m.log_likelihood(theta, 1, &ll);
  std::vector<double> pred;
  std::vector<std::uint8_t> st;
  m.predict(theta, pred, st);
  double want = 0;
  for (std::size_t i = 0; i < d.n; ++i)
    for (std::size_t j = 0; j < 2; ++j) {
      const double sd = j == 0 ? 0.035 : 0.02, z = (d.obs[i * 2 + j] - pred[i * 2 + j]) / sd;
      want += -0.5 * z * z - std::log(sd) - 0.5 * std::log(2 * M_PI);
    }
  EXPECT_NEAR(ll, want, 1e-9 * std::fabs(want));
  double lp = 0;
  m.log_posterior(theta, 1, &lp);
  EXPECT_NEAR(lp, ll + m.log_prior(theta), 1e-12 * std::fabs(lp));
  const double bad[3] = {0.32, 0.58, 0.0};
  m.log_likelihood(bad, 1, &ll);
  EXPECT_EQ(ll, -HUGE_VAL);
}

// Stranded walkers: those whose best log posterior after the burn-in stays more than the gap below
// the median walker's mean.
TEST(CalibrateModel, StrandedWalkersAreThoseFarBelowTheBulk) {
  EnsembleChain c;
  c.walkers = 6, c.dim = 1, c.steps = 10;
  c.x.assign(c.steps * c.walkers, 0.0);
  c.logp.assign(c.steps * c.walkers, 0.0);
  for (std::uint64_t s = 0; s < c.steps; ++s)
    for (std::size_t w = 0; w < c.walkers; ++w)
      c.logp[s * c.walkers + w] = w == 2 ? -50.0 : w == 4 ? (s == 9 ? -5.0 : -60.0) : -1.0 - 0.1 * static_cast<double>(w);
  EXPECT_EQ(stranded_walkers(c, 2), (std::vector<std::size_t>{2}));  // walker 4 reached the bulk once
  EXPECT_EQ(stranded_walkers(c, 2, 100.0), (std::vector<std::size_t>{}));
}

// A batch is evaluated in pieces of rows (Model::kMaxPieceRows, sized by time): one call on many
// points gives each point the bits of its own call, a noise parameter <= 0, a row outside the
// domain and a failed row included; the predictive over a range of experiments is that range of
// the whole.
TEST(CalibrateModel, PiecesOfABatchChangeNoBit) {
  Experiments d = simulate(9, 0.3, 0.6, 0.02);
  const std::size_t copies = 120;  // 2880 experiments: a batch of 300 points is 864000 rows
  Experiments big = d;
  for (std::size_t k = 1; k < copies; ++k) {
    big.cond.insert(big.cond.end(), d.cond.begin(), d.cond.end());
    big.obs.insert(big.obs.end(), d.obs.begin(), d.obs.end());
    big.sigma.insert(big.sigma.end(), d.sigma.begin(), d.sigma.end());
  }
  big.n = d.n * copies;
  big.observed = {"Vx", "Vz"};
  Model m(ball(), *engine::find_law("chatterjee-ruina"), engine::Backend::serial, engine::Precision::f64,
          engine::law_options(250, Integrator::rk4), {{"V0z", -3.0}},
          {prior("mu", "uniform:0:1"), prior("e", "uniform:-0.5:1"), prior("sigma_Vz", "uniform:-1:1")}, big);
  std::vector<double> theta;
  std::mt19937_64 g(2);
  std::uniform_real_distribution<double> u(0.01, 0.99), v(-0.2, 0.3);
  const std::size_t n = 300;
  for (std::size_t p = 0; p < n; ++p) theta.insert(theta.end(), {u(g), p % 7 == 3 ? -0.25 : u(g), v(g)});
  std::vector<double> all(n), one(1);
  m.log_likelihood(theta.data(), n, all.data());
  std::size_t finite = 0, minus_inf = 0;
  for (std::size_t p = 0; p < n; ++p) {
    m.log_likelihood(&theta[p * 3], 1, one.data());
    EXPECT_EQ(std::memcmp(&one[0], &all[p], sizeof(double)), 0) << p << ": " << one[0] << " vs " << all[p];
    finite += std::isfinite(all[p]);
    minus_inf += all[p] == -HUGE_VAL;
  }
  EXPECT_GT(finite, n / 3);
  EXPECT_GT(minus_inf, 0u);  // e < 0 or a noise sd <= 0
  std::vector<double> whole, part;
  std::vector<std::uint8_t> sw, sp;
  m.predict(theta.data(), 2, whole, sw);
  m.predict(theta.data(), 2, part, sp, 100, 1300);
  ASSERT_EQ(part.size(), 2u * 1200u * 2u);
  for (std::size_t q = 0; q < 2; ++q)
    for (std::size_t i = 100; i < 1300; ++i) {
      EXPECT_EQ(sp[q * 1200 + i - 100], sw[q * big.n + i]);
      for (std::size_t j = 0; j < 2; ++j)
        EXPECT_EQ(std::memcmp(&part[(q * 1200 + i - 100) * 2 + j], &whole[(q * big.n + i) * 2 + j], sizeof(double)), 0);
    }
}

// What a calibration holds at once is checked before the sampler starts, naming the key to lower:
// the chain (mcmc.steps), a batch's points (mcmc.walkers, fit.starts); a piece of rows is bounded by
// the budget whatever the data's size.
TEST(CalibrateModel, MemoryIsCheckedBeforeTheChainNamingTheKey) {
  CalibrateRequest q;
  q.config = std::string(IMPACT_SOURCE_ROOT) + "/examples/calibration/ball-synthetic.toml";
  q.backend = "serial";
  const std::unique_ptr<Model> m = make_model(load_calibrate_config(q));
  const auto refusal = [&](const std::vector<std::string>& sets, double budget) {
    CalibrateRequest r = q;
    r.sets = sets;
    try {
      check_memory(load_calibrate_config(r), *m, budget);
    } catch (const std::invalid_argument& e) { return std::string(e.what()); }
    return std::string();
  };
  EXPECT_EQ(refusal({}, 1e9), "");
  const std::string ens = "calibrate.method=\"ensemble\"";
  const std::string chain = refusal({ens, "mcmc.steps=1000000", "mcmc.walkers=64"}, 1e9);  // 1.5 GB of chain
  EXPECT_EQ(chain.rfind("mcmc.steps: the chain of 64 walkers x 1000000 steps needs", 0), 0u) << chain;
  const std::string walkers = refusal({ens, "mcmc.steps=2", "mcmc.walkers=1048576"}, 1.2e8);  // 117 MB of points
  EXPECT_EQ(walkers.rfind("mcmc.walkers: a batch of 1048576 points needs", 0), 0u) << walkers;
  EXPECT_NE(walkers.find("fewer walkers"), std::string::npos) << walkers;
  const std::string particles = refusal({"smc.particles=1048576"}, 1.2e8);  // the default method's batch
  EXPECT_EQ(particles.rfind("smc.particles: a batch of 1048576 points needs", 0), 0u) << particles;
  EXPECT_NE(particles.find("fewer particles"), std::string::npos) << particles;
  const std::string starts = refusal({"calibrate.method=\"fit\"", "fit.starts=100000"}, 1e7);
  EXPECT_EQ(starts.rfind("fit.starts: a batch of 100000 points needs", 0), 0u) << starts;
  const std::string design = refusal({"calibrate.method=\"fit\"", "fit.global=4194304"}, 1e8);  // 235 MB of design
  EXPECT_EQ(design.rfind("fit.global: a design of 4194304 points needs", 0), 0u) << design;
  EXPECT_EQ(refusal({"calibrate.method=\"fit\"", "fit.global=4194304"}, 1e9), "");
  // the piece: half the budget at most, whatever the batch
  EXPECT_LE(static_cast<double>(m->piece_rows_limit(1e7)) * m->row_bytes(), 0.5e7);
  EXPECT_EQ(m->piece_rows_limit(1e12), kMaxPieceRows);
}

// SMC on the model (calibrate.method = smc): newton on the contact scenario observes
// vf_z = e vn (normal restitution) with Gaussian noise sd s, e uniform on [0, 1]: the likelihood is a
// Gaussian in e, so Z has a closed form, log Z = C + log(sqrt(2 pi) t) + log(Phi((1 - e^)/t) -
// Phi(-e^/t)), e^ = S_ay / S_aa, t = s / sqrt(S_aa), C = -n/2 log(2 pi s^2) - (S_yy - S_ay^2 / S_aa) /
// (2 s^2). SMC's log Z within 3 se of it (se <= 0.1); its posterior mean of e within 4 se of e^'s
// truncated normal mean.
TEST(CalibrateModel, SmcEvidenceOfNewtonAgainstItsClosedForm) {
  const systems::ScenarioInfo& contact = *systems::find_scenario("contact");
  Experiments d;
  d.conditions = {"vn"};
  d.observed = {"vf_z"};
  const double s = 0.05, e_true = 0.62;
  std::mt19937_64 g(12);
  std::normal_distribution<double> noise(0.0, s);
  double Saa = 0, Say = 0, Syy = 0;
  for (int i = 0; i < 30; ++i) {
    const double vn = 0.5 + 0.1 * i, y = e_true * vn + noise(g);
    d.cond.push_back(vn);
    d.obs.push_back(y);
    d.sigma.push_back(s);
    Saa += vn * vn, Say += vn * y, Syy += y * y;
  }
  d.n = 30;
  Model m(contact, *engine::find_law("newton"), engine::Backend::serial, engine::Precision::f64,
          engine::law_options(250, Integrator::rk4), {}, {prior("e", "uniform:0:1")}, d);
  const double eh = Say / Saa, t = s / std::sqrt(Saa);
  const double C = -0.5 * 30 * std::log(2 * M_PI * s * s) - (Syy - Say * Say / Saa) / (2 * s * s);
  const auto Phi = [](double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); };
  const double exact = C + std::log(std::sqrt(2 * M_PI) * t) + std::log(Phi((1 - eh) / t) - Phi(-eh / t));
  infer::SmcTarget target;
  target.dim = 1;
  target.log_prior = [&](const double* x) { return m.log_prior(x); };
  target.from_uniforms = [&](const double* u, double* x) { x[0] = m.free()[0].quantile(u[0]); };
  target.log_likelihood = [&](const double* x, std::size_t n, double* out) { m.log_likelihood(x, n, out); };
  infer::SmcOptions o;
  o.particles = 2048;
  o.seed = 4;
  const infer::SmcResult r = infer::run_smc(target, o);
  EXPECT_LE(r.log_z_se, 0.1);
  EXPECT_LT(std::fabs(r.log_z - exact), 3 * r.log_z_se) << r.log_z << " +- " << r.log_z_se << " vs " << exact;
  double mean = 0;
  for (double x : r.x) mean += x / static_cast<double>(r.x.size());
  EXPECT_NEAR(mean, eh, 4 * t / std::sqrt(2048.0 / 4)) << "e^ " << eh;
  std::printf("SMC newton: log Z %.4f +- %.4f, closed form %.4f; e mean %.5f, e^ %.5f\n", r.log_z, r.log_z_se, exact, mean, eh);
}

// SMC through the cuda backend (the particles' batch on the GPU): the same config as on omp gives
// the posterior and the evidence within their errors (cuda is held to tolerances, not bits: its
// rows differ from the CPU's in their last bits, and a particle's accept/reject may follow).
TEST(CudaCalibrate, SmcAgreesWithTheCpu) {  // a Cuda* suite: gpu_check's step 2 runs it
  if (!engine::cuda_usable()) GTEST_SKIP() << "no usable CUDA device here: SMC on cuda is checked on a GPU machine";
  const std::string dir = ::testing::TempDir() + "smc-cuda-" + std::to_string(::getpid()) + "-";
  CalibrationOutcome o[2];
  const char* backends[2] = {"omp", "cuda"};
  for (int k = 0; k < 2; ++k) {
    CalibrateRequest q;
    q.config = std::string(IMPACT_SOURCE_ROOT) + "/examples/calibration/cornell-jia.toml";
    q.backend = backends[k];
    q.out = dir + backends[k];
    q.sets = {"smc.particles=2048", "output.plots=false"};
    o[k] = run_calibration(load_calibrate_config(q), true, nullptr);
    EXPECT_EQ(engine::backend_name(o[k].backend), std::string(backends[k]));
  }
  const double se = std::hypot(o[0].log_z_se, o[1].log_z_se);
  EXPECT_LT(std::fabs(o[0].log_z - o[1].log_z), 4 * se) << o[0].log_z << " vs " << o[1].log_z;
  ASSERT_FALSE(o[0].modes.empty() || o[1].modes.empty());
  EXPECT_NEAR(o[0].modes[0].mass, o[1].modes[0].mass, 0.05);
  for (std::size_t p = 0; p < o[0].params.size(); ++p) {
    // the mean's Monte Carlo error from each run's ESS
    const double e0 = o[0].params[p].sd / std::sqrt(o[0].params[p].ess), e1 = o[1].params[p].sd / std::sqrt(o[1].params[p].ess);
    EXPECT_LT(std::fabs(o[0].params[p].mean - o[1].params[p].mean), 4 * std::hypot(e0, e1)) << o[0].names[p];
  }
  std::printf("SMC on cuda: log Z %.4f +- %.4f (omp %.4f +- %.4f), %.1f s (omp %.1f s)\n", o[1].log_z, o[1].log_z_se, o[0].log_z,
              o[0].log_z_se, o[1].seconds, o[0].seconds);
  for (const char* b : backends) std::filesystem::remove_all(dir + b);
}
