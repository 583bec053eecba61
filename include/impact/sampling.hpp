// On-device sampling of impact instances from a compact study description (SampleSpec): every
// instance is a pure function of (spec, seed, instance index), computed in registers on the host
// (g++) or on the device (nvcc) with BIT-IDENTICAL results, so a study of any size needs no
// per-instance storage and any shard of its index range can be recomputed alone.
//
// How the bits are kept identical:
//   * uniforms come from Philox4x32-10 (impact/rng.hpp) keyed by the seed, with counter
//     (instance index, parameter slot, block): integer work and exact int-to-double conversions;
//   * every floating-point operation below goes through rmath::dadd/dsub/dmul/ddiv/dfma/dsqrt,
//     which are IEEE round-to-nearest on both sides (device: __dadd_rn, __dmul_rn, __fma_rn, ...
//     which nvcc never contracts; host: plain operators and std::fma, with the host targets
//     compiled with -ffp-contract=off, see CMakeLists.txt);
//   * log, exp and sin/cos are libm-free (CUDA's and glibc's differ in the last bits): ports of
//     fdlibm's e_log.c, e_exp.c and FreeBSD's k_sin.c / k_cos.c kernels with the quarter-turn
//     range reduction done exactly (tests/physics/test_sampling.cpp measures them against std:: in
//     long double: below 1 ulp).
// Everything is POD and IMPACT_HD; no Eigen, no libm.
//
// The fdlibm-derived parts carry Sun's notice:
//   Copyright (C) 1993 by Sun Microsystems, Inc. All rights reserved.
//   Developed at SunSoft, a Sun Microsystems, Inc. business.
//   Permission to use, copy, modify, and distribute this software is freely granted, provided
//   that this notice is preserved.
#pragma once
#include <cstdint>
#include <cstring>

#if !defined(__CUDA_ARCH__)
#include <cmath>
#endif

#include "impact/problem.hpp"
#include "impact/rng.hpp"

