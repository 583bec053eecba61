#include "compare.hpp"

#include <CLI/CLI.hpp>
#include <Eigen/Dense>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <vector>

#include "csv.hpp"
#include "impact/rng.hpp"
#include "input.hpp"
#include "kernels/sampled.hpp"
#include "sample_spec.hpp"
#include "laws.hpp"

namespace impact::host {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// The rows under comparison: inputs in double (the reference reads them as given), the raw lines
// and their line numbers for the failure file.
struct Rows {
  InputColumns<double> cols;
  OutputColumns<double> given;  // results read from the file (--given)
  std::vector<std::string> raw;
  std::vector<long> line;
  std::size_t count = 0;
};

Status status_from_name(std::string_view t, const CsvReader& r, const CsvField& f) {
  for (int k = 0; k < static_cast<int>(Status::count_); ++k)
    if (t == status_name(static_cast<Status>(k))) return static_cast<Status>(k);
  throw InputError(located(r.path(), r.line_no(), f.col, "unknown status '" + std::string(t) + "'"));
}

std::uint32_t modes_from_string(std::string_view t, const CsvReader& r, const CsvField& f) {
  ModeSeq m = ModeSeq::empty();
  if (t.empty() || t == "none") return m.bits;
  std::size_t a = 0;
  while (a <= t.size()) {
    std::size_t b = t.find('>', a);
    if (b == std::string_view::npos) b = t.size();
    const std::string_view w = t.substr(a, b - a);
    Mode md = Mode::none;
    for (Mode c : {Mode::slip, Mode::stick, Mode::reverse})
      if (w == mode_name(c)) md = c;
    if (md == Mode::none)
      throw InputError(located(r.path(), r.line_no(), f.col, "unknown contact mode '" + std::string(w) + "'"));
    m.push(md);
    a = b + 1;
  }
  return m.bits;
}

// The results of one row of an `impact eval` table (numbers empty unless the status is ok).
void parse_given(const std::vector<CsvField>& fields, const CsvReader& r, const InputLayout& lay, const LawInfo& law,
                 OutputColumns<double>& g, std::size_t j) {
  const Status st = status_from_name(fields[lay.out_col[7]].text, r, fields[lay.out_col[7]]);
  g.status[j] = static_cast<std::uint8_t>(st);
  const bool ok = st == Status::ok;
  auto num = [&](std::size_t k) { return ok ? parse_number(fields[lay.out_col[k]], r, lay.out_names[k]) : 0.0; };
  for (int k = 0; k < 3; ++k) g.P[k][j] = num(k);
  for (int k = 0; k < 3; ++k) g.vf[k][j] = num(3 + k);
  g.dE[j] = num(6);
  g.modes[j] = 0;
  g.steps[j] = 0;
  for (std::size_t x = 0; x < law.extras.size(); ++x) {
    const std::size_t k = 8 + x;
    const CsvField& f = fields[lay.out_col[k]];
    switch (law.extras[x].what) {
      case Extra::In_c: g.In_c[j] = num(k); break;
      case Extra::Modes: g.modes[j] = ok ? modes_from_string(f.text, r, f) : 0u; break;
      case Extra::Steps: break;
      default: g.aux[static_cast<int>(law.extras[x].what) - static_cast<int>(Extra::Aux0)][j] = num(k); break;
    }
  }
}

// Row `from` of `src` into row `to` of `dst` (any precision into double).
template <class T>
void copy_row(const OutputColumns<T>& src, std::size_t from, OutputColumns<double>& dst, std::size_t to) {
  for (int k = 0; k < 3; ++k) dst.P[k][to] = src.P[k][from], dst.vf[k][to] = src.vf[k][from];
  dst.dE[to] = src.dE[from];
  dst.In_c[to] = src.In_c[from];
  for (int k = 0; k < kAux; ++k) dst.aux[k][to] = src.aux[k][from];
  dst.modes[to] = src.modes[from];
  dst.steps[to] = src.steps[from];
  dst.status[to] = src.status[from];
}

// Reads every row, or a uniform random subset of K rows (reservoir sampling keyed by the seed
// and the row index with Philox, so a subset is reproducible), kept in file order.
Rows read_rows(CsvReader& reader, const InputLayout& lay, const LawInfo& law, std::size_t sample,
               std::uint64_t seed) {
  Rows rows;
  const bool given = !lay.out_col.empty();
  std::vector<CsvField> fields;
  const std::size_t block = 4096;
  std::vector<double> one[kNumInputs];
  for (auto& c : one) c.resize(1);
  std::vector<std::size_t> order;  // original row index of each kept row
  const Philox rng{seed};
  std::size_t seen = 0;
  while (true) {
    if (sample == 0 || rows.count < sample) {
      if (rows.count % block == 0) {
        rows.cols.resize(rows.count + block);
        rows.raw.resize(rows.count + block);
        rows.line.resize(rows.count + block);
        if (given) rows.given.resize(rows.count + block);
      }
      if (!read_row(reader, fields, lay, rows.cols.in, rows.count)) break;
      if (given) parse_given(fields, reader, lay, law, rows.given, rows.count);
      rows.raw[rows.count] = reader.raw();
      rows.line[rows.count] = reader.line_no();
      order.push_back(seen);
      ++rows.count;
    } else {
      if (!read_row(reader, fields, lay, one, 0)) break;
      // keep row `seen` with probability K / (seen + 1), replacing a uniformly chosen kept row
      double u, unused;
      uniforms2(rng, seen, 0x5a3c, u, unused);
      const std::size_t j = static_cast<std::size_t>(u * static_cast<double>(seen + 1));
      if (j < sample) {
        for (int k = 0; k < kNumInputs; ++k) rows.cols.in[k][j] = one[k][0];
        if (given) parse_given(fields, reader, lay, law, rows.given, j);
        rows.raw[j] = reader.raw();
        rows.line[j] = reader.line_no();
        order[j] = seen;
      }
    }
    ++seen;
  }
  rows.cols.resize(rows.count);
  rows.raw.resize(rows.count);
  rows.line.resize(rows.count);
  if (given) rows.given.resize(rows.count);
  if (sample) {  // back to file order
    std::vector<std::size_t> perm(rows.count);
    for (std::size_t i = 0; i < perm.size(); ++i) perm[i] = i;
    std::sort(perm.begin(), perm.end(), [&](std::size_t a, std::size_t b) { return order[a] < order[b]; });
    Rows sorted;
    sorted.count = rows.count;
    sorted.cols.resize(rows.count);
    sorted.raw.resize(rows.count);
    sorted.line.resize(rows.count);
    if (given) sorted.given.resize(rows.count);
    for (std::size_t i = 0; i < perm.size(); ++i) {
      for (int k = 0; k < kNumInputs; ++k) sorted.cols.in[k][i] = rows.cols.in[k][perm[i]];
      if (given) copy_row(rows.given, perm[i], sorted.given, i);
      sorted.raw[i] = std::move(rows.raw[perm[i]]);
      sorted.line[i] = rows.line[perm[i]];
    }
    return sorted;
  }
  return rows;
}

// K distinct instances of a sampled study [0, n), drawn uniformly (Philox keyed by `seed`), in index
// order; the row's "line" is its sample_id and its raw text the instance's input columns.
static_assert(kInstanceColumns == kNumInputs, "sampled instances carry every input column");
Rows study_rows(const SampleSpec& spec, std::uint64_t study_seed, std::uint64_t n, std::size_t K,
                std::uint64_t seed, std::string& header) {
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
  header = "sample_id";
  for (int k = 0; k < kNumInputs; ++k) header += std::string(",") + kInputNames[k];
  Rows rows;
  rows.count = idx.size();
  rows.cols.resize(rows.count);
  rows.raw.resize(rows.count);
  rows.line.resize(rows.count);
  for (std::size_t i = 0; i < idx.size(); ++i) {
    double v[kInstanceColumns];  // BatchIn order, as kInputNames
    instance_columns(make_instance<double>(spec, study_seed, idx[i]), v);
    std::string raw = std::to_string(idx[i]);
    for (int k = 0; k < kNumInputs; ++k) {
      rows.cols.in[k][i] = v[k];
      raw += ',';
      append_number(raw, v[k]);
    }
    rows.raw[i] = std::move(raw);
    rows.line[i] = static_cast<long>(idx[i]);
  }
  return rows;
}

// One compared output column: its values per row and how a row's difference is made relative.
enum class Scale { impulse, velocity, energy, own };
struct Column {
  std::string name;
  Scale scale;
  std::vector<double> fast, ref;
  std::vector<double> abs_err, rel_err;  // over rows where both are ok
};

struct Quantiles {
  double max = 0, p99 = 0, median = 0;
};
Quantiles quantiles(std::vector<double> v) {
  Quantiles q;
  if (v.empty()) return q;
  std::sort(v.begin(), v.end());
  q.max = v.back();
  q.p99 = v[std::min(v.size() - 1, static_cast<std::size_t>(std::ceil(0.99 * v.size())) - 1)];
  q.median = v[(v.size() - 1) / 2];
  return q;
}

template <class T>
void run_fast(const LawInfo& law, Backend backend, const LawOptions& opt, const Rows& rows, const InputLayout& lay,
              OutputColumns<double>& out, double& seconds) {
  const BatchFn<T> fn = batch_fn<T>(law, backend);
  if (!fn) throw std::invalid_argument(std::string("no fast path for backend ") + backend_name(backend));
  const std::size_t chunk = 1 << 16;
  InputColumns<T> cols;
  OutputColumns<T> res;
  cols.resize(std::min(chunk, rows.count));
  res.resize(std::min(chunk, rows.count));
  for (std::size_t o = 0; o < rows.count; o += chunk) {
    const std::size_t m = std::min(chunk, rows.count - o);
    for (int k = 0; k < kNumInputs; ++k)
      for (std::size_t i = 0; i < m; ++i) cols.in[k][i] = static_cast<T>(rows.cols.in[k][o + i]);
    const auto t0 = Clock::now();
    fn(cols.view(lay, 0, m), res.view(0), opt);
    seconds += seconds_since(t0);
    for (std::size_t i = 0; i < m; ++i) copy_row(res, i, out, o + i);
  }
}

bool unresolved(Status s) { return s == Status::step_limit || s == Status::non_finite; }

std::string json_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    o += c;
  }
  return o;
}

}  // namespace

