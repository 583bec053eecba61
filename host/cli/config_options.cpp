#include "cli/config_options.hpp"

#include <CLI/CLI.hpp>

#include "io/folder_names.hpp"

namespace impact::cli {

std::string check_folder_option(const std::string& value) {
  return io::usable_folder_name(value) ? std::string() : std::string(io::kEmptyFolderName);
}

void add_config_run_options(CLI::App* c, ConfigRunArgs& a, const ConfigRunHelp& h) {
  c->add_option("config", a.config, h.config);
  c->add_option("--set", a.sets, std::string("KEY=VALUE override of a config key, e.g. ") + h.set_example + " (repeatable)");
  c->add_option("--out", a.out, "Output folder (overrides output.dir)")->check(check_folder_option, "FOLDER");
  c->add_option("--backend", a.backend, std::string(h.backends) + " (overrides run.backend)");
  c->add_flag("--no-plots", a.no_plots, "Do not draw the plots");
  c->add_flag("--quiet,-q", a.quiet, "No progress bar and no tables");
  c->add_flag("--dry-run", a.dry_run, "Check the config, print it in canonical JSON form and stop");
  c->add_flag("--force", a.force,
              "Write into an output folder that holds files no impactbatch run wrote (by default such a folder is "
              "refused; a run's own earlier files are always replaced)");
}

}  // namespace impact::cli
