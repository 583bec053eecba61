// `auto` from a trial on the run's own rows (host/engine/backend_trial.hpp): the sizes a trial
// times and the line it draws through them, a candidate that fails, the choice that moves with the
// batch size, and a chooser whose outputs are the chosen backend's bits.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/backend_pick.hpp"
#include "engine/backend_trial.hpp"
#include "engine/device.hpp"
#include "engine/registry.hpp"
#include "batch_buffers.hpp"
#include <omp.h>

using impact::BatchIn;
using impact::BatchOut;
using impact::LawOptions;
using impact::engine::Backend;
using impact::engine::BatchCost;
using impact::engine::trial_costs;
using impact::engine::TrialBatch;
using impact::engine::TrialCandidate;
using impact::engine::TrialSizes;

namespace {

// A candidate whose batches take fixed + rows / rate seconds, whose first call takes a second (a
// context's start) and whose first timing of each size is 50% slow (a buffer grown): the trial must
// see neither. It records the sizes asked for.
struct Modelled {
  Modelled(double fixed_s, double rows_per_s) : fixed(fixed_s), rate(rows_per_s) {}
  double fixed, rate;
  std::vector<std::size_t> asked;
  TrialCandidate candidate(Backend b) {
    return {b, [this](std::size_t rows) {
              const bool first = asked.empty();
              bool seen = false;
              for (std::size_t a : asked) seen = seen || a == rows;
              asked.push_back(rows);
              const double t = fixed + double(rows) / rate;
              return first ? 1.0 : seen ? t : 1.5 * t;
            }};
  }
};

}  // namespace

TEST(BackendTrial, TheLineThroughTheTimedBatchesIgnoresTheFirstCallAndTheSlowRepeats) {
  Modelled gpu{40e-6, 5e7}, cpu{5e-6, 2e6};
  const std::vector<BatchCost> c =
      trial_costs({gpu.candidate(Backend::cuda), cpu.candidate(Backend::omp)}, 65536, TrialSizes{64, 0.02, 3});
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].backend, Backend::cuda);
  EXPECT_NEAR(c[0].fixed_s, 40e-6, 1e-12);
  EXPECT_NEAR(c[0].rows_per_s / 5e7, 1.0, 1e-9);
  EXPECT_NEAR(c[1].fixed_s, 5e-6, 1e-12);
  EXPECT_NEAR(c[1].rows_per_s / 2e6, 1.0, 1e-9);
  // the GPU's batches double from 64 to every row on hand (65536 rows take 1.35 ms < 20 ms): the
  // untimed call, then 3 timings of each of the 11 sizes
  ASSERT_EQ(gpu.asked.size(), 1u + 3u * 11u);
  EXPECT_EQ(gpu.asked.front(), 64u);
  EXPECT_EQ(gpu.asked.back(), 65536u);
  // of 2^20 rows on hand, omp stops at the first size that takes 20 ms: 65536 rows take 32.8 ms,
  // 32768 take 16.4 ms; its line through 8192 and 65536 is the same
  Modelled cpu_long(5e-6, 2e6);
  const std::vector<BatchCost> l = trial_costs({cpu_long.candidate(Backend::omp)}, 1 << 20, TrialSizes{64, 0.02, 3});
  EXPECT_EQ(cpu_long.asked.back(), 65536u);
  EXPECT_EQ(cpu_long.asked.size(), 1u + 3u * 11u);
  EXPECT_NEAR(l[0].rows_per_s / 2e6, 1.0, 1e-9);
  // a table of 100 rows: the least size is 100 / 8 = 12 rows, the last one every row
  Modelled small{1e-3, 1e5};
  trial_costs({small.candidate(Backend::serial)}, 100, TrialSizes{});
  EXPECT_EQ(small.asked.front(), 12u);
  EXPECT_EQ(small.asked.back(), 100u);
}

TEST(BackendTrial, ASlowFirstSizeStillGivesALine) {
  // 64 rows take 0.1 s, over enough_s: one larger batch is timed for the rate
  Modelled slow{0.0, 640};
  const std::vector<BatchCost> c = trial_costs({slow.candidate(Backend::serial)}, 1000, TrialSizes{64, 0.02, 2});
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(slow.asked.back(), 128u);
  EXPECT_NEAR(c[0].rows_per_s / 640, 1.0, 1e-9);
  EXPECT_NEAR(c[0].fixed_s, 0.0, 1e-12);
  EXPECT_THROW(trial_costs({slow.candidate(Backend::serial)}, 1, TrialSizes{}), std::invalid_argument);
}

