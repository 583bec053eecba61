// Every loop of the CPU reference ends (host/reference/stronge.cpp, morgan.cpp): a row the
// integration cannot advance ends with a status instead of running on. The reproducer
// (morgan_reference_hang.csv: W ~ 1e300, v0 = 1e-300, eta0 = 1e300) ran for minutes in the sigma
// chunks of the slip, which made no progress; a sweep of extreme scales must end, each row quickly.
// The instance's scales, on both paths (RefScale): a normal is read as its direction whatever its
// length, and an outcome beyond the range of a double is non_finite, not an ok row with inf or NaN.

#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <string>
#include <thread>
#include <utility>

#include "impact/admissible.hpp"
#include "impact/derived.hpp"
#include "impact/laws/all.hpp"
#include "impact/problem.hpp"
#include "impact/pow2.hpp"
#include "impact/scale.hpp"
#include "engine/registry.hpp"
#include "reference/reference.hpp"
#include "same_result.hpp"

namespace {

using impact::Result;
using impact::Status;
using Problem = impact::ContactProblem<double>;
using Clock = std::chrono::steady_clock;

// f() on a thread, given `seconds`; a run past them is a failure, and the process ends (a hung
// row cannot be stopped otherwise).
template <class F>
auto within(double seconds, F f, const std::string& what) {
  auto fut = std::async(std::launch::async, f);
  if (fut.wait_for(std::chrono::duration<double>(seconds)) != std::future_status::ready) {
    ADD_FAILURE() << what << ": still running after " << seconds << " s";
    std::fprintf(stderr, "%s: still running after %.0f s: the reference does not end\n", what.c_str(), seconds);
    std::fflush(stderr);
    std::_Exit(1);
  }
  return fut.get();
}

// The row of morgan_reference_hang.csv.
Problem hang_row() {
  Problem p{};
  p.W = impact::Sym3<double>{1.7974496299292392e+300, -1.2716273797884476e+298, 4.36872111315028e+298,
                             2.017190380967854e+300,  3.2701172491589404e+299,  2.3211745265112616e+300};
  p.n = impact::Vec3<double>{-0.0, -0.0, 1.0};
  p.v0 = impact::Vec3<double>{-0.0, -0.0, -1e-300};
  p.mu = 1.0;
  p.e = 1e-15;
  p.e_t = 0.0;
  p.eta0 = 1e300;
  return p;
}

// How a row of the sweep must end, "" when it does: an invalid instance with validate()'s status
// (the references check their input first, reading mu and e); a valid one ok with an admissible
// outcome (impact/admissible.hpp: finite, compressive, inside the cone, separating, no energy
// gained), or with a status that says the integration could not finish (step_limit, non_finite,
// stalled, inconsistent), or `inadmissible` where the impulse's scale max|v0| / max|W| is not a
// normal double (there P underflows and the bodies do not separate). An input status for a valid
// input, an inadmissible ok, or `inadmissible` where P is representable, is what went wrong.
// `planar_law` (morgan): a valid instance with friction that is not planar ends not_planar, judged
// in the instance's own units (plane_frame's squares of |W n| ~ 1e200 overflow in SI units, and
// its tangent came out 0, which read every such instance as planar).
std::string wrong_end(const Problem& p_in, const Result<double>& r, bool planar_law) {
  Problem p = p_in;
  const Status v = impact::validate(p, impact::ParamUse{true, true, false, false});
  const std::string got = impact::status_name(r.status);
  if (v != Status::ok) return r.status == v ? "" : std::string("an invalid input (") + impact::status_name(v) + ") ended " + got;
  Problem unit = p;
  impact::to_unit_scales(unit, impact::instance_scales(unit));
  if (planar_law && p.mu > 0 && !impact::plane_frame(unit).planar)
    return r.status == Status::not_planar ? "" : "a non-planar input ended " + got;
  switch (r.status) {
    case Status::ok: {
      if (!(std::isfinite(r.P.x) && std::isfinite(r.P.y) && std::isfinite(r.P.z))) return "ok with a non-finite impulse";
      const unsigned bad = impact::admissibility(p, r, false);
      return bad == 0 ? "" : "ok but not admissible (code " + std::to_string(bad) + ")";
    }
    case Status::step_limit:
    case Status::non_finite:
    case Status::stalled:
    case Status::inconsistent: return "";
    case Status::inadmissible: {
      const double w = std::max(
          {std::fabs(p.W.xx), std::fabs(p.W.xy), std::fabs(p.W.xz), std::fabs(p.W.yy), std::fabs(p.W.yz), std::fabs(p.W.zz)});
      const double v0_max = std::max({std::fabs(p.v0.x), std::fabs(p.v0.y), std::fabs(p.v0.z)});
      const double scale = v0_max / w;
      return scale >= DBL_MIN && scale <= DBL_MAX
                 ? "inadmissible with a representable impulse (scale " + std::to_string(scale) + ")"
                 : "";
    }
    default: return "a valid input ended " + got;
  }
}

}  // namespace

