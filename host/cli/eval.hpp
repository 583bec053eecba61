// `impact eval`: evaluates a CSV of contact-space instances with one law (docs/INTERFACE.md).
#pragma once
#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

#include "cli/forward.hpp"

namespace impact::cli {

struct EvalArgs {
  std::string law;
  std::string in;
  std::string out = "-";
  std::string backend = "auto";
  std::string precision = "double";
  int steps = 250;
  std::string integrator = "rk4";
  std::size_t chunk = 1 << 16;                  // rows per batch
  int pipeline = 0;                             // chunks in flight (engine::EvalPipeline::depth), when pipeline_given
  bool pipeline_given = false;                  // --pipeline was given (else EvalPipeline's default)
  std::vector<std::string> integrator_options;  // --steps, --integrator where given: the fast integrators'
  std::string timeline;                         // set: the pipeline's stage times per chunk, as CSV, to this file
  std::string scenario;                         // set: the rows are this scenario's parameters (systems/scenario_table.hpp)
  // under mpirun with several processes (host/dist): each takes a share of the file's lines, rank 0
  // assembles the table in input order (docs/distributed.md)
  const dist::World* world = nullptr;
  bool quiet = false;  // no summary on stderr
  bool notes = true;   // notes on stderr, even with quiet (false on a process other than rank 0)
};

CLI::App* add_eval_subcommand(CLI::App& app, EvalArgs& args);

// Runs the evaluation, the summary to `summary_stream` (null: none); throws io::InputError (bad
// file), std::invalid_argument (bad options) or std::runtime_error (a failed write).
// Returns the exit status (0; under mpirun a share's error status, its message printed by rank 0).
int run_eval(const EvalArgs& args, std::FILE* summary_stream);

}  // namespace impact::cli
