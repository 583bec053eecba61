// Reproducible math (include/impact/rmath.hpp): the accuracy of every function against long double
// (glibc's x87 functions serve as a reference only: 11 more bits than a double), the special values
// C99's Annex F asks for, and the exact bits of a few dozen values. The bits are the point: they must
// be the same on every machine (Intel, AMD, any libm), so a difference shows here as a named value,
// not as a golden hash of a whole study. Each pinned value is also within 1.2 ulp of the true value
// (checked with mpmath when the pins were written: scripts/gen_rmath_tables.py has the fits).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include <boost/math/distributions/normal.hpp>

#include "impact/rmath.hpp"

using namespace impact;

namespace {

std::uint64_t bits_of(double x) {
  std::uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

// |a - ref| in units of the last place of ref (subnormal-aware); NaN against NaN is 0.
double ulp_error(double a, long double ref) {
  if (std::isnan(a) || std::isnan(ref)) return std::isnan(a) == std::isnan(ref) ? 0 : 1e300;
  if (std::isinf(ref)) return a == ref ? 0 : 1e300;
  if (ref == 0) return a == 0 ? 0 : 1e300;
  int e;
  std::frexp(static_cast<double>(ref), &e);
  const long double ulp = std::ldexp(1.0L, std::max(e - 53, -1074));
  return static_cast<double>(std::fabs(static_cast<long double>(a) - ref) / ulp);
}

constexpr long double kPiL = 3.141592653589793238462643383279502884L;

long double ref_quantile(double p) {
  return boost::math::quantile(boost::math::normal_distribution<long double>(), static_cast<long double>(p));
}
long double ref_sf(double z) { return 0.5L * std::erfc(static_cast<long double>(z) / std::sqrt(2.0L)); }
long double ref_pdf(double z) {
  const long double zl = z;
  return std::exp(-zl * zl / 2) / std::sqrt(2 * kPiL);
}

// The largest ulp error of f against ref over n draws of gen, with the argument where it happened.
template <class Gen, class F, class Ref>
double worst(int n, std::uint64_t seed, Gen gen, F f, Ref ref, double* where = nullptr) {
  std::mt19937_64 rng(seed);
  double w = 0;
  for (int i = 0; i < n; ++i) {
    const double x = gen(rng);
    const double e = ulp_error(f(x), ref(x));
    if (e > w) {
      w = e;
      if (where) *where = x;
    }
  }
  return w;
}

double u01(std::mt19937_64& g) { return std::uniform_real_distribution<double>(0.0, 1.0)(g); }
// log-uniform magnitude in [2^lo, 2^hi) with a random sign
double logspread(std::mt19937_64& g, int lo, int hi) {
  const double m = std::ldexp(1.0 + u01(g), lo + static_cast<int>(u01(g) * (hi - lo)));
  return u01(g) < 0.5 ? -m : m;
}

// The largest ulp error of f(y, x) against ref over n draws, y log-spread over the binades
// [ylo, yhi), then x over [xlo, xhi).
template <class F, class Ref>
double worst_yx(int n, std::uint64_t seed, int ylo, int yhi, int xlo, int xhi, F f, Ref ref) {
  std::mt19937_64 g(seed);
  double w = 0;
  for (int i = 0; i < n; ++i) {
    const double y = logspread(g, ylo, yhi), x = logspread(g, xlo, xhi);
    w = std::max(w, ulp_error(f(y, x), ref(static_cast<long double>(y), static_cast<long double>(x))));
  }
  return w;
}

}  // namespace

// ---- accuracy -------------------------------------------------------------------------------------

TEST(Rmath, SinCosTanAccuracy) {
  const auto small = [](std::mt19937_64& g) { return (2 * u01(g) - 1) * 20; };
  const auto large = [](std::mt19937_64& g) { return logspread(g, 20, 1023); };  // Payne-Hanek
  const auto s = [](double x) {
    double a, b;
    rmath::sincos(x, a, b);
    return a;
  };
  const auto c = [](double x) {
    double a, b;
    rmath::sincos(x, a, b);
    return b;
  };
  const auto sl = [](double x) { return std::sin(static_cast<long double>(x)); };
  const auto cl = [](double x) { return std::cos(static_cast<long double>(x)); };
  EXPECT_LT(worst(300000, 1, small, s, sl), 1.0);
  EXPECT_LT(worst(300000, 2, small, c, cl), 1.0);
  EXPECT_LT(worst(300000, 3, large, s, sl), 1.0);
  EXPECT_LT(worst(300000, 4, large, c, cl), 1.0);
  EXPECT_LT(worst(
                300000, 5, small, [](double x) { return rmath::tan(x); },
                [](double x) { return std::tan(static_cast<long double>(x)); }),
            2.5);
  // sin and cos alone are sincos's halves
  for (double x : {0.3, -2.0, 1e6, -1e300}) {
    double a, b;
    rmath::sincos(x, a, b);
    EXPECT_EQ(bits_of(rmath::sin(x)), bits_of(a));
    EXPECT_EQ(bits_of(rmath::cos(x)), bits_of(b));
  }
}

TEST(Rmath, PayneHanekNearMultiplesOfPiOver2) {
  // the doubles nearest to k pi/2 for large k: the reduction must keep its relative accuracy
  for (double x : {6381956970095103.0 * std::ldexp(1.0, 797), 1e22, 5.0e15 * 3.14159265358979, 0x1.921fb54442d18p+1000,
                   0x1.921fb54442d18p+20, 1048576.0, 1e308}) {
    double s, c;
    rmath::sincos(x, s, c);
    EXPECT_LT(ulp_error(s, std::sin(static_cast<long double>(x))), 1.0) << x;
    EXPECT_LT(ulp_error(c, std::cos(static_cast<long double>(x))), 1.0) << x;
  }
}

TEST(Rmath, AtanFamilyAccuracy) {
  const auto wide = [](std::mt19937_64& g) { return logspread(g, -30, 40); };
  EXPECT_LT(worst(
                400000, 6, wide, [](double x) { return rmath::atan(x); },
                [](double x) { return std::atan(static_cast<long double>(x)); }),
            1.0);
  EXPECT_LT(worst_yx(
                400000, 7, -20, 20, -20, 20, [](double y, double x) { return rmath::atan2(y, x); },
                [](long double y, long double x) { return std::atan2(y, x); }),
            1.6);
  EXPECT_LT(worst(
                400000, 8, [](std::mt19937_64& g) { return 2 * u01(g) - 1; }, [](double x) { return rmath::acos(x); },
                [](double x) { return std::acos(static_cast<long double>(x)); }),
            2.0);
}

TEST(Rmath, CbrtHypotExpm1Accuracy) {
  EXPECT_LT(worst(
                400000, 9, [](std::mt19937_64& g) { return logspread(g, -1074, 1023); }, [](double x) { return rmath::cbrt(x); },
                [](double x) { return std::cbrt(static_cast<long double>(x)); }),
            0.51);
  EXPECT_LT(worst_yx(
                400000, 10, -1074, 1023, -600, 600, [](double y, double x) { return rmath::hypot(y, x); },
                [](long double y, long double x) { return std::hypot(y, x); }),
            0.51);
  EXPECT_LT(worst(
                400000, 11, [](std::mt19937_64& g) { return logspread(g, -60, 9); }, [](double x) { return rmath::expm1(x); },
                [](double x) { return std::expm1(static_cast<long double>(x)); }),
            2.5);
}

TEST(Rmath, NormalAccuracy) {
  const auto z38 = [](std::mt19937_64& g) { return (2 * u01(g) - 1) * 38; };
  EXPECT_LT(worst(
                400000, 12, z38, [](double z) { return rmath::normal_pdf(z); }, ref_pdf),
            2.5);
  // each tail in its own terms, where the value is a normal double (no 1 - p)
  const auto sf = [](double z) { return rmath::normal_sf(z); };
  const auto cdf = [](double z) { return rmath::normal_cdf(z); };
  EXPECT_LT(worst(400000, 13, z38, sf, [](double z) { return z < 37.5 ? ref_sf(z) : rmath::normal_sf(z); }), 4.5);
  EXPECT_LT(worst(400000, 14, z38, cdf, [](double z) { return z > -37.5 ? ref_sf(-z) : rmath::normal_cdf(z); }), 4.5);
  // quantile over the whole open interval: uniform p, and p spread over every binade down to 2^-1074
  const auto q = [](double p) { return rmath::normal_quantile(p); };
  double at = 0;
  EXPECT_LT(worst(300000, 15, u01, q, ref_quantile, &at), 4.0) << "at p = " << at;
  EXPECT_LT(worst(
                300000, 16, [](std::mt19937_64& g) { return std::ldexp(1.0 + u01(g), -1 - static_cast<int>(u01(g) * 1073)); }, q,
                ref_quantile, &at),
            4.0)
      << "at p = " << at;
  // the quantile inverts the CDF: Phi(Phi^-1(p)) = p up to the conditioning of Phi in the tail
  // (d log Phi / d log z = z phi / Phi ~ z^2: an ulp of z is about z^2 ulp of Phi)
  std::mt19937_64 g(17);
  for (int i = 0; i < 20000; ++i) {
    const double p = std::ldexp(1.0 + u01(g), -2 - static_cast<int>(u01(g) * 900));
    const double z = rmath::normal_quantile(p);
    EXPECT_LT(ulp_error(rmath::normal_cdf(z), p), 5.0 + 2.0 * z * z) << p;
    EXPECT_EQ(bits_of(rmath::normal_isf(p)), bits_of(-z));
  }
}

// ---- special values ---------------------------------------------------------------------------------

TEST(Rmath, SpecialValues) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const double pi = 3.141592653589793, pio2 = 1.5707963267948966, pio4 = 0.7853981633974483;
  // atan2 (C99 F.9.1.4)
  EXPECT_EQ(bits_of(rmath::atan2(0.0, 1.0)), bits_of(0.0));
  EXPECT_EQ(bits_of(rmath::atan2(-0.0, 1.0)), bits_of(-0.0));
  EXPECT_EQ(rmath::atan2(0.0, -0.0), pi);
  EXPECT_EQ(rmath::atan2(-0.0, -1.0), -pi);
  EXPECT_EQ(rmath::atan2(1.0, 0.0), pio2);
  EXPECT_EQ(rmath::atan2(-1.0, -0.0), -pio2);
  EXPECT_EQ(rmath::atan2(inf, inf), pio4);
  EXPECT_EQ(rmath::atan2(-inf, -inf), -3 * pio4);
  EXPECT_EQ(rmath::atan2(1.0, -inf), pi);
  EXPECT_EQ(bits_of(rmath::atan2(-1.0, inf)), bits_of(-0.0));
  EXPECT_EQ(rmath::atan2(inf, 5.0), pio2);
  EXPECT_TRUE(std::isnan(rmath::atan2(nan, 1.0)));
  EXPECT_EQ(rmath::atan(inf), pio2);
  EXPECT_EQ(rmath::atan(-inf), -pio2);
  EXPECT_EQ(bits_of(rmath::atan(-0.0)), bits_of(-0.0));
  EXPECT_EQ(rmath::atan(1.0), pio4);
  // trig of non-finite arguments
  double s, c;
  rmath::sincos(inf, s, c);
  EXPECT_TRUE(std::isnan(s) && std::isnan(c));
  EXPECT_TRUE(std::isnan(rmath::tan(nan)));
  EXPECT_EQ(rmath::sin(0.0), 0.0);
  EXPECT_EQ(rmath::cos(0.0), 1.0);
  // acos
  EXPECT_EQ(rmath::acos(1.0), 0.0);
  EXPECT_EQ(rmath::acos(-1.0), pi);
  EXPECT_EQ(rmath::acos(0.0), pio2);
  EXPECT_TRUE(std::isnan(rmath::acos(1.0000000000000002)));
  EXPECT_TRUE(std::isnan(rmath::acos(nan)));
  // cbrt, hypot, expm1
  EXPECT_EQ(rmath::cbrt(27.0), 3.0);
  EXPECT_EQ(rmath::cbrt(-8.0), -2.0);
  EXPECT_EQ(bits_of(rmath::cbrt(-0.0)), bits_of(-0.0));
  EXPECT_EQ(rmath::cbrt(-inf), -inf);
  EXPECT_EQ(rmath::cbrt(0x1p-1074), 0x1p-358);  // the smallest subnormal, an exact cube
  EXPECT_EQ(rmath::hypot(3.0, 4.0), 5.0);
  EXPECT_EQ(rmath::hypot(inf, nan), inf);
  EXPECT_TRUE(std::isnan(rmath::hypot(nan, 1.0)));
  EXPECT_LT(ulp_error(rmath::hypot(1e308, 1e308), std::sqrt(2.0L) * 1e308L), 0.51);  // no overflow in between
  EXPECT_EQ(rmath::hypot(-0.0, 0.0), 0.0);
  EXPECT_EQ(bits_of(rmath::expm1(-0.0)), bits_of(-0.0));
  EXPECT_EQ(rmath::expm1(1e-300), 1e-300);
  EXPECT_EQ(rmath::expm1(-inf), -1.0);
  EXPECT_EQ(rmath::expm1(inf), inf);
  // the normal distribution at its edges
  EXPECT_EQ(rmath::normal_quantile(0.0), -inf);
  EXPECT_EQ(rmath::normal_quantile(1.0), inf);
  EXPECT_EQ(rmath::normal_quantile(0.5), 0.0);
  EXPECT_TRUE(std::isnan(rmath::normal_quantile(-0.1)));
  EXPECT_TRUE(std::isnan(rmath::normal_quantile(1.5)));
  EXPECT_TRUE(std::isnan(rmath::normal_quantile(nan)));
  EXPECT_EQ(rmath::normal_cdf(-inf), 0.0);
  EXPECT_EQ(rmath::normal_cdf(inf), 1.0);
  EXPECT_EQ(rmath::normal_sf(inf), 0.0);
  EXPECT_EQ(rmath::normal_cdf(0.0), 0.5);
  EXPECT_EQ(rmath::normal_pdf(inf), 0.0);
  EXPECT_EQ(rmath::normal_pdf(-1e300), 0.0);
  EXPECT_TRUE(std::isnan(rmath::normal_cdf(nan)));
  EXPECT_GT(rmath::normal_cdf(-38.4), 0.0);  // the last subnormals are still reached
  // symmetry, bit for bit
  for (double z : {0.1, 0.7, 1.3, 4.0, 9.5}) {
    EXPECT_EQ(bits_of(rmath::normal_cdf(-z)), bits_of(rmath::normal_sf(z)));
    EXPECT_EQ(bits_of(rmath::normal_pdf(-z)), bits_of(rmath::normal_pdf(z)));
  }
  // antisymmetry where 1 - p is exact
  for (double p : {0x1p-40, 0.0078125, 0.125, 0.3125, 0.375, 0.4375})
    EXPECT_EQ(bits_of(rmath::normal_quantile(1.0 - p)), bits_of(-rmath::normal_quantile(p))) << p;
}

