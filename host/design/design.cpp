// Parameter specifications and experimental designs (design/design.hpp).
//
// Inverse CDFs and CDFs come from rmath (impact/rmath.hpp: the same bits on every machine), Sobol points from boost::random::sobol (Joe-Kuo
// direction numbers), counter-based uniforms from the project's Philox wrapper (impact/rng.hpp).
#include "design/design.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

#include <boost/random/sobol.hpp>
#include <sys/resource.h>

#include "impact/rmath.hpp"
#include "impact/rng.hpp"
#include "io/checksum.hpp"
#include "io/csv.hpp"
#include "io/machine.hpp"
#include "io/number.hpp"

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

using io::gib;  // "1.5 GiB", for messages on memory

[[noreturn]] void fail(const std::string& key, const std::string& what) {
  throw std::invalid_argument(key + ": " + what);
}

// Clamps u into the open interval the quantiles accept: the Sobol origin (u = 0) becomes 2^-64,
// the resolution of the 64-bit Sobol lattice, and a rounded-up 1 becomes 1 - 2^-53.
double open01(double u) {
  constexpr double lo = 0x1p-64, hi = 1.0 - 0x1p-53;
  return u < lo ? lo : (u > hi ? hi : u);
}

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
  bool upper;  // both bounds in the upper tail: work with complements Q
  double mass; // P(alpha <= Z <= beta)
};
Trunc trunc_of(const ParamSpec& p) {
  Trunc t;
  t.alpha = (p.lo - p.a) / p.b;
  t.beta = (p.hi - p.a) / p.b;
  t.upper = t.alpha > 0;
  t.mass = t.upper ? Q(t.alpha) - Q(t.beta) : Phi(t.beta) - Phi(t.alpha);
  return t;
}

