// Throughput of every law on the serial and OMP backends, double and float, on random realizable
// instances (Google Benchmark). Counters: instances/s and, for the integrators, steps/s.
//   ./build/bench_laws --benchmark_filter=jia
#include <benchmark/benchmark.h>

#include <numeric>

#include "batch_buffers.hpp"
#include "engine/registry.hpp"

using namespace impact;

namespace {

const std::vector<ContactProblem<double>>& rows() {
  static const auto ps = impact::testing::instances(20000);
  return ps;
}

template <class T>
void run(benchmark::State& st, const engine::LawInfo* law, engine::Backend b) {
  impact::testing::Buffers<T> buf(rows());
  LawOptions opt;
  for (auto _ : st) {
    engine::batch_fn<T>(*law, b)(buf.bin, buf.bout, opt);
    benchmark::ClobberMemory();
  }
  const double n = static_cast<double>(rows().size());
  st.counters["instances/s"] = benchmark::Counter(n * st.iterations(), benchmark::Counter::kIsRate);
  const double steps = std::accumulate(buf.out.steps.begin(), buf.out.steps.end(), 0.0);
  st.counters["steps/s"] = benchmark::Counter(steps * st.iterations(), benchmark::Counter::kIsRate);
}

const int registered = [] {
  for (const engine::LawInfo& law : engine::all_laws()) {
    for (engine::Backend b : {engine::Backend::serial, engine::Backend::omp}) {
      const std::string base = law.name + "/" + engine::backend_name(b);
      benchmark::RegisterBenchmark((base + "/double").c_str(), run<double>, &law, b)->UseRealTime();
      benchmark::RegisterBenchmark((base + "/float").c_str(), run<float>, &law, b)->UseRealTime();
    }
  }
  return 0;
}();

}  // namespace

BENCHMARK_MAIN();