TEST(RefBounded, HangRowEndsWithAStatus) {
  const Problem p = hang_row();
  for (const char* law : {"stronge", "morgan"}) {
    const auto t0 = Clock::now();
    const Result<double> r = within(
        30.0, [&] { return std::string(law) == "stronge" ? impact::ref::stronge(p) : impact::ref::morgan(p); }, law);
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    // its rates overflow a double (|D| ~ 1e300 squared): no integration to do
    EXPECT_TRUE(r.status == Status::non_finite || r.status == Status::step_limit) << law << ": " << impact::status_name(r.status);
    EXPECT_LT(s, 1.0) << law;
  }
}

// W scaled by 10^a, v0 by 10^b (a, b from -300 to 300), three frictions and restitutions: every
// row ends as wrong_end() requires, within a second.
TEST(RefBounded, ExtremeScalesEnd) {
  const Problem base = hang_row();
  const impact::engine::LawInfo* stronge = impact::engine::find_law("stronge");
  const impact::engine::LawInfo* morgan = impact::engine::find_law("morgan");
  ASSERT_TRUE(stronge && morgan);
  int rows = 0, ok = 0;
  double worst = 0;
  within(
      300.0,
      [&] {
        for (int a = -300; a <= 300; a += 100)
          for (int b = -300; b <= 300; b += 100)
            for (double mu : {0.3, 1.0, 20.0})
              for (double e : {0.0, 1e-15, 0.7}) {
                Problem p = base;
                const double sw = std::pow(10.0, a) / 1e300, sv = std::pow(10.0, b) / 1e-300;
                p.W = impact::Sym3<double>{base.W.xx * sw, base.W.xy * sw, base.W.xz * sw,
                                           base.W.yy * sw, base.W.yz * sw, base.W.zz * sw};
                p.v0 = impact::Vec3<double>{0.3 * sv * 1e-300, -0.2 * sv * 1e-300, -sv * 1e-300};
                p.mu = mu;
                p.e = e;
                for (int law = 0; law < 2; ++law) {
                  const auto t0 = Clock::now();
                  // the references as every command runs them: admissibility checked (ref::evaluate)
                  const Result<double> r = impact::ref::evaluate(law == 0 ? *stronge : *morgan, p);
                  worst = std::max(worst, std::chrono::duration<double>(Clock::now() - t0).count());
                  EXPECT_EQ(wrong_end(p, r, law == 1), "") << (law ? "morgan" : "stronge") << " W 1e" << a << " v 1e" << b
                                                           << " mu " << mu << " e " << e << ": " << impact::status_name(r.status);
                  ++rows;
                  ok += r.status == Status::ok;
                }
              }
        return 0;
      },
      "extreme scales");
  std::printf("[ RefBounded ] %d rows, %d ok, slowest %.3f s\n", rows, ok, worst);
  EXPECT_LT(worst, 1.0);
}

