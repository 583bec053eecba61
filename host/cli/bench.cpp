// `impact bench`: see bench.hpp and docs/bench.md. The command: options, their checks, the run
// (host/bench/bench.hpp measures), the outputs (bench_report.hpp formats).
#include "cli/bench.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/bench_report.hpp"
#include "engine/device.hpp"
#include "engine/options.hpp"
#include "engine/registry.hpp"
#include "io/machine.hpp"
#include "io/out_file.hpp"
#include "bench/bench.hpp"
#include "systems/sample_spec.hpp"
#include "impact/sampling.hpp"

namespace impact::cli {

using bench::BenchConfig;
using bench::BenchSpec;
using bench::Measurement;
using engine::Backend;
using engine::LawInfo;
using engine::Precision;

namespace {

using Clock = std::chrono::steady_clock;

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

template <class X>
void push_unique(std::vector<X>& v, const X& x) {
  if (std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
}

// --laws: every law for none or "all", else the named ones in order, each once.
std::vector<const LawInfo*> laws_of(const std::vector<std::string>& args) {
  std::vector<std::string> names = split_all(args);
  std::vector<const LawInfo*> laws;
  if (names.empty() || std::find(names.begin(), names.end(), "all") != names.end()) {
    for (const LawInfo& l : engine::all_laws()) laws.push_back(&l);
    return laws;
  }
  for (const std::string& n : names) push_unique(laws, &engine::law_named(n));
  return laws;
}

// --precisions: double and float for none (the message names the bench's choices)
std::vector<Precision> precisions_of(const std::vector<std::string>& args) {
  std::vector<Precision> ps;
  for (const std::string& p : split_all(args)) {
    if (p != "double" && p != "float") throw std::invalid_argument("unknown precision '" + p + "' (known: double, float)");
    push_unique(ps, engine::parse_precision(p));
  }
  if (ps.empty()) ps = {Precision::f64, Precision::f32};
  return ps;
}

// Everything but the backends, checked in the order of docs/bench.md's usage errors.
bench::BenchSpec spec_of(const BenchArgs& a) {
  bench::BenchSpec s;
  s.laws = laws_of(a.laws);
  s.precisions = precisions_of(a.precisions);
  for (int st : a.steps) {
    if (st < 1) throw std::invalid_argument("--steps must be >= 1, got " + std::to_string(st));
    push_unique(s.steps, st);
  }
  if (s.steps.empty()) s.steps = {250, 1000};
  if (!(a.min_time > 0) || !std::isfinite(a.min_time)) throw std::invalid_argument("--min-time must be > 0");
  if (a.reps < 1) throw std::invalid_argument("--reps must be >= 1");
  if (a.warmup < 0) throw std::invalid_argument("--warmup must be >= 0");
  if (a.max_n < 1) throw std::invalid_argument("--max-n must be >= 1");
  if (!a.json.empty() && !a.markdown.empty() && io::same_destination(a.json, a.markdown))
    throw std::invalid_argument("--json " + a.json + " and --markdown " + a.markdown +
                                " name one file (standard output counts as one): name another for one of them");
  s.scenario = systems::parse_scenario(a.scenario);
  s.scenario_name = a.scenario;
  s.sets = a.sets;
  if (!a.sets.empty()) {
    SampleSpec check = systems::default_spec(s.scenario);
    systems::apply_settings(check, a.sets);  // errors now, naming the key
    for (const std::string& kv : a.sets) s.scenario_name += " " + kv;
  }
  s.seed = a.seed;
  s.min_time = a.min_time;
  s.reps = a.reps;
  s.warmup = a.warmup;
  return s;
}

// --backends: serial, omp and cuda for none; cuda without a usable device is skipped (a usage
// error when nothing else is left).
std::vector<Backend> backends_of(const std::vector<std::string>& args, const engine::Device& dev,
                                 std::vector<SkippedBackend>& skipped) {
  std::vector<std::string> names = split_all(args);
  if (names.empty()) names = {"serial", "omp", "cuda"};
  std::vector<Backend> backends;
  for (const std::string& n : names) {
    Backend b;
    if (n == "serial") b = Backend::serial;
    else if (n == "omp") b = Backend::omp;
    else if (n == "cuda") b = Backend::cuda;
    else throw std::invalid_argument("unknown backend '" + n + "' for bench (known: serial, omp, cuda)");
    if (std::find(backends.begin(), backends.end(), b) != backends.end()) continue;
    if (b == Backend::cuda && !dev.usable) {
      skipped.push_back({"cuda", dev.why_not});
      continue;
    }
    backends.push_back(b);
  }
  if (backends.empty()) throw std::invalid_argument("nothing to measure: backend 'cuda' is not usable: " + dev.why_not);
  return backends;
}

// Every configuration of the plan, one after the other (a progress line each to `log`, if any).
std::vector<bench::Measurement> measure_plan(const std::vector<bench::BenchConfig>& plan, const bench::BenchSpec& spec,
                                             std::FILE* log) {
  std::vector<bench::Measurement> ms;
  bench::BenchHarness harness(spec);
  for (std::size_t k = 0; k < plan.size(); ++k) {
    ms.push_back(harness.measure(plan[k]));
    if (log) {
      std::fputs(progress_line(ms.back(), k, plan.size(), spec.reps).c_str(), log);
      std::fflush(log);
    }
  }
  return ms;
}

}  // namespace

CLI::App* add_bench_subcommand(CLI::App& app, BenchArgs& a) {
  CLI::App* c = app.add_subcommand("bench",
                                   "Throughput of every law x backend x precision (x steps for the integrators) in one "
                                   "run (docs/bench.md)");
  c->add_option("--laws", a.laws, "Laws, comma-separated (default: all: " + engine::law_names() + ")")->delimiter(',');
  c->add_option("--backends", a.backends, "serial,omp,cuda (default: serial, omp, and cuda when usable)")->delimiter(',');
  c->add_option("--precisions", a.precisions, "double,float (default: both)")->delimiter(',');
  c->add_option("--steps", a.steps, "Steps per instance for the integrators, comma-separated (default: 250,1000)")
      ->delimiter(',');
  c->add_option("--scenario", a.scenario, "Sampled instances: contact|ball (morgan always gets planar balls)")
      ->capture_default_str();
  c->add_option("--seed", a.seed, "Philox seed of the instances")->capture_default_str();
  c->add_option("--set", a.sets, "KEY=DIST: a distribution of the scenario, as for `impact reduce` (repeatable)");
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
  std::FILE* progress = a.quiet ? nullptr : log;
  BenchRun run;
  run.spec = spec_of(a);
  engine::Device dev = engine::query_device();
  run.spec.backends = backends_of(a.backends, dev, run.skipped);
  if (progress)
    for (const SkippedBackend& s : run.skipped)
      std::fprintf(progress, "impact bench: skipping backend %s: %s\n", s.backend.c_str(), s.reason.c_str());

  const std::vector<bench::BenchConfig> plan = bench::bench_plan(run.spec);
  run.spec.max_n = bench::batch_cap(a.max_n);
  if (progress)
    std::fprintf(progress,
                 "impact bench: %zu configurations, %d reps of ~%g s (+ calibration, %d warm-up): about %.0f s; "
                 "batches of at most %zu instances\n",
                 plan.size(), a.reps, a.min_time, a.warmup, double(plan.size()) * a.min_time * (a.reps + a.warmup + 1.5),
                 run.spec.max_n);
  const double load0 = io::load_average();
  const int cores = io::hardware_threads();
  if (progress && load0 > 0.5 * cores)
    std::fprintf(progress,
                 "impact bench: warning: load average %.1f on %d cores before the run: other processes compete for "
                 "the CPUs, so timings are noisy and the OMP rates pessimistic\n",
                 load0, cores);

  const auto t_all = Clock::now();
  run.results = measure_plan(plan, run.spec, progress);
  for (const bench::BenchConfig& c : plan)
    if (c.backend == engine::Backend::cuda) {  // the eval path's ceiling, for the CUDA table
      engine::measure_link(dev);
      break;
    }
  run.machine = bench_machine(load0, std::move(dev));
  const std::string md = bench_markdown(run);
  nlohmann::ordered_json j = bench_json(run, md);
  j["wall_seconds"] = std::chrono::duration<double>(Clock::now() - t_all).count();

  if (!a.json.empty()) io::write_file(a.json, j.dump(2) + "\n", io::Links::follow);
  if (!a.markdown.empty()) io::write_file(a.markdown, md, io::Links::follow);
  if (table && !a.quiet && a.json != "-" && a.markdown != "-") {
    std::fputs(md.c_str(), table);
    std::fflush(table);
  }
  return 0;
}

}  // namespace impact::cli
