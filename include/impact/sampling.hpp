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
//   * log, exp and sin/cos are libm-free (CUDA's and glibc's differ in the last bits): rmath's
//     IMPACT_HD functions (impact/rmath.hpp), bit-identical on host and device.
// Everything is POD and IMPACT_HD; no Eigen, no libm.
#pragma once
#include <cstdint>
#include <cstring>

#if !defined(__CUDA_ARCH__)
#include <cmath>
#endif

#include "impact/problem.hpp"
#include "impact/rmath.hpp"
#include "impact/rng.hpp"

namespace impact {

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
  static Dist truncnormal(double mean, double sd, double lo, double hi) { return Dist{mean, sd, lo, hi, DistKind::truncnormal}; }
};

// Two uniforms in (0, 1) from Philox block `block` of (index, stream).
IMPACT_HDI void uniform_pair(const Philox& rng, std::uint64_t index, std::uint32_t stream, std::uint32_t block, double& u1,
                             double& u2) {
  const auto w = rng.words(index, stream, block);
  u1 = u01_double(w[0], w[1]);
  u2 = u01_double(w[2], w[3]);
}

// Two independent standard normals (Box-Muller) from Philox block `block` of (index, stream).
IMPACT_HDI void normal_pair(const Philox& rng, std::uint64_t index, std::uint32_t stream, std::uint32_t block, double& z0,
                            double& z1) {
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
IMPACT_HD inline double std_truncnormal(const Philox& rng, std::uint64_t index, std::uint32_t stream, double alpha, double beta) {
  using namespace rmath;  // dadd, dmul, ... (log, exp, sincos qualified)
  bool flip = false;
  if (beta <= 0.0 && alpha < 0.0) {  // left tail: sample on [-beta, -alpha] and negate
    const double t = alpha;
    alpha = -beta;
    beta = -t;
    flip = true;
  }
  double z = alpha > 0.0 ? alpha : (beta < 0.0 ? beta : 0.0);  // fallback
  if (alpha <= 0.0) {                                          // the interval contains 0
    const double width = dsub(beta, alpha);
    if (width >= 2.5066282746310002) {  // >= sqrt(2 pi): normal rejection
      for (std::uint32_t k = 0; k < kTruncNormalMaxTries; ++k) {
        double z0, z1;
        normal_pair(rng, index, stream, k, z0, z1);
        if (z0 >= alpha && z0 <= beta) {
          z = z0;
          break;
        }
        if (z1 >= alpha && z1 <= beta) {
          z = z1;
          break;
        }
      }
    } else {  // uniform proposal, accept with exp(-z^2/2)
      for (std::uint32_t k = 0; k < kTruncNormalMaxTries; ++k) {
        double u1, u2;
        uniform_pair(rng, index, stream, k, u1, u2);
        const double y = dadd(alpha, dmul(width, u1));
        if (u2 <= rmath::exp(dmul(-0.5, dmul(y, y)))) {
          z = y;
          break;
        }
      }
    }
  } else {  // 0 < alpha < beta
    const double sq = dsqrt(dadd(dmul(alpha, alpha), 4.0));
    // Robert's switch: the uniform proposal is better when beta is below this bound
    const double bound = dadd(alpha, dmul(ddiv(3.2974425414002564, dadd(alpha, sq)),  // 2 sqrt(e)
                                          rmath::exp(dmul(0.25, dsub(dmul(alpha, alpha), dmul(alpha, sq))))));
    if (beta < bound) {  // uniform proposal, accept with exp((alpha^2 - z^2)/2)
      const double width = dsub(beta, alpha);
      for (std::uint32_t k = 0; k < kTruncNormalMaxTries; ++k) {
        double u1, u2;
        uniform_pair(rng, index, stream, k, u1, u2);
        const double y = dadd(alpha, dmul(width, u1));
        if (u2 <= rmath::exp(dmul(0.5, dsub(dmul(alpha, alpha), dmul(y, y))))) {
          z = y;
          break;
        }
      }
    } else {  // exponential proposal alpha + Exp(lambda), accept with exp(-(z - lambda)^2/2)
      const double lambda = dmul(0.5, dadd(alpha, sq));
      for (std::uint32_t k = 0; k < kTruncNormalMaxTries; ++k) {
        double u1, u2;
        uniform_pair(rng, index, stream, k, u1, u2);
        const double y = dsub(alpha, ddiv(rmath::log(u1), lambda));
        const double d = dsub(y, lambda);
        if (y <= beta && u2 <= rmath::exp(dmul(-0.5, dmul(d, d)))) {
          z = y;
          break;
        }
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
// host's key table (host/systems/sample_spec.cpp) names their slots for the CLI.
enum class Scenario : std::uint8_t { contact = 0, ball = 1, count_ };

constexpr int kMaxSlots = 16;

// Slots shared by every scenario: the law parameters. A scenario's slots follow them, consecutive.
enum CommonSlot : int { kSlotMu = 0, kSlotE = 1, kSlotEt = 2, kSlotEta0 = 3, kFirstScenarioSlot = 4 };
// contact: W = R diag(w1, w2, w3) R^T, n = (0, 0, 1), v0 = (vt cos phi, vt sin phi, -vn), with R
// uniformly random (kRandomRotation) or the rotation by the vector (rx, ry, rz). The study's contact
// scenario (host/systems/scenarios.cpp) builds its instances with the same functions below, so an
// instance of the same values is the same bits in `impact reduce` and `impact study`.
enum ContactSlot : int { kSlotW1 = kFirstScenarioSlot, kSlotW2, kSlotW3, kSlotVn, kSlotVt, kSlotPhi, kSlotRx, kSlotRy, kSlotRz };
// ball (Jia 2013, Section 8.1): sphere of mass m, radius r on a fixed table, normal z; velocity of
// the centre V0 and angular velocity w0 (table frame).
enum BallSlot : int { kSlotMass = kFirstScenarioSlot, kSlotRadius, kSlotV0x, kSlotV0y, kSlotV0z, kSlotW0x, kSlotW0y, kSlotW0z };

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

// The rotation by the vector r (|r| rad about r / |r|; the identity for r = 0), by Rodrigues'
// formula R = c I + s [k]x + (1 - c) k k^T. |r| and k come from the plain sum of squares where its
// terms neither overflow nor underflow (1e-150 < |r| < 1e150), and otherwise from r scaled by its
// largest component, so that any finite r whose norm is finite gives its rotation (the squares of
// a component over 1.34e154 overflow); the plain formula keeps the bits every seed had.
IMPACT_HD inline void rotation_from_vector(double rx, double ry, double rz, double R[3][3]) {
  using namespace rmath;
  double angle = dsqrt(dadd(dadd(dmul(rx, rx), dmul(ry, ry)), dmul(rz, rz)));
  double k[3] = {rx, ry, rz};
  const double ax = rx < 0.0 ? -rx : rx, ay = ry < 0.0 ? -ry : ry, az = rz < 0.0 ? -rz : rz;
  const double big = ax > ay ? (ax > az ? ax : az) : (ay > az ? ay : az);
  if (!(angle > 1e-150 && angle < 1e150) && big > 0.0 && big <= 1.7976931348623157e308 && angle == angle) {
    for (double& x : k) x = ddiv(x, big);  // |k_i| <= 1, the largest exactly 1
    const double norm = dsqrt(dadd(dadd(dmul(k[0], k[0]), dmul(k[1], k[1])), dmul(k[2], k[2])));  // in [1, sqrt 3]
    for (double& x : k) x = ddiv(x, norm);
    angle = dmul(big, norm);  // inf only where |r| itself is beyond the doubles
  } else if (angle > 0.0) {
    for (double& x : k) x = ddiv(x, angle);  // the plain formula (an infinite component gives NaN there)
  }
  if (!(angle > 0.0)) {  // r = 0 (and, as always, a NaN component)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) R[i][j] = i == j ? 1.0 : 0.0;
    return;
  }
  double s, c;
  rmath::sincos(angle, s, c);
  const double omc = dsub(1.0, c);
  const double sk[3] = {dmul(s, k[0]), dmul(s, k[1]), dmul(s, k[2])};
  const double ck[3] = {dmul(omc, k[0]), dmul(omc, k[1]), dmul(omc, k[2])};
  R[0][1] = dsub(dmul(ck[0], k[1]), sk[2]);
  R[1][0] = dadd(dmul(ck[0], k[1]), sk[2]);
  R[0][2] = dadd(dmul(ck[0], k[2]), sk[1]);
  R[2][0] = dsub(dmul(ck[0], k[2]), sk[1]);
  R[1][2] = dsub(dmul(ck[1], k[2]), sk[0]);
  R[2][1] = dadd(dmul(ck[1], k[2]), sk[0]);
  for (int i = 0; i < 3; ++i) R[i][i] = dadd(dmul(ck[i], k[i]), c);
}

// W = R diag(w) R^T, symmetric by construction (its upper triangle is computed).
IMPACT_HD inline Sym3<double> rotated_diagonal(const double R[3][3], const double w[3]) {
  using namespace rmath;
  double A[3][3];
  for (int i = 0; i < 3; ++i)
    for (int j = i; j < 3; ++j)
      A[i][j] =
          dadd(dadd(dmul(dmul(R[i][0], w[0]), R[j][0]), dmul(dmul(R[i][1], w[1]), R[j][1])), dmul(dmul(R[i][2], w[2]), R[j][2]));
  return Sym3<double>{A[0][0], A[0][1], A[0][2], A[1][1], A[1][2], A[2][2]};
}

// The contact scenario's W = R diag(w) R^T with R the rotation by the vector r (the study's contact;
// `impact reduce` without a random rotation). For r = 0 (R = I) it is diag(w) exactly: w 1 1 + 0 + 0
// on the diagonal, +0 off it, for every finite w.
IMPACT_HD inline Sym3<double> contact_W(const double w[3], double rx, double ry, double rz) {
  double R[3][3];
  rotation_from_vector(rx, ry, rz, R);
  return rotated_diagonal(R, w);
}

// The contact scenario's approach velocity v0 = (vt cos phi, vt sin phi, -vn).
IMPACT_HD inline Vec3<double> contact_v0(double vn, double vt, double phi) {
  double s, c;
  rmath::sincos(phi, s, c);
  return Vec3<double>{rmath::dmul(vt, c), rmath::dmul(vt, s), -vn};
}

// The instance `index` of the study, in double.
IMPACT_HD inline ContactProblem<double> make_instance_double(const SampleSpec& spec, std::uint64_t seed, std::uint64_t index) {
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
      // one W = R diag(w) R^T for both rotations (contact_W's). The vector's path costs morgan
      // double's reduction kernel 8 bytes of spills (40 + 40 -> 44 + 44 at 96 registers), whether
      // inlined, out of line, or as its own W (tests/cli/kernel_resources.sh)
      double R[3][3];
      if (spec.flags & kRandomRotation) random_rotation(rng, index, R);
      else rotation_from_vector(draw(kSlotRx), draw(kSlotRy), draw(kSlotRz), R);
      p.W = rotated_diagonal(R, w);
      const double vn = draw(kSlotVn), vt = draw(kSlotVt), phi = draw(kSlotPhi);
      p.v0 = contact_v0(vn, vt, phi);
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
