// CUDA-only checks of the CUDA backend (its agreement with the serial backend, per law and
// precision, is the cuda case of tests/kernels/test_backends.cpp). Compiled in every build that has
// nvcc; skipped with the runtime's reason where no device is usable (CI has none).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/registry.hpp"

using namespace impact;

#ifdef IMPACT_WITH_CUDA
#include "impact/rng.hpp"
#include "kernels/cuda/cuda.hpp"

TEST(CudaBackend, PhiloxSamplesBitIdenticalToCpu) {
  std::string why;
  if (!engine::cuda_usable(&why)) GTEST_SKIP() << "no usable CUDA device (" << why << "): CPU/GPU sample comparison skipped";
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
