// The `impact` command line: one subcommand per file in host/cli/.
#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "cli/bench.hpp"
#include "cli/calibrate.hpp"
#include "cli/compare.hpp"
#include "cli/eval.hpp"
#include "cli/listings.hpp"
#include "cli/reduce.hpp"
#ifdef IMPACT_WITH_MPI
#include <memory>

#include "dist/mpi.hpp"
#endif
#include "cli/study.hpp"
#include "cli/usage.hpp"
#include "io/csv.hpp"
#include "io/version.hpp"

namespace {

// CLI11 reads "-1" into an unsigned option as 2^64 - 1: every unsigned option refuses a sign.
void refuse_negative_unsigned(CLI::App& app) {
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
    for (CLI::Option* o : sub->get_options())
      if (o->get_type_name() == "UINT")
        o->check(CLI::Validator(
            [](std::string& v) {
              const std::size_t i = v.find_first_not_of(" \t");
              return i != std::string::npos && v[i] == '-' ? std::string("must not be negative, got ") + v : std::string();
            },
            "", "non-negative"));
}

// A usage error: the message and the exit code 2 (docs/INTERFACE.md), CLI11's own codes (104-114)
// never reach the shell; --help and --version exit 0.
int usage_error(CLI::App& app, const CLI::ParseError& e, int argc, char** argv) {
  if (e.get_exit_code() == 0) return app.exit(e);
  std::string msg = e.what();
  if (argc > 1 && argv[1][0] != '-') {
    bool known = false;
    std::string names;
    for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
      known = known || sub->get_name() == argv[1];
      names += " " + sub->get_name();
    }
    if (!known) msg = std::string("unknown command '") + argv[1] + "' (known:" + names + ")";
  }
  std::fprintf(stderr, "impact: error: %s\nRun with --help for more information.\n", msg.c_str());
  return 2;
}

// Whatever went to standard output reached it: a full disk or a closed pipe is an error (exit 2),
// not a silently short table.
int check_stdout(int rc) {
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    std::fprintf(stderr, "impact: error: standard output: write failed: %s\n", std::strerror(errno));
    return rc ? rc : 2;
  }
  return rc;
}

}  // namespace

// Outside the try below only building the command line throws (CLI11's set-up: a programming error, or
// bad_alloc), and std::terminate's report is the end for those.
// NOLINTNEXTLINE(bugprone-exception-escape): CLI11's set-up, above
int main(int argc, char** argv) {
  using namespace impact::cli;
#ifdef IMPACT_WITH_MPI
  // started by mpirun/srun: join the world (before parsing: MPI may take its own arguments)
  std::unique_ptr<impact::dist::World> world;
  if (impact::dist::launched_by_mpi()) world = std::make_unique<impact::dist::World>(&argc, &argv);
#endif
  CLI::App app{"impactbatch: batch evaluation of rigid-body impacts with friction"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string(impact::io::version()) + " (" + impact::io::git_revision() + ")");

  EvalArgs ea;
  CLI::App* eval = add_eval_subcommand(app, ea);
  CLI::App* laws = app.add_subcommand("laws", "List the impact laws and the columns they read and write");
  CLI::App* scenarios =
      app.add_subcommand("scenarios", "List the study scenarios, their parameters (defaults) and body-level outputs");
  CLI::App* keys = app.add_subcommand(
      "keys", "Print every config key of study, calibrate and reduce with type, default, unit and meaning (docs/reference.md)");
  ReduceArgs ra;
  CLI::App* reduce = add_reduce_subcommand(app, ra);
  CompareArgs ca;
  CLI::App* compare = add_compare_subcommand(app, ca);
  StudyArgs sa;
  CLI::App* study = add_study_subcommand(app, sa);
  BenchArgs ba;
  CLI::App* bench = add_bench_subcommand(app, ba);
  CalibrateArgs cal;
  CLI::App* calibrate = add_calibrate_subcommand(app, cal);

  refuse_negative_unsigned(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) { return usage_error(app, e, argc, argv); }
  int rc = 0;
  bool quiet_rank = false;  // a usage error is every rank's: rank 0 says it
#ifdef IMPACT_WITH_MPI
  quiet_rank = world && world->rank() != 0;
  std::unique_ptr<impact::dist::MpiGroup> plan;
  if (world && world->size() > 1 && *eval) {
    ea.world = world.get();
    if (world->rank() != 0) ea.quiet = true, ea.notes = false;
  } else if (world && world->size() > 1 && *study) {
    sa.world = world.get();
  } else if (world && world->size() > 1 && *calibrate) {
    try {
      plan = std::make_unique<impact::dist::MpiGroup>(*world);
    } catch (const std::exception& e) { world->abort(e.what(), 2); }
    cal.group = plan.get();
  } else if (world && world->size() > 1) {
    if (!*reduce) {
      if (world->rank() == 0)
        std::fprintf(stderr,
                     "impact: error: under mpirun with %d processes only `impact reduce`, `impact eval`, "
                     "`impact study` and `impact calibrate` run distributed; run this command as one process "
                     "(docs/distributed.md)\n",
                     world->size());
      return 2;
    }
    try {
      plan = std::make_unique<impact::dist::MpiGroup>(*world);
    } catch (const std::exception& e) { world->abort(e.what(), 2); }
    ra.plan = plan.get();
    ra.local_rank = world->local_rank();
    if (world->rank() != 0) ra.out.clear(), ra.req.cases_out.clear();
  }
#endif
  try {
    if (*study) rc = run_study(sa, quiet_rank ? nullptr : stdout, quiet_rank ? nullptr : stderr);
    if (*bench) rc = run_bench(ba, stdout, stderr);
    if (*calibrate) rc = run_calibrate(cal, quiet_rank ? nullptr : stdout, quiet_rank ? nullptr : stderr);
    if (*eval) rc = run_eval(ea, ea.quiet ? nullptr : stderr);
    if (*compare) rc = run_compare(ca, stdout);
    if (*reduce) run_reduce(ra, stdout, stderr);
    if (*scenarios) print_scenarios(stdout);
    if (*keys) print_config_keys(stdout);
    if (*laws) print_laws(stdout);
  } catch (const UsageError& e) {  // every rank's alike (cli/usage.hpp): said once, no abort
    if (!quiet_rank) std::fprintf(stderr, "impact %s: error: %s\n", e.command().c_str(), e.what());
    return 2;
  } catch (const impact::io::InputError& e) {
    if (quiet_rank) return 1;
    std::fprintf(stderr, "impact: error: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
#ifdef IMPACT_WITH_MPI
    // a failure on one rank must not leave the others waiting in a collective
    if (world && world->size() > 1 && (plan || *study)) world->abort(std::string("error: ") + e.what(), 2);
#endif
    if (quiet_rank) return 2;
    std::fprintf(stderr, "impact: error: %s\n", e.what());
    return 2;
  }
  return check_stdout(rc);
}
