// The SIMT model (perf/simt/simt.hpp, docs/bench.md "SIMT model"): its mechanics on hand-made
// traces, the path probes leaving every result bit-identical, and its calibration against the
// Nsight Compute figures of the first H100 run (docs/perf-log.md): active
// threads per warp of sampled_reduce_kernel, double, 250 steps: jia random contact 6.96, stronge
// random contact 11.6, jia identical ball instances 31.8, each to be reproduced within +-30% by
// the replay of that build's loop structure (Schedule::nested_search: event searches nested in
// their step); then what today's kernels are predicted to do.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "impact/laws/jia.hpp"
#include "impact/laws/stronge.hpp"
#include "kernels/cuda/cuda.hpp"
#include "systems/sample_spec.hpp"
#include "perf/simt/simt.hpp"
#include "perf/simt/simt_costs.hpp"

using namespace impact;
using namespace impact::perf;

namespace {

// Two blocks: 0 costs 10, 1 costs 100 (and the kernel's sample / reduce blocks, cost 0 here).
perf::SimtBlocks toy_blocks() {
  perf::SimtBlocks b;
  b.name = {"a", "b", "sample", "reduce"};
  b.cost = {10, 100, 0, 0};
  b.law_blocks = 2;
  return b;
}

// One instance: a set-up running block 0, `iters` iterations, each running the given blocks, an
// empty finish.
void add_instance(perf::PathTrace& t, int iters, std::vector<std::uint8_t> per_iter, std::uint32_t key = 0, int sub_every = 0) {
  auto unit = [&](bool sub) {
    t.unit_end.push_back(static_cast<std::uint32_t>(t.seg.size()));
    t.sub.push_back(sub ? 1 : 0);
  };
  t.seg.push_back(0);
  unit(false);
  for (int k = 0; k < iters; ++k) {
    for (std::uint8_t s : per_iter) t.seg.push_back(s);
    unit(sub_every > 0 && k % sub_every != 0);
  }
  unit(false);
  t.unit_begin.push_back(static_cast<std::uint32_t>(t.unit_end.size()));
  t.ok.push_back(1);
  t.key.push_back(key);
}

perf::SimtGeometry one_warp(int rounds) {
  perf::SimtGeometry g;
  g.warps = 1;
  g.rounds = rounds;
  return g;
}

}  // namespace

TEST(Simt, CoherentLanesKeepTheWarpFull) {
  perf::PathTrace t;
  for (int l = 0; l < 32; ++l) add_instance(t, 5, {0, 1});
  const perf::SimtResult r = simt_model(t, toy_blocks(), one_warp(1), perf::Schedule::grid_stride);
  EXPECT_DOUBLE_EQ(r.active_threads, 32.0);
  EXPECT_DOUBLE_EQ(r.lane_work, 10 + 5 * 110);
  EXPECT_DOUBLE_EQ(r.warp_issue, (10 + 5 * 110) / 32.0);
  EXPECT_DOUBLE_EQ(r.mean_iterations, 5.0);
}

TEST(Simt, DivergentPathsAndLongLanesSerialize) {
  // lane 0 runs 9 iterations, the others 1; lanes 0-15 run block 1, lanes 16-31 block 0
  perf::PathTrace t;
  for (int l = 0; l < 32; ++l) add_instance(t, l == 0 ? 9 : 1, {static_cast<std::uint8_t>(l < 16 ? 1 : 0)});
  const perf::SimtResult r = simt_model(t, toy_blocks(), one_warp(1), perf::Schedule::grid_stride);
  // lane work: set-ups 32 x 10, iterations 16 x 100 (+ 8 x 100 of lane 0) + 16 x 10
  const double lane = 32 * 10 + 16 * 100 + 8 * 100 + 16 * 10;
  // warp: set-up 10, iteration 1 issues both blocks (110), iterations 2-9 block 1 only
  const double warp = 10 + 110 + 8 * 100;
  EXPECT_DOUBLE_EQ(r.active_threads, lane / warp);
  EXPECT_DOUBLE_EQ(r.warp_issue, warp / 32.0);
}

TEST(Simt, RefillFillsTheLanesOfALongInstance) {
  // two rounds: in round 0 lane 0 runs 10 iterations and the others 1, in round 1 all run 1.
  // Grid-stride: round 0 lasts 10 iterations. Refill: lanes 1-31 take their round-1 instances
  // at once and are done after 2 iterations.
  perf::PathTrace t;
  for (int r = 0; r < 2; ++r)
    for (int l = 0; l < 32; ++l) add_instance(t, (r == 0 && l == 0) ? 10 : 1, {1});
  const perf::SimtBlocks b = toy_blocks();
  const perf::SimtResult gs = simt_model(t, b, one_warp(2), perf::Schedule::grid_stride);
  const perf::SimtResult rf = simt_model(t, b, one_warp(2), perf::Schedule::refill);
  EXPECT_DOUBLE_EQ(gs.lane_work, rf.lane_work);  // the same work, issued differently
  // grid-stride: round 0: set-up 10 + 10 x 100, round 1: 10 + 100
  EXPECT_DOUBLE_EQ(gs.warp_issue * 64, 10 + 1000 + 10 + 100);
  // refill: lanes take the warp's instances in order. Step 1: every lane's set-up and first
  // iteration; lanes 1-31 finish and take the round-1 instances of lanes 0-30. Step 2: those run
  // (set-up + iteration), lane 1 takes the last one. Step 3: its set-up and iteration. Steps 4-10:
  // lane 0's iterations alone.
  EXPECT_DOUBLE_EQ(rf.warp_issue * 64, 3 * 110 + 7 * 100);
  EXPECT_LT(rf.warp_issue, gs.warp_issue);
}

