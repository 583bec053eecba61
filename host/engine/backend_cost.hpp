// A backend's time for one batch as a fixed cost plus rows over a rate, from batches timed in the
// running process: what `auto` weighs where batches are small and many (a calibration evaluates
// thousands of batches of a few hundred rows, where the GPU's launch, copies and wait per batch, not
// its rate, decide). docs/architecture.md, "Choosing the backend".
#pragma once
#include <string>
#include <vector>

#include "engine/options.hpp"

namespace impact::engine {

struct BatchCost {
  Backend backend = Backend::omp;
  double fixed_s = 0;     // per batch, whatever its rows
  double rows_per_s = 0;  // the marginal rate; infinite when the time did not grow with the rows
  double seconds(double rows) const { return fixed_s + rows / rows_per_s; }
};

// The line through two timed batches of a < b rows taking ta and tb seconds: rate (b - a) / (tb - ta),
// the fixed cost what is left of ta (at least 0). When tb <= ta (the rows' time is below the timer's
// noise), the whole time is fixed: min(ta, tb), at an infinite rate.
BatchCost cost_from_two_batches(Backend b, double a, double ta, double rows_b, double tb);

// "omp 12.3 us + rows / 1.25e+06/s" (or "omp 12.3 us, rows not measurable").
std::string cost_text(const BatchCost& c);

// The cheapest of `costs` for a batch of `rows` rows (the first of equal times), and why: each
// backend's line and its modelled time for such a batch.
struct CostPick {
  std::size_t best = 0;
  std::string why;
};
CostPick cheapest(const std::vector<BatchCost>& costs, double rows);

}  // namespace impact::engine
