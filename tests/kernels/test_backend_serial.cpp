// The serial backend against itself (tests/kernels/backend_cases.inc): deterministic bit for bit,
// every row written, for every law and both precisions.
#include <cstddef>
#include <string>

#include "engine/registry.hpp"

namespace {
struct BackendCase {
  static constexpr impact::engine::Backend backend = impact::engine::Backend::serial;
  static constexpr std::size_t rows = 6000;
  static constexpr bool bit_identical = true;
  static constexpr std::size_t min_ok_divisor = 4;
  static bool skip(std::string&) { return false; }
};
}  // namespace

#define IMPACT_BACKEND_SUITE SerialBackend
#include "backend_cases.inc"
