#include "cli/calibrate.hpp"

#include <CLI/CLI.hpp>

#include "comparison/comparison.hpp"
#include "calibrate/config.hpp"
#include "calibrate/fit_report.hpp"
#include "calibrate/run.hpp"
#include "cli/usage.hpp"
#include "engine/options.hpp"
#include "io/config_tree.hpp"
#include "io/csv.hpp"

namespace impact::cli {

CLI::App* add_calibrate_subcommand(CLI::App& app, CalibrateArgs& a) {
  CLI::App* c = app.add_subcommand(
      "calibrate", "Sample the posterior of a law's parameters given measured impacts, or fit its maximum (docs/calibration.md)");
  add_config_run_options(c, a, {"Calibration config (.toml or .json)", "smc.particles=8192", "auto|cuda|omp|serial"});
  c->add_option("--laws", a.laws,
                "Compare these laws' evidence on the data (calibrate.laws): each run by SMC into OUT/LAW, "
                "then OUT/comparison.md, .json and .png")
      ->delimiter(',');
  c->add_option("--checkpoint", a.checkpoint,
                "Keep the sampler's state in DIR (checkpoint.bin, after a step of the ensemble or a stage of SMC; "
                "with --laws, DIR/LAW per law), so that --resume after an interruption (a wall-time limit, kill -9) "
                "goes on from it and writes the uninterrupted run's files")
      ->type_name("DIR");
  c->add_flag("--resume", a.resume, "With --checkpoint: go on from DIR's checkpoint (the same config and data)");
  c->add_option("--checkpoint-every", a.checkpoint_every,
                "With --checkpoint: the least seconds between two checkpoints (default 60; 0: after every step or stage)")
      ->type_name("SECONDS")
      ->check(CLI::NonNegativeNumber);
  return c;
}

namespace {

// Runs f; the data's faults and a model or folder that cannot run are said on `log`: false.
template <class F>
bool said_ok(std::FILE* log, F&& f) {
  try {
    f();
    return true;
  } catch (const io::InputError& e) {
    if (log) std::fprintf(log, "impact calibrate: error: %s\n", e.what());
  } catch (const std::invalid_argument& e) {
    if (log) std::fprintf(log, "impact calibrate: error: %s\n", e.what());
  }
  return false;
}

// calibrate.laws: every law's run, then the comparison's table on `out`.
int run_comparison(const CalibrateArgs& args, const calibrate::CalibrateRequest& q, const calibrate::CalibrateConfig& c,
                   std::FILE* out, std::FILE* log) {
  comparison::Comparison k;
  if (!said_ok(log, [&] { k = comparison::run_comparison(q, c, args.force, args.quiet ? nullptr : log, args.group); })) return 1;
  if (args.quiet || !out) return 0;
  std::string files;
  for (const std::string& f : k.files) files += (files.empty() ? "" : ", ") + f;
  std::fprintf(out, "comparison %s: %zu laws by SMC\n%s\nbest: %s\n%.2f s\nresults: %s/ (%s; each law's run in LAW/)\n",
               c.name.c_str(), k.laws.size(), k.table.c_str(), k.laws[k.best].law.c_str(), k.seconds, c.out_dir.c_str(),
               files.c_str());
  if (!k.plot_note.empty()) std::fprintf(out, "%s\n", k.plot_note.c_str());
  for (const comparison::LawRun& l : k.laws)
    if (!l.o.converged) std::fprintf(out, "warning: %s: some run did not reach beta = 1 within smc.max_stages\n", l.law.c_str());
  return 0;
}

}  // namespace

int run_calibrate(const CalibrateArgs& args, std::FILE* out, std::FILE* log) {
  if (args.config.empty()) throw UsageError("calibrate", "a config is required (impact calibrate CONFIG)");
  if (args.resume && args.checkpoint.empty()) throw UsageError("calibrate", "--resume needs --checkpoint DIR");
  if (args.checkpoint_every >= 0 && args.checkpoint.empty())  // it would change nothing
    throw UsageError("calibrate", "--checkpoint-every needs --checkpoint DIR");
  calibrate::CalibrateConfig c;
  calibrate::CalibrateRequest q;
  try {
    q.config = args.config, q.sets = args.sets, q.out = args.out, q.backend = args.backend;
    if (!args.laws.empty()) q.sets.push_back("calibrate.laws=" + nlohmann::json(args.laws).dump());
    q.checkpoint = {args.checkpoint, args.resume, args.checkpoint_every < 0 ? 60.0 : args.checkpoint_every};
    c = calibrate::load_calibrate_config(q);
    if (args.no_plots) c.plots = false;
  } catch (const io::ConfigError& e) {
    if (log) std::fprintf(log, "impact calibrate: error: %s\n", e.what());
    return 1;
  }
  if (args.dry_run) {
    if (out) std::fprintf(out, "%s\n", calibrate::to_json(c).dump(2).c_str());
    return 0;
  }
  if (!c.laws.empty()) return run_comparison(args, q, c, out, log);
  calibrate::CalibrationOutcome o;
  if (!said_ok(log, [&] { o = calibrate::run_calibration(c, args.force, args.quiet ? nullptr : log, args.group); })) return 1;
  if (!args.quiet && out) {
    const double rate = o.seconds > 0 ? static_cast<double>(o.rows) / o.seconds : 0.0;
    std::string files;
    for (const std::string& f : o.files) files += (files.empty() ? "" : ", ") + f;
    const std::string procs = o.processes > 1 ? " x " + std::to_string(o.processes) + " processes" : "";
    std::fprintf(out, "calibration %s (%s): %s on %s, backend %s%s%s\n%s\n", c.name.c_str(), c.method.c_str(), c.law.c_str(),
                 c.scenario.c_str(), engine::backend_name(o.backend), procs.c_str(), o.backend_why.c_str(), o.table.c_str());
    if (c.method == "fit") {
      if (o.fit_design)
        std::fprintf(out, "global design: %zu points, %zu basin(s), the best %zu climbed (summary.md lists them)\n", o.fit_design,
                     o.fit_basins, o.fit.starts.size());
      std::fprintf(out, "%s", calibrate::fit_note(o.fit, o.fit_design > 0).c_str());
    } else if (c.method == "smc") {
      std::fprintf(out, "log evidence %.4f +- %.4f; %zu mode(s):", o.log_z, o.log_z_se, o.modes.size());
      for (std::size_t k = 0; k < o.modes.size(); ++k) {
        std::fprintf(out, "%s mass %.3f at (", k ? ";" : "", o.modes[k].mass);
        for (std::size_t p = 0; p < o.modes[k].mean.size(); ++p)
          std::fprintf(out, "%s%s %.5g", p ? ", " : "", o.names[p].c_str(), o.modes[k].mean[p]);
        std::fprintf(out, ")");
      }
      std::fprintf(out, "\n");
    } else {
      std::fprintf(out, "acceptance %.3f, %llu failed proposals\n", o.acceptance,
                   static_cast<unsigned long long>(o.failed_proposals));
    }
    std::fprintf(out, "%.3g rows/s (%.2f s)\nresults: %s/ (%s)\n", rate, o.seconds, c.out_dir.c_str(), files.c_str());
    if (!o.plot_note.empty()) std::fprintf(out, "%s\n", o.plot_note.c_str());
    if (!o.stranded.empty()) std::fprintf(out, "warning: %s\n", calibrate::stranded_note(o.stranded, c.walkers).c_str());
    if (!o.converged && c.method == "ensemble")
      std::fprintf(out,
                   "warning: some parameter's chain is shorter than 50 autocorrelation times after the burn-in: "
                   "run more steps (mcmc.steps)\n");
    if (!o.converged && c.method == "smc")
      std::fprintf(out, "warning: some run did not reach beta = 1 within smc.max_stages: not the posterior\n");
  }
  return 0;
}

}  // namespace impact::cli
