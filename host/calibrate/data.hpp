// The experiments of a calibration from a CSV file (io::CsvReader: the project's one CSV grammar,
// docs/INTERFACE.md): a header names the columns, one row per impact.
//   - a column named after a scenario parameter is a condition of each experiment (incoming
//     velocities, angles, ...);
//   - a column named after one of the observed outputs is its measured value;
//   - a column "sigma_<output>" is that output's measurement standard deviation per experiment
//     (else the constant given for it, or a free noise parameter: its sigma is then NaN here);
//   - any other column is an error (a typo must not pass for an unused column), unless listed in
//     `ignore` (labels, notes).
// Every value must be a finite number (io/number.hpp's grammar); the errors say FILE:LINE:COLUMN
// and what was expected.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "calibrate/model.hpp"

namespace impact::calibrate {

struct DataSpec {
  std::string file;
  std::vector<std::string> observed;        // output columns compared with the law's
  std::map<std::string, double> sigma;      // per observed output without a sigma_ column: its sd
  std::vector<std::string> noise;           // observed outputs whose sd is a free parameter sigma_<output>
  std::vector<std::string> ignore;          // columns read as text and not used
  std::vector<std::string> not_conditions;  // parameters a column may not set (the free and the fixed ones)
};

// Throws io::InputError "FILE:LINE[:COLUMN]: ..." for the file's faults and std::invalid_argument
// for a spec the file cannot meet (an observed output without a column, without an uncertainty).
Experiments read_experiments(const DataSpec& spec, const systems::ScenarioInfo& sc);

}  // namespace impact::calibrate
