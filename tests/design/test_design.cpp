// Experimental designs (design/design.hpp) and Sobol sensitivity indices (design/sensitivity.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "design/design.hpp"
#include "design/sensitivity.hpp"

using namespace impact::design;

namespace {

const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kPi = 3.14159265358979323846;

ParamSpec P(const std::string& name, ParamKind kind, double a = 0, double b = 0, double lo = 0, double hi = 0,
            std::size_t count = 0) {
  return ParamSpec{name, kind, a, b, lo, hi, count};
}
ParamSpec U(const std::string& n, double a, double b) { return P(n, ParamKind::uniform, a, b); }
ParamSpec N(const std::string& n, double m, double s) { return P(n, ParamKind::normal, m, s); }
ParamSpec LN(const std::string& n, double m, double s) { return P(n, ParamKind::lognormal, m, s); }
ParamSpec TN(const std::string& n, double m, double s, double lo, double hi) {
  return P(n, ParamKind::truncnormal, m, s, lo, hi);
}
ParamSpec LS(const std::string& n, double a, double b, std::size_t c) { return P(n, ParamKind::linspace, a, b, 0, 0, c); }
ParamSpec F(const std::string& n, double a) { return P(n, ParamKind::fixed, a); }

DesignSpec DS(DesignKind k, std::size_t n, std::uint64_t seed = 1, bool skip = true) {
  DesignSpec s;
  s.kind = k;
  s.n = n;
  s.seed = seed;
  s.skip_first = skip;
  return s;
}

std::vector<double> all_rows(const Design& d) {
  std::vector<double> v(d.rows() * d.names().size());
  d.fill(0, d.rows(), v.data());
  return v;
}

// Column k of rows r = first, first + stride, ... of a row-major matrix with d columns.
std::vector<double> column(const std::vector<double>& m, std::size_t d, std::size_t k, std::size_t first = 0,
                           std::size_t stride = 1) {
  std::vector<double> c;
  for (std::size_t r = first; r * d < m.size(); r += stride) c.push_back(m[r * d + k]);
  return c;
}

// One-sample Kolmogorov-Smirnov statistic against the spec's CDF.
double ks_stat(std::vector<double> x, const ParamSpec& p) {
  std::sort(x.begin(), x.end());
  const double n = static_cast<double>(x.size());
  double D = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double F = p.cdf(x[i]);
    D = std::max({D, F - i / n, (i + 1) / n - F});
  }
  return D;
}

// KS at alpha = 0.01 (asymptotic critical value 1.628 / sqrt(n)), and sample mean and variance
// within 4 standard errors of mean() and variance().
void check_marginal(const std::vector<double>& x, const ParamSpec& p, const std::string& what) {
  SCOPED_TRACE(what + " " + p.describe());
  const double n = static_cast<double>(x.size());
  EXPECT_LT(ks_stat(x, p), 1.628 / std::sqrt(n));
  double m = 0;
  for (double v : x) m += v;
  m /= n;
  double m2 = 0, m4 = 0;
  for (double v : x) {
    const double e = v - m;
    m2 += e * e;
    m4 += e * e * e * e;
  }
  m2 /= n;
  m4 /= n;
  const double var = p.variance();
  EXPECT_NEAR(m, p.mean(), 4 * std::sqrt(var / n));
  EXPECT_NEAR(m2 * n / (n - 1), var, 4 * std::sqrt(std::max(m4 - m2 * m2, 0.0) / n) + 4 * var / n);
  for (double v : x) {
    ASSERT_TRUE(std::isfinite(v));
    if (p.kind == ParamKind::truncnormal) {
      ASSERT_GE(v, p.lo);
      ASSERT_LE(v, p.hi);
    }
  }
}

// Every distribution the designs are tested with (truncnormal: two-sided, one-sided [2 sd, inf),
// one-sided (-inf, -3 sd], and an interval deep in the upper tail, [6 sd, 7 sd]).
std::vector<ParamSpec> all_dists() {
  return {U("u", -1, 3),         N("n", 2, 0.5),           LN("ln", 0.1, 0.4),
          TN("tn", 0, 1, -1, 2), TN("tup", 1, 2, 5, kInf), TN("tlow", 10, 3, -kInf, 1),
          TN("tfar", 0, 1, 6, 7)};
}

template <class F>
void expect_throw_key(F&& f, const std::string& key, const std::string& also = "") {
  try {
    f();
    ADD_FAILURE() << "no exception; expected one naming " << key;
  } catch (const std::invalid_argument& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind(key + ":", 0), 0u) << "message does not begin with '" << key << ":': " << msg;
    if (!also.empty()) { EXPECT_NE(msg.find(also), std::string::npos) << "message lacks '" << also << "': " << msg; }
  }
}

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "impact_design_" + name;
  std::ofstream(path) << text;
  return path;
}

}  // namespace

// ---- ParamSpec --------------------------------------------------------------------------------------

TEST(ParamSpec, QuantileInvertsCdf) {
  for (const auto& p : all_dists()) {
    SCOPED_TRACE(p.describe());
    double prev = -kInf;
    for (double u : {1e-12, 1e-6, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 1 - 1e-6, 1 - 1e-10}) {
      const double x = p.quantile(u);
      ASSERT_TRUE(std::isfinite(x));
      EXPECT_GT(x, prev);
      prev = x;
      EXPECT_NEAR(p.cdf(x), u, 1e-9 * std::max(1.0, u / (1 - u))) << "u = " << u;
    }
  }
}

