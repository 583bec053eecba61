// The scrambled Sobol' points (design/scrambled_sobol.hpp): inside the open cube, a net for every
// seed (the scramble keeps each elementary interval's share: 2^m points stratify every coordinate
// into 2^m cells, and the first two coordinates into every 2^a x 2^(m-a) grid, one point per cell),
// the same bits for a seed, independent designs for two seeds, and a quadrature error far below
// Monte Carlo's.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <stdexcept>
#include <vector>

#include "design/scrambled_sobol.hpp"

using impact::design::scrambled_sobol;

TEST(ScrambledSobol, EveryPointInsideTheOpenCube) {
  const std::vector<double> u = scrambled_sobol(7, 4096, 3);
  ASSERT_EQ(u.size(), 7u * 4096);
  for (double v : u) {
    ASSERT_GT(v, 0.0);
    ASSERT_LT(v, 1.0);
  }
}

TEST(ScrambledSobol, ANetForEverySeed) {
  const std::size_t m = 8, n = std::size_t{1} << m;
  for (std::uint64_t seed : {1ull, 2ull, 77ull, 123456789ull}) {
    const std::vector<double> u = scrambled_sobol(5, n, seed);
    for (std::size_t k = 0; k < 5; ++k) {  // each coordinate: one point per cell of 1/n
      std::set<std::size_t> cells;
      for (std::size_t i = 0; i < n; ++i) cells.insert(static_cast<std::size_t>(u[i * 5 + k] * static_cast<double>(n)));
      EXPECT_EQ(cells.size(), n) << "seed " << seed << " coordinate " << k;
    }
    for (std::size_t a = 0; a <= m; ++a) {  // the first two coordinates: a (0, m, 2)-net
      std::set<std::pair<std::size_t, std::size_t>> cells;
      for (std::size_t i = 0; i < n; ++i)
        cells.insert({static_cast<std::size_t>(std::ldexp(u[i * 5], static_cast<int>(a))),
                      static_cast<std::size_t>(std::ldexp(u[i * 5 + 1], static_cast<int>(m - a)))});
      EXPECT_EQ(cells.size(), n) << "seed " << seed << " grid 2^" << a << " x 2^" << m - a;
    }
  }
}

TEST(ScrambledSobol, SameBitsForASeedAndOtherPointsForAnother) {
  EXPECT_EQ(scrambled_sobol(3, 1000, 9), scrambled_sobol(3, 1000, 9));
  const std::vector<double> a = scrambled_sobol(3, 1000, 9), b = scrambled_sobol(3, 1000, 10);
  std::size_t same = 0;
  for (std::size_t i = 0; i < a.size(); ++i) same += a[i] == b[i];
  EXPECT_EQ(same, 0u);
  // the first n points of a longer design are the design of n
  const std::vector<double> c = scrambled_sobol(3, 500, 9);
  EXPECT_TRUE(std::equal(c.begin(), c.end(), a.begin()));
}

TEST(ScrambledSobol, QuadratureErrorFarBelowMonteCarlo) {
  // the mean of prod_k 2 u_k... of f(u) = prod_k (1 + (u_k - 1/2)) over [0,1]^4 is 1; a scrambled net
  // of 4096 points errs by O(n^-1.5) against Monte Carlo's sd / sqrt(n) ~ 2e-3
  double worst = 0;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    const std::vector<double> u = scrambled_sobol(4, 4096, seed);
    double s = 0;
    for (std::size_t i = 0; i < 4096; ++i) {
      double f = 1;
      for (std::size_t k = 0; k < 4; ++k) f *= 1 + (u[i * 4 + k] - 0.5);
      s += f;
    }
    worst = std::max(worst, std::fabs(s / 4096 - 1));
  }
  EXPECT_LT(worst, 2e-4);
}

TEST(ScrambledSobol, DimensionsOutsideTheTableAreRefused) {
  EXPECT_THROW(scrambled_sobol(0, 10, 1), std::invalid_argument);
  EXPECT_THROW(scrambled_sobol(100000, 10, 1), std::invalid_argument);
}
