// What an SMC run (calibrate.method = smc, infer/smc.hpp) writes and says: the equal-weight draws
// (samples.csv and samples.npy: particle, run, mode, the free parameters, logp), summary.md's tables
// (the pooled posterior, the log evidence with its error, the modes, the stages) and metadata.json's
// "log_evidence", "modes" and "stages".
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "infer/smc.hpp"
#include "infer/summary.hpp"

namespace impact::calibrate {

using infer::SmcMode;
using infer::SmcResult;

// The pooled posterior of the draws: per parameter mean, sd, the quantiles `probs` and the ESS from
// the spread of the independent runs' means (tau NaN: an SMC run has no chain of steps).
std::vector<infer::ParamSummary> smc_summary(const SmcResult& r, const std::vector<double>& probs);

// samples.csv and samples.npy (particle, run, mode <u8; the parameters, logp <f8, titled by
// `titles`), each written whole.
void write_smc_samples(const std::string& dir, const SmcResult& r, const std::vector<std::uint32_t>& mode,
                       const std::vector<std::string>& names, const std::vector<std::string>& titles);

// summary.md's parts: the pooled table (mean, sd, quantiles, ESS), the evidence line, the modes' table
// (mass, and per parameter mean +- sd) and the stages' (per stage index: the runs' beta, ESS,
// acceptance and steps, their mean over the runs that reached it).
std::string smc_table(const std::vector<std::string>& names, const std::vector<infer::ParamSummary>& ps);
std::string smc_evidence_line(const SmcResult& r);
std::string smc_modes_table(const std::vector<std::string>& names, const std::vector<SmcMode>& modes);
std::string smc_stages_table(const SmcResult& r);

// metadata.json's fields of the run: particles, runs, seed, finished, failed evaluations,
// "log_evidence" {value, se, runs}, "modes" [{mass, mean, sd, q05, q50, q95, log_like_max}] and
// "stages" (per run: beta, ess, log_z_step, acceptance, moves, scale).
void smc_json(nlohmann::ordered_json& j, const std::vector<std::string>& names, const SmcResult& r,
              const std::vector<SmcMode>& modes);

// Up to `count` draws (count x dim) spread evenly over the particles, for the predictive.
std::vector<double> smc_draws(const SmcResult& r, std::size_t count);

}  // namespace impact::calibrate
