// The run options as enums: backend, precision, integrator. Strings from the command line or a
// study config are converted once, at that boundary (host/cli, study/config), with the
// messages below; everything underneath takes the enums.
#pragma once
#include <string>
#include <string_view>

#include "impact/problem.hpp"

namespace impact::engine {

enum class Backend { serial, omp, cuda, reference };
enum class Precision { f64, f32 };

const char* backend_name(Backend b);        // serial, omp, cuda, reference
const char* precision_name(Precision p);    // double, float
const char* integrator_name(Integrator i);  // euler, rk4

// "double" | "float"; throws std::invalid_argument("precision must be 'double' or 'float', got '...'").
Precision parse_precision(std::string_view s);
// "rk4" | "euler"; throws std::invalid_argument("integrator must be 'rk4' or 'euler', got '...'").
Integrator parse_integrator(std::string_view s);
// LawOptions after checking steps >= 1 (std::invalid_argument "--steps must be >= 1").
LawOptions law_options(int steps, Integrator integrator);
// `o` whose integrators on the host end an instance early once a front end stops (LawOptions::stop,
// io::stop_flag): only for runs that call io::check_cancelled() after every batch they evaluate
// with it, so that no row of a stopped batch is used (a study's laws, a calibration model's pieces,
// Python's evaluate).
LawOptions stoppable(LawOptions o);

// The backend named by `name`: auto (cuda when a device is usable, else omp; the commands choose
// by a modelled rate instead: engine/backend_pick.hpp), cuda (an error when no device is usable),
// omp, serial, and reference where allowed (double only). Throws std::invalid_argument with the
// reason.
Backend resolve_backend(std::string_view name, Precision precision, bool allow_reference);

// Backends compiled into this build, and whether a CUDA device is usable now (`why` explains, or
// names the device).
bool cuda_built();
bool cuda_usable(std::string* why = nullptr);
// Checks the environment variables that steer the CUDA backend (IMPACT_CUDA_LANES: the sampled
// reduction's schedule, kernels/cuda/cuda.hpp default_reduce_schedule), so that a bad value is a
// usage error before any work; std::invalid_argument. Nothing to check without CUDA.
void check_cuda_environment();

}  // namespace impact::engine
