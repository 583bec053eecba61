// Reproducible standard normal distribution (host only): density, CDF, upper tail and quantile in
// plain double arithmetic over rmath's exp and log, with fitted polynomials from
// scripts/gen_rmath_tables.py. The same bits on every IEEE machine (impl/rmath_host.hpp says why).
// The contracts are in impact/rmath.hpp; include that.
//
// Pieces:
//   * phi(z) = exp(-z^2/2) / sqrt(2 pi), with z^2/2 split exactly into h + l (fma), so that the
//     rounding of z^2 (relative 2^-53, i.e. 2^-53 z^2 / 2 absolute in the exponent: 32 ulp at
//     z = 8) does not reach the result: exp(-h) (1 - l).
//   * Q(z) = P(Z > z): 1/2 - z g(z^2) for |z| < 0.625 (g fitted on [0, 0.75^2]), else
//     phi(|z|) M(|z|) (or 1 minus it) with Mills' ratio M fitted on [0.625, 8] and Laplace's
//     continued fraction (20 terms, relative error < 3e-21) beyond.
//   * The quantile: Abramowitz & Stegun 26.2.23 (|error| < 4.5e-4) or the inverse-erf series as
//     the start, then two Halley steps (cubic: 4.5e-4 -> 1e-10 -> below rounding) on a residual
//     without cancellation: in the tails s = M(z) - q / phi(z) (= (Q(z) - q) / phi(z)), in the
//     centre (z g(z^2) - d) / phi(z).
#pragma once
#include <cmath>

#include "impact/impl/rmath_host.hpp"
#include "impact/impl/rmath_tables.hpp"

namespace impact::rmath {

inline double normal_pdf(double z) {
  if (std::isnan(z)) return z;
  if (!(std::fabs(z) < 40.0)) return 0.0;
  const double zz = z * z;
  const double h = 0.5 * zz, l = 0.5 * std::fma(z, z, -zz);  // z^2/2 = h + l exactly
  // exp(-h - l) / sqrt(2 pi) = exp(-h) (1 - l) / sqrt(2 pi) (|l| <= 2^-53 h, so l^2 is far below),
  // with (1 - l) / sqrt(2 pi) formed in one rounding
  const double m = tables::kInvSqrt2PiHi + (tables::kInvSqrt2PiLo - tables::kInvSqrt2PiHi * l);
  return exp(-h) * m;
}

namespace detail {

// Mills' ratio M(x) = Q(x) / phi(x) for x >= 0.6 (the first piece, fitted from 0.625, serves
// down to there: the quantile's iterates start at 0.674 - 4.5e-4).
inline double mills_ratio(double x) {
  if (x < 8.0) {
    int i = 0;
    while (i + 1 < tables::kMillsPieces && x >= tables::kMills[i].hi) ++i;
    const tables::MillsPiece& P = tables::kMills[i];
    const double h = x - P.c;
    double r = P.a[P.terms - 1];
    for (int k = P.terms - 2; k >= 0; --k) r = r * h + P.a[k];
    return r;
  }
  double r = 0.0;  // Laplace: M(x) = 1 / (x + 1 / (x + 2 / (x + 3 / (x + ...))))
  for (int k = 20; k >= 1; --k) r = k / (x + r);
  return 1.0 / (x + r);
}

// (Phi(z) - 1/2) / z as a polynomial in w = z^2 (|z| <= 0.75).
inline double normal_centre(double w) {
  double r = tables::kNormalCentre[tables::kNormalCentreTerms - 1];
  for (int k = tables::kNormalCentreTerms - 2; k >= 0; --k) r = r * w + tables::kNormalCentre[k];
  return r;
}

// z >= 0.6 with Q(z) = q, 0 < q <= 0.25.
inline double upper_tail_quantile(double q) {
  const double t = std::sqrt(-2.0 * log(q));
  double z = t - (2.515517 + t * (0.802853 + t * 0.010328)) / (1.0 + t * (1.432788 + t * (0.189269 + t * 0.001308)));
  for (int it = 0; it < 2; ++it) {
    double ratio;  // q / phi(z)
    if (q >= 0x1p-1000) {
      ratio = q / normal_pdf(z);
    } else {  // phi(z) is near or below the subnormal range: q e^{z^2/2} sqrt(2 pi) in logs
      const double h = 0.5 * (z * z), l = 0.5 * std::fma(z, z, -(z * z));
      ratio = exp(log(q) + h + l) * tables::kSqrt2Pi;
    }
    const double s = mills_ratio(z) - ratio;  // (Q(z) - q) / phi(z)
    z += s / (1.0 - 0.5 * s * z);
  }
  return z;
}

// z with Phi(z) - 1/2 = d, |d| <= 1/4 (|z| <= 0.675).
inline double centre_quantile(double d) {
  const double d2 = d * d;
  // sqrt(2 pi) (d + pi/3 d^3 + 7 pi^2/30 d^5): the inverse-erf series, within 2e-3 on |d| <= 1/4
  double z = tables::kSqrt2Pi * d * (1.0 + d2 * (1.0471975511965976 + d2 * 2.3029076935875166));
  for (int it = 0; it < 2; ++it) {
    const double s = (z * normal_centre(z * z) - d) / normal_pdf(z);
    z -= s / (1.0 + 0.5 * s * z);
  }
  return z;
}

}  // namespace detail

inline double normal_sf(double z) {
  if (std::isnan(z)) return z;
  const double az = std::fabs(z);
  if (az < 0.625) return 0.5 - z * detail::normal_centre(z * z);
  const double tail = az < 40.0 ? normal_pdf(az) * detail::mills_ratio(az) : 0.0;  // Q(|z|)
  return z > 0.0 ? tail : 1.0 - tail;
}

inline double normal_cdf(double z) { return normal_sf(-z); }

inline double normal_quantile(double p) {
  if (!(p > 0.0 && p < 1.0)) {
    if (p == 0.0) return -HUGE_VAL;
    if (p == 1.0) return HUGE_VAL;
    return std::nan("");
  }
  if (p >= 0.25 && p <= 0.75) return detail::centre_quantile(p - 0.5);  // p - 1/2 exact (Sterbenz)
  if (p < 0.25) return -detail::upper_tail_quantile(p);
  return detail::upper_tail_quantile(1.0 - p);  // exact for p >= 1/2
}

inline double normal_isf(double q) { return -normal_quantile(q); }

}  // namespace impact::rmath
