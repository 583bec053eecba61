// The report of `impact bench`: see bench_report.hpp and docs/bench.md.
#include "cli/bench_report.hpp"

#include <omp.h>

#include <algorithm>
#include <cstdio>

#include "engine/options.hpp"
#include "engine/registry.hpp"
#include "io/machine.hpp"
#include "io/number.hpp"
#include "io/version.hpp"

namespace impact::cli {

using bench::Measurement;
using bench::RateStat;
using engine::Backend;
using engine::backend_name;
using engine::Precision;
using engine::precision_name;
using json = nlohmann::ordered_json;

// ---- cells -----------------------------------------------------------------------------------------
std::string eng(double v) { return io::eng_text(v); }
std::string fixed(double v, int digits) { return io::fixed_text(v, digits); }
namespace {

std::string ratio_str(double v) { return std::isfinite(v) ? fixed(v, v < 10 ? 2 : 1) : "-"; }
double spread_pct(const bench::RateStat& s) { return s.median > 0 ? 100.0 * (s.max - s.min) / (2.0 * s.median) : NAN; }
std::string rate_cell(const bench::Measurement* m) {
  if (!m) return "-";
  return eng(m->rate.median) + " ±" + fixed(spread_pct(m->rate), 0) + "%";
}
std::string pct(double v) {
  if (!std::isfinite(v)) return "-";
  return fixed(v, v < 1 ? 2 : 1) + "%";
}
std::string steps_cell(int steps) { return steps > 0 ? std::to_string(steps) : "-"; }
json number_or_null(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

// ---- lookups ---------------------------------------------------------------------------------------
const bench::Measurement* find(const std::vector<bench::Measurement>& ms, const std::string& law, int steps, Precision p,
                               Backend b) {
  for (const bench::Measurement& m : ms)
    if (m.cfg.law->name == law && m.cfg.steps == steps && m.cfg.precision == p && m.cfg.backend == b) return &m;
  return nullptr;
}
double ratio(const bench::Measurement* a, const bench::Measurement* b) {
  return a && b && b->rate.median > 0 ? a->rate.median / b->rate.median : NAN;
}
bool has_backend(const std::vector<Backend>& v, Backend b) { return std::find(v.begin(), v.end(), b) != v.end(); }

struct Row {  // one (law, steps, precision) line of the tables
  std::string law;
  int steps;
  Precision precision;
};
std::vector<Row> rows_of(const std::vector<bench::Measurement>& ms) {
  std::vector<Row> rows;
  for (const bench::Measurement& m : ms) {
    bool seen = false;
    for (const Row& r : rows) seen |= r.law == m.cfg.law->name && r.steps == m.cfg.steps && r.precision == m.cfg.precision;
    if (!seen) rows.push_back({m.cfg.law->name, m.cfg.steps, m.cfg.precision});
  }
  return rows;
}

// ---- markdown --------------------------------------------------------------------------------------
std::string header_lines(const BenchRun& run) {
  const BenchMachine& mc = run.machine;
  const engine::Device& dev = mc.device;
  const bench::BenchSpec& sp = run.spec;
  std::string s;
  s += "- Machine: " + mc.cpu + ", " + std::to_string(mc.cores) + " cores, OMP " + std::to_string(mc.omp_threads) + " threads; " +
       mc.compiler + ", " + mc.build_type + "; impactbatch " + mc.version + " (" + mc.git_rev + "), " + mc.date + "\n";
  s += "- CUDA: " +
       (dev.usable ? dev.name + " (driver " + engine::cuda_version_string(dev.driver_version) + ", runtime " +
                         engine::cuda_version_string(dev.runtime_version) + ")"
                   : "none (" + dev.why_not + "): no cuda columns") +
       "\n";
  if (std::isfinite(mc.load_start) && std::isfinite(mc.load_end))
    s += "- Load average (1 min) at start / end: " + fixed(mc.load_start, 2) + " / " + fixed(mc.load_end, 2) + " on " +
         std::to_string(mc.cores) + " cores\n";
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "- Instances/s: median of %d repetitions of about %g s each (after calibration and %d warm-up "
                "repetition%s), ± half the min-max range in %% of the median; ratios of medians.\n",
                sp.reps, sp.min_time, sp.warmup, sp.warmup == 1 ? "" : "s");
  s += buf;
  s += "- Instances: scenario " + sp.scenario_name + " (morgan: ball-planar), seed " + std::to_string(sp.seed) +
       "; integrators rk4 with `steps` per instance.\n\n";
  return s;
}

// 1. instances/s per backend, the backend ratios and float/double per backend
std::string throughput_table(const BenchRun& run) {
  const std::vector<Backend>& bs = run.spec.backends;
  const bool hs = has_backend(bs, Backend::serial), ho = has_backend(bs, Backend::omp), hc = has_backend(bs, Backend::cuda);
  std::string s = "| law | steps | precision |";
  std::string sep = "| --- | ---: | --- |";
  if (hs) s += " serial |", sep += " ---: |";
  if (ho) s += " omp |", sep += " ---: |";
  if (hc) s += " cuda |", sep += " ---: |";
  if (hs && ho) s += " omp/serial |", sep += " ---: |";
  if (hc && ho) s += " cuda/omp |", sep += " ---: |";
  if (hc && hs) s += " cuda/serial |", sep += " ---: |";
  for (Backend b : bs) s += std::string(" float/double ") + backend_name(b) + " |", sep += " ---: |";
  s += "\n" + sep + "\n";
  for (const Row& r : rows_of(run.results)) {
    auto get = [&](Backend b, Precision p) { return find(run.results, r.law, r.steps, p, b); };
    const Precision p = r.precision;
    s += "| " + r.law + " | " + steps_cell(r.steps) + " | " + precision_name(p) + " |";
    if (hs) s += " " + rate_cell(get(Backend::serial, p)) + " |";
    if (ho) s += " " + rate_cell(get(Backend::omp, p)) + " |";
    if (hc) s += " " + rate_cell(get(Backend::cuda, p)) + " |";
    if (hs && ho) s += " " + ratio_str(ratio(get(Backend::omp, p), get(Backend::serial, p))) + " |";
    if (hc && ho) s += " " + ratio_str(ratio(get(Backend::cuda, p), get(Backend::omp, p))) + " |";
    if (hc && hs) s += " " + ratio_str(ratio(get(Backend::cuda, p), get(Backend::serial, p))) + " |";
    for (Backend b : bs)
      s +=
          " " + (p == Precision::f32 ? ratio_str(ratio(get(b, Precision::f32), get(b, Precision::f64))) : std::string("")) + " |";
    s += "\n";
  }
  return s;
}

// 2. integrators: instance-steps/s (empty when no integrator ran)
std::string integrator_table(const std::vector<bench::Measurement>& ms) {
  bool any_int = false;
  for (const bench::Measurement& m : ms) any_int |= m.cfg.integrator();
  if (!any_int) return "";
  std::string s =
      "\nIntegrators: instance-steps/s = instances/s x the mean of the `steps` output column (steps actually "
      "taken; event location inside a step is not counted as a step). GFLOP/s from the cost model of "
      "docs/bench.md.\n\n";
  s += "| law | steps | precision | backend | mean steps/instance | ok rows | instance-steps/s | GFLOP/s |\n";
  s += "| --- | ---: | --- | --- | ---: | ---: | ---: | ---: |\n";
  for (const bench::Measurement& m : ms) {
    if (!m.cfg.integrator()) continue;
    s += "| " + m.cfg.law->name + " | " + std::to_string(m.cfg.steps) + " | " + precision_name(m.cfg.precision) + " | " +
         backend_name(m.cfg.backend) + " | " + fixed(m.mean_steps, 1) + " | " + pct(100.0 * m.ok_fraction) + " | " +
         eng(m.rate.median * m.mean_steps) + " | " + fixed(m.rate.median * m.flops_instance / 1e9, 2) + " |\n";
  }
  return s;
}

// 3. the device's peak shares (cuda configurations only)
std::string cuda_table(const std::vector<bench::Measurement>& ms, const engine::Device& dev) {
  std::string s =
      "\nCUDA: achieved share of the device's peak. FP: flops/instance (cost model) x instances/s over the peak "
      "FP64 (double) or FP32 (float) rate; memory: bytes/instance (inputs read + BatchOut written) x "
      "instances/s over the peak DRAM bandwidth (algebraic laws). The rate is end to end: the batch lives in "
      "host memory and streams through PCIe (kernels/cuda/evaluate.cu), so the last column compares the bytes "
      "moved with what a plain cudaMemcpy between pinned host memory and the device reaches";
  const double link = dev.link_h2d;
  if (std::isfinite(link))
    s += " (measured: " + fixed(dev.link_h2d / 1e9, 1) + " GB/s to the device, " + fixed(dev.link_d2h / 1e9, 1) +
         " GB/s back; the column counts inputs and outputs against the rate to the device, so a path that overlaps "
         "both directions fully could pass 100%)";
  s += ".\n\n";
  s += "| law | steps | precision | instances/s | flops/instance | GFLOP/s | % peak FP | bytes/instance | GB/s "
       "| % peak DRAM | % pinned memcpy |\n";
  s += "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n";
  for (const bench::Measurement& m : ms) {
    if (m.cfg.backend != Backend::cuda) continue;
    const double fl = m.rate.median * m.flops_instance;
    const double peak = dev.peak_fp(m.cfg.single());
    const bool alg = !m.cfg.integrator();
    const double bw = m.rate.median * m.bytes_instance;
    s += "| " + m.cfg.law->name + " | " + steps_cell(m.cfg.steps) + " | " + precision_name(m.cfg.precision) + " | " +
         eng(m.rate.median) + " | " + eng(m.flops_instance) + " | " + fixed(fl / 1e9, 1) + " | " + pct(100.0 * fl / peak) +
         " | " + (alg ? fixed(m.bytes_instance, 0) : "-") + " | " + (alg ? fixed(bw / 1e9, 1) : "-") + " | " +
         (alg ? pct(100.0 * bw / dev.peak_bandwidth) : "-") + " | " +
         (alg && std::isfinite(link) ? pct(100.0 * bw / link) : "-") + " |\n";
  }
  return s;
}

// ---- JSON ------------------------------------------------------------------------------------------
json stat_json(const bench::RateStat& s) {
  return json{{"median", s.median}, {"min", s.min}, {"max", s.max}, {"q1", s.q1}, {"q3", s.q3}};
}

// The "cuda" object: built and usable, then why not, or the device and its peak rates.
json device_json(const engine::Device& d) {
  json j{{"built", d.built}, {"usable", d.usable}};
  if (!d.usable) {
    j["why_not"] = d.why_not;
    return j;
  }
  const bool known = d.rate != nullptr;
  j["device"] = d.name;
  j["ordinal"] = d.ordinal;
  j["compute_capability"] = d.compute_capability();
  j["sm_count"] = d.sm_count;
  j["clock_mhz"] = d.clock_khz / 1e3;
  j["memory_clock_mhz"] = d.mem_clock_khz / 1e3;
  j["memory_bus_bits"] = d.bus_width_bits;
  j["memory_gib"] = double(d.total_mem_bytes) / double(1ull << 30);
  j["driver"] = engine::cuda_version_string(d.driver_version);
  j["runtime"] = engine::cuda_version_string(d.runtime_version);
  j["fma_per_clock_per_sm"] = known ? json{{"fp32", d.rate->fp32}, {"fp64", d.rate->fp64}} : json(nullptr);
  j["peak_gflops_fp64"] = known ? json(d.peak_fp64 / 1e9) : json(nullptr);
  j["peak_gflops_fp32"] = known ? json(d.peak_fp32 / 1e9) : json(nullptr);
  j["peak_bandwidth_gbs"] = d.peak_bandwidth / 1e9;
  j["link_h2d_gbs"] = std::isfinite(d.link_h2d) ? json(d.link_h2d / 1e9) : json(nullptr);
  j["link_d2h_gbs"] = std::isfinite(d.link_d2h) ? json(d.link_d2h / 1e9) : json(nullptr);
  if (!known)
    j["note"] =
        "compute capability " + d.compute_capability() + " is not in the FMA table of host/engine/device.cpp: no peak FP shares";
  return j;
}

json machine_json(const BenchMachine& m) {
  json j{{"cpu", m.cpu},
         {"cores", m.cores},
         {"omp_threads", m.omp_threads},
         {"compiler", m.compiler},
         {"build", json{{"type", m.build_type}, {"optimized", m.optimized}, {"ndebug", m.ndebug}}},
         {"version", m.version},
         {"git_rev", m.git_rev},
         {"date", m.date},
         {"load_average_start", number_or_null(m.load_start)},
         {"load_average_end", number_or_null(m.load_end)},
         {"hostname", m.hostname}};
  j["cuda"] = device_json(m.device);
  return j;
}

json settings_json(const bench::BenchSpec& s) {
  json laws = json::array(), backends = json::array(), precisions = json::array();
  for (const engine::LawInfo* l : s.laws) laws.push_back(l->name);
  for (Backend b : s.backends) backends.push_back(backend_name(b));
  for (Precision p : s.precisions) precisions.push_back(precision_name(p));
  return json{{"laws", laws},
              {"backends", backends},
              {"precisions", precisions},
              {"steps", s.steps},
              {"scenario", s.scenario_name},
              {"seed", s.seed},
              {"min_time", s.min_time},
              {"reps", s.reps},
              {"warmup", s.warmup},
              {"max_n", s.max_n},
              {"integrator", "rk4"}};
}

// The cost model of every law (not only the measured ones): LawInfo::cost.
json cost_model_json() {
  json cm = json::object();
  for (const engine::LawInfo& l : engine::all_laws())
    cm[l.name] =
        l.cost.flops_step > 0 ? json{{"flops_per_step", l.cost.flops_step}} : json{{"flops_per_instance", l.cost.flops_instance}};
  return cm;
}

json measurement_json(const bench::Measurement& m, const engine::Device& dev) {
  const bool alg = !m.cfg.integrator();
  json j{{"law", m.cfg.law->name},
         {"scenario", m.cfg.variant},
         {"backend", backend_name(m.cfg.backend)},
         {"precision", precision_name(m.cfg.precision)},
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
    j["mean_steps"] = m.mean_steps;
    j["instance_steps_per_second"] = stat_json(bench::scaled(m.rate, m.mean_steps));
  }
  j["flops_per_instance"] = number_or_null(m.flops_instance);
  j["gflops"] = std::isfinite(m.flops_instance) ? json(m.rate.median * m.flops_instance / 1e9) : json(nullptr);
  j["bytes_per_instance"] = m.bytes_instance;
  j["gbytes_per_second"] = m.rate.median * m.bytes_instance / 1e9;
  if (m.cfg.backend == Backend::cuda) {
    const double fl = m.rate.median * m.flops_instance;
    j["peak_fp_share"] = number_or_null(fl / dev.peak_fp(m.cfg.single()));
    const double bw = m.rate.median * m.bytes_instance / dev.peak_bandwidth;
    j["peak_bandwidth_share"] = alg && std::isfinite(bw) ? json(bw) : json(nullptr);
  }
  return j;
}

// omp/serial, cuda/omp, cuda/serial per precision, and float/double per backend, of every row
// where both measurements exist.
json ratios_json(const BenchRun& run) {
  json ratios = json::array();
  for (const Row& r : rows_of(run.results)) {
    auto get = [&](Backend b, Precision p) { return find(run.results, r.law, r.steps, p, b); };
    auto add = [&](const char* what, const bench::Measurement* x, const bench::Measurement* y, const char* key, const char* val) {
      const double v = ratio(x, y);
      if (std::isfinite(v))
        ratios.push_back(json{
            {"law", r.law}, {"steps", r.steps > 0 ? json(r.steps) : json(nullptr)}, {key, val}, {"ratio", what}, {"value", v}});
    };
    const Precision p = r.precision;
    const char* pn = precision_name(p);
    add("omp/serial", get(Backend::omp, p), get(Backend::serial, p), "precision", pn);
    add("cuda/omp", get(Backend::cuda, p), get(Backend::omp, p), "precision", pn);
    add("cuda/serial", get(Backend::cuda, p), get(Backend::serial, p), "precision", pn);
    if (p == Precision::f32)
      for (Backend b : run.spec.backends)
        add("float/double", get(b, Precision::f32), get(b, Precision::f64), "backend", backend_name(b));
  }
  return ratios;
}

}  // namespace

BenchMachine bench_machine(double load_start, engine::Device device) {
  BenchMachine m;
  m.cpu = io::cpu_model();
  m.cores = io::hardware_threads();
  m.omp_threads = omp_get_max_threads();
  m.compiler = io::compiler();
  m.build_type = io::build_type();
  m.optimized = io::build_optimized();
  m.ndebug = io::build_ndebug();
  m.version = io::version();
  m.git_rev = io::git_revision();
  m.date = io::utc_now();
  m.hostname = io::hostname();
  m.load_start = load_start;
  m.load_end = io::load_average();
  m.device = std::move(device);
  return m;
}

std::string bench_markdown(const BenchRun& run) {
  std::string s = header_lines(run) + throughput_table(run) + integrator_table(run.results);
  if (has_backend(run.spec.backends, Backend::cuda)) s += cuda_table(run.results, run.machine.device);
  return s;
}

json bench_json(const BenchRun& run, const std::string& markdown) {
  json j;
  j["tool"] = "impact bench";
  j["machine"] = machine_json(run.machine);
  j["settings"] = settings_json(run.spec);
  json sk = json::array();
  for (const SkippedBackend& s : run.skipped) sk.push_back(json{{"backend", s.backend}, {"reason", s.reason}});
  j["skipped"] = sk;
  j["cost_model"] = cost_model_json();
  json res = json::array();
  for (const bench::Measurement& m : run.results) res.push_back(measurement_json(m, run.machine.device));
  j["results"] = res;
  j["ratios"] = ratios_json(run);
  j["markdown"] = markdown;
  return j;
}

std::string progress_line(const bench::Measurement& m, std::size_t k, std::size_t total, int reps) {
  const bench::BenchConfig& c = m.cfg;
  const std::string st = c.integrator() ? " steps " + std::to_string(c.steps) : "";
  const std::string isteps = c.integrator() ? ", " + eng(m.rate.median * m.mean_steps) + " instance-steps/s" : "";
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "impact bench: [%zu/%zu] %s%s %s %s: n %zu x %d call%s, %d reps: %s instances/s (min %s, max %s)%s\n", k + 1,
                total, c.law->name.c_str(), st.c_str(), backend_name(c.backend), precision_name(c.precision), m.n, m.calls,
                m.calls == 1 ? "" : "s", reps, eng(m.rate.median).c_str(), eng(m.rate.min).c_str(), eng(m.rate.max).c_str(),
                isteps.c_str());
  return buf;
}

}  // namespace impact::cli
