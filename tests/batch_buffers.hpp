// Structure-of-arrays buffers for backend tests: fills BatchIn from ContactProblems and holds the
// outputs, pre-filled with sentinels so an unwritten row shows.
#pragma once
#include <cstdint>
#include <vector>

#include "kernels/batch.hpp"
#include "random_instances.hpp"

namespace impact::testing {

namespace ri = impact::randinst;

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

// Mixed random instances: realizable two-body rows and planar rows (so morgan has work).
inline std::vector<ContactProblem<double>> instances(std::size_t n) {
  ri::Rng rng(4242);
  std::vector<ContactProblem<double>> ps;
  for (std::size_t i = 0; i < n; ++i)
    ps.push_back(i % 3 == 0 ? ri::random_planar_problem(rng, {0.0, 1.5}) : ri::random_contact_problem(rng, {0.0, 1.5}));
  return ps;
}

}  // namespace impact::testing
