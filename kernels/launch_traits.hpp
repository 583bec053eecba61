// What a GPU launch needs to know about a law beyond its physics: LaunchTraits<Law>.
//
//   regime_key(p)          (optional) the instance's expected code path as an integer: the CUDA
//                          backends evaluate instances in key order, so that the lanes of a warp
//                          take similar paths (a warp runs until its slowest lane is done). Only the
//                          order of evaluation depends on it, never a result.
//   reduce_blocks_double   blocks of kCudaReduceBlock threads per SM that ptxas must fit the sampled
//                          reduction of the law in double into (kernels/cuda/sampled.cu); float and
//                          the algebraic laws take kReduceBlocksDefault.
//
// A law without a specialisation runs in its plain order with the default block count. The figures
// behind each choice are in docs/perf-log.md; cli.kernel_resources checks the registers and spills.
#pragma once
#include <cstdint>
#include <type_traits>

#include "impact/laws/jia.hpp"
#include "impact/laws/stronge.hpp"
#include "impact/probe.hpp"

namespace impact {

// 5 blocks of 128 threads: 96 registers, 31% occupancy. The algebraic laws (no integration steps)
// fit without a spill or with a few, and the integrators in float fit with small spills; fewer
// blocks did not pay for them on an H200.
inline constexpr int kReduceBlocksDefault = 5;

template <class Law>
struct LaunchTraits {
  static constexpr int reduce_blocks_double = kReduceBlocksDefault;
};

template <>
struct LaunchTraits<JiaLaw> {
  // 3 blocks: 168 registers, 18.75% occupancy. At 4 (128 registers) the integrator's state spills
  // several times more to local memory, which costs more than the fourth block's latency hiding
  // gains; at 5 (96 registers) the spills dominate.
  static constexpr int reduce_blocks_double = 3;

  // Planar or 3D, then the slip ratio kappa = |v0_perp| / (mu eta0^2 |v0_n|) of Jia's Proposition 1
  // (kappa < 1: initial stick) in eighths of an octave. kappa orders the paths: how long a slip lasts
  // against the spring, whether it is stiff (|v_perp| h > |G| = 2 mu eta eta0 s) and whether its
  // ends need the sigma head and tail.
  template <class T>
  IMPACT_HDI static std::uint32_t regime_key(const ContactProblem<T>& p) {
    const PlaneFrame<T> f = plane_frame(p);
    return slip_ratio_key(f.planar, f.vt, p.mu * p.eta0 * p.eta0 * (-dot(p.v0, p.n)));
  }
};

template <>
struct LaunchTraits<StrongeLaw> {
  // 4 blocks: 128 registers, 25% occupancy; the law keeps its state in local memory by design
  // (detail::Stronge::eval_unit), so the register cap costs it little, and 3 or 5 blocks ran slower.
  static constexpr int reduce_blocks_double = 4;

  // What makes a lane's path long or short. A lane runs p-steps until |v_t| comes near 0 (then
  // tau-steps) or until the impact ends. So: planar or 3D; then whether the slip, decelerating at its
  // initial rate, stops before the impact would end (the lanes that go on into tau-steps together);
  // then its predicted count of steps over opt.steps, in 1/64 up to 8. Linearised at the start in the
  // frame of the law (t1 along v0_t): d|v_t|/dp = b1 - mu d11, dv_n/dp = a - mu b1, so the slip stops
  // at |v0_t| / (mu d11 - b1) and a straight slip ends at (1 + e) |v0_n| / (a - mu b1): that impulse
  // over p_c counts the p-steps. A 3D slip that stops adds its tau-steps (descent_steps).
  template <class T>
  IMPACT_HDI static std::uint32_t regime_key(const ContactProblem<T>& p) {
    const PlaneFrame<T> f = plane_frame(p);
    const auto sys = detail::stronge::System<T>::in_frame(p.W, p.n, f.t, f.s, p.mu);
    const T vn = -dot(p.v0, p.n);
    const T decel = p.mu * sys.d11 - sys.b1, gain = sys.a - p.mu * sys.b1;
    const T stop = decel > T(0) ? f.vt / decel : T(1) / T(0);
    const T end = gain > T(0) ? (T(1) + p.e) * vn / gain : T(1) / T(0);
    T x = tmin(stop, end) * sys.a / vn;
    if (!f.planar && stop < end) x += descent_steps(sys);
    return stop_fraction_key(f.planar, stop < end, x);
  }

  // The tau-steps of a 3D slip's descent to v_t = 0, over opt.steps, as the key weighs them: their
  // count follows R / |g*|, where g* = d|v_t|/dp on the ray the slip approaches, and the key weighs it
  // 1.5 (R / |g*|)^(1/2), the weight that sorted the SIMT model's warps best on random contact. The
  // approaching ray is the zero of k(theta) = u_perp.F(u) (u at angle theta from t1) that the slip
  // direction turns to from theta = 0 (it turns with the sign of k): found by marching in 64ths of a
  // turn with a fixed rotation and interpolating linearly between the two samples around the sign
  // change (a key needs no more). 0 if the direction reaches no such ray or the slip does not decay
  // on it.
  template <class T>
  IMPACT_HDI static T descent_steps(const detail::stronge::System<T>& s) {
    const T cd = T(0.99518472667219688624), sd = T(0.098017140329560601994);  // cos, sin of 2 pi / 64
    T c = T(1), n = T(0), g, k;
    s.slip_rates(c, n, g, k);
    const T dir = k > T(0) ? T(1) : T(-1);
    bool on_ray = k == T(0);
    for (int i = 0; i < 64 && !on_ray; ++i) {
      const T c1 = c * cd - dir * n * sd, n1 = n * cd + dir * c * sd;
      T g1, k1;
      s.slip_rates(c1, n1, g1, k1);
      on_ray = (k1 > T(0)) != (k > T(0));
      if (on_ray) {  // between the two samples, linearly, back onto the unit circle
        const T w = k / (k - k1), uc = c + w * (c1 - c), un = n + w * (n1 - n), r = sqrt(uc * uc + un * un);
        c = uc / r;
        n = un / r;
        s.slip_rates(c, n, g, k);
      } else {
        c = c1;
        n = n1;
        k = k1;
      }
    }
    if (!on_ray || !(g < T(0))) return T(0);
    return T(1.5) * sqrt((s.b_norm() + s.mu * s.d_norm()) / -g);
  }
};

// Whether a law has a regime key (LaunchTraits<Law>::regime_key).
template <class Law, class = void>
struct HasRegimeKey : std::false_type {};
template <class Law>
struct HasRegimeKey<Law, std::void_t<decltype(&LaunchTraits<Law>::template regime_key<double>)>> : std::true_type {};

}  // namespace impact