namespace impact {

// ---- reproducible double arithmetic ---------------------------------------------------------------
namespace rmath {

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
  const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10,
               two54 = 1.80143985094819840000e+16, Lg1 = 6.666666666666735130e-01,
               Lg2 = 3.999999999940941908e-01, Lg3 = 2.857142874366239149e-01,
               Lg4 = 2.222219843214978396e-01, Lg5 = 1.818357216161805012e-01,
               Lg6 = 1.531383769920937332e-01, Lg7 = 1.479819860511658591e-01;
  std::uint64_t ux = bits(x);
  std::int32_t hx = static_cast<std::int32_t>(ux >> 32);
  const std::uint32_t lx = static_cast<std::uint32_t>(ux);
  int k = 0;
  if (hx < 0x00100000) {                                    // x < 2^-1022
    if (((hx & 0x7fffffff) | lx) == 0) return -inf();       // log(+-0) = -inf
    if (hx < 0) return nan();                               // log(-x) = NaN
    k -= 54;
    x = dmul(x, two54);                                     // subnormal: scale up
    ux = bits(x);
    hx = static_cast<std::int32_t>(ux >> 32);
  }
  if (hx >= 0x7ff00000) return dadd(x, x);                  // inf or NaN
  k += (hx >> 20) - 1023;
  hx &= 0x000fffff;
  std::int32_t i = (hx + 0x95f64) & 0x100000;
  // normalise x or x/2 into [sqrt(2)/2, sqrt(2))
  x = from_bits((static_cast<std::uint64_t>(static_cast<std::uint32_t>(hx | (i ^ 0x3ff00000))) << 32) |
                (ux & 0xffffffffull));
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
               ln2HI = 6.93147180369123816490e-01, ln2LO = 1.90821492927058770002e-10,
               invln2 = 1.44269504088896338700e+00, twom1000 = 9.33263618503218878990e-302,
               P1 = 1.66666666666666019037e-01, P2 = -2.77777777770155933842e-03,
               P3 = 6.61375632143793436117e-05, P4 = -1.65339022054652515390e-06,
               P5 = 4.13813679705723846039e-08;
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
  return dmul(from_bits(bits(y) + static_cast<std::uint64_t>(static_cast<std::int64_t>(k + 1000)) * (1ull << 52)),
              twom1000);
}

// sin and cos kernels on [-pi/4, pi/4] for x + y, |y| <= ulp(x) (FreeBSD k_sin.c / k_cos.c).
IMPACT_HDI double kernel_sin(double x, double y) {
  const double S1 = -1.66666666666666324348e-01, S2 = 8.33333333332248946124e-03,
               S3 = -1.98412698298579493134e-04, S4 = 2.75573137070700676789e-06,
               S5 = -2.50507602534068634195e-08, S6 = 1.58969099521155010221e-10;
  const double z = dmul(x, x), w = dmul(z, z);
  const double r = dadd(dadd(S2, dmul(z, dadd(S3, dmul(z, S4)))), dmul(dmul(z, w), dadd(S5, dmul(z, S6))));
  const double v = dmul(z, x);
  return dsub(x, dsub(dsub(dmul(z, dsub(dmul(0.5, y), dmul(v, r))), y), dmul(v, S1)));
}
IMPACT_HDI double kernel_cos(double x, double y) {
  const double C1 = 4.16666666666666019037e-02, C2 = -1.38888888888741095749e-03,
               C3 = 2.48015872894767294178e-05, C4 = -2.75573143513906633035e-07,
               C5 = 2.08757232129817482790e-09, C6 = -1.13596475577881948265e-11;
  const double z = dmul(x, x), w = dmul(z, z);
  const double r = dadd(dmul(z, dadd(C1, dmul(z, dadd(C2, dmul(z, C3))))),
                        dmul(dmul(w, w), dadd(C4, dmul(z, dadd(C5, dmul(z, C6))))));
  const double hz = dmul(0.5, z);
  const double w1 = dsub(1.0, hz);
  return dadd(w1, dadd(dsub(dsub(1.0, w1), hz), dsub(dmul(z, r), dmul(x, y))));
}

// sin and cos of the angle (vh + vl) * pi/2 (vh + vl in quarter turns, |vl| <= ulp(vh)):
// q = the nearest integer to vh, f = vh - q exactly, x = (f + vl) pi/2 as a double-double, then
// the kernels and the quadrant q mod 4. Needs |vh| < 2^51 (else NaN).
IMPACT_HD inline void sincos_quarter(double vh, double vl, double& s, double& c) {
  const double PIO2_HI = 1.5707963267948966, PIO2_LO = 6.123233995736766e-17;
  if (!(vh < 2251799813685248.0 && vh > -2251799813685248.0)) {
    s = c = nan();
    return;
  }
  const std::int64_t q = static_cast<std::int64_t>(dadd(vh, vh >= 0.0 ? 0.5 : -0.5));  // truncation
  const double f0 = dsub(vh, static_cast<double>(q));  // exact
  const double f = dadd(f0, vl);                       // f + fl = f0 + vl exactly (fast two-sum)
  const double fl = dsub(vl, dsub(f, f0));
  const double ph = dmul(f, PIO2_HI);
  const double pl = dadd(dadd(dfma(f, PIO2_HI, -ph), dmul(f, PIO2_LO)), dmul(fl, PIO2_HI));
  const double xh = dadd(ph, pl);  // renormalise (fast two-sum, |ph| >= |pl|)
  const double xl = dsub(pl, dsub(xh, ph));
  const double sn = kernel_sin(xh, xl), cs = kernel_cos(xh, xl);
  switch (static_cast<int>(q & 3)) {
    case 0: s = sn; c = cs; break;
    case 1: s = cs; c = -sn; break;
    case 2: s = -sn; c = -cs; break;
    default: s = -cs; c = sn; break;
  }
}

// sin and cos of 2 pi u (u in turns; exact reduction for any double u with |u| < 2^49).
IMPACT_HDI void sincos_turns(double u, double& s, double& c) { sincos_quarter(dmul(4.0, u), 0.0, s, c); }

// sin and cos of x radians: x 2/pi as a double-double, then sincos_quarter. A few ulp for
// |x| < 2^20 (the 106-bit 2/pi limits the reduction of larger arguments).
IMPACT_HD inline void sincos(double x, double& s, double& c) {
  const double TWO_OVER_PI_HI = 0.6366197723675814, TWO_OVER_PI_LO = -3.935735335036497e-17;
  const double vh = dmul(x, TWO_OVER_PI_HI);
  const double vl = dadd(dfma(x, TWO_OVER_PI_HI, -vh), dmul(x, TWO_OVER_PI_LO));
  const double h = dadd(vh, vl);
  sincos_quarter(h, dsub(vl, dsub(h, vh)), s, c);
}

}  // namespace rmath

