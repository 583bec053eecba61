// The keys of a calibration config (docs/calibration.md), each with its type, default, unit and
// meaning: what resolve_calibrate_config accepts (io/config_keys.hpp) and docs/reference.md lists.
#pragma once
#include <vector>

#include "io/config_keys.hpp"

namespace impact::calibrate {

const std::vector<io::KeyDoc>& calibrate_key_docs();

}  // namespace impact::calibrate
