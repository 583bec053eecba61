// `impact calibrate CONFIG` (docs/calibration.md): the experiments read, the model built, the
// walkers started from the prior, the ensemble sampler run, and the output folder written:
//   samples.csv   every walker's draws after the burn-in (step, walker, the free parameters, logp)
//   samples.npy   the same as structured records
//   summary.md    per free parameter: mean, sd, quantiles 5/16/50/84/95%, tau, ESS, and the run
//   metadata.json the same numbers, the sampler's counts, timings, the machine, the config resolved
//   predictive.csv the model's outputs over posterior draws per experiment, beside the data
//   corner.png, predictive.png  the plots (scripts/plot_calibration.py; output.plots = false: none)
// or, for calibrate.method = fit (infer/fit.hpp, calibrate/fit_report.hpp):
//   estimate.csv  per free parameter: the estimate (the MAP), the Laplace sd and 90 % interval
//   starts.csv    per start: where it began and ended, log p there, its evaluations, why it stopped
//   summary.md, metadata.json (the covariance too), predictive.csv over draws of the Laplace normal,
//   predictive.png
// The folder is claimed as a study's is (study/output_folder.hpp: a folder of foreign files is
// refused without --force, an earlier run's files are replaced), and each file appears whole
// (io::OutFile); a run that fails before the end writes no file.
#pragma once
#include <cstdio>
#include <functional>
#include <memory>
#include <cmath>
#include <string>
#include <vector>

#include "calibrate/config.hpp"
#include "resume/owned_folder.hpp"
#include "infer/fit.hpp"
#include "calibrate/model.hpp"
#include "infer/smc.hpp"
#include "infer/summary.hpp"

namespace impact::calibrate {

using infer::EnsembleChain;
using infer::EnsembleOptions;
using infer::FitResult;
using infer::kStrandedGap;
using infer::magnitude_scale;
using infer::mean_sd;
using infer::ParamSummary;
using infer::run_ensemble;
using infer::sorted_quantile;
using infer::stranded_walkers;
using infer::summarize;

struct CalibrationOutcome {
  std::string method;                // smc | ensemble | fit
  FitResult fit;                     // fit: the starts, the estimate, the Laplace approximation
  std::vector<ParamSummary> params;  // in the config's free order
  std::vector<std::string> names;
  bool converged = false;                                // mcmc: every parameter's ParamSummary::converged; fit: the Laplace
                                                         // approximation holds and (starts from the prior) two starts, or
                                                         // the only one, agree
  std::vector<std::size_t> stranded;                     // walkers stranded away from the bulk (stranded_walkers)
  std::size_t fit_design = 0, fit_basins = 0;            // fit: the global design's points and the basins it showed
  double log_z = std::nan(""), log_z_se = std::nan("");  // smc: the log evidence and its error
  std::vector<infer::SmcMode> modes;                     // smc: the posterior's modes (infer::find_modes)
  double max_log_posterior = std::nan("");               // the best of the draws (fit: the estimate's)
  // per observed output, the root mean square over the experiments of the data's residual from the
  // posterior predictive median: in the output's units, and in its sigmas
  std::vector<double> predictive_rms, predictive_rms_sigmas;
  double acceptance = 0;
  std::uint64_t failed_proposals = 0, rows = 0;
  double seconds = 0, law_seconds = 0;
  engine::Backend backend = engine::Backend::serial;
  int processes = 1;        // that shared the batches
  std::string backend_why;  // " (auto: ...)" when auto chose it, else ""
  std::string table;        // summary.md's table
  std::vector<std::string> files;
  std::string plot_note;  // where the plots are, or that they were not drawn ("" : none asked)
};

// The quantile probabilities of the summary.
const std::vector<double>& summary_probs();

// The config's model: its experiments read (io::InputError, located), on the config's backend, or
// for `auto` on whichever of engine::auto_candidates (omp; serial for a batch under kParallelRows rows
// and more than one thread; cuda where usable)
// took the least time over the method's batch (half the walkers drawn from the prior for mcmc, one
// point for fit; the least of
// 5 timings after a first call, a CPU batch over 0.5 s timed once), its counters then reset; why in
// `backend_why`, where given. On a GPU machine two runs may choose differently when the times are
// close (the CPU paths give the same bits, cuda is held to tolerances): name the backend for a chain
// that must repeat bit for bit there. Throws
// std::invalid_argument for a model that cannot be built (Model's constructor).
// With a group of several processes (mpirun) the model shares every batch among them (Model::set_group),
// and rank 0's trial decides for all.
std::unique_ptr<Model> make_model(const CalibrateConfig& c, std::string* backend_why = nullptr,
                                  resume::ProcessGroup* group = nullptr);

// `walkers` points drawn from the model's prior (Philox stream 7 of `seed`, the prior's quantiles),
// each redrawn until its log posterior is finite: where the sampler starts (walkers x dim). Throws
// std::invalid_argument when some walker finds no such point in 100 draws, saying why at the first
// draw of one (Model::why_not_finite); `what` names the points (walkers, a fit's starts).
std::vector<double> start_from_prior(Model& m, std::size_t walkers, std::uint64_t seed, const char* what = "walkers");

// What a calibration holds at once, checked when its model is set up, before the sampler starts
// (run_calibration, with design::memory_budget_bytes()): the chain, kept whole (every step's positions
// and log densities), and the larger of the sampler's batches (the start's mcmc.walkers points, or a
// fit's fit.starts: each point's coordinates and log densities, and one piece of the model's rows,
// Model::piece_rows_limit) and the posterior predictive (its draws over blocks of experiments of one
// piece). Throws std::invalid_argument naming the key to lower (mcmc.steps, mcmc.walkers, fit.starts)
// when they exceed `budget` bytes.
void check_memory(const CalibrateConfig& c, const Model& m, double budget);

// Runs f, which may fail on one process only (its copy of the data file, its device), and then
// every process learns whether all succeeded, before any collective: a failure anywhere is thrown
// on every process (the failing one's own exception; elsewhere std::invalid_argument naming the
// first failing process and its message), so that none waits for a process that has left.
void on_every_process(resume::ProcessGroup* group, const std::function<void()>& f);

// The folder's claim (resume::claim_folder) made by rank 0 alone, every process learning whether
// it could (on_every_process: a refusal ends every process, rank 0 saying why).
resume::FolderClaim claim_on_rank0(const resume::FolderRequest& r, resume::ProcessGroup* group);

// The one serialisation of a run's outcome (folder, name, method, parameters, files, backend, counts,
// table, plot note): metadata.json takes its method and backend, the Python package's dict is made of it.
nlohmann::ordered_json outcome_json(const CalibrateConfig& c, const CalibrationOutcome& o);

// The warning about stranded walkers (summary.md, the CLI).
std::string stranded_note(const std::vector<std::size_t>& walkers, std::size_t total);

// Runs it. `progress`: a progress bar and notes (null: none). Throws io::InputError (the data) and
// std::invalid_argument (a model or start that cannot run, a folder that is not a run's).
// `group` (mpirun: dist::MpiGroup): every process runs the same chain, each evaluating its share of
// every batch (Model::set_group), so the chain is the one process's, bit for bit; rank 0 claims the
// folder (a refusal ends every process alike), speaks and writes the files.
CalibrationOutcome run_calibration(const CalibrateConfig& c, bool force, std::FILE* progress,
                                   resume::ProcessGroup* group = nullptr);

}  // namespace impact::calibrate
