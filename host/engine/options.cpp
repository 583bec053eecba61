#include "engine/options.hpp"

#include "io/cancel.hpp"

#include <stdexcept>

#ifdef IMPACT_WITH_CUDA
#include "kernels/cuda/cuda.hpp"
#endif

namespace impact::engine {

const char* backend_name(Backend b) {
  return b == Backend::reference ? "reference" : b == Backend::cuda ? "cuda" : b == Backend::omp ? "omp" : "serial";
}
const char* precision_name(Precision p) { return p == Precision::f32 ? "float" : "double"; }
const char* integrator_name(Integrator i) { return i == Integrator::euler ? "euler" : "rk4"; }

Precision parse_precision(std::string_view s) {
  if (s == "double") return Precision::f64;
  if (s == "float") return Precision::f32;
  throw std::invalid_argument("precision must be 'double' or 'float', got '" + std::string(s) + "'");
}

Integrator parse_integrator(std::string_view s) {
  if (s == "rk4") return Integrator::rk4;
  if (s == "euler") return Integrator::euler;
  throw std::invalid_argument("integrator must be 'rk4' or 'euler', got '" + std::string(s) + "'");
}

LawOptions law_options(int steps, Integrator integrator) {
  if (steps < 1) throw std::invalid_argument("--steps must be >= 1");
  LawOptions o;
  o.steps = steps;
  o.integrator = integrator;
  return o;
}

LawOptions stoppable(LawOptions o) {
  o.stop = io::stop_flag();
  return o;
}

Backend resolve_backend(std::string_view name, Precision precision, bool allow_reference) {
  std::string why;
  if (name == "auto") return cuda_usable(&why) ? Backend::cuda : Backend::omp;
  if (name == "cuda") {
    if (!cuda_usable(&why)) throw std::invalid_argument("backend 'cuda' is not usable: " + why);
    return Backend::cuda;
  }
  if (name == "omp") return Backend::omp;
  if (name == "serial") return Backend::serial;
  if (name == "reference" && allow_reference) {
    if (precision != Precision::f64)
      throw std::invalid_argument(std::string("backend 'reference' is double precision only (got --precision ") +
                                  precision_name(precision) + ")");
    return Backend::reference;
  }
  throw std::invalid_argument("unknown backend '" + std::string(name) + "' (known: auto, cuda, omp, serial" +
                              (allow_reference ? ", reference)" : ")"));
}

bool cuda_built() {
#ifdef IMPACT_WITH_CUDA
  return true;
#else
  return false;
#endif
}

void check_cuda_environment() {
#ifdef IMPACT_WITH_CUDA
  (void)cuda::default_reduce_schedule();
#endif
}

bool cuda_usable(std::string* why) {
#ifdef IMPACT_WITH_CUDA
  return cuda::device_available(why);
#else
  if (why) *why = "this build has no CUDA backend (configure with -DIMPACT_CUDA=ON where nvcc exists)";
  return false;
#endif
}

}  // namespace impact::engine
