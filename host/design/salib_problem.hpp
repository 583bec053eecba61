// SALib's problem (a dict of num_vars, names, bounds, dists; SALib's ProblemSpec) and a study's
// varied parameters, both ways: params.from_salib reads one, every study with the salib format
// writes its own as salib/problem.json (docs/study.md, "SALib both ways").
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "design/design.hpp"

namespace impact::design {

// The parameters of a SALib problem file: unif [lo, hi] (also without dists), norm [mean, sd],
// lognorm [mean, sd] of the log, truncnorm [lo, hi, mean, sd]. Throws io::ConfigError
// "FILE:LINE:COL: KEY: what was expected" (groups, other distributions, bounds that do not match
// the names, an impossible distribution).
std::vector<ParamSpec> read_salib_problem(const std::string& path);

// The varied parameters (every kind but fixed) as a SALib problem; a linspace as unif over its end
// points.
nlohmann::ordered_json salib_problem(const std::vector<ParamSpec>& params);

}  // namespace impact::design
