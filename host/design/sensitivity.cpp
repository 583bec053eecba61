// First-order and total Sobol indices from a Saltelli design (design/sensitivity.hpp).
//
// S_i  = mean(fB (fAB_i - fA)) / V          (Saltelli et al. 2010, table 2 (b))
// ST_i = 0.5 mean((fA - fAB_i)^2) / V       (Jansen 1999, Saltelli et al. 2010 table 2 (f))
// V    = population variance of [fA; fB]    (as SALib)
// As SALib, fB is first centred on the mean c of all the outputs in use (A, AB_i and B rows): the
// estimator is unchanged in expectation and loses the noise of a large output offset. c is computed
// once; the bootstrap replicates reuse it (SALib normalises Y once before resampling).
// Confidence: normal bootstrap over base rows, half-width z_{(1+conf)/2} sd(replicates) (ddof 1).
#include "design/sensitivity.hpp"

#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>

#include "impact/rmath.hpp"

namespace impact::design {

namespace {

struct Base {
  std::size_t n = 0, d = 0;
  std::vector<double> fA, fB, fAB, fBA;  // fAB[j * d + i], fBA likewise (second order only)
};

// V, the population variance of [fA; fB] over the base rows idx (as SALib).
double pooled_variance(const Base& b, const std::vector<std::size_t>& idx) {
  const double m = static_cast<double>(idx.size());
  double sum = 0, sum2 = 0;
  for (std::size_t j : idx) sum += b.fA[j] + b.fB[j];
  const double mean = sum / (2.0 * m);
  for (std::size_t j : idx) {
    const double x = b.fA[j] - mean, y = b.fB[j] - mean;
    sum2 += x * x + y * y;
  }
  return sum2 / (2.0 * m);
}

// Indices for the base rows idx[0..m) (a bootstrap resample, or every row), V their pooled_variance.
void estimate(const Base& b, double c, const std::vector<std::size_t>& idx, double var, std::vector<double>& S1,
              std::vector<double>& ST) {
  const std::size_t m = idx.size(), d = b.d;
  S1.assign(d, 0.0);
  ST.assign(d, 0.0);
  for (std::size_t j : idx) {
    const double fa = b.fA[j], fb = b.fB[j] - c;
    for (std::size_t i = 0; i < d; ++i) {
      const double diff = b.fAB[j * d + i] - fa;
      S1[i] += fb * diff;
      ST[i] += diff * diff;
    }
  }
  for (std::size_t i = 0; i < d; ++i) {
    S1[i] = var > 0 ? S1[i] / static_cast<double>(m) / var : std::numeric_limits<double>::quiet_NaN();
    ST[i] = var > 0 ? 0.5 * ST[i] / static_cast<double>(m) / var : std::numeric_limits<double>::quiet_NaN();
  }
}

// Second-order indices for the base rows idx (i < j; NaN elsewhere), every output centred on c as
// SALib normalises its Y: V_ij = mean(fBA_i fAB_j - fA fB) / V, S2_ij = V_ij - S_i - S_j.
void estimate2(const Base& b, double c, const std::vector<std::size_t>& idx, double var, const std::vector<double>& S1,
               std::vector<double>& S2) {
  const std::size_t m = idx.size(), d = b.d;
  S2.assign(d * d, std::numeric_limits<double>::quiet_NaN());
  for (std::size_t p = 0; p < d; ++p)
    for (std::size_t q = p + 1; q < d; ++q) {
      double v = 0;
      for (std::size_t j : idx) v += (b.fBA[j * d + p] - c) * (b.fAB[j * d + q] - c) - (b.fA[j] - c) * (b.fB[j] - c);
      S2[p * d + q] = var > 0 ? v / static_cast<double>(m) / var - S1[p] - S1[q] : std::numeric_limits<double>::quiet_NaN();
    }
}

// The bootstrap replicates' spread, element by element: Welford's running mean and sum of squared
// deviations (a NaN element stays NaN).
struct Spread {
  std::vector<double> mean, sq;
  std::size_t k = 0;
  void add(const std::vector<double>& x) {
    if (mean.empty()) mean.assign(x.size(), 0.0), sq.assign(x.size(), 0.0);
    const double n = static_cast<double>(++k);
    for (std::size_t i = 0; i < x.size(); ++i) {
      const double dl = x[i] - mean[i];
      mean[i] += dl / n;
      sq[i] += dl * (x[i] - mean[i]);
    }
  }
  // z times the sample sd (k - 1) of each element.
  std::vector<double> half_width(double z) const {
    std::vector<double> h(sq.size());
    for (std::size_t i = 0; i < sq.size(); ++i) h[i] = z * std::sqrt(sq[i] / static_cast<double>(k - 1));
    return h;
  }
};

}  // namespace

SobolIndices sobol_indices(const std::vector<double>& y, std::size_t d, std::size_t bootstrap, double conf, std::uint64_t seed,
                           bool second_order) {
  if (d == 0) throw std::invalid_argument("sobol_indices: needs at least one parameter (d = 0)");
  const std::size_t per = second_order ? 2 * d + 2 : d + 2;
  if (y.empty() || y.size() % per != 0)
    throw std::invalid_argument("sobol_indices: " + std::to_string(y.size()) + " outputs are not N " +
                                (second_order ? "(2d + 2)" : "(d + 2)") + " with d = " + std::to_string(d));
  if (bootstrap < 10)
    throw std::invalid_argument("sobol_indices: bootstrap must be at least 10 (got " + std::to_string(bootstrap) + ")");
  if (!(conf > 0 && conf < 1)) throw std::invalid_argument("sobol_indices: conf must be in (0, 1)");

  const std::size_t N = y.size() / per;
  Base b;
  b.d = d;
  for (std::size_t j = 0; j < N; ++j) {
    const double* r = y.data() + j * per;
    bool ok = true;
    for (std::size_t t = 0; t < per; ++t) ok = ok && std::isfinite(r[t]);
    if (!ok) continue;
    b.fA.push_back(r[0]);
    b.fB.push_back(r[per - 1]);
    for (std::size_t i = 0; i < d; ++i) b.fAB.push_back(r[1 + i]);
    if (second_order)
      for (std::size_t i = 0; i < d; ++i) b.fBA.push_back(r[1 + d + i]);
  }
  b.n = b.fA.size();
  if (b.n < 2)
    throw std::invalid_argument("sobol_indices: " + std::to_string(b.n) + " of " + std::to_string(N) +
                                " base rows have finite outputs; at least 2 are needed");

  SobolIndices out;
  out.used = b.n;
  std::vector<std::size_t> idx(b.n);
  for (std::size_t j = 0; j < b.n; ++j) idx[j] = j;
  double c = 0;
  for (std::size_t j = 0; j < b.n; ++j) {
    c += b.fA[j] + b.fB[j];
    for (std::size_t i = 0; i < d; ++i) c += b.fAB[j * d + i];
    if (second_order)
      for (std::size_t i = 0; i < d; ++i) c += b.fBA[j * d + i];
  }
  c /= static_cast<double>(b.n * per);
  const double var = pooled_variance(b, idx);
  estimate(b, c, idx, var, out.S1, out.ST);
  if (second_order) estimate2(b, c, idx, var, out.S1, out.S2);

  // bootstrap: resample base rows with replacement
  std::mt19937_64 gen(seed);
  std::uniform_int_distribution<std::size_t> pick(0, b.n - 1);
  std::vector<double> s1, st, s2;
  Spread r1, rt, r2;
  for (std::size_t rep = 0; rep < bootstrap; ++rep) {
    for (auto& j : idx) j = pick(gen);
    const double v = pooled_variance(b, idx);
    estimate(b, c, idx, v, s1, st);
    r1.add(s1);
    rt.add(st);
    if (second_order) {
      estimate2(b, c, idx, v, s1, s2);
      r2.add(s2);
    }
  }
  const double z = rmath::normal_quantile(0.5 * (1.0 + conf));
  out.S1_conf = r1.half_width(z);
  out.ST_conf = rt.half_width(z);
  if (second_order) out.S2_conf = r2.half_width(z);  // NaN on and below the diagonal, as S2
  return out;
}

}  // namespace impact::design
