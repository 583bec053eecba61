#include "reduce.hpp"

#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "csv.hpp"
#include "kernels/sampled.hpp"
#include "laws.hpp"
#include "sample_spec.hpp"

namespace impact::host {

namespace {

using Clock = std::chrono::steady_clock;

const char* const kQuantityKeys[kNumQuantities] = {"Pn", "Pt", "vfn", "dE_K0"};
const char* const kQuantityNames[kNumQuantities] = {"normal impulse P.n", "tangential |P_t|",
                                                    "separation vf.n", "energy ratio dE/K0"};

// Instances of the pilot run that sets the default histogram ranges: always [0, kPilot) of the
// seed, whatever --first and --n, so every shard of a study gets the same ranges.
constexpr std::size_t kPilot = 4096;

long peak_rss_kb() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;  // kilobytes on Linux
}

// User + system CPU time of the process so far (all threads).
double cpu_seconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + 1e-6 * ru.ru_utime.tv_usec + ru.ru_stime.tv_sec + 1e-6 * ru.ru_stime.tv_usec;
}

// JSON number: shortest round-trip form; non-finite -> null.
std::string jnum(double v) {
  if (!std::isfinite(v)) return "null";
  std::string s;
  append_number(s, v);
  return s;
}

std::string jstr(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    o += c;
  }
  return o + "\"";
}

// "nice" histogram range around [lo, hi] (data quantiles): padded by 5% and rounded outward to a
// tenth of the width's order of magnitude, without crossing 0 when the data do not; a positive
// (negative) range that nearly reaches 0 is extended to 0.
void nice_range(double lo, double hi, double& out_lo, double& out_hi) {
  const bool nonneg = lo >= 0, nonpos = hi <= 0;
  if (!(hi > lo)) {
    const double pad = std::max(std::fabs(lo) * 0.05, 1e-12);
    lo -= pad;
    hi += pad;
  }
  const double w = hi - lo;
  lo -= 0.05 * w;
  hi += 0.05 * w;
  const double step = std::pow(10.0, std::floor(std::log10(hi - lo))) / 10.0;
  out_lo = std::floor(lo / step) * step;
  out_hi = std::ceil(hi / step) * step;
  if (nonneg && out_lo < 0.2 * out_hi) out_lo = 0;
  if (nonpos && out_hi > 0.2 * out_lo) out_hi = 0;
  out_lo += 0.0;  // no -0
  out_hi += 0.0;
}

// Default ranges from the pilot: the 0.5% and 99.5% quantiles of each quantity over its ok rows,
// evaluated with the serial backend in precision T.
template <class T>
SummaryRanges pilot_ranges(const LawInfo& law, Backend backend, const SampleSpec& spec, std::uint64_t seed,
                           const LawOptions& opt) {
  const std::size_t m = kPilot;
  std::vector<T> in[kInstanceColumns];
  T* cols[kInstanceColumns];
  for (int k = 0; k < kInstanceColumns; ++k) in[k].resize(m), cols[k] = in[k].data();
  materialize<T>(spec, seed, 0, m, cols);
  const BatchIn<T> bin = batch_in_of<T>(cols, m);
  std::vector<T> P[3], vf[3], dE(m), In_c(m), aux[kAux];
  std::vector<std::uint32_t> modes(m);
  std::vector<std::int32_t> steps(m);
  std::vector<std::uint8_t> status(m);
  BatchOut<T> bout{};
  for (int k = 0; k < 3; ++k) P[k].resize(m), vf[k].resize(m), bout.P[k] = P[k].data(), bout.vf[k] = vf[k].data();
  for (int k = 0; k < kAux; ++k) aux[k].resize(m), bout.aux[k] = aux[k].data();
  bout.dE = dE.data();
  bout.In_c = In_c.data();
  bout.modes = modes.data();
  bout.steps = steps.data();
  bout.status = status.data();
  batch_fn<T>(law, backend)(bin, bout, opt);
  SummaryRanges wide;
  for (int k = 0; k < kNumQuantities; ++k) wide.lo[k] = 0, wide.hi[k] = 1;
  std::vector<double> x[kNumQuantities];
  for (std::size_t i = 0; i < m; ++i) {
    if (status[i] != 0) continue;
    Result<T> r = make_result<T>(Status::ok);
    r.P = {P[0][i], P[1][i], P[2][i]};
    r.vf = {vf[0][i], vf[1][i], vf[2][i]};
    r.dE = dE[i];
    const BatchSummary one = summarize_row(load_instance(bin, i), r, wide);
    for (int k = 0; k < kNumQuantities; ++k)
      if (std::isfinite(one.q[k].mean)) x[k].push_back(one.q[k].mean);
  }
  SummaryRanges rg;
  for (int k = 0; k < kNumQuantities; ++k) {
    std::vector<double>& v = x[k];
    if (v.empty()) {
      rg.lo[k] = k == kEnergyRatio ? -1.0 : 0.0;
      rg.hi[k] = k == kEnergyRatio ? 0.0 : 1.0;
      continue;
    }
    std::sort(v.begin(), v.end());
    const double lo = v[static_cast<std::size_t>(0.005 * (v.size() - 1))];
    const double hi = v[static_cast<std::size_t>(0.995 * (v.size() - 1))];
    nice_range(lo, hi, rg.lo[k], rg.hi[k]);
  }
  return rg;
}