namespace {

using impact::test::same_bits;

// The fast path's and the reference's outcome of law `Law` on p, and their summary quantities.
template <class Law>
void normal_length_case(const Problem& p) {
  const impact::engine::LawInfo& info = impact::engine::law_named(Law::name);
  const Result<double> fast = Law::eval(p), ref = impact::ref::evaluate(info, p);
  double x_unit[4];
  if (fast.status == Status::ok) impact::summary_quantities(p, fast, x_unit);
  // scaled by a power of two (exact): the unit normal's bits on both paths, and in the summary
  for (int k : {-1000, -530, 9, 300, 1000}) {
    Problem q = p;
    q.n = impact::pow2_scale(p.n, k);
    EXPECT_TRUE(same_bits(Law::eval(q), fast)) << Law::name << " n x 2^" << k;
    EXPECT_TRUE(same_bits(impact::ref::evaluate(info, q), ref)) << Law::name << " reference, n x 2^" << k;
    if (fast.status != Status::ok) continue;
    double x[4];
    impact::summary_quantities(q, fast, x);
    for (int j = 0; j < 3; ++j) EXPECT_EQ(x[j], x_unit[j]) << Law::name << " summary quantity " << j << ", n x 2^" << k;
  }
  // scaled by 1e-160 or 1e200 (the direction rounded once): the same statuses, results to 1e-12
  for (double s : {1e-160, 1e200}) {
    Problem q = p;
    q.n = impact::Vec3<double>{s * p.n.x, s * p.n.y, s * p.n.z};
    for (const bool on_ref : {false, true}) {
      const Result<double> r = on_ref ? impact::ref::evaluate(info, q) : Law::eval(q), &u = on_ref ? ref : fast;
      ASSERT_EQ(r.status, u.status) << Law::name << (on_ref ? " reference" : "") << ", n x " << s;
      if (r.status != Status::ok) continue;
      const double scale = impact::max_abs3(u.P);
      EXPECT_NEAR(r.P.x, u.P.x, 1e-12 * scale) << Law::name << (on_ref ? " reference" : "") << ", n x " << s;
      EXPECT_NEAR(r.P.y, u.P.y, 1e-12 * scale) << Law::name << (on_ref ? " reference" : "") << ", n x " << s;
      EXPECT_NEAR(r.P.z, u.P.z, 1e-12 * scale) << Law::name << (on_ref ? " reference" : "") << ", n x " << s;
    }
  }
}

// Law `Law` on p with W x 2^kw and v0 x 2^kv (kw even), on both paths: the outcome of p in the
// units' powers (P and In_c x 2^(kv - kw), vf x 2^kv, dE x 2^(2 kv - kw)), bit for bit, the status,
// steps and modes the same.
template <class Law>
void mass_and_speed_case(const Problem& p, int kw, int kv) {
  const impact::engine::LawInfo& info = impact::engine::law_named(Law::name);
  Problem q = p;
  const auto w = [&](double x) { return impact::pow2_scale(x, kw); };
  q.W = impact::Sym3<double>{w(p.W.xx), w(p.W.xy), w(p.W.xz), w(p.W.yy), w(p.W.yz), w(p.W.zz)};
  q.v0 = impact::pow2_scale(p.v0, kv);
  for (const bool on_ref : {false, true}) {
    const Result<double> base = on_ref ? impact::ref::evaluate(info, p) : Law::eval(p);
    // each base case is an outcome (morgan's of a non-planar instance: its status), so that no case
    // holds by comparing two refusals
    EXPECT_TRUE(base.status == Status::ok || (std::string(Law::name) == "morgan" && base.status == Status::not_planar))
        << Law::name << (on_ref ? " reference" : "") << ": " << impact::status_name(base.status);
    Result<double> r = on_ref ? impact::ref::evaluate(info, q) : Law::eval(q);
    r.P = impact::pow2_scale(r.P, kw - kv);
    r.In_c = impact::pow2_scale(r.In_c, kw - kv);
    r.vf = impact::pow2_scale(r.vf, -kv);
    r.dE = impact::pow2_scale(r.dE, kw - 2 * kv);
    EXPECT_TRUE(same_bits(r, base)) << Law::name << (on_ref ? " reference" : "") << ", W x 2^" << kw << ", v0 x 2^" << kv
                                    << ": status " << impact::status_name(r.status) << " against "
                                    << impact::status_name(base.status) << ", P.x " << r.P.x << " against " << base.P.x;
  }
}

}  // namespace

