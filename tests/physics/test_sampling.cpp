// On-device sampling (include/impact/sampling.hpp): accuracy of the libm-free log/exp/sincos, the
// marginals of every Dist (Kolmogorov-Smirnov, chi-square, fixed seeds), the scenarios' instances and
// slot independence. The sampled reduction is tested in tests/kernels/test_sampled.cpp, the study
// parser in tests/study/test_sample_spec.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "impact/sampling.hpp"
#include "systems/sample_spec.hpp"

using namespace impact;

namespace {

// |a - ref| in units of the last place of ref (ref in long double; subnormal-aware).
double ulp_error(double a, long double ref) {
  if (std::isnan(a) || std::isnan(static_cast<double>(ref)))
    return std::isnan(a) == std::isnan(static_cast<double>(ref)) ? 0 : 1e300;
  if (ref == 0) return a == 0 ? 0 : 1e300;
  int e;
  std::frexp(ref, &e);
  long double ulp = std::ldexp(1.0L, e - 53);
  if (ulp < std::ldexp(1.0L, -1074)) ulp = std::ldexp(1.0L, -1074);
  return static_cast<double>(std::fabs(static_cast<long double>(a) - ref) / ulp);
}

constexpr long double kPiL = 3.141592653589793238462643383279502884L;

double Phi(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }
double Q(double z) { return 0.5 * std::erfc(z / std::sqrt(2.0)); }  // upper tail, accurate far out

// Kolmogorov-Smirnov statistic of samples x against cdf.
template <class F>
double ks_statistic(std::vector<double> x, F cdf) {
  std::sort(x.begin(), x.end());
  const double n = static_cast<double>(x.size());
  double d = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double f = cdf(x[i]);
    d = std::max(d, std::max(f - i / n, (i + 1) / n - f));
  }
  return d;
}

std::vector<double> draws(const Dist& d, std::uint64_t seed, std::uint32_t stream, std::size_t n) {
  std::vector<double> x(n);
  const Philox rng{seed};
  for (std::size_t i = 0; i < n; ++i) x[i] = sample(d, rng, i, stream);
  return x;
}

}  // namespace

// ---- libm-free functions ---------------------------------------------------------------------

