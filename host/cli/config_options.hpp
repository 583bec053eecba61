// The options `impact study` and `impact calibrate` share, declared once: a config, its KEY=VALUE
// overrides, the output folder, the backend, plots, quiet, dry run and force (docs/study.md,
// docs/calibration.md).
#pragma once
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace impact::cli {

struct ConfigRunArgs {
  std::string config;
  std::vector<std::string> sets;  // KEY=VALUE overrides, KEY a dotted path ("design.n", "params.mu")
  std::string out;                // output folder (overrides output.dir)
  std::string backend;            // overrides run.backend
  bool no_plots = false;
  bool quiet = false;
  bool dry_run = false;  // parse, validate and print the resolved config; run nothing
  bool force = false;    // write into an output folder that is not a run's
};

// What the help says that differs between the commands.
struct ConfigRunHelp {
  const char* config;       // "Study config (.toml or .json)"
  const char* set_example;  // "design.n=1000"
  const char* backends;     // "auto|cuda|omp|serial"
};

void add_config_run_options(CLI::App* c, ConfigRunArgs& a, const ConfigRunHelp& h);

// The check of an option naming a run's folder (--out, --merge): an empty or blank name is a usage
// error (io::usable_folder_name), never the filesystem's root.
std::string check_folder_option(const std::string& value);

}  // namespace impact::cli