TEST(Simt, SortingByKeyGroupsLikePaths) {
  // one round: even lanes run block 1 five times, odd lanes block 0 once; keys tell them apart.
  // Unsorted, every warp mixes both; sorted, warp 0 holds the short ones and warp 1 the long ones.
  perf::PathTrace t;
  for (int w = 0; w < 2; ++w)
    for (int l = 0; l < 32; ++l) add_instance(t, l % 2 ? 1 : 5, {static_cast<std::uint8_t>(l % 2 ? 0 : 1)}, l % 2);
  perf::SimtGeometry g;
  g.warps = 2;
  g.rounds = 1;
  const perf::SimtBlocks b = toy_blocks();
  const perf::SimtResult gs = simt_model(t, b, g, perf::Schedule::grid_stride);
  const perf::SimtResult so = simt_model(t, b, g, perf::Schedule::sorted);
  EXPECT_DOUBLE_EQ(gs.lane_work, so.lane_work);
  // per warp: set-up 10, iteration 1 both blocks 110, iterations 2-5 block 1: 400
  EXPECT_DOUBLE_EQ(gs.warp_issue * 64, 2 * (10 + 110 + 400));
  // sorted: the short warp 10 + 10, the long one 10 + 500
  EXPECT_DOUBLE_EQ(so.warp_issue * 64, 20 + 510);
  EXPECT_DOUBLE_EQ(so.active_threads, 32.0);
}

TEST(Simt, NestedReplayRunsSubStepsInsideTheirStep) {
  // lane 0: 4 iterations of which 2-4 are sub-steps of 1 (an event search); lanes 1-31: 1 iteration.
  // Flat: 4 aligned iterations; nested: one, where lane 0 runs the sub-steps at their own site.
  perf::PathTrace t;
  for (int l = 0; l < 32; ++l) add_instance(t, l == 0 ? 4 : 1, {1}, 0, l == 0 ? 4 : 0);
  const perf::SimtBlocks b = toy_blocks();
  const perf::SimtResult flat = simt_model(t, b, one_warp(1), perf::Schedule::grid_stride);
  const perf::SimtResult nested = simt_model(t, b, one_warp(1), perf::Schedule::nested_search);
  EXPECT_DOUBLE_EQ(flat.warp_issue * 32, 10 + 4 * 100);
  EXPECT_DOUBLE_EQ(nested.warp_issue * 32, 10 + 100 + 3 * 100);
  EXPECT_DOUBLE_EQ(flat.lane_work, nested.lane_work);
  ASSERT_EQ(nested.blocks.size(), 3u);  // b, b (in event search), a
  EXPECT_EQ(nested.blocks[0].name, "b (in event search)");
}

TEST(Simt, LanesAreTheKernelsThreads) {
  perf::SimtGeometry g;
  g.begin = 7;
  EXPECT_EQ(simt_instance(g, 0, 0, 0), 7u);
  EXPECT_EQ(simt_instance(g, 3, 0, 5), 7u + 3 * 32 + 5);
  // one grid-stride round later: the kernel's grid of kCudaReduceBlocks blocks of kCudaReduceBlock
  EXPECT_EQ(simt_instance(g, 3, 2, 5), 7u + 3 * 32 + 5 + 2ull * cuda::kCudaReduceBlocks * cuda::kCudaReduceBlock);
}

// Probes only observe: the results with a recording probe are those of the plain kernels, bit for bit.
template <class Law>
void probes_do_not_change_results() {
  struct Count {
    int iters = 0, segs = 0, dones = 0;
    void iter() { ++iters; }
    void sub() {}
    void seg(int id) {
      ASSERT_GE(id, 0);
      ASSERT_LT(id, SimtCosts<Law>::kSegments);
      ++segs;
    }
    void done() { ++dones; }
  };
  const SampleSpec spec = systems::default_spec(Scenario::contact);
  LawOptions opt;
  opt.steps = 60;
  for (std::uint64_t i = 0; i < 400; ++i) {
    const ContactProblem<double> p = make_instance<double>(spec, 3, i);
    Count c;
    const Result<double> a = Law::template eval<double>(p, opt);
    const Result<double> b = Law::template eval<double>(p, opt, c);
    ASSERT_EQ(a.status, b.status) << i;
    ASSERT_EQ(std::memcmp(&a.P, &b.P, sizeof a.P), 0) << i;
    ASSERT_EQ(a.modes.bits, b.modes.bits) << i;
    ASSERT_EQ(a.steps, b.steps) << i;
    ASSERT_LE(c.dones, 1);
    if (a.status == Status::ok) {
      EXPECT_EQ(c.dones, 1) << i;
      EXPECT_GT(c.iters, 0) << i;
    }
  }
}
TEST(Simt, JiaProbesDoNotChangeResults) { probes_do_not_change_results<JiaLaw>(); }
TEST(Simt, StrongeProbesDoNotChangeResults) { probes_do_not_change_results<StrongeLaw>(); }

namespace {

// The block costs of the build whose times the calibration points measured: its rate stages and slip
// tests took two divisions, and a square root and a division, where the device now takes one rsqrt,
// and its sigma step length took powf. The model predicts that build's times with them.
perf::SimtBlocks measured_build_blocks(const std::string& law) {
  static const int jia[] = {300, 60, 40, 85, 150, 60, 30, 126, 120, 360, 180, 3800, 40, 30, 90, 20, 100};
  static const int stronge[] = {350, 1800, 15, 70, 15, 90, 25, 100, 77, 336, 77, 336, 55, 30, 20, 100};
  perf::SimtBlocks b = simt_blocks(law);
  const bool is_jia = law == "jia";
  EXPECT_EQ(b.law_blocks, is_jia ? SimtCosts<JiaLaw>::kSegments : SimtCosts<StrongeLaw>::kSegments);
  for (int s = 0; s < b.law_blocks; ++s) b.cost[static_cast<std::size_t>(s)] = is_jia ? jia[s] : stronge[s];
  return b;
}

// as_measured: the block costs of the build the device measured (measured_build_blocks), for the
// calibration points; else today's.
perf::SimtResult model(const char* law, Scenario sc, const std::vector<std::string>& sets, perf::Schedule schedule,
                       bool as_measured = false) {
  SampleSpec spec = systems::default_spec(sc);
  for (const std::string& kv : sets) systems::apply_setting(spec, kv);
  LawOptions opt;
  opt.steps = 250;
  const perf::SimtGeometry g;  // 64 warps x 8 rounds
  const perf::PathTrace t = trace_paths(law, engine::Precision::f64, spec, 1, opt, g);
  const perf::SimtResult r = simt_model(t, as_measured ? measured_build_blocks(law) : simt_blocks(law), g, schedule);
  std::printf("[ simt    ] %s: predicted %.2f active threads per warp, warp issue %.4g per instance\n", law, r.active_threads,
              r.warp_issue);
  return r;
}
double predicted(const char* law, Scenario sc, const std::vector<std::string>& sets) {
  return model(law, sc, sets, perf::Schedule::nested_search, true).active_threads;
}

}  // namespace

