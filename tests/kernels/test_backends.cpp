// Every backend against the serial backend, for every law and both precisions: one test body,
// instantiated per backend (serial, omp, cuda). The CPU backends run the serial backend's functor:
// their results must be identical bit for bit. The device may contract a*b+c into FMAs the host does
// not: CUDA agrees to rounding, not bits. Every row must be written (the sentinel 0xff is no status)
// and each law must have had real work. The CUDA case is compiled in every build and skipped with
// the runtime's reason where no device is usable (CI has none).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "batch_buffers.hpp"
#include "engine/registry.hpp"

using namespace impact;
using impact::testing::Buffers;
using impact::testing::instances;

namespace {

// What differs between the backends: the rows per law, how closely they must agree with serial,
// how many rows must be ok, and whether the backend can run here.
struct SerialCase {
  static constexpr engine::Backend backend = engine::Backend::serial;
  static constexpr std::size_t rows = 6000;
  static constexpr bool bit_identical = true;
  static constexpr std::size_t min_ok_divisor = 4;  // more than rows / 4 ok
  static bool skip(std::string&) { return false; }
};

struct OmpCase {
  static constexpr engine::Backend backend = engine::Backend::omp;
  static constexpr std::size_t rows = 6000;
  static constexpr bool bit_identical = true;
  static constexpr std::size_t min_ok_divisor = 4;
  static bool skip(std::string&) { return false; }
};

struct CudaCase {
  static constexpr engine::Backend backend = engine::Backend::cuda;
  static constexpr std::size_t rows = 20000;
  static constexpr bool bit_identical = false;
  static constexpr double rel_tol_double = 1e-10, rel_tol_float = 2e-3;  // of |dP| / |P|
  static constexpr std::size_t min_ok_divisor = 100;
  static bool skip(std::string& message) {
    std::string why;
    if (!engine::cuda_built()) {
      engine::cuda_usable(&why);
      message = "built without CUDA: " + why;
      return true;
    }
    if (!engine::cuda_usable(&why)) {
      message = "no usable CUDA device (" + why + "): CUDA-vs-serial comparison skipped";
      return true;
    }
    std::printf("CUDA device: %s\n", why.c_str());
    return false;
  }
};

template <class U>
bool same_bits(const std::vector<U>& a, const std::vector<U>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(U)) == 0;
}

// CPU backends: every column identical to serial's, bit for bit.
template <class T>
void expect_bit_identical(const engine::LawInfo& law, const Buffers<T>& s, const Buffers<T>& o) {
  for (int k = 0; k < kNumRealOutputs; ++k) EXPECT_TRUE(same_bits(s.out.real[k], o.out.real[k])) << law.name;
  EXPECT_TRUE(same_bits(s.out.modes, o.out.modes)) << law.name;
  EXPECT_TRUE(same_bits(s.out.steps, o.out.steps)) << law.name;
  EXPECT_TRUE(same_bits(s.out.status, o.out.status)) << law.name;
}

// CUDA: the same status and modes on every row, the impulse to rel_tol relative to |P|. `statuses`
// is set when every status matched (the comparison stops at the first that does not).
template <class T>
void expect_within_rounding(const engine::LawInfo& law, const Buffers<T>& serial, const Buffers<T>& dev,
                            double rel_tol, bool& statuses) {
  statuses = false;
  const std::size_t n = serial.out.size();
  std::size_t ok = 0, differ = 0;
  double worst = 0;
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(serial.out.status[i], dev.out.status[i]) << law.name << " row " << i;
    if (serial.out.status[i] != 0) continue;
    ++ok;
    EXPECT_EQ(serial.out.modes[i], dev.out.modes[i]) << law.name << " row " << i;
    const double s = std::hypot(serial.out.real[out_P_x][i], serial.out.real[out_P_y][i], serial.out.real[out_P_z][i]);
    for (int k = 0; k < 3; ++k) {
      const double d = std::fabs(double(serial.out.real[out_P_x + k][i]) - double(dev.out.real[out_P_x + k][i])) / s;
      worst = std::max(worst, d);
      if (d > rel_tol) ++differ;
    }
  }
  statuses = true;
  EXPECT_EQ(differ, 0u) << law.name << " worst relative impulse difference " << worst;
  std::printf("cuda vs serial %-17s %-6s rows ok %zu, max |dP|/|P| %.3g\n", law.name.c_str(),
              std::is_same_v<T, double> ? "double" : "float", ok, worst);
}

template <class Case, class T>
void compare_with_serial(const engine::LawInfo& law) {
  const auto ps = instances(Case::rows);
  Buffers<T> s(ps), b(ps);
  LawOptions opt;
  engine::batch_fn<T>(law, engine::Backend::serial)(s.bin, s.bout, opt);
  engine::batch_fn<T>(law, Case::backend)(b.bin, b.bout, opt);
  if constexpr (Case::bit_identical) {
    expect_bit_identical(law, s, b);
  } else {
    bool statuses = false;
    expect_within_rounding(law, s, b, std::is_same_v<T, double> ? Case::rel_tol_double : Case::rel_tol_float,
                           statuses);
    if (!statuses) return;
  }
  // every row written (the sentinel 0xff is no status), and the law had real work
  std::size_t ok = 0;
  for (std::uint8_t st : b.out.status) {
    ASSERT_LT(st, static_cast<std::uint8_t>(Status::count_)) << law.name;
    ok += st == 0;
  }
  EXPECT_GT(ok, ps.size() / Case::min_ok_divisor) << law.name;
}

template <class Case>
class Backends : public ::testing::Test {};

struct CaseNames {
  template <class Case>
  static std::string GetName(int) {
    return engine::backend_name(Case::backend);
  }
};

using AllBackends = ::testing::Types<SerialCase, OmpCase, CudaCase>;
TYPED_TEST_SUITE(Backends, AllBackends, CaseNames);

}  // namespace

TYPED_TEST(Backends, MatchSerialForEveryLawAndPrecision) {
  std::string why;
  if (TypeParam::skip(why)) GTEST_SKIP() << why;
  for (const engine::LawInfo& law : engine::all_laws()) {
    compare_with_serial<TypeParam, double>(law);
    compare_with_serial<TypeParam, float>(law);
  }
}
