// The adversarial campaign. Instances drawn over extreme but finite ranges (mu 0 and
// 1e-6..1e6, e in {0, 1} or uniform, e_t in [-1, 1], eta0 1e-6..1e6, cond(W) up to 1e16, magnitudes of
// W, n and v0 from 1e-300 to 1e300), evaluated by every law on the serial and OMP backends in double
// and float:
//   - zero ok rows that are inadmissible (impact/admissible.hpp recomputed here) or carry a NaN;
//   - every row written (no sentinel left), serial and OMP byte-identical;
//   - bounded work: the integrators' steps within their documented bound, every law's batch in
//     bounded time.
// Sizes: the campaign's, 10^6 rows per algebraic law and 10^5 per integrator and precision
// (about a minute on 2 cores); IMPACT_ADVERSARIAL_SCALE=K multiplies them. The table of statuses
// per law is printed.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "batch_buffers.hpp"
#include "engine/registry.hpp"
#include "impact/admissible.hpp"
#include "impact/laws/all.hpp"

using namespace impact;

namespace {

struct Gen {
  std::uint64_t s;
  double u() {  // splitmix64 -> [0, 1)
    std::uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return double((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
  }
  double range(double a, double b) { return a + (b - a) * u(); }
  double logu(double a, double b) { return std::exp(range(std::log(a), std::log(b))); }
  Vec3<double> dir() {
    for (;;) {
      const Vec3<double> v{range(-1, 1), range(-1, 1), range(-1, 1)};
      const double l = std::sqrt(dot(v, v));
      if (l > 0.1 && l <= 1) return (1.0 / l) * v;
    }
  }
};

// One adversarial instance. Magnitudes: W x 10^a, v0 x 10^b, n x 10^c with |a|, |b|, |c| <= 300 in
// double (<= 30 in float's range); a fifth of the rows ordinary (magnitudes near 1).
ContactProblem<double> adversarial(Gen& g, int max_exp) {
  ContactProblem<double> p{};
  const Vec3<double> a1 = g.dir();
  Vec3<double> a2 = g.dir();
  a2 = a2 - dot(a2, a1) * a1;
  a2 = (1.0 / std::sqrt(dot(a2, a2))) * a2;
  const Vec3<double> a3 = cross(a1, a2);
  const double cond = g.u() < 0.5 ? g.logu(1.0, 1e16) : g.logu(1.0, 10.0);
  const double l1 = 1.0, l2 = g.logu(1.0 / cond, 1.0), l3 = 1.0 / cond;
  auto outer = [](Vec3<double> x, double l, Sym3<double> W) {
    return Sym3<double>{W.xx + l * x.x * x.x, W.xy + l * x.x * x.y, W.xz + l * x.x * x.z,
                        W.yy + l * x.y * x.y, W.yz + l * x.y * x.z, W.zz + l * x.z * x.z};
  };
  Sym3<double> W{0, 0, 0, 0, 0, 0};
  W = outer(a1, l1, W);
  W = outer(a2, l2, W);
  W = outer(a3, l3, W);
  const bool extreme = g.u() < 0.8;
  const double sw = extreme ? std::pow(10.0, g.range(-max_exp, max_exp)) : 1.0;
  const double sv = extreme ? std::pow(10.0, g.range(-max_exp, max_exp)) : 1.0;
  const double sn = extreme ? std::pow(10.0, g.range(-max_exp, max_exp)) : 1.0;
  p.W = Sym3<double>{W.xx * sw, W.xy * sw, W.xz * sw, W.yy * sw, W.yz * sw, W.zz * sw};
  const Vec3<double> n = g.dir();
  p.n = sn * n;
  // approach: v0.n < 0, from grazing (1e-8 of |v0|) to head-on
  const Vec3<double> t = g.dir();
  const Vec3<double> tt = t - dot(t, n) * n;
  const double grazing = g.u() < 0.3 ? g.logu(1e-8, 1e-2) : g.range(0.05, 1.0);
  p.v0 = sv * ((-grazing) * n + std::sqrt(std::max(0.0, 1.0 - grazing * grazing)) * (1.0 / std::sqrt(dot(tt, tt) + 1e-300)) * tt);
  const double r = g.u();
  p.mu = r < 0.1 ? 0.0 : r < 0.2 ? g.logu(1e3, 1e6) : g.logu(1e-6, 1e2);
  const double re = g.u();
  p.e = re < 0.25 ? 0.0 : re < 0.5 ? 1.0 : g.u();
  p.e_t = g.range(-1, 1);
  p.eta0 = g.logu(1e-6, 1e6);
  return p;
}

int scale_factor() {
  const char* s = std::getenv("IMPACT_ADVERSARIAL_SCALE");
  const int k = s ? std::atoi(s) : 1;
  return k > 0 ? k : 1;
}

template <class T>
bool bytes_equal(const engine::OutputColumns<T>& a, const engine::OutputColumns<T>& b) {
  for (int k = 0; k < kNumRealOutputs; ++k)
    if (std::memcmp(a.real[k].data(), b.real[k].data(), a.real[k].size() * sizeof(T)) != 0) return false;
  return a.modes == b.modes && a.steps == b.steps && a.status == b.status;
}

template <class T>
void campaign(const engine::LawInfo& law, std::size_t n, std::uint64_t seed) {
  Gen g{seed};
  const int max_exp = std::is_same_v<T, double> ? 300 : 30;
  std::vector<ContactProblem<double>> ps;
  ps.reserve(n);
  for (std::size_t i = 0; i < n; ++i) ps.push_back(adversarial(g, max_exp));
  impact::testing::Buffers<T> serial(ps), omp(ps);
  LawOptions opt;  // 250 steps, rk4
  const auto t0 = std::chrono::steady_clock::now();
  engine::batch_fn<T>(law, engine::Backend::serial)(serial.bin, serial.bout, opt);
  const double ts = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  engine::batch_fn<T>(law, engine::Backend::omp)(omp.bin, omp.bout, opt);
  EXPECT_TRUE(bytes_equal(serial.out, omp.out)) << law.name << ": serial and OMP differ";

  std::size_t count[static_cast<int>(Status::count_) + 1] = {0};
  std::size_t bad_ok = 0, nan_ok = 0, unwritten = 0, over_steps = 0;
  const bool aghili = law.name == "aghili";
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint8_t st = serial.out.status[i];
    if (st >= static_cast<std::uint8_t>(Status::count_)) {
      ++unwritten;
      continue;
    }
    ++count[st];
    // the documented bounds of the integrators: (8 + min(64, 4/e)) N' + 64 steps with N' <= 16 N
    // (jia: more steps for stiff tangential springs), 64 N + 512 (stronge); the algebraic laws count
    // far fewer iterations
    const long bound = law.name == "jia" ? 72L * 16 * opt.steps + 64 : 80L * opt.steps + 640;
    if (serial.out.steps[i] > bound) ++over_steps;
    if (static_cast<Status>(st) != Status::ok) continue;
    const Result<T> r = load_result(serial.bout, i);
    bool finite = isfinite3(r.P) && isfinite3(r.vf) && std::isfinite(r.dE);
    for (int k = 0; k < kAux; ++k) finite = finite && !std::isnan(r.aux[k]);
    nan_ok += !finite;
    const ContactProblem<double>& d = ps[i];
    ContactProblem<T> p = problem_cast<T>(d);
    // the normal as the law received it: rounded to T and normalised in T (in its own units); in
    // float a cone with mu ~ 1e5 is judged on P_n ~ |P| / mu, at the rounding of n itself
    p.n = pow2_scale(p.n, -exponent_of(max_abs3(p.n)));
    p.n = (T(1) / norm(p.n)) * p.n;
    // aghili may gain energy outside its region (41): its own rule, read from its outputs
    bool may_gain = false;
    if (aghili) may_gain = !((p.mu >= r.aux[1] && p.e <= r.aux[3]) || (p.mu < std::min(r.aux[1], r.aux[2])));
    const unsigned f = admissibility(p, r, may_gain);
    if (f != kAdmissOk && bad_ok < 3)
      std::printf(
          "  inadmissible ok row %zu: flags %u, P %.17g %.17g %.17g, vf %.17g %.17g %.17g, dE %.17g, |W| %.3g |v0| %.3g |n| %.3g "
          "mu %.3g e %.3g\n",
          i, f, double(r.P.x), double(r.P.y), double(r.P.z), double(r.vf.x), double(r.vf.y), double(r.vf.z), double(r.dE),
          max_abs(d.W), max_abs3(d.v0), max_abs3(d.n), d.mu, d.e);
    bad_ok += f != kAdmissOk;
  }
  EXPECT_EQ(unwritten, 0u) << law.name;
  EXPECT_EQ(nan_ok, 0u) << law.name;
  EXPECT_EQ(bad_ok, 0u) << law.name;
  EXPECT_EQ(over_steps, 0u) << law.name;
  std::printf("[ adversarial ] %-16s %-6s %8zu rows %6.2f s serial:", law.name.c_str(),
              std::is_same_v<T, double> ? "double" : "float", n, ts);
  for (int k = 0; k < static_cast<int>(Status::count_); ++k)
    if (count[k]) std::printf(" %s %zu", status_name(static_cast<Status>(k)), count[k]);
  std::printf("\n");
}

}  // namespace

TEST(Adversarial, AlgebraicLaws) {
  const std::size_t n = 1000000 * static_cast<std::size_t>(scale_factor());
  for (const char* name : {"newton", "chatterjee-ruina", "aghili", "morgan"}) {
    campaign<double>(engine::law_named(name), n, 11);
    campaign<float>(engine::law_named(name), n, 12);
  }
}

TEST(Adversarial, Integrators) {
  const std::size_t n = 100000 * static_cast<std::size_t>(scale_factor());
  for (const char* name : {"stronge", "jia"}) {
    campaign<double>(engine::law_named(name), n, 21);
    campaign<float>(engine::law_named(name), n, 22);
  }
}