TEST(SamplingMath, LogExpSincosWithinOneUlpOfStd) {
  const Philox rng{20260101};
  const std::size_t n = 1000000;
  double e_log_u = 0, e_log_wide = 0, e_exp = 0, e_exp_small = 0, e_exp_sub = 0, e_sin = 0, e_cos = 0, e_sinr = 0, e_cosr = 0,
         glibc_log = 0, glibc_exp = 0;
  for (std::size_t i = 0; i < n; ++i) {
    double u1, u2;
    uniform_pair(rng, i, 0, 0, u1, u2);
    const auto w = rng.words(i, 1);
    // log on the uniform grid (what Box-Muller feeds it) and on random positive doubles
    e_log_u = std::max(e_log_u, ulp_error(rmath::log(u1), std::log(static_cast<long double>(u1))));
    glibc_log = std::max(glibc_log, ulp_error(std::log(u1), std::log(static_cast<long double>(u1))));
    const std::uint64_t b = ((static_cast<std::uint64_t>(w[0]) << 32 | w[1]) % 0x7fefffffffffffffull) + 1;
    const double xw = rmath::from_bits(b);  // any positive finite double, subnormals included
    e_log_wide = std::max(e_log_wide, ulp_error(rmath::log(xw), std::log(static_cast<long double>(xw))));
    // exp on its whole normal range, near 0, and where the result is subnormal
    const double xe = -708.0 + 1417.7 * u2;
    e_exp = std::max(e_exp, ulp_error(rmath::exp(xe), std::exp(static_cast<long double>(xe))));
    glibc_exp = std::max(glibc_exp, ulp_error(std::exp(xe), std::exp(static_cast<long double>(xe))));
    const double xs = -1.0 + 2.0 * u1;
    e_exp_small = std::max(e_exp_small, ulp_error(rmath::exp(xs), std::exp(static_cast<long double>(xs))));
    const double xu = -745.0 + 37.0 * u1;
    e_exp_sub = std::max(e_exp_sub, ulp_error(rmath::exp(xu), std::exp(static_cast<long double>(xu))));
    // sin, cos of 2 pi u: the reference reduces exactly to (pi/2) f, f = 4u - q, in long double
    double s, c;
    rmath::sincos_turns(u1, s, c);
    const double v = 4.0 * u1, q = std::nearbyint(v);
    const long double a = static_cast<long double>(v - q) * (kPiL / 2);
    const long double sa = std::sin(a), ca = std::cos(a);
    const int qi = static_cast<int>(q) & 3;
    const long double rs = qi == 0 ? sa : qi == 1 ? ca : qi == 2 ? -sa : -ca;
    const long double rc = qi == 0 ? ca : qi == 1 ? -sa : qi == 2 ? -ca : sa;
    e_sin = std::max(e_sin, ulp_error(s, rs));
    e_cos = std::max(e_cos, ulp_error(c, rc));
    // radians
    const double xr = -100.0 + 200.0 * u2;
    rmath::sincos(xr, s, c);
    e_sinr = std::max(e_sinr, ulp_error(s, std::sin(static_cast<long double>(xr))));
    e_cosr = std::max(e_cosr, ulp_error(c, std::cos(static_cast<long double>(xr))));
  }
  std::printf(
      "max ulp error over %zu points: log(u) %.3f, log(any) %.3f, exp %.3f, exp[-1,1] %.3f, "
      "exp(subnormal result) %.3f, sin(2pi u) %.3f, cos(2pi u) %.3f, sin(x) %.3f, cos(x) %.3f "
      "(glibc: log %.3f, exp %.3f)\n",
      n, e_log_u, e_log_wide, e_exp, e_exp_small, e_exp_sub, e_sin, e_cos, e_sinr, e_cosr, glibc_log, glibc_exp);
  EXPECT_LT(e_log_u, 1.0);
  EXPECT_LT(e_log_wide, 1.0);
  EXPECT_LT(e_exp, 1.0);
  EXPECT_LT(e_exp_small, 1.0);
  EXPECT_LE(e_exp_sub, 1.0);  // subnormal results: one more rounding
  EXPECT_LT(e_sin, 1.0);
  EXPECT_LT(e_cos, 1.0);
  EXPECT_LT(e_sinr, 1.0);
  EXPECT_LT(e_cosr, 1.0);
}

TEST(SamplingMath, SpecialValues) {
  EXPECT_EQ(rmath::log(1.0), 0.0);
  EXPECT_EQ(rmath::log(0.0), -INFINITY);
  EXPECT_TRUE(std::isnan(rmath::log(-1.0)));
  EXPECT_EQ(rmath::log(INFINITY), INFINITY);
  EXPECT_EQ(rmath::log(2.0), std::log(2.0));
  EXPECT_EQ(rmath::exp(0.0), 1.0);
  EXPECT_EQ(rmath::exp(-INFINITY), 0.0);
  EXPECT_EQ(rmath::exp(INFINITY), INFINITY);
  EXPECT_EQ(rmath::exp(710.0), INFINITY);
  EXPECT_EQ(rmath::exp(-746.0), 0.0);
  EXPECT_TRUE(std::isnan(rmath::exp(NAN)));
  double s, c;
  rmath::sincos_turns(0.25, s, c);
  EXPECT_EQ(s, 1.0);
  EXPECT_EQ(c, 0.0);
  rmath::sincos_turns(0.5, s, c);
  EXPECT_EQ(c, -1.0);
  rmath::sincos_turns(1.0 / 12.0, s, c);  // 30 degrees
  EXPECT_NEAR(s, 0.5, 1e-16);
  rmath::sincos(NAN, s, c);
  EXPECT_TRUE(std::isnan(s) && std::isnan(c));
}

// ---- marginals -----------------------------------------------------------------------------------

