// On-device reduction: the merged streaming summary of a batch equals the statistics of its stored
// per-row outputs (counts exactly, moments to reassociation round-off), whatever the merge order.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "batch_buffers.hpp"
#include "impact/laws/chatterjee_ruina.hpp"
#include "impact/laws/jia.hpp"
#include "kernels/omp/omp.hpp"
#include "kernels/serial/serial.hpp"

using namespace impact;
using impact::testing::Buffers;
using impact::testing::instances;

namespace {

SummaryRanges ranges() { return impact::testing::summary_ranges({0, 0, 0, -1}, {5, 5, 5, 0}); }

template <class Law>
void check() {
  const auto ps = instances(20000);
  Buffers<double> b(ps);
  LawOptions opt;
  opt.steps = 100;
  serial::evaluate<Law, double>(b.bin, b.bout, opt);
  const SummaryRanges rg = ranges();
  const BatchSummary red = omp::reduce<Law, double>(b.bin, opt, rg);
  const BatchSummary ser = serial::reduce<Law, double>(b.bin, opt, rg);
  // two-pass statistics of the stored outputs
  std::vector<double> x[kNumQuantities];
  std::uint64_t status[static_cast<int>(Status::count_)] = {};
  for (std::size_t i = 0; i < ps.size(); ++i) {
    ++status[b.out.status[i]];
    if (b.out.status[i] != 0) continue;
    Result<double> r = make_result<double>(Status::ok);
    r.P = b.out.P(i);
    r.vf = b.out.vf(i);
    r.dE = b.out.real[out_dE][i];
    const BatchSummary one = summarize_row(ps[i], r, rg);
    for (int k = 0; k < kNumQuantities; ++k) x[k].push_back(one.q[k].mean);
  }
  for (int s = 0; s < static_cast<int>(Status::count_); ++s) {
    EXPECT_EQ(red.status[s], status[s]);
    EXPECT_EQ(ser.status[s], status[s]);
  }
  for (int k = 0; k < kNumQuantities; ++k) {
    const auto& v = x[k];
    double mean = 0;
    for (double y : v) mean += y;
    mean /= v.size();
    double m2 = 0;
    for (double y : v) m2 += (y - mean) * (y - mean);
    const double var = m2 / (v.size() - 1);
    EXPECT_EQ(red.q[k].n, double(v.size()));
    EXPECT_NEAR(red.q[k].mean, mean, 1e-12 * (1 + std::fabs(mean)));
    EXPECT_NEAR(red.q[k].variance(), var, 1e-10 * var);
    EXPECT_EQ(red.q[k].min, *std::min_element(v.begin(), v.end()));
    EXPECT_EQ(red.q[k].max, *std::max_element(v.begin(), v.end()));
    std::uint64_t total = 0;
    for (int i = 0; i < Histogram::kBins + 2; ++i) {
      EXPECT_EQ(red.h[k].count[i], ser.h[k].count[i]);
      total += red.h[k].count[i];
    }
    EXPECT_EQ(total, v.size());
    // the histogram is exact: recount bin by bin
    for (int i = 0; i < Histogram::kBins + 2; ++i) {
      const auto c = std::count_if(v.begin(), v.end(), [&](double y) { return red.h[k].bin(y) == i; });
      EXPECT_EQ(red.h[k].count[i], std::uint64_t(c));
    }
  }
}

}  // namespace

TEST(Reduction, SummaryEqualsStoredOutputsChatterjeeRuina) { check<ChatterjeeRuinaLaw>(); }
TEST(Reduction, SummaryEqualsStoredOutputsJia) { check<JiaLaw>(); }

TEST(Reduction, MomentsMergeIsOrderIndependent) {
  // merging in two different trees gives the same moments to round-off
  Moments a = Moments::identity(), b = Moments::identity();
  std::vector<Moments> parts;
  for (int i = 0; i < 1000; ++i) parts.push_back(Moments::of(std::sin(0.37 * i) * 1e3 + 5e3));
  for (const Moments& m : parts) a = merge(a, m);
  for (int w = 1; w < 1000; w *= 2)  // pairwise tree
    for (int i = 0; i + w < 1000; i += 2 * w) parts[i] = merge(parts[i], parts[i + w]);
  b = parts[0];
  EXPECT_EQ(a.n, b.n);
  EXPECT_NEAR(a.mean, b.mean, 1e-12 * a.mean);
  EXPECT_NEAR(a.variance(), b.variance(), 1e-9 * a.variance());
  EXPECT_EQ(a.min, b.min);
  EXPECT_EQ(a.max, b.max);
}