TEST(ParamSpec, KnownValues) {
  EXPECT_DOUBLE_EQ(U("x", 2, 6).quantile(0.25), 3);
  EXPECT_NEAR(N("x", 1, 2).quantile(0.975), 1 + 2 * 1.959963984540054, 1e-12);
  EXPECT_NEAR(LN("x", 0, 1).quantile(0.5), 1.0, 1e-14);
  EXPECT_NEAR(LN("x", 0.5, 0.3).mean(), std::exp(0.5 + 0.045), 1e-14);
  // half-normal: truncnormal(0, 1) on [0, inf) has mean sqrt(2/pi), variance 1 - 2/pi
  EXPECT_NEAR(TN("x", 0, 1, 0, kInf).mean(), std::sqrt(2 / kPi), 1e-14);
  EXPECT_NEAR(TN("x", 0, 1, 0, kInf).variance(), 1 - 2 / kPi, 1e-14);
  EXPECT_NEAR(TN("x", 0, 1, 0, kInf).quantile(0.5), 0.6744897501960817, 1e-12);
  // deep upper tail [6, 7]: the median solves Q(z) = (Q(6) + Q(7)) / 2, Q(6) = 9.865876450377e-10,
  // Q(7) = 1.279812543885835e-12; mean (phi(6) - phi(7)) / (Q(6) - Q(7)) = 6.1584...
  const ParamSpec far = TN("x", 0, 1, 6, 7);
  const double q6 = 9.865876450376981e-10, q7 = 1.279812543885835e-12;
  const double phi6 = std::exp(-18.0) / std::sqrt(2 * kPi), phi7 = std::exp(-24.5) / std::sqrt(2 * kPi);
  EXPECT_NEAR(far.mean(), (phi6 - phi7) / (q6 - q7), 1e-9);
  EXPECT_NEAR(far.cdf(far.quantile(0.5)), 0.5, 1e-9);
  EXPECT_GT(far.quantile(1e-9), 6.0);
  // linspace points: mean and population variance
  EXPECT_DOUBLE_EQ(LS("x", 0, 1, 2).variance(), 0.25);
  EXPECT_DOUBLE_EQ(LS("x", 0, 1, 3).variance(), 1.0 / 6.0);
  EXPECT_DOUBLE_EQ(LS("x", 4, 9, 1).variance(), 0.0);
  EXPECT_DOUBLE_EQ(LS("x", 4, 9, 1).mean(), 4.0);
  EXPECT_EQ(U("x", 0.1, 0.9).describe(), "uniform(0.1, 0.9)");
  EXPECT_EQ(TN("x", 0, 1, 2, kInf).describe(), "truncnormal(0, 1, 2, inf)");
  EXPECT_THROW(LS("x", 0, 1, 3).quantile(0.5), std::invalid_argument);
}

TEST(ParamSpec, BadSpecsNameTheKey) {
  const std::string key = "params.q";
  auto v = [&](ParamSpec p) { return [p, key] { p.validate(key); }; };
  expect_throw_key(v(N("q", 1, 0)), key, "sd > 0");
  expect_throw_key(v(N("q", 1, -1)), key, "sd > 0");
  expect_throw_key(v(LN("q", 1, 0)), key, "sd > 0");
  expect_throw_key(v(TN("q", 0, 0, -1, 1)), key, "sd > 0");
  expect_throw_key(v(TN("q", 0, 1, 1, 1)), key, "lo < hi");
  expect_throw_key(v(TN("q", 0, 1, 2, -2)), key, "lo < hi");
  expect_throw_key(v(TN("q", 0, 1, 40, 41)), key, "1e-12");    // negligible upper tail
  expect_throw_key(v(TN("q", 0, 1, -41, -40)), key, "1e-12");  // negligible lower tail
  expect_throw_key(v(U("q", 2, 1)), key, "a <= b");
  expect_throw_key(v(LS("q", 0, 1, 0)), key, "count");
  expect_throw_key(v(U("q", kNaN, 1)), key, "finite");
  expect_throw_key(v(U("q", 0, kInf)), key, "finite");
  expect_throw_key(v(N("q", kInf, 1)), key, "finite");
  expect_throw_key(v(LS("q", 0, kNaN, 3)), key, "finite");
  expect_throw_key(v(F("q", kNaN)), key, "finite");
  expect_throw_key(v(TN("q", 0, 1, kNaN, 1)), key, "NaN");
  EXPECT_NO_THROW(TN("q", 0, 1, 6, 7).validate(key));
  EXPECT_NO_THROW(TN("q", 0, 1, -kInf, kInf).validate(key));
  EXPECT_NO_THROW(U("q", 1, 1).validate(key));
  // the same through make_design
  expect_throw_key([] { make_design({U("a", 0, 1), N("sd0", 0, 0)}, DS(DesignKind::mc, 10)); }, "params.sd0");
  expect_throw_key([] { make_design({LS("g", 0, 1, 0)}, DS(DesignKind::grid, 0)); }, "params.g", "count");
  expect_throw_key([] { make_design({U("a", 0, 1), U("a", 0, 2)}, DS(DesignKind::mc, 10)); }, "params.a");
}

TEST(Design, BadDesignsNameTheKey) {
  for (auto k : {DesignKind::mc, DesignKind::lhs, DesignKind::sobol, DesignKind::saltelli})
    expect_throw_key(
        [k] {
          make_design({U("a", 0, 1), LS("t", 0, 1, 3)}, DS(k, 10));
        },
        "params.t", "linspace is only allowed with design.kind = grid");
  expect_throw_key([] { make_design({LS("t", 0, 1, 3), U("a", 0, 1)}, DS(DesignKind::grid, 0)); }, "params.a");
  expect_throw_key([] { parse_design_kind("design.kind", "latin"); }, "design.kind", "latin");
  EXPECT_EQ(parse_design_kind("design.kind", "saltelli"), DesignKind::saltelli);
  for (auto k : {DesignKind::mc, DesignKind::lhs, DesignKind::sobol, DesignKind::saltelli})
    expect_throw_key([k] { make_design({U("a", 0, 1)}, DS(k, 0)); }, "design.n");
  expect_throw_key([] { make_design({F("a", 1)}, DS(DesignKind::sobol, 8)); }, "design.kind");
  expect_throw_key([] { make_design({U("a", 0, 1)}, DS(DesignKind::imported, 0)); }, "design.file");
  expect_throw_key([] { make_design({U("a", 0, 1)}, DS(static_cast<DesignKind>(99), 10)); }, "design.kind");
  // fixed parameters are not columns
  const auto d = make_design({U("a", 0, 1), F("f", 3), N("b", 0, 1)}, DS(DesignKind::mc, 5));
  EXPECT_EQ(d->names(), (std::vector<std::string>{"a", "b"}));
}

