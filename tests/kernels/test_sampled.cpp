// The sampled reduction (kernels/sampled.hpp) on the serial and OMP backends: accumulate_row equals
// summarize_row merged, sampled equals materialized instances, shards merge to the whole, OMP equals
// serial, and flat memory in the instance count (`impact reduce`).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "batch_buffers.hpp"
#include "impact/laws/chatterjee_ruina.hpp"
#include "impact/laws/jia.hpp"
#include "impact/laws/stronge.hpp"
#include "impact/sampling.hpp"
#include "kernels/omp/omp.hpp"
#include "kernels/serial/serial.hpp"
#include "kernels/sampled.hpp"
#include "systems/sample_spec.hpp"

using namespace impact;

namespace {

SummaryRanges test_ranges() { return impact::testing::summary_ranges({0, 0, 0, -1}, {6, 4, 5, 0.2}); }

// every byte: counts, histograms, extremes and the exact sums
void expect_summaries_identical(const BatchSummary& a, const BatchSummary& b, const char* what) {
  EXPECT_EQ(std::memcmp(&a, &b, sizeof a), 0) << what << ": mean Pn " << a.q[kPn].mean() << " / " << b.q[kPn].mean();
}

}  // namespace

// ---- reduction ----------------------------------------------------------------------------------

TEST(SampledReduction, AccumulateRowIsSummarizeRowMerged) {
  const SampleSpec spec = systems::default_spec(Scenario::contact);
  const SummaryRanges rg = test_ranges();
  BatchSummary a = summary_identity(rg), b = summary_identity(rg);
  LawOptions opt;
  for (std::uint64_t i = 0; i < 5000; ++i) {
    const ContactProblem<double> p = make_instance<double>(spec, 4, i);
    const Result<double> r = ChatterjeeRuinaLaw::eval<double>(p, opt);
    accumulate_row(a, p, r);
    b = merge(b, summarize_row(p, r, rg));
  }
  EXPECT_EQ(std::memcmp(&a, &b, sizeof a), 0);
  EXPECT_GT(a.status[0], 4000u);
}

TEST(SampledReduction, SampledEqualsMaterializedInstances) {
  for (Scenario sc : {Scenario::contact, Scenario::ball}) {
    const SampleSpec spec = systems::default_spec(sc);
    const std::uint64_t begin = 1000000007ull;
    const std::size_t m = 3000;
    std::vector<double> col[kNumInputs];
    double* cols[kNumInputs];
    std::vector<float> fcol[kNumInputs];
    float* fcols[kNumInputs];
    for (int k = 0; k < kNumInputs; ++k) col[k].resize(m), cols[k] = col[k].data(), fcol[k].resize(m), fcols[k] = fcol[k].data();
    materialize<double>(spec, 21, begin, m, cols);
    materialize<float>(spec, 21, begin, m, fcols);
    const BatchIn<double> in = batch_in_of<double>(cols, m);
    const BatchIn<float> fin = batch_in_of<float>(fcols, m);
    for (std::size_t i = 0; i < m; ++i) {
      const ContactProblem<double> a = load_instance(in, i), b = make_instance<double>(spec, 21, begin + i);
      ASSERT_EQ(std::memcmp(&a, &b, sizeof a), 0) << i;
      const ContactProblem<float> fa = load_instance(fin, i), fb = make_instance<float>(spec, 21, begin + i);
      ASSERT_EQ(std::memcmp(&fa, &fb, sizeof fa), 0) << i;
      EXPECT_EQ(fa.W.xy, static_cast<float>(a.W.xy));
    }
    // the stored-input reduction of the materialized rows equals the sampled reduction, bit for bit
    // (the same merges in the same order)
    const SummaryRanges rg = test_ranges();
    LawOptions opt;
    opt.steps = 60;
    const BatchSummary stored = serial::reduce<JiaLaw, double>(in, opt, rg);
    const BatchSummary sampled = serial::reduce_sampled<JiaLaw, double>(spec, 21, begin, begin + m, opt, rg);
    EXPECT_EQ(std::memcmp(&stored, &sampled, sizeof stored), 0);
    EXPECT_GT(sampled.status[0], m / 2);
  }
}