// ---- pinned bits ----------------------------------------------------------------------------------

namespace {

// A pinned value: the function at x (written arg in messages) must give these bits.
struct Pin {
  const char* arg;
  double x;
  std::uint64_t bits;
};
// cdf and pdf are pinned at the same arguments.
struct ZPin {
  const char* arg;
  double z;
  std::uint64_t cdf_bits, pdf_bits;
};

// Written by this implementation on an Intel Xeon; each is within 1.2 ulp of the true
// value (mpmath, 60 digits). Any machine must give these bits.
const Pin kQuantilePins[] = {
    {"5e-324", 0x0.0000000000001p-1022, 0xc0433bd3f27fcd03ull},
    {"1e-300", 0x1.56e1fc2f8f359p-997, 0xc04286074064c26eull},
    {"1e-100", 0x1.bff2ee48e053p-333, 0xc03546010d755221ull},
    {"1e-30", 0x1.4484bfeebc2ap-100, 0xc026ed94a4dacdc8ull},
    {"1e-12", 0x1.19799812dea11p-40, 0xc01c234fba57a32aull},
    {"1e-06", 0x1.0c6f7a0b5ed8dp-20, 0xc0130381a9799f7eull},
    {"0.001", 0x1.0624dd2f1a9fcp-10, 0xc008b8cbb7204471ull},
    {"0.01", 0x1.47ae147ae147bp-7, 0xc0029c5c4630ff0full},
    {"0.025", 0x1.999999999999ap-6, 0xbfff5c0331eeff85ull},
    {"0.05", 0x1.999999999999ap-5, 0xbffa515209676abeull},
    {"0.1", 0x1.999999999999ap-4, 0xbff4813c36e26d32ull},
    {"0.15865525393145707", 0x1.44ed0bb7cb20cp-3, 0xbff0000000000000ull},
    {"0.2", 0x1.999999999999ap-3, 0xbfeaee8fa73a1332ull},
    {"0.24", 0x1.eb851eb851eb8p-3, 0xbfe69a07d50f5548ull},
    {"0.25", 0x1p-2, 0xbfe5956b87528a49ull},
    {"0.3", 0x1.3333333333333p-2, 0xbfe0c7e39582c5fbull},
    {"0.4", 0x1.999999999999ap-2, 0xbfd036d6c4a04b59ull},
    {"0.5", 0x1p-1, 0x0000000000000000ull},
    {"0.6", 0x1.3333333333333p-1, 0x3fd036d6c4a04b59ull},
    {"0.7", 0x1.6666666666666p-1, 0x3fe0c7e39582c5f9ull},
    {"0.75", 0x1.8p-1, 0x3fe5956b87528a49ull},
    {"0.8", 0x1.999999999999ap-1, 0x3feaee8fa73a1335ull},
    {"0.9", 0x1.ccccccccccccdp-1, 0x3ff4813c36e26d33ull},
    {"0.975", 0x1.f333333333333p-1, 0x3fff5c0331eeff84ull},
    {"0.99", 0x1.fae147ae147aep-1, 0x40029c5c4630ff0eull},
    {"0.999", 0x1.ff7ced916872bp-1, 0x4008b8cbb7204470ull},
    {"0.999999", 0x1.ffffde7210be9p-1, 0x40130381a97985efull},
    {"0.9999999999999999", 0x1.fffffffffffffp-1, 0x40206b48528cea52ull},
    {"5.421010862427522e-20", 0x1p-64, 0xc022290a17afe0c0ull},
    {"0.3333333333333333", 0x1.5555555555555p-2, 0xbfdb91093bfdfa2aull},
};
const ZPin kZPins[] = {
    {"-38.4", -0x1.3333333333333p+5, 0x000000000000000dull, 0x0000000000000201ull},
    {"-20.0", -0x1.4p+4, 0x2d8c0bd0f1880784ull, 0x2dd1928c553065a4ull},
    {"-8.5", -0x1.1p+3, 0x3c65dbbaccf1a4e1ull, 0x3c97899e4c2ad3a6ull},
    {"-5.0", -0x1.4p+2, 0x3e933ca2f2133831ull, 0x3eb8f16964c8fd3full},
    {"-3.0", -0x1.8p+1, 0x3f561de1f985b5d7ull, 0x3f7227213fd77689ull},
    {"-1.96", -0x1.f5c28f5c28f5cp+0, 0x3f99990c58859312ull, 0x3fadebf8b151adfdull},
    {"-1.0", -0x1p+0, 0x3fc44ed0bb7cb20bull, 0x3fcef8e58e331738ull},
    {"-0.7", -0x1.6666666666666p-1, 0x3fcef8aa3a8f3561ull, 0x3fd3fbf7ebf6e2f8ull},
    {"-0.625", -0x1.4p-1, 0x3fd105e82b1e4ca0ull, 0x3fd50096dcefd7c9ull},
    {"-0.5", -0x1p-1, 0x3fd3bf143b9aa712ull, 0x3fd6883d022086adull},
    {"-0.1", -0x1.999999999999ap-4, 0x3fdd7375f15b2f1eull, 0x3fd967aba85e91deull},
    {"0.0", 0x0p+0, 0x3fe0000000000000ull, 0x3fd9884533d43651ull},
    {"0.3", 0x1.3333333333333p-2, 0x3fe3c5ee2cc40b79ull, 0x3fd868a8709fbbc0ull},
    {"0.625", 0x1.4p-1, 0x3fe77d0bea70d9b0ull, 0x3fd50096dcefd7c9ull},
    {"1.0", 0x1p+0, 0x3feaec4bd120d37dull, 0x3fcef8e58e331738ull},
    {"2.5", 0x1.4p+1, 0x3fefcd21635036c6ull, 0x3f91f2f0557f5257ull},
    {"6.0", 0x1.8p+2, 0x3fefffffff786788ull, 0x3e3a1880fbd087fdull},
    {"8.0", 0x1p+3, 0x3feffffffffffffaull, 0x3cf6c0df3a094835ull},
    {"9.0", 0x1.2p+3, 0x3ff0000000000000ull, 0x3c32f67c5e7a9a3aull},
    {"30.0", 0x1.ep+4, 0x3ff0000000000000ull, 0x1746080417588184ull},
};

enum ElemFn { exp_, log_, sin_, cos_, tan_, atan_, acos_, cbrt_, expm1_, atan2_, hypot_ };
struct ElemPin {
  const char* name;
  ElemFn fn;
  double a, b;
  std::uint64_t bits;
};

// Within 0.7 ulp of the true values (mpmath); sin/cos(1e22) is the classic reduction check.
const ElemPin kElemPins[] = {
    {"exp(1.0)", exp_, 0x1p+0, 0.0, 0x4005bf0a8b14576aull},
    {"exp(-745.0)", exp_, -0x1.748p+9, 0.0, 0x0000000000000001ull},
    {"exp(0.1)", exp_, 0x1.999999999999ap-4, 0.0, 0x3ff1aec7b35a00d4ull},
    {"log(10.0)", log_, 0x1.4p+3, 0.0, 0x40026bb1bbb55516ull},
    {"log(0x1p-1074)", log_, 0x0.0000000000001p-1022, 0.0, 0xc0874385446d71c3ull},
    {"sin(1e22)", sin_, 0x1.0f0cf064dd592p+73, 0.0, 0xbfeb453ab76bf397ull},
    {"cos(1e22)", cos_, 0x1.0f0cf064dd592p+73, 0.0, 0x3fe0be2cef01c8f4ull},
    {"sin(0.5)", sin_, 0x1p-1, 0.0, 0x3fdeaee8744b05f0ull},
    {"cos(3.0)", cos_, 0x1.8p+1, 0.0, 0xbfefae04be85e5d2ull},
    {"tan(1.5)", tan_, 0x1.8p+0, 0.0, 0x402c33ed50b88778ull},
    {"atan(0.3)", atan_, 0x1.3333333333333p-2, 0.0, 0x3fd2a73a661eaf06ull},
    {"atan(1e10)", atan_, 0x1.2a05f2p+33, 0.0, 0x3ff921fb543d4de0ull},
    {"acos(-0.9)", acos_, -0x1.ccccccccccccdp-1, 0.0, 0x400586476251e745ull},
    {"cbrt(3.0)", cbrt_, 0x1.8p+1, 0.0, 0x3ff7137449123ef6ull},
    {"cbrt(-1e-310)", cbrt_, -0x0.012688b70e62bp-1022, 0.0, 0xaa7a9d1b0b5d7427ull},
    {"expm1(1e-5)", expm1_, 0x1.4f8b588e368f1p-17, 0.0, 0x3ee4f8bc681cdfb6ull},
    {"atan2(1.0, -3.0)", atan2_, 0x1p+0, -0x1.8p+1, 0x40068f095fdf593cull},
    {"atan2(-2.0, 0.5)", atan2_, -0x1p+1, 0x1p-1, 0xbff5368c951e9cfdull},
    {"hypot(3e300, 4e300)", hypot_, 0x1.1eb2d66005835p+998, 0x1.7e43c8800759cp+998, 0x7e5ddd4baa009303ull},
    {"hypot(1e-320, 2e-320)", hypot_, 0x0.00000000007e8p-1022, 0x0.0000000000fdp-1022, 0x00000000000011aeull},
};

double eval(ElemFn f, double a, double b) {
  switch (f) {
    case exp_: return rmath::exp(a);
    case log_: return rmath::log(a);
    case sin_: return rmath::sin(a);
    case cos_: return rmath::cos(a);
    case tan_: return rmath::tan(a);
    case atan_: return rmath::atan(a);
    case acos_: return rmath::acos(a);
    case cbrt_: return rmath::cbrt(a);
    case expm1_: return rmath::expm1(a);
    case atan2_: return rmath::atan2(a, b);
    case hypot_: return rmath::hypot(a, b);
  }
  return 0;
}

std::string hex(std::uint64_t b) {
  char s[24];
  std::snprintf(s, sizeof s, "0x%016llx", static_cast<unsigned long long>(b));
  return s;
}

}  // namespace

TEST(Rmath, PinnedNormalBits) {
  int n = 0;
  const auto expect_bits = [&n](const char* fn, const char* arg, double v, std::uint64_t bits) {
    EXPECT_EQ(hex(bits_of(v)), hex(bits)) << fn << "(" << arg << ") = " << v;
    ++n;
  };
  for (const Pin& p : kQuantilePins) expect_bits("quantile", p.arg, rmath::normal_quantile(p.x), p.bits);
  for (const ZPin& p : kZPins) {
    expect_bits("cdf", p.arg, rmath::normal_cdf(p.z), p.cdf_bits);
    expect_bits("pdf", p.arg, rmath::normal_pdf(p.z), p.pdf_bits);
  }
  EXPECT_GE(n, 60);
}

TEST(Rmath, PinnedElementaryBits) {
  for (const ElemPin& p : kElemPins) {
    const double v = eval(p.fn, p.a, p.b);
    EXPECT_EQ(hex(bits_of(v)), hex(p.bits)) << p.name << " = " << v;
  }
}