TEST(BackendTrial, ACandidateThatThrowsIsDroppedAndNamed) {
  Modelled cpu{5e-6, 2e6};
  const TrialCandidate broken{Backend::cuda, [](std::size_t) -> double { throw std::runtime_error("out of memory"); }};
  std::string dropped;
  const std::vector<BatchCost> c = trial_costs({broken, cpu.candidate(Backend::omp)}, 4096, TrialSizes{}, &dropped);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].backend, Backend::omp);
  EXPECT_EQ(dropped, "cuda: out of memory");
}

namespace {

// Two stand-ins for backends, told apart by what they write: one of a large fixed cost and no cost
// per row, one with no fixed cost and a cost per row. Both wait on the clock, so that a loaded
// machine makes them slower but never faster than their cost.
void wait_for(double seconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < until) {}
}
template <int Mark>
void mark_rows(const BatchOut<double>& out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out.real[0][i] = Mark;
}
void fixed_cost(const BatchIn<double>& in, const BatchOut<double>& out, const LawOptions&) {
  wait_for(3e-3);
  mark_rows<1>(out, in.count);
}
void row_cost(const BatchIn<double>& in, const BatchOut<double>& out, const LawOptions&) {
  wait_for(1e-6 * double(in.count));
  mark_rows<2>(out, in.count);
}

// The marks a TrialBatch leaves on `n` rows for batches of `batch_rows`.
std::vector<double> marks_of(TrialBatch<double>& t, std::size_t n) {
  std::vector<double> real(n, 0.0);
  BatchOut<double> out{};
  out.real[0] = real.data();
  BatchIn<double> in{};
  in.count = n;
  t(in, out, LawOptions{});
  return real;
}

}  // namespace

TEST(BackendTrial, TheChoiceMovesWithTheBatchAndEveryRowIsTheChosenOnes) {
  using Fns = std::vector<std::pair<Backend, impact::engine::BatchFn<double>>>;
  // chunks of 20000 rows: 3 ms against 20 ms; the trial's batches of up to 8000 rows
  TrialBatch<double> big(Fns{{Backend::omp, &row_cost}, {Backend::cuda, &fixed_cost}}, 20000, "");
  EXPECT_EQ(big.backend(), Backend::omp);  // the first candidate until decided
  const std::vector<double> a = marks_of(big, 8000);
  ASSERT_TRUE(big.decided());
  EXPECT_EQ(big.backend(), Backend::cuda) << big.why();
  for (double m : a) ASSERT_EQ(m, 1.0);  // the trial's batches overwritten by the chosen one's
  EXPECT_EQ(big.why().rfind(" (auto: trial of batches of up to 8000 rows: omp ", 0), 0u) << big.why();
  EXPECT_NE(big.why().find(" for a batch of 20000 rows: cuda)"), std::string::npos) << big.why();
  // chunks of 100 rows: 0.1 ms against 3 ms
  TrialBatch<double> few(Fns{{Backend::omp, &row_cost}, {Backend::cuda, &fixed_cost}}, 100, "", "cuda is a stand-in");
  const std::vector<double> b = marks_of(few, 800);
  EXPECT_EQ(few.backend(), Backend::omp) << few.why();
  for (double m : b) ASSERT_EQ(m, 2.0);
  EXPECT_NE(few.why().find(" for a batch of 100 rows: omp; cuda is a stand-in)"), std::string::npos) << few.why();
  // one row: no trial, the first candidate
  TrialBatch<double> one(Fns{{Backend::cuda, &fixed_cost}, {Backend::omp, &row_cost}}, 1, "");
  EXPECT_EQ(marks_of(one, 1)[0], 1.0);
  EXPECT_EQ(one.why(), " (auto: too few rows for a trial, cuda)");
  EXPECT_THROW(TrialBatch<double>(Fns{}, 10, ""), std::invalid_argument);
  EXPECT_THROW(TrialBatch<double>(Fns{{Backend::omp, nullptr}}, 10, ""), std::invalid_argument);
}

