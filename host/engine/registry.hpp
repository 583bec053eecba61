// The registry of the impact laws: one LawInfo per entry of the law list (impact/laws/all.hpp),
// derived from the law's own metadata (impact/law_meta.hpp) with its batch entry points per
// backend and precision. The CPU reference entry points live one layer up (host/reference:
// ref::batch_fn), so batch_fn() here has none.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "engine/options.hpp"
#include "impact/law_meta.hpp"
#include "impact/sampling.hpp"
#include "kernels/batch.hpp"
#include "kernels/device_rows.hpp"

namespace impact::engine {

template <class T>
using BatchFn = void (*)(const BatchIn<T>&, const BatchOut<T>&, const LawOptions&);
// A batch entry point, or whatever is called like one (engine::TrialBatch: auto's trial).
template <class T>
using BatchCall = std::function<void(const BatchIn<T>&, const BatchOut<T>&, const LawOptions&)>;

// Summary of the sampled instances [begin, end) of a study (kernels/sampled.hpp).
template <class T>
using SampledFn = BatchSummary (*)(const SampleSpec&, std::uint64_t seed, std::uint64_t begin, std::uint64_t end,
                                   const LawOptions&, const SummaryRanges&);

// The law over rows [0, n) of a caller's arrays on CUDA device `device` (cuda::evaluate_device_arrays):
// the first row whose W is not symmetric, or -1.
template <class T>
using ArraysFn = std::int64_t (*)(int device, const cuda::DeviceInputs&, std::size_t n, const cuda::DeviceOutputs<T>&,
                                  const LawOptions&);

// The entry points of one law on the serial, omp and cuda backends (cuda: null without CUDA).
constexpr int kDeviceBackends = 3;
template <class T>
struct EntryPoints {
  BatchFn<T> batch[kDeviceBackends];
  SampledFn<T> sampled[kDeviceBackends];
  ArraysFn<T> device_arrays;  // the caller's arrays on a device (cuda::evaluate_device_arrays); null without CUDA
};

struct LawInfo {
  int index;  // position in IMPACT_FOR_EACH_LAW
  std::string name, summary;
  ParamUse use;
  std::vector<ExtraColumn> extras;
  Cost cost;
  EntryPoints<double> f64;
  EntryPoints<float> f32;

  bool reads(int input_column) const { return input_needed(input_column, use); }
  int input_count() const;                                 // input columns the law reads
  bool integrator() const { return cost.flops_step > 0; }  // work per instance grows with LawOptions::steps
  // The cost model (docs/bench.md): bytes one instance moves (the input columns the law reads, every
  // BatchOut column) and flops per instance (per step x the mean steps taken for an integrator).
  double bytes_per_instance(Precision p) const;
  double flops_per_instance(double mean_steps) const;
};

const std::vector<LawInfo>& all_laws();
const LawInfo* find_law(std::string_view name);
std::string law_names();  // "a, b, c"
// The law named `name`; std::invalid_argument "unknown law 'x' (known: a, b, c)" otherwise.
const LawInfo& law_named(std::string_view name);

// The batch / sampled-reduction entry point of a law for precision T on a backend: null for cuda in a
// CPU build and for the reference (host/reference/reference.hpp has its entry points).
template <class T>
const EntryPoints<T>& entry_points(const LawInfo& law) {
  if constexpr (std::is_same_v<T, double>) return law.f64;
  else return law.f32;
}
template <class T>
BatchFn<T> batch_fn(const LawInfo& law, Backend b) {
  return b == Backend::reference ? nullptr : entry_points<T>(law).batch[static_cast<int>(b)];
}
template <class T>
SampledFn<T> sampled_fn(const LawInfo& law, Backend b) {
  return b == Backend::reference ? nullptr : entry_points<T>(law).sampled[static_cast<int>(b)];
}

}  // namespace impact::engine
