// ctest infer.fit_libm: the fit's optimisers call no libm transcendental. glibc picks exp, log,
// pow, sin, cos, sincos and tan per CPU (its FMA variants), so a call would make a fit's bits differ
// between an Intel and an AMD machine (infer/fit.hpp). This program defines them, so that NLopt's
// calls come here (an executable's definitions come first), counts the calls while every offered
// algorithm fits a 3-dimensional target, and fails when any was made. It checks itself: NLopt's
// NEWUOA, which is not offered, does call sincos.
#include <dlfcn.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include <nlopt.h>

#include "infer/fit.hpp"

namespace {
long g_calls = 0;
template <class F>
F next(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}
}  // namespace

extern "C" {
double exp(double x) { return ++g_calls, next<double (*)(double)>("exp")(x); }
double log(double x) { return ++g_calls, next<double (*)(double)>("log")(x); }
double pow(double x, double y) { return ++g_calls, next<double (*)(double, double)>("pow")(x, y); }
double sin(double x) { return ++g_calls, next<double (*)(double)>("sin")(x); }
double cos(double x) { return ++g_calls, next<double (*)(double)>("cos")(x); }
double tan(double x) { return ++g_calls, next<double (*)(double)>("tan")(x); }
void sincos(double x, double* s, double* c) { ++g_calls, next<void (*)(double, double*, double*)>("sincos")(x, s, c); }
}

namespace {
// a rotated, non-quadratic bowl with a region without a value
void target(const double* x, std::size_t n, double* out) {
  for (std::size_t i = 0; i < n; ++i) {
    const double* p = x + 3 * i;
    const double a = p[0] - 0.3 + 0.2 * p[1], b = p[1] - 0.1, c = p[2] - 0.7 * p[0];
    out[i] = p[2] < -0.8 ? -HUGE_VAL : -(a * a + 2 * b * b + 0.5 * c * c + a * a * a * a);
  }
}

double newuoa_objective(unsigned, const double* x, double*, void*) {
  double v;
  target(x, 1, &v);
  return -v;
}
}  // namespace

int main() {
  using namespace impact::infer;
  const std::vector<double> starts = {0.9, -0.5, 0.4, -0.7, 0.6, -0.2, 0.1, 0.9, 0.9}, lo = {-1, -1, -1}, hi = {1, 1, 1};
  int bad = 0;
  for (const std::string& alg : fit_algorithms()) {
    FitOptions o;
    o.algorithm = alg;
    g_calls = 0;
    const FitResult r = fit_map(target, 3, starts, lo, hi, {1, 1, 1}, o);
    std::printf("%-10s %4llu evaluations, log p %.9g, libm transcendental calls: %ld\n", alg.c_str(),
                static_cast<unsigned long long>(r.evaluations), r.logp, g_calls);
    bad += g_calls != 0;
  }
  // the check checks itself: NEWUOA's sincos is seen
  g_calls = 0;
  nlopt_opt opt = nlopt_create(NLOPT_LN_NEWUOA_BOUND, 3);
  nlopt_set_min_objective(opt, newuoa_objective, nullptr);
  nlopt_set_lower_bounds(opt, lo.data());
  nlopt_set_upper_bounds(opt, hi.data());
  nlopt_set_maxeval(opt, 300);
  std::vector<double> x = {0.9, -0.5, 0.4};
  double f = 0;
  nlopt_optimize(opt, x.data(), &f);
  nlopt_destroy(opt);
  std::printf("newuoa (not offered): libm transcendental calls: %ld\n", g_calls);
  if (g_calls == 0) {
    std::printf("FAIL: the interposition saw no call of NEWUOA's: this check cannot see NLopt's calls\n");
    return 1;
  }
  if (bad) std::printf("FAIL: %d offered algorithm(s) call libm transcendentals: their bits may differ per CPU\n", bad);
  return bad ? 1 : 0;
}
