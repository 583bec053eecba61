// Host side of the study description (impact/sampling.hpp): scenario names, the keys of each
// scenario's slots (the study scenario's parameters, systems/scenarios.hpp, with their slots),
// defaults, and `impact reduce --set` values: a distribution in the one text form of a study's
// (design/param_text.hpp, docs/INTERFACE.md "Distributions in text"), linspace excepted.
// Errors throw std::invalid_argument "--set KEY=VALUE: ...".
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "impact/sampling.hpp"

namespace impact::systems {

// A settable key of a scenario: a slot's Dist, or (slot == kRotationKey) the rotation switch.
constexpr int kRotationKey = -1;
struct SpecKey {
  const char* name;
  int slot;
  const char* help;
};

Scenario parse_scenario(const std::string& name);  // "contact" | "ball"
const char* scenario_name(Scenario s);
std::string scenario_names();  // "contact, ball"
const std::vector<SpecKey>& spec_keys(Scenario s);

// The study with every key at its default (see spec_keys() for the values).
SampleSpec default_spec(Scenario s);

// Parses the text of a distribution for `key` (used in messages), by design::parse_param_text.
Dist parse_dist(const std::string& key, const std::string& text);
std::string dist_string(const Dist& d);

// Applies one "KEY=DIST" (or "rotation=random|vector|identity" for the contact scenario: a random
// rotation, the one by the vector (rx, ry, rz), which setting any of rx, ry, rz selects, or the
// identity, which sets the three to 0).
void apply_setting(SampleSpec& spec, const std::string& setting);
// Applies a command's settings in order (a key given twice: the last), after refusing a pair that
// contradicts itself whatever the order: rotation=random or identity beside any of rx, ry, rz, which
// would be dropped in silence (or drop the rotation asked for).
void apply_settings(SampleSpec& spec, const std::vector<std::string>& settings);

// (key, value text) for every key of the spec's scenario, in table order; rx, ry, rz only when the
// rotation is theirs ("rotation=vector").
std::vector<std::pair<std::string, std::string>> describe(const SampleSpec& spec);

}  // namespace impact::systems
