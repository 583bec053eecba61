// The transcendental functions the laws call, for float and double, on host and device:
//   * on the device, CUDA's (libdevice: fast, and already a different rounding from the host's,
//     since nvcc contracts a*b+c into fma; device results agree with the host's to rounding);
//   * on the host, rmath (impact/rmath.hpp), the same bits on every machine: no glibc function
//     whose last bit depends on the CPU. float arguments are evaluated in double and rounded once.
// sqrt is IEEE-exact everywhere and stays the plain call; inv_sqrt (1 / sqrt) is CUDA's rsqrt on
// the device (a different rounding, as the rest) and 1 / sqrt on the host.
#pragma once
#include <cmath>
#include <type_traits>

#include "impact/config.hpp"
#include "impact/rmath.hpp"

namespace impact::math {

#if defined(__CUDA_ARCH__)
#define IMPACT_MATH_1(name) \
  template <class T>        \
  IMPACT_HDI T name(T x) {  \
    return std::name(x);    \
  }
#define IMPACT_MATH_2(name)     \
  template <class T>            \
  IMPACT_HDI T name(T y, T x) { \
    return std::name(y, x);     \
  }
#else
#define IMPACT_MATH_1(name)                                               \
  template <class T>                                                      \
  IMPACT_HDI T name(T x) {                                                \
    static_assert(std::is_floating_point_v<T>);                           \
    return static_cast<T>(::impact::rmath::name(static_cast<double>(x))); \
  }
#define IMPACT_MATH_2(name)                                                                       \
  template <class T>                                                                              \
  IMPACT_HDI T name(T y, T x) {                                                                   \
    static_assert(std::is_floating_point_v<T>);                                                   \
    return static_cast<T>(::impact::rmath::name(static_cast<double>(y), static_cast<double>(x))); \
  }
#endif

IMPACT_MATH_1(exp)
IMPACT_MATH_1(log)
IMPACT_MATH_1(tan)
IMPACT_MATH_1(atan)
IMPACT_MATH_1(acos)
IMPACT_MATH_1(cbrt)
IMPACT_MATH_1(sin)
IMPACT_MATH_1(cos)
IMPACT_MATH_2(atan2)
IMPACT_MATH_2(hypot)

#undef IMPACT_MATH_1
#undef IMPACT_MATH_2

// 1 / sqrt(x) for x > 0 (the inverse length of a vector from its squared length): on the device
// CUDA's rsqrt (MUFU.RSQ64H and its Newton steps, within 1 ulp in double, 2 in float): about 10
// issued instructions on sm_90 and one dependency chain, where sqrt and a correctly rounded
// division take about 30 and two chains, each with a branch to an out-of-line slow path. On the
// host 1 / sqrt(x), exactly as the laws divided before (the host's bits do not change).
template <class T>
IMPACT_HDI T inv_sqrt(T x) {
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<T, float>) return rsqrtf(x);
  else return ::rsqrt(x);
#else
  return T(1) / std::sqrt(x);
#endif
}

// Powers that only set the length of a step (a step-size rule; the integration is the same
// whichever length it takes, to its order): on the device in float from the special-function unit
// (about 1e-6 relative: a handful of instructions against 100-150 for double exp, log and cbrt); on
// the host the double forms the laws always used (the host's bits do not change). x^(1/6) =
// sqrt(cbrt(x)) and x^p = exp(p log(x)) for x > 0 (+inf gives +inf), and exp(a). The logarithm is
// __log2f (MUFU.LG2 with its subnormal scaling, at most 2^-22 absolute in [0.5, 2] and 2 ulp
// elsewhere), not log2f, whose polynomial adds about 24 instructions: stronge's tau step length and
// jia's sigma step length 24 SASS shorter each (sm_90); exp2f is MUFU.EX2 already.
template <class T>
IMPACT_HDI T step_sixth_root(T x) {
#if defined(__CUDA_ARCH__)
  return static_cast<T>(exp2f(__log2f(static_cast<float>(x)) * (1.0f / 6.0f)));
#else
  return std::sqrt(::impact::math::cbrt(x));
#endif
}
template <class T>
IMPACT_HDI T step_pow(T x, T p) {
#if defined(__CUDA_ARCH__)
  return static_cast<T>(exp2f(__log2f(static_cast<float>(x)) * static_cast<float>(p)));
#else
  return ::impact::math::exp(p * ::impact::math::log(x));
#endif
}
template <class T>
IMPACT_HDI T step_exp(T a) {
#if defined(__CUDA_ARCH__)
  return static_cast<T>(exp2f(static_cast<float>(a) * 1.44269504088896341f));
#else
  return ::impact::math::exp(a);
#endif
}

// sin and cos of one angle: one call on the device (CUDA's sincos shares the range reduction and
// needs fewer registers than two calls), rmath::sincos on the host.
template <class T>
IMPACT_HDI void sin_cos(T x, T& s, T& c) {
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<T, float>) sincosf(x, &s, &c);
  else ::sincos(x, &s, &c);
#else
  double sd, cd;
  ::impact::rmath::sincos(static_cast<double>(x), sd, cd);
  s = static_cast<T>(sd);
  c = static_cast<T>(cd);
#endif
}

}  // namespace impact::math
