// Experimental designs (design/design.hpp): the grid, Monte Carlo, Latin hypercube, Sobol and
// Saltelli generators, the memory a design may take, and make_design, which checks the specs and
// builds the design of a kind (an imported file's: design/design_import.hpp). Sobol points come from
// boost::random::sobol (Joe-Kuo direction numbers), counter-based uniforms from the project's Philox
// wrapper (impact/rng.hpp).
#include "design/design.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>

#include <boost/random/sobol.hpp>
#include <sys/resource.h>

#include "design/design_import.hpp"
#include "impact/rng.hpp"
#include "io/machine.hpp"

namespace impact::design {

namespace {

using io::gib;  // "1.5 GiB", for messages on memory

[[noreturn]] void fail(const std::string& key, const std::string& what) { throw std::invalid_argument(key + ": " + what); }

// Clamps u into the open interval the quantiles accept: the Sobol origin (u = 0) becomes 2^-64,
// the resolution of the 64-bit Sobol lattice, and a rounded-up 1 becomes 1 - 2^-53.
double open01(double u) {
  constexpr double lo = 0x1p-64, hi = 1.0 - 0x1p-53;
  return u < lo ? lo : (u > hi ? hi : u);
}

double linspace_point(const ParamSpec& p, std::size_t i) {
  if (i == 0) return p.a;
  if (i + 1 == p.count) return p.b;
  return p.a + (p.b - p.a) * (static_cast<double>(i) / static_cast<double>(p.count - 1));
}

}  // namespace

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
  for (DesignKind k :
       {DesignKind::grid, DesignKind::mc, DesignKind::lhs, DesignKind::sobol, DesignKind::saltelli, DesignKind::imported})
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
    fail("design.kind", std::string(what) + " with " + std::to_string(d) + " varied parameters needs a " + std::to_string(dim) +
                            "-dimensional Sobol sequence; at most " + std::to_string(max_dim) + " dimensions are available");
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
  vnames.reserve(varied.size());
  for (const auto& p : varied) vnames.push_back(p.name);

  const bool uses_n = spec.kind == DesignKind::mc || spec.kind == DesignKind::lhs || spec.kind == DesignKind::sobol ||
                      (spec.kind == DesignKind::saltelli && spec.file.empty());
  if (uses_n && spec.n == 0) fail("design.n", std::string("must be at least 1 for design.kind = ") + design_kind_name(spec.kind));

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
    fail("design.n", "an lhs design of " + std::to_string(spec.n) + " rows needs " + gib(need) + " for its strata (n x " +
                         std::to_string(varied.size()) + " varied parameter(s) x 4 bytes), more than the " + gib(memory_limit) +
                         " a study may use (half of the available memory, or of ulimit -v); use fewer rows, "
                         "or mc or sobol, which hold no per-row state");

  switch (spec.kind) {
    case DesignKind::grid: {
      auto g = std::make_unique<GridDesign>(std::move(varied));
      if (g->rows() > kMaxDesignRows)
        fail("design.kind", "a grid of " + std::to_string(g->rows()) +
                                " rows (the product of the linspace counts), "
                                "more than the " +
                                std::to_string(kMaxDesignRows) + " a design may have");
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
      if (!spec.file.empty()) return read_imported(vnames, fixed, known, spec.file, true, spec.second_order, memory_limit);
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

}  // namespace impact::design
