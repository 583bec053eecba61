// The fit's global stage (calibrate.method = fit, docs/calibration.md): a scrambled Sobol' design of
// the prior (design/scrambled_sobol.hpp) evaluated in batches, its basins found by nearest-better
// clustering in the prior's CDF space and the hill-valley test (infer/basins.hpp), and the best point
// of each of the best basins handed to the local optimiser as a start. A local optimiser started
// from a few prior draws ends in whichever basin holds its start; a posterior with a deep narrow bulk
// and broad poor basins (every misspecified model's) then gives an estimate far below the bulk from
// some seeds. The design sees every basin wider than its spacing, and its best point is climbed first.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "calibrate/model.hpp"
#include "infer/basins.hpp"
#include "infer/fit.hpp"

namespace impact::calibrate {

struct GlobalStage {
  std::size_t points = 0;      // the design's
  std::uint64_t no_value = 0;  // design points without a finite log p
  std::size_t probes = 0;      // points evaluated by the hill-valley test
  std::vector<infer::Basin> basins;
  std::vector<double> x;  // basins x dim: each basin's best design point, in parameter space
  double seconds = 0;
};

// Evaluates `points` points of the scrambled Sobol' design of `seed` over m's priors (through their
// quantiles), in batches of at most `batch` points, calling `progress(done)` after each, and finds
// the basins (nearest-better links, then the hill-valley test). Every process of a group takes part
// (the batches are collectives).
GlobalStage global_stage(Model& m, std::size_t points, std::uint64_t seed, std::size_t batch,
                         const std::function<void(std::size_t)>& progress);

// The starts of the local optimiser: the best points of the first `starts` basins (starts x dim).
std::vector<double> basin_starts(const GlobalStage& g, std::size_t dim, std::size_t starts);

// summary.md's table of the basins: per basin its design point's log p and parameters, and, for
// those started, where the optimiser ended (log p; "same as basin k" when it ended at a maximum an
// earlier start reached).
std::string basins_table(const std::vector<std::string>& names, const GlobalStage& g, const infer::FitResult& r);

// metadata.json's "global": points, no_value, valley_probes, seconds,
// basins [{logp, link, at {name: value}, end_logp}].
nlohmann::ordered_json basins_json(const std::vector<std::string>& names, const GlobalStage& g, const infer::FitResult& r);

}  // namespace impact::calibrate
