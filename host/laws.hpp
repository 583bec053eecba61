// Registry of the impact laws the CLI knows: which input columns each reads, which extra
// output columns it writes, and its batch entry points per precision and backend.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "impact/sampling.hpp"
#include "kernels/batch.hpp"

namespace impact::host {

enum class Extra { In_c, Aux0, Aux1, Aux2, Aux3, Aux4, Modes, Steps };

struct ExtraColumn {
  const char* name;
  Extra what;
};

template <class T>
using BatchFn = void (*)(const BatchIn<T>&, const BatchOut<T>&, const LawOptions&);

// Summary of the sampled instances [begin, end) of a study (kernels/sampled.hpp).
template <class T>
using SampledFn = BatchSummary (*)(const SampleSpec&, std::uint64_t seed, std::uint64_t begin, std::uint64_t end,
                                   const LawOptions&, const SummaryRanges&);

struct LawInfo {
  std::string name;
  std::string summary;
  bool uses_mu, uses_e, uses_et, uses_eta0;
  std::vector<ExtraColumn> extras;
  BatchFn<double> serial_double;
  BatchFn<float> serial_float;
  BatchFn<double> omp_double;
  BatchFn<float> omp_float;
  BatchFn<double> cuda_double;  // null when built without CUDA
  BatchFn<float> cuda_float;
  BatchFn<double> reference_double;  // the CPU reference path (host/reference.hpp), double only
  // reduction over sampled instances (`impact reduce`)
  SampledFn<double> sampled_serial_double;
  SampledFn<float> sampled_serial_float;
  SampledFn<double> sampled_omp_double;
  SampledFn<float> sampled_omp_float;
  SampledFn<double> sampled_cuda_double;  // null when built without CUDA
  SampledFn<float> sampled_cuda_float;
};

enum class Backend { serial, omp, cuda, reference };
const char* backend_name(Backend b);

// The batch entry point of a law for precision T on a backend (null for cuda in a CPU build, and
// for the reference in float: the reference is double only).
template <class T>
BatchFn<T> batch_fn(const LawInfo& law, Backend b) {
  if constexpr (std::is_same_v<T, double>)
    return b == Backend::reference ? law.reference_double
           : b == Backend::cuda    ? law.cuda_double
           : b == Backend::omp     ? law.omp_double
                                   : law.serial_double;
  else
    return b == Backend::reference ? nullptr
           : b == Backend::cuda    ? law.cuda_float
           : b == Backend::omp     ? law.omp_float
                                   : law.serial_float;
}

// The sampled-reduction entry point of a law for precision T on a backend (null for cuda in a
// CPU build, and for the reference, which has none).
template <class T>
SampledFn<T> sampled_fn(const LawInfo& law, Backend b) {
  if constexpr (std::is_same_v<T, double>)
    return b == Backend::reference ? nullptr
           : b == Backend::cuda    ? law.sampled_cuda_double
           : b == Backend::omp     ? law.sampled_omp_double
                                   : law.sampled_serial_double;
  else
    return b == Backend::reference ? nullptr
           : b == Backend::cuda    ? law.sampled_cuda_float
           : b == Backend::omp     ? law.sampled_omp_float
                                   : law.sampled_serial_float;
}

// Backends compiled into this build, and whether a CUDA device is usable now (`why` explains).
bool cuda_built();
bool cuda_usable(std::string* why = nullptr);

const std::vector<LawInfo>& all_laws();
const LawInfo* find_law(std::string_view name);
std::string law_names();  // "a, b, c"

// "slip>stick>slip" from a packed mode sequence ("none" when empty).
std::string modes_string(std::uint32_t bits);

}  // namespace impact::host
