// Regime-key ordering of the integrators on the GPU (kernels/cuda, docs/bench.md "SIMT model"): the
// keys themselves (every machine), and on a CUDA device that the sorted evaluation leaves every
// output row byte-identical to the unsorted one, in the same row order, and that the sorted
// reduction counts exactly what the unsorted one counts.
#include <gtest/gtest.h>

#include "device.hpp"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "batch_buffers.hpp"
#include "engine/registry.hpp"
#include "impact/laws/jia.hpp"
#include "impact/laws/stronge.hpp"
#include "impact/laws/newton.hpp"
#include "kernels/batch.hpp"
#include "kernels/sampled.hpp"
#include "systems/sample_spec.hpp"

using namespace impact;
using impact::testing::Buffers;
using impact::testing::instances;

static_assert(HasRegimeKey<JiaLaw>::value && HasRegimeKey<StrongeLaw>::value, "the integrators carry regime keys");

namespace {

ContactProblem<double> sphere_hit(double vt, double vz, double mu, double eta0, bool planar) {
  ContactProblem<double> p = instances(1)[0];
  p.W = Sym3<double>{1.0, 0.0, 0.0, 1.0, 0.0, 1.0};
  if (!planar) p.W.xy = 0.3, p.W.yz = 0.2;  // couples w to u and to n
  p.n = Vec3<double>{0, 0, 1};
  p.v0 = Vec3<double>{vt, 0, -vz};
  p.mu = mu;
  p.e = 0.5;
  p.eta0 = eta0;
  return p;
}

}  // namespace

TEST(RegimeKey, OrdersBySlipRatioAfterPlanarity) {
  // jia: kappa = |v0_t| / (mu eta0^2 |v0_n|); below 1 the contact starts in stick (Proposition 1)
  const auto key = [](double vt, double mu, bool planar) {
    return LaunchTraits<JiaLaw>::regime_key(sphere_hit(vt, 1.0, mu, 1.0, planar));
  };
  EXPECT_LT(key(0.5, 1.0, true), 1024u);                  // planar, kappa 1/2
  EXPECT_GE(key(0.5, 1.0, false), 1024u);                 // 3D after every planar key
  EXPECT_LT(key(0.5, 1.0, false) & 1023u, 512u);          // kappa < 1: initial stick
  EXPECT_GE(key(2.0, 1.0, false) & 1023u, 512u);          // kappa > 1: initial slip
  EXPECT_LT(key(0.2, 1.0, false), key(0.4, 1.0, false));  // one octave apart: 8 key steps
  EXPECT_EQ(key(0.4, 1.0, false) - key(0.2, 1.0, false), 8u);
  EXPECT_EQ(key(1.0, 0.0, false), 1024u + 1023u);  // mu = 0: the top
  EXPECT_EQ(key(0.0, 1.0, false) & 1023u, 0u);     // normal incidence: the bottom
  // stronge: eta0 plays no part
  EXPECT_EQ(LaunchTraits<StrongeLaw>::regime_key(sphere_hit(0.5, 1.0, 1.0, 1.0, false)),
            LaunchTraits<StrongeLaw>::regime_key(sphere_hit(0.5, 1.0, 1.0, 3.0, false)));
}

// The descent term of stronge's key (LaunchTraits<StrongeLaw>::descent_steps): 1.5 (R / |g*|)^(1/2), g* the decay
// rate d|v_t|/dp on the ray the slip direction turns to from t1. With D = I and mu = 1, F(u) = b - u:
// for b = 0 every direction is a ray (g* = -1, R = |D|_F = sqrt 2); for b = (0.3, 0.4) the direction
// turns (k(0) = b2 > 0) to u = b / |b|, where g* = |b| - 1 = -0.5 and R = |b| + sqrt 2; with b = 0
// and mu = 0 nothing decays.
TEST(RegimeKey, StrongeDescentTermFollowsTheApproachedRay) {
  using S = detail::stronge::System<double>;
  EXPECT_NEAR(LaunchTraits<StrongeLaw>::descent_steps(S{1, 0, 0, 1, 0, 1, 1}), 1.5 * std::pow(2.0, 0.25), 1e-12);
  EXPECT_NEAR(LaunchTraits<StrongeLaw>::descent_steps(S{1, 0.3, 0.4, 1, 0, 1, 1}), 1.5 * std::sqrt((0.5 + std::sqrt(2.0)) / 0.5),
              1e-3);
  // the mirror image turns the other way to the mirrored ray: the same term
  EXPECT_NEAR(LaunchTraits<StrongeLaw>::descent_steps(S{1, 0.3, -0.4, 1, 0, 1, 1}),
              LaunchTraits<StrongeLaw>::descent_steps(S{1, 0.3, 0.4, 1, 0, 1, 1}), 1e-12);
  EXPECT_EQ(LaunchTraits<StrongeLaw>::descent_steps(S{1, 0, 0, 1, 0, 1, 0}), 0.0);
  // a faster descent (a larger mu d / R) is a shorter one
  EXPECT_LT(LaunchTraits<StrongeLaw>::descent_steps(S{1, 0.1, 0.1, 1, 0, 1, 2}),
            LaunchTraits<StrongeLaw>::descent_steps(S{1, 0.1, 0.1, 1, 0, 1, 0.3}));
}

