// The keys of a study config (docs/study.md), each with its type, default, unit and meaning: what
// resolve_config accepts (io/config_keys.hpp) and what docs/reference.md lists.
#pragma once
#include <vector>

#include "io/config_keys.hpp"

namespace impact::study {

const std::vector<io::KeyDoc>& study_key_docs();

}  // namespace impact::study