TEST(SimtCalibration, JiaRandomContact) { EXPECT_NEAR(predicted("jia", Scenario::contact, {}), 6.96, 0.3 * 6.96); }
TEST(SimtCalibration, StrongeRandomContact) { EXPECT_NEAR(predicted("stronge", Scenario::contact, {}), 11.6, 0.3 * 11.6); }
TEST(SimtCalibration, JiaIdenticalBall) {
  EXPECT_NEAR(predicted("jia", Scenario::ball, {"V0x=-1", "V0y=0", "V0z=-5", "w0x=0", "w0y=2", "w0z=0", "mu=0.4", "e=0.5"}), 31.8,
              0.3 * 31.8);
}

// Today's structure (every sub-step an iteration of its own) and the regime sort: jia on random
// contact gains coherence from each (model figures in docs/bench.md).
TEST(SimtCalibration, JiaFlatLoopAndSortingRaiseCoherence) {
  const perf::SimtResult nested = model("jia", Scenario::contact, {}, perf::Schedule::nested_search);
  const perf::SimtResult flat = model("jia", Scenario::contact, {}, perf::Schedule::grid_stride);
  const perf::SimtResult sorted = model("jia", Scenario::contact, {}, perf::Schedule::sorted);
  EXPECT_DOUBLE_EQ(nested.lane_work, flat.lane_work);  // the same work, issued differently
  EXPECT_GT(flat.active_threads, nested.active_threads);
  EXPECT_LT(flat.warp_issue, 0.9 * nested.warp_issue);
  EXPECT_GT(sorted.active_threads, 2.0 * flat.active_threads);
  EXPECT_LT(sorted.warp_issue, 0.5 * flat.warp_issue);
}

// stronge's regime key (where the slip stops or the impact ends, and the tau-steps of a stopping
// 3D slip's descent to v_t = 0: LaunchTraits<StrongeLaw>::regime_key) groups lanes whose paths end together:
// sorted by it the model runs 19.7 active threads per warp against 12.3 unsorted (without the
// descent term 17.1; the slip-ratio key before that: 14.0).
TEST(SimtCalibration, StrongeSortingRaisesCoherence) {
  const perf::SimtResult flat = model("stronge", Scenario::contact, {}, perf::Schedule::grid_stride);
  const perf::SimtResult sorted = model("stronge", Scenario::contact, {}, perf::Schedule::sorted);
  EXPECT_DOUBLE_EQ(sorted.lane_work, flat.lane_work);
  EXPECT_GT(sorted.active_threads, 1.5 * flat.active_threads);
  EXPECT_LT(sorted.warp_issue, 0.67 * flat.warp_issue);
  EXPECT_LT(sorted.block_issue, 0.7 * flat.block_issue);
}

// Persistent lanes (kernels/cuda/sampled.cu for_each_instance): the sorted batches, the dearest keys
// first, dealt to whichever warp is free instead of by round. The same batches, so the same issue
// and coherence; a block's warps end together, so its wait at the barrier for its slowest warp
// shrinks: at 8 batches per warp, a block's time over its warps' mean goes from 1.07 to 1.03 (jia)
// and from 1.06 to 1.03 (stronge). Dealt cheapest first it grows instead (1.14 and 1.12): this test
// fails. (The bound is 0.6 of the wait: with the slip tests' rsqrt in stronge's first stage its wait
// fell by 47%, 1.0645 -> 1.0341; cheapest first is far outside it.)
TEST(SimtSchedule, PersistentLanesShortenTheBlockWait) {
  for (const char* law : {"jia", "stronge"}) {
    const perf::SimtResult sorted = model(law, Scenario::contact, {}, perf::Schedule::sorted);
    const perf::SimtResult persistent = model(law, Scenario::contact, {}, perf::Schedule::persistent);
    EXPECT_NEAR(persistent.lane_work, sorted.lane_work, 1e-12 * sorted.lane_work) << law;
    EXPECT_NEAR(persistent.warp_issue, sorted.warp_issue, 1e-12 * sorted.warp_issue) << law;
    EXPECT_NEAR(persistent.active_threads, sorted.active_threads, 1e-9) << law;
    const double wait_sorted = sorted.block_issue / sorted.warp_issue;
    const double wait_persistent = persistent.block_issue / persistent.warp_issue;
    std::printf("[ simt    ] %s block wait: sorted %.4f, persistent %.4f\n", law, wait_sorted, wait_persistent);
    EXPECT_LT(wait_persistent, wait_sorted) << law;
    EXPECT_LT(wait_persistent - 1, 0.6 * (wait_sorted - 1)) << law;
  }
}

// Deferred event searches (Schedule::deferred, impact/search_vote.hpp). One warp, 40 iterations of
// block a (10) per lane; lane l's step finds an event at iteration l, whose search is block b (100).
// Run at once, the 32 searches are 32 units of b. Deferred, a lane waits, pending, until a quarter of
// the lanes in the loop are pending: 8 lanes search together, 4 units of b, and each found step is
// issued once more. A search that ends a lane's path (its last iteration) waits until every lane is
// pending: all 32 in one unit.
TEST(SimtSchedule, DeferredSearchesRunTogether) {
  perf::SimtBlocks b = toy_blocks();
  b.search_block = 1;
  for (bool last : {false, true}) {
    perf::PathTrace t;
    for (int l = 0; l < 32; ++l) {
      const int iters = last ? 40 + l : 40, at = last ? iters - 1 : l;
      t.seg.push_back(0);  // set-up
      t.unit_end.push_back(static_cast<std::uint32_t>(t.seg.size()));
      t.sub.push_back(0);
      for (int k = 0; k < iters; ++k) {
        t.seg.push_back(0);
        if (k == at) t.seg.push_back(1);
        t.unit_end.push_back(static_cast<std::uint32_t>(t.seg.size()));
        t.sub.push_back(0);
      }
      t.unit_end.push_back(static_cast<std::uint32_t>(t.seg.size()));  // finish
      t.sub.push_back(0);
      t.unit_begin.push_back(static_cast<std::uint32_t>(t.unit_end.size()));
      t.ok.push_back(1);
      t.key.push_back(0);
    }
    const perf::SimtResult now = simt_model(t, b, one_warp(1), perf::Schedule::persistent);
    const perf::SimtResult later = simt_model(t, b, one_warp(1), perf::Schedule::deferred);
    auto issue_of = [](const perf::SimtResult& r, const std::string& name) {
      for (const perf::SimtBlockUse& u : r.blocks)
        if (u.name == name) return u.warp_issue * 32;  // per warp
      return 0.0;
    };
    EXPECT_DOUBLE_EQ(issue_of(now, "b"), 32 * 100.0) << last;
    EXPECT_DOUBLE_EQ(issue_of(later, "b"), (last ? 1 : 4) * 100.0) << last;
    EXPECT_GT(later.active_threads, now.active_threads) << last;
    EXPECT_LT(later.warp_issue, 0.5 * now.warp_issue) << last;
    // the work of b is the same; a's grows by the found steps issued again (and the waits' loop tops)
    EXPECT_GE(later.lane_work, now.lane_work + 10) << last;
  }
}