void apply_range(SummaryRanges& rg, const std::string& setting) {
  const std::size_t eq = setting.find('=');
  const std::string key = eq == std::string::npos ? setting : setting.substr(0, eq);
  int q = -1;
  for (int k = 0; k < kNumQuantities; ++k)
    if (key == kQuantityKeys[k]) q = k;
  if (q < 0 || eq == std::string::npos)
    throw std::invalid_argument("--range " + setting + ": expected QUANTITY=LO:HI with QUANTITY one of Pn, Pt, vfn, dE_K0");
  const std::string v = setting.substr(eq + 1);
  const std::size_t c = v.find(':');
  char* e1 = nullptr;
  char* e2 = nullptr;
  const std::string a = c == std::string::npos ? v : v.substr(0, c);
  const std::string b = c == std::string::npos ? "" : v.substr(c + 1);
  const double lo = std::strtod(a.c_str(), &e1), hi = std::strtod(b.c_str(), &e2);
  if (c == std::string::npos || a.empty() || b.empty() || *e1 || *e2 || !std::isfinite(lo) || !std::isfinite(hi) ||
      !(lo < hi))
    throw std::invalid_argument("--range " + setting + ": expected " + key + "=LO:HI with finite LO < HI");
  rg.lo[q] = lo;
  rg.hi[q] = hi;
}

// The sampled instances [first, first + n) as CSV (index + the 16 input columns of
// docs/INTERFACE.md), written block by block: memory stays flat.
void write_cases(const std::string& path, const SampleSpec& spec, std::uint64_t seed, std::uint64_t first,
                 std::uint64_t n) {
  static const char* const names[kInstanceColumns] = {"W_xx", "W_xy", "W_xz", "W_yy", "W_yz", "W_zz",
                                                      "n_x",  "n_y",  "n_z",  "v_x",  "v_y",  "v_z",
                                                      "mu",   "e",    "e_t",  "eta0"};
  std::FILE* f = path == "-" ? stdout : std::fopen(path.c_str(), "wb");
  if (!f) throw std::invalid_argument(path + ": cannot open for writing");
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> guard(path == "-" ? nullptr : f, &std::fclose);
  std::string buf = "index";
  for (const char* c : names) buf += std::string(",") + c;
  buf += '\n';
  const std::size_t block = 1 << 14;
  std::vector<double> col[kInstanceColumns];
  double* cols[kInstanceColumns];
  for (int k = 0; k < kInstanceColumns; ++k) col[k].resize(block), cols[k] = col[k].data();
  for (std::uint64_t b = 0; b < n; b += block) {
    const std::size_t m = static_cast<std::size_t>(std::min<std::uint64_t>(block, n - b));
    materialize<double>(spec, seed, first + b, m, cols);
    for (std::size_t i = 0; i < m; ++i) {
      buf += std::to_string(first + b + i);
      for (int k = 0; k < kInstanceColumns; ++k) {
        buf += ',';
        append_number(buf, col[k][i]);
      }
      buf += '\n';
    }
    if (std::fwrite(buf.data(), 1, buf.size(), f) != buf.size()) throw std::runtime_error(path + ": write failed");
    buf.clear();
  }
  if (std::fflush(f) != 0) throw std::runtime_error(path + ": write failed");
}

// One line of the histogram: counts scaled to 10 levels.
std::string sparkline(const Histogram& h) {
  static const char levels[] = " .:-=+*#%@";
  std::uint64_t mx = 0;
  for (int i = 1; i <= Histogram::kBins; ++i) mx = std::max(mx, h.count[i]);
  std::string s;
  for (int i = 1; i <= Histogram::kBins; ++i) {
    const std::uint64_t c = h.count[i];
    int l = c == 0 || mx == 0 ? 0 : 1 + static_cast<int>(8.0 * double(c) / double(mx) + 0.5);
    s += levels[std::min(l, 9)];
  }
  return s;
}

