// `impact eval --scenario NAME`: a CSV of a scenario's parameters (any of them, in any order; the
// others keep their defaults) evaluated with one law, written back with the law's result columns
// and the scenario's body-level outputs (centre velocities and spins after the impact, or qdot+),
// so that the common set-ups need no study and no contact-space mapping by hand. Rows the scenario
// cannot build keep their row with its status (param_out_of_range, W_not_spd, ...) and empty results.
#pragma once
#include <cstddef>

#include "engine/evaluate.hpp"
#include "io/csv.hpp"
#include "io/out_file.hpp"
#include "systems/scenarios.hpp"

namespace impact::systems {

// Reads `in` to its end in chunks: the header must name parameters of `sc` (each once); writes
// the input line, the law's output columns (engine::output_names) and the body outputs per row.
// Throws io::InputError (an unknown or repeated column, a bad number, a wrong field count, with the
// file, line and column) and std::runtime_error for a failed write.
template <class T>
engine::TableStats evaluate_scenario_table(io::CsvReader& in, io::OutFile& out, const ScenarioInfo& sc,
                                           const engine::LawInfo& law, const engine::BatchCall<T>& fn, const LawOptions& opt,
                                           std::size_t chunk);

}  // namespace impact::systems
