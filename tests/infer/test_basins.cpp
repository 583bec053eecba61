// Nearest-better clustering of a design's points (infer/basins.hpp): two separated bumps are two
// basins, the higher first; one smooth bump, however elongated, is one; points without a value take
// no part; the same answer for the same input. The hill-valley test joins the basins that nearest-
// better links alone make of a ridge narrower than the design's spacing, and keeps separated bumps.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "design/scrambled_sobol.hpp"
#include "infer/basins.hpp"

using namespace impact::infer;

namespace {

std::vector<double> values(const std::vector<double>& u, double (*f)(double, double)) {
  std::vector<double> v(u.size() / 2);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = f(u[2 * i], u[2 * i + 1]);
  return v;
}

double two_bumps(double x, double y) {  // log of 0.3 N((0.25, 0.3), 0.05^2) + N((0.75, 0.7), 0.05^2)
  const double a = -((x - 0.25) * (x - 0.25) + (y - 0.3) * (y - 0.3)) / (2 * 0.05 * 0.05);
  const double b = -((x - 0.75) * (x - 0.75) + (y - 0.7) * (y - 0.7)) / (2 * 0.05 * 0.05);
  return std::log(0.3 * std::exp(a) + std::exp(b) + 1e-300);
}

double ridge(double x, double y) {  // one elongated bump, sd 0.3 along x + y, 0.01 across
  const double s = (x + y - 1) / std::sqrt(2.0), t = (x - y) / std::sqrt(2.0);
  return -0.5 * (s * s / (0.01 * 0.01) + t * t / (0.3 * 0.3));
}

}  // namespace

TEST(Basins, TwoBumpsAreTwoBasinsTheHigherFirst) {
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    const std::vector<double> u = impact::design::scrambled_sobol(2, 1024, seed);
    const std::vector<Basin> b = find_basins(u, 2, values(u, two_bumps));
    ASSERT_EQ(b.size(), 2u) << "seed " << seed;
    EXPECT_NEAR(u[b[0].point * 2], 0.75, 0.05);
    EXPECT_NEAR(u[b[1].point * 2], 0.25, 0.05);
    EXPECT_GT(b[0].logp, b[1].logp);
    EXPECT_TRUE(std::isinf(b[0].link));
    EXPECT_GT(b[1].link, 0.4);  // to the other bump's best points
  }
}

UnitLogp batch(double (*f)(double, double), std::size_t* calls) {
  return [f, calls](const std::vector<double>& u) {
    ++*calls;
    return values(u, f);
  };
}

TEST(Basins, ANarrowRidgeIsOneBasinOnceItsValleysAreTested) {
  std::size_t split = 0;
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    const std::vector<double> u = impact::design::scrambled_sobol(2, 1024, seed);
    const std::vector<Basin> links = find_basins(u, 2, values(u, ridge));
    split += links.size() > 1;
    std::size_t calls = 0;
    const std::vector<Basin> b = merge_by_valleys(links, u, 2, batch(ridge, &calls));
    ASSERT_EQ(b.size(), 1u) << "seed " << seed;
    EXPECT_EQ(b[0].point, links[0].point);
    EXPECT_EQ(calls, links.size() > 1 ? 1u : 0u);
  }
  EXPECT_GT(split, 0u);  // the links alone split it: the test is the one that joins
}

TEST(Basins, TheValleyTestKeepsSeparatedBumps) {
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    const std::vector<double> u = impact::design::scrambled_sobol(2, 1024, seed);
    std::size_t calls = 0;
    const std::vector<Basin> b = merge_by_valleys(find_basins(u, 2, values(u, two_bumps)), u, 2, batch(two_bumps, &calls));
    ASSERT_EQ(b.size(), 2u) << "seed " << seed;
    EXPECT_NEAR(u[b[1].point * 2], 0.25, 0.05);
  }
}

TEST(Basins, PointsWithoutAValueTakeNoPartAndTheAnswerRepeats) {
  const std::vector<double> u = impact::design::scrambled_sobol(2, 1024, 4);
  std::vector<double> v = values(u, two_bumps);
  const std::vector<Basin> before = find_basins(u, 2, v);
  for (std::size_t i = 0; i < v.size(); i += 3)
    if (i != before[0].point && i != before[1].point) v[i] = i % 2 ? NAN : -HUGE_VAL;
  const std::vector<Basin> after = find_basins(u, 2, v);
  ASSERT_EQ(after.size(), 2u);
  EXPECT_EQ(after[0].point, before[0].point);
  EXPECT_EQ(after[1].point, before[1].point);
  const std::vector<Basin> again = find_basins(u, 2, v);
  EXPECT_EQ(again[1].link, after[1].link);
  EXPECT_TRUE(find_basins(u, 2, std::vector<double>(1024, NAN)).empty());
}