// On random contact the kernels' vote (deferred searches) raises stronge's coherence: its searches
// ran at 1.6 active threads per warp and 18% of the issue (the vote: 19.76 -> 22.1 active, the
// issue 9% lower, at 128 registers, 250 steps, double). jia, whose searches are iterations of its
// loop, has no deferred search: the same replay as persistent.
TEST(SimtSchedule, DeferredSearchesRaiseStrongeCoherence) {
  const perf::SimtResult persistent = model("stronge", Scenario::contact, {}, perf::Schedule::persistent);
  const perf::SimtResult deferred = model("stronge", Scenario::contact, {}, perf::Schedule::deferred);
  EXPECT_GT(deferred.active_threads, persistent.active_threads + 1.5);
  EXPECT_LT(deferred.warp_issue, 0.94 * persistent.warp_issue);
  EXPECT_LT(predicted_seconds(deferred, 1e6, 0.25), 0.94 * predicted_seconds(persistent, 1e6, 0.25));
  const perf::SimtResult jia_p = model("jia", Scenario::contact, {}, perf::Schedule::persistent);
  const perf::SimtResult jia_d = model("jia", Scenario::contact, {}, perf::Schedule::deferred);
  EXPECT_DOUBLE_EQ(jia_d.warp_issue, jia_p.warp_issue);
  EXPECT_DOUBLE_EQ(jia_d.active_threads, jia_p.active_threads);
}

// Two instances per thread (simt_model's per_lane): on identical lanes the batches carry twice the
// instances over half the warps, no lane's path changes, and every figure is per instance: the same
// lane work, warp issue, coherence, iterations and block wait as one instance per thread, all of
// the issue overlapped (each block runs at both sites in the same unit).
TEST(SimtSchedule, TwoInstancesPerThreadOnIdenticalLanes) {
  perf::PathTrace t;
  perf::SimtGeometry g;
  g.warps = 4;
  g.rounds = 2;
  for (int i = 0; i < 4 * 2 * 32; ++i) add_instance(t, 5, {0, 1});
  for (perf::Schedule s : {perf::Schedule::persistent, perf::Schedule::deferred}) {
    const perf::SimtResult one = simt_model(t, toy_blocks(), g, s);
    const perf::SimtResult two = simt_model(t, toy_blocks(), g, s, 2);
    EXPECT_EQ(two.per_lane, 2);
    EXPECT_DOUBLE_EQ(two.lane_work, one.lane_work);
    EXPECT_DOUBLE_EQ(two.lane_work, 10 + 5 * 110);
    EXPECT_DOUBLE_EQ(two.warp_issue, one.warp_issue);
    EXPECT_DOUBLE_EQ(two.active_threads, 32.0);
    EXPECT_DOUBLE_EQ(two.mean_iterations, one.mean_iterations);
    EXPECT_DOUBLE_EQ(two.block_issue, one.block_issue);  // 2 warps of 4 batches each hold what 4 of 2 did
    EXPECT_DOUBLE_EQ(one.overlapped_issue, 0.0);
    EXPECT_DOUBLE_EQ(two.overlapped_issue, two.warp_issue);
  }
  EXPECT_THROW(simt_model(t, toy_blocks(), g, perf::Schedule::sorted, 2), std::invalid_argument);
  EXPECT_THROW(simt_model(t, toy_blocks(), g, perf::Schedule::persistent, 5), std::invalid_argument);
}

// Each instance of a lane runs at its own code site, issued while any lane's instance there runs it:
// site 0 (instances 0-31) runs 2 iterations, site 1 (32-63) 6. The two sites' set-ups and first two
// iterations are issued side by side (overlapped), the last four iterations at site 1 alone.
TEST(SimtSchedule, TwoInstancesPerThreadIssueEachSiteWhileItRuns) {
  perf::PathTrace t;
  for (int i = 0; i < 64; ++i) add_instance(t, i < 32 ? 2 : 6, {0, 1});
  const perf::SimtResult r = simt_model(t, toy_blocks(), one_warp(2), perf::Schedule::persistent, 2);
  EXPECT_DOUBLE_EQ(r.warp_issue * 64, 2 * 10 + 2 * 2 * 110 + 4 * 110);
  EXPECT_DOUBLE_EQ(r.overlapped_issue * 64, 2 * 10 + 2 * 2 * 110);
  EXPECT_DOUBLE_EQ(r.lane_work * 64, 64 * 10 + 32 * 2 * 110 + 32 * 6 * 110);
}

