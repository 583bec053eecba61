// Exact, order-free sums of doubles for the summaries' moments (impact/stats.hpp SumMoments).
//
// A value x of a quantity whose grid exponent is e (SummaryRanges::grid: the scale 2^e of the
// data's range, max(|lo|, |hi|) < 2^e, range_exponent) becomes the integer
// q = round(|x| 2^(kFrac - e)), ties to even, with x's sign: an exact function of x's bits, the
// same on every machine and on the device. Sums of q and q^2 are kept in 64-bit words with
// carries, so they are exact, and integer addition is associative and commutative: any order of
// the rows (threads, chunks, processes, GPU lanes, a regime sort) gives the same bits. Mean and
// variance are computed once from the exact sums on the host (stats.hpp).
//
// Bounds. Summed are finite x with |x| < 2^(e + kWindow), so q < 2^84 and q^2 < 2^168:
//   - a GPU block's partial sums (Sums<2, 3>, its threads' added in place) hold up to 2^24 values:
//     |sum q| < 2^108 < 2^127 and sum q^2 < 2^192 (kernels/cuda/sampled.cu caps a launch at 2^24
//     instances, however they are dealt to threads);
//   - a summary's (Sums<3, 4>) any count below 2^64: |sum q| < 2^148, sum q^2 < 2^232.
// Resolution: 2^(e - kFrac), 2^-60 of the data's scale (an ulp of the range's largest value is
// 2^(e - 53)); the window is 2^24 (1.7e7) times the range scale. A value beyond it (a heavy tail
// the pilot's range did not see) goes to a second, coarser tier, the same sums on the grid of
// 2^(e + kWideShift) (window 2^72 times the scale, resolution 2^-36 of the value at least), and the
// host adds the tiers exactly (a wide q is 2^kWideShift near q's). Only a value beyond that, or not
// finite, is counted and not summed (SumMoments::far), and the moments say so rather than mix a
// rounded value in.
#pragma once
#include <cmath>
#include <cstdint>

#include "impact/config.hpp"
#include "impact/scale.hpp"

