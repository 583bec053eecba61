// impact/rk4.hpp: rk_step and rk_step_one_site are one arithmetic in two codings (the second holds
// one copy of the right-hand side for stages 1-3 in a GPU kernel, for its code size). The same
// bits for RK4 and Euler, on a nonlinear right-hand side that reads the stage offset, and where a
// slope is not finite (stage 1 takes y itself, not y + 0 k); and the step is RK4: its error on
// y' = y falls as h^5 per step.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "impact/rk4.hpp"

using namespace impact;

namespace {

struct Y2 {
  double a, b;
  template <class Op, class... Ys>
  static Y2 zip(Op op, const Ys&... y) {
    return Y2{op(y.a...), op(y.b...)};
  }
};

bool same_bits(const Y2& x, const Y2& y) { return std::memcmp(&x, &y, sizeof x) == 0; }

}  // namespace

TEST(Rk4, BothCodingsGiveTheSameBits) {
  int calls_a = 0, calls_b = 0;
  const auto f = [](int& calls) {
    return [&calls](const Y2& z, double t) {
      ++calls;
      return Y2{std::sin(z.b) * (1.0 + t) - 0.3 * z.a * z.a, z.a / (1.0 + z.b * z.b) + t * t};
    };
  };
  for (Integrator integ : {Integrator::rk4, Integrator::euler})
    for (double h : {1e-3, 0.1, 0.7}) {
      const Y2 y{0.4, -1.3};
      const Y2 a = rk_step(y, h, integ, f(calls_a)), b = rk_step_one_site(y, h, integ, f(calls_b));
      EXPECT_TRUE(same_bits(a, b)) << "h " << h << ": " << a.a << " " << b.a << ", " << a.b << " " << b.b;
    }
  EXPECT_EQ(calls_a, calls_b);
  EXPECT_EQ(calls_a, 3 * (4 + 1));
  // a slope that is not finite at the start: y + 0 k would be NaN where y itself is not
  const auto g = [](const Y2& z, double) { return Y2{z.b > 0 ? HUGE_VAL : 1.0, 2.0}; };
  const Y2 a = rk_step(Y2{0.0, 1.0}, 0.0, Integrator::rk4, g), b = rk_step_one_site(Y2{0.0, 1.0}, 0.0, Integrator::rk4, g);
  EXPECT_TRUE(same_bits(a, b));
}

TEST(Rk4, OneSiteCodingIsFourthOrder) {
  const auto f = [](const Y2& z, double) { return Y2{z.a, -z.b}; };
  double err[2];
  for (int i = 0; i < 2; ++i) {
    const double h = i == 0 ? 0.1 : 0.05;
    const Y2 y = rk_step_one_site(Y2{1.0, 1.0}, h, Integrator::rk4, f);
    err[i] = std::fabs(y.a - std::exp(h)) + std::fabs(y.b - std::exp(-h));
  }
  EXPECT_NEAR(std::log2(err[0] / err[1]), 5.0, 0.15);  // local error h^5
}