TEST(SamplingDist, MarginalsPassKolmogorovSmirnov) {
  const std::size_t n = 200000;
  const double crit = 1.95 / std::sqrt(double(n));  // alpha = 0.001
  struct Case {
    const char* name;
    Dist d;
  };
  const double inf = INFINITY;
  const Case cases[] = {
      {"uniform[-2,3)", Dist::uniform(-2, 3)},
      {"normal(1,2)", Dist::normal(1, 2)},
      {"lognormal(0.3,0.7)", Dist::lognormal(0.3, 0.7)},
      {"truncnormal wide [-1,2] (normal rejection)", Dist::truncnormal(0, 1, -1, 2)},
      {"truncnormal narrow [-0.5,0.7] (uniform)", Dist::truncnormal(0, 1, -0.5, 0.7)},
      {"truncnormal tail [2,2.3] (uniform)", Dist::truncnormal(0, 1, 2, 2.3)},
      {"truncnormal tail [1,4] (exponential)", Dist::truncnormal(0, 1, 1, 4)},
      {"truncnormal tail [3,inf) (exponential)", Dist::truncnormal(0, 1, 3, inf)},
      {"truncnormal far tail [8,inf)", Dist::truncnormal(0, 1, 8, inf)},
      {"truncnormal left (-inf,-2.5] (flipped)", Dist::truncnormal(0, 1, -inf, -2.5)},
      {"truncnormal left [-3,-2.9] (flipped uniform)", Dist::truncnormal(0, 1, -3, -2.9)},
      {"truncnormal scaled (-5,1) on [-10,-0.5]", Dist::truncnormal(-5, 1, -10, -0.5)},
      {"truncnormal half [0,inf)", Dist::truncnormal(2, 3, 2, inf)},
  };
  std::uint32_t stream = 0;
  for (const Case& t : cases) {
    const Dist d = t.d;
    const std::vector<double> x = draws(d, 77 + stream, stream, n);
    ++stream;
    std::function<double(double)> cdf;
    switch (d.kind) {
      case DistKind::uniform: cdf = [d](double v) { return (v - d.a) / (d.b - d.a); }; break;
      case DistKind::normal: cdf = [d](double v) { return Phi((v - d.a) / d.b); }; break;
      case DistKind::lognormal: cdf = [d](double v) { return Phi((std::log(v) - d.a) / d.b); }; break;
      default: {
        const double al = (d.lo - d.a) / d.b, be = (d.hi - d.a) / d.b;
        if (al > 0)  // right tail: upper-tail differences keep their precision
          cdf = [=](double v) { return (Q(al) - Q((v - d.a) / d.b)) / (Q(al) - Q(be)); };
        else cdf = [=](double v) { return (Phi((v - d.a) / d.b) - Phi(al)) / (Phi(be) - Phi(al)); };
      }
    }
    for (double v : x) {
      if (d.kind == DistKind::uniform) {
        ASSERT_TRUE(v >= d.a && v < d.b) << t.name << " " << v;
      } else if (d.kind == DistKind::truncnormal) {
        ASSERT_TRUE(v >= d.lo && v <= d.hi) << t.name << " " << v;
      } else if (d.kind == DistKind::lognormal) {
        ASSERT_GT(v, 0.0) << t.name;
      }
    }
    const double D = ks_statistic(x, cdf);
    std::printf("KS %-45s D = %.5f (critical %.5f)\n", t.name, D, crit);
    EXPECT_LT(D, crit) << t.name;
  }
  // fixed: every draw is the value, and no Philox call can change it
  for (double v : draws(Dist::fixed(0.25), 1, 0, 1000)) EXPECT_EQ(v, 0.25);
  // a wrong transform fails the same test: normal(1, 2) judged against normal(1, 2.04)
  const std::vector<double> x = draws(Dist::normal(1, 2), 5, 0, n);
  EXPECT_GT(ks_statistic(x, [](double v) { return Phi((v - 1) / 2.04); }), crit);
}