TEST(RegimeKey, StrongeOrdersByWhereTheSlipStopsOrTheImpactEnds) {
  const auto key = [](double vt, double mu, bool planar) {
    return LaunchTraits<StrongeLaw>::regime_key(sphere_hit(vt, 1.0, mu, 1.0, planar));
  };
  // planar sphere (W = I: a = d11 = 1, b = 0), |v0_n| = 1, e = 1/2: the slip decelerates at mu and
  // stops at vt / mu; a straight slip would end at (1 + e) = 1.5 p_c
  EXPECT_EQ(key(0.5, 1.0, true), 512u + 32u);             // stops at 0.5 p_c: 32/64
  EXPECT_EQ(key(0.5, 0.5, true), 512u + 64u);             // stops at 1.0 p_c
  EXPECT_EQ(key(2.0, 1.0, true), 96u);                    // would stop at 2: the impact ends first, at 1.5
  EXPECT_EQ(key(0.5, 0.0, true), 96u);                    // no friction: never stops
  EXPECT_EQ(key(0.0, 1.0, true), 512u);                   // normal incidence: at rest from the start
  EXPECT_GE(key(0.5, 1.0, false), 1024u);                 // 3D after every planar key
  EXPECT_LT(key(0.2, 1.0, false), key(0.4, 1.0, false));  // a later stop: a longer path
  EXPECT_LT(key(3.0, 1.0, false), key(0.2, 1.0, false));  // the lanes that go on to v_t = 0 last
  // the extremes stay inside the bits
  EXPECT_EQ(key(1e150, 1.0, true), 96u);
  EXPECT_EQ(key(100.0, 1.0, false) & 512u, 0u);
  EXPECT_EQ(stop_fraction_key(false, true, 1e9), 2047u);
  EXPECT_EQ(stop_fraction_key(false, true, std::nan("")), 1536u);
  EXPECT_EQ(stop_fraction_key(true, false, -1.0), 0u);
  EXPECT_EQ(stop_fraction_key(true, false, 7.99), 511u);
  // every key fits the bits the device sort uses, in both precisions, for ordinary instances and
  // for the degenerate ones a batch may hold (a row's status reports them; its key only orders it)
  std::vector<ContactProblem<double>> ps = instances(5000);
  const double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
  for (int k = 0; k < 12; ++k) {
    ContactProblem<double> p = ps[k];
    if (k == 0) p.mu = 0;
    if (k == 1) p.mu = inf;
    if (k == 2) p.mu = nan;
    if (k == 3) p.v0.z = 0, p.v0.x = 0, p.v0.y = 0;  // no approach
    if (k == 4) p.v0 = Vec3<double>{nan, 0, -1};
    if (k == 5) p.v0 = Vec3<double>{inf, 0, -1};
    if (k == 6) p.W = Sym3<double>{0, 0, 0, 0, 0, 0};
    if (k == 7) p.e = nan;
    if (k == 8) p.n = Vec3<double>{0, 0, 0};
    if (k == 9) p.v0 = Vec3<double>{1e300, 1e300, -1e-300};
    if (k == 10) p.W = Sym3<double>{1e300, 0, 0, 1e300, 0, 1e300};
    if (k == 11) p.v0 = Vec3<double>{1, 0, 1};  // separating
    ps.push_back(p);
  }
  for (const ContactProblem<double>& p : ps) {
    EXPECT_LT(LaunchTraits<JiaLaw>::regime_key(p), 1u << kRegimeKeyBits);
    EXPECT_LT(LaunchTraits<StrongeLaw>::regime_key(p), 1u << kRegimeKeyBits);
    EXPECT_LT(LaunchTraits<JiaLaw>::regime_key(problem_cast<float>(p)), 1u << kRegimeKeyBits);
    EXPECT_LT(LaunchTraits<StrongeLaw>::regime_key(problem_cast<float>(p)), 1u << kRegimeKeyBits);
    EXPECT_EQ(LaunchTraits<JiaLaw>::regime_key(p), LaunchTraits<JiaLaw>::regime_key(p));
  }
}

