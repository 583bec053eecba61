// Two outcomes with the same bits (a test's check, tests/support): the impulse, final velocity,
// energy change and compression impulse compared byte for byte (so -0 is not +0, and a NaN equals
// only the same NaN), the steps, the status and the mode sequence exactly.
#pragma once
#include <cstring>

#include "impact/problem.hpp"

namespace impact::test {

template <class T>
bool same_bits(const Result<T>& a, const Result<T>& b) {
  return std::memcmp(&a.P, &b.P, sizeof a.P) == 0 && std::memcmp(&a.vf, &b.vf, sizeof a.vf) == 0 &&
         std::memcmp(&a.dE, &b.dE, sizeof a.dE) == 0 && std::memcmp(&a.In_c, &b.In_c, sizeof a.In_c) == 0 && a.steps == b.steps &&
         a.status == b.status && a.modes.bits == b.modes.bits;
}

}  // namespace impact::test
