// Exact scaling by powers of two, for a vector of any finite magnitude among them. A product
// with an exact power of two is exact in binary floating point while the result stays a normal
// number, so every operation that commutes with it (+, -, *, /, sqrt of an even power) gives the
// same bits on the scaled values, scaled; the bit patterns are read directly (std::memcpy on the
// host, the intrinsics on the device) because ilogb and ldexp are library calls on the host.
#pragma once
#include <cmath>
#include <cstring>

#include "impact/linalg.hpp"

namespace impact {

namespace scale_detail {
// Bit patterns of IEEE binary64 / binary32 (std::memcpy on the host, the intrinsics on the device):
// ilogb and ldexp are library calls on the host (~10 ns each, 40 of them per instance doubled the
// cost of the cheap laws); the exponent field and a product with an exact power of two are not.
IMPACT_HDI unsigned long long bits_of(double x) {
#ifdef __CUDA_ARCH__
  return static_cast<unsigned long long>(__double_as_longlong(x));
#else
  unsigned long long b;
  std::memcpy(&b, &x, sizeof b);
  return b;
#endif
}
IMPACT_HDI unsigned bits_of(float x) {
#ifdef __CUDA_ARCH__
  return static_cast<unsigned>(__float_as_int(x));
#else
  unsigned b;
  std::memcpy(&b, &x, sizeof b);
  return b;
#endif
}
IMPACT_HDI double double_of(unsigned long long b) {
#ifdef __CUDA_ARCH__
  return __longlong_as_double(static_cast<long long>(b));
#else
  double x;
  std::memcpy(&x, &b, sizeof x);
  return x;
#endif
}
IMPACT_HDI float float_of(unsigned b) {
#ifdef __CUDA_ARCH__
  return __int_as_float(static_cast<int>(b));
#else
  float x;
  std::memcpy(&x, &b, sizeof x);
  return x;
#endif
}
// The biased exponent field of a double as stored: 0 for zero and subnormals, 0x7ff for inf and NaN.
IMPACT_HDI int biased_exponent(double m) { return static_cast<int>((bits_of(m) >> 52) & 0x7ffu); }
// The unbiased exponent field, for a finite positive value (subnormals read as the smallest
// normal exponent: any power of two near the magnitude serves as a scale).
IMPACT_HDI int exponent_field(double m) { return biased_exponent(m) - 1023; }
IMPACT_HDI int exponent_field(float m) { return static_cast<int>((bits_of(m) >> 23) & 0xffu) - 127; }
// 2^k exactly, k clamped to the normal range of the type.
template <class T>
IMPACT_HDI T pow2(int k);
template <>
IMPACT_HDI double pow2<double>(int k) {
  k = k < -1022 ? -1022 : k > 1023 ? 1023 : k;
  return double_of(static_cast<unsigned long long>(k + 1023) << 52);
}
template <>
IMPACT_HDI float pow2<float>(int k) {
  k = k < -126 ? -126 : k > 127 ? 127 : k;
  return float_of(static_cast<unsigned>(k + 127) << 23);
}
template <class T>
inline constexpr int kMaxExp = 1023;
template <>
inline constexpr int kMaxExp<float> = 127;
}  // namespace scale_detail

// The exponent of a magnitude, 0 when it is zero or not finite (validate() reports those).
template <class T>
IMPACT_HDI int exponent_of(T m) {
  return m > T(0) && std::isfinite(m) ? scale_detail::exponent_field(m) : 0;
}

// x * 2^k, exact whenever the result is a normal number (two exact factors when 2^k itself is not
// representable: the intermediate lies between x and the result).
template <class T>
IMPACT_HDI T pow2_scale(T x, int k) {
  using scale_detail::kMaxExp;
  using scale_detail::pow2;
  if (k >= -(kMaxExp<T> - 1) && k <= kMaxExp<T>) return x * pow2<T>(k);
  const int a = k / 2;
  return (x * pow2<T>(a)) * pow2<T>(k - a);
}
template <class T>
IMPACT_HDI Vec3<T> pow2_scale(Vec3<T> a, int k) {
  return Vec3<T>{pow2_scale(a.x, k), pow2_scale(a.y, k), pow2_scale(a.z, k)};
}

// a scaled by the power of two nearest below its largest component (exact): its largest component
// in [1, 2), so that its square neither underflows nor overflows (a normal of length 1e-160 or
// 1e200 keeps its direction). A vector whose largest component already lies in [1, 2) is returned
// as it is; zero, as zero.
template <class T>
IMPACT_HDI Vec3<T> with_unit_exponent(Vec3<T> a) {
  return pow2_scale(a, -exponent_of(max_abs3(a)));
}

}  // namespace impact
