// The OMP backend runs the serial backend's functor on all cores: its results must be identical
// bit for bit, for every law and both precisions, and every row must be written.
#include <gtest/gtest.h>

#include <cstring>

#include "batch_buffers.hpp"
#include "engine/registry.hpp"

using namespace impact;
using impact::testing::Buffers;
using impact::testing::instances;

namespace {

template <class U>
bool same_bits(const std::vector<U>& a, const std::vector<U>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(U)) == 0;
}

template <class T>
void check_law(const engine::LawInfo& law) {
  const auto ps = instances(6000);
  Buffers<T> s(ps), o(ps);
  LawOptions opt;
  engine::batch_fn<T>(law, engine::Backend::serial)(s.bin, s.bout, opt);
  engine::batch_fn<T>(law, engine::Backend::omp)(o.bin, o.bout, opt);
  for (int k = 0; k < kNumRealOutputs; ++k) EXPECT_TRUE(same_bits(s.out.real[k], o.out.real[k])) << law.name;
  EXPECT_TRUE(same_bits(s.out.modes, o.out.modes)) << law.name;
  EXPECT_TRUE(same_bits(s.out.steps, o.out.steps)) << law.name;
  EXPECT_TRUE(same_bits(s.out.status, o.out.status)) << law.name;
  // every row written (the sentinel 0xff is no status), and the law had real work
  std::size_t ok = 0;
  for (std::uint8_t st : o.out.status) {
    ASSERT_LT(st, static_cast<std::uint8_t>(Status::count_));
    ok += st == 0;
  }
  EXPECT_GT(ok, ps.size() / 4) << law.name;
}

}  // namespace

TEST(Backends, OmpEqualsSerialBitForBit) {
  for (const engine::LawInfo& law : engine::all_laws()) {
    check_law<double>(law);
    check_law<float>(law);
  }
}
