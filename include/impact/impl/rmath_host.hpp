// Reproducible elementary functions, part 2 (host only): sin, cos, tan, atan, atan2, acos, cbrt,
// hypot and expm1, in plain double arithmetic. Every host target compiles with -ffp-contract=off
// (CMakeLists.txt, impact_core), so each + - * / is one IEEE round-to-nearest operation and std::fma
// and std::sqrt are correctly rounded: the same bits on any x86-64 (or other IEEE) machine, whatever
// its vendor, libm or vector extensions. The contracts are in impact/rmath.hpp; include that.
#pragma once
#include <cmath>
#include <cstdint>

#include "impact/impl/rmath_fdlibm.hpp"
#include "impact/impl/rmath_tables.hpp"

namespace impact::rmath {

namespace detail {

// s + e = a + b exactly (Knuth's two-sum, any order of magnitude).
inline void two_sum(double a, double b, double& s, double& e) {
  s = a + b;
  const double bb = s - a;
  e = (a - (s - bb)) + (b - bb);
}

// atan(t) for 0 <= t <= 1 as hi + lo, or pi/2 - atan(t) (= atan(1/t)) when `complement`.
// t >= 3/32 is split at the nearest sixteenth c = j/16: atan(t) = atan(c) + atan(u),
// u = (t - c) / (1 + t c), |u| <= 1/32, so atan(u) is at most a third of the result and its
// rounding stays below a quarter ulp of it; t - c is exact (Sterbenz) and 1 + t c is formed as a
// double-double, so u is within about half an ulp. Below 3/32, u = t (no split: atan(1/16) - 1/32
// would cancel). atan(u) = u - u^3/3 + ... + u^17/17 (the next term is below 2^-58 |u|).
inline void atan_unit(double t, bool complement, double& hi, double& lo) {
  // NOLINTNEXTLINE(bugprone-incorrect-roundings): for t <= 1 the sum never rounds up to the next integer
  const int j = t < 0.09375 ? 0 : static_cast<int>(t * 16.0 + 0.5);
  const double c = j * 0.0625;  // exact
  const double num = t - c;     // exact
  const double tc = t * c;
  const double tc_lo = std::fma(t, c, -tc);  // exact: c has 5 significant bits
  double den, den_lo;
  two_sum(1.0, tc, den, den_lo);
  den_lo += tc_lo;
  const double u0 = num / den;
  const double u = u0 - u0 * (den_lo / den) - std::fma(u0, den, -num) / den;
  const double w = u * u;
  const double p =
      w * (-1.0 / 3.0 +
           w * (1.0 / 5.0 + w * (-1.0 / 7.0 +
                                 w * (1.0 / 9.0 + w * (-1.0 / 11.0 + w * (1.0 / 13.0 + w * (-1.0 / 15.0 + w * (1.0 / 17.0))))))));
  const double au = u + u * p;  // atan(u)
  const double* A = tables::kAtanSixteenths[j];
  if (!complement) {
    two_sum(A[0], au, hi, lo);
    lo += A[1];
  } else {  // pi/2 - atan(c) - atan(u)
    double bh, bl;
    two_sum(tables::kPio2Hi, -A[0], bh, bl);
    bl += tables::kPio2Lo - A[1];
    two_sum(bh, -au, hi, lo);
    lo += bl;
  }
}

}  // namespace detail

// sin and cos alone: the one kernel the quadrant needs (the bits of sincos's halves).
inline double sin(double x) {
  std::int64_t q;
  double xh, xl;
  if (!radians_reduced(x, q, xh, xl)) return nan();
  const double r = (q & 1) ? kernel_cos(xh, xl) : kernel_sin(xh, xl);
  return (q & 2) ? -r : r;
}

inline double cos(double x) {
  std::int64_t q;
  double xh, xl;
  if (!radians_reduced(x, q, xh, xl)) return nan();
  const double r = (q & 1) ? kernel_sin(xh, xl) : kernel_cos(xh, xl);
  return ((q + 1) & 2) ? -r : r;
}

inline double tan(double x) {
  double s, c;
  sincos(x, s, c);
  return s / c;
}

inline double atan2(double y, double x) {
  if (std::isnan(x) || std::isnan(y)) return x + y;
  double ay = std::fabs(y), ax = std::fabs(x);
  const bool xneg = std::signbit(x);
  if (std::isinf(ay) && std::isinf(ax)) ay = ax = 1.0;  // +-pi/4, +-3 pi/4
  double r;
  if (ay == 0.0 || std::isinf(ax)) {
    r = xneg ? tables::kPiHi : 0.0;  // atan2(+-0, x < 0 or -0) = +-pi, else +-0; likewise x = +-inf
  } else if (std::isinf(ay) || ax == 0.0) {
    r = tables::kPio2Hi;
  } else {
    double hi, lo;
    if (ay <= ax) {
      detail::atan_unit(ay / ax, false, hi, lo);
    } else {
      detail::atan_unit(ax / ay, true, hi, lo);
    }
    if (xneg) {  // pi - (hi + lo)
      double h, l;
      detail::two_sum(tables::kPiHi, -hi, h, l);
      hi = h;
      lo = (l + tables::kPiLo) - lo;
    }
    r = hi + lo;
  }
  return std::signbit(y) ? -r : r;
}

inline double atan(double x) {
  if (std::isnan(x)) return x + x;
  const double ax = std::fabs(x);
  if (ax < 0x1p-27) return x;  // |x^3/3| < 2^-55 |x|: x is the rounded atan(x)
  double hi, lo;
  if (ax <= 1.0) {
    detail::atan_unit(ax, false, hi, lo);
  } else if (std::isinf(ax)) {
    hi = tables::kPio2Hi;
    lo = 0.0;
  } else {
    detail::atan_unit(1.0 / ax, true, hi, lo);
  }
  const double r = hi + lo;
  return x < 0.0 ? -r : r;
}

// acos(x) = atan2(sqrt((1 - x)(1 + x)), x); 1 - x (x >= 1/2) and 1 + x (x <= -1/2) are exact.
inline double acos(double x) {
  if (!(std::fabs(x) <= 1.0)) return std::isnan(x) ? x + x : std::nan("");
  return atan2(std::sqrt((1.0 - x) * (1.0 + x)), x);
}

// Cube root: x = m 2^(3k) with m in [1/8, 8) (exponent bits), three Halley steps from a linear guess,
// then one Newton step whose residual y^3 - m is formed exactly enough with fma.
inline double cbrt(double x) {
  if (!std::isfinite(x) || x == 0.0) return x + x;
  double m = std::fabs(x);
  int scale = 0;  // result = cbrt(m) 2^scale
  if (m < 0x1p-1000) {
    m *= 0x1p600;
    scale = -200;
  }
  const int e = static_cast<int>(bits(m) >> 52) - 1023;                                           // m in [2^e, 2^(e+1))
  const int k = (e >= 0 ? e : e - 2) / 3;                                                         // floor(e / 3)
  m = from_bits(bits(m) - (static_cast<std::uint64_t>(static_cast<std::int64_t>(3 * k)) << 52));  // in [1, 8)
  scale += k;
  double y = 0.75 + 0.2 * m;  // within 30% of cbrt on [1, 8)
  for (int i = 0; i < 3; ++i) {
    const double y3 = y * y * y;
    y = y * (y3 + 2.0 * m) / (2.0 * y3 + m);
  }
  const double y2 = y * y, y2l = std::fma(y, y, -y2);
  const double y3 = y2 * y, y3l = std::fma(y2, y, -y3) + y2l * y;
  y -= ((y3 - m) + y3l) / (3.0 * y2);
  y = from_bits(bits(y) + (static_cast<std::uint64_t>(static_cast<std::int64_t>(scale)) << 52));
  return x < 0.0 ? -y : y;
}

// sqrt(x^2 + y^2) without overflow or underflow: scaled by a power of two, the sum of squares as a
// double-double (fma), then one correction of the square root.
inline double hypot(double x, double y) {
  double a = std::fabs(x), b = std::fabs(y);
  if (std::isinf(a) || std::isinf(b)) return HUGE_VAL;
  if (std::isnan(a) || std::isnan(b)) return a + b;
  if (a < b) {
    const double t = a;
    a = b;
    b = t;
  }
  if (b == 0.0) return a;
  double s = 1.0;  // power of two: exact scaling both ways
  if (a > 0x1p500) {
    a *= 0x1p-600;
    b *= 0x1p-600;
    s = 0x1p600;
  } else if (a < 0x1p-500) {
    a *= 0x1p600;
    b *= 0x1p600;
    s = 0x1p-600;
  }
  const double ah = a * a, al = std::fma(a, a, -ah);
  const double bh = b * b, bl = std::fma(b, b, -bh);
  double sh, sl;
  detail::two_sum(ah, bh, sh, sl);
  sl += al + bl;
  const double r = std::sqrt(sh);
  const double corr = (std::fma(-r, r, sh) + sl) / (2.0 * r);
  return (r + corr) * s;
}

// exp(x) - 1: exp(x) - 1 directly where there is no cancellation (|x| >= 1/2); else the Taylor
// series x + x^2/2! + ... + x^17/17! (the next term is below 2^-60 |x|), summed from the top.
inline double expm1(double x) {
  if (!(std::fabs(x) < 0.5)) return std::isnan(x) ? x + x : exp(x) - 1.0;
  if (x == 0.0) return x;              // keeps -0
  double r = 1.0 / 355687428096000.0;  // 1/17!
  double f = 355687428096000.0;
  for (int n = 16; n >= 2; --n) {
    f /= n + 1;  // n! exactly (integers below 2^53)
    r = r * x + 1.0 / f;
  }
  return x + x * (x * r);
}

}  // namespace impact::rmath
