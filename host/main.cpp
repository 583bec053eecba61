// The `impact` command line.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>

#include "bench.hpp"
#include "compare.hpp"
#include "csv.hpp"
#include "eval.hpp"
#include "laws.hpp"
#include "reduce.hpp"
#include "scenarios.hpp"
#include "study.hpp"
#include "version.hpp"

int main(int argc, char** argv) {
  using namespace impact::host;
  CLI::App app{"impactbatch: batch evaluation of rigid-body impacts with friction"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string(version()) + " (" + git_revision() + ")");

  EvalArgs ea;
  CLI::App* eval = app.add_subcommand("eval", "Evaluate a CSV of contact-space instances with one law");
  eval->add_option("--law", ea.law, "Impact law: " + law_names())->required();
  eval->add_option("--in", ea.in, "Input CSV with a header row ('-' for stdin)")->required();
  eval->add_option("--out", ea.out, "Output CSV ('-' for stdout)")->capture_default_str();
  eval->add_option("--backend", ea.backend, "auto|cuda|omp|serial|reference")->capture_default_str();
  eval->add_option("--precision", ea.precision, "double|float")->capture_default_str();
  eval->add_option("--steps", ea.steps, "Steps per instance for the integrators")->capture_default_str();
  eval->add_option("--integrator", ea.integrator, "rk4|euler (integrators)")->capture_default_str();
  eval->add_option("--chunk", ea.chunk, "Rows per batch")->capture_default_str();
  eval->add_flag("--quiet,-q", ea.quiet, "No summary on stderr");

  CLI::App* laws = app.add_subcommand("laws", "List the impact laws and the columns they read and write");
  CLI::App* scenarios = app.add_subcommand("scenarios", "List the study scenarios, their parameters (defaults) and body-level outputs");

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
    if (*study) {
      return run_study(sa, stdout, stderr);
    } else if (*bench) {
      return run_bench(ba, stdout, stderr);
    } else if (*eval) {
      run_eval(ea, ea.quiet ? nullptr : stderr);
    } else if (*compare) {
      const CompareOutcome oc = run_compare(ca, stdout);
      if (oc.beyond) return kExitBeyondTolerance;
    } else if (*reduce) {
      run_reduce(ra, stdout, stderr);
    } else if (*scenarios) {
      for (const ScenarioInfo& sc : all_scenarios()) {
        std::printf("%s: %s\n", sc.name.c_str(), sc.summary.c_str());
        for (const ScenarioParam& p : sc.params) std::printf("  %-8s %-12.6g %s\n", p.name, p.value, p.help);
        std::printf("  outputs:");
        for (const std::string& o : sc.body_outputs) std::printf(" %s", o.c_str());
        std::printf("%s\n\n", sc.body_outputs.empty() ? " (contact-space columns only)" : "");
      }
    } else if (*laws) {
      for (const LawInfo& l : all_laws()) {
        std::printf("%-18s %s\n", l.name.c_str(), l.summary.c_str());
        std::printf("%-18s reads W_*, n_*, v_*%s%s%s%s\n", "", l.uses_mu ? ", mu" : "",
                    l.uses_e ? ", e" : "", l.uses_et ? ", e_t" : "", l.uses_eta0 ? ", eta0" : "");
        std::printf("%-18s writes P_*, vf_*, dE, status", "");
        for (const ExtraColumn& x : l.extras) std::printf(", %s", x.name);
        std::printf("\n");
      }
    }
  } catch (const InputError& e) {
    std::fprintf(stderr, "impact: error: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "impact: error: %s\n", e.what());
    return 2;
  }
  return 0;
}
