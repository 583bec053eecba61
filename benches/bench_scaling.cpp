// OMP scaling of one law in one run: serial and OMP alternate on the same rows (3 rounds each) and
// the ratio of median throughputs is printed, so machine noise hits both alike.
//   ./build/bench_scaling [law] [rows]      (default: jia, 20000)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <omp.h>

#include "batch_buffers.hpp"
#include "engine/registry.hpp"

using namespace impact;

int main(int argc, char** argv) {
  const std::string name = argc > 1 ? argv[1] : "jia";
  const std::size_t n = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 20000;
  const engine::LawInfo* law = engine::find_law(name);
  if (!law) {
    std::fprintf(stderr, "unknown law '%s' (known: %s)\n", name.c_str(), engine::law_names().c_str());
    return 2;
  }
  const auto ps = impact::testing::instances(n);
  impact::testing::Buffers<double> buf(ps);
  LawOptions opt;
  auto time = [&](engine::Backend b) {
    const auto t0 = std::chrono::steady_clock::now();
    engine::batch_fn<double>(*law, b)(buf.bin, buf.bout, opt);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  double ts[3], to[3];
  for (int r = 0; r < 3; ++r) {
    ts[r] = time(engine::Backend::serial);
    to[r] = time(engine::Backend::omp);
  }
  std::sort(ts, ts + 3);
  std::sort(to, to + 3);
  std::printf("%s, %zu rows, double: serial %.3g instances/s, omp (%d threads) %.3g instances/s, ratio %.2f\n", name.c_str(), n,
              n / ts[1], omp_get_max_threads(), n / to[1], ts[1] / to[1]);
  return 0;
}
