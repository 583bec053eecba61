// CUDA backend against the serial backend, per law and precision. Compiled in every build that
// has nvcc; skipped with the runtime's reason where no device is usable (CI has none).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "laws.hpp"
#include "random_instances.hpp"

using namespace impact;
namespace ri = impact::randinst;

namespace {

template <class T>
struct Buffers {
  std::vector<T> in[16];
  std::vector<T> P[3], vf[3], dE, In_c, aux[kAux];
  std::vector<std::uint32_t> modes;
  std::vector<std::int32_t> steps;
  std::vector<std::uint8_t> status;
  BatchIn<T> bin{};
  BatchOut<T> bout{};
  explicit Buffers(const std::vector<ContactProblem<double>>& ps) {
    const std::size_t n = ps.size();
    for (auto& c : in) c.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      const auto& p = ps[i];
      const double v[16] = {p.W.xx, p.W.xy, p.W.xz, p.W.yy, p.W.yz, p.W.zz, p.n.x, p.n.y,
                            p.n.z,  p.v0.x, p.v0.y, p.v0.z, p.mu, p.e, p.e_t, p.eta0};
      for (int k = 0; k < 16; ++k) in[k][i] = static_cast<T>(v[k]);
    }
    for (auto& c : P) c.assign(n, T(-7));
    for (auto& c : vf) c.assign(n, T(-7));
    dE.assign(n, T(-7));
    In_c.assign(n, T(-7));
    for (auto& c : aux) c.assign(n, T(-7));
    modes.assign(n, 0xdeadu);
    steps.assign(n, -7);
    status.assign(n, 0xff);
    for (int k = 0; k < 6; ++k) bin.W[k] = in[k].data();
    for (int k = 0; k < 3; ++k) bin.n[k] = in[6 + k].data(), bin.v[k] = in[9 + k].data();
    bin.mu = in[12].data();
    bin.e = in[13].data();
    bin.e_t = in[14].data();
    bin.eta0 = in[15].data();
    bin.count = n;
    for (int k = 0; k < 3; ++k) bout.P[k] = P[k].data(), bout.vf[k] = vf[k].data();
    bout.dE = dE.data();
    bout.In_c = In_c.data();
    for (int k = 0; k < kAux; ++k) bout.aux[k] = aux[k].data();
    bout.modes = modes.data();
    bout.steps = steps.data();
    bout.status = status.data();
  }
};

std::vector<ContactProblem<double>> instances(std::size_t n) {
  ri::Rng rng(4242);
  std::vector<ContactProblem<double>> ps;
  for (std::size_t i = 0; i < n; ++i)
    ps.push_back(i % 3 == 0 ? ri::random_planar_problem(rng, {0.0, 1.5}) : ri::random_contact_problem(rng, {0.0, 1.5}));
  return ps;
}

template <class T>
void compare(const host::LawInfo& law, double rel_tol) {
  const auto ps = instances(20000);
  Buffers<T> serial(ps), cuda(ps);
  LawOptions opt;
  host::batch_fn<T>(law, false)(serial.bin, serial.bout, opt);
  host::batch_fn<T>(law, true)(cuda.bin, cuda.bout, opt);
  std::size_t ok = 0, differ = 0;
  double worst = 0;
  for (std::size_t i = 0; i < ps.size(); ++i) {
    ASSERT_EQ(serial.status[i], cuda.status[i]) << law.name << " row " << i;
    if (serial.status[i] != 0) continue;
    ++ok;
    EXPECT_EQ(serial.modes[i], cuda.modes[i]) << law.name << " row " << i;
    const double s = std::hypot(serial.P[0][i], serial.P[1][i], serial.P[2][i]);
    for (int k = 0; k < 3; ++k) {
      const double d = std::fabs(double(serial.P[k][i]) - double(cuda.P[k][i])) / s;
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
  if (!host::cuda_built()) GTEST_SKIP() << "built without CUDA: " << (host::cuda_usable(&why), why);
  if (!host::cuda_usable(&why)) GTEST_SKIP() << "no usable CUDA device (" << why << "): CUDA-vs-serial comparison skipped";
  std::printf("CUDA device: %s\n", why.c_str());
  for (const host::LawInfo& law : host::all_laws()) {
    // The device may contract a*b+c into FMAs the host does not: agreement to rounding, not bits.
    compare<double>(law, 1e-10);
    compare<float>(law, 2e-3);
  }
}
