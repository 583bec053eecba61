// Which law explains the data (`impact calibrate CONFIG --laws a,b`, calibrate.laws;
// docs/calibration.md "Comparing laws"): the config's calibration run by SMC once per law, on the
// same data and priors (a law's parameter that a law does not read is not sampled for it:
// CalibrateConfig::ignored), each into OUT/LAW/ as a calibration of its own, then the laws compared
// by their evidence in OUT:
//   comparison.md    the table: per law log Z +- se, ln BF against the best +- se and its strength on
//                    Kass & Raftery's scale, the best log posterior of the draws, the posterior
//                    predictive's rms residual per observed output (its units and its sigmas),
//                    the modes, the time; then each law's posterior
//   comparison.json  {"laws": {LAW: {"log_evidence", "se", "bayes_factor_vs_best",
//                    "log_bayes_factor_vs_best", "log_bayes_factor_se", "predictive_rms" {output: v},
//                    "predictive_rms_sigmas", "map_log_posterior", ...}}, "best": LAW, ...}
//   comparison.png   log Z per law with its error, and the predictive rms in sigmas
//                    (scripts/plot_calibration.py --comparison)
// OUT is claimed as a comparison's folder (resume/owned_folder.hpp: a folder of other files is
// refused without --force); each OUT/LAW/ is claimed by its own calibration.
//
// The evidence Z = p(data | law) integrates the likelihood over the prior: a law with parameters
// that its data do not pin down pays for the prior volume they spread over (the Occam factor), so
// a richer law wins only by fitting better. ln BF(a : b) = log Z(a) - log Z(b).
#pragma once
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "calibrate/config.hpp"
#include "calibrate/run.hpp"

namespace impact::comparison {

using calibrate::CalibrateConfig;
using calibrate::CalibrateRequest;
using calibrate::CalibrationOutcome;

struct LawRun {
  std::string law, dir;
  std::vector<std::string> ignored;  // free parameters this law does not read
  CalibrationOutcome o;
};

struct Comparison {
  std::string name, out_dir;
  std::vector<std::string> observed;
  std::vector<LawRun> laws;  // in the config's order
  std::size_t best = 0;      // the largest log Z
  std::vector<std::string> files;
  std::string table;      // comparison.md's table
  std::string plot_note;  // where the plot is, or that it was not drawn ("" : none asked)
  double seconds = 0;
};

// Kass & Raftery's (1995) words for a Bayes factor of natural log `ln_bf` >= 0 in favour of the
// better law: below 1 "not worth more than a bare mention", 1-3 "positive", 3-5 "strong", above 5
// "very strong".
const char* kass_raftery(double ln_bf);

// Runs the comparison of c.laws (c: the request's config, resolved). Throws as run_calibration
// does; a law whose config does not resolve (an observed output it has not) is said with its name.
// `group`: every law's run shared among the processes; rank 0 writes.
Comparison run_comparison(const CalibrateRequest& q, const CalibrateConfig& c, bool force, std::FILE* progress,
                          resume::ProcessGroup* group = nullptr);

// comparison.json's object.
nlohmann::ordered_json comparison_json(const Comparison& k);

}  // namespace impact::comparison