// ---- marginals --------------------------------------------------------------------------------------

TEST(Design, MarginalsMcLhsSobol) {
  const auto specs = all_dists();
  const std::size_t n = 4000;
  for (auto k : {DesignKind::mc, DesignKind::lhs, DesignKind::sobol}) {
    const auto d = make_design(specs, DS(k, n, 42));
    ASSERT_EQ(d->rows(), n);
    ASSERT_EQ(d->names().size(), specs.size());
    const auto m = all_rows(*d);
    for (std::size_t c = 0; c < specs.size(); ++c) check_marginal(column(m, specs.size(), c), specs[c], design_kind_name(k));
  }
}

TEST(Design, MarginalsSaltelliAAndB) {
  const auto specs = all_dists();
  const std::size_t d = specs.size(), N0 = 2048, per = d + 2;
  const auto des = make_design(specs, DS(DesignKind::saltelli, N0));
  ASSERT_EQ(des->rows(), N0 * per);
  const auto m = all_rows(*des);
  for (std::size_t c = 0; c < d; ++c) {
    check_marginal(column(m, d, c, 0, per), specs[c], "saltelli A");
    check_marginal(column(m, d, c, per - 1, per), specs[c], "saltelli B");
  }
  // layout: AB_i is A with column i from B
  for (std::size_t j = 0; j < N0; ++j)
    for (std::size_t i = 0; i < d; ++i)
      for (std::size_t c = 0; c < d; ++c) {
        const std::size_t src = (c == i) ? j * per + per - 1 : j * per;
        ASSERT_EQ(m[(j * per + 1 + i) * d + c], m[src * d + c]) << "j " << j << " i " << i << " c " << c;
      }
}

TEST(Design, MarginalsDetectAWrongDistribution) {
  // the checks above can fail: a normal sample does not pass as a wider normal or as a uniform
  const auto d = make_design({N("x", 0, 1)}, DS(DesignKind::mc, 4000, 3));
  const auto x = all_rows(*d);
  EXPECT_GT(ks_stat(x, N("x", 0, 1.1)), 1.628 / std::sqrt(4000.0));
  EXPECT_GT(ks_stat(x, U("x", -2, 2)), 1.628 / std::sqrt(4000.0));
  EXPECT_GT(ks_stat(x, TN("x", 0, 1, -kInf, 1.5)), 1.628 / std::sqrt(4000.0));
}

TEST(Design, LhsOnePointPerStratum) {
  for (std::size_t n : {1, 2, 17, 1000}) {
    const std::size_t d = 4;
    const auto des = make_design({U("a", 0, 1), U("b", 0, 1), U("c", 0, 1), U("e", 0, 1)}, DS(DesignKind::lhs, n, 9));
    const auto m = all_rows(*des);
    for (std::size_t k = 0; k < d; ++k) {
      std::vector<int> hits(n, 0);
      for (double x : column(m, d, k)) {
        ASSERT_GT(x, 0.0);
        ASSERT_LT(x, 1.0);
        ++hits[static_cast<std::size_t>(x * static_cast<double>(n))];
      }
      for (std::size_t s = 0; s < n; ++s) ASSERT_EQ(hits[s], 1) << "n " << n << " param " << k << " stratum " << s;
    }
    // the permutations differ between parameters
    if (n == 1000) { EXPECT_NE(column(m, d, 0), column(m, d, 1)); }
  }
  // and the seed matters
  EXPECT_NE(all_rows(*make_design({U("a", 0, 1)}, DS(DesignKind::lhs, 50, 1))),
            all_rows(*make_design({U("a", 0, 1)}, DS(DesignKind::lhs, 50, 2))));
}

TEST(Design, SobolBalanced) {
  const std::size_t d = 12;
  std::vector<ParamSpec> specs;
  for (std::size_t k = 0; k < d; ++k) specs.push_back(U("x" + std::to_string(k), 0, 1));
  const std::size_t kmax = 12, n = std::size_t{1} << kmax;
  const auto with0 = all_rows(*make_design(specs, DS(DesignKind::sobol, n + 1, 1, false)));
  const auto skip = all_rows(*make_design(specs, DS(DesignKind::sobol, n, 1, true)));
  // skip_first drops exactly the origin
  for (std::size_t k = 0; k < d; ++k) EXPECT_LT(with0[k], 1e-18);
  EXPECT_TRUE(std::equal(skip.begin(), skip.end(), with0.begin() + d));
  EXPECT_EQ(skip[0], 0.5);  // the first point after the origin is (1/2, ..., 1/2)
  for (std::size_t kk = 1; kk <= kmax; ++kk) {
    const std::size_t m = std::size_t{1} << kk;
    for (std::size_t k = 0; k < d; ++k) {
      // including the origin: the first 2^kk points are a (0, kk, 1)-net in every coordinate:
      // each of the 2^b dyadic intervals, b <= kk, holds 2^(kk - b) points
      for (std::size_t b : {std::size_t{1}, kk / 2, kk}) {
        if (b == 0) continue;
        std::vector<std::size_t> bins(std::size_t{1} << b, 0);
        for (std::size_t r = 0; r < m; ++r) ++bins[static_cast<std::size_t>(with0[r * d + k] * bins.size())];
        for (std::size_t i = 0; i < bins.size(); ++i)
          ASSERT_EQ(bins[i], m >> b) << "with origin, 2^" << kk << " points, dim " << k << ", 2^" << b << " bins";
      }
      // after the skipped origin: the first 2^kk points swap the origin for point 2^kk, so each
      // half holds 2^(kk-1) points or one more / one fewer
      std::size_t lower = 0;
      for (std::size_t r = 0; r < m; ++r) lower += skip[r * d + k] < 0.5;
      ASSERT_LE(lower, m / 2 + 1);
      ASSERT_GE(lower + 1, m / 2);
      // and the first 2^kk - 1 points after the origin (with the origin, a full net) split
      // 2^(kk-1) - 1 : 2^(kk-1)
      std::size_t lower1 = 0;
      for (std::size_t r = 0; r + 1 < m; ++r) lower1 += skip[r * d + k] < 0.5;
      ASSERT_EQ(lower1, m / 2 - 1);
    }
  }
}

