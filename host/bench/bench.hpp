// The measurement harness of `impact bench` (docs/bench.md, "What one measurement is"): the plan of
// configurations (law x steps x precision x backend), the pool of sampled instances they share, and
// one Measurement per configuration: calibration of the batch size, untimed warm-up repetitions,
// timed repetitions, the cost model. The tables, the JSON and the command line are host/cli/bench*.
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "engine/columns.hpp"
#include "engine/options.hpp"
#include "engine/registry.hpp"
#include "impact/sampling.hpp"

namespace impact::bench {

// What to measure and how (the checked command line).
struct BenchSpec {
  std::vector<const engine::LawInfo*> laws;
  std::vector<engine::Backend> backends;
  std::vector<engine::Precision> precisions;
  std::vector<int> steps;  // LawOptions::steps of the integrators' configurations
  Scenario scenario = Scenario::contact;
  std::string scenario_name = "contact";  // as given (the variant of every law but morgan)
  std::vector<std::string> sets;          // KEY=DIST settings of the scenario (`impact reduce --set`)
  std::uint64_t seed = 1;
  double min_time = 0.5;  // seconds per repetition
  int reps = 5;           // timed repetitions
  int warmup = 1;         // untimed repetitions after the calibration
  std::size_t max_n = 1;  // instances in a batch at most (batch_cap())
};

// One configuration: a law on an instance set, with a backend, a precision and a step count.
struct BenchConfig {
  const engine::LawInfo* law = nullptr;
  std::string variant;  // the instance set: the scenario's name, or "ball-planar" for morgan
  SampleSpec spec;
  engine::Backend backend = engine::Backend::serial;
  engine::Precision precision = engine::Precision::f64;
  int steps = 0;  // 0: the law does not read LawOptions::steps (an algebraic law)

  bool integrator() const { return steps > 0; }
  bool single() const { return precision == engine::Precision::f32; }
};

// True when the law's results depend on LawOptions::steps (the integrators): a probe on 32 sampled
// instances with 8 and with 16 steps.
bool reads_steps(const engine::LawInfo& law, const SampleSpec& spec, std::uint64_t seed);

// Every configuration in run order: law, steps, precision, backend. morgan (planar only) gets planar
// balls; only the laws that read the steps get one configuration per step count.
std::vector<BenchConfig> bench_plan(const BenchSpec& spec);

// The batch size limit: max_n, and 30% of MemAvailable over the pool's bytes per instance (all
// input and output columns, double + float). At least 1.
std::size_t batch_cap(std::uint64_t max_n);

// Median, extremes and quartiles (linear interpolation) of a sample; zeros when it is empty.
struct RateStat {
  double median = 0, min = 0, max = 0, q1 = 0, q3 = 0;
};
RateStat rate_stat(std::vector<double> v);
RateStat scaled(RateStat s, double factor);  // every field times factor

struct Measurement {
  BenchConfig cfg;
  std::size_t n = 0;               // instances in the batch
  int calls = 1;                   // batch calls per repetition
  double calibration_seconds = 0;  // calibration and warm-up repetitions
  std::vector<double> seconds;     // per timed repetition
  RateStat rate;                   // instances/s
  double mean_steps = 0;           // mean of the steps output column (integrators)
  double ok_fraction = 0;
  double flops_instance = NAN;  // cost model
  double bytes_instance = 0;
};

// Sampled instances [0, n) of one instance set as input columns, with output columns for them;
// the pool only grows.
template <class T>
struct InstancePool {
  engine::InputColumns<T> in;
  engine::OutputColumns<T> out;
  std::size_t n = 0;

  void clear() { *this = InstancePool(); }
  // Instances [0, m) materialized (in parallel blocks: each is a pure function of its index).
  void ensure(const SampleSpec& spec, std::uint64_t seed, std::size_t m);
};

// Measures configurations one after the other, on one instance set in memory at a time (both
// precisions, reused while the variant stays). The CUDA device is warmed up (engine::
// warm_up_device) before the first cuda configuration, so that its calibration does not time the
// context's start-up; CPU configurations never touch the device.
class BenchHarness {
 public:
  explicit BenchHarness(BenchSpec spec) : spec_(std::move(spec)) {}
  Measurement measure(const BenchConfig& c);

 private:
  template <class T>
  Measurement measure_in(const BenchConfig& c, InstancePool<T>& pool);
  BenchSpec spec_;
  InstancePool<double> f64_;
  InstancePool<float> f32_;
  std::string variant_;  // of the pools
  bool device_warm_ = false;
};

}  // namespace impact::bench
