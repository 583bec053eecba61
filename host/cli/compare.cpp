#include "cli/compare.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>

#include "engine/backend_pick.hpp"
#include "engine/columns.hpp"
#include "io/out_file.hpp"
#include "reference/compare.hpp"
#include "systems/sample_spec.hpp"

namespace impact::cli {

using namespace impact::engine;
using ref::CompareReport;
using ref::CompareRows;
using ref::CompareSpec;

CLI::App* add_compare_subcommand(CLI::App& app, CompareArgs& a) {
  CLI::App* c = app.add_subcommand(
      "compare",
      "Run the fast path and the CPU reference on the same rows; per-column error statistics; exit 3 when any row "
      "is beyond --tol, 4 when no row could be compared, 5 when rows ok in the fast path are unresolved by the "
      "reference (unverified)");
  c->add_option("--law", a.law, "Impact law: " + law_names())->required();
  c->add_option("--in", a.in, "Input CSV with a header row ('-' for stdin)");
  c->add_option("--scenario", a.scenario, "Compare on a sampled study instead (as `impact reduce`): scenario");
  c->add_option("--n", a.n, "Study size: instances [0, n)")->capture_default_str();
  c->add_option("--study-seed", a.study_seed, "Study seed")->capture_default_str();
  c->add_option("--set", a.sets, "Study parameter KEY=DIST (repeatable; see `impact reduce --help`)");
  const auto given = [&a](const char* name) {
    return [&a, name](const std::string&) { a.fast_path_options.emplace_back(name); };
  };
  c->add_option("--backend", a.backend, "Fast path: auto|cuda|omp|serial")->capture_default_str()->each(given("--backend"));
  c->add_option("--precision", a.precision, "Fast path precision: double|float")->capture_default_str();
  c->add_option("--steps", a.steps, "Steps per instance of the fast integrators")->capture_default_str()->each(given("--steps"));
  c->add_option("--integrator", a.integrator, "rk4|euler (fast integrators)")->capture_default_str()->each(given("--integrator"));
  c->add_option("--tol", a.tol, "Largest relative difference allowed in any column (default 1e-5 in double, 1e-2 in float)");
  c->add_option("--sample", a.sample, "Compare a uniform random subset of K rows (0: all)")->capture_default_str();
  c->add_option("--seed", a.seed, "Seed of the random subset")->capture_default_str();
  c->add_option("--fail-out", a.fail_out, "CSV of the rows beyond tolerance (default LAW_compare_failures.csv)");
  c->add_option("--report", a.report, "Write the statistics as JSON to this file");
  c->add_flag("--given", a.given,
              "The input is a result table written by `impact eval` (e.g. on another machine): compare its "
              "results instead of running the fast path");
  c->add_flag("--strict", a.strict, "Rows the fast path left unresolved (step_limit, non_finite) count as failures");
  c->add_flag("--modes-must-match", a.modes_must_match, "A differing mode sequence counts as a failure");
  return c;
}

namespace {

// The options as enums, checked in the order of the other commands.
CompareSpec spec_of(const CompareArgs& args) {
  CompareSpec s;
  s.law = &law_named(args.law);
  s.precision = parse_precision(args.precision);
  s.opt = law_options(args.steps, parse_integrator(args.integrator));
  engine::Workload w;  // rows unknown before the input is read: rates per instance
  w.laws = {s.law};
  w.precision = s.precision;
  w.steps = args.steps;
  s.backend = engine::pick_backend(args.backend, w, false).backend;
  if (!(std::isfinite(args.tol) && args.tol >= 0)) {  // a NaN tolerance would pass every row
    char got[32];
    std::snprintf(got, sizeof got, "%g", args.tol);
    throw std::invalid_argument(std::string("--tol must be a finite number >= 0 (0: the default, 1e-5 in double, "
                                            "1e-2 in float), got ") +
                                got);
  }
  s.tol = args.tol > 0 ? args.tol : s.precision == Precision::f32 ? ref::kDefaultTolFloat : ref::kDefaultTolDouble;
  s.given = args.given;
  s.strict = args.strict;
  s.modes_must_match = args.modes_must_match;
  return s;
}

CompareRows rows_of(const CompareArgs& args, const LawInfo& law) {
  const bool from_study = !args.scenario.empty();
  if (from_study == !args.in.empty())
    throw std::invalid_argument("give either --in FILE or a study (--scenario, --n, --study-seed, --set)");
  if (from_study && args.given) throw std::invalid_argument("--given needs --in (a result table)");
  if (args.given && !args.fast_path_options.empty())  // the fast path does not run: they would change nothing
    throw std::invalid_argument(args.fast_path_options.front() +
                                ": with --given the results are the file's, and no fast path runs (--precision sets the "
                                "tolerance's default)");
  if (!from_study) {
    io::CsvReader reader(args.in);
    return ref::rows_from_table(reader, law, args.given, args.sample, args.seed);
  }
  SampleSpec spec = systems::default_spec(systems::parse_scenario(args.scenario));
  systems::apply_settings(spec, args.sets);
  if (args.n < 1) throw std::invalid_argument("--n must be >= 1");
  const std::string source =
      "study " + args.scenario + " (n " + std::to_string(args.n) + ", seed " + std::to_string(args.study_seed) + ")";
  return ref::rows_from_study(spec, args.study_seed, args.n, args.sample ? args.sample : 1000, args.seed, source);
}

void print_report(std::FILE* out, const CompareArgs& args, const CompareSpec& spec, const CompareRows& rows,
                  const CompareReport& rep) {
  const bool subset = args.sample || rows.from_study;
  if (spec.given)
    std::fprintf(out, "impact compare: law %s, results given in the file vs CPU reference, %zu rows of %s%s\n",
                 spec.law->name.c_str(), rep.rows, rows.source.c_str(), subset ? " (random subset)" : "");
  else
    std::fprintf(out, "impact compare: law %s, fast path %s/%s/%s/%d steps vs CPU reference, %zu rows of %s%s\n",
                 spec.law->name.c_str(), backend_name(spec.backend), precision_name(spec.precision),
                 integrator_name(spec.opt.integrator), spec.opt.steps, rep.rows, rows.source.c_str(),
                 subset ? " (random subset)" : "");
  std::fprintf(out, "  %-14s %11s %11s %11s %11s %11s %11s\n", "column", "max abs", "p99 abs", "median abs", "max rel", "p99 rel",
               "median rel");
  for (const ref::ColumnStats& c : rep.columns)
    std::fprintf(out, "  %-14s %11.3g %11.3g %11.3g %11.3g %11.3g %11.3g\n", c.name.c_str(), c.abs.max, c.abs.p99, c.abs.median,
                 c.rel.max, c.rel.p99, c.rel.median);
  std::fprintf(out,
               "  relative to: |P_ref| (P_*, In_c), |v0| (vf_*), K0 = 1/2 v0.W^-1 v0 (dE), max(|ref|, 1e-6 max|ref|) "
               "(others)\n");
  std::fprintf(out,
               "  rows: %zu ok in both, %zu status differs, %zu fast path unresolved (step_limit or non_finite)%s, %zu reference "
               "unresolved\n",
               rep.both_ok, rep.status_mismatch, rep.fast_unresolved, spec.strict ? " [counted as failures]" : "",
               rep.ref_unresolved);
  std::fprintf(out, "  mode sequence differs: %zu rows (%.3g%% of rows ok in both)\n", rep.modes_differ,
               rep.both_ok ? 100.0 * rep.modes_differ / rep.both_ok : 0.0);
  const std::size_t n = rep.rows;
  std::fprintf(out, "  time: fast path %.3g s (%.3g instances/s), reference %.3g s (%.3g ms per instance on %s)\n",
               rep.fast_seconds, rep.fast_seconds > 0 ? n / rep.fast_seconds : 0.0, rep.ref_seconds,
               n ? 1e3 * rep.ref_seconds / n : 0.0, "all host cores");
}

// The rows beyond tolerance, then the unverified ones (ok in the fast path, unresolved by the
// reference: reason "reference unresolved").
// Whether `path` is a regular file whose first line is the header write_failures writes.
bool is_failure_list(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  std::ifstream f(path);
  std::string head;
  std::getline(f, head);
  const std::string tail = ",reason,worst_column,rel_error,fast_value,ref_value,fast_status,ref_status,fast_modes,ref_modes,";
  return (head.rfind("line" + tail, 0) == 0 || head.rfind("sample_id" + tail, 0) == 0);
}

void write_failures(const std::string& path, const CompareRows& rows, const CompareReport& rep) {
  std::string buf = std::string(rows.from_study ? "sample_id" : "line") +
                    ",reason,worst_column,rel_error,fast_value,ref_value,fast_status,ref_status,fast_modes,ref_modes," +
                    rows.header + "\n";
  std::vector<ref::Failure> listed = rep.failures;
  for (std::size_t i : rep.unverified) listed.push_back(ref::Failure{i, "reference unresolved", -1, 0});
  for (const ref::Failure& x : listed) {
    const std::size_t i = x.row;
    buf += std::to_string(rows.line[i]) + "," + x.reason + ",";
    if (x.col >= 0) {
      buf += rep.columns[x.col].name + ",";
      io::append_number(buf, x.rel);
      buf += ",";
      io::append_number(buf, rep.value(rep.fast, x.col, i));
      buf += ",";
      io::append_number(buf, rep.value(rep.ref, x.col, i));
    } else {
      buf += ",,,";
    }
    buf += std::string(",") + status_name(rep.fast.status_of(i)) + "," + status_name(rep.ref.status_of(i)) + "," +
           modes_string(rep.fast.modes[i]) + "," + modes_string(rep.ref.modes[i]) + "," + rows.raw[i] + "\n";
  }
  io::write_file(path, buf, io::Links::follow);
}

// Every compared row within tolerance, but rows ok in the fast path were left unresolved by the
// reference: their results are checked by nothing (ref::Verdict::unverified), no pass.
constexpr int kExitUnverified = 5;

// 0 (pass), kExitBeyondTolerance (a row failed), kExitNothingCompared (no row compared at all:
// no rows, or every row unresolved on a side) or kExitUnverified.
int exit_code(const CompareReport& rep) {
  const ref::Verdict v = ref::verdict(rep);
  return v == ref::Verdict::pass         ? 0
         : v == ref::Verdict::fail       ? kExitBeyondTolerance
         : v == ref::Verdict::unverified ? kExitUnverified
                                         : kExitNothingCompared;
}

// "3 non_finite, 1 step_limit": the reference's statuses on the unverified rows.
std::string unverified_statuses(const CompareReport& rep) {
  std::size_t nf = 0, sl = 0;
  for (std::size_t i : rep.unverified) (rep.ref.status_of(i) == Status::non_finite ? nf : sl) += 1;
  std::string s;
  if (nf) s += std::to_string(nf) + " non_finite";
  if (sl) s += std::string(nf ? ", " : "") + std::to_string(sl) + " step_limit";
  return s;
}

// The JSON report (ref::report_json; docs/cpu-reference.md).
void write_json(const std::string& path, const CompareArgs& args, const CompareSpec& spec, const CompareRows& rows,
                const CompareReport& rep) {
  io::write_file(path, ref::report_json(spec, rows, rep, args.sample, args.seed), io::Links::follow);
}

}  // namespace

int run_compare(const CompareArgs& args, std::FILE* out) {
  const CompareSpec spec = spec_of(args);
  const std::string fail_path = args.fail_out.empty() ? spec.law->name + "_compare_failures.csv" : args.fail_out;
  for (const std::string* o : {&fail_path, &args.report})
    if (!args.in.empty() && io::same_file(args.in, *o))
      throw std::invalid_argument("--in and " + std::string(o == &fail_path ? "--fail-out" : "--report") +
                                  " name the same file (" + *o + "): the input would be overwritten");
  if (!args.report.empty() && io::same_destination(fail_path, args.report))
    throw std::invalid_argument("--report and the failures' file (--fail-out, default " + fail_path +
                                ") name one file: name another for one of them");
  const CompareRows rows = rows_of(args, *spec.law);
  const CompareReport rep = ref::compare(spec, rows, stderr);
  print_report(out, args, spec, rows, rep);
  const int rc = exit_code(rep);
  if (rc == 0) {
    std::fprintf(out, "  PASS: every row within tolerance %.3g\n", spec.tol);
    // no stale failure list from an earlier run: removed only when it is one (its first line is a
    // failures table's), never a user's file of that name
    if (is_failure_list(fail_path)) io::remove_if_exists(fail_path);
  } else if (rc == kExitUnverified) {
    write_failures(fail_path, rows, rep);
    std::fprintf(out,
                 "  UNVERIFIED: the %zu rows compared are within tolerance %.3g, but %zu rows ok in the fast path were "
                 "left unresolved by the reference (%s): their results are checked by nothing, no pass; listed in "
                 "%s\n",
                 rep.compared(), spec.tol, rep.unverified.size(), unverified_statuses(rep).c_str(), fail_path.c_str());
  } else if (rc == kExitNothingCompared) {
    std::fprintf(out,
                 "  NOTHING COMPARED: none of the %zu rows was resolved by both paths (%zu ok in the fast path but "
                 "unresolved by the reference, %zu unresolved by the fast path, %zu by both): no pass\n",
                 rep.rows, rep.ref_unresolved, rep.fast_unresolved, rep.both_unresolved);
    std::remove(fail_path.c_str());
  } else {
    write_failures(fail_path, rows, rep);
    // each kind of failure apart, in the order met: only rows beyond tolerance have a relative
    // difference to report (a status or a mode sequence that differs, an unresolved fast path: none)
    std::vector<std::pair<std::string, std::size_t>> kinds;
    for (const ref::Failure& f : rep.failures) {
      auto k = std::find_if(kinds.begin(), kinds.end(), [&](const auto& x) { return x.first == f.reason; });
      if (k == kinds.end()) kinds.emplace_back(f.reason, 1);
      else ++k->second;
    }
    std::string what;
    for (const auto& [reason, count] : kinds) {
      char part[160];
      if (reason == "beyond tolerance")
        std::snprintf(part, sizeof part, "%zu rows beyond tolerance %.3g (worst relative difference %.3g)", count, spec.tol,
                      rep.worst_rel);
      else std::snprintf(part, sizeof part, "%zu rows: %s", count, reason.c_str());
      what += (what.empty() ? "" : ", ") + std::string(part);
    }
    std::fprintf(out, "  FAIL: %s; listed in %s\n", what.c_str(), fail_path.c_str());
    if (!rep.unverified.empty())
      std::fprintf(out, "  and %zu rows ok in the fast path left unresolved by the reference (%s), listed there too\n",
                   rep.unverified.size(), unverified_statuses(rep).c_str());
  }
  if (!args.report.empty()) write_json(args.report, args, spec, rows, rep);
  return rc;
}

}  // namespace impact::cli