TEST(Design, Grid) {
  const auto des = make_design({LS("a", 0, 1, 3), F("f", 5), LS("c", -2, 2, 5), LS("e", 0.1, 0.3, 4), LS("one", 7, 9, 1)},
                               DS(DesignKind::grid, 0));
  ASSERT_EQ(des->rows(), 3u * 5u * 4u * 1u);
  ASSERT_EQ(des->names(), (std::vector<std::string>{"a", "c", "e", "one"}));
  const auto m = all_rows(*des);
  const double a[] = {0, 0.5, 1}, c[] = {-2, -1, 0, 1, 2};
  for (std::size_t r = 0; r < des->rows(); ++r) {
    EXPECT_EQ(m[r * 4 + 0], a[r / 20]);
    EXPECT_EQ(m[r * 4 + 1], c[(r / 4) % 5]);
    EXPECT_NEAR(m[r * 4 + 2], 0.1 + 0.2 * static_cast<double>(r % 4) / 3, 1e-15);  // last varies fastest
    EXPECT_EQ(m[r * 4 + 3], 7.0);
  }
  // exact end points
  EXPECT_EQ(m[2], 0.1);
  EXPECT_EQ(m[3 * 4 + 2], 0.3);
  EXPECT_EQ(m[(des->rows() - 1) * 4 + 2], 0.3);
  // no linspace at all: one row of no columns
  EXPECT_EQ(make_design({F("f", 1)}, DS(DesignKind::grid, 0))->rows(), 1u);
}

// ---- chunking ---------------------------------------------------------------------------------------

TEST(Design, ChunkingInvariance) {
  const std::string file = write_temp("chunk.txt", "b a\n1 2\n3 4\n5 6\n7 8\n9 10\n11 12\n13 14\n");
  DesignSpec imp = DS(DesignKind::imported, 0);
  imp.file = file;
  struct Case {
    std::vector<ParamSpec> specs;
    DesignSpec spec;
  };
  const std::vector<Case> cases = {
      {{LS("a", 0, 1, 7), LS("b", 1, 2, 5), F("f", 1), LS("c", 0, 3, 4)}, DS(DesignKind::grid, 0)},
      {all_dists(), DS(DesignKind::mc, 333, 5)},
      {all_dists(), DS(DesignKind::lhs, 333, 5)},
      {all_dists(), DS(DesignKind::sobol, 333, 0, true)},
      {all_dists(), DS(DesignKind::sobol, 333, 0, false)},
      {{U("a", 0, 1), N("b", 0, 1), LN("c", 0, 1)}, DS(DesignKind::saltelli, 67, 0, true)},
      {{U("a", 0, 1), N("b", 0, 1), LN("c", 0, 1)}, DS(DesignKind::saltelli, 67, 0, false)},
      {{U("a", 0, 1), U("b", 0, 1)}, imp},
  };
  for (const auto& cs : cases) {
    const auto des = make_design(cs.specs, cs.spec);
    SCOPED_TRACE(design_kind_name(cs.spec.kind));
    const std::size_t d = des->names().size(), n = des->rows();
    const auto whole = all_rows(*des);
    for (std::size_t step : {1, 2, 3, 7, 13, 64}) {
      std::vector<double> parts(whole.size(), kNaN);
      // irregular chunks, filled back to front
      std::vector<std::size_t> cuts{0};
      for (std::size_t s = 0; cuts.back() < n; ++s) cuts.push_back(std::min(n, cuts.back() + step + s % 5));
      for (std::size_t i = cuts.size() - 1; i-- > 0;) des->fill(cuts[i], cuts[i + 1], parts.data() + cuts[i] * d);
      ASSERT_EQ(parts, whole) << "step " << step;
    }
  }
  std::remove(file.c_str());
}

// ---- imported ---------------------------------------------------------------------------------------

TEST(Design, ImportedKeepsRowOrderAndReordersColumns) {
  const std::vector<ParamSpec> specs = {U("a", 0, 1), F("f", 2), N("c", 0, 1), U("b", 0, 1)};
  DesignSpec s = DS(DesignKind::imported, 0);
  s.file = write_temp("hdr.csv",
                      "# exported by hand, deliberately unsorted\n"
                      "c, b ,a\r\n"
                      "\n"
                      "3.5, 0.25, 0.9\n"
                      "  # a comment between rows\n"
                      "-1,0.75,0.1\n"
                      "2e-3 , 0.5 , 0.5\n");
  const auto des = make_design(specs, s);
  ASSERT_EQ(des->names(), (std::vector<std::string>{"a", "c", "b"}));
  ASSERT_EQ(des->rows(), 3u);
  EXPECT_EQ(all_rows(*des), (std::vector<double>{0.9, 3.5, 0.25, 0.1, -1, 0.75, 0.5, 2e-3, 0.5}));
  std::remove(s.file.c_str());
  // without a header: spec order, whitespace separated
  s.file = write_temp("nohdr.txt", "0.3 1 0.2\n\t0.1   -2  0.6\n");
  EXPECT_EQ(all_rows(*make_design(specs, s)), (std::vector<double>{0.3, 1, 0.2, 0.1, -2, 0.6}));
  std::remove(s.file.c_str());
}