// The latency rule of several instances per thread (GpuTiming::dependent_share): on overlapped issue
// the dependent share of a warp's wait falls to 1 / per_lane. A second instance that covered the
// whole wait, at half the warps, would take the time of one instance per thread at all of them; the
// fixed-latency share Nsight Compute measured (2.4 of 6.9 cycles) covers only part of it.
TEST(SimtOccupancy, ASecondInstanceCoversTheDependentShare) {
  perf::PathTrace t;
  perf::SimtGeometry g;
  g.warps = 4;
  g.rounds = 2;
  for (int i = 0; i < 4 * 2 * 32; ++i) add_instance(t, 5, {0, 1});
  perf::SimtBlocks b = toy_blocks();
  b.law_latency = 7.0;
  const perf::SimtResult one = simt_model(t, b, g, perf::Schedule::deferred);
  const perf::SimtResult two = simt_model(t, b, g, perf::Schedule::deferred, 2);
  perf::GpuTiming all;
  all.dependent_share = 1.0;
  EXPECT_NEAR(predicted_seconds(two, 1e6, 0.125, all), predicted_seconds(one, 1e6, 0.25, all), 1e-15);
  const perf::GpuTiming measured;
  EXPECT_NEAR(measured.dependent_share, 2.4 / 6.9, 1e-12);
  EXPECT_NEAR(predicted_seconds(two, 1e6, 0.125) / predicted_seconds(one, 1e6, 0.25), 2 * (1 - measured.dependent_share / 2),
              1e-12);
  EXPECT_DOUBLE_EQ(predicted_seconds(one, 1e6, 0.25, all), predicted_seconds(one, 1e6, 0.25));  // one instance: no change
}

// Keys from a predictor of the iteration count: exact (log-correlation 1), the key is 64 x the count
// and orders like it; iterations_running counts the iterations that run a block; a predictor with
// errors keeps whether an instance has descent iterations and moves its key.
TEST(SimtSchedule, PredictedCountKeys) {
  perf::PathTrace t;
  for (int i = 0; i < 64; ++i) {
    std::vector<std::uint8_t> blocks = {0};
    if (i % 2) blocks.push_back(1);  // odd instances: every iteration runs block 1 (the "descent")
    add_instance(t, 1 + (i * 37) % 50, blocks, 7);
  }
  const std::vector<std::uint32_t> all = perf::iterations_running(t, -1), descent = perf::iterations_running(t, 1);
  const std::vector<std::uint32_t> exact = perf::predicted_count_keys(t, 1, 1, 1, 1);
  const std::vector<std::uint32_t> noisy = perf::predicted_count_keys(t, 1, 0.5, 0.5, 1);
  int moved = 0;
  for (int i = 0; i < 64; ++i) {
    EXPECT_EQ(all[i], 1u + static_cast<std::uint32_t>((i * 37) % 50));
    EXPECT_EQ(descent[i], i % 2 ? all[i] : 0u);
    EXPECT_EQ(exact[i], 64 * all[i]);
    moved += noisy[i] != exact[i];
  }
  EXPECT_GT(moved, 48);
  EXPECT_EQ(perf::predicted_count_keys(t, 1, 0.5, 0.5, 1), noisy);  // seeded
  EXPECT_THROW(perf::predicted_count_keys(t, 1, 0, 1, 1), std::invalid_argument);
  // sorted by the exact count, one warp of 32 like counts issues less than by the original order
  perf::PathTrace by_count = t;
  by_count.key = exact;
  EXPECT_LT(simt_model(by_count, toy_blocks(), one_warp(2), perf::Schedule::persistent).warp_issue,
            simt_model(t, toy_blocks(), one_warp(2), perf::Schedule::persistent).warp_issue);
}

// Two passes: pass_counts splits each path at its first iteration that runs the block (the rest,
// whatever it runs, is the second pass); iteration_coherence deals a pass's instances 32 at a time
// in key order from the last one down, each warp held for its longest lane, a partial warp of the
// first ones whole; count_keys of exact counts order like the counts, which gives the fewest slots.
TEST(SimtSchedule, TwoPassesSplitAtTheFirstDescentIteration) {
  perf::PathTrace t;
  // instance i: 10 + i iterations of block 0, then (odd i) 5 iterations of block 1 and 3 of block 0 again
  for (int i = 0; i < 40; ++i) {
    std::vector<std::uint8_t> seq(10 + i, 0);
    if (i % 2) {
      seq.insert(seq.end(), 5, 1);
      seq.insert(seq.end(), 3, 0);
    }
    t.seg.push_back(0);  // set-up
    t.unit_end.push_back(static_cast<std::uint32_t>(t.seg.size()));
    t.sub.push_back(0);
    for (std::uint8_t b : seq) {
      t.seg.push_back(b);
      t.unit_end.push_back(static_cast<std::uint32_t>(t.seg.size()));
      t.sub.push_back(0);
    }
    t.unit_end.push_back(static_cast<std::uint32_t>(t.seg.size()));  // empty finish
    t.sub.push_back(0);
    t.unit_begin.push_back(static_cast<std::uint32_t>(t.unit_end.size()));
    t.ok.push_back(1);
    t.key.push_back(static_cast<std::uint32_t>(40 - i));  // the reverse of the count's order
  }
  const perf::PassCounts c = perf::pass_counts(t, 1);
  std::vector<std::uint8_t> second(40);
  for (int i = 0; i < 40; ++i) {
    EXPECT_EQ(c.first[i], static_cast<std::uint32_t>(10 + i));
    EXPECT_EQ(c.second[i], i % 2 ? 8u : 0u);
    second[i] = c.second[i] > 0;
  }
  // the first pass by the count, dealt from the dearest down: a warp of 18..49 (work 1072, slots 32 x
  // 49), then the partial one of 10..17 (work 108, slots 32 x 17)
  const perf::IterationCoherence a = perf::iteration_coherence(c.first, perf::count_keys(c.first, 1, 1));
  EXPECT_DOUBLE_EQ(a.work, 1072 + 108);
  EXPECT_DOUBLE_EQ(a.slots, 32.0 * 49 + 32.0 * 17);
  // by the key (the reverse order): 41..10, then the partial 49..42: more slots than the count's
  const perf::IterationCoherence r = perf::iteration_coherence(c.first, t.key);
  EXPECT_DOUBLE_EQ(r.slots, 32.0 * 41 + 32.0 * 49);
  EXPECT_GT(a.active(), r.active());
  // the second pass holds the 20 odd instances, 8 iterations each: one partial warp, every lane busy while it runs
  const perf::IterationCoherence b = perf::iteration_coherence(c.second, t.key, second);
  EXPECT_DOUBLE_EQ(b.work, 20 * 8);
  EXPECT_DOUBLE_EQ(b.slots, 32 * 8);
  EXPECT_DOUBLE_EQ(b.active(), 20);
  perf::IterationCoherence both = a;
  both += b;
  EXPECT_DOUBLE_EQ(both.active(), 32 * (1072 + 108 + 160) / (32.0 * (49 + 17 + 8)));
  // a pass that holds no instance leaves the warps full (nothing runs)
  EXPECT_DOUBLE_EQ(perf::iteration_coherence(c.second, t.key, std::vector<std::uint8_t>(40, 0)).active(), 32);
  EXPECT_THROW(perf::iteration_coherence(c.first, std::vector<std::uint32_t>(3, 0)), std::invalid_argument);
  EXPECT_THROW(perf::count_keys(c.first, 1.5, 1), std::invalid_argument);
}