CLI::App* add_compare_subcommand(CLI::App& app, CompareArgs& a) {
  CLI::App* c = app.add_subcommand(
      "compare",
      "Run the fast path and the CPU reference on the same rows; per-column error statistics; exit 3 when any row "
      "is beyond --tol");
  c->add_option("--law", a.law, "Impact law: " + law_names())->required();
  c->add_option("--in", a.in, "Input CSV with a header row ('-' for stdin)");
  c->add_option("--scenario", a.scenario, "Compare on a sampled study instead (as `impact reduce`): scenario");
  c->add_option("--n", a.n, "Study size: instances [0, n)")->capture_default_str();
  c->add_option("--study-seed", a.study_seed, "Study seed")->capture_default_str();
  c->add_option("--set", a.sets, "Study parameter KEY=DIST (repeatable; see `impact reduce --help`)");
  c->add_option("--backend", a.backend, "Fast path: auto|cuda|omp|serial")->capture_default_str();
  c->add_option("--precision", a.precision, "Fast path precision: double|float")->capture_default_str();
  c->add_option("--steps", a.steps, "Steps per instance of the fast integrators")->capture_default_str();
  c->add_option("--integrator", a.integrator, "rk4|euler (fast integrators)")->capture_default_str();
  c->add_option("--tol", a.tol,
                "Largest relative difference allowed in any column (default 1e-5 in double, 1e-2 in float)");
  c->add_option("--sample", a.sample, "Compare a uniform random subset of K rows (0: all)")->capture_default_str();
  c->add_option("--seed", a.seed, "Seed of the random subset")->capture_default_str();
  c->add_option("--fail-out", a.fail_out, "CSV of the rows beyond tolerance (default LAW_compare_failures.csv)");
  c->add_option("--report", a.report, "Write the statistics as JSON to this file");
  c->add_flag("--given", a.given,
              "The input is a result table written by `impact eval` (e.g. on another machine): compare its "
              "results instead of running the fast path");
  c->add_flag("--strict", a.strict, "Rows the fast path left unresolved (step_limit) count as failures");
  c->add_flag("--modes-must-match", a.modes_must_match, "A differing mode sequence counts as a failure");
  return c;
}

