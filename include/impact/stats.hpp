// Streaming statistics. A batch's summary (BatchSummary: `impact reduce`, the sampled and batch
// reductions of every backend) holds per quantity exact sums (SumMoments, impact/exact_sums.hpp),
// min, max and a fixed-bin histogram, plus row-status counts: every piece is a POD monoid whose
// merge is integer addition (or min/max), so the summary is the same bits in any order, on any
// backend, for any chunking, thread or process count. A study's per-column statistics, whose scale
// is not known in advance, use Moments (Chan et al.'s pairwise merge of Welford accumulators),
// folded in a fixed order (host/study/run.cpp).
#pragma once
#include <cstdint>
#include <limits>

#include "impact/derived.hpp"
#include "impact/exact_sums.hpp"
#include "impact/problem.hpp"

namespace impact {

struct Moments {
  double n, mean, m2, min, max;
  IMPACT_HDI static Moments identity() { return Moments{0.0, 0.0, 0.0, 1.0 / 0.0, -1.0 / 0.0}; }
  IMPACT_HDI static Moments of(double x) { return Moments{1.0, x, 0.0, x, x}; }
  IMPACT_HDI double variance() const { return n > 1 ? m2 / (n - 1) : 0.0; }
};

IMPACT_HDI Moments merge(const Moments& a, const Moments& b) {
  if (a.n == 0) return b;
  if (b.n == 0) return a;
  Moments r;
  r.n = a.n + b.n;
  const double d = b.mean - a.mean;
  r.mean = a.mean + d * (b.n / r.n);
  r.m2 = a.m2 + b.m2 + d * d * (a.n * b.n / r.n);
  r.min = a.min < b.min ? a.min : b.min;
  r.max = a.max > b.max ? a.max : b.max;
  return r;
}

// The moments of one quantity over the ok rows, on the grid of its data's scale 2^e
// (SummaryRanges::grid): n values in
// the exact sums, the near tier (|x| < 2^(e + 24)) or the wide one (|x| < 2^(e + 72)); `far` values
// counted but not summed (non-finite, or beyond both: the mean and sd are then NaN, never a mix of
// summed and rounded values); min and max over the finite values.
struct SumMoments {
  std::uint64_t n, far;
  exact::Sums<3, 4> sums, wide;  // the near tier (grid 2^(e - 60)) and the wide one (2^(e - 12))
  double min, max;
  std::int32_t e, unused_;
  IMPACT_HDI static SumMoments identity(int e) {
    SumMoments m;
    m.n = m.far = 0;
    m.sums = m.wide = exact::Sums<3, 4>::zero();
    m.min = 1.0 / 0.0;
    m.max = -1.0 / 0.0;
    m.e = e;
    m.unused_ = 0;
    return m;
  }
  IMPACT_HDI void add(double x) {
    exact::Fixed f;
    if (exact::quantize(x, e, f)) {
      ++n;
      sums.add(f);
    } else if (exact::quantize(x, e + exact::kWideShift, f)) {
      ++n;
      wide.add(f);
    } else {
      ++far;
    }
    if (x - x == 0) {  // finite
      min = exact::before(x, min) ? x : min;
      max = exact::before(max, x) ? x : max;
    }
  }
  IMPACT_HDI std::uint64_t count() const { return n + far; }
  // host only: NaN without values, or when some were not summed
  double mean() const { return n && !far ? exact::mean_of(sums, wide, n, e) : nan(); }
  double sd() const { return n > 1 && !far ? exact::sd_of(sums, wide, n, e) : nan(); }
  double variance() const { return n > 1 && !far ? exact::variance_of(sums, wide, n, e) : nan(); }
  static double nan() { return std::numeric_limits<double>::quiet_NaN(); }
};

IMPACT_HDI SumMoments merge(const SumMoments& a, const SumMoments& b) {
  SumMoments r = a;
  r.n += b.n;
  r.far += b.far;
  r.sums.add(b.sums);
  r.wide.add(b.wide);
  r.min = exact::before(b.min, a.min) ? b.min : a.min;
  r.max = exact::before(a.max, b.max) ? b.max : a.max;
  return r;
}

// Fixed bins on [lo, hi) plus underflow (bin 0) and overflow (bin kBins + 1).
struct Histogram {
  static constexpr int kBins = 32;
  double lo, hi;
  std::uint64_t count[kBins + 2];
  IMPACT_HDI static Histogram empty(double lo_, double hi_) {
    Histogram h{};
    h.lo = lo_;
    h.hi = hi_;
    for (std::uint64_t& c : h.count) c = 0;
    return h;
  }
  IMPACT_HDI int bin(double x) const {
    if (!(x >= lo)) return 0;
    if (!(x < hi)) return kBins + 1;
    int b = 1 + static_cast<int>((x - lo) / (hi - lo) * kBins);
    return b > kBins ? kBins : b;
  }
  IMPACT_HDI void add(double x) { ++count[bin(x)]; }
};

IMPACT_HDI Histogram merge(const Histogram& a, const Histogram& b) {
  Histogram r = a;
  for (int i = 0; i < Histogram::kBins + 2; ++i) r.count[i] += b.count[i];
  return r;
}

// The quantities summarised for every law: normal impulse, tangential impulse magnitude,
// separation velocity, energy ratio dE / K0.
enum SummaryQuantity { kPn = 0, kPt = 1, kVfn = 2, kEnergyRatio = 3, kNumQuantities = 4 };

struct BatchSummary {
  std::uint64_t status[static_cast<int>(Status::count_)];
  SumMoments q[kNumQuantities];
  Histogram h[kNumQuantities];
};

// What a summary fixes before its rows, per quantity: its histogram's range [lo, hi), and the
// exponent e of its exact sums' grid, 2^(e - 60) (impact/exact_sums.hpp). The grid is the data's
// scale, not the histogram's: a histogram over [0, 1e20] of values near 1 would put them on a grid
// of 2^-60 of 1e20 = 87, where each rounds to 0 (`impact reduce` takes e from its pilot's range
// whatever --range gives the histogram; with_range_grid is the plain rule for a given range).
struct SummaryRanges {
  double lo[kNumQuantities], hi[kNumQuantities];
  std::int32_t grid[kNumQuantities];
};

// Histogram ranges with each quantity's grid from its range's scale.
IMPACT_HDI SummaryRanges with_range_grid(const double (&lo)[kNumQuantities], const double (&hi)[kNumQuantities]) {
  SummaryRanges r;
  for (int k = 0; k < kNumQuantities; ++k) r.lo[k] = lo[k], r.hi[k] = hi[k], r.grid[k] = exact::range_exponent(lo[k], hi[k]);
  return r;
}

IMPACT_HDI BatchSummary summary_identity(const SummaryRanges& r) {
  BatchSummary s{};
  for (std::uint64_t& c : s.status) c = 0;
  for (int k = 0; k < kNumQuantities; ++k) {
    s.q[k] = SumMoments::identity(r.grid[k]);
    s.h[k] = Histogram::empty(r.lo[k], r.hi[k]);
  }
  return s;
}

IMPACT_HDI BatchSummary merge(const BatchSummary& a, const BatchSummary& b) {
  BatchSummary r;
  for (int i = 0; i < static_cast<int>(Status::count_); ++i) r.status[i] = a.status[i] + b.status[i];
  for (int k = 0; k < kNumQuantities; ++k) {
    r.q[k] = merge(a.q[k], b.q[k]);
    r.h[k] = merge(a.h[k], b.h[k]);
  }
  return r;
}

// Whether two summaries can be merged: the same grid of the exact sums and the same histogram
// ranges, for every quantity (merge() adds integers, which is meaningful on one grid only). Host
// code checks it where summaries come from elsewhere (a checkpoint's files, other processes).
inline bool same_grid(const BatchSummary& a, const BatchSummary& b) {
  for (int k = 0; k < kNumQuantities; ++k)
    if (a.q[k].e != b.q[k].e || !(a.h[k].lo == b.h[k].lo) || !(a.h[k].hi == b.h[k].hi)) return false;
  return true;
}

// The summary of one evaluated row (p validated or not: the row's status decides).
template <class T>
IMPACT_HDI BatchSummary summarize_row(const ContactProblem<T>& p, const Result<T>& res, const SummaryRanges& rg) {
  BatchSummary s = summary_identity(rg);
  s.status[static_cast<int>(res.status)] = 1;
  if (res.status != Status::ok) return s;
  double x[kNumQuantities];
  summary_quantities(p, res, x);
  for (int k = 0; k < kNumQuantities; ++k) {
    s.q[k].add(x[k]);
    s.h[k].add(x[k]);
  }
  return s;
}

}  // namespace impact