// ---- distributions ---------------------------------------------------------------------------------

enum class DistKind : std::uint8_t { fixed = 0, uniform, normal, lognormal, truncnormal, count_ };

// One scalar's distribution. fixed: a. uniform: [a, b). normal: mean a, sd b. lognormal:
// exp(N(a, b^2)). truncnormal: N(a, b^2) conditioned on [lo, hi] (lo, hi may be infinite).
struct Dist {
  double a, b, lo, hi;
  DistKind kind;
  static Dist fixed(double a) { return Dist{a, 0.0, 0.0, 0.0, DistKind::fixed}; }
  static Dist uniform(double a, double b) { return Dist{a, b, 0.0, 0.0, DistKind::uniform}; }
  static Dist normal(double mean, double sd) { return Dist{mean, sd, 0.0, 0.0, DistKind::normal}; }
  static Dist lognormal(double mu, double sigma) { return Dist{mu, sigma, 0.0, 0.0, DistKind::lognormal}; }
  static Dist truncnormal(double mean, double sd, double lo, double hi) {
    return Dist{mean, sd, lo, hi, DistKind::truncnormal};
  }
};

// Two uniforms in (0, 1) from Philox block `block` of (index, stream).
IMPACT_HDI void uniform_pair(const Philox& rng, std::uint64_t index, std::uint32_t stream, std::uint32_t block,
                             double& u1, double& u2) {
  const auto w = rng.words(index, stream, block);
  u1 = u01_double(w[0], w[1]);
  u2 = u01_double(w[2], w[3]);
}

// Two independent standard normals (Box-Muller) from Philox block `block` of (index, stream).
IMPACT_HDI void normal_pair(const Philox& rng, std::uint64_t index, std::uint32_t stream, std::uint32_t block,
                            double& z0, double& z1) {
  double u1, u2;
  uniform_pair(rng, index, stream, block, u1, u2);
  const double r = rmath::dsqrt(rmath::dmul(-2.0, rmath::log(u1)));
  double s, c;
  rmath::sincos_turns(u2, s, c);
  z0 = rmath::dmul(r, c);
  z1 = rmath::dmul(r, s);
}

// Bound on the rejection loop of the truncated normal (each proposal accepts with probability
// >= 0.45, so the fallback is taken with probability < 1e-33).
constexpr std::uint32_t kTruncNormalMaxTries = 128;

