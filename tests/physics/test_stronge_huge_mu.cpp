// StrongeLaw at friction coefficients up to the top of the type's range: mu >= 5e307 overflows
// R = |b| + mu |D| to inf in double (tau_cap = 0 would give two steps and an "ok" impulse 17% off
// the answer of mu <= 1e307). Friction beyond detail::Stronge::kMuUnbounded (2^64) is unbounded:
// the law evaluates 2^64, the mu -> inf limit to the type's precision, so mu = 1e20, 1e300 and
// DBL_MAX give the same answer, in double and in float (where mu = 1e38 overflows likewise).
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "impact/laws/stronge.hpp"
#include "impact/problem.hpp"
#include "random_instances.hpp"
#include "same_result.hpp"

namespace {

using impact::ContactProblem;
using impact::Integrator;
using impact::LawOptions;
using impact::Result;
using impact::Status;
using impact::StrongeLaw;

// The reproducer's row (edge.csv id 163) with friction mu.
template <class T>
ContactProblem<T> edge163(T mu) {
  ContactProblem<double> p{};
  p.W = {4.1567391141344645, -1.5041644865004518, -0.9885018629609597, 1.096342169422313, 0.2057286572519733, 3.967354466568394};
  p.n = {-0.3830182969496585, 0.2567466760187151, 0.8873432980279528};
  p.v0 = {1.4358567394634605, 1.4794798822996738, -0.8927611825548868};
  p.e = 0.9909251799832077;
  p.e_t = -0.9183953417814603;
  p.eta0 = 0.5293867806732417;
  ContactProblem<T> q = impact::problem_cast<T>(p);
  q.mu = mu;
  return q;
}

template <class T>
double norm3(const impact::Vec3<T>& a) {
  return std::sqrt(double(a.x) * a.x + double(a.y) * a.y + double(a.z) * a.z);
}
// max of |P_a - P_b| / |P_b| and |vf_a - vf_b| / |v0|
template <class T, class U>
double rel(const Result<T>& a, const Result<U>& b, double v0) {
  const impact::Vec3<double> dP{double(a.P.x) - b.P.x, double(a.P.y) - b.P.y, double(a.P.z) - b.P.z};
  const impact::Vec3<double> dv{double(a.vf.x) - b.vf.x, double(a.vf.y) - b.vf.y, double(a.vf.z) - b.vf.z};
  return std::max(norm3(dP) / norm3(b.P), norm3(dv) / v0);
}

using impact::test::same_bits;

LawOptions opts(int steps, Integrator integ = Integrator::rk4) {
  LawOptions o;
  o.steps = steps;
  o.integrator = integ;
  return o;
}

}  // namespace

// The reproducer: every mu from 1e16 to DBL_MAX gives the answer of mu = 1e300 (28 steps, to the
// last bits); 5e307 and beyond gave 2 steps and P_y 17% off.
TEST(StrongeHugeMu, ReproducerRowHasOneAnswerUpToDblMax) {
  const double v0 = norm3(edge163(1.0).v0);
  const Result<double> lim = StrongeLaw::eval(edge163(1e300));
  ASSERT_EQ(lim.status, Status::ok);
  for (double mu :
       {1e16, 1e20, 1e100, 1e300, 1e305, 1e306, 1e307, 5e307, 8e307, 9e307, 1e308, 1.2e308, 1.5e308, 1.7e308, DBL_MAX}) {
    const Result<double> r = StrongeLaw::eval(edge163(mu));
    EXPECT_EQ(r.status, Status::ok) << "mu " << mu;
    EXPECT_EQ(r.steps, lim.steps) << "mu " << mu;
    EXPECT_LE(rel(r, lim, v0), 1e-13) << "mu " << mu;
  }
}

// Beyond 2^64 the law evaluates 2^64: the same bits, whatever the integrator and the steps.
TEST(StrongeHugeMu, BeyondTwoTo64IsTheLimitBitForBit) {
  const double cap = impact::detail::Stronge::kMuUnbounded;
  EXPECT_EQ(cap, std::ldexp(1.0, 64));
  for (const LawOptions& o : {opts(250), opts(8), opts(1000), opts(250, Integrator::euler)}) {
    const Result<double> at = StrongeLaw::eval(edge163(cap), o);
    ASSERT_EQ(at.status, Status::ok);
    for (double mu : {2 * cap, 1e30, 1e300, 5e307, DBL_MAX}) EXPECT_TRUE(same_bits(StrongeLaw::eval(edge163(mu), o), at)) << mu;
    // and below it, the law is unchanged: the answer moves with mu towards the limit
    EXPECT_FALSE(same_bits(StrongeLaw::eval(edge163(1e3), o), at));
  }
}

// float: mu up to FLT_MAX (R overflowed float from mu ~ 1e37 on) gives the answer of mu = 1e10,
// and that is the double limit to float's accuracy.
TEST(StrongeHugeMu, FloatUpToFltMax) {
  const double v0 = norm3(edge163(1.0).v0);
  const Result<double> dlim = StrongeLaw::eval(edge163(1e300));
  const Result<float> lim = StrongeLaw::eval(edge163(1e10f));
  ASSERT_EQ(lim.status, Status::ok);
  EXPECT_LE(rel(lim, dlim, v0), 1e-4);
  for (float mu : {1e20f, 1e30f, 1e37f, 1e38f, 2e38f, 3e38f, 3.4e38f, FLT_MAX}) {
    const Result<float> r = StrongeLaw::eval(edge163(mu));
    EXPECT_EQ(r.status, Status::ok) << "mu " << mu;
    EXPECT_LE(rel(r, lim, v0), 1e-5) << "mu " << mu;
    EXPECT_LE(rel(r, dlim, v0), 1e-4) << "mu " << mu;
  }
}

// Random contacts, 3D and planar (stick, slip, reversal): at mu = 1e300, 1e307, 5e307 and DBL_MAX
// the status and the outcome of mu = 1e20.
TEST(StrongeHugeMu, RandomRowsAgreeWithTheLimit) {
  impact::randinst::Rng rng(20210);
  int ok = 0;
  for (int i = 0; i < 300; ++i) {
    ContactProblem<double> p =
        i % 3 == 2 ? impact::randinst::random_planar_problem(rng) : impact::randinst::random_contact_problem(rng);
    const double v0 = norm3(p.v0);
    p.mu = 1e20;
    const Result<double> lim = StrongeLaw::eval(p);
    ok += lim.status == Status::ok;
    for (double mu : {1e300, 1e307, 5e307, DBL_MAX}) {
      p.mu = mu;
      const Result<double> r = StrongeLaw::eval(p);
      EXPECT_EQ(r.status, lim.status) << "row " << i << " mu " << mu;
      if (r.status == Status::ok && lim.status == Status::ok) {
        EXPECT_LE(rel(r, lim, v0), 1e-12) << "row " << i << " mu " << mu;
      }
    }
  }
  EXPECT_GE(ok, 250);
}
