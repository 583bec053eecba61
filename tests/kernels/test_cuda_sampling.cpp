// CUDA: device-sampled instances are bit-identical to the host's, the CUDA sampled reduction
// matches the OMP one, and the chunked streaming evaluation equals the single call. Compiled in
// every build that has nvcc; skipped with the runtime's reason where no device is usable.
#include <gtest/gtest.h>

#include "device.hpp"

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "engine/registry.hpp"
#include "systems/sample_spec.hpp"

#ifdef IMPACT_WITH_CUDA
#include "batch_buffers.hpp"
#include "impact/laws/chatterjee_ruina.hpp"
#include "impact/laws/jia.hpp"
#include "kernels/cuda/cuda.hpp"
#include "kernels/omp/omp.hpp"
#include "kernels/serial/serial.hpp"
#include "kernels/sampled.hpp"
#endif

using namespace impact;

#ifdef IMPACT_WITH_CUDA

namespace {
// specs that exercise every Dist kind and every truncated-normal branch
std::vector<SampleSpec> bit_specs() {
  std::vector<SampleSpec> v = {systems::default_spec(Scenario::contact), systems::default_spec(Scenario::ball)};
  SampleSpec s = systems::default_spec(Scenario::contact);
  for (const char* set : {"w1=truncnormal:1:0.5:0.1:inf", "w2=truncnormal:0:1:-0.5:0.7", "w3=truncnormal:0:1:3:inf",
                          "vn=truncnormal:0:1:-inf:-2.5", "vt=truncnormal:0:1:2:2.3", "phi=normal:1:3", "mu=lognormal:-1:0.3",
                          "e=uniform:0.2:0.9", "e_t=truncnormal:0:1:1:4", "eta0=fixed:1.5"})
    systems::apply_setting(s, set);
  v.push_back(s);
  // the rotation by a vector (rx, ry, rz: Rodrigues with rmath's sincos), the study's contact
  SampleSpec r = systems::default_spec(Scenario::contact);
  for (const char* set : {"rx=uniform:-4:4", "ry=normal:0:2", "rz=truncnormal:0:1:-0.5:inf"}) systems::apply_setting(r, set);
  v.push_back(r);
  return v;
}
}  // namespace

TEST(CudaSampling, DeviceSamplesBitIdenticalToHost) {
  IMPACT_REQUIRE_DEVICE("CPU/GPU sampled-instance bit comparison");
  const std::size_t n = 1 << 18;
  const std::uint64_t begin = 987654321012ull;
  for (const SampleSpec& spec : bit_specs()) {
    std::vector<double> gpu(kNumInputs * n);
    cuda::sample_instances(spec, 2024, begin, n, gpu.data());
    std::size_t differ = 0;
    for (std::size_t i = 0; i < n; ++i) {
      double v[kNumInputs];
      to_columns(make_instance<double>(spec, 2024, begin + i), v);
      for (int k = 0; k < kNumInputs; ++k)
        if (std::memcmp(&v[k], &gpu[k * n + i], sizeof(double)) != 0 && differ++ < 5)
          ADD_FAILURE() << "scenario " << systems::scenario_name(spec.scenario) << " instance " << begin + i << " column " << k
                        << ": host " << v[k] << " device " << gpu[k * n + i];
    }
    EXPECT_EQ(differ, 0u);
  }
}