// On stronge's random contact, two instances per thread replay every instance's own path: the same
// lane work and iterations per instance as one per thread (persistent lanes, no vote).
TEST(SimtSchedule, TwoInstancesPerThreadKeepStrongePaths) {
  SampleSpec spec = systems::default_spec(Scenario::contact);
  LawOptions opt;
  opt.steps = 250;
  const perf::SimtGeometry g;
  const perf::PathTrace t = trace_paths("stronge", engine::Precision::f64, spec, 1, opt, g);
  const perf::SimtBlocks b = simt_blocks("stronge");
  const perf::SimtResult one = simt_model(t, b, g, perf::Schedule::persistent);
  const perf::SimtResult two = simt_model(t, b, g, perf::Schedule::persistent, 2);
  EXPECT_NEAR(two.lane_work, one.lane_work, 1e-9 * one.lane_work);
  EXPECT_DOUBLE_EQ(two.mean_iterations, one.mean_iterations);
  EXPECT_GT(two.overlapped_issue, 0.5 * two.warp_issue);
  EXPECT_EQ(b.descent_block, static_cast<int>(detail::Stronge::kSegTauLen));
}

// Every block names the functions its instructions come from (SimtCosts<Law>::code), and each of them is
// a function defined in the law's header, in the RK or Illinois helpers, or in the sampling kernel,
// so that the model's issue per function can be set beside a per-line profile.
TEST(SimtBlocks, CodeNamesDefinedFunctions) {
  std::string src;
  for (const char* f : {"include/impact/laws/detail/jia.hpp", "include/impact/laws/detail/stronge.hpp", "include/impact/rk4.hpp",
                        "include/impact/illinois.hpp", "include/impact/sampling.hpp", "kernels/cuda/sampled.cu"}) {
    std::ifstream in(std::string(IMPACT_SOURCE_DIR) + "/" + f);
    ASSERT_TRUE(in.good()) << f;
    src += std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  for (const char* law : {"jia", "stronge"}) {
    const perf::SimtBlocks b = simt_blocks(law);
    ASSERT_EQ(b.code.size(), b.name.size());
    for (int i = 0; i < b.count(); ++i) {
      std::istringstream words(b.code[i]);
      std::string w;
      int n = 0;
      while (words >> w) {
        ++n;
        EXPECT_TRUE(std::regex_search(src, std::regex("[ :*&>]" + w + R"(\()")))
            << law << " block '" << b.name[i] << "': no function " << w;
      }
      EXPECT_GE(n, 1) << law << " block '" << b.name[i] << "' names no code";
    }
  }
}

// ---- occupancy-aware time -------------------------------------------------------------------

// Register-limited occupancy of 128-thread blocks on sm_90 (65536 registers, 64 warps per SM): the
// figures Nsight Compute reported for the kernels of the first H200 run (docs/perf-log.md).
TEST(SimtOccupancy, TheoreticalFromRegisters) {
  EXPECT_DOUBLE_EQ(theoretical_occupancy(240, 128), 0.125);   // jia double, first H200 run
  EXPECT_DOUBLE_EQ(theoretical_occupancy(254, 128), 0.125);   // stronge double, first H200 run
  EXPECT_DOUBLE_EQ(theoretical_occupancy(152, 128), 0.1875);  // chatterjee-ruina, first H200 run
  EXPECT_DOUBLE_EQ(theoretical_occupancy(128, 128), 0.25);    // __launch_bounds__(128, 4)
  EXPECT_DOUBLE_EQ(theoretical_occupancy(32, 128), 1.0);      // the warp slots bind
  EXPECT_THROW(theoretical_occupancy(0, 128), std::invalid_argument);
}

// Little's law: A warps per scheduler with L cycles between a warp's issues keep it busy
// max(issue, L issue / A) cycles; the kernel's own blocks wait kernel_latency; the block factor
// stretches both.
TEST(SimtOccupancy, LatencyBoundAndIssueBound) {
  perf::GpuTiming g;
  g.law_latency = 8;
  g.kernel_latency = 20;
  EXPECT_DOUBLE_EQ(warps_per_scheduler(0.125, g), 2.0);
  EXPECT_DOUBLE_EQ(warps_per_scheduler(0.25, g), 4.0);
  const double per_cycle = 132.0 * 4 * 1.98e9;
  // latency-bound: 1000 law instructions x 8 cycles / 4 warps
  EXPECT_NEAR(predicted_seconds(1000, 0, 1.0, 1e6, 0.25, g), 1e6 * 2000 / per_cycle, 1e-15);
  EXPECT_NEAR(predicted_seconds(1000, 0, 1.0, 1e6, 0.125, g), 1e6 * 4000 / per_cycle, 1e-15);
  // the kernel's blocks at their own latency; the block factor
  EXPECT_NEAR(predicted_seconds(1000, 100, 1.5, 1e6, 0.25, g), 1e6 * 1.5 * (8000 + 2000) / 4 / per_cycle, 1e-15);
  // 16 warps hide 8 cycles: issue-bound
  EXPECT_NEAR(predicted_seconds(1000, 0, 1.0, 1e6, 1.0, g), 1e6 * 1000 / per_cycle, 1e-15);
  EXPECT_THROW(predicted_seconds(1000, 0, 1.0, 1e6, 0.0, g), std::invalid_argument);
}

// A block holds its warps until its slowest is done: the block issue counts every warp of a block
// at its slowest warp's issue.
TEST(SimtOccupancy, BlockIssueWaitsForTheSlowestWarp) {
  const perf::SimtBlocks b = toy_blocks();
  perf::PathTrace t;
  perf::SimtGeometry g;
  g.warps = 4;  // one block
  g.rounds = 1;
  for (int w = 0; w < 4; ++w)
    for (int l = 0; l < 32; ++l) {
      add_instance(t, w == 2 ? 9 : 1, {1});  // warp 2 runs 9 iterations, the others 1
    }
  const perf::SimtResult r = simt_model(t, b, g, perf::Schedule::grid_stride);
  EXPECT_DOUBLE_EQ(r.warp_issue * 128, 3 * (10 + 100) + (10 + 900));
  EXPECT_DOUBLE_EQ(r.block_issue * 128, 4 * (10 + 900));
  EXPECT_DOUBLE_EQ(r.kernel_issue, 0.0);  // the toy has no sample / reduce blocks
}

namespace {

// Nsight Compute's figures (the first H200 run, docs/perf-log.md) against the
// model's prediction, +-30%.
void expect_time(const char* what, double predicted_s, double measured_s) {
  std::printf("[ simt    ] %s: predicted %.2f ms, measured %.2f ms (%+.0f%%)\n", what, 1e3 * predicted_s, 1e3 * measured_s,
              100 * (predicted_s / measured_s - 1));
  EXPECT_NEAR(predicted_s, measured_s, 0.3 * measured_s) << what;
}

perf::SimtResult one_round(const char* law, Scenario sc, const std::vector<std::string>& sets, perf::Schedule schedule) {
  SampleSpec spec = systems::default_spec(sc);
  for (const std::string& kv : sets) systems::apply_setting(spec, kv);
  LawOptions opt;
  opt.steps = 250;
  perf::SimtGeometry g;  // one instance per thread, as at the measured n (2e5, 4e5 < the grid's 262144 x 2)
  g.warps = 256;
  g.rounds = 1;
  const perf::PathTrace t = trace_paths(law, engine::Precision::f64, spec, 1, opt, g);
  return simt_model(t, measured_build_blocks(law), g, schedule);  // the measured build's costs
}
perf::SimtResult sorted_one_round(const char* law, Scenario sc, const std::vector<std::string>& sets) {
  return one_round(law, sc, sets, perf::Schedule::sorted);
}

}  // namespace

// jia double, random contact, n = 2e5, 240 registers (12.5%): 25.4 ms.
TEST(SimtOccupancy, CalibrationJiaRandomContact) {
  const perf::SimtResult r = sorted_one_round("jia", Scenario::contact, {});
  expect_time("jia random contact, 12.5%", predicted_seconds(r, 2e5, 0.125), 25.4e-3);
}

// stronge double, random contact, n = 2e5, 254 registers (12.5%): 14.5 ms at 12.77 active threads
// (the first H200 run, whose slip-ratio key ordered stronge hardly at all: the unsorted schedule
// of the code replays it at 12.79). The law's own latency (SimtCosts<StrongeLaw>::latency, 7 cycles) is fitted
// to this point; with jia's 12.5 the model said 25.8 ms.
TEST(SimtOccupancy, CalibrationStrongeRandomContact) {
  const perf::SimtResult r = one_round("stronge", Scenario::contact, {}, perf::Schedule::grid_stride);
  EXPECT_NEAR(r.active_threads, 12.77, 0.05 * 12.77);
  EXPECT_DOUBLE_EQ(r.law_latency, SimtCosts<StrongeLaw>::latency);
  expect_time("stronge random contact, 12.5%", predicted_seconds(r, 2e5, 0.125), 14.5e-3);
  perf::GpuTiming jia_latency;
  jia_latency.law_latency = SimtCosts<JiaLaw>::latency;
  perf::SimtResult same = r;
  same.law_latency = 0;  // GpuTiming's
  EXPECT_GT(predicted_seconds(same, 2e5, 0.125, jia_latency), 1.5 * 14.5e-3);
}

// jia double, 4e5 identical ball instances at 12.5%: 10.29 ms (the first H100 run) and 12.43 ms (the
// first H200 run, which adds the regime sort).
TEST(SimtOccupancy, CalibrationJiaIdenticalBall) {
  const perf::SimtResult r =
      sorted_one_round("jia", Scenario::ball, {"V0x=-1", "V0y=0", "V0z=-5", "w0x=0", "w0y=2", "w0z=0", "mu=0.4", "e=0.5"});
  const double t = predicted_seconds(r, 4e5, 0.125);
  expect_time("jia identical ball, 12.5% (first H100 run)", t, 10.29e-3);
  expect_time("jia identical ball, 12.5% (first H200 run)", t, 12.43e-3);
}

// chatterjee-ruina double, the first chunk of 2^24 instances: 9.76 ms at 25% (the first H100
// run, 128 registers) and 14.42 ms at 18.75% (the first H200 run, 152 registers). The law has no probes: each lane
// samples (kSimtSampleCost), evaluates the law (192 flops, ChatterjeeRuinaLaw::cost, at ~1.5 issued
// instructions per flop) and reduces (kSimtReduceCost), at the 28 active threads per warp Nsight
// Compute measured.
TEST(SimtOccupancy, CalibrationChatterjeeRuina) {
  const double law = 1.5 * 192 / 28.0, kernel = (perf::kSimtSampleCost + kSimtReduceCost) / 28.0;
  const double n = 16777216.0;
  expect_time("chatterjee-ruina, 25%", predicted_seconds(law, kernel, 1.0, n, 0.25), 9.76e-3);
  expect_time("chatterjee-ruina, 18.75%", predicted_seconds(law, kernel, 1.0, n, 0.1875), 14.42e-3);
}

// Local memory (GpuTiming::local_load_latency, local_store_latency): a warp issues each local
// instruction, waits the load latency after a load and nothing after a store.
TEST(SimtLocalMemory, LoadsWaitStoresOnlyIssue) {
  const perf::GpuTiming g;
  const double per_cycle = 1.0 / (static_cast<double>(g.sms) * g.schedulers_per_sm * g.clock_hz);
  const double occ = perf::occupancy_of_blocks(4, 128);  // 4 warps per scheduler
  EXPECT_DOUBLE_EQ(occ, 0.25);
  EXPECT_DOUBLE_EQ(perf::occupancy_of_blocks(3, 128), 0.1875);
  const double base = predicted_seconds(1000, 0, 0, 0, 1.0, 1.0, occ, g);  // latency-bound: 1000 x 12.5 / 4
  EXPECT_NEAR(base, 1000 * g.law_latency / 4 * per_cycle, 1e-12 * base);
  const double loads = predicted_seconds(1000, 0, 100, 0, 1.0, 1.0, occ, g);
  EXPECT_NEAR(loads - base, 100 * g.local_load_latency / 4 * per_cycle, 1e-9 * base);
  const double stores = predicted_seconds(1000, 0, 0, 100, 1.0, 1.0, occ, g);
  EXPECT_NEAR(stores - base, 100 * g.local_store_latency / 4 * per_cycle, 1e-9 * base);
  // issue-bound (one warp per scheduler would wait; 64 do not): every local instruction is a slot
  const double wide = perf::occupancy_of_blocks(16, 128);
  EXPECT_NEAR(predicted_seconds(1000, 0, 100, 100, 1.0, 1.0, wide, g), 1200 * per_cycle, 1e-9);
  EXPECT_THROW(predicted_seconds(1000, 0, -1, 0, 1.0, 1.0, occ, g), std::invalid_argument);
  EXPECT_THROW(perf::occupancy_of_blocks(0, 128), std::invalid_argument);
}

namespace {

// One launch bound of one build as the H200 ran it (docs/perf-log.md, "launch bounds", n = 4e7, two
// rounds, the mean): blocks of 128 threads per SM, the rate, and the law loop's local loads and stores
// per instance that perf/sass/local_traffic.py counts in a -lineinfo build of the same sources and bound
// (sm_90, CUDA 13; line counts over the 16384 instances of `impact reduce --n 16384 --seed 1`).
struct LaunchBound {
  int blocks;
  double rate, loads, stores;
};
struct LaunchBoundGroup {
  const char* law;
  engine::Precision precision;
  const char* build;
  std::vector<LaunchBound> bounds;
};

perf::SimtResult kernel_model(const char* law, engine::Precision precision) {
  SampleSpec spec = systems::default_spec(Scenario::contact);
  LawOptions opt;
  opt.steps = 250;
  const perf::SimtGeometry g;  // 64 warps x 8 rounds
  const perf::PathTrace t = trace_paths(law, precision, spec, 1, opt, g);
  return simt_model(t, simt_blocks(law), g, perf::Schedule::persistent);
}

// The model's instances per second at bound b, with its local traffic or (local false) without.
double predicted_rate(const perf::SimtResult& r, const LaunchBound& b, bool local) {
  const perf::LocalTraffic lt = local ? perf::LocalTraffic{b.loads, b.stores} : perf::LocalTraffic{};
  return 1.0 / predicted_seconds(r, lt, 1.0, perf::occupancy_of_blocks(b.blocks, 128));
}

// The largest relative error of the predicted rates of a group once its scale is fitted (the mean
// log ratio): the model is held to the ratios between the bounds of one build, not to their rates.
double worst_ratio_error(const LaunchBoundGroup& grp, const perf::SimtResult& r, bool local) {
  std::vector<double> log_ratio;
  for (const LaunchBound& b : grp.bounds) log_ratio.push_back(std::log(b.rate / predicted_rate(r, b, local)));
  double mean = 0;
  for (double x : log_ratio) mean += x / static_cast<double>(log_ratio.size());
  double worst = 0;
  for (std::size_t i = 0; i < log_ratio.size(); ++i) {
    const double err = std::exp(log_ratio[i] - mean) - 1;
    std::printf("[ simt    ] %s %s (%s) at %d blocks%s: measured / predicted rate %+.1f%%\n", grp.law,
                grp.precision == engine::Precision::f32 ? "float" : "double", grp.build, grp.bounds[i].blocks,
                local ? "" : ", no local term", 100 * err);
    worst = std::max(worst, std::fabs(err));
  }
  return worst;
}

}  // namespace

// The local-memory term against the four launch-bound experiments of the H200 (docs/perf-log.md): jia
// and stronge in float at 4, 5 and 6 blocks per SM (one build), in double at 3, 4 and 5 (the next).
// Without it the model counts occupancy alone and puts jia double at 5 blocks (96 registers, 1146 /
// 1644 B of spills) 1.7x ahead of 3 (168 registers), which the H200 measured 1.8x behind; with it,
// every rate within 20% of its group's measured shape (the fit, GpuTiming: 62 cycles a load, none a
// store, leaves at most 18%).
TEST(SimtLocalMemory, LaunchBoundsOnTheH200) {
  const std::vector<LaunchBoundGroup> groups = {
      {"jia",
       engine::Precision::f32,
       "float launch bounds",
       {{4, 3.96e7, 20246, 10306}, {5, 4.085e7, 24272, 10306}, {6, 3.66e7, 36906, 14206}}},
      {"stronge",
       engine::Precision::f32,
       "float launch bounds",
       {{4, 1.265e8, 0, 2219}, {5, 1.28e8, 1096, 2219}, {6, 1.31e8, 2948, 2698}}},
      {"jia",
       engine::Precision::f64,
       "double launch bounds",
       {{3, 2.34e7, 11958, 12005}, {4, 2.135e7, 36448, 24409}, {5, 1.305e7, 185083, 144743}}},
      {"stronge",
       engine::Precision::f64,
       "double launch bounds",
       {{3, 6.26e7, 410, 3717}, {4, 6.62e7, 6678, 5499}, {5, 4.015e7, 20975, 17667}}},
  };
  for (const LaunchBoundGroup& grp : groups) {
    const perf::SimtResult r = kernel_model(grp.law, grp.precision);
    EXPECT_LT(worst_ratio_error(grp, r, true), 0.20) << grp.law;
    if (std::string(grp.law) == "jia" && grp.precision == engine::Precision::f64) {
      const LaunchBound &three = grp.bounds[0], &five = grp.bounds[2];
      EXPECT_GT(predicted_rate(r, five, false), 1.5 * predicted_rate(r, three, false));  // occupancy alone: 5 ahead
      EXPECT_LT(predicted_rate(r, five, true), predicted_rate(r, three, true));          // with local memory: behind
      EXPECT_GT(worst_ratio_error(grp, r, false), 0.4);
    }
  }
}
