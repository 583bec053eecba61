// `impact calibrate CONFIG`: the posterior of a law's parameters given measured impacts
// (host/calibrate, docs/calibration.md). --set KEY=VALUE overrides a config key as for a study.
#pragma once
#include <cstdio>
#include <string>
#include <vector>

#include "cli/config_options.hpp"
#include "resume/process_group.hpp"

namespace CLI {
class App;
}

namespace impact::cli {

struct CalibrateArgs : ConfigRunArgs {
  std::vector<std::string> laws;          // --laws a,b: calibrate.laws (which law explains the data)
  std::string checkpoint;                 // --checkpoint DIR: the sampler's state kept there (resume/sampler_checkpoint.hpp)
  bool resume = false;                    // --resume: go on from it
  double checkpoint_every = -1;           // --checkpoint-every SECONDS (-1: not given, 60)
  resume::ProcessGroup* group = nullptr;  // mpirun: the processes that share every batch (dist::MpiGroup)
};

CLI::App* add_calibrate_subcommand(CLI::App& app, CalibrateArgs& args);
// Returns the exit code: 0, 1 for a config or data error (said on `log`); throws UsageError. `out`
// and `log` may be null (a rank other than 0 says nothing).
int run_calibrate(const CalibrateArgs& args, std::FILE* out, std::FILE* log);

}  // namespace impact::cli