TEST(Design, ImportedErrorsNameFileLineColumn) {
  const std::vector<ParamSpec> specs = {U("a", 0, 1), U("b", 0, 1)};
  // each file: its name, its text, where the error is (line:column) and what the message also says
  struct Bad {
    const char *name, *text, *where, *also;
  };
  const Bad bad[] = {
      {"badnum.txt", "# c\n1 2\n3 4x\n", "3:3", "expected a finite number, found '4x'"},
      {"nan.txt", "1 2\nnan 4\n", "2:1", "finite number"},
      {"inf.csv", "1,2\n3,1e999\n", "2:3", "finite number"},
      {"empty_field.csv", "1,,2\n", "1:3", "finite number"},
      {"few.txt", "1 2\n3\n", "2:2", "expected 2 values per row, found 1"},
      {"many.csv", "a,b\n1,2\n3,4,5\n", "3:5", "expected 2 values per row, found 3"},
      {"empty.txt", "", "1:1", "at least one row"},
      {"comments.txt", "# only\n# comments\n", "3:1", "at least one row"},
      {"header_only.txt", "a b\n", "2:1", "at least one row"},
      {"unknown.txt", "a z\n1 2\n", "1:3", "'z' is not one of them"},
      {"missing_col.txt", "b\n1\n", "1:2", "missing a"},
      {"repeat.txt", "a a\n1 2\n", "1:3", "repeats"},
  };
  for (const Bad& b : bad) {
    DesignSpec s = DS(DesignKind::imported, 0);
    s.file = write_temp(b.name, b.text);
    SCOPED_TRACE(b.name);
    expect_throw_key([&] { make_design(specs, s); }, "design.file", s.file + ":" + b.where + ": ");
    expect_throw_key([&] { make_design(specs, s); }, "design.file", b.also);
    std::remove(s.file.c_str());
  }
  DesignSpec s = DS(DesignKind::imported, 0);
  s.file = ::testing::TempDir() + "impact_design_does_not_exist.txt";
  expect_throw_key([&] { make_design(specs, s); }, "design.file", s.file + ": cannot open for reading");
}

// Imported columns declare themselves: with the scenario's parameters known, a header names any of
// them and no [params] entry is needed; a parameter fixed in [params] may not also be a column.
TEST(Design, ImportedColumnsDeclareThemselves) {
  const std::vector<std::string> known = {"a", "b", "c", "f", "g"};
  DesignSpec s = DS(DesignKind::imported, 0);
  s.file = write_temp("self.csv", "c, a\n1, 2\n3, 4\n");
  const auto des = make_design({F("f", 2)}, s, 0, known);
  EXPECT_EQ(des->names(), (std::vector<std::string>{"c", "a"}));
  EXPECT_EQ(all_rows(*des), (std::vector<double>{1, 2, 3, 4}));
  // a declared distribution for a column is accepted (its values come from the file); declared
  // columns come first, in [params] order
  const auto decl = make_design({U("a", 0, 1)}, s, 0, known);
  EXPECT_EQ(decl->names(), (std::vector<std::string>{"a", "c"}));
  EXPECT_EQ(all_rows(*decl), (std::vector<double>{2, 1, 4, 3}));
  // a declared distribution without a column, a fixed parameter with one, an unknown name
  expect_throw_key([&] { make_design({U("b", 0, 1)}, s, 0, known); }, "design.file", "missing b");
  expect_throw_key([&] { make_design({F("c", 1)}, s, 0, known); }, "design.file", s.file + ":1:1: 'c' is fixed in [params]");
  std::remove(s.file.c_str());
  s.file = write_temp("self_unknown.csv", "a z\n1 2\n");
  expect_throw_key([&] { make_design({}, s, 0, known); }, "design.file",
                   s.file + ":1:3: expected a header of scenario parameters (a, b, c, f, g); 'z' is not one of them");
  std::remove(s.file.c_str());
  // np.savetxt's header is a comment ("# c a"): taken as the header when its words are parameters
  // and as many as the first row's values; any other comment stays a comment
  s.file = write_temp("self_comment.txt", "# generated by SALib\n# c a\n1 2\n3 4\n");
  EXPECT_EQ(make_design({}, s, 0, known)->names(), (std::vector<std::string>{"c", "a"}));
  std::remove(s.file.c_str());
  s.file = write_temp("self_comment_short.txt", "# c\n1 2\n");
  expect_throw_key([&] { make_design({}, s, 0, known); }, "design.file", s.file + ":2:1: expected a header line");
  std::remove(s.file.c_str());
  s.file = write_temp("self_comment_fixed.txt", "# c a\n1 2\n");
  expect_throw_key([&] { make_design({F("a", 1)}, s, 0, known); }, "design.file", s.file + ":1:5: 'a' is fixed");
  std::remove(s.file.c_str());
  // no header and nothing declared: the columns have no names
  s.file = write_temp("self_nohdr.csv", "1 2\n");
  expect_throw_key([&] { make_design({}, s, 0, known); }, "design.file", s.file + ":1:1: expected a header line");
  std::remove(s.file.c_str());
}

