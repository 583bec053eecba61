#include "reference/compare.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "engine/options.hpp"
#include "engine/table.hpp"
#include "impact/derived.hpp"
#include "impact/rng.hpp"
#include "io/machine.hpp"
#include "reference/reference.hpp"

namespace impact::ref {

using engine::InputColumns;
using engine::OutputColumns;

namespace {

using Clock = std::chrono::steady_clock;
using io::seconds_since;

void resize_rows(CompareRows& rows, std::size_t n) {
  rows.cols.resize(n);
  rows.raw.resize(n);
  rows.line.resize(n);
  if (rows.has_given) rows.given.resize(n);
}

// Row `from` of src into row `to` of dst.
void move_row(CompareRows& src, std::size_t from, CompareRows& dst, std::size_t to) {
  for (int k = 0; k < kNumInputs; ++k) dst.cols.col[k][to] = src.cols.col[k][from];
  if (src.has_given) dst.given.copy_row(src.given, from, to);
  dst.raw[to] = std::move(src.raw[from]);
  dst.line[to] = src.line[from];
}

// The kept rows of a reservoir back in file order (`order`: each kept row's index in the file).
CompareRows in_file_order(CompareRows& rows, const std::vector<std::size_t>& order) {
  std::vector<std::size_t> perm(rows.count);
  for (std::size_t i = 0; i < perm.size(); ++i) perm[i] = i;
  std::sort(perm.begin(), perm.end(), [&](std::size_t a, std::size_t b) { return order[a] < order[b]; });
  CompareRows sorted;
  sorted.count = rows.count;
  sorted.has_given = rows.has_given;
  sorted.header = rows.header;
  sorted.source = rows.source;
  std::copy(std::begin(rows.needed), std::end(rows.needed), std::begin(sorted.needed));
  resize_rows(sorted, rows.count);
  for (std::size_t i = 0; i < perm.size(); ++i) move_row(rows, perm[i], sorted, i);
  return sorted;
}

}  // namespace

CompareRows rows_from_table(io::CsvReader& reader, const engine::LawInfo& law, bool given, std::size_t sample,
                            std::uint64_t seed) {
  const engine::InputLayout lay = engine::read_header(reader, law, given);
  CompareRows rows;
  rows.has_given = given;
  rows.header = lay.header;
  rows.source = reader.path();
  std::copy(std::begin(lay.needed), std::end(lay.needed), std::begin(rows.needed));
  std::vector<io::CsvField> fields;
  const std::size_t block = 4096;
  CompareRows one;  // the candidate row once the reservoir is full
  one.has_given = given;
  resize_rows(one, 1);
  std::vector<std::size_t> order;  // original row index of each kept row
  const Philox rng{seed};
  for (std::size_t seen = 0;; ++seen) {
    const bool fill = sample == 0 || rows.count < sample;
    if (fill && rows.count % block == 0) resize_rows(rows, rows.count + block);
    CompareRows& dst = fill ? rows : one;
    const std::size_t j = fill ? rows.count : 0;
    if (!engine::read_row(reader, fields, lay, dst.cols, j)) break;
    if (given) engine::read_results(fields, reader, lay, law, dst.given, j);
    dst.raw[j] = reader.raw();
    dst.line[j] = reader.line_no();
    if (fill) {
      order.push_back(seen);
      ++rows.count;
      continue;
    }
    // keep row `seen` with probability K / (seen + 1), replacing a uniformly chosen kept row
    double u, unused;
    uniforms2(rng, seen, 0x5a3c, u, unused);
    const std::size_t r = static_cast<std::size_t>(u * static_cast<double>(seen + 1));
    if (r < sample) {
      move_row(one, 0, rows, r);
      order[r] = seen;
    }
  }
  resize_rows(rows, rows.count);
  return sample ? in_file_order(rows, order) : rows;
}

CompareRows rows_from_study(const SampleSpec& spec, std::uint64_t study_seed, std::uint64_t n, std::size_t K, std::uint64_t seed,
                            const std::string& source) {
  std::vector<std::uint64_t> idx;
  if (K >= n) {
    for (std::uint64_t i = 0; i < n; ++i) idx.push_back(i);
  } else {
    const Philox rng{seed};
    std::uint64_t draw = 0;
    // bounded: each round adds at least one new index with probability >= 1 - K/n > 0
    for (int round = 0; round < 64 && idx.size() < K; ++round) {
      while (idx.size() < K) {
        double u, unused;
        uniforms2(rng, draw++, 0x57d1, u, unused);
        idx.push_back(std::min<std::uint64_t>(n - 1, static_cast<std::uint64_t>(u * static_cast<double>(n))));
      }
      std::sort(idx.begin(), idx.end());
      idx.erase(std::unique(idx.begin(), idx.end()), idx.end());
    }
  }
  CompareRows rows;
  rows.from_study = true;
  rows.source = source;
  rows.header = "sample_id";
  for (int k = 0; k < kNumInputs; ++k) rows.header += std::string(",") + kInputNames[k], rows.needed[k] = true;
  rows.count = idx.size();
  resize_rows(rows, rows.count);
  for (std::size_t i = 0; i < idx.size(); ++i) {
    rows.cols.set(i, make_instance<double>(spec, study_seed, idx[i]));
    std::string raw = std::to_string(idx[i]);
    for (const std::vector<double>& c : rows.cols.col) {
      raw += ',';
      io::append_number(raw, c[i]);
    }
    rows.raw[i] = std::move(raw);
    rows.line[i] = static_cast<long>(idx[i]);
  }
  return rows;
}

namespace {

template <class T>
void run_fast(const CompareSpec& spec, const CompareRows& rows, OutputColumns<double>& out, double& seconds) {
  const engine::BatchFn<T> fn = engine::batch_fn<T>(*spec.law, spec.backend);
  if (!fn) throw std::invalid_argument(std::string("no fast path for backend ") + engine::backend_name(spec.backend));
  const std::size_t chunk = 1 << 16;
  InputColumns<T> cols;
  OutputColumns<T> res;
  cols.resize(std::min(chunk, rows.count));
  res.resize(std::min(chunk, rows.count));
  for (std::size_t o = 0; o < rows.count; o += chunk) {
    const std::size_t m = std::min(chunk, rows.count - o);
    for (int k = 0; k < kNumInputs; ++k)
      for (std::size_t i = 0; i < m; ++i) cols.col[k][i] = static_cast<T>(rows.cols.col[k][o + i]);
    const auto t0 = Clock::now();
    fn(cols.view(rows.needed, 0, m), res.view(), spec.opt);
    seconds += seconds_since(t0);
    for (std::size_t i = 0; i < m; ++i) out.copy_row(res, i, o + i);
  }
}

// The reference, in blocks with progress lines when it runs long.
void run_reference(const CompareSpec& spec, const CompareRows& rows, OutputColumns<double>& out, double& seconds,
                   std::FILE* log) {
  const engine::BatchFn<double> fn = batch_fn(*spec.law);
  const std::size_t n = rows.count, block = 2048;
  const auto t0 = Clock::now();
  double last = 0;
  for (std::size_t o = 0; o < n; o += block) {
    const std::size_t m = std::min(block, n - o);
    fn(rows.cols.view(rows.needed, o, m), out.view(o), spec.opt);
    const double el = seconds_since(t0);
    if (log && el - last > 2.0 && o + m < n) {
      std::fprintf(log, "impact compare: reference %zu / %zu rows, %.1f s, about %.0f s left\n", o + m, n, el,
                   el / (o + m) * (n - o - m));
      last = el;
    }
  }
  seconds = seconds_since(t0);
}

// How a compared column's difference is made relative: to |P_ref|, |v0|, K0, or its own magnitude.
enum class Scale { impulse, velocity, energy, own };

Quantiles quantiles(std::vector<double> v) {
  Quantiles q;
  if (v.empty()) return q;
  std::sort(v.begin(), v.end());
  q.max = v.back();
  q.p99 = v[std::min(v.size() - 1, static_cast<std::size_t>(std::ceil(0.99 * v.size())) - 1)];
  q.median = v[(v.size() - 1) / 2];
  return q;
}

bool unresolved(Status s) { return s == Status::step_limit || s == Status::non_finite; }

// The differences of the compared columns over the rows ok in both.
struct Errors {
  std::vector<Scale> scale;
  std::vector<std::vector<double>> abs, rel;
  std::vector<double> own_floor;  // the `own` scale's floor: 1e-6 of the column's largest reference value
};

// Counts a row whose status is not ok on both sides; true when it is settled (no numbers to compare).
bool settle_status(const CompareSpec& spec, CompareReport& rep, std::size_t i) {
  const Status fs = rep.fast.status_of(i), rs = rep.ref.status_of(i);
  if (fs == Status::ok && rs == Status::ok) return false;
  if (unresolved(fs) && unresolved(rs)) {
    ++rep.both_unresolved;
    return true;
  }
  if (fs == rs) {
    ++rep.status_agree;
    return true;
  }
  if (fs == Status::ok && unresolved(rs)) {
    ++rep.ref_unresolved;
    rep.unverified.push_back(i);
  } else if (rs == Status::ok && unresolved(fs)) {
    ++rep.fast_unresolved;
    if (spec.strict) rep.failures.push_back(Failure{i, "fast path unresolved", -1, 0});
  } else {
    ++rep.status_mismatch;
    rep.failures.push_back(Failure{i, "status differs", -1, 0});
  }
  return true;
}

// Compares the numbers of a row ok in both.
void compare_row(const CompareSpec& spec, const CompareRows& rows, CompareReport& rep, Errors& err, std::size_t i) {
  ++rep.both_ok;
  double v[kNumInputs];
  for (int k = 0; k < kNumInputs; ++k) v[k] = rows.cols.col[k][i];
  const ContactProblem<double> p = from_columns(v);
  const double scale_of[3] = {norm(rep.ref.P(i)), norm(p.v0), initial_energy(p)};
  double worst = 0;
  int worst_c = 0;
  for (std::size_t c = 0; c < rep.columns.size(); ++c) {
    const double a = rep.value(rep.fast, int(c), i), b = rep.value(rep.ref, int(c), i);
    const double s =
        err.scale[c] == Scale::own ? std::max(std::fabs(b), err.own_floor[c]) : scale_of[static_cast<int>(err.scale[c])];
    // equal values (infinities included) differ by 0; a finite against a non-finite one by inf
    const double ae = a == b ? 0.0 : std::isfinite(a) && std::isfinite(b) ? std::fabs(a - b) : INFINITY;
    const double re = s > 0 ? ae / s : (ae > 0 ? INFINITY : 0.0);
    err.abs[c].push_back(ae);
    err.rel[c].push_back(re);
    if (!(re <= worst)) worst = re, worst_c = int(c);
  }
  rep.worst_rel = std::max(rep.worst_rel, worst);
  const bool modes_differ = rep.fast.modes[i] != rep.ref.modes[i];
  if (modes_differ) ++rep.modes_differ;
  if (!(worst <= spec.tol)) rep.failures.push_back(Failure{i, "beyond tolerance", worst_c, worst});
  else if (modes_differ && spec.modes_must_match) rep.failures.push_back(Failure{i, "mode sequence differs", worst_c, worst});
}

// The compared columns: P, vf, dE, and the law's numeric extras.
Errors compared_columns(const engine::LawInfo& law, CompareReport& rep) {
  Errors err;
  for (int k = 0; k < out_In_c; ++k) {
    rep.columns.push_back(ColumnStats{kCommonOutputNames[k], {}, {}});
    err.scale.push_back(k < out_vf_x ? Scale::impulse : k < out_dE ? Scale::velocity : Scale::energy);
  }
  for (const ExtraColumn& x : law.extras) {
    if (x.what == Extra::Modes || x.what == Extra::Steps) continue;
    rep.columns.push_back(ColumnStats{x.name, {}, {}});
    err.scale.push_back(x.what == Extra::In_c ? Scale::impulse : Scale::own);
    rep.extra_of.push_back(x.what);
  }
  err.abs.resize(rep.columns.size());
  err.rel.resize(rep.columns.size());
  err.own_floor.assign(rep.columns.size(), 0.0);
  return err;
}

}  // namespace

double CompareReport::value(const OutputColumns<double>& o, int c, std::size_t i) const {
  if (c < out_In_c) return o.real[c][i];
  return o.extra(i, extra_of[c - out_In_c]);
}

CompareReport compare(const CompareSpec& spec, const CompareRows& rows, std::FILE* log) {
  CompareReport rep;
  const std::size_t n = rows.count;
  rep.rows = n;
  rep.fast.resize(n);
  rep.ref.resize(n);
  if (spec.given) rep.fast = rows.given;
  else if (spec.precision == engine::Precision::f32) run_fast<float>(spec, rows, rep.fast, rep.fast_seconds);
  else run_fast<double>(spec, rows, rep.fast, rep.fast_seconds);
  run_reference(spec, rows, rep.ref, rep.ref_seconds, log);

  Errors err = compared_columns(*spec.law, rep);
  for (std::size_t i = 0; i < n; ++i) {
    if (rep.ref.status_of(i) != Status::ok) continue;
    for (std::size_t c = out_In_c; c < rep.columns.size(); ++c)
      err.own_floor[c] = std::max(err.own_floor[c], 1e-6 * std::fabs(rep.value(rep.ref, int(c), i)));
  }
  for (std::size_t i = 0; i < n; ++i)
    if (!settle_status(spec, rep, i)) compare_row(spec, rows, rep, err, i);
  rep.beyond = rep.failures.size();
  for (std::size_t c = 0; c < rep.columns.size(); ++c) {
    rep.columns[c].abs = quantiles(err.abs[c]);
    rep.columns[c].rel = quantiles(err.rel[c]);
  }
  return rep;
}

namespace {

// A statistic for the JSON report: JSON has no inf or NaN, so a non-finite value is null
// (docs/cpu-reference.md).
nlohmann::ordered_json number(double x) { return std::isfinite(x) ? nlohmann::ordered_json(x) : nlohmann::ordered_json(nullptr); }

}  // namespace

Verdict verdict(const CompareReport& rep) {
  if (!rep.failures.empty()) return Verdict::fail;
  if (rep.compared() == 0) return Verdict::nothing_compared;
  return rep.unverified.empty() ? Verdict::pass : Verdict::unverified;
}

const char* verdict_name(Verdict v) {
  return v == Verdict::pass ? "pass" : v == Verdict::fail ? "fail" : v == Verdict::unverified ? "unverified" : "nothing_compared";
}

std::string report_json(const CompareSpec& spec, const CompareRows& rows, const CompareReport& rep, std::size_t sample,
                        std::uint64_t seed) {
  nlohmann::ordered_json j{{"law", spec.law->name},
                           {"backend", engine::backend_name(spec.backend)},
                           {"precision", engine::precision_name(spec.precision)},
                           {"integrator", engine::integrator_name(spec.opt.integrator)},
                           {"steps", spec.opt.steps},
                           {"input", rows.source},
                           {"rows", rep.rows},
                           {"sample", sample},
                           {"seed", seed},
                           {"tol", spec.tol},
                           {"both_ok", rep.both_ok},
                           {"status_mismatch", rep.status_mismatch},
                           {"fast_unresolved", rep.fast_unresolved},
                           {"ref_unresolved", rep.ref_unresolved},
                           {"modes_differ", rep.modes_differ},
                           {"status_agree", rep.status_agree},
                           {"both_unresolved", rep.both_unresolved},
                           {"compared", rep.compared()},
                           {"beyond_tol", rep.beyond},
                           {"verdict", verdict_name(verdict(rep))},
                           {"fast_seconds", number(rep.fast_seconds)},
                           {"reference_seconds", number(rep.ref_seconds)}};
  nlohmann::ordered_json cols = nlohmann::ordered_json::object();
  // no row ok in both: no differences to describe (null rather than 0)
  const auto stat = [&](double x) { return number(rep.both_ok ? x : NAN); };
  for (const ColumnStats& c : rep.columns)
    cols[c.name] = {{"max_abs", stat(c.abs.max)}, {"p99_abs", stat(c.abs.p99)}, {"median_abs", stat(c.abs.median)},
                    {"max_rel", stat(c.rel.max)}, {"p99_rel", stat(c.rel.p99)}, {"median_rel", stat(c.rel.median)}};
  j["columns"] = cols;
  return j.dump(2) + "\n";
}

}  // namespace impact::ref