namespace impact::exact {

constexpr int kFrac = 60;
constexpr int kWindow = 24;
constexpr int kWideShift = 48;  // the wide tier's grid exponent over the near one
static_assert(kFrac + kWindow <= 84, "q < 2^84: q1 < 2^20 in Sums::add's square");
static_assert(2 * (kFrac + kWindow) + 24 <= 192, "a block's 2^24 squares fit Sums<2, 3>");

// The e with max(|lo|, |hi|) < 2^e (binary exponent + 1; 0 for a range of zeros or non-finite ends).
IMPACT_HDI int range_exponent(double lo, double hi) {
  const double a = lo < 0 ? -lo : lo, b = hi < 0 ? -hi : hi;
  const double m = a > b ? a : b;
  if (!(m > 0) || !(m < 1.0 / 0.0)) return 0;
  const int field = scale_detail::biased_exponent(m);
  return field ? field - 1022 : -1021;  // m < 2^(field - 1022); a subnormal m < 2^-1022
}

// The compiler's 128-bit unsigned integer on the host (GCC and Clang on 64-bit targets; __extension__
// keeps -Wpedantic quiet about it).
__extension__ using u128 = unsigned __int128;

IMPACT_HDI int leading_zeros(std::uint64_t v) {
#ifdef __CUDA_ARCH__
  return __clzll(static_cast<long long>(v));
#else
  return v ? __builtin_clzll(v) : 64;
#endif
}

// (lo, hi) = a b, the full 128-bit product.
IMPACT_HDI void mul_wide(std::uint64_t a, std::uint64_t b, std::uint64_t& lo, std::uint64_t& hi) {
#ifdef __CUDA_ARCH__
  lo = a * b;
  hi = __umul64hi(a, b);
#else
  const u128 p = static_cast<u128>(a) * b;
  lo = static_cast<std::uint64_t>(p);
  hi = static_cast<std::uint64_t>(p >> 64);
#endif
}

// The order of min and max: that of the numbers, with -0 before +0, so that the extremes do not
// depend on the order of the rows (the device keeps them as integer keys of the same order).
IMPACT_HDI bool before(double a, double b) {
  return a < b || (a == b && (scale_detail::bits_of(a) >> 63) > (scale_detail::bits_of(b) >> 63));
}
IMPACT_HDI std::uint64_t order_key(double x) {  // unsigned, monotone in before() for non-NaN x
  const std::uint64_t b = scale_detail::bits_of(x);
  return (b >> 63) ? ~b : b | (std::uint64_t(1) << 63);
}
IMPACT_HDI double from_order_key(std::uint64_t k) {
  return scale_detail::double_of((k >> 63) ? k & ~(std::uint64_t(1) << 63) : ~k);
}

// A value on the grid: |q| = q1 2^64 + q0 (q1 < 2^20), and its sign.
struct Fixed {
  std::uint64_t q0, q1;
  bool neg;
};

// x on the grid of scale 2^e; false for a non-finite x or |x| >= 2^(e + kWindow).
IMPACT_HDI bool quantize(double x, int e, Fixed& f) {
  const std::uint64_t b = scale_detail::bits_of(x);
  const int field = scale_detail::biased_exponent(x);
  f.neg = (b >> 63) != 0;
  f.q0 = f.q1 = 0;
  if (field == 0x7ff) return false;
  const std::uint64_t m = (b & ((std::uint64_t(1) << 52) - 1)) | (field ? std::uint64_t(1) << 52 : 0);
  if (m == 0) return true;
  const int ex = (field ? field : 1) - 1075;   // |x| = m 2^ex
  const int top = ex + 63 - leading_zeros(m);  // 2^top <= |x| < 2^(top + 1)
  if (top >= e + kWindow) return false;
  const int sh = ex + kFrac - e;  // q = m 2^sh
  if (sh >= 64) {
    f.q1 = m << (sh - 64);
  } else if (sh > 0) {
    f.q0 = m << sh;
    f.q1 = m >> (64 - sh);
  } else if (sh == 0) {
    f.q0 = m;
  } else if (sh > -64) {  // round m / 2^r to nearest, ties to even
    const int r = -sh;
    const std::uint64_t rem = m & ((std::uint64_t(1) << r) - 1), half = std::uint64_t(1) << (r - 1);
    f.q0 = m >> r;
    if (rem > half || (rem == half && (f.q0 & 1))) ++f.q0;
  }  // else m 2^sh < 2^-11: q = 0
  return true;
}

// s += a + carry over N words (two's complement or unsigned alike); a has A <= N words, the rest `fill`.
template <int N, int A>
IMPACT_HDI void add_words(std::uint64_t (&s)[N], const std::uint64_t (&a)[A], std::uint64_t fill = 0, std::uint64_t carry = 0) {
  for (int i = 0; i < N; ++i) {
    const std::uint64_t w = i < A ? a[i] : fill;
    const std::uint64_t t = s[i] + w;
    const std::uint64_t c1 = t < w;
    s[i] = t + carry;
    carry = c1 | (s[i] < carry);
  }
}

// Exact sums of q (N1 words, two's complement) and of q^2 (N2 words, unsigned).
template <int N1, int N2>
struct Sums {
  std::uint64_t s1[N1];
  std::uint64_t s2[N2];

  IMPACT_HDI static Sums zero() {
    Sums z;
    for (int i = 0; i < N1; ++i) z.s1[i] = 0;
    for (int i = 0; i < N2; ++i) z.s2[i] = 0;
    return z;
  }

  IMPACT_HDI void add(const Fixed& f) {
    // sum q: q, or its two's complement ~q + 1 sign-extended, without a branch (-0: ~0 + 1 = 0)
    const std::uint64_t m = f.neg ? ~std::uint64_t(0) : 0;
    const std::uint64_t w1[2] = {f.q0 ^ m, f.q1 ^ m};
    add_words<N1, 2>(s1, w1, m, m & 1);
    // sum q^2: q0^2 + 2 q0 q1 2^64 + q1^2 2^128 (< 2^168: three words)
    std::uint64_t p0, p1, c0, c1;
    mul_wide(f.q0, f.q0, p0, p1);
    mul_wide(f.q0, f.q1, c0, c1);
    const std::uint64_t d0 = c0 << 1, d1 = (c1 << 1) | (c0 >> 63);
    std::uint64_t w2[3];
    w2[0] = p0;
    w2[1] = p1 + d0;
    w2[2] = d1 + f.q1 * f.q1 + (w2[1] < d0);
    add_words<N2, 3>(s2, w2);
  }