// SALib's Saltelli matrix imported (design.kind = saltelli with a file) is the generated one when
// the values are the same, and its group structure is checked.
TEST(Design, SaltelliImportedFromFile) {
  const std::vector<ParamSpec> specs = {U("x1", -1, 1), N("x2", 0, 2), U("x3", 0, 5)};
  const auto gen = make_design(specs, DS(DesignKind::saltelli, 16));
  const auto rows = all_rows(*gen);
  const std::size_t d = 3, R = gen->rows();
  ASSERT_EQ(R, 16u * (d + 2));
  auto text = [&](std::size_t bad_row, std::size_t keep) {
    std::string t = "x1 x2 x3\n";  // SALib's order: AB_i replaces the file's column i
    char buf[128];
    for (std::size_t r = 0; r < keep; ++r) {
      double x[3] = {rows[r * d], rows[r * d + 1], rows[r * d + 2]};
      if (r == bad_row) x[1] = std::nextafter(x[1], 10.0);
      std::snprintf(buf, sizeof buf, "%.17g %.17g %.17g\n", x[0], x[1], x[2]);
      t += buf;
    }
    return t;
  };
  DesignSpec s = DS(DesignKind::saltelli, 0);
  s.file = write_temp("saltelli.txt", text(R, R));
  const auto imp = make_design({}, s, 0, {"x3", "x2", "x1"});
  ASSERT_EQ(imp->rows(), R);
  EXPECT_EQ(imp->names(), (std::vector<std::string>{"x1", "x2", "x3"}));
  const auto got = all_rows(*imp);
  EXPECT_EQ(got, rows);
  std::vector<double> y1(R), y2(R);
  for (std::size_t r = 0; r < R; ++r) {
    y1[r] = rows[r * d] + rows[r * d + 1] * rows[r * d + 2];
    y2[r] = got[r * d] + got[r * d + 1] * got[r * d + 2];
  }
  const SobolIndices a = sobol_indices(y1, d, 50, 0.95, 7), b = sobol_indices(y2, d, 50, 0.95, 7);
  EXPECT_EQ(a.S1, b.S1);
  EXPECT_EQ(a.ST, b.ST);
  std::remove(s.file.c_str());
  // an AB row that is not A with B's column (row 7 of the file = the 2nd group's AB_1)
  s.file = write_temp("saltelli_bad.txt", text(6, R));
  expect_throw_key(
      [&] {
        make_design({}, s, 0, {"x1", "x2", "x3"});
      },
      "design.file", s.file + ":8:1: expected a Saltelli matrix");
  std::remove(s.file.c_str());
  // a last group cut short
  s.file = write_temp("saltelli_short.txt", text(R, R - 2));
  expect_throw_key(
      [&] {
        make_design({}, s, 0, {"x1", "x2", "x3"});
      },
      "design.file", "expected N (d + 2) rows for a Saltelli matrix of d = 3 columns, found 78");
  std::remove(s.file.c_str());
}

// ---- Sobol indices ----------------------------------------------------------------------------------

namespace {

std::vector<double> evaluate(const Design& des, double (*f)(const double*)) {
  const auto m = all_rows(des);
  const std::size_t d = des.names().size();
  std::vector<double> y(des.rows());
  for (std::size_t r = 0; r < y.size(); ++r) y[r] = f(&m[r * d]);
  return y;
}

double ishigami(const double* x) {
  return std::sin(x[0]) + 7 * std::pow(std::sin(x[1]), 2) + 0.1 * std::pow(x[2], 4) * std::sin(x[0]);
}

}  // namespace

TEST(Sensitivity, IshigamiWithinConfidence) {
  const double a = 7, b = 0.1, pi4 = std::pow(kPi, 4), pi8 = std::pow(kPi, 8);
  // E[sin^2] = 1/2, Var(sin^2 x2) = 1/8, E[x^4] = pi^4/5, E[x^8] = pi^8/9 for x ~ U(-pi, pi)
  const double V = a * a / 8 + b * pi4 / 5 + b * b * pi8 / 18 + 0.5;
  const double V1 = 0.5 * (1 + b * pi4 / 5) * (1 + b * pi4 / 5), V2 = a * a / 8;
  const double V13 = b * b * pi8 * (1.0 / 18 - 1.0 / 50);  // = 8 b^2 pi^8 / 225
  ASSERT_NEAR(V1 + V2 + V13, V, 1e-12);
  const double S1[] = {V1 / V, V2 / V, 0.0}, ST[] = {(V1 + V13) / V, V2 / V, V13 / V};
  EXPECT_NEAR(S1[0], 0.3139, 1e-4);
  EXPECT_NEAR(S1[1], 0.4424, 1e-4);
  EXPECT_NEAR(ST[0], 0.5576, 1e-4);
  EXPECT_NEAR(ST[2], 0.2437, 1e-4);

  const auto des = make_design({U("x1", -kPi, kPi), U("x2", -kPi, kPi), F("unused", 1), U("x3", -kPi, kPi)},
                               DS(DesignKind::saltelli, std::size_t{1} << 13));
  const auto y = evaluate(*des, ishigami);
  const SobolIndices si = sobol_indices(y, 3, 1000, 0.95, 12345);
  EXPECT_EQ(si.used, std::size_t{1} << 13);
  for (int i = 0; i < 3; ++i) {
    std::printf("  ishigami x%d: S1 = %.4f +- %.4f (exact %.4f)   ST = %.4f +- %.4f (exact %.4f)\n", i + 1, si.S1[i],
                si.S1_conf[i], S1[i], si.ST[i], si.ST_conf[i], ST[i]);
    EXPECT_LE(std::abs(si.S1[i] - S1[i]), si.S1_conf[i]) << "S1 of x" << i + 1;
    EXPECT_LE(std::abs(si.ST[i] - ST[i]), si.ST_conf[i]) << "ST of x" << i + 1;
    // informative intervals
    EXPECT_LT(si.S1_conf[i], 0.05);
    EXPECT_LT(si.ST_conf[i], 0.05);
  }
}

TEST(Sensitivity, LinearModel) {
  // y = x1 + 2 x2 - 3 x3 with independent inputs: S1_i = ST_i = c_i^2 Var_i / sum_j c_j^2 Var_j
  const std::vector<ParamSpec> specs = {U("x1", 0, 1), N("x2", 1, 0.5), LN("x3", 0, 0.3)};
  const double c[] = {1, 2, -3};
  double parts[3], total = 0;
  for (int i = 0; i < 3; ++i) total += parts[i] = c[i] * c[i] * specs[i].variance();
  const auto des = make_design(specs, DS(DesignKind::saltelli, 4096));
  const auto y = evaluate(*des, [](const double* x) { return 1000 + x[0] + 2 * x[1] - 3 * x[2]; });
  const SobolIndices si = sobol_indices(y, 3, 500, 0.95, 7);
  for (int i = 0; i < 3; ++i) {
    const double exact = parts[i] / total;
    EXPECT_LE(std::abs(si.S1[i] - exact), si.S1_conf[i]) << "S1 of x" << i + 1 << " = " << si.S1[i] << " vs " << exact;
    EXPECT_LE(std::abs(si.ST[i] - exact), si.ST_conf[i]) << "ST of x" << i + 1 << " = " << si.ST[i] << " vs " << exact;
    EXPECT_NEAR(si.S1[i], exact, 0.02);
    EXPECT_NEAR(si.ST[i], exact, 0.02);
  }
}

