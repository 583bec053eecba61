// Parameter distributions (design/design.hpp: ParamSpec): their checks, quantiles, CDFs, densities,
// moments and descriptions. Inverse CDFs and CDFs come from rmath (impact/rmath.hpp: the same bits on
// every machine).
#include "design/design.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "impact/rmath.hpp"

namespace impact::design {

namespace {

// Shortest text that reads back to the same double.
std::string num(double x) {
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  for (int prec = 6; prec <= 17; ++prec) {
    std::ostringstream s;
    s.precision(prec);
    s << x;
    if (std::strtod(s.str().c_str(), nullptr) == x || prec == 17) return s.str();
  }
  return {};
}

[[noreturn]] void fail(const std::string& key, const std::string& what) { throw std::invalid_argument(key + ": " + what); }

// Standard normal pieces that accept infinite arguments.
double Phi(double z) {
  if (std::isinf(z)) return z > 0 ? 1.0 : 0.0;
  return rmath::normal_cdf(z);
}
double Q(double z) {  // 1 - Phi(z), accurate in the upper tail
  if (std::isinf(z)) return z > 0 ? 0.0 : 1.0;
  return rmath::normal_sf(z);
}
double phi(double z) { return std::isinf(z) ? 0.0 : rmath::normal_pdf(z); }
double zphi(double z) { return std::isinf(z) ? 0.0 : z * rmath::normal_pdf(z); }

// Standardised truncation interval [alpha, beta] of a truncnormal spec.
struct Trunc {
  double alpha, beta;
  bool upper;   // both bounds in the upper tail: work with complements Q
  double mass;  // P(alpha <= Z <= beta)
};
Trunc trunc_of(const ParamSpec& p) {
  Trunc t;
  t.alpha = (p.lo - p.a) / p.b;
  t.beta = (p.hi - p.a) / p.b;
  t.upper = t.alpha > 0;
  t.mass = t.upper ? Q(t.alpha) - Q(t.beta) : Phi(t.beta) - Phi(t.alpha);
  return t;
}

bool all_finite(std::initializer_list<double> v) {
  for (double x : v)
    if (!std::isfinite(x)) return false;
  return true;
}

}  // namespace

// ---- ParamSpec -------------------------------------------------------------------------------------

const char* param_kind_name(ParamKind k) {
  switch (k) {
    case ParamKind::fixed: return "fixed";
    case ParamKind::uniform: return "uniform";
    case ParamKind::normal: return "normal";
    case ParamKind::lognormal: return "lognormal";
    case ParamKind::truncnormal: return "truncnormal";
    case ParamKind::linspace: return "linspace";
  }
  return "?";
}

void ParamSpec::validate(const std::string& key) const {
  switch (kind) {
    case ParamKind::fixed:
      if (!std::isfinite(a)) fail(key, "fixed value must be finite (got " + num(a) + ")");
      return;
    case ParamKind::uniform:
      if (!all_finite({a, b})) fail(key, "uniform bounds must be finite (got " + describe() + ")");
      if (b < a) fail(key, "uniform(a, b) needs a <= b (got " + describe() + ")");
      return;
    case ParamKind::normal:
    case ParamKind::lognormal:
      if (!all_finite({a, b}))
        fail(key, std::string(param_kind_name(kind)) + " parameters must be finite (got " + describe() + ")");
      if (!(b > 0)) fail(key, std::string(param_kind_name(kind)) + " needs sd > 0 (got " + describe() + ")");
      return;
    case ParamKind::truncnormal: {
      if (!all_finite({a, b})) fail(key, "truncnormal mean and sd must be finite (got " + describe() + ")");
      if (!(b > 0)) fail(key, "truncnormal needs sd > 0 (got " + describe() + ")");
      if (std::isnan(lo) || std::isnan(hi)) fail(key, "truncnormal bounds must not be NaN (got " + describe() + ")");
      if (!(lo < hi)) fail(key, "truncnormal needs lo < hi (got " + describe() + ")");
      const Trunc t = trunc_of(*this);
      if (!(t.mass >= 1e-12))
        fail(key, "truncnormal interval [lo, hi] has probability " + num(t.mass) + " < 1e-12 under the untruncated normal (got " +
                      describe() + ")");
      return;
    }
    case ParamKind::linspace:
      if (!all_finite({a, b})) fail(key, "linspace end points must be finite (got " + describe() + ")");
      if (count == 0) fail(key, "linspace needs count >= 1 (got " + describe() + ")");
      return;
  }
  fail(key, "unknown parameter kind");
}

double ParamSpec::quantile(double u) const {
  switch (kind) {
    case ParamKind::fixed: return a;
    case ParamKind::uniform: return u >= 1 ? b : a + (b - a) * u;
    case ParamKind::normal:
      if (u <= 0) return -std::numeric_limits<double>::infinity();
      if (u >= 1) return std::numeric_limits<double>::infinity();
      return a + b * rmath::normal_quantile(u);
    case ParamKind::lognormal:
      if (u <= 0) return 0.0;
      if (u >= 1) return std::numeric_limits<double>::infinity();
      return rmath::exp(a + b * rmath::normal_quantile(u));
    case ParamKind::truncnormal: {
      const Trunc t = trunc_of(*this);
      double z;
      if (t.upper) {
        // Q(z) = Q(alpha) - u (Q(alpha) - Q(beta)): both in the upper tail, no cancellation.
        const double q = Q(t.alpha) - u * t.mass;
        z = q <= 0 ? t.beta : (q >= 1 ? t.alpha : rmath::normal_isf(q));
      } else {
        const double p = Phi(t.alpha) + u * t.mass;
        z = p <= 0 ? t.alpha : (p >= 1 ? t.beta : rmath::normal_quantile(p));
      }
      z = std::min(std::max(z, t.alpha), t.beta);
      const double x = a + b * z;
      return std::min(std::max(x, lo), hi);
    }
    case ParamKind::linspace: break;
  }
  throw std::invalid_argument("params." + name + ": a linspace parameter has no quantile (it is a grid)");
}

double ParamSpec::log_pdf(double x) const {
  constexpr double kLogSqrt2Pi = 0.91893853320467274178;  // log sqrt(2 pi)
  const double minus_inf = -std::numeric_limits<double>::infinity();
  if (std::isnan(x)) return x;
  switch (kind) {
    case ParamKind::fixed: break;
    case ParamKind::uniform:
      if (x < a || x > b || !(b > a)) return minus_inf;
      return -rmath::log(b - a);
    case ParamKind::normal: {
      if (std::isinf(x)) return minus_inf;
      const double z = (x - a) / b;
      return -0.5 * z * z - rmath::log(b) - kLogSqrt2Pi;
    }
    case ParamKind::lognormal: {
      if (!(x > 0) || std::isinf(x)) return minus_inf;
      const double lx = rmath::log(x), z = (lx - a) / b;
      return -0.5 * z * z - rmath::log(b) - lx - kLogSqrt2Pi;
    }
    case ParamKind::truncnormal: {
      if (x < lo || x > hi || std::isinf(x)) return minus_inf;
      const double z = (x - a) / b;
      return -0.5 * z * z - rmath::log(b) - kLogSqrt2Pi - rmath::log(trunc_of(*this).mass);
    }
    case ParamKind::linspace: break;
  }
  throw std::invalid_argument("params." + name + ": a " + param_kind_name(kind) + " parameter has no density");
}

double ParamSpec::cdf(double x) const {
  if (std::isnan(x)) return x;
  switch (kind) {
    case ParamKind::fixed: return x < a ? 0.0 : 1.0;
    case ParamKind::uniform:
      if (x < a) return 0.0;
      if (x >= b) return 1.0;
      return (x - a) / (b - a);
    case ParamKind::normal: return Phi((x - a) / b);
    case ParamKind::lognormal:
      if (!(x > 0)) return 0.0;
      if (std::isinf(x)) return 1.0;
      return Phi((rmath::log(x) - a) / b);
    case ParamKind::truncnormal: {
      if (x <= lo) return 0.0;
      if (x >= hi) return 1.0;
      const Trunc t = trunc_of(*this);
      const double z = (x - a) / b;
      const double c = t.upper ? (Q(t.alpha) - Q(z)) / t.mass : (Phi(z) - Phi(t.alpha)) / t.mass;
      return std::min(std::max(c, 0.0), 1.0);
    }
    case ParamKind::linspace: break;
  }
  throw std::invalid_argument("params." + name + ": a linspace parameter has no CDF (it is a grid)");
}

double ParamSpec::mean() const {
  switch (kind) {
    case ParamKind::fixed: return a;
    case ParamKind::uniform: return 0.5 * (a + b);
    case ParamKind::normal: return a;
    case ParamKind::lognormal: return rmath::exp(a + 0.5 * b * b);
    case ParamKind::truncnormal: {
      const Trunc t = trunc_of(*this);
      return a + b * (phi(t.alpha) - phi(t.beta)) / t.mass;
    }
    case ParamKind::linspace: return count <= 1 ? a : 0.5 * (a + b);
  }
  return std::numeric_limits<double>::quiet_NaN();
}

double ParamSpec::variance() const {
  switch (kind) {
    case ParamKind::fixed: return 0.0;
    case ParamKind::uniform: return (b - a) * (b - a) / 12.0;
    case ParamKind::normal: return b * b;
    case ParamKind::lognormal: return rmath::expm1(b * b) * rmath::exp(2 * a + b * b);
    case ParamKind::truncnormal: {
      const Trunc t = trunc_of(*this);
      const double m = (phi(t.alpha) - phi(t.beta)) / t.mass;
      const double v = 1.0 + (zphi(t.alpha) - zphi(t.beta)) / t.mass - m * m;
      return b * b * std::max(v, 0.0);
    }
    case ParamKind::linspace: {
      if (count <= 1) return 0.0;
      const double n = static_cast<double>(count);
      return (b - a) * (b - a) * (n + 1) / (12.0 * (n - 1));  // population variance of the points
    }
  }
  return std::numeric_limits<double>::quiet_NaN();
}

std::string ParamSpec::describe() const {
  std::string k = param_kind_name(kind);
  switch (kind) {
    case ParamKind::fixed: return k + "(" + num(a) + ")";
    case ParamKind::uniform:
    case ParamKind::normal:
    case ParamKind::lognormal: return k + "(" + num(a) + ", " + num(b) + ")";
    case ParamKind::truncnormal: return k + "(" + num(a) + ", " + num(b) + ", " + num(lo) + ", " + num(hi) + ")";
    case ParamKind::linspace: return k + "(" + num(a) + ", " + num(b) + ", " + std::to_string(count) + ")";
  }
  return k;
}

bool operator==(const ParamSpec& a, const ParamSpec& b) {
  const auto same = [](double x, double y) { return x == y || (std::isnan(x) && std::isnan(y)); };
  return a.name == b.name && a.kind == b.kind && same(a.a, b.a) && same(a.b, b.b) &&
         (a.kind != ParamKind::truncnormal || (same(a.lo, b.lo) && same(a.hi, b.hi))) &&
         (a.kind != ParamKind::linspace || a.count == b.count);
}

}  // namespace impact::design
