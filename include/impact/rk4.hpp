// The one fixed-step explicit integrator of the impulse-space laws (jia, stronge): one step of
// dy/dx = f(y, t) of length h from y, classical RK4 or forward Euler (LawOptions::integrator).
//
// A state type Y is a POD of scalars that applies an operation field by field:
//   template <class Op, class... Ys> IMPACT_HDI static Y zip(Op op, const Ys&... ys);
// (e.g. JiaY, stronge's State). The stage function gets the stage's offset t in [0, h] (laws whose
// right-hand side does not depend on it ignore it). The arithmetic is fixed:
//   stage states y + (h/2) k1, y + (h/2) k2, y + h k3;  y + (h/6) (k1 + 2 (k2 + k3) + k4).
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
  const Y k4 = f(axpy(y, h, k3), h);
  const T h6 = h / T(6);
  return Y::zip([h6](T a, T b1, T b2, T b3, T b4) { return a + h6 * (b1 + T(2) * (b2 + b3) + b4); }, y, k1, k2,
                k3, k4);
}

}  // namespace impact