TEST(Sensitivity, EstimatorsByHand) {
  // d = 1, three base rows (A, AB_1, B); c = mean of all nine outputs
  const std::vector<double> y = {1, 2, 3, /**/ 2, 2, 0, /**/ 4, 1, 1};
  double c = 0;
  for (double v : y) c += v;
  c /= 9;
  const double fA[] = {1, 2, 4}, fAB[] = {2, 2, 1}, fB[] = {3, 0, 1};
  double m = 0, var = 0, s1 = 0, st = 0;
  for (int j = 0; j < 3; ++j) m += (fA[j] + fB[j]) / 6;
  for (int j = 0; j < 3; ++j) var += ((fA[j] - m) * (fA[j] - m) + (fB[j] - m) * (fB[j] - m)) / 6;
  for (int j = 0; j < 3; ++j) {
    s1 += (fB[j] - c) * (fAB[j] - fA[j]) / 3;
    st += 0.5 * (fA[j] - fAB[j]) * (fA[j] - fAB[j]) / 3;
  }
  const SobolIndices si = sobol_indices(y, 1, 20, 0.9, 1);
  EXPECT_NEAR(si.S1[0], s1 / var, 1e-14);
  EXPECT_NEAR(si.ST[0], st / var, 1e-14);
  EXPECT_EQ(si.used, 3u);
  EXPECT_GT(si.S1_conf[0], 0);
  // a non-finite output drops its base row only
  std::vector<double> y2 = y;
  y2.insert(y2.begin() + 3, {5, kNaN, 6});
  const SobolIndices s2 = sobol_indices(y2, 1, 20, 0.9, 1);
  EXPECT_EQ(s2.used, 3u);
  EXPECT_EQ(s2.S1, si.S1);
  EXPECT_EQ(s2.ST, si.ST);
  // deterministic for a seed
  EXPECT_EQ(sobol_indices(y, 1, 20, 0.9, 1).S1_conf, si.S1_conf);
}

TEST(Sensitivity, BadInputs) {
  const std::vector<double> y(4 * 4, 1.0);                                 // d = 2: 4 per base row, N = 4
  EXPECT_THROW(sobol_indices(y, 3, 100, 0.95, 1), std::invalid_argument);  // 16 is not N * 5
  EXPECT_THROW(sobol_indices({}, 2, 100, 0.95, 1), std::invalid_argument);
  EXPECT_THROW(sobol_indices(y, 2, 5, 0.95, 1), std::invalid_argument);   // bootstrap < 10
  EXPECT_THROW(sobol_indices(y, 2, 100, 1.0, 1), std::invalid_argument);  // conf
  EXPECT_THROW(sobol_indices(y, 0, 100, 0.95, 1), std::invalid_argument);
  std::vector<double> bad = y;
  for (std::size_t j = 0; j < 4; ++j) bad[j * 4 + 1] = kInf;  // only one usable base row
  EXPECT_THROW(sobol_indices(bad, 2, 100, 0.95, 1), std::invalid_argument);
  const SobolIndices flat = sobol_indices(y, 2, 10, 0.95, 1);  // constant output: undefined
  EXPECT_TRUE(std::isnan(flat.S1[0]));
  EXPECT_TRUE(std::isnan(flat.ST[1]));
}

// ---- the design's quantiles, bit for bit --------------------------------------------------------
// The inverse CDFs the designs sample through (rmath: no libm, no x87), pinned by their bits so that
// a machine that gave other samples names the value here. pencil-mc's own marginals are among them
// (theta and V0z truncated normals, V0x..w03 normals); the bits were written on an Intel Xeon and
// hold on any IEEE machine (include/impact/rmath.hpp).
namespace {
struct QuantilePin {
  const char* what;
  ParamSpec spec;
  double u;
  std::uint64_t bits;
};
std::uint64_t bits_of_double(double x) {
  std::uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}
}  // namespace

TEST(DesignQuantiles, PinnedBits) {
  const ParamSpec theta = TN("theta", 1.0471975511965976, 0.12, 0.8, 1.5707963267948966);
  const ParamSpec v0z = TN("V0z", -2.5, 0.4, -5.0, -0.5);
  const ParamSpec v0x = N("V0x", -4.330127018922193, 0.5);
  const ParamSpec upper = TN("u", 0.0, 1.0, 3.0, 5.0);      // both bounds in the upper tail
  const ParamSpec lower = TN("l", 0.0, 1.0, -8.0, -2.5);    // both in the lower tail
  const ParamSpec half = TN("h", 1.0, 2.0, 1.0, HUGE_VAL);  // a half-normal
  const ParamSpec ln = LN("ln", -0.5, 0.8);
  const QuantilePin pins[] = {
      {"theta(0.001)", theta, 0.001, 0x3fe9ad58cb81ca90ull},
      {"theta(0.3)", theta, 0.3, 0x3fefa5bac4ef7a15ull},
      {"theta(0.5)", theta, 0.5, 0x3ff0cd745220c7d6ull},
      {"theta(0.97)", theta, 0.97, 0x3ff4620720742a01ull},
      {"V0z(2^-64)", v0z, 0x1p-64, 0xc013ffffffffb76cull},
      {"V0z(0.25)", v0z, 0.25, 0xc006288accd03b04ull},
      {"V0z(0.8)", v0z, 0.8, 0xc0014e8b680b9ddfull},
      {"V0x(1e-9)", v0x, 1e-9, 0xc01d50ed60d98abeull},
      {"V0x(0.5)", v0x, 0.5, 0xc011520cd1372feaull},
      {"V0x(0.6180339887)", v0x, 0.6180339887, 0xc010b84917b73b6dull},
      {"V0x(1-2^-53)", v0x, 1.0 - 0x1p-53, 0xbfccd88fd548b300ull},
      {"upper(0.01)", upper, 0.01, 0x40080643ee7a42f6ull},
      {"upper(0.5)", upper, 0.5, 0x4009a40838f6fdddull},
      {"upper(0.99)", upper, 0.99, 0x4010c552d6f22020ull},
      {"lower(0.01)", lower, 0.01, 0xc00eb39ac7ec0a21ull},
      {"lower(0.5)", lower, 0.5, 0xc005e459f337957dull},
      {"lower(0.99)", lower, 0.99, 0xc0040749a5b68d5aull},
      {"half(0.1)", half, 0.1, 0x3ff4056af1e3a4b5ull},
      {"half(0.9)", half, 0.9, 0x401128a904b3b55eull},
      {"ln(0.05)", ln, 0.05, 0x3fc4d329e268c84aull},
      {"ln(0.5)", ln, 0.5, 0x3fe368b2fc6f960aull},
      {"ln(0.999)", ln, 0.999, 0x401cbed72724335eull},
  };
  for (const QuantilePin& p : pins) {
    const double x = p.spec.quantile(p.u);
    char got[40];
    std::snprintf(got, sizeof got, "0x%016llx", static_cast<unsigned long long>(bits_of_double(x)));
    char want[40];
    std::snprintf(want, sizeof want, "0x%016llx", static_cast<unsigned long long>(p.bits));
    EXPECT_STREQ(got, want) << p.what << " = " << x;
  }
}

