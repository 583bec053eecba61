// impactbatch: compile-time configuration shared by host and device code.
#pragma once
#include <cmath>
#include <type_traits>

#if defined(__CUDACC__)
#define IMPACT_HD __host__ __device__
#define IMPACT_INLINE __forceinline__
#else
#define IMPACT_HD
#define IMPACT_INLINE inline
#endif

#define IMPACT_HDI IMPACT_HD IMPACT_INLINE
// A rare, heavy path kept out of line on the device (a call instead of a copy of its body at
// every site: a smaller kernel body for the instruction cache, and registers the callee allocates
// for itself); inline on the host, where results must not depend on it (they do not: calls do not
// change IEEE arithmetic).
#if defined(__CUDACC__)
#define IMPACT_HD_RARE __host__ __device__ __noinline__
#else
#define IMPACT_HD_RARE inline
#endif

// Before a loop whose body the device must hold once (a loop over the evaluation points of one call
// site: one copy of the body in the kernel, for the instruction cache); nothing on the host, where
// unrolling changes no result.
#if defined(__CUDACC__)
#define IMPACT_NO_UNROLL _Pragma("unroll 1")
#else
#define IMPACT_NO_UNROLL
#endif

namespace impact {

// Math helpers that resolve to the right overload on host and device for float and double.
template <class T>
IMPACT_HDI T sq(T x) {
  return x * x;
}
template <class T>
IMPACT_HDI T tmin(T a, T b) {
  return a < b ? a : b;
}
template <class T>
IMPACT_HDI T tmax(T a, T b) {
  return a < b ? b : a;
}
template <class T>
IMPACT_HDI T tabs(T a) {
  return a < T(0) ? -a : a;
}
}  // namespace impact
