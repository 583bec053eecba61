// The batch cost model of `auto` (host/engine/backend_cost.hpp): a line through two timed batches,
// and the cheapest backend for a batch size, which moves from the one of least fixed cost to the
// one of highest rate as batches grow.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "engine/backend_cost.hpp"

using impact::engine::Backend;
using impact::engine::BatchCost;
using impact::engine::cheapest;
using impact::engine::cost_from_two_batches;
using impact::engine::cost_text;

TEST(BackendCost, TheLineThroughTwoBatches) {
  // 40 us + rows / 5e7/s, timed at 192 and 1536 rows
  const BatchCost c = cost_from_two_batches(Backend::cuda, 192, 40e-6 + 192 / 5e7, 1536, 40e-6 + 1536 / 5e7);
  EXPECT_NEAR(c.fixed_s, 40e-6, 1e-15);
  EXPECT_NEAR(c.rows_per_s, 5e7, 1e-3);
  EXPECT_NEAR(c.seconds(1e6), 40e-6 + 0.02, 1e-12);
  // a larger batch no slower (timer noise): all fixed, at the smaller of the two times
  const BatchCost flat = cost_from_two_batches(Backend::omp, 24, 9e-6, 192, 8e-6);
  EXPECT_EQ(flat.fixed_s, 8e-6);
  EXPECT_TRUE(std::isinf(flat.rows_per_s));
  EXPECT_EQ(flat.seconds(1e9), 8e-6);
  EXPECT_EQ(cost_text(flat), "omp 8 us, rows not measurable");
  // a line that would start below 0 starts at 0
  EXPECT_EQ(cost_from_two_batches(Backend::omp, 100, 1e-6, 200, 3e-6).fixed_s, 0.0);
  EXPECT_THROW(cost_from_two_batches(Backend::omp, 200, 1e-6, 100, 3e-6), std::invalid_argument);
  EXPECT_THROW(cost_from_two_batches(Backend::omp, 0, 1e-6, 100, 3e-6), std::invalid_argument);
}

TEST(BackendCost, SmallBatchesGoToTheLeastFixedCostLargeOnesToTheHighestRate) {
  const BatchCost omp{Backend::omp, 5e-6, 2e6}, cuda{Backend::cuda, 40e-6, 5e7};
  // 24 rows: omp 17 us against cuda 40.5 us; 1e6 rows: omp 0.5 s against cuda 20 ms
  EXPECT_EQ(cheapest({omp, cuda}, 24).best, 0u);
  EXPECT_EQ(cheapest({omp, cuda}, 1e6).best, 1u);
  // the crossover, fixed cost difference over the difference of the inverse rates: 72.9 rows
  EXPECT_EQ(cheapest({omp, cuda}, 72).best, 0u);
  EXPECT_EQ(cheapest({omp, cuda}, 74).best, 1u);
  EXPECT_EQ(cheapest({omp, cuda}, 24).why,
            "omp 5 us + rows / 2e+06/s = 17 us; cuda 40 us + rows / 5e+07/s = 40.5 us for a batch of 24 rows: omp");
  EXPECT_THROW(cheapest({}, 24), std::invalid_argument);
}