// Standard normal conditioned on [alpha, beta] (alpha < beta), Robert (1995): plain normal
// rejection for a wide interval around 0; a uniform proposal for a narrow interval; an
// exponential proposal with rate (alpha + sqrt(alpha^2 + 4))/2 for a one-sided tail. Fallback
// after kTruncNormalMaxTries proposals: the point of [alpha, beta] nearest 0.
IMPACT_HD inline double std_truncnormal(const Philox& rng, std::uint64_t index, std::uint32_t stream, double alpha,
                                        double beta) {
  using namespace rmath;  // dadd, dmul, ... (log, exp, sincos qualified)
  bool flip = false;
  if (beta <= 0.0 && alpha < 0.0) {  // left tail: sample on [-beta, -alpha] and negate
    const double t = alpha;
    alpha = -beta;
    beta = -t;
    flip = true;
  }
  double z = alpha > 0.0 ? alpha : (beta < 0.0 ? beta : 0.0);  // fallback
  if (alpha <= 0.0) {  // the interval contains 0
    const double width = dsub(beta, alpha);
    if (width >= 2.5066282746310002) {  // >= sqrt(2 pi): normal rejection
      for (std::uint32_t k = 0; k < kTruncNormalMaxTries; ++k) {
        double z0, z1;
        normal_pair(rng, index, stream, k, z0, z1);
        if (z0 >= alpha && z0 <= beta) { z = z0; break; }
        if (z1 >= alpha && z1 <= beta) { z = z1; break; }
      }
    } else {  // uniform proposal, accept with exp(-z^2/2)
      for (std::uint32_t k = 0; k < kTruncNormalMaxTries; ++k) {
        double u1, u2;
        uniform_pair(rng, index, stream, k, u1, u2);
        const double y = dadd(alpha, dmul(width, u1));
        if (u2 <= rmath::exp(dmul(-0.5, dmul(y, y)))) { z = y; break; }
      }
    }
  } else {  // 0 < alpha < beta
    const double sq = dsqrt(dadd(dmul(alpha, alpha), 4.0));
    // Robert's switch: the uniform proposal is better when beta is below this bound
    const double bound =
        dadd(alpha, dmul(ddiv(3.2974425414002564, dadd(alpha, sq)),  // 2 sqrt(e)
                         rmath::exp(dmul(0.25, dsub(dmul(alpha, alpha), dmul(alpha, sq))))));
    if (beta < bound) {  // uniform proposal, accept with exp((alpha^2 - z^2)/2)
      const double width = dsub(beta, alpha);
      for (std::uint32_t k = 0; k < kTruncNormalMaxTries; ++k) {
        double u1, u2;
        uniform_pair(rng, index, stream, k, u1, u2);
        const double y = dadd(alpha, dmul(width, u1));
        if (u2 <= rmath::exp(dmul(0.5, dsub(dmul(alpha, alpha), dmul(y, y))))) { z = y; break; }
      }
    } else {  // exponential proposal alpha + Exp(lambda), accept with exp(-(z - lambda)^2/2)
      const double lambda = dmul(0.5, dadd(alpha, sq));
      for (std::uint32_t k = 0; k < kTruncNormalMaxTries; ++k) {
        double u1, u2;
        uniform_pair(rng, index, stream, k, u1, u2);
        const double y = dsub(alpha, ddiv(rmath::log(u1), lambda));
        const double d = dsub(y, lambda);
        if (y <= beta && u2 <= rmath::exp(dmul(-0.5, dmul(d, d)))) { z = y; break; }
      }
    }
  }
  return flip ? -z : z;
}

// The largest double below b (for the half-open uniform).
IMPACT_HDI double prev_double(double b) {
  const std::uint64_t u = rmath::bits(b);
  if (b > 0.0) return rmath::from_bits(u - 1);
  if (b < 0.0) return rmath::from_bits(u + 1);
  return -rmath::from_bits(1);  // -min subnormal
}