TEST(SamplingDist, BoxMullerPairIndependentAndNormal) {
  // chi-square of the joint 8x8 table of (Phi(z0), Phi(z1)): independence and normality of both
  const Philox rng{99};
  const int B = 8;
  std::vector<double> cnt(B * B, 0.0);
  const std::size_t n = 256000;
  for (std::size_t i = 0; i < n; ++i) {
    double z0, z1;
    normal_pair(rng, i, 3, 0, z0, z1);
    const int a = std::min(B - 1, static_cast<int>(Phi(z0) * B)), b = std::min(B - 1, static_cast<int>(Phi(z1) * B));
    cnt[a * B + b] += 1;
  }
  const double expct = double(n) / (B * B);
  double chi2 = 0;
  for (double c : cnt) chi2 += (c - expct) * (c - expct) / expct;
  // 63 degrees of freedom: the 0.999 quantile is 103.4
  std::printf("Box-Muller pair chi-square %.1f (63 dof, critical 103.4)\n", chi2);
  EXPECT_LT(chi2, 103.4);
}

TEST(SamplingDist, RandomRotationIsHaarAndOrthonormal) {
  // R e_z is uniform on the sphere: its z component is uniform on [-1, 1] (chi-square, 20 bins),
  // and its azimuth is uniform (chi-square, 20 bins)
  const Philox rng{31337};
  const int B = 20;
  std::vector<double> cz(B, 0.0), cphi(B, 0.0);
  const std::size_t n = 200000;
  double worst = 0;
  for (std::size_t i = 0; i < n; ++i) {
    double R[3][3];
    random_rotation(rng, i, R);
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) {
        double d = 0;
        for (int k = 0; k < 3; ++k) d += R[a][k] * R[b][k];
        worst = std::max(worst, std::fabs(d - (a == b)));
      }
    const double z = R[2][2];
    cz[std::min(B - 1, static_cast<int>((z + 1) / 2 * B))] += 1;
    const double phi = std::atan2(R[1][2], R[0][2]) + M_PI;
    cphi[std::min(B - 1, static_cast<int>(phi / (2 * M_PI) * B))] += 1;
  }
  double chi_z = 0, chi_phi = 0;
  for (int b = 0; b < B; ++b) {
    chi_z += (cz[b] - double(n) / B) * (cz[b] - double(n) / B) / (double(n) / B);
    chi_phi += (cphi[b] - double(n) / B) * (cphi[b] - double(n) / B) / (double(n) / B);
  }
  std::printf("rotation: max |R R^T - I| %.2g, chi-square z %.1f, azimuth %.1f (19 dof, critical 43.8)\n", worst, chi_z, chi_phi);
  EXPECT_LT(worst, 4e-15);
  EXPECT_LT(chi_z, 43.8);
  EXPECT_LT(chi_phi, 43.8);
}

// ---- scenarios ------------------------------------------------------------------------------------

TEST(SamplingScenario, ContactInstancesHaveTheDrawnEigenvaluesAndVelocity) {
  SampleSpec spec = systems::default_spec(Scenario::contact);
  for (std::uint64_t i = 0; i < 2000; ++i) {
    const ContactProblem<double> p = make_instance<double>(spec, 11, i);
    const Philox rng{11};
    const double w1 = sample(spec.slot[kSlotW1], rng, i, kSlotW1), w2 = sample(spec.slot[kSlotW2], rng, i, kSlotW2),
                 w3 = sample(spec.slot[kSlotW3], rng, i, kSlotW3);
    const double vn = sample(spec.slot[kSlotVn], rng, i, kSlotVn), vt = sample(spec.slot[kSlotVt], rng, i, kSlotVt),
                 phi = sample(spec.slot[kSlotPhi], rng, i, kSlotPhi);
    // invariants of R diag(w) R^T: trace, sum of principal 2x2 minors, determinant
    const Sym3<double>& W = p.W;
    const double tr = trace(W);
    const double m2 = W.xx * W.yy - W.xy * W.xy + W.xx * W.zz - W.xz * W.xz + W.yy * W.zz - W.yz * W.yz;
    const double det =
        W.xx * (W.yy * W.zz - W.yz * W.yz) - W.xy * (W.xy * W.zz - W.yz * W.xz) + W.xz * (W.xy * W.yz - W.yy * W.xz);
    EXPECT_NEAR(tr, w1 + w2 + w3, 1e-13 * tr);
    EXPECT_NEAR(m2, w1 * w2 + w1 * w3 + w2 * w3, 1e-12 * tr * tr);
    EXPECT_NEAR(det, w1 * w2 * w3, 1e-12 * tr * tr * tr);
    EXPECT_EQ(p.n.z, 1.0);
    EXPECT_EQ(p.v0.z, -vn);
    EXPECT_NEAR(p.v0.x, vt * std::cos(phi), 1e-15 * (1 + vt));
    EXPECT_NEAR(p.v0.y, vt * std::sin(phi), 1e-15 * (1 + vt));
  }
  // rotation=identity: W diagonal
  systems::apply_setting(spec, "rotation=identity");
  const ContactProblem<double> p = make_instance<double>(spec, 11, 5);
  EXPECT_EQ(p.W.xy, 0.0);
  EXPECT_EQ(p.W.xz, 0.0);
  EXPECT_EQ(p.W.yz, 0.0);
}