double linspace_point(const ParamSpec& p, std::size_t i) {
  if (i == 0) return p.a;
  if (i + 1 == p.count) return p.b;
  return p.a + (p.b - p.a) * (static_cast<double>(i) / static_cast<double>(p.count - 1));
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
      if (!all_finite({a, b})) fail(key, std::string(param_kind_name(kind)) + " parameters must be finite (got " + describe() + ")");
      if (!(b > 0)) fail(key, std::string(param_kind_name(kind)) + " needs sd > 0 (got " + describe() + ")");
      return;
    case ParamKind::truncnormal: {
      if (!all_finite({a, b})) fail(key, "truncnormal mean and sd must be finite (got " + describe() + ")");
      if (!(b > 0)) fail(key, "truncnormal needs sd > 0 (got " + describe() + ")");
      if (std::isnan(lo) || std::isnan(hi)) fail(key, "truncnormal bounds must not be NaN (got " + describe() + ")");
      if (!(lo < hi)) fail(key, "truncnormal needs lo < hi (got " + describe() + ")");
      const Trunc t = trunc_of(*this);
      if (!(t.mass >= 1e-12))
        fail(key, "truncnormal interval [lo, hi] has probability " + num(t.mass) +
                      " < 1e-12 under the untruncated normal (got " + describe() + ")");
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
  const std::string k = param_kind_name(kind);
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

// ---- design kinds ----------------------------------------------------------------------------------

const char* design_kind_name(DesignKind k) {
  switch (k) {
    case DesignKind::grid: return "grid";
    case DesignKind::mc: return "mc";
    case DesignKind::lhs: return "lhs";
    case DesignKind::sobol: return "sobol";
    case DesignKind::saltelli: return "saltelli";
    case DesignKind::imported: return "imported";
  }
  return "?";
}

DesignKind parse_design_kind(const std::string& key, const std::string& text) {
  for (DesignKind k : {DesignKind::grid, DesignKind::mc, DesignKind::lhs, DesignKind::sobol, DesignKind::saltelli,
                       DesignKind::imported})
    if (text == design_kind_name(k)) return k;
  fail(key, "unknown design kind '" + text + "' (expected grid, mc, lhs, sobol, saltelli or imported)");
}

// ---- designs ---------------------------------------------------------------------------------------

namespace {

class GridDesign final : public Design {
 public:
  explicit GridDesign(std::vector<ParamSpec> specs) : specs_(std::move(specs)) {
    rows_ = 1;
    for (const auto& p : specs_) {
      names_.push_back(p.name);
      if (rows_ > std::numeric_limits<std::size_t>::max() / p.count)
        fail("design.kind", "grid has more rows than can be counted (product of the linspace counts)");
      rows_ *= p.count;
    }
  }
  std::size_t rows() const override { return rows_; }
  void fill(std::size_t begin, std::size_t end, double* out) const override {
    const std::size_t d = specs_.size();
    for (std::size_t r = begin; r < end; ++r) {
      std::size_t rest = r;
      for (std::size_t k = d; k-- > 0;) {  // last parameter fastest
        out[(r - begin) * d + k] = linspace_point(specs_[k], rest % specs_[k].count);
        rest /= specs_[k].count;
      }
    }
  }

 private:
  std::vector<ParamSpec> specs_;
  std::size_t rows_ = 0;
};

// Philox stream of parameter k: mc uses k, the LHS jitter k | 2^31.
constexpr std::uint32_t kLhsStream = 0x80000000u;

double philox_u(const Philox& rng, std::uint64_t row, std::uint32_t stream) {
  double u, unused;
  uniforms2(rng, row, stream, u, unused);
  return u;
}

class McDesign final : public Design {
 public:
  McDesign(std::vector<ParamSpec> specs, std::size_t n, std::uint64_t seed) : specs_(std::move(specs)), n_(n), rng_{seed} {
    for (const auto& p : specs_) names_.push_back(p.name);
  }
  std::size_t rows() const override { return n_; }
  void fill(std::size_t begin, std::size_t end, double* out) const override {
    const std::size_t d = specs_.size();
    // rows are independent (counter-based draws): the same values whatever the thread count
#pragma omp parallel for schedule(static)
    for (std::ptrdiff_t rr = static_cast<std::ptrdiff_t>(begin); rr < static_cast<std::ptrdiff_t>(end); ++rr) {
      const std::size_t r = static_cast<std::size_t>(rr);
      for (std::size_t k = 0; k < d; ++k)
        out[(r - begin) * d + k] = specs_[k].quantile(philox_u(rng_, r, static_cast<std::uint32_t>(k)));
    }
  }

 private:
  std::vector<ParamSpec> specs_;
  std::size_t n_;
  Philox rng_;
};

class LhsDesign final : public Design {
 public:
  LhsDesign(std::vector<ParamSpec> specs, std::size_t n, std::uint64_t seed) : specs_(std::move(specs)), n_(n), rng_{seed} {
    if (n > std::numeric_limits<std::uint32_t>::max())
      fail("design.n", "lhs supports at most 4294967295 rows (got " + std::to_string(n) + ")");
    std::mt19937_64 gen(seed);
    perm_.resize(specs_.size());
    for (std::size_t k = 0; k < specs_.size(); ++k) {
      names_.push_back(specs_[k].name);
      perm_[k].resize(n);
      std::iota(perm_[k].begin(), perm_[k].end(), 0u);
      std::shuffle(perm_[k].begin(), perm_[k].end(), gen);
    }
  }
  std::size_t rows() const override { return n_; }
  void fill(std::size_t begin, std::size_t end, double* out) const override {
    const std::size_t d = specs_.size();
    const double n = static_cast<double>(n_);
#pragma omp parallel for schedule(static)
    for (std::ptrdiff_t rr = static_cast<std::ptrdiff_t>(begin); rr < static_cast<std::ptrdiff_t>(end); ++rr) {
      const std::size_t r = static_cast<std::size_t>(rr);
      for (std::size_t k = 0; k < d; ++k) {
        const double jitter = philox_u(rng_, r, kLhsStream | static_cast<std::uint32_t>(k));
        out[(r - begin) * d + k] = specs_[k].quantile(open01((perm_[k][r] + jitter) / n));
      }
    }
  }

 private:
  std::vector<ParamSpec> specs_;
  std::size_t n_;
  Philox rng_;
  std::vector<std::vector<std::uint32_t>> perm_;  // stratum of row r for parameter k
};

// Sobol points in [0,1)^dim: point i of the sequence including the origin (point 0).
// boost::random::sobol itself starts at the point after the origin.
class SobolPoints {
 public:
  explicit SobolPoints(std::size_t dim) : dim_(dim) {}
  // Calls f(i, u) for points i = first, first + 1, ..., first + count - 1; u has dim_ coordinates.
  template <class F>
  void each(std::uint64_t first, std::uint64_t count, F&& f) const {
    if (count == 0) return;
    std::vector<double> u(dim_);
    std::uint64_t i = first;
    if (i == 0) {
      std::fill(u.begin(), u.end(), 0.0);
      f(i, u);
      ++i;
      --count;
      if (count == 0) return;
    }
    boost::random::sobol eng(dim_);
    eng.seed(i - 1);
    for (std::uint64_t c = 0; c < count; ++c, ++i) {
      for (std::size_t k = 0; k < dim_; ++k) u[k] = std::ldexp(static_cast<double>(eng()), -64);
      f(i, u);
    }
  }

 private:
  std::size_t dim_;
};

void check_sobol_dim(std::size_t dim, const char* what, std::size_t d) {
  if (d == 0) fail("design.kind", std::string(what) + " needs at least one varied parameter");
  const std::size_t max_dim = boost::random::default_sobol_table::max_dimension;
  if (dim > max_dim)
    fail("design.kind", std::string(what) + " with " + std::to_string(d) + " varied parameters needs a " +
                            std::to_string(dim) + "-dimensional Sobol sequence; at most " + std::to_string(max_dim) +
                            " dimensions are available");
}

class SobolDesign final : public Design {
 public:
  SobolDesign(std::vector<ParamSpec> specs, std::size_t n, bool skip_first)
      : specs_(std::move(specs)), n_(n), skip_(skip_first ? 1 : 0), points_(specs_.size()) {
    for (const auto& p : specs_) names_.push_back(p.name);
  }
  std::size_t rows() const override { return n_; }
  void fill(std::size_t begin, std::size_t end, double* out) const override {
    if (end <= begin) return;
    const std::size_t d = specs_.size();
    points_.each(begin + skip_, end - begin, [&](std::uint64_t i, const std::vector<double>& u) {
      double* row = out + (i - skip_ - begin) * d;
      for (std::size_t k = 0; k < d; ++k) row[k] = specs_[k].quantile(open01(u[k]));
    });
  }

 private:
  std::vector<ParamSpec> specs_;
  std::size_t n_;
  std::uint64_t skip_;
  SobolPoints points_;
};

// SALib's layouts: per base row j, A_j, AB_j^(1..d), B_j (calc_second_order = False), or A_j,
// AB_j^(1..d), BA_j^(1..d), B_j (True).
class SaltelliDesign final : public Design {
 public:
  SaltelliDesign(std::vector<ParamSpec> specs, std::size_t n, bool skip_first, bool second_order)
      : specs_(std::move(specs)), n_(n), skip_(skip_first ? 1 : 0), second_(second_order), points_(2 * specs_.size()) {
    for (const auto& p : specs_) names_.push_back(p.name);
  }
  std::size_t rows() const override { return n_ * saltelli_group(specs_.size(), second_); }
  void fill(std::size_t begin, std::size_t end, double* out) const override {
    if (end <= begin) return;
    const std::size_t d = specs_.size(), per = saltelli_group(d, second_);
    const std::size_t j0 = begin / per, j1 = (end - 1) / per + 1;  // base rows touched
    std::vector<double> a(d), b(d);
    points_.each(j0 + skip_, j1 - j0, [&](std::uint64_t i, const std::vector<double>& u) {
      const std::size_t j = static_cast<std::size_t>(i - skip_);
      for (std::size_t k = 0; k < d; ++k) {
        a[k] = specs_[k].quantile(open01(u[k]));
        b[k] = specs_[k].quantile(open01(u[d + k]));
      }
      for (std::size_t t = 0; t < per; ++t) {
        const std::size_t r = j * per + t;
        if (r < begin || r >= end) continue;
        double* row = out + (r - begin) * d;
        if (t + 1 == per) {
          std::copy(b.begin(), b.end(), row);
        } else if (t <= d) {  // A, AB_t
          std::copy(a.begin(), a.end(), row);
          if (t > 0) row[t - 1] = b[t - 1];
        } else {  // BA_(t - d)
          std::copy(b.begin(), b.end(), row);
          row[t - d - 1] = a[t - d - 1];
        }
      }
    });
  }

 private:
  std::vector<ParamSpec> specs_;
  std::size_t n_;
  std::uint64_t skip_;
  bool second_;
  SobolPoints points_;
};

class ImportedDesign final : public Design {
 public:
  ImportedDesign(std::vector<std::string> names, std::vector<double> values) : values_(std::move(values)) {
    names_ = std::move(names);
    rows_ = names_.empty() ? 0 : values_.size() / names_.size();
  }
  std::size_t rows() const override { return rows_; }
  void fill(std::size_t begin, std::size_t end, double* out) const override {
    const std::size_t d = names_.size();
    std::copy(values_.begin() + begin * d, values_.begin() + end * d, out);
  }

 private:
  std::vector<double> values_;
  std::size_t rows_ = 0;
};

// ---- imported sample files -------------------------------------------------------------------------

struct Token {
  std::string text;
  std::size_t column;  // 1-based
};

// Splits a line into fields separated by commas and/or whitespace. An empty field between two
// commas (or a leading/trailing comma) is kept as an empty token so that it is reported.
std::vector<Token> split_fields(const std::string& line) {
  std::vector<Token> out;
  std::size_t i = 0;
  const std::size_t n = line.size();
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f'; };
  bool expect_field = false;  // after a comma
  while (true) {
    while (i < n && space(line[i])) ++i;
    if (i >= n) {
      if (expect_field) out.push_back({"", i + 1});
      break;
    }
    if (line[i] == ',') {
      if (expect_field || out.empty()) out.push_back({"", i + 1});
      expect_field = true;
      ++i;
      continue;
    }
    const std::size_t start = i;
    while (i < n && !space(line[i]) && line[i] != ',') ++i;
    out.push_back({line.substr(start, i - start), start + 1});
    expect_field = false;
  }
  return out;
}

// A value of an imported file: the one number grammar of text (io/number.hpp, as a CSV cell of
// `impact eval`), finite (a design's values are). Empty when v is set, else what was wrong.
std::string design_number(const std::string& s, double& v) {
  const io::ParsedNumber p = io::parse_number_text(s);
  if (p.ok() && std::isfinite(p.value)) {
    v = p.value;
    return "";
  }
  return "expected a finite number, found '" + s + "'" +
         (p.ok() ? std::string(" (a design's values must be finite)") : io::number_fault_hint(p.fault));
}

std::string unquote(const std::string& s) {
  if (s.size() >= 2 && ((s.front() == '"' && s.back() == '"') || (s.front() == '\'' && s.back() == '\'')))
    return s.substr(1, s.size() - 2);
  return s;
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

// The header of an imported file: the names of its columns, the design's columns. With `known`
// (the scenario's parameters) a column names any of them and declares itself varied; without, it
// must be one of the varied parameters declared in [params] (`declared`). Every declared varied
// parameter needs its column (a distribution without one would be silently unused), a parameter
// fixed in [params] may not have one (`fixed`), and no name repeats.
template <class Err>
std::vector<std::string> header_names(const std::vector<std::string>& declared, const std::vector<std::string>& fixed,
                                      const std::vector<std::string>& known, const std::vector<Token>& tok,
                                      std::size_t lineno, std::size_t line_size, const Err& err) {
  auto has = [](const std::vector<std::string>& v, const std::string& x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  };
  std::vector<std::string> names;
  for (const Token& t : tok) {
    const std::string name = unquote(t.text);
    if (known.empty() && !has(declared, name))
      throw err(lineno, t.column,
                "expected a header naming the varied parameters (" + join(declared) + "); '" + name + "' is not one of them");
    if (!known.empty() && !has(known, name))
      throw err(lineno, t.column, "expected a header of scenario parameters (" + join(known) + "); '" + name +
                                      "' is not one of them");
    if (has(fixed, name))
      throw err(lineno, t.column, "'" + name + "' is fixed in [params] and also a column of the file: remove one of the two");
    if (has(names, name)) throw err(lineno, t.column, "expected each parameter once in the header; '" + name + "' repeats");
    names.push_back(name);
  }
  std::vector<std::string> missing;
  for (const std::string& n : declared)
    if (!has(names, n)) missing.push_back(n);
  if (!missing.empty())
    throw err(lineno, line_size + 1, "expected a header naming every varied parameter of [params]; missing " + join(missing));
  return names;
}

// The rows of a Saltelli matrix come in groups of d + 2 (A, AB_1..AB_d, B), or 2 d + 2 (A,
// AB_1..AB_d, BA_1..BA_d, B): AB_i is A with B's value in column i, BA_i B with A's. Checked on the
// parsed values (SALib writes them by copying, so a file written with full precision repeats the
// bits).
template <class Err>
void check_saltelli_group(const double* g, std::size_t d, bool second_order, const std::vector<std::size_t>& lines,
                          const Err& err) {
  const std::size_t per = saltelli_group(d, second_order);
  const double* a = g;
  const double* b = g + (per - 1) * d;
  for (std::size_t t = 1; t + 1 < per; ++t) {
    const bool ab = t <= d;
    const std::size_t i = ab ? t - 1 : t - d - 1;
    const double* row = g + t * d;
    for (std::size_t k = 0; k < d; ++k) {
      const double want = ab ? (k == i ? b[k] : a[k]) : (k == i ? a[k] : b[k]);
      if (row[k] != want)
        throw err(lines[t], 1,
                  "expected a Saltelli matrix (rows A, AB_1..AB_" + std::to_string(d) +
                      (second_order ? ", BA_1..BA_" + std::to_string(d) : std::string()) +
                      ", B per base row, AB_i = A with B's column i" + (second_order ? ", BA_i = B with A's" : "") +
                      "; SALib's calc_second_order = " + (second_order ? "True" : "False") + "): row " +
                      std::to_string(t + 1) + " of the group starting at line " + std::to_string(lines[0]) +
                      " differs in column " + std::to_string(k + 1));
    }
  }
}

// Rows of an imported file read by `in`, at most max_rows (kMaxDesignRows, and what the memory
// limit holds); its columns as header_names() says, or without a header the declared varied
// parameters in order. `saltelli`: the rows must form a Saltelli matrix (check_saltelli_group).
// The reader's own errors (io::InputError) pass through; read_imported() says them as design.file's.
std::unique_ptr<Design> read_rows(io::CsvReader& in, const std::vector<std::string>& declared,
                                  const std::vector<std::string>& fixed, const std::vector<std::string>& known,
                                  bool saltelli, bool second_order, double memory_limit) {
  // "design.file: FILE:LINE:COLUMN: what was expected"
  auto err = [&](std::size_t line, std::size_t col, const std::string& what) {
    return std::invalid_argument("design.file: " + in.path() + ":" + std::to_string(line) + ":" +
                                 std::to_string(col) + ": " + what);
  };
  std::vector<std::string> names = declared, file_names;
  std::vector<std::size_t> col_of;  // file column -> design column
  bool first = true;
  std::size_t d = 0;
  std::uint64_t max_rows = 0;
  std::vector<double> values;
  std::vector<std::size_t> group_lines;  // saltelli: the lines of the current group
  std::vector<Token> comment_header;  // "# a b c" before the first row
  std::size_t comment_line = 0, comment_size = 0;
  std::size_t lineno = 0;
  while (in.next_record()) {
    lineno = static_cast<std::size_t>(in.line_no());
    const std::string& line = in.raw();
    const std::size_t nonspace = line.find_first_not_of(" \t\v\f");
    if (nonspace == std::string::npos) continue;
    if (line[nonspace] == '#') {
      // np.savetxt(header=...) and design.txt write the names as a comment: "# a b c", taken as
      // the header when the file has no other and every word is a parameter's name
      if (first) {
        std::vector<Token> words = split_fields(line.substr(nonspace + 1));
        for (Token& w : words) w.column += nonspace + 1;
        const std::vector<std::string>& pool = known.empty() ? declared : known;
        bool names_only = !words.empty();
        for (const Token& w : words)
          names_only = names_only && std::find(pool.begin(), pool.end(), unquote(w.text)) != pool.end();
        if (names_only) {
          comment_header = words;
          comment_line = lineno;
          comment_size = line.size();
        }
      }
      continue;
    }
    std::vector<Token> tok = split_fields(line);
    double v = 0;
    if (first) {
      first = false;
      // a header when its first field does not begin like a number ("0x10" there is a value,
      // refused as one)
      const bool plain = !tok.empty() && !tok[0].text.empty() && !io::begins_like_number(tok[0].text);
      // a comment header counts when it names as many columns as the first row has
      if (!plain && comment_header.size() != tok.size()) comment_header.clear();
      if (plain || !comment_header.empty()) {
        file_names = plain ? header_names(declared, fixed, known, tok, lineno, line.size(), err)
                           : header_names(declared, fixed, known, comment_header, comment_line, comment_size, err);
        // the declared parameters in [params] order, then the file's others in its order; a
        // Saltelli file keeps its own order (its AB_i replaces the file's column i)
        names = saltelli ? file_names : declared;
        for (const std::string& n : file_names)
          if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
        if (plain) continue;
      }
      if (names.empty())
        throw err(lineno, 1, "expected a header line naming the file's columns (parameters of the scenario), "
                             "or the varied parameters declared in [params]");
    }
    if (d == 0) {
      d = names.size();
      col_of.resize(d);
      std::iota(col_of.begin(), col_of.end(), 0);
      for (std::size_t c = 0; c < file_names.size(); ++c)
        col_of[c] = static_cast<std::size_t>(std::find(names.begin(), names.end(), file_names[c]) - names.begin());
      const double by_memory = std::floor(memory_limit / (8.0 * double(d)));
      max_rows = static_cast<std::uint64_t>(std::max(1.0, std::min(double(kMaxDesignRows), by_memory)));
    }
    const std::size_t base = values.size();
    if (base / d >= max_rows)
      throw err(lineno, 1, "expected at most " + std::to_string(max_rows) + " rows (" +
                               (double(max_rows) < double(kMaxDesignRows)
                                    ? "the " + gib(memory_limit) + " a study may use)"
                                    : "the largest design)"));
    // grow within the limit: never more than max_rows rows' capacity
    if (values.capacity() < base + d)
      values.reserve(static_cast<std::size_t>(std::min<double>(double(max_rows) * double(d),
                                                               std::max<double>(1024.0, 2.0 * double(base + d)))));
    values.resize(base + d);
    for (std::size_t c = 0; c < tok.size(); ++c) {
      if (c >= d)
        throw err(lineno, tok[c].column, "expected " + std::to_string(d) + " values per row, found " + std::to_string(tok.size()));
      const std::string bad = design_number(tok[c].text, v);
      if (!bad.empty()) throw err(lineno, tok[c].column, bad);
      values[base + col_of[c]] = v;
    }
    if (tok.size() < d)
      throw err(lineno, line.size() + 1, "expected " + std::to_string(d) + " values per row, found " + std::to_string(tok.size()));
    if (saltelli) {
      group_lines.push_back(lineno);
      if (group_lines.size() == saltelli_group(d, second_order)) {
        check_saltelli_group(&values[values.size() - saltelli_group(d, second_order) * d], d, second_order, group_lines, err);
        group_lines.clear();
      }
    }
  }
  if (values.empty()) throw err(lineno + 1, 1, "expected at least one row of values, found none");
  if (saltelli && !group_lines.empty())
    throw err(lineno + 1, 1, std::string("expected N ") + (second_order ? "(2d + 2)" : "(d + 2)") +
                                 " rows for a Saltelli matrix of d = " + std::to_string(d) + " columns, found " +
                                 std::to_string(values.size() / d) + " (the last group has " +
                                 std::to_string(group_lines.size()) + " of its " +
                                 std::to_string(saltelli_group(d, second_order)) + " rows)");
  auto design = std::make_unique<ImportedDesign>(names, std::move(values));
  design->set_source_sum("crc32=" + io::crc_hex(in.checksum()) + " bytes=" + std::to_string(in.offset()));
  return design;
}

// An imported file through io's reader (blocks of 1 MiB, lines of at most
// io::CsvReader::kMaxLineChars, a NUL byte or a read error an error, never the end), keeping the
// file's CRC-32 for the study's metadata; its records are split by read_rows, by commas and/or
// blanks. The reader's errors become design.file's: "design.file: FILE:LINE[:COL]: ...".
std::unique_ptr<Design> read_imported(const std::vector<std::string>& declared, const std::vector<std::string>& fixed,
                                      const std::vector<std::string>& known, const std::string& file, bool saltelli,
                                      bool second_order, double memory_limit) {
  try {
    io::CsvReader in(file, "a sample matrix");
    in.keep_checksum();
    return read_rows(in, declared, fixed, known, saltelli, second_order, memory_limit);
  } catch (const io::InputError& e) {
    throw std::invalid_argument("design.file: " + std::string(e.what()));
  }
}

}  // namespace

double memory_budget_bytes() {
  double budget = 0.5 * io::mem_available_bytes();
  rlimit as{};
  if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY)
    budget = std::min(budget, 0.5 * static_cast<double>(as.rlim_cur));
  return budget;
}

double design_memory_bytes(const std::vector<ParamSpec>& specs, const DesignSpec& spec) {
  if (spec.kind != DesignKind::lhs) return 0.0;  // imported: bounded while it is read
  double varied = 0;
  for (const ParamSpec& p : specs) varied += p.kind != ParamKind::fixed;
  return double(spec.n) * varied * double(sizeof(std::uint32_t));
}

std::unique_ptr<Design> make_design(const std::vector<ParamSpec>& specs, const DesignSpec& spec, double memory_limit,
                                    const std::vector<std::string>& known) {
  std::vector<ParamSpec> varied;
  std::vector<std::string> names, fixed;
  for (const auto& p : specs) {
    const std::string key = "params." + p.name;
    p.validate(key);
    if (std::find(names.begin(), names.end(), p.name) != names.end()) fail(key, "parameter is given twice");
    names.push_back(p.name);
    if (p.kind == ParamKind::fixed) {
      fixed.push_back(p.name);
      continue;
    }
    if (p.kind == ParamKind::linspace && spec.kind != DesignKind::grid)
      fail(key, "linspace is only allowed with design.kind = grid");
    if (spec.kind == DesignKind::grid && p.kind != ParamKind::linspace)
      fail(key, std::string("a grid design varies only linspace (or fixed) parameters; got ") + p.describe());
    varied.push_back(p);
  }
  std::vector<std::string> vnames;
  for (const auto& p : varied) vnames.push_back(p.name);

  const bool uses_n = spec.kind == DesignKind::mc || spec.kind == DesignKind::lhs || spec.kind == DesignKind::sobol ||
                      (spec.kind == DesignKind::saltelli && spec.file.empty());
  if (uses_n && spec.n == 0)
    fail("design.n", std::string("must be at least 1 for design.kind = ") + design_kind_name(spec.kind));

  if (memory_limit <= 0) memory_limit = memory_budget_bytes();
  if (uses_n && spec.n > kMaxDesignRows)
    fail("design.n", "at most " + std::to_string(kMaxDesignRows) + " rows (got " + std::to_string(spec.n) + ")");
  const std::size_t group = saltelli_group(varied.size(), spec.second_order);
  if (spec.second_order && spec.kind != DesignKind::saltelli)
    fail("design.second_order", "second-order indices need design.kind = \"saltelli\"");
  if (spec.kind == DesignKind::saltelli && double(spec.n) * double(group) > double(kMaxDesignRows))
    fail("design.n", std::string("a saltelli design has N ") + (spec.second_order ? "(2d + 2)" : "(d + 2)") + " = " +
                         std::to_string(spec.n) + " x " + std::to_string(group) + " rows, more than the " +
                         std::to_string(kMaxDesignRows) + " a design may have");
  const double need = design_memory_bytes(specs, spec);
  if (need > memory_limit)
    fail("design.n", "an lhs design of " + std::to_string(spec.n) + " rows needs " + gib(need) +
                         " for its strata (n x " + std::to_string(varied.size()) +
                         " varied parameter(s) x 4 bytes), more than the " + gib(memory_limit) +
                         " a study may use (half of the available memory, or of ulimit -v); use fewer rows, "
                         "or mc or sobol, which hold no per-row state");

  switch (spec.kind) {
    case DesignKind::grid: {
      auto g = std::make_unique<GridDesign>(std::move(varied));
      if (g->rows() > kMaxDesignRows)
        fail("design.kind", "a grid of " + std::to_string(g->rows()) + " rows (the product of the linspace counts), "
                            "more than the " + std::to_string(kMaxDesignRows) + " a design may have");
      return g;
    }
    case DesignKind::mc: return std::make_unique<McDesign>(std::move(varied), spec.n, spec.seed);
    case DesignKind::lhs: return std::make_unique<LhsDesign>(std::move(varied), spec.n, spec.seed);
    case DesignKind::sobol:
      check_sobol_dim(varied.size(), "design.kind = sobol", varied.size());
      if (spec.n > std::numeric_limits<std::uint64_t>::max() / 2)
        fail("design.n", "too many Sobol points (got " + std::to_string(spec.n) + ")");
      return std::make_unique<SobolDesign>(std::move(varied), spec.n, spec.skip_first);
    case DesignKind::saltelli: {
      if (!spec.file.empty())
        return read_imported(vnames, fixed, known, spec.file, true, spec.second_order, memory_limit);
      check_sobol_dim(2 * varied.size(), "design.kind = saltelli", varied.size());
      if (spec.n > std::numeric_limits<std::size_t>::max() / group)
        fail("design.n", "saltelli rows overflow (got N = " + std::to_string(spec.n) + ")");
      return std::make_unique<SaltelliDesign>(std::move(varied), spec.n, spec.skip_first, spec.second_order);
    }
    case DesignKind::imported:
      if (spec.file.empty()) fail("design.file", "required with design.kind = imported (a file of sample rows)");
      return read_imported(vnames, fixed, known, spec.file, false, false, memory_limit);
  }
  fail("design.kind", "unknown design kind");
}

bool operator==(const ParamSpec& a, const ParamSpec& b) {
  const auto same = [](double x, double y) { return x == y || (std::isnan(x) && std::isnan(y)); };
  return a.name == b.name && a.kind == b.kind && same(a.a, b.a) && same(a.b, b.b) &&
         (a.kind != ParamKind::truncnormal || (same(a.lo, b.lo) && same(a.hi, b.hi))) &&
         (a.kind != ParamKind::linspace || a.count == b.count);
}

}  // namespace impact::design