template <class Law>
void check_shards_and_omp(std::uint64_t n, int steps) {
  const SampleSpec spec = systems::default_spec(Scenario::contact);
  const SummaryRanges rg = test_ranges();
  LawOptions opt;
  opt.steps = steps;
  const std::uint64_t b = 5000;
  const BatchSummary whole = serial::reduce_sampled<Law, double>(spec, 77, b, b + n, opt, rg);
  const BatchSummary halves = merge(serial::reduce_sampled<Law, double>(spec, 77, b, b + n / 2, opt, rg),
                                    serial::reduce_sampled<Law, double>(spec, 77, b + n / 2, b + n, opt, rg));
  expect_summaries_identical(halves, whole, "serial halves");
  const BatchSummary omp = omp::reduce_sampled<Law, double>(spec, 77, b, b + n, opt, rg);
  expect_summaries_identical(omp, whole, "omp vs serial");
  const BatchSummary omp_halves = merge(omp::reduce_sampled<Law, double>(spec, 77, b, b + n / 3, opt, rg),
                                        omp::reduce_sampled<Law, double>(spec, 77, b + n / 3, b + n, opt, rg));
  expect_summaries_identical(omp_halves, whole, "omp shards");
  // float on OMP equals float serially (the same float evaluation per row)
  expect_summaries_identical(omp::reduce_sampled<Law, float>(spec, 77, b, b + n / 4, opt, rg),
                             serial::reduce_sampled<Law, float>(spec, 77, b, b + n / 4, opt, rg), "float omp");
  EXPECT_GT(whole.status[0], n / 2);
  std::uint64_t total = 0;
  for (int s = 0; s < static_cast<int>(Status::count_); ++s) total += whole.status[s];
  EXPECT_EQ(total, n);
  // the test can fail: a shifted shard does not match
  const BatchSummary shifted = serial::reduce_sampled<Law, double>(spec, 77, b + 1, b + n + 1, opt, rg);
  EXPECT_NE(shifted.q[kPn].mean(), whole.q[kPn].mean());
  EXPECT_NE(std::memcmp(&shifted, &whole, sizeof whole), 0);
}

TEST(SampledReduction, ShardsMergeToWholeAndOmpEqualsSerialChatterjeeRuina) {
  check_shards_and_omp<ChatterjeeRuinaLaw>(200000, 250);
}
TEST(SampledReduction, ShardsMergeToWholeAndOmpEqualsSerialJia) { check_shards_and_omp<JiaLaw>(6000, 50); }
TEST(SampledReduction, ShardsMergeToWholeAndOmpEqualsSerialStronge) { check_shards_and_omp<StrongeLaw>(6000, 50); }

// ---- flat memory -------------------------------------------------------------------------------------

#ifdef IMPACT_BINARY
namespace {
long reduce_peak_rss_kb(std::uint64_t n) {
  const std::string json = std::string(::testing::TempDir()) + "impact_reduce_rss_" + std::to_string(n) + ".json";
  const std::string cmd =
      std::string(IMPACT_BINARY) + " reduce --law chatterjee-ruina --backend omp -q --n " + std::to_string(n) + " --out " + json;
  if (std::system(cmd.c_str()) != 0) return -1;
  std::ifstream f(json);
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string s = ss.str();
  const std::size_t p = s.find("\"peak_rss_kb\": ");
  std::remove(json.c_str());
  return p == std::string::npos ? -1 : std::atol(s.c_str() + p + 15);
}
}  // namespace

TEST(SampledReduction, PeakMemoryFlatInInstanceCount) {
  // two processes of `impact reduce` (chatterjee-ruina, OMP): 10^5 and 2 10^6 instances; stored
  // inputs alone would be 16 columns x 8 bytes x 1.9 10^6 = 243 MB more
  const long small = reduce_peak_rss_kb(100000), large = reduce_peak_rss_kb(2000000);
  ASSERT_GT(small, 0);
  ASSERT_GT(large, 0);
  std::printf("peak RSS: N = 1e5: %.1f MB, N = 2e6: %.1f MB\n", small / 1024.0, large / 1024.0);
  EXPECT_LT(large - small, 4 * 1024);
}
#endif
