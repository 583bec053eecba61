// Reproducible elementary functions, part 1: the IEEE arithmetic wrappers, log, exp and the sin/cos
// family, IMPACT_HD and BIT-IDENTICAL on the host (g++, no contraction) and the device (nvcc, the
// explicit __dadd_rn/__dmul_rn/__fma_rn intrinsics, which are never contracted). The contracts
// are in impact/rmath.hpp; include that, not this.
//
// log, exp and the sin/cos kernels are ports of fdlibm's e_log.c, e_exp.c and FreeBSD's
// k_sin.c / k_cos.c; they carry Sun's notice:
//   Copyright (C) 1993 by Sun Microsystems, Inc. All rights reserved.
//   Developed at SunSoft, a Sun Microsystems, Inc. business.
//   Permission to use, copy, modify, and distribute this software is freely granted, provided
//   that this notice is preserved.
// The range reductions (sincos_quarter, reduce_quarter_large) are this project's.
#pragma once
#include <cstdint>
#include <cstring>

#if !defined(__CUDA_ARCH__)
#include <cmath>
#endif

#include "impact/config.hpp"
#include "impact/impl/rmath_tables.hpp"

// ---- reproducible double arithmetic ---------------------------------------------------------------
namespace impact::rmath {

#if defined(__CUDA_ARCH__)
IMPACT_HDI double dadd(double a, double b) { return __dadd_rn(a, b); }
IMPACT_HDI double dsub(double a, double b) { return __dsub_rn(a, b); }
IMPACT_HDI double dmul(double a, double b) { return __dmul_rn(a, b); }
IMPACT_HDI double ddiv(double a, double b) { return __ddiv_rn(a, b); }
IMPACT_HDI double dfma(double a, double b, double c) { return __fma_rn(a, b, c); }
IMPACT_HDI double dsqrt(double a) { return __dsqrt_rn(a); }
IMPACT_HDI std::uint64_t bits(double x) { return static_cast<std::uint64_t>(__double_as_longlong(x)); }
IMPACT_HDI double from_bits(std::uint64_t b) { return __longlong_as_double(static_cast<long long>(b)); }
#else
IMPACT_HDI double dadd(double a, double b) { return a + b; }
IMPACT_HDI double dsub(double a, double b) { return a - b; }
IMPACT_HDI double dmul(double a, double b) { return a * b; }
IMPACT_HDI double ddiv(double a, double b) { return a / b; }
IMPACT_HDI double dfma(double a, double b, double c) { return std::fma(a, b, c); }
IMPACT_HDI double dsqrt(double a) { return std::sqrt(a); }
IMPACT_HDI std::uint64_t bits(double x) {
  std::uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}
IMPACT_HDI double from_bits(std::uint64_t b) {
  double x;
  std::memcpy(&x, &b, sizeof x);
  return x;
}
#endif

IMPACT_HDI double inf() { return from_bits(0x7ff0000000000000ull); }
IMPACT_HDI double nan() { return from_bits(0x7ff8000000000000ull); }
IMPACT_HDI bool is_finite(double x) { return (bits(x) & 0x7ff0000000000000ull) != 0x7ff0000000000000ull; }

// Natural logarithm (fdlibm e_log.c): x = 2^k (1 + f), sqrt(2)/2 < 1 + f < sqrt(2), then
// log(1 + f) = f - s (f - R(s)) with s = f / (2 + f) and a degree-14 polynomial R. Error < 1 ulp.
IMPACT_HD inline double log(double x) {
  const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10, two54 = 1.80143985094819840000e+16,
               Lg1 = 6.666666666666735130e-01, Lg2 = 3.999999999940941908e-01, Lg3 = 2.857142874366239149e-01,
               Lg4 = 2.222219843214978396e-01, Lg5 = 1.818357216161805012e-01, Lg6 = 1.531383769920937332e-01,
               Lg7 = 1.479819860511658591e-01;
  std::uint64_t ux = bits(x);
  std::int32_t hx = static_cast<std::int32_t>(ux >> 32);
  const std::uint32_t lx = static_cast<std::uint32_t>(ux);
  int k = 0;
  if (hx < 0x00100000) {                               // x < 2^-1022
    if (((hx & 0x7fffffff) | lx) == 0) return -inf();  // log(+-0) = -inf
    if (hx < 0) return nan();                          // log(-x) = NaN
    k -= 54;
    x = dmul(x, two54);  // subnormal: scale up
    ux = bits(x);
    hx = static_cast<std::int32_t>(ux >> 32);
  }
  if (hx >= 0x7ff00000) return dadd(x, x);  // inf or NaN
  k += (hx >> 20) - 1023;
  hx &= 0x000fffff;
  std::int32_t i = (hx + 0x95f64) & 0x100000;
  // normalise x or x/2 into [sqrt(2)/2, sqrt(2))
  x = from_bits((static_cast<std::uint64_t>(static_cast<std::uint32_t>(hx | (i ^ 0x3ff00000))) << 32) | (ux & 0xffffffffull));
  k += (i >> 20);
  const double f = dsub(x, 1.0);
  const double dk = static_cast<double>(k);
  if ((0x000fffff & (2 + hx)) < 3) {  // |f| < 2^-20
    if (f == 0.0) return k == 0 ? 0.0 : dadd(dmul(dk, ln2_hi), dmul(dk, ln2_lo));
    const double R = dmul(dmul(f, f), dsub(0.5, dmul(0.33333333333333333, f)));
    if (k == 0) return dsub(f, R);
    return dsub(dmul(dk, ln2_hi), dsub(dsub(R, dmul(dk, ln2_lo)), f));
  }
  const double s = ddiv(f, dadd(2.0, f));
  const double z = dmul(s, s);
  i = hx - 0x6147a;
  const double w = dmul(z, z);
  const std::int32_t j = 0x6b851 - hx;
  const double t1 = dmul(w, dadd(Lg2, dmul(w, dadd(Lg4, dmul(w, Lg6)))));
  const double t2 = dmul(z, dadd(Lg1, dmul(w, dadd(Lg3, dmul(w, dadd(Lg5, dmul(w, Lg7)))))));
  i |= j;
  const double R = dadd(t2, t1);
  if (i > 0) {
    const double hfsq = dmul(dmul(0.5, f), f);
    if (k == 0) return dsub(f, dsub(hfsq, dmul(s, dadd(hfsq, R))));
    return dsub(dmul(dk, ln2_hi), dsub(dsub(hfsq, dadd(dmul(s, dadd(hfsq, R)), dmul(dk, ln2_lo))), f));
  }
  if (k == 0) return dsub(f, dmul(s, dsub(f, R)));
  return dsub(dmul(dk, ln2_hi), dsub(dsub(dmul(s, dsub(f, R)), dmul(dk, ln2_lo)), f));
}

// Exponential (fdlibm e_exp.c): x = k ln2 + r, |r| <= ln2/2 (r as hi - lo), exp(r) from a
// degree-5 rational form, then scaled by 2^k through the exponent bits. Error < 1 ulp.
IMPACT_HD inline double exp(double x) {
  const double o_threshold = 7.09782712893383973096e+02, u_threshold = -7.45133219101941108420e+02,
               ln2HI = 6.93147180369123816490e-01, ln2LO = 1.90821492927058770002e-10, invln2 = 1.44269504088896338700e+00,
               twom1000 = 9.33263618503218878990e-302, P1 = 1.66666666666666019037e-01, P2 = -2.77777777770155933842e-03,
               P3 = 6.61375632143793436117e-05, P4 = -1.65339022054652515390e-06, P5 = 4.13813679705723846039e-08;
  const std::uint64_t ux = bits(x);
  std::uint32_t hx = static_cast<std::uint32_t>(ux >> 32);
  const int xsb = static_cast<int>((hx >> 31) & 1u);
  hx &= 0x7fffffffu;
  if (hx >= 0x40862E42u) {  // |x| >= 709.78...
    if (hx >= 0x7ff00000u) {
      if (((hx & 0xfffffu) | static_cast<std::uint32_t>(ux)) != 0) return dadd(x, x);  // NaN
      return xsb == 0 ? x : 0.0;                                                       // exp(+-inf)
    }
    if (x > o_threshold) return inf();
    if (x < u_threshold) return 0.0;
  }
  double hi = 0.0, lo = 0.0;
  int k = 0;
  if (hx > 0x3fd62e42u) {    // |x| > ln2/2
    if (hx < 0x3FF0A2B2u) {  // and |x| < 1.5 ln2
      hi = xsb ? dadd(x, ln2HI) : dsub(x, ln2HI);
      lo = xsb ? -ln2LO : ln2LO;
      k = 1 - xsb - xsb;
    } else {
      k = static_cast<int>(dadd(dmul(invln2, x), xsb ? -0.5 : 0.5));  // truncation, as fdlibm
      const double t = static_cast<double>(k);
      hi = dsub(x, dmul(t, ln2HI));  // exact: ln2HI has 32 trailing zero bits
      lo = dmul(t, ln2LO);
    }
    x = dsub(hi, lo);
  } else if (hx < 0x3e300000u) {  // |x| < 2^-28
    return dadd(1.0, x);
  }
  const double t = dmul(x, x);
  const double c = dsub(x, dmul(t, dadd(P1, dmul(t, dadd(P2, dmul(t, dadd(P3, dmul(t, dadd(P4, dmul(t, P5))))))))));
  if (k == 0) return dsub(1.0, dsub(ddiv(dmul(x, c), dsub(c, 2.0)), x));
  const double y = dsub(1.0, dsub(dsub(lo, ddiv(dmul(x, c), dsub(2.0, c))), hi));
  // add k to y's exponent (y is in [0.5, 2], k >= -1074: unsigned wrap-around does the subtraction)
  if (k >= -1021) return from_bits(bits(y) + static_cast<std::uint64_t>(static_cast<std::int64_t>(k)) * (1ull << 52));
  return dmul(from_bits(bits(y) + static_cast<std::uint64_t>(static_cast<std::int64_t>(k + 1000)) * (1ull << 52)), twom1000);
}

// sin and cos kernels on [-pi/4, pi/4] for x + y, |y| <= ulp(x) (FreeBSD k_sin.c / k_cos.c).
IMPACT_HDI double kernel_sin(double x, double y) {
  const double S1 = -1.66666666666666324348e-01, S2 = 8.33333333332248946124e-03, S3 = -1.98412698298579493134e-04,
               S4 = 2.75573137070700676789e-06, S5 = -2.50507602534068634195e-08, S6 = 1.58969099521155010221e-10;
  const double z = dmul(x, x), w = dmul(z, z);
  const double r = dadd(dadd(S2, dmul(z, dadd(S3, dmul(z, S4)))), dmul(dmul(z, w), dadd(S5, dmul(z, S6))));
  const double v = dmul(z, x);
  return dsub(x, dsub(dsub(dmul(z, dsub(dmul(0.5, y), dmul(v, r))), y), dmul(v, S1)));
}
IMPACT_HDI double kernel_cos(double x, double y) {
  const double C1 = 4.16666666666666019037e-02, C2 = -1.38888888888741095749e-03, C3 = 2.48015872894767294178e-05,
               C4 = -2.75573143513906633035e-07, C5 = 2.08757232129817482790e-09, C6 = -1.13596475577881948265e-11;
  const double z = dmul(x, x), w = dmul(z, z);
  const double r =
      dadd(dmul(z, dadd(C1, dmul(z, dadd(C2, dmul(z, C3))))), dmul(dmul(w, w), dadd(C4, dmul(z, dadd(C5, dmul(z, C6))))));
  const double hz = dmul(0.5, z);
  const double w1 = dsub(1.0, hz);
  return dadd(w1, dadd(dsub(dsub(1.0, w1), hz), dsub(dmul(z, r), dmul(x, y))));
}

// sin and cos of (q + fh + fl) * pi/2 for an integer q and a fraction |fh + fl| <= 1/2 (quarter
// turns, |fl| <= ulp(fh)): x = (fh + fl) pi/2 as a double-double, the kernels, then the quadrant.
IMPACT_HDI void quarter_to_radians(double f, double fl, double& xh, double& xl) {
  const double PIO2_HI = 1.5707963267948966, PIO2_LO = 6.123233995736766e-17;
  const double ph = dmul(f, PIO2_HI);
  const double pl = dadd(dadd(dfma(f, PIO2_HI, -ph), dmul(f, PIO2_LO)), dmul(fl, PIO2_HI));
  xh = dadd(ph, pl);  // renormalise (fast two-sum, |ph| >= |pl|)
  xl = dsub(pl, dsub(xh, ph));
}
// sin and cos of q pi/2 + (xh + xl) radians, |xh + xl| <= pi/4: the kernels, then the quadrant.
IMPACT_HD inline void sincos_quadrant(std::int64_t q, double xh, double xl, double& s, double& c) {
  const double sn = kernel_sin(xh, xl), cs = kernel_cos(xh, xl);
  switch (static_cast<int>(q & 3)) {
    case 0:
      s = sn;
      c = cs;
      break;
    case 1:
      s = cs;
      c = -sn;
      break;
    case 2:
      s = -sn;
      c = -cs;
      break;
    default:
      s = -cs;
      c = sn;
      break;
  }
}
IMPACT_HD inline void sincos_reduced(std::int64_t q, double f, double fl, double& s, double& c) {
  double xh, xl;
  quarter_to_radians(f, fl, xh, xl);
  sincos_quadrant(q, xh, xl, s, c);
}

// vh + vl quarter turns (|vl| <= ulp(vh), |vh| < 2^51) as the nearest integer q and a fraction
// f + fl of one: f0 = vh - q is exact, f + fl = f0 + vl exactly (fast two-sum).
IMPACT_HDI void split_quarters(double vh, double vl, std::int64_t& q, double& f, double& fl) {
  q = static_cast<std::int64_t>(dadd(vh, vh >= 0.0 ? 0.5 : -0.5));  // truncation
  const double f0 = dsub(vh, static_cast<double>(q));               // exact
  f = dadd(f0, vl);
  fl = dsub(vl, dsub(f, f0));
}

// sin and cos of the angle (vh + vl) * pi/2 (vh + vl in quarter turns, |vl| <= ulp(vh)):
// q = the nearest integer to vh, f = vh - q exactly, then sincos_reduced. Needs |vh| < 2^51
// (else NaN).
IMPACT_HD inline void sincos_quarter(double vh, double vl, double& s, double& c) {
  if (!(vh < 2251799813685248.0 && vh > -2251799813685248.0)) {
    s = c = nan();
    return;
  }
  std::int64_t q;
  double f, fl;
  split_quarters(vh, vl, q, f, fl);
  sincos_reduced(q, f, fl, s, c);
}

// sin and cos of 2 pi u (u in turns; exact reduction for any double u with |u| < 2^49).
IMPACT_HDI void sincos_turns(double u, double& s, double& c) { sincos_quarter(dmul(4.0, u), 0.0, s, c); }

// Payne-Hanek reduction of a finite ax >= 2^20: ax 2/pi = 4 n + q + f with q in 0..3 returned and
// the fraction f (quarter turns, |f| <= 1/2) as fh + fl. ax = m 2^e (m a 53-bit integer), so the
// bits of 2/pi before position e - 1 give multiples of 4 and drop out: m times the 192 bits of 2/pi
// from there on, an exact integer product kept modulo 2^192, holds q in its top 2 bits and f in the
// next 190 (at least 66 of them significant after the worst cancellation a double can have, an
// argument 2^-61 quarter turns from a multiple of pi/2). Integer work; the same bits on every host.
// Host only (the table is host memory; nothing on the device takes radians this large).
inline std::int64_t reduce_quarter_large(double ax, double& fh, double& fl) {
  __extension__ using u128 = unsigned __int128;
  const auto mul_64x64 = [](std::uint64_t a, std::uint64_t b, std::uint64_t& hi, std::uint64_t& lo) {
    hi = static_cast<std::uint64_t>((static_cast<u128>(a) * b) >> 64);
    lo = a * b;
  };
  const std::uint64_t b = bits(ax);
  const int e = static_cast<int>(b >> 52) - 1075;  // ax = m 2^e, e in [-32, 971]
  const std::uint64_t m = (b & 0xfffffffffffffull) | (1ull << 52);
  const int p = e - 2 + 64;  // the window's first bit in the table's bit stream (word 0 is padding)
  const int j = p >> 6, sh = p & 63;
  const auto word = [&](int k) {
    const std::uint64_t a = tables::kTwoOverPi[k];
    return sh == 0 ? a : (a << sh) | (tables::kTwoOverPi[k + 1] >> (64 - sh));
  };
  const std::uint64_t w0 = word(j), w1 = word(j + 1), w2 = word(j + 2);
  std::uint64_t h0, l0, h1, l1, h2, l2;
  mul_64x64(m, w2, h2, l2);
  mul_64x64(m, w1, h1, l1);
  mul_64x64(m, w0, h0, l0);
  const std::uint64_t p0 = l2;
  const std::uint64_t p1 = l1 + h2;
  const std::uint64_t p2 = l0 + h1 + (p1 < l1 ? 1u : 0u);  // modulo 2^64: higher bits are multiples of 4
  std::int64_t q = static_cast<std::int64_t>(p2 >> 62);
  const std::uint64_t F = (p2 << 2) | (p1 >> 62), G = (p1 << 2) | (p0 >> 62);
  if (F >> 63) ++q;  // f >= 1/2: round to the next quadrant; F read as signed is then f - 1
  const std::int64_t Fs = static_cast<std::int64_t>(F);
  // f 2^64 = a + c + g: a and c exact doubles, g below 1 (the bits of G)
  const double a = dmul(static_cast<double>(Fs >> 32), 4294967296.0);
  const double c = static_cast<double>(F & 0xffffffffull);
  const double g = dmul(static_cast<double>(G >> 11), 0x1p-53);
  const double s = dadd(a, c);  // two-sum
  const double bb = dsub(s, a);
  const double err = dadd(dsub(a, dsub(s, bb)), dsub(c, bb));
  fh = dmul(s, 0x1p-64);
  fl = dmul(dadd(err, g), 0x1p-64);
  return q;
}

// x radians as q quarter turns and a fraction f + fl of one (|f| <= 1/2, |fl| <= ulp(f)).
// |x| < 2^20: x 2/pi as a double-double, then split_quarters; larger finite x: the
// exact reduction above (host; false on the device); NaN and +-inf: false. A negative x reduces to
// the negated q, f and fl of |x| (the kernels are odd and even, so the bits are -sin and cos).
IMPACT_HD inline bool reduce_radians(double x, std::int64_t& q, double& f, double& fl) {
  const double ax = x < 0.0 ? -x : x;
  if (ax < 1048576.0) {
    const double TWO_OVER_PI_HI = 0.6366197723675814, TWO_OVER_PI_LO = -3.935735335036497e-17;
    const double vh = dmul(x, TWO_OVER_PI_HI);
    const double vl = dadd(dfma(x, TWO_OVER_PI_HI, -vh), dmul(x, TWO_OVER_PI_LO));
    const double h = dadd(vh, vl);
    const double l = dsub(vl, dsub(h, vh));
    split_quarters(h, l, q, f, fl);
    return true;
  }
#if defined(__CUDA_ARCH__)
  return false;
#else
  if (!is_finite(x)) return false;
  q = reduce_quarter_large(ax, f, fl);
  if (x < 0.0) q = -q, f = -f, fl = -fl;
  return true;
#endif
}

// x radians as q quarter turns and an angle xh + xl of at most pi/4: |x| <= pi/4 is its own
// angle (no rounding through 2/pi and back), else reduce_radians. False as reduce_radians.
IMPACT_HD inline bool radians_reduced(double x, std::int64_t& q, double& xh, double& xl) {
  if (x <= 0.78539816339744828 && x >= -0.78539816339744828) {  // the double below pi/4
    q = 0;
    xh = x;
    xl = 0.0;
    return true;
  }
  double f, fl;
  if (!reduce_radians(x, q, f, fl)) return false;
  quarter_to_radians(f, fl, xh, xl);
  return true;
}

// sin and cos of x radians: < 1 ulp; NaN for NaN and +-inf (and on the device for |x| >= 2^20).
IMPACT_HD inline void sincos(double x, double& s, double& c) {
  std::int64_t q;
  double xh, xl;
  if (!radians_reduced(x, q, xh, xl)) {
    s = c = nan();
    return;
  }
  sincos_quadrant(q, xh, xl, s, c);
}

}  // namespace impact::rmath
