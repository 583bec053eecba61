// impactbatch: compile-time configuration shared by host and device code.
#pragma once

#if defined(__CUDACC__)
#define IMPACT_HD __host__ __device__
#define IMPACT_INLINE __forceinline__
#else
#define IMPACT_HD
#define IMPACT_INLINE inline
#endif

#define IMPACT_HDI IMPACT_HD IMPACT_INLINE

namespace impact {

// Math helpers that resolve to the right overload on host and device for float and double.
template <class T> IMPACT_HDI T sq(T x) { return x * x; }
template <class T> IMPACT_HDI T tmin(T a, T b) { return a < b ? a : b; }
template <class T> IMPACT_HDI T tmax(T a, T b) { return a < b ? b : a; }
template <class T> IMPACT_HDI T tabs(T a) { return a < T(0) ? -a : a; }

}  // namespace impact
