// The keys of a study config (docs/study.md), each with its type, default, unit and meaning: what
// resolve_config accepts (io/config_keys.hpp) and what docs/reference.md lists.
#pragma once
#include <vector>

#include "io/config_keys.hpp"

namespace impact::study {

// [run]: backend, precision, integrator, steps, and chunk where the command has one; the reference
// backend where it may run.
std::vector<io::KeyDoc> run_key_docs(bool chunk, bool reference);

const std::vector<io::KeyDoc>& study_key_docs();

}  // namespace impact::study