// The sort runs only where the probed keys differ (kernels/batch.hpp keys_look_uniform): a batch of
// identical rows, or sampled instances with every parameter fixed, runs in its plain order.
TEST(RegimeKey, SortOnlyWhereTheKeysVary) {
  const std::vector<ContactProblem<double>> same(1000, instances(1)[0]);
  const Buffers<double> a(same);
  EXPECT_FALSE((batch_keys_vary<JiaLaw, double>(a.bin, 0, same.size())));
  EXPECT_FALSE((batch_keys_vary<StrongeLaw, double>(a.bin, 0, same.size())));
  const std::vector<ContactProblem<double>> mixed = instances(1000);
  const Buffers<double> b(mixed);
  EXPECT_TRUE((batch_keys_vary<JiaLaw, double>(b.bin, 0, mixed.size())));
  EXPECT_TRUE((batch_keys_vary<StrongeLaw, double>(b.bin, 0, mixed.size())));
  EXPECT_TRUE((batch_keys_vary<JiaLaw, double>(b.bin, 500, 64)));              // a sub-range, at an offset
  EXPECT_FALSE((batch_keys_vary<NewtonLaw, double>(b.bin, 0, mixed.size())));  // no key: never sorted
  EXPECT_FALSE((batch_keys_vary<JiaLaw, double>(b.bin, 0, 1)));
  EXPECT_FALSE((batch_keys_vary<JiaLaw, double>(b.bin, 0, 0)));
  // the probes: the first and the last row, and kKeyProbes - 2 between, spread evenly
  std::vector<ContactProblem<double>> last = same;
  last.back() = mixed[1];
  ASSERT_NE(LaunchTraits<JiaLaw>::regime_key(last.back()), LaunchTraits<JiaLaw>::regime_key(last.front()));
  EXPECT_TRUE((batch_keys_vary<JiaLaw, double>(Buffers<double>(last).bin, 0, last.size())));
  std::vector<ContactProblem<double>> between = same;
  between[1] = mixed[1];  // row 1 of 1000 is not probed (probes at 0, 15, 31, ...)
  EXPECT_FALSE((batch_keys_vary<JiaLaw, double>(Buffers<double>(between).bin, 0, between.size())));
  std::size_t probed = 0;
  keys_look_uniform(1000, [&](std::size_t i) {
    EXPECT_LT(i, 1000u);
    ++probed;
    return 0u;
  });
  EXPECT_EQ(probed, kKeyProbes);
  // sampled instances: the identical-ball runs (every parameter fixed), and random contact
  SampleSpec ball = systems::default_spec(Scenario::ball);
  for (const char* kv : {"V0x=-1", "V0y=0", "V0z=-5", "w0x=0", "w0y=2", "w0z=0", "mu=0.4", "e=0.5"})
    systems::apply_setting(ball, kv);
  EXPECT_FALSE((sampled_keys_vary<JiaLaw, double>(ball, 1, 0, 4000000)));
  EXPECT_FALSE((sampled_keys_vary<StrongeLaw, float>(ball, 1, 0, 4000000)));
  const SampleSpec contact = systems::default_spec(Scenario::contact);
  EXPECT_TRUE((sampled_keys_vary<JiaLaw, double>(contact, 1, 0, 4000000)));
  EXPECT_TRUE((sampled_keys_vary<StrongeLaw, double>(contact, 1, 1000, 4000000)));
}

#ifdef IMPACT_WITH_CUDA
#include "kernels/cuda/cuda.hpp"

