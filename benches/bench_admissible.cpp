// What the last line of defence costs (its budget: under 3% of the integrators' time): per
// instance, the admissibility check (impact/admissible.hpp) and the scaling into the instance's
// own units and back (impact/scale.hpp), against the whole law on the same random contact
// instances, one core.
//   ./build/bench_admissible
// Reported per law: ns per instance of the law (check and scaling included), ns of check + scaling
// alone, and their ratio (counter "overhead_%").
#include <benchmark/benchmark.h>

#include <chrono>
#include <vector>

#include "batch_buffers.hpp"
#include "impact/admissible.hpp"
#include "impact/laws/all.hpp"

using namespace impact;

namespace {

const std::vector<ContactProblem<double>>& rows() {
  static const auto ps = impact::testing::instances(4000);
  return ps;
}

template <class Law>
void run(benchmark::State& st) {
  const auto& ps = rows();
  std::vector<Result<double>> rs(ps.size());
  using clk = std::chrono::steady_clock;
  double law_s = 0, check_s = 0;
  std::size_t n = 0;
  unsigned sink = 0;
  for (auto _ : st) {
    const auto t0 = clk::now();
    for (std::size_t i = 0; i < ps.size(); ++i) rs[i] = Law::eval(ps[i]);
    const auto t1 = clk::now();
    for (std::size_t i = 0; i < ps.size(); ++i) {
      ContactProblem<double> q = ps[i];
      const Scales s = instance_scales(q);
      to_unit_scales(q, s);
      Result<double> r = rs[i];
      sink += admissibility(q, r, false);
      from_unit_scales(r, s);
      sink += static_cast<unsigned>(r.status);
    }
    const auto t2 = clk::now();
    law_s += std::chrono::duration<double>(t1 - t0).count();
    check_s += std::chrono::duration<double>(t2 - t1).count();
    n += ps.size();
  }
  benchmark::DoNotOptimize(sink);
  st.counters["law_ns"] = 1e9 * law_s / double(n);
  st.counters["check_ns"] = 1e9 * check_s / double(n);
  st.counters["overhead_%"] = 100.0 * check_s / law_s;
}

BENCHMARK_TEMPLATE(run, JiaLaw)->Name("jia")->UseRealTime();
BENCHMARK_TEMPLATE(run, StrongeLaw)->Name("stronge")->UseRealTime();
BENCHMARK_TEMPLATE(run, AghiliLaw)->Name("aghili")->UseRealTime();
BENCHMARK_TEMPLATE(run, MorganLaw)->Name("morgan")->UseRealTime();
BENCHMARK_TEMPLATE(run, ChatterjeeRuinaLaw)->Name("chatterjee-ruina")->UseRealTime();
BENCHMARK_TEMPLATE(run, NewtonLaw)->Name("newton")->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
