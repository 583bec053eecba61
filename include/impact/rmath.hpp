// rmath: reproducible math. Every function here returns the same bits on every IEEE-754 machine
// for the same argument, whatever the CPU's vendor, its vector extensions or the C library: no
// x87 instruction, no libm call whose result depends on the processor (glibc's exp, log, sin, cos,
// tan, atan, atan2 and acos pick FMA or non-FMA code at run time; its long double functions, which
// Boost.Math's default promotion used, run x87 microcode such as FYL2X and F2XM1, whose last bits
// differ between Intel and AMD). Only IEEE + - * / sqrt fma in round-to-nearest, integer work and
// constants computed once by scripts/gen_rmath_tables.py. Host code compiles with -ffp-contract=off
// (CMakeLists.txt) so that no a*b+c becomes an fma behind the code's back.
//
// Where the results are used: every host-side sampler and quantile (host/design/distributions.cpp),
// the laws on the host (through impact/math.hpp), the reference solvers and the scenarios' geometry.
// On the device, the laws use CUDA's math (impact/math.hpp); the on-device sampler
// (impact/sampling.hpp) uses the IMPACT_HD functions below, bit-identical on both sides.
//
// Contracts (errors measured in tests/physics/test_rmath.cpp against long double, over the stated
// domains; the bits of a few dozen values are pinned there):
//
//   IMPACT_HD, host and device bit-identical:
//     dadd dsub dmul ddiv dfma dsqrt   IEEE round-to-nearest, never contracted
//     log(x)                           < 1 ulp; log(0) = -inf, log(x < 0) = NaN
//     exp(x)                           < 1 ulp; 0 below -745.13, inf above 709.78
//     sincos_turns(u, s, c)            sin/cos of 2 pi u, exact reduction for |u| < 2^49
//     sincos(x, s, c)                  sin/cos of x radians, < 1 ulp; |x| >= 2^20 reduced exactly
//                                      (Payne-Hanek) on the host, NaN on the device; NaN, inf: NaN
//   host only:
//     sin cos tan                      < 1 ulp (tan: < 2.5 ulp), any finite argument
//     atan(x), atan2(y, x)             < 1 ulp, < 1.6 ulp; C99 Annex F's signed zeros and infinities
//     acos(x)                          < 2 ulp; NaN outside [-1, 1]
//     cbrt(x)                          < 1 ulp, any double
//     hypot(x, y)                      < 1 ulp, no overflow or underflow in between
//     expm1(x)                         < 1 ulp for |x| < 1/2, < 2.5 ulp elsewhere
//     normal_pdf(z)                    standard normal density, < 2.5 ulp
//     normal_cdf(z), normal_sf(z)      P(Z <= z), P(Z > z), < 4.5 ulp where they are normal numbers
//                                      (each in its own tail: no 1 - p cancellation)
//     normal_quantile(p)               z with P(Z <= z) = p, p in (0, 1), < 4 ulp (mean < 0.5 ulp);
//                                      0: -inf, 1: inf, outside [0, 1]: NaN
//     normal_isf(q)                    z with P(Z > z) = q (= -normal_quantile(q))
#pragma once

#include "impact/impl/rmath_fdlibm.hpp"
#if !defined(__CUDA_ARCH__)
#include "impact/impl/rmath_host.hpp"
#include "impact/impl/rmath_normal.hpp"
#endif