void print_table(std::FILE* t, const ReduceArgs& a, const SampleSpec& spec, const ReduceResult& r) {
  const BatchSummary& s = r.summary;
  std::uint64_t total = 0;
  for (int i = 0; i < static_cast<int>(Status::count_); ++i) total += s.status[i];
  std::fprintf(t, "impact reduce: law %s, scenario %s, backend %s, precision %s, seed %llu\n", a.law.c_str(),
               a.scenario.c_str(), r.backend.c_str(), a.precision.c_str(), static_cast<unsigned long long>(a.seed));
  std::string line;
  for (const auto& [k, v] : describe(spec)) line += "  " + k + "=" + v;
  std::fprintf(t, "  study:%s\n", line.c_str());
  std::fprintf(t,
               "  instances [%llu, %llu): %llu in %.3f s (%.4g instances/s); %.3f s in all with the range pilot, "
               "CPU time %.3f s, peak RSS %.1f MB\n",
               static_cast<unsigned long long>(a.first), static_cast<unsigned long long>(a.first + a.n),
               static_cast<unsigned long long>(total), r.study_seconds,
               r.study_seconds > 0 ? double(total) / r.study_seconds : 0.0, r.wall_seconds, r.cpu_seconds,
               r.peak_rss_kb / 1024.0);
  std::fprintf(t, "  status:");
  for (int i = 0; i < static_cast<int>(Status::count_); ++i)
    if (s.status[i])
      std::fprintf(t, "  %s %llu (%.3g%%)", status_name(static_cast<Status>(i)),
                   static_cast<unsigned long long>(s.status[i]), total ? 100.0 * double(s.status[i]) / double(total) : 0.0);
  std::fprintf(t, "\n");
  std::fprintf(t, "  %-26s %12s %13s %13s %13s %13s\n", "over ok rows", "count", "mean", "sd", "min", "max");
  for (int k = 0; k < kNumQuantities; ++k) {
    const Moments& m = s.q[k];
    std::fprintf(t, "  %-6s %-19s %12.0f %13.6g %13.6g %13.6g %13.6g\n", kQuantityKeys[k], kQuantityNames[k], m.n,
                 m.n ? m.mean : NAN, m.n ? std::sqrt(m.variance()) : NAN, m.n ? m.min : NAN, m.n ? m.max : NAN);
  }
  std::fprintf(t, "  histograms (%d bins on [lo, hi); '<' below lo, '>' at or above hi):\n", Histogram::kBins);
  for (int k = 0; k < kNumQuantities; ++k) {
    const Histogram& h = s.h[k];
    std::fprintf(t, "  %-6s [%-9.4g %9.4g) <%-9llu |%s| >%llu\n", kQuantityKeys[k], h.lo, h.hi,
                 static_cast<unsigned long long>(h.count[0]), sparkline(h).c_str(),
                 static_cast<unsigned long long>(h.count[Histogram::kBins + 1]));
  }
}

