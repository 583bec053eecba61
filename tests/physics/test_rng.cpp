// Counter-based sampling: Philox known answers, uniform range and moments, stream independence,
// shard recomputation.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "impact/rng.hpp"

using namespace impact;

TEST(Rng, PhiloxKnownAnswers) {
  // Random123's published known-answer vectors for philox4x32-10 (counter, key -> output)
  using Gen = r123::Philox4x32_R<10>;
  struct Kat {
    std::uint32_t c[4], k[2], out[4];
  } kats[] = {
      {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
      {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
       {0xffffffff, 0xffffffff},
       {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
      {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
       {0xa4093822, 0x299f31d0},
       {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
  };
  for (const Kat& t : kats) {
    Gen g;
    const Gen::ctr_type c = {{t.c[0], t.c[1], t.c[2], t.c[3]}};
    const Gen::key_type k = {{t.k[0], t.k[1]}};
    const auto r = g(c, k);
    for (int i = 0; i < 4; ++i) EXPECT_EQ(r[i], t.out[i]);
  }
  // our wrapper maps (seed, index, stream, block) onto that counter/key layout
  const Philox p{0xffffffffffffffffull};
  const auto w = p.words(0xffffffffffffffffull, 0xffffffffu, 0xffffffffu);
  EXPECT_EQ(w[0], 0x408f276du);
  EXPECT_EQ(w[3], 0x6d5451fdu);
}

TEST(Rng, UniformsOpenIntervalAndMoments) {
  EXPECT_GT(u01_double(0, 0), 0.0);
  EXPECT_LT(u01_double(0xffffffffu, 0xffffffffu), 1.0);
  EXPECT_GT(u01_float(0), 0.0f);
  EXPECT_LT(u01_float(0xffffffffu), 1.0f);
  const Philox p{12345};
  const int n = 200000;
  double s = 0, s2 = 0, cross = 0;
  for (int i = 0; i < n; ++i) {
    double a, b;
    uniforms2(p, i, 7, a, b);
    ASSERT_GT(a, 0.0);
    ASSERT_LT(a, 1.0);
    s += a;
    s2 += a * a;
    cross += (a - 0.5) * (b - 0.5);
  }
  const double mean = s / n, var = s2 / n - mean * mean;
  // 5-sigma bounds: sd(mean) = sqrt(1/12/n), sd(var) ~ sqrt(1/180/n), sd(cov) = 1/12/sqrt(n)
  EXPECT_NEAR(mean, 0.5, 5 * std::sqrt(1.0 / 12 / n));
  EXPECT_NEAR(var, 1.0 / 12, 5 * std::sqrt(1.0 / 180 / n));
  EXPECT_NEAR(cross / n, 0.0, 5.0 / 12 / std::sqrt(n));
}

TEST(Rng, StreamsIndependentAndShardsRecomputable) {
  const Philox p{2026};
  // different streams of the same index are uncorrelated
  const int n = 100000;
  double c = 0;
  for (int i = 0; i < n; ++i) {
    double a0, b0, a1, b1;
    uniforms2(p, i, 0, a0, b0);
    uniforms2(p, i, 1, a1, b1);
    c += (a0 - 0.5) * (a1 - 0.5);
  }
  EXPECT_NEAR(c / n, 0.0, 5.0 / 12 / std::sqrt(n));
  // a shard [1e9, 1e9+1000) computed alone equals the same indices of any other traversal
  std::vector<double> shard;
  for (std::uint64_t i = 1000000000ull; i < 1000001000ull; ++i) {
    double a, b;
    uniforms2(p, i, 3, a, b);
    shard.push_back(a);
  }
  for (std::uint64_t j = 0; j < 1000; ++j) {
    const std::uint64_t i = 1000000999ull - j;  // reverse order
    double a, b;
    uniforms2(p, i, 3, a, b);
    EXPECT_EQ(a, shard[999 - j]);
  }
  // a different seed gives different draws
  double a1, b1, a2, b2;
  uniforms2(Philox{1}, 5, 0, a1, b1);
  uniforms2(Philox{2}, 5, 0, a2, b2);
  EXPECT_NE(a1, a2);
}