// log_pdf: the derivative of the CDF (central differences), and the support's edges.
TEST(ParamSpec, LogPdfIsTheCdfsDerivative) {
  const ParamSpec specs[] = {U("x", -1, 3), N("x", 0.5, 2), LN("x", 0.2, 0.7), TN("x", 1, 0.5, 0, 2), TN("x", 0, 1, 3, kInf)};
  const double xs[] = {-0.5, 0.1, 0.9, 1.7, 3.4, 5.0};
  for (const ParamSpec& p : specs) {
    for (double x : xs) {
      const double h = 1e-5, d = (p.cdf(x + h) - p.cdf(x - h)) / (2 * h);
      const double lp = p.log_pdf(x);
      if (d == 0) {
        EXPECT_EQ(lp, -kInf) << p.describe() << " at " << x;
        continue;
      }
      EXPECT_NEAR(std::exp(lp), d, 1e-6 * std::max(1.0, d)) << p.describe() << " at " << x;
    }
  }
  EXPECT_EQ(U("x", 0, 1).log_pdf(1.5), -kInf);
  EXPECT_EQ(LN("x", 0, 1).log_pdf(0.0), -kInf);
  EXPECT_EQ(N("x", 0, 1).log_pdf(kInf), -kInf);
  EXPECT_TRUE(std::isnan(N("x", 0, 1).log_pdf(kNaN)));
  EXPECT_THROW(P("x", ParamKind::fixed, 1).log_pdf(1), std::invalid_argument);
}

// Second order (Saltelli 2002): the Ishigami function's only interaction is x1 x3, S13 = V13 / V =
// 8 b^2 pi^8 / 225 / V = 0.2437; S12 = S23 = 0. The layout is SALib's calc_second_order = True: per
// base row A, AB_1..AB_d, BA_1..BA_d, B, BA_i = B with A's column i.
TEST(Sensitivity, IshigamiSecondOrderWithinConfidence) {
  const double a = 7, b = 0.1, pi4 = std::pow(kPi, 4), pi8 = std::pow(kPi, 8);
  const double V = a * a / 8 + b * pi4 / 5 + b * b * pi8 / 18 + 0.5, S13 = b * b * pi8 * (1.0 / 18 - 1.0 / 50) / V;
  EXPECT_NEAR(S13, 0.2437, 1e-4);
  DesignSpec spec = DS(DesignKind::saltelli, std::size_t{1} << 13);
  spec.second_order = true;
  const auto des = make_design({U("x1", -kPi, kPi), U("x2", -kPi, kPi), U("x3", -kPi, kPi)}, spec);
  ASSERT_EQ(des->rows(), (std::size_t{1} << 13) * 8);
  const auto m = all_rows(*des);
  for (std::size_t j = 0; j < 64; ++j) {  // the layout, row by row
    const double* g = &m[j * 8 * 3];
    const double *A = g, *B = g + 7 * 3;
    for (std::size_t t = 1; t <= 6; ++t)
      for (std::size_t k = 0; k < 3; ++k) {
        const std::size_t i = t <= 3 ? t - 1 : t - 4;
        const double want = t <= 3 ? (k == i ? B[k] : A[k]) : (k == i ? A[k] : B[k]);
        ASSERT_EQ(g[t * 3 + k], want) << "base row " << j << " row " << t << " column " << k;
      }
  }
  const auto y = evaluate(*des, ishigami);
  const SobolIndices si = sobol_indices(y, 3, 1000, 0.95, 12345, true);
  const double exact[3][3] = {{0, 0, S13}, {0, 0, 0}, {0, 0, 0}};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      const double v = si.S2[i * 3 + j], h = si.S2_conf[i * 3 + j];
      if (j <= i) {
        EXPECT_TRUE(std::isnan(v) && std::isnan(h)) << i << j;
        continue;
      }
      std::printf("  ishigami S2 x%d x%d = %.4f +- %.4f (exact %.4f)\n", i + 1, j + 1, v, h, exact[i][j]);
      EXPECT_LE(std::abs(v - exact[i][j]), h) << "S2 of x" << i + 1 << " x" << j + 1;
      EXPECT_LT(h, 0.1);
    }
  // the first-order and total indices are the first-order layout's estimators on the same A, AB, B
  std::vector<double> first;
  for (std::size_t j = 0; j < y.size() / 8; ++j) {
    for (std::size_t t = 0; t <= 3; ++t) first.push_back(y[j * 8 + t]);
    first.push_back(y[j * 8 + 7]);
  }
  // (c, the mean all outputs are centred on, includes the BA rows: equal to rounding, not bits)
  const SobolIndices f = sobol_indices(first, 3, 1000, 0.95, 12345);
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR(si.S1[i], f.S1[i], 0.02);
    EXPECT_DOUBLE_EQ(si.ST[i], f.ST[i]);
  }
}
