// The CUDA backend against the serial backend, per law and precision (tests/kernels/
// backend_cases.inc), and the CUDA-only Philox check. Compiled in every build that has nvcc;
// skipped with the runtime's reason where no device is usable (CI has none).
#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

#include "device.hpp"
#include "engine/registry.hpp"

namespace {
struct BackendCase {
  static constexpr impact::engine::Backend backend = impact::engine::Backend::cuda;
  static constexpr std::size_t rows = 20000;
  // The device may contract a*b+c into FMAs the host does not: agreement to rounding, not bits.
  static constexpr bool bit_identical = false;
  static constexpr double rel_tol_double = 1e-10, rel_tol_float = 2e-3;
  static constexpr std::size_t min_ok_divisor = 100;
  static bool skip(std::string& message) {
    std::string why;
    if (!impact::test::device_usable(why)) {
      message = impact::test::device_skip_message(why, "CUDA-vs-serial comparison");
      return true;
    }
    std::printf("CUDA device: %s\n", why.c_str());
    return false;
  }
};
}  // namespace

#define IMPACT_BACKEND_SUITE CudaBackend
#include "backend_cases.inc"

#ifdef IMPACT_WITH_CUDA
#include "impact/rng.hpp"
#include "kernels/cuda/cuda.hpp"

TEST(CudaBackend, PhiloxSamplesBitIdenticalToCpu) {
  IMPACT_REQUIRE_DEVICE("CPU/GPU sample comparison");
  const std::size_t n = 1 << 20;
  const std::uint64_t first = 123456789012ull;
  std::vector<double> gpu(2 * n);
  cuda::philox_uniforms(42, 5, first, n, gpu.data());
  for (std::size_t i = 0; i < n; ++i) {
    double a, b;
    uniforms2(Philox{42}, first + i, 5, a, b);
    ASSERT_EQ(a, gpu[2 * i]) << i;
    ASSERT_EQ(b, gpu[2 * i + 1]) << i;
  }
}
#endif