namespace {

template <class Law, class T>
void sorted_equals_unsorted() {
  const auto ps = instances(20000);
  Buffers<T> a(ps), b(ps);
  LawOptions opt;
  opt.steps = 120;
  cuda::StreamOptions sorted, plain;
  sorted.chunk_rows = plain.chunk_rows = 7000;  // three chunks and a short tail
  plain.sort = false;
  cuda::evaluate_streamed<Law, T>(a.bin, a.bout, opt, sorted);
  cuda::evaluate_streamed<Law, T>(b.bin, b.bout, opt, plain);
  const std::size_t n = ps.size();
  for (int k = 0; k < kNumRealOutputs; ++k)
    EXPECT_EQ(std::memcmp(a.bout.real[k], b.bout.real[k], n * sizeof(T)), 0) << Law::name << " column " << k;
  EXPECT_EQ(std::memcmp(a.bout.modes, b.bout.modes, n * sizeof(std::uint32_t)), 0) << Law::name;
  EXPECT_EQ(std::memcmp(a.bout.steps, b.bout.steps, n * sizeof(std::int32_t)), 0) << Law::name;
  EXPECT_EQ(std::memcmp(a.bout.status, b.bout.status, n), 0) << Law::name;
}

template <class Law>
void sorted_reduction_counts_the_same() {
  const SampleSpec spec = systems::default_spec(Scenario::contact);
  LawOptions opt;
  opt.steps = 60;
  const SummaryRanges rg = impact::testing::summary_ranges({0, 0, 0, -1}, {5, 5, 5, 0});
  const std::uint64_t b = 1000, e = b + 300000;
  cuda::ReduceSchedule sorted, plain, persistent, persistent_plain;
  sorted.sort = persistent.sort = true;
  plain.sort = persistent_plain.sort = false;
  sorted.persistent = plain.persistent = false;
  persistent.persistent = persistent_plain.persistent = true;
  cuda::ReduceSchedule at_once = persistent;  // every lane searches its events at once
  at_once.defer_searches = false;
  const BatchSummary s = cuda::reduce_sampled<Law, double>(spec, 9, b, e, opt, rg, sorted);
  const BatchSummary u = cuda::reduce_sampled<Law, double>(spec, 9, b, e, opt, rg, plain);
  const BatchSummary p = cuda::reduce_sampled<Law, double>(spec, 9, b, e, opt, rg, persistent);
  const BatchSummary q = cuda::reduce_sampled<Law, double>(spec, 9, b, e, opt, rg, persistent_plain);
  const BatchSummary a = cuda::reduce_sampled<Law, double>(spec, 9, b, e, opt, rg, at_once);
  // exact integer sums: neither the order the sort gives the rows nor which warp takes which batch
  // (persistent lanes) changes a bit of the summary
  EXPECT_EQ(std::memcmp(&s, &u, sizeof s), 0) << Law::name << ": sorted against plain";
  EXPECT_EQ(std::memcmp(&p, &u, sizeof s), 0) << Law::name << ": persistent sorted against plain";
  EXPECT_EQ(std::memcmp(&q, &u, sizeof s), 0) << Law::name << ": persistent plain against plain";
  // nor whether the lanes of a warp defer their event searches (impact/search_vote.hpp)
  EXPECT_EQ(std::memcmp(&a, &u, sizeof s), 0) << Law::name << ": searches at once against deferred";
  EXPECT_GT(s.status[0], (e - b) / 2) << Law::name;
  EXPECT_EQ(s.q[kPn].far, 0u) << Law::name;
}

}  // namespace

// The eval kernels with deferred event searches (the default: the lanes of a warp vote on when to
// search, impact/search_vote.hpp) and with every lane searching at once: every row the same bits.
template <class T>
void deferred_equals_at_once() {
  const auto ps = instances(20000);
  Buffers<T> a(ps), b(ps);
  LawOptions deferred, at_once;
  deferred.steps = at_once.steps = 120;
  at_once.defer_searches = false;
  cuda::evaluate_streamed<StrongeLaw, T>(a.bin, a.bout, deferred, cuda::StreamOptions{});
  cuda::evaluate_streamed<StrongeLaw, T>(b.bin, b.bout, at_once, cuda::StreamOptions{});
  const std::size_t n = ps.size();
  for (int k = 0; k < kNumRealOutputs; ++k)
    EXPECT_EQ(std::memcmp(a.bout.real[k], b.bout.real[k], n * sizeof(T)), 0) << "column " << k;
  EXPECT_EQ(std::memcmp(a.bout.modes, b.bout.modes, n * sizeof(std::uint32_t)), 0);
  EXPECT_EQ(std::memcmp(a.bout.steps, b.bout.steps, n * sizeof(std::int32_t)), 0);
  EXPECT_EQ(std::memcmp(a.bout.status, b.bout.status, n), 0);
}