void write_json(const std::string& path, const ReduceArgs& a, const SampleSpec& spec, const ReduceResult& r,
                std::uint64_t chunk) {
  const BatchSummary& s = r.summary;
  std::uint64_t total = 0;
  for (int i = 0; i < static_cast<int>(Status::count_); ++i) total += s.status[i];
  std::string j = "{\n";
  j += "  \"law\": " + jstr(a.law) + ",\n";
  j += "  \"scenario\": " + jstr(a.scenario) + ",\n";
  j += "  \"backend\": " + jstr(r.backend) + ",\n";
  j += "  \"precision\": " + jstr(a.precision) + ",\n";
  j += "  \"steps\": " + std::to_string(a.steps) + ",\n";
  j += "  \"integrator\": " + jstr(a.integrator) + ",\n";
  j += "  \"seed\": " + std::to_string(a.seed) + ",\n";
  j += "  \"first\": " + std::to_string(a.first) + ",\n";
  j += "  \"n\": " + std::to_string(a.n) + ",\n";
  j += "  \"chunk\": " + std::to_string(chunk) + ",\n";
  j += "  \"study\": {";
  bool first = true;
  for (const auto& [k, v] : describe(spec)) {
    j += (first ? "" : ", ") + jstr(k) + ": " + jstr(v);
    first = false;
  }
  j += "},\n";
  j += "  \"wall_seconds\": " + jnum(r.wall_seconds) + ",\n";
  j += "  \"study_seconds\": " + jnum(r.study_seconds) + ",\n";
  j += "  \"instances_per_second\": " + jnum(r.study_seconds > 0 ? double(total) / r.study_seconds : 0.0) + ",\n";
  j += "  \"cpu_seconds\": " + jnum(r.cpu_seconds) + ",\n";
  j += "  \"peak_rss_kb\": " + std::to_string(r.peak_rss_kb) + ",\n";
  j += "  \"status\": {";
  for (int i = 0; i < static_cast<int>(Status::count_); ++i)
    j += std::string(i ? ", " : "") + jstr(status_name(static_cast<Status>(i))) + ": " + std::to_string(s.status[i]);
  j += "},\n";
  j += "  \"quantities\": {\n";
  for (int k = 0; k < kNumQuantities; ++k) {
    const Moments& m = s.q[k];
    const Histogram& h = s.h[k];
    j += "    " + jstr(kQuantityKeys[k]) + ": {\"description\": " + jstr(kQuantityNames[k]);
    j += ", \"count\": " + jnum(m.n) + ", \"mean\": " + jnum(m.n ? m.mean : NAN) +
         ", \"sd\": " + jnum(m.n > 1 ? std::sqrt(m.variance()) : NAN) + ", \"min\": " + jnum(m.n ? m.min : NAN) +
         ", \"max\": " + jnum(m.n ? m.max : NAN) + ",\n";
    j += "      \"histogram\": {\"lo\": " + jnum(h.lo) + ", \"hi\": " + jnum(h.hi) +
         ", \"bins\": " + std::to_string(Histogram::kBins) + ", \"below\": " + std::to_string(h.count[0]) +
         ", \"above\": " + std::to_string(h.count[Histogram::kBins + 1]) + ", \"counts\": [";
    for (int i = 1; i <= Histogram::kBins; ++i) j += (i > 1 ? ", " : "") + std::to_string(h.count[i]);
    j += "]}}";
    j += k + 1 < kNumQuantities ? ",\n" : "\n";
  }
  j += "  }\n}\n";
  std::FILE* f = path == "-" ? stdout : std::fopen(path.c_str(), "wb");
  if (!f) throw std::invalid_argument(path + ": cannot open for writing");
  const bool ok = std::fwrite(j.data(), 1, j.size(), f) == j.size() && std::fflush(f) == 0;
  if (f != stdout) std::fclose(f);
  if (!ok) throw std::runtime_error(path + ": write failed");
}

template <class T>
ReduceResult run(const ReduceArgs& a, const LawInfo& law, Backend backend, const SampleSpec& spec, std::FILE* table,
                 std::FILE* log) {
  const auto t0 = Clock::now();
  const double cpu0 = cpu_seconds();
  LawOptions opt;
  opt.steps = a.steps;
  opt.integrator = a.integrator == "euler" ? Integrator::euler : Integrator::rk4;
  SummaryRanges rg = pilot_ranges<T>(law, backend, spec, a.seed, opt);
  for (const std::string& r : a.ranges) apply_range(rg, r);
  const SampledFn<T> fn = sampled_fn<T>(law, backend);
  if (!fn) throw std::invalid_argument(std::string("backend '") + backend_name(backend) + "' has no sampled reduction");
  const std::uint64_t chunk = a.chunk ? a.chunk : (backend == Backend::cuda ? (1ull << 24) : (1ull << 16));

  if (!a.cases_out.empty()) write_cases(a.cases_out, spec, a.seed, a.first, a.n);

  ReduceResult res;
  res.backend = backend_name(backend);
  res.ranges = rg;
  res.summary = summary_identity(rg);
  auto last = Clock::now();
  const auto t_study = last;  // the rate excludes the pilot and the optional CSV
  const std::uint64_t end = a.first + a.n;
  for (std::uint64_t b = a.first; b < end;) {
    const std::uint64_t e = end - b < chunk ? end : b + chunk;
    res.summary = merge(res.summary, fn(spec, a.seed, b, e, opt, rg));
    b = e;
    const auto now = Clock::now();
    const double el = std::chrono::duration<double>(now - t0).count();
    if (log && b < end && el > 1.0 && std::chrono::duration<double>(now - last).count() >= 1.0) {
      const double done = double(b - a.first), rate = done / el;
      std::fprintf(log, "impact reduce: %5.1f%% (%llu / %llu instances), %.1f s, %.3g instances/s, ~%.0f s left\n",
                   100.0 * done / double(a.n), static_cast<unsigned long long>(b - a.first),
                   static_cast<unsigned long long>(a.n), el, rate, (double(a.n) - done) / rate);
      std::fflush(log);
      last = now;
    }
  }
  res.wall_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  res.study_seconds = std::chrono::duration<double>(Clock::now() - t_study).count();
  res.peak_rss_kb = peak_rss_kb();
  res.cpu_seconds = cpu_seconds() - cpu0;
  if (table) print_table(table, a, spec, res);
  if (!a.out.empty()) write_json(a.out, a, spec, res, chunk);
  return res;
}

}  // namespace