// One draw of d for (index, stream); streams of different slots are independent, and a slot's
// draw does not depend on any other slot's distribution.
IMPACT_HD inline double sample(const Dist& d, const Philox& rng, std::uint64_t index, std::uint32_t stream) {
  using namespace rmath;  // dadd, dmul, ... (log, exp, sincos qualified)
  switch (d.kind) {
    case DistKind::fixed: return d.a;
    case DistKind::uniform: {
      double u1, u2;
      uniform_pair(rng, index, stream, 0, u1, u2);
      const double x = dadd(d.a, dmul(dsub(d.b, d.a), u1));
      return (x >= d.b && d.b > d.a) ? prev_double(d.b) : x;  // keep [a, b) through the rounding
    }
    case DistKind::normal: {
      double z0, z1;
      normal_pair(rng, index, stream, 0, z0, z1);
      return dadd(d.a, dmul(d.b, z0));
    }
    case DistKind::lognormal: {
      double z0, z1;
      normal_pair(rng, index, stream, 0, z0, z1);
      return rmath::exp(dadd(d.a, dmul(d.b, z0)));
    }
    case DistKind::truncnormal: {
      if (!(d.b > 0.0) || !(d.lo < d.hi)) {  // degenerate: the mean clamped into [lo, hi]
        const double m = d.a < d.lo ? d.lo : d.a;
        return m > d.hi ? d.hi : m;
      }
      const double alpha = ddiv(dsub(d.lo, d.a), d.b), beta = ddiv(dsub(d.hi, d.a), d.b);
      const double x = dadd(d.a, dmul(d.b, std_truncnormal(rng, index, stream, alpha, beta)));
      return x < d.lo ? d.lo : (x > d.hi ? d.hi : x);  // the affine map may round past a bound
    }
    default: return rmath::nan();
  }
}

// ---- study description ------------------------------------------------------------------------------

// Scenarios: how an instance is built from its slots. New scenarios (pencil, pendulums, two free
// bodies, ...) add an enum value, a slot layout below and a case in make_instance_double(); the
// host's key table (host/sample_spec.cpp) names their slots for the CLI.
enum class Scenario : std::uint8_t { contact = 0, ball = 1, count_ };

constexpr int kMaxSlots = 16;

// Slots shared by every scenario: the law parameters.
enum CommonSlot : int { kSlotMu = 0, kSlotE = 1, kSlotEt = 2, kSlotEta0 = 3, kFirstScenarioSlot = 4 };
// contact: W = R diag(w1, w2, w3) R^T, n = (0, 0, 1), v0 = (vt cos phi, vt sin phi, -vn).
enum ContactSlot : int { kSlotW1 = 4, kSlotW2 = 5, kSlotW3 = 6, kSlotVn = 7, kSlotVt = 8, kSlotPhi = 9 };
// ball (Jia 2013, Section 8.1): sphere of mass m, radius r on a fixed table, normal z; velocity of
// the centre V0 and angular velocity w0 (table frame).
enum BallSlot : int {
  kSlotMass = 4, kSlotRadius = 5, kSlotV0x = 6, kSlotV0y = 7, kSlotV0z = 8,
  kSlotW0x = 9, kSlotW0y = 10, kSlotW0z = 11
};

// Philox stream of the random rotation's quaternion (slots use streams 0 .. kMaxSlots-1).
constexpr std::uint32_t kRotationStream = 32;

enum SpecFlags : std::uint32_t { kRandomRotation = 1u };

// A study: a scenario and one Dist per slot (unused slots are ignored). Passed by value to
// kernels (about 650 bytes).
struct SampleSpec {
  Dist slot[kMaxSlots];
  std::uint32_t flags;
  Scenario scenario;
};

// Uniformly random rotation (Haar measure) from the unit quaternion of four standard normals,
// without normalising: R = I + s (...) with s = 2 / |q|^2.
IMPACT_HD inline void random_rotation(const Philox& rng, std::uint64_t index, double R[3][3]) {
  using namespace rmath;  // dadd, dmul, ... (log, exp, sincos qualified)
  double w, x, y, z;
  normal_pair(rng, index, kRotationStream, 0, w, x);
  normal_pair(rng, index, kRotationStream, 1, y, z);
  const double n2 = dadd(dadd(dmul(w, w), dmul(x, x)), dadd(dmul(y, y), dmul(z, z)));
  if (!(n2 > 1e-300)) {  // probability ~ 0: identity
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) R[i][j] = i == j ? 1.0 : 0.0;
    return;
  }
  const double s = ddiv(2.0, n2);
  const double xx = dmul(x, x), yy = dmul(y, y), zz = dmul(z, z);
  const double xy = dmul(x, y), xz = dmul(x, z), yz = dmul(y, z);
  const double wx = dmul(w, x), wy = dmul(w, y), wz = dmul(w, z);
  R[0][0] = dsub(1.0, dmul(s, dadd(yy, zz)));
  R[0][1] = dmul(s, dsub(xy, wz));
  R[0][2] = dmul(s, dadd(xz, wy));
  R[1][0] = dmul(s, dadd(xy, wz));
  R[1][1] = dsub(1.0, dmul(s, dadd(xx, zz)));
  R[1][2] = dmul(s, dsub(yz, wx));
  R[2][0] = dmul(s, dsub(xz, wy));
  R[2][1] = dmul(s, dadd(yz, wx));
  R[2][2] = dsub(1.0, dmul(s, dadd(xx, yy)));
}

