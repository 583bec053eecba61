// CUDA backend against the serial backend, per law and precision. Compiled in every build that
// has nvcc; skipped with the runtime's reason where no device is usable (CI has none).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "batch_buffers.hpp"
#include "engine/registry.hpp"

using namespace impact;
using impact::testing::Buffers;
using impact::testing::instances;

namespace {

template <class T>
void compare(const engine::LawInfo& law, double rel_tol) {
  const auto ps = instances(20000);
  Buffers<T> serial(ps), cuda(ps);
  LawOptions opt;
  engine::batch_fn<T>(law, engine::Backend::serial)(serial.bin, serial.bout, opt);
  engine::batch_fn<T>(law, engine::Backend::cuda)(cuda.bin, cuda.bout, opt);
  std::size_t ok = 0, differ = 0;
  double worst = 0;
  for (std::size_t i = 0; i < ps.size(); ++i) {
    ASSERT_EQ(serial.out.status[i], cuda.out.status[i]) << law.name << " row " << i;
    if (serial.out.status[i] != 0) continue;
    ++ok;
    EXPECT_EQ(serial.out.modes[i], cuda.out.modes[i]) << law.name << " row " << i;
    const double s = std::hypot(serial.out.real[out_P_x][i], serial.out.real[out_P_y][i], serial.out.real[out_P_z][i]);
    for (int k = 0; k < 3; ++k) {
      const double d = std::fabs(double(serial.out.real[out_P_x + k][i]) - double(cuda.out.real[out_P_x + k][i])) / s;
      worst = std::max(worst, d);
      if (d > rel_tol) ++differ;
    }
  }
  EXPECT_GT(ok, ps.size() / 100) << law.name;
  EXPECT_EQ(differ, 0u) << law.name << " worst relative impulse difference " << worst;
  std::printf("cuda vs serial %-17s %-6s rows ok %zu, max |dP|/|P| %.3g\n", law.name.c_str(),
              std::is_same_v<T, double> ? "double" : "float", ok, worst);
}

}  // namespace

TEST(CudaBackend, MatchesSerialPerLawAndPrecision) {
  std::string why;
  if (!engine::cuda_built()) GTEST_SKIP() << "built without CUDA: " << (engine::cuda_usable(&why), why);
  if (!engine::cuda_usable(&why)) GTEST_SKIP() << "no usable CUDA device (" << why << "): CUDA-vs-serial comparison skipped";
  std::printf("CUDA device: %s\n", why.c_str());
  for (const engine::LawInfo& law : engine::all_laws()) {
    // The device may contract a*b+c into FMAs the host does not: agreement to rounding, not bits.
    compare<double>(law, 1e-10);
    compare<float>(law, 2e-3);
  }
}

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