const char* quantity_key(int k) { return k >= 0 && k < kNumQuantities ? kQuantityKeys[k] : "?"; }

CLI::App* add_reduce_subcommand(CLI::App& app, ReduceArgs& a) {
  CLI::App* c = app.add_subcommand(
      "reduce", "Sample N instances of a study on the device, evaluate one law and reduce to a summary (no per-instance storage)");
  c->add_option("--law", a.law, "Impact law: " + law_names())->required();
  c->add_option("--scenario", a.scenario, "contact|ball")->capture_default_str();
  c->add_option("--n", a.n, "Number of instances")->capture_default_str();
  c->add_option("--first", a.first, "Index of the first instance (a shard is [first, first + n))")->capture_default_str();
  c->add_option("--seed", a.seed, "Philox seed")->capture_default_str();
  c->add_option("--set", a.sets,
                "KEY=DIST, DIST one of fixed:A, uniform:A:B, normal:MEAN:SD, lognormal:MU:SIGMA, "
                "truncnormal:MEAN:SD:LO:HI or a number (repeatable). contact keys: w1 w2 w3 rotation vn vt phi mu e "
                "e_t eta0; ball keys: m r V0x V0y V0z w0x w0y w0z mu e e_t eta0");
  c->add_option("--range", a.ranges, "QUANTITY=LO:HI histogram range (Pn, Pt, vfn, dE_K0; default from a pilot run)");
  c->add_option("--backend", a.backend, "auto|cuda|omp|serial")->capture_default_str();
  c->add_option("--precision", a.precision, "double|float")->capture_default_str();
  c->add_option("--steps", a.steps, "Steps per instance for the integrators")->capture_default_str();
  c->add_option("--integrator", a.integrator, "rk4|euler (integrators)")->capture_default_str();
  c->add_option("--chunk", a.chunk, "Instances per reduction call (0: 65536 on CPUs, 2^24 on CUDA)")->capture_default_str();
  c->add_option("--out", a.out, "JSON summary file ('-' for stdout)");
  c->add_option("--cases-out", a.cases_out, "Also write the sampled instances as a CSV for `impact eval`");
  c->add_flag("--quiet,-q", a.quiet, "No progress lines and no table");
  return c;
}

ReduceResult run_reduce(const ReduceArgs& a, std::FILE* table, std::FILE* log) {
  const LawInfo* law = find_law(a.law);
  if (!law) throw std::invalid_argument("unknown law '" + a.law + "' (known: " + law_names() + ")");
  SampleSpec spec = default_spec(parse_scenario(a.scenario));
  for (const std::string& s : a.sets) apply_setting(spec, s);
  Backend backend = Backend::serial;
  std::string why;
  if (a.backend == "auto") {
    backend = cuda_usable(&why) ? Backend::cuda : Backend::omp;
  } else if (a.backend == "cuda") {
    if (!cuda_usable(&why)) throw std::invalid_argument("backend 'cuda' is not usable: " + why);
    backend = Backend::cuda;
  } else if (a.backend == "omp") {
    backend = Backend::omp;
  } else if (a.backend != "serial") {
    throw std::invalid_argument("unknown backend '" + a.backend + "' for reduce (known: auto, cuda, omp, serial)");
  }
  if (a.precision != "double" && a.precision != "float")
    throw std::invalid_argument("precision must be 'double' or 'float', got '" + a.precision + "'");
  if (a.integrator != "rk4" && a.integrator != "euler")
    throw std::invalid_argument("integrator must be 'rk4' or 'euler', got '" + a.integrator + "'");
  if (a.steps < 1) throw std::invalid_argument("--steps must be >= 1");
  if (a.n < 1) throw std::invalid_argument("--n must be >= 1");
  if (a.first + a.n < a.first) throw std::invalid_argument("--first + --n overflows the 64-bit index range");
  SummaryRanges probe;
  for (const std::string& r : a.ranges) apply_range(probe, r);  // usage errors before any work
  if (table == stdout && a.out == "-") table = stderr;          // keep stdout parseable
  if (table == stdout && a.cases_out == "-") table = stderr;
  if (a.precision == "float") return run<float>(a, *law, backend, spec, a.quiet ? nullptr : table, a.quiet ? nullptr : log);
  return run<double>(a, *law, backend, spec, a.quiet ? nullptr : table, a.quiet ? nullptr : log);
}

}  // namespace impact::host
