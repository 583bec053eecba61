// `impact eval`: evaluates a CSV of contact-space instances with one law (docs/INTERFACE.md).
#pragma once
#include <cstddef>
#include <cstdio>
#include <string>

namespace impact::host {

struct EvalArgs {
  std::string law;
  std::string in;
  std::string out = "-";
  std::string backend = "auto";
  std::string precision = "double";
  int steps = 250;
  std::string integrator = "rk4";
  std::size_t chunk = 1 << 16;  // rows per batch
  bool quiet = false;           // no summary on stderr
};

struct EvalSummary {
  std::size_t rows = 0, ok = 0;
  double law_seconds = 0, total_seconds = 0;
};

// Runs the evaluation; throws InputError (bad file) or std::invalid_argument (bad options).
EvalSummary run_eval(const EvalArgs& args, std::FILE* summary_stream);

}  // namespace impact::host