// The instance `index` of the study, in double.
IMPACT_HD inline ContactProblem<double> make_instance_double(const SampleSpec& spec, std::uint64_t seed,
                                                             std::uint64_t index) {
  using namespace rmath;  // dadd, dmul, ... (log, exp, sincos qualified)
  const Philox rng{seed};
  auto draw = [&](int k) { return sample(spec.slot[k], rng, index, static_cast<std::uint32_t>(k)); };
  ContactProblem<double> p;
  p.mu = draw(kSlotMu);
  p.e = draw(kSlotE);
  p.e_t = draw(kSlotEt);
  p.eta0 = draw(kSlotEta0);
  p.n = Vec3<double>{0.0, 0.0, 1.0};
  switch (spec.scenario) {
    case Scenario::ball: {
      const double m = draw(kSlotMass), r = draw(kSlotRadius);
      const double I = dmul(dmul(dmul(0.4, m), r), r);  // solid sphere: 2/5 m r^2
      const double wt = dadd(ddiv(1.0, m), ddiv(dmul(r, r), I));
      p.W = Sym3<double>{wt, 0.0, 0.0, wt, 0.0, ddiv(1.0, m)};
      const double Vx = draw(kSlotV0x), Vy = draw(kSlotV0y), Vz = draw(kSlotV0z);
      const double wx = draw(kSlotW0x), wy = draw(kSlotW0y);
      // w0z (spin about the normal) moves no contact point: point contact has no spin friction
      // contact point velocity V0 + w0 x (0, 0, -r)
      p.v0 = Vec3<double>{dsub(Vx, dmul(r, wy)), dadd(Vy, dmul(r, wx)), Vz};
      break;
    }
    case Scenario::contact:
    default: {
      const double w[3] = {draw(kSlotW1), draw(kSlotW2), draw(kSlotW3)};
      if (spec.flags & kRandomRotation) {
        double R[3][3];
        random_rotation(rng, index, R);
        double A[3][3];
        for (int i = 0; i < 3; ++i)
          for (int j = i; j < 3; ++j)
            A[i][j] = dadd(dadd(dmul(dmul(R[i][0], w[0]), R[j][0]), dmul(dmul(R[i][1], w[1]), R[j][1])),
                           dmul(dmul(R[i][2], w[2]), R[j][2]));
        p.W = Sym3<double>{A[0][0], A[0][1], A[0][2], A[1][1], A[1][2], A[2][2]};
      } else {
        p.W = Sym3<double>{w[0], 0.0, 0.0, w[1], 0.0, w[2]};
      }
      const double vn = draw(kSlotVn), vt = draw(kSlotVt), phi = draw(kSlotPhi);
      double s, c;
      rmath::sincos(phi, s, c);
      p.v0 = Vec3<double>{dmul(vt, c), dmul(vt, s), -vn};
      break;
    }
  }
  return p;
}

// The instance `index` of the study in precision T (generated in double, then rounded).
template <class T>
IMPACT_HD ContactProblem<T> make_instance(const SampleSpec& spec, std::uint64_t seed, std::uint64_t index) {
  return problem_cast<T>(make_instance_double(spec, seed, index));
}

}  // namespace impact