namespace {
template <class Law, class T>
void compare_reductions(std::uint64_t n, int steps) {
  const SampleSpec spec = systems::default_spec(Scenario::contact);
  const SummaryRanges rg = impact::testing::summary_ranges({0, 0, 0, -1}, {6, 4, 5, 0.2});
  LawOptions opt;
  opt.steps = steps;
  const BatchSummary g = cuda::reduce_sampled<Law, T>(spec, 5, 100, 100 + n, opt, rg);
  const BatchSummary c = omp::reduce_sampled<Law, T>(spec, 5, 100, 100 + n, opt, rg);
  // the laws are evaluated with the device's FMA contractions: agreement to rounding, so a row at
  // a status or bin boundary may move (very rarely); the instances themselves are identical
  const double rel = std::is_same_v<T, double> ? 1e-9 : 1e-3;
  std::uint64_t moved = 0;
  for (int s = 0; s < static_cast<int>(Status::count_); ++s)
    moved += g.status[s] > c.status[s] ? g.status[s] - c.status[s] : c.status[s] - g.status[s];
  EXPECT_LE(moved, n / 100000 + 2) << Law::name;
  for (int k = 0; k < kNumQuantities; ++k) {
    EXPECT_NEAR(g.q[k].mean(), c.q[k].mean(), rel * (1 + std::fabs(c.q[k].mean()))) << Law::name << " " << k;
    EXPECT_NEAR(g.q[k].variance(), c.q[k].variance(), rel * (1 + c.q[k].variance())) << Law::name << " " << k;
    std::uint64_t hd = 0;
    for (int i = 0; i < Histogram::kBins + 2; ++i)
      hd += g.h[k].count[i] > c.h[k].count[i] ? g.h[k].count[i] - c.h[k].count[i] : c.h[k].count[i] - g.h[k].count[i];
    EXPECT_LE(hd, n / 10000 + 4) << Law::name << " histogram " << k;
  }
  std::printf("cuda vs omp sampled reduction %-17s %-6s n %llu: ok %llu / %llu, mean Pn %.12g / %.12g\n", Law::name,
              std::is_same_v<T, double> ? "double" : "float", static_cast<unsigned long long>(n),
              static_cast<unsigned long long>(g.status[0]), static_cast<unsigned long long>(c.status[0]), g.q[kPn].mean(),
              c.q[kPn].mean());
}
}  // namespace

TEST(CudaSampling, SampledReductionMatchesOmp) {
  IMPACT_REQUIRE_DEVICE("CUDA-vs-OMP sampled reduction");
  compare_reductions<ChatterjeeRuinaLaw, double>(1000000, 250);
  compare_reductions<ChatterjeeRuinaLaw, float>(1000000, 250);
  compare_reductions<JiaLaw, double>(20000, 100);
}

TEST(CudaBackend, StreamedChunksEqualSingleCall) {
  IMPACT_REQUIRE_DEVICE("CUDA streaming comparison");
  const auto ps = impact::testing::instances(20000);
  for (const engine::LawInfo& law : engine::all_laws()) {
    impact::testing::Buffers<double> whole(ps);
    engine::batch_fn<double>(law, engine::Backend::cuda)(whole.bin, whole.bout, LawOptions{});
    for (auto [chunk, streams] : {std::pair<std::size_t, int>{3000, 2}, {4999, 3}, {1024, 4}}) {
      impact::testing::Buffers<double> st(ps);
      const LawOptions opt;
      cuda::StreamOptions so;
      so.chunk_rows = chunk;
      so.streams = streams;
      // the same kernel per row: chunking changes nothing, bit for bit
      if (law.name == "jia") cuda::evaluate_streamed<JiaLaw, double>(st.bin, st.bout, opt, so);
      else if (law.name == "chatterjee-ruina") cuda::evaluate_streamed<ChatterjeeRuinaLaw, double>(st.bin, st.bout, opt, so);
      else continue;
      for (int k = 0; k < 3; ++k)
        EXPECT_EQ(std::memcmp(st.out.real[out_P_x + k].data(), whole.out.real[out_P_x + k].data(), ps.size() * sizeof(double)),
                  0);
      EXPECT_EQ(std::memcmp(st.out.real[out_dE].data(), whole.out.real[out_dE].data(), ps.size() * sizeof(double)), 0);
      EXPECT_EQ(st.out.status, whole.out.status) << law.name << " chunk " << chunk;
      EXPECT_EQ(st.out.modes, whole.out.modes);
      EXPECT_EQ(st.out.steps, whole.out.steps);
    }
  }
}

#else

TEST(CudaSampling, DeviceSamplesBitIdenticalToHost) { IMPACT_REQUIRE_DEVICE("CPU/GPU sampled-instance bit comparison"); }

#endif