// The instance's mass and speed scales are units, on both paths: W x 2^kw and v0 x 2^kv give the
// outcome in those units, bit for bit, out to impulses of 2^+-400 and energies of 2^+-800. (In SI
// units the reference's cofactors of W and its integrators' absolute floors overflow from |W| ~
// 1e154 and underflow below 1e-154: a slip would read as a frictionless `stick`, or friction would
// drop out, in rows still `ok`.)
TEST(RefScale, TheMassAndSpeedScalesAreUnits) {
  for (const Problem& p : {Problem{{3.5, 0.3, -0.2, 3.1, 0.1, 1.2}, {0.3, -0.4, 1.2}, {-1.0, 0.5, -4.0}, 0.4, 0.5, 0.2, 1.2},
                           Problem{{1, 0, 0, 1, 0, 1}, {0, 0, 1}, {-3, 0, -5}, 0.4, 0.5, 0.3, 1.1},
                           Problem{{3.5, 0, 0, 3.5, 0, 1}, {0, 0, 3}, {-1, 0, -5}, 0.4, 0.5, 0.2, 1.1}}) {
    for (const auto& [kw, kv] : {std::pair{600, 300}, {-600, -300}, {0, 400}, {0, -400}, {-400, 0}, {400, 0}, {512, 0}}) {
#define IMPACT_CASE(LAW) mass_and_speed_case<impact::LAW>(p, kw, kv);
      IMPACT_FOR_EACH_LAW(IMPACT_CASE)
#undef IMPACT_CASE
    }
  }
}

// A contact normal of any finite length is read as its direction, on the fast path, on the
// reference and in the summary quantities: the length of n is not part of the instance. (A normal
// of length 1e-160 had its square underflow in the reference and in the summary, which then read
// another direction; one of 1e200 overflowed there.)
TEST(RefScale, TheNormalsLengthDoesNotMatter) {
  for (const Problem& p : {Problem{{3.5, 0.3, -0.2, 3.1, 0.1, 1.2}, {0.3, -0.4, 1.2}, {-1.0, 0.5, -4.0}, 0.4, 0.5, 0.2, 1.2},
                           Problem{{3.5, 0, 0, 3.5, 0, 1}, {0, 0, 3}, {-1, 0, -5}, 0.4, 0.5, 0.2, 1.1}}) {
#define IMPACT_CASE(LAW) normal_length_case<impact::LAW>(p);
    IMPACT_FOR_EACH_LAW(IMPACT_CASE)
#undef IMPACT_CASE
  }
}

// aghili's sigma = mu^2 i_n^2 - |i_t|^2 is an impulse squared: where it overflows (impulses of
// 1e200: W of 1e-200 at unit speeds) the row is non_finite on both paths, not ok with sigma = -inf or
// NaN; where it fits (impulses of 1e150), ok on both with the same sign.
TEST(RefScale, AghiliSigmaBeyondTheRangeIsNonFinite) {
  for (const double w : {1e-200, 1e-150}) {
    const Problem p{
        {3.5 * w, 0.3 * w, -0.2 * w, 3.1 * w, 0.1 * w, 1.2 * w}, {0.3, -0.4, 1.2}, {-1.0, 0.5, -4.0}, 0.4, 0.5, 0.2, 1};
    const Result<double> fast = impact::AghiliLaw::eval(p);
    const Result<double> ref = impact::ref::evaluate(impact::engine::law_named("aghili"), p);
    const Status want = w < 1e-160 ? Status::non_finite : Status::ok;
    EXPECT_EQ(fast.status, want) << "W x " << w << ", sigma " << fast.aux[0];
    EXPECT_EQ(ref.status, want) << "W x " << w << ", sigma " << ref.aux[0];
    if (want == Status::ok) {
      EXPECT_TRUE(std::isfinite(fast.aux[0]) && std::isfinite(ref.aux[0]));
      EXPECT_EQ(fast.aux[0] >= 0, ref.aux[0] >= 0);
    }
  }
  // impulses of 2e154, whose squares overflow while sigma = mu^2 i_n^2 - |i_t|^2 itself (4.5e306)
  // does not: ok on both paths, with the same sigma (the reference takes it from scaled terms)
  const Problem p{{1e-154, 0, 0, 1e-154, 0, 1e-154}, {0, 0, 1}, {0.99, 0, -2}, 0.5, 0.5, 0.5, 1};
  const Result<double> fast = impact::AghiliLaw::eval(p);
  const Result<double> ref = impact::ref::evaluate(impact::engine::law_named("aghili"), p);
  ASSERT_EQ(fast.status, Status::ok);
  ASSERT_EQ(ref.status, Status::ok);
  EXPECT_GT(fast.aux[0], 1e306);
  EXPECT_NEAR(ref.aux[0], fast.aux[0], 1e-12 * fast.aux[0]);
}
