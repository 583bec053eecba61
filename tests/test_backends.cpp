// The OMP backend runs the serial backend's functor on all cores: its results must be identical
// bit for bit, for every law and both precisions, and every row must be written.
#include <gtest/gtest.h>

#include <cstring>

#include "batch_buffers.hpp"
#include "laws.hpp"

using namespace impact;
using impact::testing::Buffers;
using impact::testing::instances;

namespace {

template <class U>
bool same_bits(const std::vector<U>& a, const std::vector<U>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(U)) == 0;
}

template <class T>
void check_law(const host::LawInfo& law) {
  const auto ps = instances(6000);
  Buffers<T> s(ps), o(ps);
  LawOptions opt;
  host::batch_fn<T>(law, host::Backend::serial)(s.bin, s.bout, opt);
  host::batch_fn<T>(law, host::Backend::omp)(o.bin, o.bout, opt);
  for (int k = 0; k < 3; ++k) {
    EXPECT_TRUE(same_bits(s.P[k], o.P[k])) << law.name;
    EXPECT_TRUE(same_bits(s.vf[k], o.vf[k])) << law.name;
  }
  EXPECT_TRUE(same_bits(s.dE, o.dE)) << law.name;
  EXPECT_TRUE(same_bits(s.In_c, o.In_c)) << law.name;
  for (int k = 0; k < kAux; ++k) EXPECT_TRUE(same_bits(s.aux[k], o.aux[k])) << law.name;
  EXPECT_TRUE(same_bits(s.modes, o.modes)) << law.name;
  EXPECT_TRUE(same_bits(s.steps, o.steps)) << law.name;
  EXPECT_TRUE(same_bits(s.status, o.status)) << law.name;
  // every row written (the sentinel 0xff is no status), and the law had real work
  std::size_t ok = 0;
  for (std::uint8_t st : o.status) {
    ASSERT_LT(st, static_cast<std::uint8_t>(Status::count_));
    ok += st == 0;
  }
  EXPECT_GT(ok, ps.size() / 4) << law.name;
}

}  // namespace

TEST(Backends, OmpEqualsSerialBitForBit) {
  for (const host::LawInfo& law : host::all_laws()) {
    check_law<double>(law);
    check_law<float>(law);
  }
}
