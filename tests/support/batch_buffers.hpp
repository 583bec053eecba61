// Batches for backend tests: the instances in engine::InputColumns and the outputs in
// engine::OutputColumns pre-filled with sentinels, so an unwritten row shows.
#pragma once
#include <cstdint>
#include <vector>

#include "engine/columns.hpp"
#include "impact/stats.hpp"
#include "random_instances.hpp"

namespace impact::testing {

namespace ri = impact::randinst;

template <class T>
struct Buffers {
  engine::InputColumns<T> in;
  engine::OutputColumns<T> out;
  BatchIn<T> bin{};
  BatchOut<T> bout{};
  explicit Buffers(const std::vector<ContactProblem<double>>& ps) {
    const std::size_t n = ps.size();
    in.resize(n);
    for (std::size_t i = 0; i < n; ++i) in.set(i, ps[i]);
    out.fill_sentinel(n);
    bin = in.view(nullptr, 0, n);
    bout = out.view();
  }
};

// Histogram ranges of the summary quantities (P_n, P_t, vf_n, dE/K0) for reduction tests, each
// quantity's grid from its range.
inline SummaryRanges summary_ranges(const double (&lo)[kNumQuantities], const double (&hi)[kNumQuantities]) {
  return with_range_grid(lo, hi);
}

// Mixed random instances: realizable two-body rows and planar rows (so morgan has work).
inline std::vector<ContactProblem<double>> instances(std::size_t n) {
  ri::Rng rng(4242);
  std::vector<ContactProblem<double>> ps;
  for (std::size_t i = 0; i < n; ++i)
    ps.push_back(i % 3 == 0 ? ri::random_planar_problem(rng, {0.0, 1.5}) : ri::random_contact_problem(rng, {0.0, 1.5}));
  return ps;
}

}  // namespace impact::testing
