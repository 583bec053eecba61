// The fast path against the CPU reference (`impact compare`): both run on the same rows (read from a
// table, or drawn from a sampled study), and every output column is compared, relative to the
// instance's own scale. The result holds, per column, the distribution of the absolute and relative
// differences, the row counts by outcome and the rows beyond the tolerance.
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "engine/columns.hpp"
#include "engine/options.hpp"
#include "engine/registry.hpp"
#include "impact/sampling.hpp"
#include "io/csv.hpp"

namespace impact::ref {

constexpr double kDefaultTolDouble = 1e-5;
constexpr double kDefaultTolFloat = 1e-2;

// The rows under comparison: inputs in double (the reference reads them as given), the results
// given in the file (--given), the raw lines and their line numbers (or sample ids) for the
// failure file.
struct CompareRows {
  engine::InputColumns<double> cols;
  engine::OutputColumns<double> given;
  bool needed[kNumInputs];  // the input columns present (the law's, or all for a study)
  std::vector<std::string> raw;
  std::vector<long> line;
  std::size_t count = 0;
  std::string header;  // of the raw lines
  std::string source;  // the file, or the study
  bool from_study = false;
  bool has_given = false;
};

// Every row of a table, or a uniform random subset of K rows (reservoir sampling keyed by the seed
// and the row index with Philox, so a subset is reproducible), in file order. given: the table holds
// `impact eval` results too. Throws io::InputError.
CompareRows rows_from_table(io::CsvReader& reader, const engine::LawInfo& law, bool given, std::size_t sample,
                            std::uint64_t seed);

// K distinct instances of a sampled study [0, n) drawn uniformly (Philox keyed by `seed`), in index
// order; a row's "line" is its sample_id and its raw text the instance's input columns.
CompareRows rows_from_study(const SampleSpec& spec, std::uint64_t study_seed, std::uint64_t n, std::size_t K, std::uint64_t seed,
                            const std::string& source);

struct CompareSpec {
  const engine::LawInfo* law = nullptr;
  engine::Backend backend = engine::Backend::omp;  // the fast path (not the reference)
  engine::Precision precision = engine::Precision::f64;
  LawOptions opt;
  double tol = kDefaultTolDouble;
  bool given = false;             // compare the rows' given results instead of running the fast path
  bool strict = false;            // rows the fast path gave up on (step_limit) count as failures
  bool modes_must_match = false;  // a differing mode sequence counts as a failure
};

struct Quantiles {
  double max = 0, p99 = 0, median = 0;
};

// One compared output column.
struct ColumnStats {
  std::string name;
  Quantiles abs, rel;
};

struct Failure {
  std::size_t row;
  std::string reason;
  int col;  // index into CompareReport::columns; -1 when not a numeric failure
  double rel;
};

struct CompareReport {
  std::size_t rows = 0, both_ok = 0, beyond = 0, status_mismatch = 0, fast_unresolved = 0, ref_unresolved = 0, modes_differ = 0;
  std::size_t status_agree = 0;  // rows with the same status on both sides, not ok and not unresolved
  // rows ok in the fast path that the reference left unresolved (ref_unresolved of them): their
  // numbers are checked by nothing, so no verdict is a plain pass while there are any
  std::vector<std::size_t> unverified;
  std::size_t both_unresolved = 0;  // rows neither side resolved (step_limit or non_finite on both)
  // Rows actually compared: numbers (ok in both) or an agreeing status (no_approach in both, ...).
  // None at all (no rows, or every row unresolved on a side) is no pass, whatever the failures.
  std::size_t compared() const { return both_ok + status_agree; }
  double worst_rel = 0;
  std::vector<ColumnStats> columns;
  std::vector<Failure> failures;
  engine::OutputColumns<double> fast, ref;  // both results, per row
  double fast_seconds = 0, ref_seconds = 0;

  double value(const engine::OutputColumns<double>& o, int col, std::size_t i) const;  // a compared cell
  std::vector<Extra> extra_of;  // the source of each compared column after dE
};

// Runs the fast path (or takes the given results) and the reference, and compares; progress lines
// of a long reference run go to `log` (null: none).
CompareReport compare(const CompareSpec& spec, const CompareRows& rows, std::FILE* log);

// The outcome: every compared row within tolerance, a row beyond it, or no row compared at all
// (no rows, or every row unresolved on a side: no pass, whatever the failures); `unverified`:
// every compared row within tolerance, but some rows ok in the fast path were left unresolved by
// the reference (non_finite, step_limit), so their results are checked by nothing (a pass would
// vouch for them: stronge at mu >= 5e307 can be ok in the law and non_finite in the reference).
enum class Verdict { pass, fail, nothing_compared, unverified };
Verdict verdict(const CompareReport& rep);
const char* verdict_name(Verdict v);  // pass, fail, nothing_compared, unverified

// The report as JSON text (`impact compare --report`, impactbatch.compare): options, row counts,
// the verdict, timings, and per column the max / p99 / median of the absolute and relative
// differences (null where no row is ok in both). sample, seed: how the rows were drawn (0 when all).
std::string report_json(const CompareSpec& spec, const CompareRows& rows, const CompareReport& rep, std::size_t sample,
                        std::uint64_t seed);

}  // namespace impact::ref