TEST(CudaOrder, DeferredSearchesLeaveEveryRowIdentical) {
  IMPACT_REQUIRE_DEVICE("deferred-vs-at-once");
  deferred_equals_at_once<double>();
  deferred_equals_at_once<float>();
}

TEST(CudaOrder, SortedEvaluationLeavesEveryRowIdentical) {
  IMPACT_REQUIRE_DEVICE("sorted-vs-unsorted");
  sorted_equals_unsorted<JiaLaw, double>();
  sorted_equals_unsorted<JiaLaw, float>();
  sorted_equals_unsorted<StrongeLaw, double>();
  sorted_equals_unsorted<StrongeLaw, float>();
}

// One choice of the schedule `impact reduce` uses from the environment variable `name` (no device
// needed: the choice is made on the host): unset, the default; `a`, true; `b`, false; another value
// an error that names both. The variable is restored after.
template <class Field>
void schedule_from_environment(const char* name, Field field, const char* a, const char* b, bool by_default) {
  const char* given = std::getenv(name);
  const std::string saved = given ? given : "";
  ::unsetenv(name);
  EXPECT_EQ(field(cuda::default_reduce_schedule()), by_default) << name << " unset";
  ::setenv(name, a, 1);
  EXPECT_TRUE(field(cuda::default_reduce_schedule())) << name << "=" << a;
  ::setenv(name, b, 1);
  EXPECT_FALSE(field(cuda::default_reduce_schedule())) << name << "=" << b;
  ::setenv(name, "sideways", 1);
  try {
    cuda::default_reduce_schedule();
    ADD_FAILURE() << name << "=sideways accepted";
  } catch (const std::invalid_argument& e) {
    const std::string want = std::string(name) + "=sideways: expected " + a + " or " + b;
    EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
  }
  if (given) ::setenv(name, saved.c_str(), 1);
  else ::unsetenv(name);
}

// IMPACT_CUDA_LANES: persistent lanes (the default) or grid-stride, to compare the two on a device.
TEST(CudaOrder, LanesFromTheEnvironment) {
  schedule_from_environment(
      "IMPACT_CUDA_LANES", [](const cuda::ReduceSchedule& s) { return s.persistent; }, "persistent", "grid-stride",
      cuda::kCudaPersistentLanes);
  EXPECT_TRUE(cuda::default_reduce_schedule().sort);
}

// IMPACT_CUDA_SEARCH: deferred event searches (the default) or every lane at once.
TEST(CudaOrder, SearchesFromTheEnvironment) {
  schedule_from_environment(
      "IMPACT_CUDA_SEARCH", [](const cuda::ReduceSchedule& s) { return s.defer_searches; }, "deferred", "at-once", true);
  EXPECT_TRUE(LawOptions{}.defer_searches);
}

TEST(CudaOrder, ReductionIsTheSameBitsForEverySchedule) {
  IMPACT_REQUIRE_DEVICE("sorted reduction");
  sorted_reduction_counts_the_same<JiaLaw>();
  sorted_reduction_counts_the_same<StrongeLaw>();
  sorted_reduction_counts_the_same<NewtonLaw>();  // no key: persistent lanes against grid-stride
}

// More instances than one launch takes (2^24): two launches, the work counter reset between them.
TEST(CudaOrder, PersistentLanesOverSeveralLaunches) {
  IMPACT_REQUIRE_DEVICE("several launches");
  const SampleSpec spec = systems::default_spec(Scenario::contact);
  LawOptions opt;
  const SummaryRanges rg = impact::testing::summary_ranges({0, 0, 0, -1}, {5, 5, 5, 0});
  const std::uint64_t b = 7, e = b + (std::uint64_t(1) << 24) + 1000;
  cuda::ReduceSchedule grid, persistent;
  grid.persistent = false;
  persistent.persistent = true;
  const BatchSummary g = cuda::reduce_sampled<NewtonLaw, double>(spec, 3, b, e, opt, rg, grid);
  const BatchSummary p = cuda::reduce_sampled<NewtonLaw, double>(spec, 3, b, e, opt, rg, persistent);
  EXPECT_EQ(std::memcmp(&g, &p, sizeof g), 0);
  std::uint64_t total = 0;
  for (int s = 0; s < static_cast<int>(Status::count_); ++s) total += p.status[s];
  EXPECT_EQ(total, e - b);
}
#endif