  template <int M1, int M2>
  IMPACT_HDI void add(const Sums<M1, M2>& o) {  // M1 <= N1, M2 <= N2
    add_words<N1, M1>(s1, o.s1, (o.s1[M1 - 1] >> 63) ? ~std::uint64_t(0) : 0);
    add_words<N2, M2>(s2, o.s2);
  }
};

// value 2^bits added to s (bits a multiple of 32 below 64 N; v < 2^64).
template <int N>
IMPACT_HDI void add_shifted(std::uint64_t (&s)[N], std::uint64_t v, int bits) {
  std::uint64_t w[N];
  for (int i = 0; i < N; ++i) w[i] = 0;
  const int word = bits / 64, r = bits % 64;
  w[word] = v << r;
  if (r && word + 1 < N) w[word + 1] = v >> (64 - r);
  add_words<N, N>(s, w);
}

// Sums in a form that atomics add to without carries (a block's wide-tier values on the device, which
// are rare): the 32-bit digits of |q| into pos or neg, those of q^2 into sq, each a 64-bit counter
// (2^32 digits of < 2^32 each: more than a launch's 2^24 values). sums() gives the Sums, exactly.
struct DigitSums {
  std::uint64_t pos[3], neg[3], sq[6];
  IMPACT_HDI static DigitSums zero() {
    DigitSums d;
    for (int i = 0; i < 3; ++i) d.pos[i] = d.neg[i] = 0;
    for (std::uint64_t& s : d.sq) s = 0;
    return d;
  }
  IMPACT_HDI static void bump(std::uint64_t& c, std::uint64_t v) {
#ifdef __CUDA_ARCH__
    if (v) atomicAdd(reinterpret_cast<unsigned long long*>(&c), static_cast<unsigned long long>(v));
#else
    c += v;
#endif
  }
  IMPACT_HDI void add(const Fixed& f) {
    constexpr std::uint64_t kLow = 0xffffffffu;
    std::uint64_t* d = f.neg ? neg : pos;
    bump(d[0], f.q0 & kLow);
    bump(d[1], f.q0 >> 32);
    bump(d[2], f.q1);
    Sums<1, 3> one = Sums<1, 3>::zero();
    one.add(f);  // q^2 in three words
    for (int i = 0; i < 3; ++i) {
      // NOLINTNEXTLINE(bugprone-implicit-widening-of-multiplication-result): i < 3, so 2 i is at most 4
      bump(sq[2 * i], one.s2[i] & kLow);
      bump(sq[2 * i + 1], one.s2[i] >> 32);
    }
  }
  IMPACT_HDI Sums<3, 4> sums() const {
    Sums<3, 4> r = Sums<3, 4>::zero();
    std::uint64_t m[3] = {0, 0, 0};
    for (int i = 0; i < 3; ++i) {
      add_shifted(r.s1, pos[i], 32 * i);
      add_shifted(m, neg[i], 32 * i);
    }
    const std::uint64_t nm[3] = {~m[0], ~m[1], ~m[2]};  // r.s1 -= m: + ~m + 1
    add_words<3, 3>(r.s1, nm, ~std::uint64_t(0), 1);
    for (int i = 0; i < 6; ++i) add_shifted(r.s2, sq[i], 32 * i);
    return r;
  }
};

// ---- host: the exact sums as doubles (mean and variance, stats.hpp) ------------------------------

// An unsigned multiword value, correctly rounded to double: its top 128 bits with a sticky bit for
// the rest, converted by the compiler's correctly rounded 128-bit conversion, then scaled exactly.
template <int N>
inline double to_double(const std::uint64_t (&w)[N]) {
  int i = N - 1;
  while (i > 0 && w[i] == 0) --i;
  if (i == 0) return static_cast<double>(w[0]);
  u128 win = (static_cast<u128>(w[i]) << 64) | w[i - 1];
  for (int j = 0; j + 1 < i; ++j)
    if (w[j]) win |= 1;
  return std::ldexp(static_cast<double>(win), 64 * (i - 1));
}

// |w| of a two's complement multiword, and whether w < 0.
template <int N>
inline bool magnitude(const std::uint64_t (&w)[N], std::uint64_t (&m)[N]) {
  const bool neg = (w[N - 1] >> 63) != 0;
  std::uint64_t carry = neg;
  for (int i = 0; i < N; ++i) {
    const std::uint64_t v = neg ? ~w[i] : w[i];
    m[i] = v + carry;
    carry = m[i] < carry;
  }
  return neg;
}

// r = a b (unsigned, N + M words).
template <int N, int M>
inline void mul_words(const std::uint64_t (&a)[N], const std::uint64_t (&b)[M], std::uint64_t (&r)[N + M]) {
  for (int i = 0; i < N + M; ++i) r[i] = 0;
  for (int i = 0; i < N; ++i) {
    std::uint64_t carry = 0;
    for (int j = 0; j < M; ++j) {
      std::uint64_t lo, hi;
      mul_wide(a[i], b[j], lo, hi);
      lo += carry;
      hi += lo < carry;
      r[i + j] += lo;
      hi += r[i + j] < lo;
      carry = hi;
    }
    r[i + M] = carry;
  }
}

// The two tiers' sums as one integer each on the near grid, in 8 words (512 bits): sum q = near +
// wide 2^kWideShift (|.| < 2^197, two's complement) and sum q^2 = near + wide 2^(2 kWideShift)
// (< 2^329).
constexpr int kTotalWords = 8;
template <int N>
inline void extend(const std::uint64_t (&w)[N], bool sign, std::uint64_t (&r)[kTotalWords]) {
  const std::uint64_t fill = sign && (w[N - 1] >> 63) ? ~std::uint64_t(0) : 0;
  for (int i = 0; i < kTotalWords; ++i) r[i] = i < N ? w[i] : fill;
}
inline void shift_left(std::uint64_t (&r)[kTotalWords], int bits) {  // 0 < bits < 64 kTotalWords
  const int words = bits / 64, b = bits % 64;
  for (int i = kTotalWords - 1; i >= 0; --i) {
    const std::uint64_t lo = i - words >= 0 ? r[i - words] : 0, lo2 = i - words - 1 >= 0 ? r[i - words - 1] : 0;
    r[i] = b ? (lo << b) | (lo2 >> (64 - b)) : lo;
  }
}
template <int N1, int N2>
inline void totals(const Sums<N1, N2>& near, const Sums<N1, N2>& wide, std::uint64_t (&s1)[kTotalWords],
                   std::uint64_t (&s2)[kTotalWords]) {
  std::uint64_t w[kTotalWords];
  extend(near.s1, true, s1);
  extend(wide.s1, true, w);
  shift_left(w, kWideShift);
  add_words<kTotalWords, kTotalWords>(s1, w);
  extend(near.s2, false, s2);
  extend(wide.s2, false, w);
  shift_left(w, 2 * kWideShift);
  add_words<kTotalWords, kTotalWords>(s2, w);
}

// The mean of n summed values of scale 2^e: (sum q / n) 2^(e - kFrac), two roundings.
template <int N1, int N2>
inline double mean_of(const Sums<N1, N2>& near, const Sums<N1, N2>& wide, std::uint64_t n, int e) {
  std::uint64_t s1[kTotalWords], s2[kTotalWords], m[kTotalWords];
  totals(near, wide, s1, s2);
  const bool neg = magnitude(s1, m);
  const double v = std::ldexp(to_double(m) / static_cast<double>(n), e - kFrac);
  return neg ? -v : v;
}

// (n sum q^2 - (sum q)^2) / (n (n - 1)) on the near grid squared: the numerator is exact and never
// negative (Cauchy-Schwarz on integers), so identical values give exactly 0; then one rounding to
// double and two divisions.
template <int N1, int N2>
inline double variance_units(const Sums<N1, N2>& near, const Sums<N1, N2>& wide, std::uint64_t n) {
  std::uint64_t s1[kTotalWords], s2[kTotalWords], m[kTotalWords];
  totals(near, wide, s1, s2);
  magnitude(s1, m);
  std::uint64_t sq[2 * kTotalWords], ns2[kTotalWords + 1];
  const std::uint64_t nn[1] = {n};
  mul_words(m, m, sq);                                // < 2^394
  mul_words(s2, nn, ns2);                             // < 2^393
  std::uint64_t d[kTotalWords], not_sq[kTotalWords];  // ns2 - sq = ns2 + ~sq + 1, within 512 bits
  for (int i = 0; i < kTotalWords; ++i) d[i] = ns2[i], not_sq[i] = ~sq[i];
  add_words<kTotalWords, kTotalWords>(d, not_sq, 0, 1);
  const double nd = static_cast<double>(n);
  return to_double(d) / nd / (nd - 1);
}

// The sample variance, 2^(2 (e - kFrac)) variance_units.
template <int N1, int N2>
inline double variance_of(const Sums<N1, N2>& near, const Sums<N1, N2>& wide, std::uint64_t n, int e) {
  return std::ldexp(variance_units(near, wide, n), 2 * (e - kFrac));
}

// The sample standard deviation: the root taken before the scaling, so that it stays finite wherever
// the sd is (the variance of values beyond 2^512 is not).
template <int N1, int N2>
inline double sd_of(const Sums<N1, N2>& near, const Sums<N1, N2>& wide, std::uint64_t n, int e) {
  return std::ldexp(std::sqrt(variance_units(near, wide, n)), e - kFrac);
}

}  // namespace impact::exact
