// `impact calibrate CONFIG` (docs/calibration.md): the experiments read, the model built, the
// walkers started from the prior, the ensemble sampler run, and the output folder written:
//   samples.csv   every walker's draws after the burn-in (step, walker, the free parameters, logp)
//   samples.npy   the same as structured records
//   summary.md    per free parameter: mean, sd, quantiles 5/16/50/84/95%, tau, ESS, and the run
//   metadata.json the same numbers, the sampler's counts, timings, the machine, the config resolved
// The folder is claimed as a study's is (study/output_folder.hpp: a folder of foreign files is
// refused without --force, an earlier run's files are replaced), and each file appears whole
// (io::OutFile); a run that fails before the end writes no file.
#pragma once
#include <cstdio>
#include <string>
#include <vector>

#include "calibrate/config.hpp"
#include "calibrate/summary.hpp"

namespace impact::calibrate {

struct CalibrationOutcome {
  std::vector<ParamSummary> params;  // in the config's free order
  std::vector<std::string> names;
  bool converged = false;            // every parameter's ParamSummary::converged
  double acceptance = 0;
  std::uint64_t failed_proposals = 0, rows = 0;
  double seconds = 0, law_seconds = 0;
  engine::Backend backend = engine::Backend::serial;
  std::string table;  // summary.md's table
  std::vector<std::string> files;
};

// The quantile probabilities of the summary.
const std::vector<double>& summary_probs();

// The backend of `auto` for a calibration: cuda where usable; else omp when a batch (half the
// walkers x the experiments) has 4096 rows or more, serial below (a thread team per small batch
// costs more than it gains).
engine::Backend calibrate_backend(const std::string& name, engine::Precision p, std::size_t batch_rows);

// Runs it. `progress`: a progress bar and notes (null: none). Throws io::InputError (the data) and
// std::invalid_argument (a model or start that cannot run, a folder that is not a run's).
CalibrationOutcome run_calibration(const CalibrateConfig& c, bool force, std::FILE* progress);

}  // namespace impact::calibrate
