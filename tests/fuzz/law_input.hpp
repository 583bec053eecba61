// Raw bytes -> a contact problem, for the law harnesses (fuzz_law.cpp). The encoding (also written
// by make_seeds.py, which must stay in step with it):
//
//   byte 0     flags: bit 0: W from eigenvalues and rotation angles (else its 6 entries);
//              bit 1: Euler (else RK4)
//   bytes 1-2  steps of the integrators: 1 + (u16 little-endian % 300)
//   then 16 values, in input-column order (W_xx W_xy W_xz W_yy W_yz W_zz, n, v0, mu, e, e_t,
//   eta0; with bit 0 the six W values are l1 l2 l3 a1 a2 a3: W = R diag(l) R^T, R = Rz(a1) Ry(a2)
//   Rz(a3)), each a tag byte and its payload:
//     tag & 3 == 0: a raw IEEE double (8 bytes, little-endian)
//     tag & 3 == 1: one of kInteresting (1 byte: its index mod the count)
//     tag & 3 == 2: (1 + b / 256) 2^e, b 1 byte, e = u16 % 2099 - 1074 (every binade, subnormal to inf)
//     tag & 3 == 3: b / 16 (1 byte: 0, 1/16, ..., 15.94: ordinary parameters)
//     tag & 4: negated (kinds 1 to 3)
//   Past the end of the input every byte reads 0 (a raw 0.0).
// Eigenvalues from kinds 1-2 give cond(W) anywhere from 1 to beyond 1e300, so the SPD boundary
// (cholesky's tolerance) and cond(W) ~ 1e16 are reached without luck in 48 random bytes.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>

#include "fuzz_common.hpp"
#include "impact/columns.hpp"
#include "impact/problem.hpp"

namespace impact::fuzz {

constexpr double kInteresting[] = {
    0.0,
    -0.0,
    1.0,
    0.5,
    2.0,
    3.0,
    0.1,
    0.3,
    0.999999,
    1.0000001,
    1.0 - 1e-16,
    1.0 + 2.220446049250313e-16,
    1e-300,
    1e300,
    1e-200,
    1e200,
    1e-154,
    1e154,
    1e-162,
    1e-16,
    1e16,
    1e-8,
    1e8,
    1e-4,
    1e4,
    std::numeric_limits<double>::min(),
    std::numeric_limits<double>::min() / 4,
    std::numeric_limits<double>::denorm_min(),
    std::numeric_limits<double>::max(),
    std::numeric_limits<double>::epsilon(),
    std::numeric_limits<double>::infinity(),
    std::numeric_limits<double>::quiet_NaN(),
    1e-38,
    1e38,
    3.4e38,
    3.5e38,
    1e-45,
    1.17549435e-38,
    1.1920929e-07,  // float's boundaries
    2.220446049250313e-14,
    1.4210854715202004e-14,  // 64 eps: cholesky's tolerance
};
constexpr int kNumInteresting = sizeof kInteresting / sizeof kInteresting[0];

inline double decode_value(Bytes& in) {
  const std::uint8_t tag = in.u8();
  const double sign = (tag & 4) ? -1.0 : 1.0;
  switch (tag & 3) {
    case 0: return in.raw_double();
    case 1: return sign * kInteresting[in.u8() % kNumInteresting];
    case 2: {
      const double m = 1.0 + in.u8() / 256.0;
      const int e = static_cast<int>(in.u16() % 2099) - 1074;
      return sign * std::ldexp(m, e);
    }
    default: return sign * (in.u8() / 16.0);
  }
}

struct LawInput {
  ContactProblem<double> p;
  LawOptions opt;
};

inline Sym3<double> from_eigen(const double l[3], const double a[3]) {
  const double c1 = std::cos(a[0]), s1 = std::sin(a[0]), c2 = std::cos(a[1]), s2 = std::sin(a[1]);
  const double c3 = std::cos(a[2]), s3 = std::sin(a[2]);
  // R = Rz(a1) Ry(a2) Rz(a3)
  const double R[3][3] = {{c1 * c2 * c3 - s1 * s3, -c1 * c2 * s3 - s1 * c3, c1 * s2},
                          {s1 * c2 * c3 + c1 * s3, -s1 * c2 * s3 + c1 * c3, s1 * s2},
                          {-s2 * c3, s2 * s3, c2}};
  double W[3][3];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) W[i][j] = R[i][0] * l[0] * R[j][0] + R[i][1] * l[1] * R[j][1] + R[i][2] * l[2] * R[j][2];
  return Sym3<double>{W[0][0], W[0][1], W[0][2], W[1][1], W[1][2], W[2][2]};
}

inline LawInput decode_law_input(const std::uint8_t* data, std::size_t size) {
  Bytes in(data, size);
  const std::uint8_t flags = in.u8();
  LawInput li;
  li.opt.steps = 1 + in.u16() % 300;
  li.opt.integrator = (flags & 2) ? Integrator::euler : Integrator::rk4;
  double v[kNumInputs];
  for (double& x : v) x = decode_value(in);
  li.p = from_columns(v);
  if (flags & 1) li.p.W = from_eigen(v, v + 3);
  return li;
}

}  // namespace impact::fuzz
