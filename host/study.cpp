// Placeholder: replaced by the implementation of `impact study`.
#include "study.hpp"

#include <CLI/CLI.hpp>
#include <stdexcept>

namespace impact::host {

CLI::App* add_study_subcommand(CLI::App& app, StudyArgs& a) {
  CLI::App* c = app.add_subcommand("study", "Run a parameter-space study (not implemented yet)");
  c->add_option("config", a.config, "Study config (TOML or JSON)")->required();
  return c;
}

int run_study(const StudyArgs&, std::FILE*, std::FILE*) { throw std::runtime_error("impact study: not implemented yet"); }

}  // namespace impact::host
