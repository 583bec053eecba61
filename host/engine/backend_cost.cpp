#include "engine/backend_cost.hpp"

#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace impact::engine {

BatchCost cost_from_two_batches(Backend b, double a, double ta, double rows_b, double tb) {
  if (!(a > 0 && rows_b > a && ta >= 0 && tb >= 0))
    throw std::invalid_argument("cost_from_two_batches: expected 0 < a < b rows and times >= 0");
  BatchCost c;
  c.backend = b;
  if (tb <= ta) {
    c.fixed_s = tb;
    c.rows_per_s = HUGE_VAL;
    return c;
  }
  c.rows_per_s = (rows_b - a) / (tb - ta);
  const double left = ta - a / c.rows_per_s;
  c.fixed_s = left > 0 ? left : 0.0;
  return c;
}

namespace {

std::string seconds_text(double s) {
  char t[32];
  if (s < 1e-3) std::snprintf(t, sizeof t, "%.3g us", s * 1e6);
  else if (s < 1) std::snprintf(t, sizeof t, "%.3g ms", s * 1e3);
  else std::snprintf(t, sizeof t, "%.3g s", s);
  return t;
}

}  // namespace

std::string cost_text(const BatchCost& c) {
  std::string t = std::string(backend_name(c.backend)) + " " + seconds_text(c.fixed_s);
  if (std::isinf(c.rows_per_s)) return t + ", rows not measurable";
  char r[32];
  std::snprintf(r, sizeof r, "%.3g/s", c.rows_per_s);
  return t + " + rows / " + r;
}

CostPick cheapest(const std::vector<BatchCost>& costs, double rows) {
  if (costs.empty()) throw std::invalid_argument("cheapest: no backend to choose from");
  CostPick p;
  char n[32];
  std::snprintf(n, sizeof n, "%.0f", rows);
  std::string lines;
  for (std::size_t k = 0; k < costs.size(); ++k) {
    if (costs[k].seconds(rows) < costs[p.best].seconds(rows)) p.best = k;
    lines += (k ? "; " : "") + cost_text(costs[k]) + " = " + seconds_text(costs[k].seconds(rows));
  }
  p.why = lines + " for a batch of " + n + " rows: " + backend_name(costs[p.best].backend);
  return p;
}

}  // namespace impact::engine