TEST(BackendTrial, ALawsChoiceGivesTheSerialBitsAndIsTimedOncePerProcess) {
  // serial and omp run the same code: whichever the trial picks, every output is serial's bits
  const impact::engine::LawInfo& law = impact::engine::law_named("chatterjee-ruina");
  const std::vector<impact::ContactProblem<double>> ps = impact::testing::instances(3000);
  impact::testing::Buffers<double> want(ps), got(ps);
  impact::engine::batch_fn<double>(law, Backend::serial)(want.bin, want.bout, LawOptions{});
  using Fns = std::vector<std::pair<Backend, impact::engine::BatchFn<double>>>;
  const Fns fns{{Backend::omp, impact::engine::batch_fn<double>(law, Backend::omp)},
                {Backend::serial, impact::engine::batch_fn<double>(law, Backend::serial)}};
  const std::string key = "chatterjee-ruina double, a test of its own";
  TrialBatch<double> t(fns, 3000, key);
  t(got.bin, got.bout, LawOptions{});
  EXPECT_TRUE(t.backend() == Backend::omp || t.backend() == Backend::serial);
  EXPECT_EQ(t.why().rfind(" (auto: trial of batches of up to 3000 rows: ", 0), 0u) << t.why();
  for (int k = 0; k < impact::kNumRealOutputs; ++k)
    ASSERT_EQ(std::memcmp(want.out.real[k].data(), got.out.real[k].data(), ps.size() * sizeof(double)), 0) << k;
  ASSERT_EQ(std::memcmp(want.out.status.data(), got.out.status.data(), ps.size()), 0);
  ASSERT_EQ(std::memcmp(want.out.modes.data(), got.out.modes.data(), ps.size() * sizeof(std::uint32_t)), 0);
  EXPECT_EQ(t.key(), key + " among omp, serial");
  ASSERT_NE(impact::engine::costs_known(t.key()), nullptr);
  // the same key later in the process: the lines are not timed again, and the choice is the same
  TrialBatch<double> again(fns, 3000, key);
  impact::testing::Buffers<double> third(ps);
  again(third.bin, third.bout, LawOptions{});
  EXPECT_EQ(again.backend(), t.backend());
  EXPECT_EQ(again.why().rfind(" (auto: from a trial earlier in this process: ", 0), 0u) << again.why();
  // other candidates under the same key (a larger call: no serial) are timed anew, never served
  // another set's lines
  TrialBatch<double> other(Fns{fns[0]}, 3000, key);
  impact::testing::Buffers<double> fourth(ps);
  other(fourth.bin, fourth.bout, LawOptions{});
  EXPECT_EQ(other.backend(), Backend::omp);
  EXPECT_EQ(other.why().rfind(" (auto: trial of batches of up to 3000 rows: omp ", 0), 0u) << other.why();
  EXPECT_EQ(other.why().find("serial"), std::string::npos) << other.why();
  // a stop raised during the trial: its lines are not kept
  const volatile std::int32_t raised = 1;
  LawOptions stopped;
  stopped.stop = &raised;
  TrialBatch<double> cut(fns, 3000, "chatterjee-ruina double, stopped");
  impact::testing::Buffers<double> fifth(ps);
  cut(fifth.bin, fifth.bout, stopped);
  EXPECT_EQ(impact::engine::costs_known(cut.key()), nullptr);
}

TEST(BackendTrial, AutoCandidatesWithoutAUsableDeviceAreTheCpusAndSayWhy) {
  impact::engine::Workload w;
  w.laws = {&impact::engine::law_named("newton")};
  w.rows = 1e6;
  const impact::engine::AutoCandidates big = impact::engine::auto_candidates(w, 65536);
  EXPECT_EQ(big.backends.front(), Backend::omp);
  for (Backend b : big.backends) EXPECT_NE(b, Backend::serial);  // chunks past kParallelRows: the team pays
  const impact::engine::AutoCandidates small = impact::engine::auto_candidates(w, 1000);
  EXPECT_EQ(small.backends.size() - big.backends.size(), omp_get_max_threads() > 1 ? 1u : 0u);
  if (!impact::engine::cuda_usable()) {  // the reason is pick_backend's, in the same words
    EXPECT_FALSE(big.no_gpu.empty());
    EXPECT_EQ(impact::engine::pick_backend("auto", w, false).why, " (auto: " + big.no_gpu + ")");
  }
}
