// The one fixed-step explicit integrator of the impulse-space laws (jia, stronge): one step of
// dy/dx = f(y, t) of length h from y, classical RK4 or forward Euler (LawOptions::integrator), in
// two codings of the same arithmetic (rk_step, rk_step_one_site: which a law's kernel runs faster).
//
// A state type Y is a POD of scalars that applies an operation field by field:
//   template <class Op, class... Ys> IMPACT_HDI static Y zip(Op op, const Ys&... ys);
// (e.g. JiaY, stronge's State). The stage function gets the stage's offset t in [0, h] (laws whose
// right-hand side does not depend on it ignore it). The arithmetic is fixed:
//   stage states y + (h/2) k1, y + (h/2) k2, y + h k3;  y + (h/6) ((k1 + 2 (k2 + k3)) + k4)
// (on the device h/6 is h times 1/6: within an ulp).
#pragma once
#include "impact/config.hpp"
#include "impact/problem.hpp"

namespace impact {

// y + s k, field by field.
template <class Y, class T>
IMPACT_HDI Y axpy(const Y& y, T s, const Y& k) {
  return Y::zip([s](T a, T b) { return a + s * b; }, y, k);
}

// The last stage of an RK4 step and its combination, from the first three stages' slopes.
template <class Y, class T, class F>
IMPACT_HDI Y rk4_last_stage(const Y& y, T h, const Y& k1, const Y& k2, const Y& k3, const F& f) {
  // k1 + 2 (k2 + k3), formed before the last stage so that only it and y stay live through it
  // (registers on the GPU); the same operations in the same order as written out in one line
  const Y c = Y::zip([](T b1, T b2, T b3) { return b1 + T(2) * (b2 + b3); }, k1, k2, k3);
  const Y k4 = f(axpy(y, h, k3), h);
  // h / 6: on the device h times the constant 1/6, one product where the correctly rounded division
  // is a reciprocal with its Newton steps and a branch to a slow path (3.9% of stronge's issued
  // instructions on an H200); within an ulp of h / 6, the host's bits unchanged
#if defined(__CUDA_ARCH__)
  const T h6 = h * (T(1) / T(6));
#else
  const T h6 = h / T(6);
#endif
  return Y::zip([h6](T a, T c123, T b4) { return a + h6 * (c123 + b4); }, y, c, k4);
}

// The step with its first slope k1 = f(y, 0) given: for a law that has evaluated f at y already
// (stronge's slip tests share the first stage's |v_t|). The same operations, the same bits.
template <class Y, class T, class F>
IMPACT_HDI Y rk_step_from(const Y& y, const Y& k1, T h, Integrator integ, const F& f) {
  if (integ == Integrator::euler) return axpy(y, h, k1);
  const T hh = T(0.5) * h;
  const Y k2 = f(axpy(y, hh, k1), hh);
  const Y k3 = f(axpy(y, hh, k2), hh);
  return rk4_last_stage(y, h, k1, k2, k3, f);
}

template <class Y, class T, class F>
IMPACT_HDI Y rk_step(const Y& y, T h, Integrator integ, const F& f) {
  return rk_step_from(y, f(y, T(0)), h, integ, f);
}

// The same step, the same operations in the same order (the same bits), with stages 1 to 3 run
// through one call of f in a loop the device does not unroll and stage 4 through a second: two
// copies of the right-hand side in a GPU kernel instead of four. For a law whose kernel is bound by
// instruction fetch: on an H200 (same call) jia's sampled reduction ran 1.07x faster in
// double and 1.12x in float, its cycles per issued instruction 11.98 -> 9.98; stronge, bound by its
// dependency chains, lost 3 % (double) and 12 % (float) to the loop's longer-lived stage values
// (spills), and keeps rk_step. Stage 1 takes y itself (not y + 0 k1: the same bits even where k is
// not finite).
template <class Y, class T, class F>
IMPACT_HDI Y rk_step_one_site(const Y& y, T h, Integrator integ, const F& f) {
  const T hh = T(0.5) * h;
  Y k1{}, k2{}, k{};
  IMPACT_NO_UNROLL
  for (int s = 1; s <= 3; ++s) {
    const Y z = s == 1 ? y : axpy(y, hh, k);
    k = f(z, s == 1 ? T(0) : hh);
    if (s == 1) {
      if (integ == Integrator::euler) return axpy(y, h, k);
      k1 = k;
    } else if (s == 2) {
      k2 = k;
    }
  }
  return rk4_last_stage(y, h, k1, k2, k, f);
}

}  // namespace impact
