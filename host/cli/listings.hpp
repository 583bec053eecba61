// `impact laws`, `impact scenarios` and `impact keys`: what the registry, the study scenarios and
// the configs offer.
#pragma once
#include <cstdio>

namespace impact::cli {

// Every law: its summary, the input columns it reads and the output columns it writes.
void print_laws(std::FILE* out);
// Every study scenario: its parameters with defaults and its body-level outputs.
void print_scenarios(std::FILE* out);
// `impact keys`: every key of a study's and a calibration's config and of `impact reduce`'s --set
// and --range, with type, default, unit and meaning, as markdown: docs/reference.md is its output.
void print_config_keys(std::FILE* out);

}  // namespace impact::cli