TEST(SamplingScenario, BallIsJiaSection81) {
  // fixed values of Jia's ball: m = r = 1, V0 = (-1, 0, -5), w0 = (0, 2, 0): W = diag(3.5, 3.5, 1),
  // v0 = V0 + w0 x (0, 0, -r) = (-3, 0, -5)
  SampleSpec spec = systems::default_spec(Scenario::ball);
  for (const char* s : {"V0x=-1", "V0y=0", "V0z=-5", "w0x=0", "w0y=2", "w0z=0.7", "mu=0.4", "e=0.5"})
    systems::apply_setting(spec, s);
  const ContactProblem<double> p = make_instance<double>(spec, 3, 12345);
  EXPECT_EQ(p.W.xx, 3.5);
  EXPECT_EQ(p.W.yy, 3.5);
  EXPECT_EQ(p.W.zz, 1.0);
  EXPECT_EQ(p.W.xy, 0.0);
  EXPECT_EQ(p.v0.x, -3.0);
  EXPECT_EQ(p.v0.y, 0.0);
  EXPECT_EQ(p.v0.z, -5.0);
  EXPECT_EQ(p.mu, 0.4);
  EXPECT_EQ(p.eta0, std::sqrt(17.0 / 14.0));
  // m = 2, r = 0.5: W = diag(1/m + r^2 / (2/5 m r^2), ., 1/m) = diag(1.75, 1.75, 0.5); v0 = (Vx - r wy, Vy + r wx, Vz)
  for (const char* s : {"m=2", "r=0.5", "w0x=4"}) systems::apply_setting(spec, s);
  const ContactProblem<double> q = make_instance<double>(spec, 3, 1);
  EXPECT_DOUBLE_EQ(q.W.xx, 1.75);
  EXPECT_EQ(q.W.zz, 0.5);
  EXPECT_EQ(q.v0.x, -1.0 - 0.5 * 2);
  EXPECT_EQ(q.v0.y, 0.5 * 4);
}

TEST(SamplingScenario, SlotsAreIndependentStreams) {
  // changing one key's distribution leaves every other drawn value unchanged
  const SampleSpec a = systems::default_spec(Scenario::contact);
  SampleSpec b = a;
  systems::apply_setting(b, "mu=truncnormal:0.5:0.2:0:2");
  for (std::uint64_t i = 0; i < 1000; ++i) {
    const ContactProblem<double> p = make_instance<double>(a, 8, i), q = make_instance<double>(b, 8, i);
    EXPECT_NE(p.mu, q.mu);
    EXPECT_EQ(p.e, q.e);
    EXPECT_EQ(p.e_t, q.e_t);
    EXPECT_EQ(p.eta0, q.eta0);
    EXPECT_EQ(p.W.xy, q.W.xy);
    EXPECT_EQ(p.v0.x, q.v0.x);
  }
  // and different indices / seeds give different instances
  EXPECT_NE(make_instance<double>(a, 8, 1).mu, make_instance<double>(a, 8, 2).mu);
  EXPECT_NE(make_instance<double>(a, 8, 1).mu, make_instance<double>(a, 9, 1).mu);
}

