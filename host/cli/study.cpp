#include "engine/backend_pick.hpp"
#include "cli/study.hpp"

#include <CLI/CLI.hpp>
#include <chrono>
#include <memory>
#include <stdexcept>

#include "engine/options.hpp"
#include "study/config.hpp"
#include "study/report.hpp"
#include "study/run.hpp"
#include "study/scenarios.hpp"
#include "study/session.hpp"

namespace impact::cli {

using namespace impact::engine;
using namespace impact::study;

using Clock = std::chrono::steady_clock;

CLI::App* add_study_subcommand(CLI::App& app, StudyArgs& a) {
  CLI::App* c = app.add_subcommand(
      "study", "Run a parameter-space study or UQ described by a TOML/JSON config (docs/study.md)");
  c->add_option("config", a.config, "Study config (.toml or .json)")->required();
  c->add_option("--set", a.sets, "KEY=VALUE override of a config key, e.g. design.n=1000, params.mu=uniform:0.1:0.9 (repeatable)");
  c->add_option("--out", a.out, "Output folder (overrides output.dir)");
  c->add_option("--backend", a.backend, "auto|cuda|omp|serial|reference (overrides run.backend)");
  c->add_flag("--no-plots", a.no_plots, "Do not draw the plots");
  c->add_flag("--quiet,-q", a.quiet, "No progress bar and no tables");
  c->add_flag("--dry-run", a.dry_run, "Check the config, print it in canonical JSON form and stop");
  return c;
}

namespace {

// The first six files, then "...".
std::string file_list(const std::vector<std::string>& files) {
  std::string s;
  for (std::size_t i = 0; i < files.size() && i < 6; ++i) s += (i ? ", " : "") + files[i];
  if (files.size() > 6) s += ", ...";
  return s;
}

void print_summary(std::FILE* out, const StudyConfig& c, const ReportOptions& opt, std::size_t rows,
                   const RunResult& run, const StudyReport& rep) {
  const std::string failed = run.build_failed ? ", " + std::to_string(run.build_failed) + " samples not buildable" : "";
  std::fprintf(out, "study %s: scenario %s, %zu samples (%s), %zu law(s), backend %s%s, %s%s\n", c.name.c_str(),
               c.scenario.c_str(), rows, design_kind_name(c.design.kind), run.laws.size(), backend_name(opt.backend),
               opt.backend_why.c_str(), precision_name(opt.precision), failed.c_str());
  std::fprintf(out, "status counts:\n%s\n%s%s\n", rep.status_lines.c_str(), rep.table.c_str(), rep.sens_table.c_str());
  for (std::size_t l = 0; l < run.laws.size(); ++l) {
    const double s = run.stats[l].seconds;
    std::fprintf(out, "%s: %.3g instances/s (%.3f s in the law)\n", run.laws[l].law->name.c_str(),
                 s > 0 ? double(rows) / s : 0.0, s);
  }
  const double wall = std::chrono::duration<double>(Clock::now() - opt.start).count();
  std::fprintf(out, "wall time %.2f s (plots included)\nresults: %s/ (%s, metadata.json, summary.md)\n", wall,
               c.out_dir.c_str(), file_list(rep.files).c_str());
  if (!rep.plot_note.empty()) std::fprintf(out, "%s\n", rep.plot_note.c_str());
  for (const std::string& n : run.notes) std::fprintf(out, "note: %s\n", n.c_str());
}

}  // namespace

int run_study(const StudyArgs& args, std::FILE* out, std::FILE* log) {
  const auto t_start = Clock::now();
  StudyRequest q;
  q.config = args.config;
  q.sets = args.sets;
  q.out = args.out;
  q.backend = args.backend;
  q.plots = !args.no_plots;
  q.quiet = args.quiet;
  LoadedStudy s;
  try {
    s = load_study(q);
  } catch (const ConfigError& e) {
    std::fprintf(log, "impact study: error: %s\n", e.what());
    return 1;
  } catch (const std::invalid_argument& e) {
    std::fprintf(log, "impact study: error: %s: %s\n", args.config.c_str(), e.what());
    return 1;
  }
  if (args.dry_run) {
    std::fprintf(out, "%s\n", to_json(s.config).dump(2).c_str());
    return 0;
  }
  const StudyOutcome o = study::run_study(s, q, t_start, log);
  if (!args.quiet && out) print_summary(out, s.config, o.options, s.design->rows(), o.run, o.report);
  return 0;
}

}  // namespace impact::cli