CompareOutcome run_compare(const CompareArgs& args, std::FILE* out) {
  const LawInfo* law = find_law(args.law);
  if (!law) throw std::invalid_argument("unknown law '" + args.law + "' (known: " + law_names() + ")");
  check_law_options(args.precision, args.integrator, args.steps);
  const Backend backend = resolve_backend(args.backend, args.precision, false);
  const double tol = args.tol > 0 ? args.tol : args.precision == "float" ? kDefaultTolFloat : kDefaultTolDouble;
  if (args.tol < 0) throw std::invalid_argument("--tol must be > 0");
  const std::string fail_path = args.fail_out.empty() ? law->name + "_compare_failures.csv" : args.fail_out;

  const bool study = !args.scenario.empty();
  if (study == !args.in.empty())
    throw std::invalid_argument("give either --in FILE or a study (--scenario, --n, --study-seed, --set)");
  if (study && args.given) throw std::invalid_argument("--given needs --in (a result table)");
  InputLayout lay;
  Rows rows;
  std::string source;
  if (study) {
    SampleSpec spec = default_spec(parse_scenario(args.scenario));
    for (const std::string& st : args.sets) apply_setting(spec, st);
    if (args.n < 1) throw std::invalid_argument("--n must be >= 1");
    for (int k = 0; k < kNumInputs; ++k) lay.needed[k] = true;  // sampled instances have every column
    rows = study_rows(spec, args.study_seed, args.n, args.sample ? args.sample : 1000, args.seed, lay.header);
    source = "study " + args.scenario + " (n " + std::to_string(args.n) + ", seed " + std::to_string(args.study_seed) + ")";
  } else {
    CsvReader reader(args.in);
    lay = read_header(reader, *law, args.given);
    rows = read_rows(reader, lay, *law, args.sample, args.seed);
    source = reader.path();
  }
  const std::size_t n = rows.count;

  LawOptions opt;
  opt.steps = args.steps;
  opt.integrator = args.integrator == "euler" ? Integrator::euler : Integrator::rk4;
  OutputColumns<double> fast, ref;
  fast.resize(n);
  ref.resize(n);
  double fast_s = 0, ref_s = 0;
  if (args.given)
    fast = std::move(rows.given);
  else if (args.precision == "float")
    run_fast<float>(*law, backend, opt, rows, lay, fast, fast_s);
  else
    run_fast<double>(*law, backend, opt, rows, lay, fast, fast_s);

  // reference, in blocks with progress lines when it runs long
  {
    const std::size_t block = 2048;
    const auto t0 = Clock::now();
    double last = 0;
    for (std::size_t o = 0; o < n; o += block) {
      const std::size_t m = std::min(block, n - o);
      law->reference_double(rows.cols.view(lay, o, m), ref.view(o), opt);
      const double el = seconds_since(t0);
      if (el - last > 2.0 && o + m < n) {
        std::fprintf(stderr, "impact compare: reference %zu / %zu rows, %.1f s, about %.0f s left\n", o + m, n, el,
                     el / (o + m) * (n - o - m));
        last = el;
      }
    }
    ref_s = seconds_since(t0);
  }

  // columns
  std::vector<Column> C;
  for (const char* nm : {"P_x", "P_y", "P_z"}) C.push_back(Column{nm, Scale::impulse, {}, {}, {}, {}});
  for (const char* nm : {"vf_x", "vf_y", "vf_z"}) C.push_back(Column{nm, Scale::velocity, {}, {}, {}, {}});
  C.push_back(Column{"dE", Scale::energy, {}, {}, {}, {}});
  std::vector<Extra> extra_of;
  for (const ExtraColumn& x : law->extras) {
    if (x.what == Extra::Modes || x.what == Extra::Steps) continue;
    C.push_back(Column{x.name, x.what == Extra::In_c ? Scale::impulse : Scale::own, {}, {}, {}, {}});
    extra_of.push_back(x.what);
  }
  auto value = [&](const OutputColumns<double>& o, std::size_t c, std::size_t i) -> double {
    if (c < 3) return o.P[c][i];
    if (c < 6) return o.vf[c - 3][i];
    if (c == 6) return o.dE[i];
    const Extra x = extra_of[c - 7];
    if (x == Extra::In_c) return o.In_c[i];
    return o.aux[static_cast<int>(x) - static_cast<int>(Extra::Aux0)][i];
  };
  // column magnitude for the `own` scale: 1e-6 of the largest reference value
  std::vector<double> own_floor(C.size(), 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    if (static_cast<Status>(ref.status[i]) != Status::ok) continue;
    for (std::size_t c = 7; c < C.size(); ++c) own_floor[c] = std::max(own_floor[c], 1e-6 * std::fabs(value(ref, c, i)));
  }

  CompareOutcome oc;
  oc.rows = n;
  struct Failure {
    std::size_t row;
    std::string reason;
    std::size_t col;  // C.size() when not a numeric failure
    double rel;
  };
  std::vector<Failure> fails;
  for (std::size_t i = 0; i < n; ++i) {
    const Status fs = static_cast<Status>(fast.status[i]), rs = static_cast<Status>(ref.status[i]);
    if (fs != Status::ok || rs != Status::ok) {
      if (fs == rs) continue;
      if (fs == Status::ok && unresolved(rs)) {
        ++oc.ref_unresolved;
        continue;
      }
      if (rs == Status::ok && unresolved(fs)) {
        ++oc.fast_unresolved;
        if (args.strict) fails.push_back(Failure{i, "fast path unresolved", C.size(), 0});
        continue;
      }
      if (unresolved(fs) && unresolved(rs)) continue;
      ++oc.status_mismatch;
      fails.push_back(Failure{i, "status differs", C.size(), 0});
      continue;
    }
    ++oc.both_ok;
    const Eigen::Vector3d P(ref.P[0][i], ref.P[1][i], ref.P[2][i]);
    const Eigen::Vector3d v0(rows.cols.in[9][i], rows.cols.in[10][i], rows.cols.in[11][i]);
    Eigen::Matrix3d W;
    const auto& in = rows.cols.in;
    W << in[0][i], in[1][i], in[2][i], in[1][i], in[3][i], in[4][i], in[2][i], in[4][i], in[5][i];
    const double K0 = 0.5 * v0.dot(W.ldlt().solve(v0));
    double worst = 0;
    std::size_t worst_c = 0;
    for (std::size_t c = 0; c < C.size(); ++c) {
      const double a = value(fast, c, i), b = value(ref, c, i);
      double s = 1;
      switch (C[c].scale) {
        case Scale::impulse: s = P.norm(); break;
        case Scale::velocity: s = v0.norm(); break;
        case Scale::energy: s = K0; break;
        case Scale::own: s = std::max(std::fabs(b), own_floor[c]); break;
      }
      // equal values (infinities included) differ by 0; a finite against a non-finite one by inf
      const double ae = a == b ? 0.0 : std::isfinite(a) && std::isfinite(b) ? std::fabs(a - b) : INFINITY;
      const double re = s > 0 ? ae / s : (ae > 0 ? INFINITY : 0.0);
      C[c].abs_err.push_back(ae);
      C[c].rel_err.push_back(re);
      if (!(re <= worst)) {
        worst = re;
        worst_c = c;
      }
    }
    oc.worst_rel = std::max(oc.worst_rel, worst);
    const bool modes_differ = fast.modes[i] != ref.modes[i];
    if (modes_differ) ++oc.modes_differ;
    if (!(worst <= tol))
      fails.push_back(Failure{i, "beyond tolerance", worst_c, worst});
    else if (modes_differ && args.modes_must_match)
      fails.push_back(Failure{i, "mode sequence differs", worst_c, worst});
  }
  oc.beyond = fails.size();

  // report
  const char* be = backend_name(backend);
  if (args.given)
    std::fprintf(out, "impact compare: law %s, results given in the file vs CPU reference, %zu rows of %s%s\n",
                 law->name.c_str(), n, source.c_str(), args.sample || study ? " (random subset)" : "");
  else
    std::fprintf(out, "impact compare: law %s, fast path %s/%s/%s/%d steps vs CPU reference, %zu rows of %s%s\n",
                 law->name.c_str(), be, args.precision.c_str(), args.integrator.c_str(), args.steps, n,
                 source.c_str(), args.sample || study ? " (random subset)" : "");
  std::fprintf(out, "  %-14s %11s %11s %11s %11s %11s %11s\n", "column", "max abs", "p99 abs", "median abs", "max rel",
               "p99 rel", "median rel");
  std::vector<std::pair<Quantiles, Quantiles>> q(C.size());
  for (std::size_t c = 0; c < C.size(); ++c) {
    q[c] = {quantiles(C[c].abs_err), quantiles(C[c].rel_err)};
    std::fprintf(out, "  %-14s %11.3g %11.3g %11.3g %11.3g %11.3g %11.3g\n", C[c].name.c_str(), q[c].first.max,
                 q[c].first.p99, q[c].first.median, q[c].second.max, q[c].second.p99, q[c].second.median);
  }
  std::fprintf(out,
               "  relative to: |P_ref| (P_*, In_c), |v0| (vf_*), K0 = 1/2 v0.W^-1 v0 (dE), max(|ref|, 1e-6 max|ref|) "
               "(others)\n");
  std::fprintf(out, "  rows: %zu ok in both, %zu status differs, %zu fast path unresolved (step_limit)%s, %zu reference unresolved\n",
               oc.both_ok, oc.status_mismatch, oc.fast_unresolved, args.strict ? " [counted as failures]" : "",
               oc.ref_unresolved);
  std::fprintf(out, "  mode sequence differs: %zu rows (%.3g%% of rows ok in both)\n", oc.modes_differ,
               oc.both_ok ? 100.0 * oc.modes_differ / oc.both_ok : 0.0);
  std::fprintf(out, "  time: fast path %.3g s (%.3g instances/s), reference %.3g s (%.3g ms per instance on %s)\n",
               fast_s, fast_s > 0 ? n / fast_s : 0.0, ref_s, n ? 1e3 * ref_s / n : 0.0, "all host cores");
  if (fails.empty()) {
    std::fprintf(out, "  PASS: every row within tolerance %.3g\n", tol);
    std::remove(fail_path.c_str());  // no stale failure list from an earlier run
  } else {
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(fail_path.c_str(), "wb"), &std::fclose);
    if (!f) throw std::invalid_argument(fail_path + ": cannot open for writing");
    std::string buf = std::string(study ? "sample_id" : "line") + ",reason,worst_column,rel_error,fast_value,ref_value,fast_status,ref_status,fast_modes,ref_modes," +
                      lay.header + "\n";
    for (const Failure& x : fails) {
      const std::size_t i = x.row;
      buf += std::to_string(rows.line[i]) + "," + x.reason + ",";
      if (x.col < C.size()) {
        buf += C[x.col].name + ",";
        append_number(buf, x.rel);
        buf += ",";
        append_number(buf, value(fast, x.col, i));
        buf += ",";
        append_number(buf, value(ref, x.col, i));
      } else {
        buf += ",,,";
      }
      buf += std::string(",") + status_name(static_cast<Status>(fast.status[i])) + "," +
             status_name(static_cast<Status>(ref.status[i])) + "," + modes_string(fast.modes[i]) + "," +
             modes_string(ref.modes[i]) + "," + rows.raw[i] + "\n";
    }
    if (std::fwrite(buf.data(), 1, buf.size(), f.get()) != buf.size())
      throw std::runtime_error(fail_path + ": write failed");
    std::fprintf(out, "  FAIL: %zu rows beyond tolerance %.3g (worst relative difference %.3g); listed in %s\n",
                 fails.size(), tol, oc.worst_rel, fail_path.c_str());
  }
  if (!args.report.empty()) {
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(args.report.c_str(), "wb"), &std::fclose);
    if (!f) throw std::invalid_argument(args.report + ": cannot open for writing");
    std::fprintf(f.get(),
                 "{\n  \"law\": \"%s\", \"backend\": \"%s\", \"precision\": \"%s\", \"integrator\": \"%s\", "
                 "\"steps\": %d,\n  \"input\": \"%s\", \"rows\": %zu, \"sample\": %zu, \"seed\": %llu, \"tol\": %.17g,\n"
                 "  \"both_ok\": %zu, \"status_mismatch\": %zu, \"fast_unresolved\": %zu, \"ref_unresolved\": %zu, "
                 "\"modes_differ\": %zu, \"beyond_tol\": %zu,\n  \"fast_seconds\": %.6g, \"reference_seconds\": %.6g,\n"
                 "  \"columns\": {",
                 law->name.c_str(), be, args.precision.c_str(), args.integrator.c_str(), args.steps,
                 json_escape(source).c_str(), n, args.sample, static_cast<unsigned long long>(args.seed), tol,
                 oc.both_ok, oc.status_mismatch, oc.fast_unresolved, oc.ref_unresolved, oc.modes_differ, oc.beyond,
                 fast_s, ref_s);
    for (std::size_t c = 0; c < C.size(); ++c)
      std::fprintf(f.get(),
                   "%s\n    \"%s\": {\"max_abs\": %.6g, \"p99_abs\": %.6g, \"median_abs\": %.6g, \"max_rel\": %.6g, "
                   "\"p99_rel\": %.6g, \"median_rel\": %.6g}",
                   c ? "," : "", C[c].name.c_str(), q[c].first.max, q[c].first.p99, q[c].first.median, q[c].second.max,
                   q[c].second.p99, q[c].second.median);
    std::fprintf(f.get(), "\n  }\n}\n");
  }
  return oc;
}

}  // namespace impact::host