// The contact scenario's rotation by a vector r of any finite norm (docs/study.md: rx, ry, rz "rad,
// any"): orthonormal, proper, its axis r/|r| fixed, where the plain sum of squares would overflow
// (|r| > 1.34e154) or underflow; within 1e-150 < |r| < 1e150 the bits of the plain formula.
TEST(SamplingScenario, RotationFromAnyFiniteVector) {
  const auto plain = [](double rx, double ry, double rz, double R[3][3]) {  // the formula before scaling
    const double a = std::sqrt(rx * rx + ry * ry + rz * rz), k[3] = {rx / a, ry / a, rz / a};
    double s, c;
    rmath::sincos(a, s, c);
    const double omc = 1.0 - c, sk[3] = {s * k[0], s * k[1], s * k[2]}, ck[3] = {omc * k[0], omc * k[1], omc * k[2]};
    R[0][1] = ck[0] * k[1] - sk[2], R[1][0] = ck[0] * k[1] + sk[2];
    R[0][2] = ck[0] * k[2] + sk[1], R[2][0] = ck[0] * k[2] - sk[1];
    R[1][2] = ck[1] * k[2] - sk[0], R[2][1] = ck[1] * k[2] + sk[0];
    for (int i = 0; i < 3; ++i) R[i][i] = ck[i] * k[i] + c;
  };
  const double u[3] = {0.48, -0.6, 0.64};  // a unit vector, exactly |u| = 1 in decimal
  for (double scale : {1e-310, 1e-200, 1e-160, 1e-3, 1.0, 1e100, 1e149, 1e154, 2e154, 1e200, 1e300, 1e308}) {
    SCOPED_TRACE(scale);
    const double r[3] = {u[0] * scale, u[1] * scale, u[2] * scale};
    double R[3][3];
    rotation_from_vector(r[0], r[1], r[2], R);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        ASSERT_TRUE(std::isfinite(R[i][j]));
        double dot = 0;
        for (int k = 0; k < 3; ++k) dot += R[i][k] * R[j][k];
        EXPECT_NEAR(dot, i == j ? 1.0 : 0.0, 4e-15);
      }
    const double det = R[0][0] * (R[1][1] * R[2][2] - R[1][2] * R[2][1]) - R[0][1] * (R[1][0] * R[2][2] - R[1][2] * R[2][0]) +
                       R[0][2] * (R[1][0] * R[2][1] - R[1][1] * R[2][0]);
    EXPECT_NEAR(det, 1.0, 4e-15);
    for (int i = 0; i < 3; ++i) EXPECT_NEAR(R[i][0] * u[0] + R[i][1] * u[1] + R[i][2] * u[2], u[i], 4e-15);  // the axis
    if (scale < 1e-150) { EXPECT_LT(std::fabs(R[0][1]) + std::fabs(R[1][2]), 1e-140); }  // a tiny rotation, not a wrong one
  }
  // the plain formula's bits where it holds, on random vectors of every magnitude in its range
  std::mt19937_64 g(3);
  std::uniform_real_distribution<double> d(-1, 1), e(-140, 140);
  for (int t = 0; t < 2000; ++t) {
    const double s = std::pow(10.0, e(g)), r[3] = {d(g) * s, d(g) * s, d(g) * s};
    double A[3][3], B[3][3];
    rotation_from_vector(r[0], r[1], r[2], A);
    plain(r[0], r[1], r[2], B);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) ASSERT_EQ(A[i][j], B[i][j]) << t << " " << i << j;
  }
  // an infinite component stays non-finite (the instance's status then says so), a NaN one the identity
  double R[3][3];
  rotation_from_vector(HUGE_VAL, 0, 0, R);
  EXPECT_FALSE(std::isfinite(R[1][1]));
  rotation_from_vector(1.7e308, 1.7e308, 0, R);  // |r| beyond the doubles
  EXPECT_FALSE(std::isfinite(R[0][0]) && std::isfinite(R[0][1]));
}
