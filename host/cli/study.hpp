// `impact study CONFIG`: a parameter-space study or uncertainty quantification described by a
// TOML or JSON file (see docs/study.md): scenario, law(s), parameter specifications, design,
// sensitivity and outputs. Command-line --set KEY=VALUE overrides any key of the file. Under mpirun
// the design is split over the processes (study/pieces.hpp over dist::MpiGroup); `impact study --merge DIR`
// assembles the tables of a run whose parts were kept.
#pragma once
#include <cstdio>
#include <cstdint>
#include <string>
#include <vector>

#include "cli/config_options.hpp"
#include "cli/forward.hpp"

namespace impact::cli {

struct StudyArgs : ConfigRunArgs {
  bool keep_parts = false;             // in pieces: leave the tables in parts (no merge)
  std::string checkpoint;              // keep each finished piece's statistics here (study/pieces.hpp)
  bool resume = false;                 // read the valid pieces of `checkpoint` back
  std::uint64_t piece = 0;             // rows per piece (0: the default)
  std::string merge;                   // --merge DIR: assemble DIR's tables from their parts; run nothing
  const dist::World* world = nullptr;  // set under mpirun with more than one process
};

CLI::App* add_study_subcommand(CLI::App& app, StudyArgs& args);
// Returns the process exit code; throws UsageError (cli/usage.hpp) for arguments that make no run.
int run_study(const StudyArgs& args, std::FILE* out, std::FILE* log);

}  // namespace impact::cli
