// A study run as both front ends start it (`impact study`, impactbatch.study): the config from a
// file or from text with KEY=VALUE overrides, resolved and its design built and its memory checked
// before any work (load_study), then run and reported into output.dir (run_study).
#pragma once
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "study/config.hpp"
#include "design/design.hpp"
#include "study/report.hpp"
#include "study/run.hpp"

namespace impact::study {

struct StudyRequest {
  std::string config;  // a .toml / .json file, or the config's name when `text` is given
  std::string text;    // the config itself (JSON or TOML by `toml`); empty: read `config`
  bool toml = false;
  std::vector<std::string> sets;  // KEY=VALUE overrides, KEY a dotted path ("design.n", "params.mu")
  std::string out;                // output folder (overrides output.dir)
  std::string backend;            // overrides run.backend
  bool plots = true;
  bool quiet = false;  // no progress, the plotting script's output discarded
  bool force = false;  // write into a folder that is not a study's (study/output_folder.hpp)
};

struct LoadedStudy {
  StudyConfig config;
  std::unique_ptr<design::Design> design;
};

// The study of a request, its design built and its memory checked against what a study may use.
// Throws ConfigError whose message starts with the location, or std::invalid_argument.
LoadedStudy load_study(const StudyRequest& q);

struct StudyOutcome {
  ReportOptions options;  // backend (and why), precision, ...
  RunResult run;
  StudyReport report;
};

// The options of a loaded study's run: the backend (run.backend resolved: `auto` by the workload,
// and why), the precision, the start time, plots and quiet from the request.
ReportOptions study_options(const LoadedStudy& s, const StudyRequest& q, std::chrono::steady_clock::time_point start);

// Runs a loaded study and writes its files; progress and warnings go to `log` (null: none).
StudyOutcome run_study(const LoadedStudy& s, const StudyRequest& q, std::chrono::steady_clock::time_point start, std::FILE* log);

}  // namespace impact::study
