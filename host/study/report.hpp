// The report on a study's run (docs/study.md): the statistics of the kept columns per law, the
// Sobol indices of the sensitivity outputs (sensitivity.csv), metadata.json (what ran where, the
// columns, the statistics, the files) and summary.md, and the plots (scripts/plot_study.py).
#pragma once
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "engine/options.hpp"
#include "study/config.hpp"
#include "study/run.hpp"
#include "systems/scenarios.hpp"

namespace impact::study {

// What the command prints at the end.
struct StudyReport {
  std::string status_lines;        // per law "  LAW: ok N ...\n"
  std::string table;               // the statistics of the kept columns (Markdown)
  std::string sens_table;          // the Sobol indices (Markdown; empty without [sensitivity])
  std::vector<std::string> files;  // every file written but metadata.json and summary.md, relative to output.dir
  std::string plot_note;           // where the plots are, or that they were not drawn; empty when none asked
};

struct ReportOptions {
  engine::Backend backend = engine::Backend::omp;
  std::string backend_why;  // why `auto` chose it (engine::BackendPick::why), "" when named
  engine::Precision precision = engine::Precision::f64;
  std::chrono::steady_clock::time_point start;  // when the command started (metadata's total_s)
  bool plots = true;                            // draw the [[plots]] (false: --no-plots)
  bool quiet = false;                           // the plotting script's output discarded
  std::string no_plots_why;                     // with plots false: the note's reason ("" : none)
};

// Writes sensitivity.csv (with [sensitivity]), metadata.json and summary.md into c.out_dir and
// draws the plots. Warnings (Sobol indices that cannot be computed or are undefined, plots not
// drawn) go to `log`. Throws std::runtime_error when a file cannot be written.
// Runs scripts/plot_study.py on a study's folder (it reads metadata.json and the tables) for the
// plots `pngs` (the files of the study's plots, each a name the folder's claim made the run's): it
// draws only those, each written whole and never through a link. A failed script is a warning on
// `log`.
std::string draw_plots(const std::string& dir, const std::vector<std::string>& pngs, bool quiet, std::FILE* log);
// The same for any plotting script taking the folder as its first argument, named by its file
// (plot_study.py, plot_calibration.py) and found beside the program or in the source tree
// (io::find_plot_script): a Python with numpy and matplotlib runs it (io::find_python); `program`
// names the caller in the warnings; `names`: arguments after the folder. A failed script, or no
// script or Python found, is a warning on `log` and the returned note says so.
std::string run_plot_script(const std::string& script, const std::string& dir, const std::vector<std::string>& pngs, bool quiet,
                            std::FILE* log, const char* program, const std::vector<std::string>& names = {});

StudyReport write_report(const StudyConfig& c, const systems::ScenarioInfo& sc, const design::Design& design,
                         const RunResult& run, const ReportOptions& opt, std::FILE* log);

}  // namespace impact::study
