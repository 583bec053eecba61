// The one fixed-step explicit integrator of the impulse-space laws (jia, stronge): one step of
// dy/dx = f(y, t) of length h from y, classical RK4 or forward Euler (LawOptions::integrator).
//
// A state type Y is a POD of scalars that applies an operation field by field:
//   template <class Op, class... Ys> IMPACT_HDI static Y zip(Op op, const Ys&... ys);
// (e.g. JiaY, stronge's State). The stage function gets the stage's offset t in [0, h] (laws whose
// right-hand side does not depend on it ignore it). The arithmetic is fixed:
//   stage states y + (h/2) k1, y + (h/2) k2, y + h k3;  y + (h/6) ((k1 + 2 (k2 + k3)) + k4).
#pragma once
#include "impact/problem.hpp"

namespace impact {

// y + s k, field by field.
template <class Y, class T> IMPACT_HDI Y axpy(const Y& y, T s, const Y& k) {
  return Y::zip([s](T a, T b) { return a + s * b; }, y, k);
}

template <class Y, class T, class F>
IMPACT_HDI Y rk_step(const Y& y, T h, Integrator integ, const F& f) {
  const Y k1 = f(y, T(0));
  if (integ == Integrator::euler) return axpy(y, h, k1);
  const T hh = T(0.5) * h;
  const Y k2 = f(axpy(y, hh, k1), hh);
  const Y k3 = f(axpy(y, hh, k2), hh);
  // k1 + 2 (k2 + k3), formed before the last stage so that only it and y stay live through it
  // (registers on the GPU); the same operations in the same order as written out in one line
  const Y c = Y::zip([](T b1, T b2, T b3) { return b1 + T(2) * (b2 + b3); }, k1, k2, k3);
  const Y k4 = f(axpy(y, h, k3), h);
  const T h6 = h / T(6);
  return Y::zip([h6](T a, T c123, T b4) { return a + h6 * (c123 + b4); }, y, c, k4);
}

}  // namespace impact
