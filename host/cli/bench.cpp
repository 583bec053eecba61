// `impact bench`: see bench.hpp and docs/bench.md.
#include "cli/bench.hpp"

#include <omp.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <ctime>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "kernels/sampled.hpp"
#include "engine/columns.hpp"
#include "engine/registry.hpp"
#include "study/sample_spec.hpp"
#include "io/version.hpp"
#ifdef IMPACT_WITH_CUDA
#include "kernels/cuda/cuda.hpp"
#endif

namespace impact::cli {

using namespace impact::io;
using namespace impact::engine;
using namespace impact::study;

namespace {

using Clock = std::chrono::steady_clock;
using json = nlohmann::ordered_json;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Fused multiply-adds per clock per SM by compute capability (CUDA C++ Programming Guide,
// "Arithmetic Instructions", throughput of 32- and 64-bit floating-point add/multiply/FMA).
struct SmRate {
  int major, minor, fp32, fp64;
};
constexpr SmRate kSmRates[] = {
    {5, 0, 128, 4}, {5, 2, 128, 4}, {5, 3, 128, 4}, {6, 0, 64, 32},  {6, 1, 128, 4},  {6, 2, 128, 4},
    {7, 0, 64, 32}, {7, 2, 64, 32}, {7, 5, 64, 2},  {8, 0, 64, 32},  {8, 6, 128, 2},  {8, 7, 128, 2},
    {8, 9, 128, 2}, {9, 0, 128, 64}, {10, 0, 128, 64}, {12, 0, 128, 2},
};

// Bytes one instance moves: the input columns the law reads and every BatchOut column.
std::size_t bytes_per_instance(const LawInfo& law, std::size_t tsize) {
  return std::size_t(law.input_count()) * tsize + kNumRealOutputs * tsize + 4 + 4 + 1;
}
// Memory of one pooled instance: all input columns and every output column.
std::size_t pool_bytes(std::size_t tsize) { return kNumInputs * tsize + kNumRealOutputs * tsize + 9; }

// ---- statistics ----------------------------------------------------------------------------------
struct Stat {
  double median = 0, min = 0, max = 0, q1 = 0, q3 = 0;
};
Stat stat_of(std::vector<double> v) {
  Stat s;
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
json stat_json(const Stat& s) {
  return json{{"median", s.median}, {"min", s.min}, {"max", s.max}, {"q1", s.q1}, {"q3", s.q3}};
}

// ---- instances: sampled once, grown on demand --------------------------------------------------------
template <class T>
struct Pool {
  InputColumns<T> in;
  OutputColumns<T> out;
  std::size_t n = 0;

  void clear() { *this = Pool(); }

  // Instances [0, m) materialized (in parallel blocks: each is a pure function of its index).
  void ensure(const SampleSpec& spec, std::uint64_t seed, std::size_t m) {
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
  // The first m instances as the law reads them (columns it does not read are null, as in `eval`).
  BatchIn<T> batch_in(const LawInfo& law, std::size_t m) const { return in.view(law, 0, m); }
  BatchOut<T> batch_out() { return out.view(); }
};

// True when the law's results depend on LawOptions::steps (the integrators): a probe on a few
// sampled instances with 8 and with 16 steps.
bool reads_steps(const LawInfo& law, const SampleSpec& spec, std::uint64_t seed) {
  const std::size_t m = 32;
  Pool<double> a, b;
  a.ensure(spec, seed, m);
  b.ensure(spec, seed, m);
  LawOptions o8, o16;
  o8.steps = 8;
  o16.steps = 16;
  const BatchFn<double> serial = batch_fn<double>(law, Backend::serial);
  serial(a.batch_in(law, m), a.batch_out(), o8);
  serial(b.batch_in(law, m), b.batch_out(), o16);
  for (std::size_t i = 0; i < m; ++i) {
    if (a.out.steps[i] != b.out.steps[i] || a.out.status[i] != b.out.status[i]) return true;
    for (int k = out_P_x; k <= out_P_z; ++k)
      if (!(a.out.real[k][i] == b.out.real[k][i]) && !(std::isnan(a.out.real[k][i]) && std::isnan(b.out.real[k][i])))
        return true;
  }
  return false;
}

// ---- machine -------------------------------------------------------------------------------------
std::string cpu_model() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  std::string fallback;
  while (std::getline(f, line)) {
    const std::size_t c = line.find(':');
    if (c == std::string::npos) continue;
    std::string key = line.substr(0, c);
    while (!key.empty() && (key.back() == ' ' || key.back() == '\t')) key.pop_back();
    std::string val = line.substr(c + 1);
    while (!val.empty() && val.front() == ' ') val.erase(val.begin());
    if (key == "model name" && !val.empty()) return val;
    if ((key == "Hardware" || key == "CPU part") && fallback.empty()) fallback = val;
  }
  return fallback.empty() ? "unknown" : fallback;
}

double mem_available_bytes() {
  std::ifstream f("/proc/meminfo");
  std::string key;
  double kb = 0;
  std::string unit;
  while (f >> key >> kb >> unit)
    if (key == "MemAvailable:") return kb * 1024.0;
  return 8.0 * (1ull << 30);  // unknown: assume 8 GiB
}

// The 1-minute load average (/proc/loadavg), NaN when unknown.
double load_average() {
  std::ifstream f("/proc/loadavg");
  double l = NAN;
  if (!(f >> l)) return NAN;
  return l;
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string compiler() {
#if defined(__clang__)
  return std::string("clang ") + __clang_version__;
#elif defined(__GNUC__)
  return std::string("g++ ") + __VERSION__;
#else
  return "unknown";
#endif
}

json build_json() {
#if defined(__OPTIMIZE__)
  const bool optimized = true;
#else
  const bool optimized = false;
#endif
#if defined(NDEBUG)
  const bool ndebug = true;
#else
  const bool ndebug = false;
#endif
  return json{{"type", optimized && ndebug ? "Release" : optimized ? "optimized, assertions on" : "Debug"},
              {"optimized", optimized},
              {"ndebug", ndebug}};
}

// The CUDA device and its peak rates (null fields when unknown).
struct Device {
  bool usable = false;
  std::string why;
  json info;                  // the JSON "cuda" object
  double peak_fp64 = NAN;     // flop/s
  double peak_fp32 = NAN;
  double peak_bandwidth = NAN;  // bytes/s
  std::string name;
};

Device query_device() {
  Device d;
  d.usable = cuda_usable(&d.why);
  d.info = json{{"built", cuda_built()}, {"usable", d.usable}};
  if (!d.usable) {
    d.info["why_not"] = d.why;
    return d;
  }
#ifdef IMPACT_WITH_CUDA
  cuda::DeviceInfo di;
  std::string why;
  if (!cuda::device_info(di, &why)) {
    d.usable = false;
    d.why = why;
    d.info["usable"] = false;
    d.info["why_not"] = why;
    return d;
  }
  d.name = di.name;
  auto ver = [](int v) { return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10); };
  int fp32 = 0, fp64 = 0;
  for (const SmRate& r : kSmRates)
    if (r.major == di.cc_major && r.minor == di.cc_minor) fp32 = r.fp32, fp64 = r.fp64;
  const double clk = di.clock_khz * 1e3;
  if (fp32 > 0) {
    d.peak_fp32 = 2.0 * fp32 * di.sm_count * clk;
    d.peak_fp64 = 2.0 * fp64 * di.sm_count * clk;
  }
  d.peak_bandwidth = 2.0 * di.mem_clock_khz * 1e3 * di.bus_width_bits / 8.0;
  d.info["device"] = di.name;
  d.info["ordinal"] = di.ordinal;
  d.info["compute_capability"] = std::to_string(di.cc_major) + "." + std::to_string(di.cc_minor);
  d.info["sm_count"] = di.sm_count;
  d.info["clock_mhz"] = di.clock_khz / 1e3;
  d.info["memory_clock_mhz"] = di.mem_clock_khz / 1e3;
  d.info["memory_bus_bits"] = di.bus_width_bits;
  d.info["memory_gib"] = double(di.total_mem_bytes) / double(1ull << 30);
  d.info["driver"] = ver(di.driver_version);
  d.info["runtime"] = ver(di.runtime_version);
  d.info["fma_per_clock_per_sm"] = fp32 > 0 ? json{{"fp32", fp32}, {"fp64", fp64}} : json(nullptr);
  d.info["peak_gflops_fp64"] = fp32 > 0 ? json(d.peak_fp64 / 1e9) : json(nullptr);
  d.info["peak_gflops_fp32"] = fp32 > 0 ? json(d.peak_fp32 / 1e9) : json(nullptr);
  d.info["peak_bandwidth_gbs"] = d.peak_bandwidth / 1e9;
  if (fp32 == 0)
    d.info["note"] = "compute capability " + d.info["compute_capability"].get<std::string>() +
                     " is not in the FMA table of host/bench.cpp: no peak FP shares";
#endif
  return d;
}

// ---- the plan ----------------------------------------------------------------------------------------
struct Config {
  const LawInfo* law;
  std::string variant;  // the instance set: the scenario's name, or "ball-planar" for morgan
  const SampleSpec* spec;
  Backend backend;
  bool is_float;
  int steps;  // 0: the law does not read it
};

struct Measurement {
  Config cfg;
  std::size_t n = 0;  // instances in the batch
  int calls = 1;      // batch calls per repetition
  double calibration_seconds = 0;
  std::vector<double> seconds;  // per repetition
  Stat rate;                    // instances/s
  double mean_steps = 0;        // mean of the steps output column (integrators)
  double ok_fraction = 0;
  double flops_instance = NAN;  // cost model
  double bytes_instance = 0;
};

const char* prec_name(bool is_float) { return is_float ? "float" : "double"; }

template <class T>
double time_calls(BatchFn<T> fn, const BatchIn<T>& in, const BatchOut<T>& out, const LawOptions& opt, int calls) {
  const auto t0 = Clock::now();
  for (int c = 0; c < calls; ++c) fn(in, out, opt);
  return seconds_since(t0);
}

template <class T>
Measurement measure(const Config& c, Pool<T>& pool, const BenchArgs& a, std::size_t cap) {
  Measurement m;
  m.cfg = c;
  const BatchFn<T> fn = batch_fn<T>(*c.law, c.backend);
  if (!fn) throw std::runtime_error(std::string("no ") + backend_name(c.backend) + " entry point for " + c.law->name);
  LawOptions opt;
  opt.steps = c.steps > 0 ? c.steps : 250;
  opt.integrator = Integrator::rk4;
  auto run = [&](std::size_t n, int calls) {
    pool.ensure(*c.spec, a.seed, n);
    return time_calls<T>(fn, pool.batch_in(*c.law, n), pool.batch_out(), opt, calls);
  };
  // calibration (counts as warm-up): grow the batch until a call lasts a quarter of --min-time
  const auto tc = Clock::now();
  std::size_t n = std::min<std::size_t>(cap, c.steps > 0 ? 16 : 1024);
  double t = run(n, 1);
  while (t < 0.25 * a.min_time && n < cap) {
    const double f = std::clamp(0.5 * a.min_time / std::max(t, 1e-7), 2.0, 100.0);
    n = std::min<std::size_t>(cap, static_cast<std::size_t>(double(n) * f));
    t = run(n, 1);
  }
  const double per = std::max(t, 1e-9) / double(n);
  std::size_t nf = static_cast<std::size_t>(std::llround(a.min_time / per));
  nf = std::clamp<std::size_t>(nf, 1, cap);
  int calls = 1;
  if (nf == cap) calls = static_cast<int>(std::clamp(std::llround(a.min_time / (per * double(nf))), 1LL, 1000000LL));
  m.n = nf;
  m.calls = calls;
  for (int w = 0; w < a.warmup; ++w) run(nf, calls);
  m.calibration_seconds = seconds_since(tc);
  std::vector<double> rates;
  for (int r = 0; r < a.reps; ++r) {
    const double s = run(nf, calls);
    m.seconds.push_back(s);
    rates.push_back(double(nf) * calls / std::max(s, 1e-12));
  }
  m.rate = stat_of(rates);
  double st = 0, ok = 0;
  for (std::size_t i = 0; i < nf; ++i) {
    st += pool.out.steps[i];
    ok += pool.out.status[i] == 0;
  }
  m.mean_steps = st / double(nf);
  m.ok_fraction = ok / double(nf);
  m.flops_instance = c.steps > 0 ? c.law->cost.flops_step * m.mean_steps : c.law->cost.flops_instance;
  m.bytes_instance = double(bytes_per_instance(*c.law, sizeof(T)));
  return m;
}

// ---- output ------------------------------------------------------------------------------------------
std::string eng(double v) {
  if (!std::isfinite(v)) return "-";
  const char* suf = "";
  double x = v;
  if (std::fabs(v) >= 1e9) x = v / 1e9, suf = " G";
  else if (std::fabs(v) >= 1e6) x = v / 1e6, suf = " M";
  else if (std::fabs(v) >= 1e3) x = v / 1e3, suf = " k";
  char b[48];
  std::snprintf(b, sizeof b, "%.3g%s", x, suf);
  return b;
}
std::string fixed(double v, int digits) {
  if (!std::isfinite(v)) return "-";
  char b[48];
  std::snprintf(b, sizeof b, "%.*f", digits, v);
  return b;
}
std::string ratio_str(double v) { return std::isfinite(v) ? fixed(v, v < 10 ? 2 : 1) : "-"; }
double spread_pct(const Stat& s) { return s.median > 0 ? 100.0 * (s.max - s.min) / (2.0 * s.median) : NAN; }
std::string rate_cell(const Measurement* m) {
  if (!m) return "-";
  return eng(m->rate.median) + " ±" + fixed(spread_pct(m->rate), 0) + "%";
}
std::string pct(double v) {
  if (!std::isfinite(v)) return "-";
  return fixed(v, v < 1 ? 2 : 1) + "%";
}

struct Results {
  std::vector<Measurement> ms;
  const Measurement* find(const std::string& law, int steps, bool is_float, Backend b) const {
    for (const Measurement& m : ms)
      if (m.cfg.law->name == law && m.cfg.steps == steps && m.cfg.is_float == is_float && m.cfg.backend == b) return &m;
    return nullptr;
  }
};
double ratio(const Measurement* a, const Measurement* b) {
  return a && b && b->rate.median > 0 ? a->rate.median / b->rate.median : NAN;
}

struct Row {  // one (law, steps, precision) line of the tables
  std::string law;
  int steps;
  bool is_float;
};
std::vector<Row> rows_of(const Results& R) {
  std::vector<Row> rows;
  for (const Measurement& m : R.ms) {
    bool seen = false;
    for (const Row& r : rows) seen |= r.law == m.cfg.law->name && r.steps == m.cfg.steps && r.is_float == m.cfg.is_float;
    if (!seen) rows.push_back({m.cfg.law->name, m.cfg.steps, m.cfg.is_float});
  }
  return rows;
}

std::string markdown(const Results& R, const std::vector<Backend>& backends, const json& machine, const Device& dev,
                     const BenchArgs& a) {
  const bool has = [&] {
    for (Backend b : backends)
      if (b == Backend::cuda) return true;
    return false;
  }();
  auto has_b = [&](Backend b) { return std::find(backends.begin(), backends.end(), b) != backends.end(); };
  const bool hs = has_b(Backend::serial), ho = has_b(Backend::omp), hc = has;
  std::string s;
  s += "- Machine: " + machine["cpu"].get<std::string>() + ", " + std::to_string(machine["cores"].get<int>()) +
       " cores, OMP " + std::to_string(machine["omp_threads"].get<int>()) + " threads; " +
       machine["compiler"].get<std::string>() + ", " + machine["build"]["type"].get<std::string>() + "; impactbatch " +
       machine["version"].get<std::string>() + " (" + machine["git_rev"].get<std::string>() + "), " +
       machine["date"].get<std::string>() + "\n";
  s += "- CUDA: " + (dev.usable ? dev.name + " (driver " + machine["cuda"].value("driver", "?") + ", runtime " +
                                    machine["cuda"].value("runtime", "?") + ")"
                              : "none (" + dev.why + "): no cuda columns") +
       "\n";
  if (machine["load_average_start"].is_number() && machine["load_average_end"].is_number())
    s += "- Load average (1 min) at start / end: " + fixed(machine["load_average_start"].get<double>(), 2) + " / " +
         fixed(machine["load_average_end"].get<double>(), 2) + " on " + std::to_string(machine["cores"].get<int>()) +
         " cores\n";
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "- Instances/s: median of %d repetitions of about %g s each (after calibration and %d warm-up "
                "repetition%s), ± half the min-max range in %% of the median; ratios of medians.\n",
                a.reps, a.min_time, a.warmup, a.warmup == 1 ? "" : "s");
  s += buf;
  s += "- Instances: scenario " + a.scenario + " (morgan: ball-planar), seed " + std::to_string(a.seed) +
       "; integrators rk4 with `steps` per instance.\n\n";

  // 1. throughput and ratios
  s += "| law | steps | precision |";
  std::string sep = "| --- | ---: | --- |";
  if (hs) s += " serial |", sep += " ---: |";
  if (ho) s += " omp |", sep += " ---: |";
  if (hc) s += " cuda |", sep += " ---: |";
  if (hs && ho) s += " omp/serial |", sep += " ---: |";
  if (hc && ho) s += " cuda/omp |", sep += " ---: |";
  if (hc && hs) s += " cuda/serial |", sep += " ---: |";
  for (Backend b : backends) s += std::string(" float/double ") + backend_name(b) + " |", sep += " ---: |";
  s += "\n" + sep + "\n";
  for (const Row& r : rows_of(R)) {
    auto get = [&](Backend b, bool f) { return R.find(r.law, r.steps, f, b); };
    s += "| " + r.law + " | " + (r.steps > 0 ? std::to_string(r.steps) : "-") + " | " + prec_name(r.is_float) + " |";
    if (hs) s += " " + rate_cell(get(Backend::serial, r.is_float)) + " |";
    if (ho) s += " " + rate_cell(get(Backend::omp, r.is_float)) + " |";
    if (hc) s += " " + rate_cell(get(Backend::cuda, r.is_float)) + " |";
    if (hs && ho) s += " " + ratio_str(ratio(get(Backend::omp, r.is_float), get(Backend::serial, r.is_float))) + " |";
    if (hc && ho) s += " " + ratio_str(ratio(get(Backend::cuda, r.is_float), get(Backend::omp, r.is_float))) + " |";
    if (hc && hs) s += " " + ratio_str(ratio(get(Backend::cuda, r.is_float), get(Backend::serial, r.is_float))) + " |";
    for (Backend b : backends)
      s += " " + (r.is_float ? ratio_str(ratio(get(b, true), get(b, false))) : std::string("")) + " |";
    s += "\n";
  }

  // 2. integrators: instance-steps/s
  bool any_int = false;
  for (const Measurement& m : R.ms) any_int |= m.cfg.steps > 0;
  if (any_int) {
    s += "\nIntegrators: instance-steps/s = instances/s x the mean of the `steps` output column (steps actually "
         "taken; event location inside a step is not counted as a step). GFLOP/s from the cost model of "
         "docs/bench.md.\n\n";
    s += "| law | steps | precision | backend | mean steps/instance | ok rows | instance-steps/s | GFLOP/s |\n";
    s += "| --- | ---: | --- | --- | ---: | ---: | ---: | ---: |\n";
    for (const Measurement& m : R.ms) {
      if (m.cfg.steps <= 0) continue;
      s += "| " + m.cfg.law->name + " | " + std::to_string(m.cfg.steps) + " | " + prec_name(m.cfg.is_float) + " | " +
           backend_name(m.cfg.backend) + " | " + fixed(m.mean_steps, 1) + " | " + pct(100.0 * m.ok_fraction) + " | " +
           eng(m.rate.median * m.mean_steps) + " | " + fixed(m.rate.median * m.flops_instance / 1e9, 2) + " |\n";
    }
  }

  // 3. the device's peak shares
  if (hc) {
    s += "\nCUDA: achieved share of the device's peak. FP: flops/instance (cost model) x instances/s over the peak "
         "FP64 (double) or FP32 (float) rate; memory: bytes/instance (inputs read + BatchOut written) x "
         "instances/s over the peak DRAM bandwidth (algebraic laws). The rate is end to end: the batch lives in "
         "host memory and streams through PCIe (kernels/cuda_backend.cu).\n\n";
    s += "| law | steps | precision | instances/s | flops/instance | GFLOP/s | % peak FP | bytes/instance | GB/s | % peak "
         "DRAM |\n";
    s += "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n";
    for (const Measurement& m : R.ms) {
      if (m.cfg.backend != Backend::cuda) continue;
      const double fl = m.rate.median * m.flops_instance;
      const double peak = m.cfg.is_float ? dev.peak_fp32 : dev.peak_fp64;
      const bool alg = m.cfg.steps <= 0;
      const double bw = m.rate.median * m.bytes_instance;
      s += "| " + m.cfg.law->name + " | " + (alg ? std::string("-") : std::to_string(m.cfg.steps)) + " | " +
           prec_name(m.cfg.is_float) + " | " + eng(m.rate.median) + " | " + eng(m.flops_instance) + " | " +
           fixed(fl / 1e9, 1) + " | " + pct(100.0 * fl / peak) + " | " + (alg ? fixed(m.bytes_instance, 0) : "-") +
           " | " + (alg ? fixed(bw / 1e9, 1) : "-") + " | " + (alg ? pct(100.0 * bw / dev.peak_bandwidth) : "-") +
           " |\n";
    }
  }
  return s;
}

json measurement_json(const Measurement& m, const Device& dev) {
  const bool cu = m.cfg.backend == Backend::cuda;
  const bool alg = m.cfg.steps <= 0;
  json j{{"law", m.cfg.law->name},
         {"scenario", m.cfg.variant},
         {"backend", backend_name(m.cfg.backend)},
         {"precision", prec_name(m.cfg.is_float)},
         {"steps", alg ? json(nullptr) : json(m.cfg.steps)},
         {"integrator", alg ? json(nullptr) : json("rk4")},
         {"n", m.n},
         {"calls_per_rep", m.calls},
         {"reps", m.seconds.size()},
         {"calibration_seconds", m.calibration_seconds},
         {"seconds", m.seconds},
         {"instances_per_second", stat_json(m.rate)},
         {"ok_fraction", m.ok_fraction}};
  if (!alg) {
    Stat is = m.rate;
    for (double* v : {&is.median, &is.min, &is.max, &is.q1, &is.q3}) *v *= m.mean_steps;
    j["mean_steps"] = m.mean_steps;
    j["instance_steps_per_second"] = stat_json(is);
  }
  j["flops_per_instance"] = std::isfinite(m.flops_instance) ? json(m.flops_instance) : json(nullptr);
  j["gflops"] = std::isfinite(m.flops_instance) ? json(m.rate.median * m.flops_instance / 1e9) : json(nullptr);
  j["bytes_per_instance"] = m.bytes_instance;
  j["gbytes_per_second"] = m.rate.median * m.bytes_instance / 1e9;
  if (cu) {
    const double peak = m.cfg.is_float ? dev.peak_fp32 : dev.peak_fp64;
    const double fl = m.rate.median * m.flops_instance;
    j["peak_fp_share"] = std::isfinite(fl / peak) ? json(fl / peak) : json(nullptr);
    const double bw = m.rate.median * m.bytes_instance / dev.peak_bandwidth;
    j["peak_bandwidth_share"] = alg && std::isfinite(bw) ? json(bw) : json(nullptr);
  }
  return j;
}

void write_text(const std::string& path, const std::string& text) {
  std::FILE* f = path == "-" ? stdout : std::fopen(path.c_str(), "wb");
  if (!f) throw std::runtime_error(path + ": cannot open for writing");
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size() && std::fflush(f) == 0;
  if (f != stdout) std::fclose(f);
  if (!ok) throw std::runtime_error(path + ": write failed");
}

std::vector<std::string> split_all(const std::vector<std::string>& v) {  // "a,b" "c" -> a b c
  std::vector<std::string> out;
  for (const std::string& s : v) {
    std::size_t a = 0;
    while (a <= s.size()) {
      std::size_t b = s.find(',', a);
      if (b == std::string::npos) b = s.size();
      if (b > a) out.push_back(s.substr(a, b - a));
      a = b + 1;
    }
  }
  return out;
}

}  // namespace

CLI::App* add_bench_subcommand(CLI::App& app, BenchArgs& a) {
  CLI::App* c = app.add_subcommand(
      "bench", "Throughput of every law x backend x precision (x steps for the integrators) in one run (docs/bench.md)");
  c->add_option("--laws", a.laws, "Laws, comma-separated (default: all: " + law_names() + ")")->delimiter(',');
  c->add_option("--backends", a.backends, "serial,omp,cuda (default: serial, omp, and cuda when usable)")->delimiter(',');
  c->add_option("--precisions", a.precisions, "double,float (default: both)")->delimiter(',');
  c->add_option("--steps", a.steps, "Steps per instance for the integrators, comma-separated (default: 250,1000)")
      ->delimiter(',');
  c->add_option("--scenario", a.scenario, "Sampled instances: contact|ball (morgan always gets planar balls)")
      ->capture_default_str();
  c->add_option("--seed", a.seed, "Philox seed of the instances")->capture_default_str();
  c->add_option("--min-time", a.min_time, "Seconds per repetition (the batch grows to reach it)")->capture_default_str();
  c->add_option("--reps", a.reps, "Timed repetitions per configuration")->capture_default_str();
  c->add_option("--warmup", a.warmup, "Untimed repetitions after the calibration")->capture_default_str();
  c->add_option("--max-n", a.max_n, "Instances in a batch at most (memory); a repetition repeats the call beyond")
      ->capture_default_str();
  c->add_option("--json", a.json, "Write the results as JSON ('-' for stdout)");
  c->add_option("--markdown", a.markdown, "Write the markdown table to a file ('-' for stdout)");
  c->add_flag("--quiet,-q", a.quiet, "No progress lines on stderr and no table on stdout (unless --markdown -)");
  return c;
}

int run_bench(const BenchArgs& a, std::FILE* table, std::FILE* log) {
  // ---- usage ----
  std::vector<const LawInfo*> laws;
  {
    std::vector<std::string> names = split_all(a.laws);
    if (names.empty() || std::find(names.begin(), names.end(), "all") != names.end()) {
      names.clear();
      for (const LawInfo& l : all_laws()) names.push_back(l.name);
    }
    for (const std::string& n : names) {
      const LawInfo* l = find_law(n);
      if (!l) throw std::invalid_argument("unknown law '" + n + "' (known: " + law_names() + ")");
      if (std::find(laws.begin(), laws.end(), l) == laws.end()) laws.push_back(l);
    }
  }
  std::vector<bool> precisions;  // is_float
  for (const std::string& p : split_all(a.precisions)) {
    if (p != "double" && p != "float")
      throw std::invalid_argument("unknown precision '" + p + "' (known: double, float)");
    if (std::find(precisions.begin(), precisions.end(), p == "float") == precisions.end())
      precisions.push_back(p == "float");
  }
  if (precisions.empty()) precisions = {false, true};
  std::vector<int> steps;
  for (int s : a.steps) {
    if (s < 1) throw std::invalid_argument("--steps must be >= 1, got " + std::to_string(s));
    if (std::find(steps.begin(), steps.end(), s) == steps.end()) steps.push_back(s);
  }
  if (steps.empty()) steps = {250, 1000};
  if (!(a.min_time > 0) || !std::isfinite(a.min_time)) throw std::invalid_argument("--min-time must be > 0");
  if (a.reps < 1) throw std::invalid_argument("--reps must be >= 1");
  if (a.warmup < 0) throw std::invalid_argument("--warmup must be >= 0");
  if (a.max_n < 1) throw std::invalid_argument("--max-n must be >= 1");
  if (a.json == "-" && a.markdown == "-")
    throw std::invalid_argument("--json - and --markdown - cannot both write to stdout");
  const Scenario scen = parse_scenario(a.scenario);
  std::vector<Backend> backends;
  std::vector<std::pair<std::string, std::string>> skipped;
  const Device dev = query_device();
  {
    std::vector<std::string> names = split_all(a.backends);
    const bool dflt = names.empty();
    if (dflt) names = {"serial", "omp", "cuda"};
    for (const std::string& n : names) {
      Backend b;
      if (n == "serial") b = Backend::serial;
      else if (n == "omp") b = Backend::omp;
      else if (n == "cuda") b = Backend::cuda;
      else throw std::invalid_argument("unknown backend '" + n + "' for bench (known: serial, omp, cuda)");
      if (std::find(backends.begin(), backends.end(), b) != backends.end()) continue;
      if (b == Backend::cuda && !dev.usable) {
        skipped.emplace_back("cuda", dev.why);
        continue;
      }
      backends.push_back(b);
    }
    if (backends.empty())
      throw std::invalid_argument("nothing to measure: backend 'cuda' is not usable: " + dev.why);
    if (log && !a.quiet)
      for (const auto& [b, why] : skipped)
        std::fprintf(log, "impact bench: skipping backend %s: %s\n", b.c_str(), why.c_str());
  }

  // ---- instance sets ----
  const SampleSpec main_spec = default_spec(scen);
  SampleSpec planar = default_spec(Scenario::ball);
  for (const char* s : {"V0y=0", "w0x=0", "w0z=0"}) apply_setting(planar, s);

  // ---- plan ----
  std::vector<Config> plan;
  for (const LawInfo* l : laws) {
    const bool is_morgan = l->name == "morgan";
    const SampleSpec* spec = is_morgan ? &planar : &main_spec;
    const std::string variant = is_morgan ? "ball-planar" : a.scenario;
    const bool integ = reads_steps(*l, *spec, a.seed);
    for (int s : integ ? steps : std::vector<int>{0})
      for (bool f : precisions)
        for (Backend b : backends) plan.push_back(Config{l, variant, spec, b, f, s});
  }
  const double avail = mem_available_bytes();
  const std::size_t cap = static_cast<std::size_t>(std::max<double>(
      1.0, std::min<double>(double(a.max_n), 0.3 * avail / double(pool_bytes(sizeof(double)) + pool_bytes(sizeof(float))))));
  if (log && !a.quiet)
    std::fprintf(log,
                 "impact bench: %zu configurations, %d reps of ~%g s (+ calibration, %d warm-up): about %.0f s; "
                 "batches of at most %zu instances\n",
                 plan.size(), a.reps, a.min_time, a.warmup, double(plan.size()) * a.min_time * (a.reps + a.warmup + 1.5),
                 cap);

  // ---- measure ----
  const double load0 = load_average();
  const int cores = static_cast<int>(std::thread::hardware_concurrency());
  if (log && !a.quiet && load0 > 0.5 * cores)
    std::fprintf(log,
                 "impact bench: warning: load average %.1f on %d cores before the run: other processes compete for "
                 "the CPUs, so timings are noisy and the OMP rates pessimistic\n",
                 load0, cores);
  const auto t_all = Clock::now();
  Results R;
  Pool<double> pd;
  Pool<float> pf;
  std::string pool_variant;
  for (std::size_t k = 0; k < plan.size(); ++k) {
    const Config& c = plan[k];
    if (c.variant != pool_variant) {  // one instance set in memory at a time
      pd.clear();
      pf.clear();
      pool_variant = c.variant;
    }
    Measurement m = c.is_float ? measure<float>(c, pf, a, cap) : measure<double>(c, pd, a, cap);
    if (log && !a.quiet) {
      std::string st = c.steps > 0 ? " steps " + std::to_string(c.steps) : "";
      std::fprintf(log,
                   "impact bench: [%zu/%zu] %s%s %s %s: n %zu x %d call%s, %d reps: %s instances/s (min %s, max %s)%s\n",
                   k + 1, plan.size(), c.law->name.c_str(), st.c_str(), backend_name(c.backend), prec_name(c.is_float),
                   m.n, m.calls, m.calls == 1 ? "" : "s", a.reps, eng(m.rate.median).c_str(), eng(m.rate.min).c_str(),
                   eng(m.rate.max).c_str(),
                   c.steps > 0 ? (", " + eng(m.rate.median * m.mean_steps) + " instance-steps/s").c_str() : "");
      std::fflush(log);
    }
    R.ms.push_back(std::move(m));
  }
  pd.clear();
  pf.clear();

  // ---- report ----
  json machine{{"cpu", cpu_model()},
               {"cores", cores},
               {"omp_threads", omp_get_max_threads()},
               {"compiler", compiler()},
               {"build", build_json()},
               {"version", version()},
               {"git_rev", git_revision()},
               {"date", utc_now()},
               {"load_average_start", std::isfinite(load0) ? json(load0) : json(nullptr)},
               {"load_average_end", std::isfinite(load_average()) ? json(load_average()) : json(nullptr)}};
  {
    char host[256] = {0};
    if (gethostname(host, sizeof host - 1) == 0) machine["hostname"] = host;
  }
  machine["cuda"] = dev.info;
  const std::string md = markdown(R, backends, machine, dev, a);

  json j;
  j["tool"] = "impact bench";
  j["machine"] = machine;
  json lawnames = json::array(), bnames = json::array(), pnames = json::array();
  for (const LawInfo* l : laws) lawnames.push_back(l->name);
  for (Backend b : backends) bnames.push_back(backend_name(b));
  for (bool f : precisions) pnames.push_back(prec_name(f));
  j["settings"] = json{{"laws", lawnames},       {"backends", bnames},      {"precisions", pnames},
                       {"steps", steps},          {"scenario", a.scenario},  {"seed", a.seed},
                       {"min_time", a.min_time}, {"reps", a.reps},          {"warmup", a.warmup},
                       {"max_n", cap},            {"integrator", "rk4"}};
  json sk = json::array();
  for (const auto& [b, why] : skipped) sk.push_back(json{{"backend", b}, {"reason", why}});
  j["skipped"] = sk;
  json cm = json::object();
  for (const LawInfo& l : all_laws())
    cm[l.name] = l.cost.flops_step > 0 ? json{{"flops_per_step", l.cost.flops_step}}
                                       : json{{"flops_per_instance", l.cost.flops_instance}};
  j["cost_model"] = cm;
  json res = json::array();
  for (const Measurement& m : R.ms) res.push_back(measurement_json(m, dev));
  j["results"] = res;
  json ratios = json::array();
  for (const Row& r : rows_of(R)) {
    auto get = [&](Backend b, bool f) { return R.find(r.law, r.steps, f, b); };
    auto add = [&](const std::string& what, const Measurement* x, const Measurement* y, const char* key,
                   const char* val) {
      const double v = ratio(x, y);
      if (std::isfinite(v))
        ratios.push_back(json{{"law", r.law}, {"steps", r.steps > 0 ? json(r.steps) : json(nullptr)},
                              {key, val}, {"ratio", what}, {"value", v}});
    };
    const char* p = prec_name(r.is_float);
    add("omp/serial", get(Backend::omp, r.is_float), get(Backend::serial, r.is_float), "precision", p);
    add("cuda/omp", get(Backend::cuda, r.is_float), get(Backend::omp, r.is_float), "precision", p);
    add("cuda/serial", get(Backend::cuda, r.is_float), get(Backend::serial, r.is_float), "precision", p);
    if (r.is_float)
      for (Backend b : backends) add("float/double", get(b, true), get(b, false), "backend", backend_name(b));
  }
  j["ratios"] = ratios;
  j["markdown"] = md;
  j["wall_seconds"] = seconds_since(t_all);

  if (!a.json.empty()) write_text(a.json, j.dump(2) + "\n");
  if (!a.markdown.empty()) write_text(a.markdown, md);
  if (table && !a.quiet && a.json != "-" && a.markdown != "-") {
    std::fputs(md.c_str(), table);
    std::fflush(table);
  }
  return 0;
}

}  // namespace impact::cli
