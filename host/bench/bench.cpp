#include "bench/bench.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "engine/device.hpp"
#include "io/machine.hpp"
#include "kernels/sampled.hpp"
#include "systems/sample_spec.hpp"

namespace impact::bench {

using engine::Backend;
using engine::BatchFn;
using engine::LawInfo;
using engine::Precision;

namespace {

using Clock = std::chrono::steady_clock;

using io::seconds_since;

// Memory of one pooled instance: all input columns and every output column.
std::size_t pool_bytes(std::size_t tsize) { return kNumInputs * tsize + kNumRealOutputs * tsize + 9; }

// Seconds of `calls` calls of fn on the batch.
template <class T>
double time_calls(BatchFn<T> fn, const BatchIn<T>& in, const BatchOut<T>& out, const LawOptions& opt, int calls) {
  const auto t0 = Clock::now();
  for (int c = 0; c < calls; ++c) fn(in, out, opt);
  return seconds_since(t0);
}

// The batch of one repetition: n instances, called `calls` times.
struct BatchSize {
  std::size_t n;
  int calls;
};

// Calibration (counts as warm-up): starting from 1024 instances (16 for an integrator), the batch
// grows (x2 to x100 per try) until one call lasts a quarter of min_time; then n = min_time / (time
// per instance), capped; at the cap a repetition repeats the call to last min_time. run(n, calls)
// times the calls.
template <class Run>
BatchSize calibrate(Run&& run, bool integrator, double min_time, std::size_t cap) {
  std::size_t n = std::min<std::size_t>(cap, integrator ? 16 : 1024);
  double t = run(n, 1);
  while (t < 0.25 * min_time && n < cap) {
    const double f = std::clamp(0.5 * min_time / std::max(t, 1e-7), 2.0, 100.0);
    n = std::min<std::size_t>(cap, static_cast<std::size_t>(double(n) * f));
    t = run(n, 1);
  }
  const double per = std::max(t, 1e-9) / double(n);
  std::size_t nf = static_cast<std::size_t>(std::llround(min_time / per));
  nf = std::clamp<std::size_t>(nf, 1, cap);
  int calls = 1;
  if (nf == cap) calls = static_cast<int>(std::clamp(std::llround(min_time / (per * double(nf))), 1LL, 1000000LL));
  return BatchSize{nf, calls};
}

}  // namespace

// ---- instances ------------------------------------------------------------------------------------

template <class T>
void InstancePool<T>::ensure(const SampleSpec& spec, std::uint64_t seed, std::size_t m) {
  if (m <= n) return;
  in.resize(m);
  out.resize(m);
  const std::size_t block = 4096, from = n;
  const long long nb = static_cast<long long>((m - from + block - 1) / block);
#pragma omp parallel for schedule(dynamic)
  for (long long b = 0; b < nb; ++b) {
    const std::size_t lo = from + std::size_t(b) * block;
    const std::size_t cnt = std::min(block, m - lo);
    T* cols[kNumInputs];
    for (int k = 0; k < kNumInputs; ++k) cols[k] = in.col[k].data() + lo;
    materialize<T>(spec, seed, lo, cnt, cols);
  }
  n = m;
}

template struct InstancePool<double>;
template struct InstancePool<float>;

bool reads_steps(const LawInfo& law, const SampleSpec& spec, std::uint64_t seed) {
  const std::size_t m = 32;
  InstancePool<double> a, b;
  a.ensure(spec, seed, m);
  b.ensure(spec, seed, m);
  LawOptions o8, o16;
  o8.steps = 8;
  o16.steps = 16;
  const BatchFn<double> serial = engine::batch_fn<double>(law, Backend::serial);
  serial(a.in.view(law, 0, m), a.out.view(), o8);
  serial(b.in.view(law, 0, m), b.out.view(), o16);
  for (std::size_t i = 0; i < m; ++i) {
    if (a.out.steps[i] != b.out.steps[i] || a.out.status[i] != b.out.status[i]) return true;
    for (int k = out_P_x; k <= out_P_z; ++k)
      if (!(a.out.real[k][i] == b.out.real[k][i]) && !(std::isnan(a.out.real[k][i]) && std::isnan(b.out.real[k][i]))) return true;
  }
  return false;
}

// ---- the plan -------------------------------------------------------------------------------------

std::vector<BenchConfig> bench_plan(const BenchSpec& s) {
  SampleSpec main_spec = systems::default_spec(s.scenario);
  systems::apply_settings(main_spec, s.sets);
  SampleSpec planar = systems::default_spec(Scenario::ball);
  for (const char* k : {"V0y=0", "w0x=0", "w0z=0"}) systems::apply_setting(planar, k);
  std::vector<BenchConfig> plan;
  for (const LawInfo* l : s.laws) {
    // on the contact scenario every morgan row would stop at not_planar
    const bool is_morgan = l->name == "morgan";
    const SampleSpec& spec = is_morgan ? planar : main_spec;
    const std::string variant = is_morgan ? "ball-planar" : s.scenario_name;
    const bool integ = reads_steps(*l, spec, s.seed);
    for (int st : integ ? s.steps : std::vector<int>{0})
      for (Precision p : s.precisions)
        for (Backend b : s.backends) plan.push_back(BenchConfig{l, variant, spec, b, p, st});
  }
  return plan;
}

std::size_t batch_cap(std::uint64_t max_n) {
  const double avail = io::mem_available_bytes();
  const double per_instance = double(pool_bytes(sizeof(double)) + pool_bytes(sizeof(float)));
  return static_cast<std::size_t>(std::max<double>(1.0, std::min<double>(double(max_n), 0.3 * avail / per_instance)));
}

// ---- cost model and statistics ------------------------------------------------------------------

RateStat rate_stat(std::vector<double> v) {
  RateStat s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  auto q = [&](double p) {
    const double x = p * double(v.size() - 1);
    const std::size_t i = static_cast<std::size_t>(x);
    const double f = x - double(i);
    return i + 1 < v.size() ? v[i] + f * (v[i + 1] - v[i]) : v[i];
  };
  s.min = v.front();
  s.max = v.back();
  s.median = q(0.5);
  s.q1 = q(0.25);
  s.q3 = q(0.75);
  return s;
}

RateStat scaled(RateStat s, double factor) {
  for (double* v : {&s.median, &s.min, &s.max, &s.q1, &s.q3}) *v *= factor;
  return s;
}

// ---- measurements ---------------------------------------------------------------------------------

Measurement BenchHarness::measure(const BenchConfig& c) {
  if (c.variant != variant_) {  // one instance set in memory at a time
    f64_.clear();
    f32_.clear();
    variant_ = c.variant;
  }
  if (c.backend == Backend::cuda && !device_warm_) {
    engine::warm_up_device();
    device_warm_ = true;
  }
  return c.single() ? measure_in<float>(c, f32_) : measure_in<double>(c, f64_);
}

// The call is batch_fn<T>(law, backend), as `impact eval` makes it per chunk: the input columns the
// law does not read are null, every output column is written.
template <class T>
Measurement BenchHarness::measure_in(const BenchConfig& c, InstancePool<T>& pool) {
  Measurement m;
  m.cfg = c;
  const BatchFn<T> fn = engine::batch_fn<T>(*c.law, c.backend);
  if (!fn) throw std::runtime_error(std::string("no ") + engine::backend_name(c.backend) + " entry point for " + c.law->name);
  const LawOptions opt = engine::law_options(c.integrator() ? c.steps : 250, Integrator::rk4);
  auto run = [&](std::size_t n, int calls) {
    pool.ensure(c.spec, spec_.seed, n);
    return time_calls<T>(fn, pool.in.view(*c.law, 0, n), pool.out.view(), opt, calls);
  };
  const auto tc = Clock::now();
  const BatchSize bs = calibrate(run, c.integrator(), spec_.min_time, spec_.max_n);
  m.n = bs.n;
  m.calls = bs.calls;
  for (int w = 0; w < spec_.warmup; ++w) run(bs.n, bs.calls);
  m.calibration_seconds = seconds_since(tc);
  std::vector<double> rates;
  for (int r = 0; r < spec_.reps; ++r) {
    const double s = run(bs.n, bs.calls);
    m.seconds.push_back(s);
    rates.push_back(double(bs.n) * bs.calls / std::max(s, 1e-12));
  }
  m.rate = rate_stat(rates);
  double st = 0, ok = 0;
  for (std::size_t i = 0; i < bs.n; ++i) {
    st += pool.out.steps[i];
    ok += pool.out.status[i] == 0;
  }
  m.mean_steps = st / double(bs.n);
  m.ok_fraction = ok / double(bs.n);
  m.flops_instance = c.law->flops_per_instance(m.mean_steps);
  m.bytes_instance = c.law->bytes_per_instance(c.precision);
  return m;
}

}  // namespace impact::bench
