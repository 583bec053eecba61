// The `impact` command line: one subcommand per file in host/cli/.
#include <CLI/CLI.hpp>
#include <cstdio>

#include "cli/bench.hpp"
#include "cli/compare.hpp"
#include "cli/eval.hpp"
#include "cli/listings.hpp"
#include "cli/reduce.hpp"
#include "cli/study.hpp"
#include "io/csv.hpp"
#include "io/version.hpp"

int main(int argc, char** argv) {
  using namespace impact::cli;
  CLI::App app{"impactbatch: batch evaluation of rigid-body impacts with friction"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string(impact::io::version()) + " (" + impact::io::git_revision() + ")");

  EvalArgs ea;
  CLI::App* eval = add_eval_subcommand(app, ea);
  CLI::App* laws = app.add_subcommand("laws", "List the impact laws and the columns they read and write");
  CLI::App* scenarios =
      app.add_subcommand("scenarios", "List the study scenarios, their parameters (defaults) and body-level outputs");
  ReduceArgs ra;
  CLI::App* reduce = add_reduce_subcommand(app, ra);
  CompareArgs ca;
  CLI::App* compare = add_compare_subcommand(app, ca);
  StudyArgs sa;
  CLI::App* study = add_study_subcommand(app, sa);
  BenchArgs ba;
  CLI::App* bench = add_bench_subcommand(app, ba);

  CLI11_PARSE(app, argc, argv);
  try {
    if (*study) return run_study(sa, stdout, stderr);
    if (*bench) return run_bench(ba, stdout, stderr);
    if (*eval) run_eval(ea, ea.quiet ? nullptr : stderr);
    if (*compare) return run_compare(ca, stdout);
    if (*reduce) run_reduce(ra, stdout, stderr);
    if (*scenarios) print_scenarios(stdout);
    if (*laws) print_laws(stdout);
  } catch (const impact::io::InputError& e) {
    std::fprintf(stderr, "impact: error: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "impact: error: %s\n", e.what());
    return 2;
  }
  return 0;
}
