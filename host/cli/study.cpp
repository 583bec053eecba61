#include "engine/backend_pick.hpp"
#include "cli/study.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <memory>
#include <stdexcept>

#include "engine/options.hpp"
#include "io/folder_names.hpp"
#include "resume/owned_folder.hpp"
#include "study/output_folder.hpp"
#include "study/config.hpp"
#include "study/report.hpp"
#include "study/run.hpp"
#include "systems/scenarios.hpp"
#include "resume/parts.hpp"
#include "study/pieces.hpp"
#include "study/session.hpp"
#include "cli/config_options.hpp"
#include "cli/usage.hpp"
#ifdef IMPACT_WITH_MPI
#include "dist/mpi.hpp"
#endif
#include <nlohmann/json.hpp>
#include <fstream>

namespace impact::cli {

using namespace impact::engine;
using namespace impact::study;

using Clock = std::chrono::steady_clock;

CLI::App* add_study_subcommand(CLI::App& app, StudyArgs& a) {
  CLI::App* c = app.add_subcommand("study", "Run a parameter-space study or UQ described by a TOML/JSON config (docs/study.md)");
  add_config_run_options(
      c, a, {"Study config (.toml or .json)", "design.n=1000, params.mu=uniform:0.1:0.9", "auto|cuda|omp|serial|reference"});
  c->add_option("--checkpoint", a.checkpoint,
                "Run in pieces and keep each finished piece's statistics in DIR (with its part of every table in the "
                "output folder), so that --resume after an interruption computes only the missing pieces")
      ->type_name("DIR");
  c->add_flag("--resume", a.resume, "With --checkpoint: read the finished pieces back (any number of processes)");
  c->add_option("--piece", a.piece, "Rows per piece (whole blocks of rows; default: at least 65536, at most 1024 pieces)");
  c->add_flag("--keep-parts", a.keep_parts,
              "Run in pieces (mpirun or --checkpoint): leave each table in one part per piece (parts.json) instead "
              "of merging them");
  c->add_option("--merge", a.merge,
                "Assemble the tables of the folder DIR from the parts a run over several processes kept, then draw "
                "its plots (no config)")
      ->check(check_folder_option, "FOLDER")
      ->type_name("DIR");
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

void print_summary(std::FILE* out, const StudyConfig& c, const ReportOptions& opt, std::size_t rows, const RunResult& run,
                   const StudyReport& rep) {
  const std::string failed = run.build_failed ? ", " + std::to_string(run.build_failed) + " samples not buildable" : "";
  std::fprintf(out, "study %s: scenario %s, %zu samples (%s), %zu law(s), backend %s%s, %s%s\n", c.name.c_str(),
               c.scenario.c_str(), rows, design_kind_name(c.design.kind), run.laws.size(), backend_name(opt.backend),
               opt.backend_why.c_str(), precision_name(opt.precision), failed.c_str());
  std::fprintf(out, "status counts:\n%s\n%s%s\n", rep.status_lines.c_str(), rep.table.c_str(), rep.sens_table.c_str());
  for (std::size_t l = 0; l < run.laws.size(); ++l) {
    const double s = run.stats[l].seconds;
    std::fprintf(out, "%s: %.3g instances/s (%.3f s in the law)\n", run.laws[l].law->name.c_str(), s > 0 ? double(rows) / s : 0.0,
                 s);
  }
  const double wall = std::chrono::duration<double>(Clock::now() - opt.start).count();
  std::fprintf(out, "wall time %.2f s (plots included)\nresults: %s/ (%s, metadata.json, summary.md)\n", wall, c.out_dir.c_str(),
               file_list(rep.files).c_str());
  if (!rep.plot_note.empty()) std::fprintf(out, "%s\n", rep.plot_note.c_str());
  for (const std::string& n : run.notes) std::fprintf(out, "note: %s\n", n.c_str());
}

// `impact study --merge DIR`: the tables from their parts (study::merge_folder), then the plots of
// metadata.json's config.
int merge_folder(const StudyArgs& args, std::FILE* out, std::FILE* log) {
  const auto t0 = Clock::now();
  MergeOutcome m;
  try {
    m = study::merge_folder(args.merge);
  } catch (const std::exception& e) {
    std::fprintf(log, "impact study: error: %s\n", e.what());
    return 2;
  }
  const double merge_s = std::chrono::duration<double>(Clock::now() - t0).count();
  std::string note;
  const nlohmann::json& meta = m.metadata;
  if (meta.is_object() && !args.no_plots) {
    bool study = false;  // a plot is drawn only under a name of the study's manifest (merge_folder checked it is one)
    const std::vector<std::string> own = resume::manifest_files(args.merge, kStudyKind, study).files;
    std::vector<std::string> pngs;
    if (meta.contains("config") && meta["config"].is_object() && meta["config"].contains("plots") &&
        meta["config"]["plots"].is_array())
      for (const nlohmann::json& p : meta["config"]["plots"])
        if (p.is_object() && p.contains("file") && p["file"].is_string() &&
            std::find(own.begin(), own.end(), p["file"].get<std::string>()) != own.end())
          pngs.push_back(p["file"].get<std::string>());
    if (!pngs.empty()) note = draw_plots(args.merge, pngs, args.quiet, log);
  }
  if (!args.quiet && out) {
    std::fprintf(out, "merged %zu file(s) of %zu parts in %s/ (%.3g MB) in %.2f s\n", m.files, m.parts, args.merge.c_str(),
                 double(m.bytes) / 1e6, merge_s);
    if (!note.empty()) std::fprintf(out, "%s\n", note.c_str());
  }
  return 0;
}

}  // namespace

int run_study(const StudyArgs& args, std::FILE* out, std::FILE* log) {
  const auto t_start = Clock::now();
  const bool many = args.world != nullptr;
  // a rank other than 0 says nothing (rank 0 says every rank's errors): its log goes nowhere
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> sink(nullptr, &std::fclose);
  if (!log) {
    sink.reset(std::fopen("/dev/null", "w"));
    log = sink.get();
  }
  if (!args.merge.empty()) {
    if (!args.config.empty()) throw UsageError("study", "--merge DIR takes no config");
    if (many) throw UsageError("study", "--merge runs as one process (not under mpirun)");
    return merge_folder(args, out, log);
  }
  if (args.config.empty()) throw UsageError("study", "a config is required (impact study CONFIG, or --merge DIR)");
  StudyRequest q;
  q.config = args.config;
  q.sets = args.sets;
  q.out = args.out;
  q.backend = args.backend;
  q.plots = !args.no_plots;
  q.quiet = args.quiet;
  q.force = args.force;
  LoadedStudy s;
  std::string load_error;
  try {
    s = load_study(q);
  } catch (const io::ConfigError& e) { load_error = e.what(); } catch (const std::invalid_argument& e) {
    load_error = args.config + ": " + e.what();
  }
#ifdef IMPACT_WITH_MPI
  // every rank loads the study itself (its memory check, an imported design on its node): they go
  // on only if all could, and rank 0 says every distinct error once
  if (many) {
    const std::vector<std::string> errors = args.world->gather(load_error);
    if (!args.world->all(load_error.empty())) {
      say_distinct_errors(errors, log);
      return 1;
    }
  }
#endif
  if (!load_error.empty()) {
    std::fprintf(log, "impact study: error: %s\n", load_error.c_str());
    return 1;
  }
  if (args.dry_run) {
    if (out) std::fprintf(out, "%s\n", to_json(s.config).dump(2).c_str());
    return 0;
  }
  if (args.resume && args.checkpoint.empty()) throw UsageError("study", "--resume needs --checkpoint DIR");
  const bool in_pieces = many || !args.checkpoint.empty();
  if ((args.keep_parts || args.piece) && !in_pieces)
    throw UsageError("study",
                     "--keep-parts and --piece are for runs in pieces (mpirun -n K with K > 1, or "
                     "--checkpoint DIR)");
  if (in_pieces) {
    PieceOptions po;
    po.keep_parts = args.keep_parts;
    po.checkpoint = args.checkpoint;
    po.resume = args.resume;
    po.piece = args.piece;
    resume::OneProcess one;
    resume::ProcessGroup* comm = &one;
#ifdef IMPACT_WITH_MPI
    std::unique_ptr<dist::MpiGroup> mpi;
    if (many) comm = (mpi = std::make_unique<dist::MpiGroup>(*args.world)).get();
#endif
    const PiecesRun d = run_in_pieces(s, q, *comm, po, t_start, log);
    if (d.ok && !args.quiet && out)
      print_summary(out, s.config, d.outcome.options, s.design->rows(), d.outcome.run, d.outcome.report);
    return d.code;
  }
  StudyOutcome o;
  try {
    o = study::run_study(s, q, t_start, log);
  } catch (const std::invalid_argument& e) {  // the config's run (a folder that is not a study's, ...)
    std::fprintf(log, "impact study: error: %s\n", e.what());
    return 1;
  }
  if (!args.quiet && out) print_summary(out, s.config, o.options, s.design->rows(), o.run, o.report);
  return 0;
}

}  // namespace impact::cli
