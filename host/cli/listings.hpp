// `impact laws` and `impact scenarios`: what the registry and the study scenarios offer.
#pragma once
#include <cstdio>

namespace impact::cli {

// Every law: its summary, the input columns it reads and the output columns it writes.
void print_laws(std::FILE* out);
// Every study scenario: its parameters with defaults and its body-level outputs.
void print_scenarios(std::FILE* out);

}  // namespace impact::cli
