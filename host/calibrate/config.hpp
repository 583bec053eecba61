// The config of `impact calibrate` (TOML or JSON, read as a study's: io/config_tree.hpp, every
// error located and naming its key; docs/calibration.md):
//
//   [calibrate] name, scenario, law, laws (which law explains the data: host/comparison/comparison.hpp), description, method (smc: the posterior by tempered SMC, with
//               its evidence and modes, infer/smc.hpp; ensemble, or its old name mcmc: the posterior
//               by the stretch-move sampler; fit: its maximum and the Laplace approximation,
//               infer/fit.hpp)
//   [run]       backend (auto|cuda|omp|serial), precision, integrator, steps
//   [data]      file (relative to the config's folder), observed = [outputs], sigma = {output = sd},
//               ignore = [columns]
//   [params]    a number: fixed for every experiment; a distribution (the study's grammar,
//               design/param_text.hpp): free, with that prior (a law's parameter that the law does
//               not read is ignored: `ignored`)
//   [mcmc]      walkers (even, >= 2 x free; default max(16, 4 x free) rounded up to even), steps,
//               burn (default steps / 4), seed, a (the stretch scale, 2)
//   [smc]       particles ("auto": 2048 on the CPU, 32768 on a GPU; a multiple of runs), runs (16),
//               ess_target (0.5), seed, max_stages (500), moves (Metropolis steps per stage at most, 64)
//   [fit]       starts (points drawn from the prior, each optimised; default 8), seed, algorithm
//               (bobyqa|neldermead|sbplx|cobyla), xtol, ftol, max_evals (per start), laplace
//   [output]    dir (default out/NAME), plots (default true: corner.png, predictive.png)
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "calibrate/data.hpp"
#include "infer/fit.hpp"
#include "resume/sampler_checkpoint.hpp"
#include "infer/smc.hpp"
#include "design/design.hpp"
#include "engine/options.hpp"
#include "io/config_tree.hpp"

namespace impact::calibrate {

using infer::fit_algorithm_list;
using infer::fit_algorithms;
using infer::FitOptions;

struct CalibrateConfig {
  std::string name = "calibration", description, scenario, law;
  // calibrate.laws: the laws whose evidence is compared (host/comparison/comparison.hpp), each run by SMC into
  // output.dir/LAW; empty: one run of `law` (the first of them when law is not given)
  std::vector<std::string> laws;
  std::string backend = "auto";
  engine::Precision precision = engine::Precision::f64;
  Integrator integrator = Integrator::rk4;
  int steps = 250;
  DataSpec data;
  std::vector<std::pair<std::string, double>> fixed;
  std::vector<design::ParamSpec> free;
  // Free parameters of a law (mu, e, e_t, eta0) that calibrate.law does not read (stronge: eta0):
  // not sampled, so that one config serves every law (their prior integrates to one: the evidence
  // is the same as with them sampled).
  std::vector<design::ParamSpec> ignored;
  std::size_t walkers = 0;
  std::uint64_t mcmc_steps = 2000, burn = 0, seed = 1;
  double a = 2.0;
  std::string method = "smc";  // smc (the default) | ensemble (or its old name mcmc) | fit
  infer::SmcOptions smc;       // smc.particles 0: "auto", sized to the backend (smc_particles)
  FitOptions fit;
  std::size_t fit_starts = 8;  // the most starts of the local optimiser
  std::uint64_t fit_seed = 1;
  // The global stage's scrambled Sobol' design over the prior: its points (0: no global stage, the
  // starts drawn from the prior), "auto" (fit_global_auto) sized by fit_design_points.
  std::size_t fit_global = 0;
  bool fit_global_auto = true;
  std::string out_dir;
  bool plots = true;  // corner.png and predictive.png (scripts/plot_calibration.py)
  // --checkpoint DIR, --resume, --checkpoint-every: how the run is kept, not what it computes (not
  // in to_json: a resumed run's metadata is the uninterrupted run's)
  resume::CheckpointOptions checkpoint;
};

// Throws io::ConfigError "LOCATION: KEY: ..." for every fault of the config itself.
CalibrateConfig resolve_calibrate_config(const io::ConfigTree& tree);

// What `impact calibrate` and impactbatch.calibrate ask for: the config (a file, or its text),
// KEY=VALUE overrides, and the output folder and backend that override the config's.
struct CalibrateRequest {
  std::string config;  // a .toml / .json file, or the config's name when `text` is given
  std::string text;    // the config itself (JSON or TOML by `toml`); empty: read `config`
  bool toml = false;
  std::vector<std::string> sets;         // KEY=VALUE, KEY a dotted path ("mcmc.steps", "params.mu")
  std::string out;                       // the output folder, taken as given (not relative to the config)
  std::string backend;                   // overrides run.backend
  resume::CheckpointOptions checkpoint;  // --checkpoint DIR, --resume, --checkpoint-every
  // Whether the overrides are judged against the run (a run refuses a set of a table its method does
  // not read, or of run.steps where no law integrates). Not for a model of the data
  // (impactbatch.CalibrationModel), which runs no method, nor for a comparison's run of one law,
  // whose settings were judged with all its laws.
  bool judge_sets = true;
};

// The request's config, read, overridden and resolved. Throws io::ConfigError as above (a file that
// cannot be read, a bad override, a bad backend word, a run's override of a table its method does
// not read: each located).
CalibrateConfig load_calibrate_config(const CalibrateRequest& q);

// The particles of an SMC run on `backend` ("auto": 2048 on the CPU, 32768 on a GPU, rounded to the
// runs).
std::size_t smc_particles(const CalibrateConfig& c, engine::Backend backend);

// The most points of the fit's global design (fit.global).
constexpr std::size_t kMaxFitDesign = std::size_t{1} << 22;

// The points of the fit's global stage: fit.global, or for "auto" a power of two sized to about a
// second of the law on `backend`'s kind (CPU or GPU) for `experiments` rows per point, from the law's
// cost model (engine::LawInfo: flops per row), between 256 and 65536. A cost model and not a
// timing, so that a seed gives the same design on every CPU path, thread count and machine.
std::size_t fit_design_points(const CalibrateConfig& c, engine::Backend backend, std::size_t experiments);

// The resolved config, every key explicit (metadata.json).
nlohmann::ordered_json to_json(const CalibrateConfig& c);

}  // namespace impact::calibrate
