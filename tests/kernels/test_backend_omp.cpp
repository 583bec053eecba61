// The OMP backend against the serial backend (tests/kernels/backend_cases.inc): it runs the serial
// backend's functor on all cores, so its results must be identical bit for bit, for every law and
// both precisions, and every row must be written.
#include <cstddef>
#include <string>

#include "engine/registry.hpp"

namespace {
struct BackendCase {
  static constexpr impact::engine::Backend backend = impact::engine::Backend::omp;
  static constexpr std::size_t rows = 6000;
  static constexpr bool bit_identical = true;
  static constexpr std::size_t min_ok_divisor = 4;
  static bool skip(std::string&) { return false; }
};
}  // namespace

#define IMPACT_BACKEND_SUITE OmpBackend
#include "backend_cases.inc"
