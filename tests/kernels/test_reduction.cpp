// On-device reduction: the merged streaming summary of a batch equals the statistics of its stored
// per-row outputs (counts exactly, moments to an ulp or so), and the summary's exact sums
// (impact/exact_sums.hpp) give the same bits in any order; the study's Welford moments agree to
// round-off whatever the merge order.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "batch_buffers.hpp"
#include "impact/laws/chatterjee_ruina.hpp"
#include "impact/laws/jia.hpp"
#include "kernels/omp/omp.hpp"
#include "kernels/serial/serial.hpp"

using namespace impact;
using impact::testing::Buffers;
using impact::testing::instances;

namespace {

// sum of v (or of (v - c)^2), compensated
double neumaier(const std::vector<double>& v, double c, bool squares) {
  double s = 0, comp = 0;
  for (double y : v) {
    const double t = squares ? (y - c) * (y - c) : y;
    const double u = s + t;
    comp += std::fabs(s) >= std::fabs(t) ? (s - u) + t : (t - u) + s;
    s = u;
  }
  return s + comp;
}

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
    double q[kNumQuantities];
    summary_quantities(ps[i], r, q);
    for (int k = 0; k < kNumQuantities; ++k) x[k].push_back(q[k]);
  }
  for (int s = 0; s < static_cast<int>(Status::count_); ++s) {
    EXPECT_EQ(red.status[s], status[s]);
    EXPECT_EQ(ser.status[s], status[s]);
  }
  for (int k = 0; k < kNumQuantities; ++k) {
    const auto& v = x[k];
    // two-pass statistics with compensated (Neumaier) sums: within an ulp or two of the exact ones
    const double mean = neumaier(v, 0.0, false) / double(v.size());
    const double var = neumaier(v, mean, true) / double(v.size() - 1);
    EXPECT_EQ(red.q[k].n, v.size());
    EXPECT_EQ(red.q[k].far, 0u);
    EXPECT_NEAR(red.q[k].mean(), mean, 8e-16 * std::fabs(mean) + 1e-300);
    EXPECT_NEAR(red.q[k].variance(), var, 1e-14 * var);
    EXPECT_EQ(std::memcmp(&red.q[k], &ser.q[k], sizeof red.q[k]), 0) << "omp and serial: the same bits";
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

// ---- the summary's exact sums ----------------------------------------------------------------

TEST(ExactSums, AnyOrderGivesTheSameBits) {
  // values of mixed sign and magnitude (down to 1e-9 of the range, and a subnormal), merged one by
  // one forwards and backwards, in a pairwise tree and in shuffled groups: every byte equal
  const int e = exact::range_exponent(-3.0, 7.5);
  EXPECT_EQ(e, 3);
  std::mt19937_64 g(7);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> xs;
  for (int i = 0; i < 5000; ++i) xs.push_back(u(g) * std::pow(10.0, (i % 11) - 9) * 7.0);
  xs.push_back(4.9e-324);
  xs.push_back(-0.0);
  xs.push_back(0.0);
  auto fold = [&](const std::vector<double>& v) {
    SumMoments m = SumMoments::identity(e);
    for (double x : v) m.add(x);
    return m;
  };
  const SumMoments fwd = fold(xs);
  std::vector<double> rev(xs.rbegin(), xs.rend());
  const SumMoments bwd = fold(rev);
  std::vector<SumMoments> parts;
  for (double x : xs) {
    SumMoments one = SumMoments::identity(e);
    one.add(x);
    parts.push_back(one);
  }
  for (std::size_t w = 1; w < parts.size(); w *= 2)
    for (std::size_t i = 0; i + w < parts.size(); i += 2 * w) parts[i] = merge(parts[i], parts[i + w]);
  const SumMoments tree = parts[0];
  for (int trial = 0; trial < 4; ++trial) {
    std::vector<double> sh = xs;
    std::shuffle(sh.begin(), sh.end(), g);
    SumMoments acc = SumMoments::identity(e);
    for (std::size_t b = 0; b < sh.size(); b += 97) {
      std::vector<double> piece(sh.begin() + b, sh.begin() + std::min(sh.size(), b + 97));
      acc = merge(fold(piece), acc);  // groups merged in a varying order
    }
    EXPECT_EQ(std::memcmp(&acc, &fwd, sizeof acc), 0) << "shuffle " << trial;
  }
  EXPECT_EQ(std::memcmp(&fwd, &bwd, sizeof fwd), 0);
  EXPECT_EQ(std::memcmp(&fwd, &tree, sizeof fwd), 0);
  EXPECT_EQ(fwd.n, xs.size());
  EXPECT_EQ(fwd.far, 0u);
  EXPECT_EQ(fwd.min, *std::min_element(xs.begin(), xs.end()));
  EXPECT_EQ(fwd.max, *std::max_element(xs.begin(), xs.end()));
  EXPECT_TRUE(std::signbit(fold({0.0, -0.0}).min)) << "-0 comes before +0 in any order";
  EXPECT_TRUE(std::signbit(fold({-0.0, 0.0}).min));
  EXPECT_FALSE(std::signbit(fold({-0.0, 0.0}).max));
  // against compensated two-pass sums: the grid is 2^(3 - 60), far below the mean's ulp here
  EXPECT_NEAR(fwd.mean(), neumaier(xs, 0, false) / double(xs.size()), 1e-17);
  const double mu = neumaier(xs, 0, false) / double(xs.size());
  EXPECT_NEAR(fwd.variance(), neumaier(xs, mu, true) / double(xs.size() - 1), 1e-15 * fwd.variance());
}

TEST(ExactSums, TheGridIsExactAndRoundsTiesToEven) {
  const int e = exact::range_exponent(0.0, 1.0);  // 1 < 2^1: grid 2^-59
  EXPECT_EQ(e, 1);
  exact::Fixed f;
  ASSERT_TRUE(exact::quantize(1.0, e, f));
  EXPECT_EQ(f.q0, std::uint64_t(1) << 59);
  EXPECT_EQ(f.q1, 0u);
  ASSERT_TRUE(exact::quantize(-3.0 * 1024 * 1024, e, f));  // 3 2^20 2^59 = 3 2^79: the high word
  EXPECT_TRUE(f.neg);
  EXPECT_EQ(f.q0, 0u);
  EXPECT_EQ(f.q1, std::uint64_t(3) << 15);
  ASSERT_TRUE(exact::quantize(std::ldexp(1.0, -60), e, f));  // half a grid step: ties to even, 0
  EXPECT_EQ(f.q0, 0u);
  ASSERT_TRUE(exact::quantize(std::ldexp(3.0, -60), e, f));  // 1.5 steps -> 2
  EXPECT_EQ(f.q0, 2u);
  ASSERT_TRUE(exact::quantize(std::ldexp(5.0, -60), e, f));  // 2.5 steps -> 2
  EXPECT_EQ(f.q0, 2u);
  ASSERT_TRUE(exact::quantize(std::ldexp(1.0, -59) + std::ldexp(1.0, -80), e, f));  // just above 1 step
  EXPECT_EQ(f.q0, 1u);
  // the window: |x| < 2^(e + 24)
  EXPECT_TRUE(exact::quantize(std::nextafter(std::ldexp(1.0, 25), 0.0), e, f));
  EXPECT_FALSE(exact::quantize(std::ldexp(1.0, 25), e, f));
  EXPECT_FALSE(exact::quantize(std::numeric_limits<double>::infinity(), e, f));
  EXPECT_FALSE(exact::quantize(std::numeric_limits<double>::quiet_NaN(), e, f));
  // a value on the grid comes back exactly; identical values have variance exactly 0
  SumMoments m = SumMoments::identity(e);
  for (int i = 0; i < 1000; ++i) m.add(0.3);
  EXPECT_EQ(m.variance(), 0.0);
  EXPECT_NEAR(m.mean(), 0.3, 1e-16);
  SumMoments one = SumMoments::identity(e);
  one.add(0.75);
  EXPECT_EQ(one.mean(), 0.75);
  EXPECT_TRUE(std::isnan(one.variance()));
  EXPECT_TRUE(std::isnan(one.sd()));
  // two values: the variance of {a, b} is (a - b)^2 / 2 exactly here
  one.add(0.25);
  EXPECT_EQ(one.variance(), 0.125);
  EXPECT_EQ(one.sd(), std::sqrt(0.125));
  EXPECT_EQ(one.mean(), 0.5);
}

TEST(ExactSums, ValuesBeyondBothTiersAreCountedAndTheMomentsSaySo) {
  SumMoments m = SumMoments::identity(exact::range_exponent(0.0, 1.0));
  m.add(0.5);
  m.add(1e30);  // 2^99.7 >= 2^(1 + 72): beyond the wide tier too
  m.add(std::numeric_limits<double>::quiet_NaN());
  EXPECT_EQ(m.n, 1u);
  EXPECT_EQ(m.far, 2u);
  EXPECT_EQ(m.count(), 3u);
  EXPECT_TRUE(std::isnan(m.mean()));
  EXPECT_TRUE(std::isnan(m.sd()));
  EXPECT_TRUE(std::isnan(m.variance()));
  EXPECT_EQ(m.max, 1e30);  // the extremes keep every finite value
  EXPECT_EQ(m.min, 0.5);
}

// A heavy tail the pilot's range did not see: values up to 2^72 times the range's scale go to the wide
// tier and are summed with the near ones, exactly and in any order.
TEST(ExactSums, TheWideTierSumsATailBeyondTheRange) {
  const int e = exact::range_exponent(0.0, 1.0);
  std::vector<double> xs;
  std::mt19937_64 g(11);
  std::uniform_real_distribution<double> u(0, 1);
  for (int i = 0; i < 2000; ++i) xs.push_back(u(g));
  for (int i = 0; i < 20; ++i) xs.push_back((i % 2 ? -1 : 1) * std::ldexp(1.0 + u(g), 26 + 2 * i));  // 2^26 .. 2^65
  SumMoments a = SumMoments::identity(e), b = SumMoments::identity(e);
  for (double x : xs) a.add(x);
  for (auto it = xs.rbegin(); it != xs.rend(); ++it) b.add(*it);
  EXPECT_EQ(std::memcmp(&a, &b, sizeof a), 0);
  EXPECT_EQ(a.n, xs.size());
  EXPECT_EQ(a.far, 0u);
  // a wide value is rounded to 2^(1 + 48 - 60) = 2^-11: relative error 2^-37 at most here
  const double mean = neumaier(xs, 0, false) / double(xs.size());
  EXPECT_NEAR(a.mean(), mean, 1e-9 * std::fabs(mean) + 1e-6);
  EXPECT_NEAR(a.sd(), std::sqrt(neumaier(xs, mean, true) / double(xs.size() - 1)), 1e-9 * a.sd());
  const SumMoments none = SumMoments::identity(e);
  EXPECT_NE(std::memcmp(&a.wide, &none.wide, sizeof a.wide), 0) << "the test reached the wide tier";
  // a value exactly on the wide grid comes back exactly
  SumMoments one = SumMoments::identity(e);
  one.add(std::ldexp(3.0, 40));
  EXPECT_EQ(one.mean(), std::ldexp(3.0, 40));
}

// The device's form of the wide tier (atomics on 32-bit digits, no carries) gives the same sums.
TEST(ExactSums, DigitSumsEqualTheSums) {
  std::mt19937_64 g(5);
  for (int trial = 0; trial < 200; ++trial) {
    exact::DigitSums d = exact::DigitSums::zero();
    exact::Sums<3, 4> s = exact::Sums<3, 4>::zero();
    for (int i = 0; i < 1 + trial * 7; ++i) {
      exact::Fixed f;
      f.q0 = g();
      f.q1 = g() & ((std::uint64_t(1) << 20) - 1);
      f.neg = (g() & 1) != 0;
      if (trial % 3 == 0) f.q1 = 0;
      d.add(f);
      s.add(f);
    }
    const exact::Sums<3, 4> r = d.sums();
    ASSERT_EQ(std::memcmp(&r, &s, sizeof r), 0) << "trial " << trial;
  }
}

TEST(ExactSums, LargeCountsStayExact) {
  // 2^20 copies of the largest in-window value and of its negative: the sums carry across words,
  // the mean is exactly 0 and the variance that of +-x
  const int e = exact::range_exponent(0.0, 1.0);
  const double x = std::nextafter(std::ldexp(1.0, 25), 0.0);
  SumMoments a = SumMoments::identity(e), b = SumMoments::identity(e);
  a.add(x);
  b.add(-x);
  SumMoments pa = a, pb = b;
  for (int i = 0; i < 20; ++i) pa = merge(pa, pa), pb = merge(pb, pb);  // 2^20 each
  const SumMoments both = merge(pa, pb);
  EXPECT_EQ(both.n, std::uint64_t(1) << 21);
  EXPECT_EQ(both.mean(), 0.0);
  const double n = double(both.n);
  EXPECT_NEAR(both.variance(), x * x * n / (n - 1), 1e-15 * x * x);
  EXPECT_EQ(pa.mean(), x);
}

// Summaries on other ranges or grids: same_grid tells them apart, so that the host refuses to merge
// them (host/sampled/reduce.cpp merge_chunk).
TEST(Reduction, SameGridTellsOtherRangesApart) {
  const SummaryRanges a = impact::testing::summary_ranges({-1, -1, -1, -1}, {4, 4, 4, 4});
  EXPECT_EQ(a.grid[kPt], 3);  // 4 < 2^3
  SummaryRanges b = a;
  EXPECT_TRUE(same_grid(summary_identity(a), summary_identity(b)));
  b.hi[kPt] = 4.5;  // the same grid, another histogram
  EXPECT_EQ(summary_identity(a).q[kPt].e, summary_identity(b).q[kPt].e);
  EXPECT_FALSE(same_grid(summary_identity(a), summary_identity(b)));
  b = a;
  b.grid[kEnergyRatio] = 9;  // the same histogram, another grid
  EXPECT_NE(summary_identity(a).q[kEnergyRatio].e, summary_identity(b).q[kEnergyRatio].e);
  EXPECT_FALSE(same_grid(summary_identity(a), summary_identity(b)));
}

// A histogram far wider than its values keeps their digits in the sums when the grid is the data's:
// on its own range's grid (2^-60 of 2^67) every value near 1 rounds to 0, and the mean with it.
TEST(Reduction, TheGridIsTheDatasNotTheHistograms) {
  const double x[3] = {1.25, 1.5, 2.0};
  SummaryRanges wide = impact::testing::summary_ranges({0, 0, 0, -1}, {4, 4, 4, 0});
  wide.hi[kPn] = 1e20;  // the histogram only: the grid stays the data's
  SumMoments m = summary_identity(wide).q[kPn], r = summary_identity(with_range_grid(wide.lo, wide.hi)).q[kPn];
  for (double v : x) m.add(v), r.add(v);
  EXPECT_NEAR(m.mean(), 4.75 / 3, 1e-15);
  EXPECT_EQ(r.mean(), 0.0);  // what the histogram's own grid does to them
}
