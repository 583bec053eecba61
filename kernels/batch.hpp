// Structure-of-arrays batch layout and the per-instance functors that every backend runs (serial
// loop, Thrust OMP, CUDA kernel). One call = one impact instance, the whole law evaluated in
// registers; the functor reads its inputs once and writes its outputs once. The columns and their
// order are those of impact/columns.hpp.
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "impact/columns.hpp"
#include "impact/problem.hpp"
#include "impact/stats.hpp"
#include "kernels/launch_traits.hpp"

namespace impact {

// Input columns, each an array of `count` values, in InputColumn order. A null parameter column
// (mu, e, e_t, eta0) is one the law does not read: it sees input_default() instead.
template <class T>
struct BatchIn {
  const T* col[kNumInputs];
  std::size_t count;
};

// Output columns: the real-valued ones in OutputColumn order, then the mode sequences, step counts
// and statuses.
template <class T>
struct BatchOut {
  T* real[kNumRealOutputs];
  std::uint32_t* modes;
  std::int32_t* steps;
  std::uint8_t* status;
};

// Bytes of one output row (all columns).
template <class T>
constexpr std::size_t output_row_bytes() {
  return kNumRealOutputs * sizeof(T) + sizeof(std::uint32_t) + sizeof(std::int32_t) + sizeof(std::uint8_t);
}

// A BatchOut over one packed block of m rows: the real columns, then modes, steps and status, each
// contiguous (the CUDA staging buffers). `base` holds m * output_row_bytes<T>() bytes.
template <class T>
BatchOut<T> packed_batch_out(void* base, std::size_t m) {
  BatchOut<T> o;
  T* t = static_cast<T*>(base);
  for (int k = 0; k < kNumRealOutputs; ++k) o.real[k] = t + std::size_t(k) * m;
  o.modes = reinterpret_cast<std::uint32_t*>(t + std::size_t(kNumRealOutputs) * m);
  o.steps = reinterpret_cast<std::int32_t*>(o.modes + m);
  o.status = reinterpret_cast<std::uint8_t*>(o.steps + m);
  return o;
}

// A BatchIn over input columns in InputColumn order (null parameter columns: not read).
template <class T>
BatchIn<T> batch_in_of(const T* const cols[kNumInputs], std::size_t count) {
  BatchIn<T> b;
  for (int k = 0; k < kNumInputs; ++k) b.col[k] = cols[k];
  b.count = count;
  return b;
}

// The same batch shifted by `offset` rows (count rows from there).
template <class T>
BatchIn<T> slice(const BatchIn<T>& in, std::size_t offset, std::size_t count) {
  BatchIn<T> b;
  for (int k = 0; k < kNumInputs; ++k) b.col[k] = in.col[k] ? in.col[k] + offset : nullptr;
  b.count = count;
  return b;
}
template <class T>
BatchOut<T> slice(const BatchOut<T>& out, std::size_t offset) {
  BatchOut<T> b;
  for (int k = 0; k < kNumRealOutputs; ++k) b.real[k] = out.real[k] + offset;
  b.modes = out.modes + offset;
  b.steps = out.steps + offset;
  b.status = out.status + offset;
  return b;
}

template <class T>
IMPACT_HDI ContactProblem<T> load_instance(const BatchIn<T>& in, std::size_t i) {
  T v[kNumInputs];
  for (int k = 0; k < kNumInputs; ++k) v[k] = in.col[k] ? in.col[k][i] : input_default<T>(k);
  return from_columns(v);
}

template <class T>
IMPACT_HDI void store_result(const BatchOut<T>& out, std::size_t i, const Result<T>& r) {
  T v[kNumRealOutputs];
  real_outputs(r, v);
  for (int k = 0; k < kNumRealOutputs; ++k) out.real[k][i] = v[k];
  out.modes[i] = r.modes.bits;
  out.steps[i] = r.steps;
  out.status[i] = static_cast<std::uint8_t>(r.status);
}

template <class T>
IMPACT_HDI Result<T> load_result(const BatchOut<T>& out, std::size_t i) {
  T v[kNumRealOutputs];
  for (int k = 0; k < kNumRealOutputs; ++k) v[k] = out.real[k][i];
  return from_outputs(v, out.modes[i], out.steps[i], out.status[i]);
}

template <class Law, class T>
struct EvalFunctor {
  BatchIn<T> in;
  BatchOut<T> out;
  LawOptions opt;
  IMPACT_HDI void operator()(std::size_t i) const { store_result(out, i, Law::template eval<T>(load_instance(in, i), opt)); }
};

// Bits of a regime key (impact/probe.hpp: slip_ratio_key and stop_fraction_key, a 3D flag over 10
// bits).
constexpr int kRegimeKeyBits = 11;

// The regime key of row i.
template <class Law, class T>
struct KeyFunctor {
  BatchIn<T> in;
  IMPACT_HDI std::uint32_t operator()(std::size_t i) const { return LaunchTraits<Law>::regime_key(load_instance(in, i)); }
};

// Regime sorting only where it can pay: a batch whose keys are all one value (a sweep of
// identical or near-identical instances: the identical-ball runs) gains nothing from the key pass
// and the sort, which cost jia 40% there on an H200 (4.31e7 -> 2.57e7/s). The host looks at the keys
// of kKeyProbes rows spread evenly over the range (the first and the last among them); if they are
// all alike, the range runs in its plain order. Only the order of evaluation depends on it, never a
// result, and the decision depends on the rows alone (not on timing or the machine).
constexpr std::size_t kKeyProbes = 64;
template <class KeyOf>
bool keys_look_uniform(std::size_t n, const KeyOf& key_of) {
  if (n < 2) return true;
  const std::size_t probes = n < kKeyProbes ? n : kKeyProbes;
  const std::uint32_t k0 = key_of(std::size_t(0));
  for (std::size_t j = 1; j < probes; ++j)
    if (key_of(j * (n - 1) / (probes - 1)) != k0) return false;
  return true;
}
// Whether n rows are worth sorting by regime key: the law has a key and the probed keys of the rows
// instance_of(0 .. n - 1) differ. The one test both paths use (a batch in host memory below,
// sampled instances in kernels/sampled.hpp).
template <class Law, class InstanceOf>
bool keys_vary(std::size_t n, const InstanceOf& instance_of) {
  if constexpr (HasRegimeKey<Law>::value)
    return !keys_look_uniform(n, [&](std::size_t i) { return LaunchTraits<Law>::regime_key(instance_of(i)); });
  else return false;
}
// Rows [first, first + n) of a batch in host memory.
template <class Law, class T>
bool batch_keys_vary(const BatchIn<T>& in, std::size_t first, std::size_t n) {
  return keys_vary<Law>(n, [&](std::size_t i) { return load_instance(in, first + i); });
}

// Evaluates row i and returns its summary instead of storing it (on-device reduction).
template <class Law, class T>
struct SummarizeFunctor {
  BatchIn<T> in;
  LawOptions opt;
  SummaryRanges ranges;
  IMPACT_HDI BatchSummary operator()(std::size_t i) const {
    const ContactProblem<T> p = load_instance(in, i);
    return summarize_row(p, Law::template eval<T>(p, opt), ranges);
  }
};

struct MergeSummaries {
  IMPACT_HDI BatchSummary operator()(const BatchSummary& a, const BatchSummary& b) const { return merge(a, b); }
};

}  // namespace impact
