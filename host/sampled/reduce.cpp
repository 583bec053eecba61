#include "sampled/reduce.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "engine/backend_pick.hpp"
#include "resume/checkpoint.hpp"
#include "engine/columns.hpp"
#include "io/csv.hpp"
#include "io/machine.hpp"
#include "io/number.hpp"
#include "io/out_file.hpp"
#include "systems/sample_spec.hpp"
#include "kernels/sampled.hpp"

namespace impact::sampled {

using engine::Backend;

namespace {

// JSON number: shortest round-trip form; non-finite -> null.
std::string jnum(double v) {
  if (!std::isfinite(v)) return "null";
  std::string s;
  io::append_number(s, v);
  return s;
}

// JSON string, escaped by nlohmann/json.
std::string jstr(const std::string& s) { return nlohmann::json(s).dump(); }

using Clock = std::chrono::steady_clock;

const char* const kQuantityKeys[kNumQuantities] = {"Pn", "Pt", "vfn", "dE_K0"};
const char* const kQuantityNames[kNumQuantities] = {"normal impulse P.n", "tangential |P_t|", "separation vf.n",
                                                    "energy ratio dE/K0"};

// Instances of the pilot run that sets the default histogram ranges: always [0, kPilot) of the
// seed, whatever --first and --n, so every shard of a study gets the same ranges.
constexpr std::size_t kPilot = 4096;

// 10^floor(log10(w)) for w > 0, from correctly rounded decimal literals (std::pow and std::log10
// would tie the bits to the CPU's libm code path); outside 1e-30..1e30 by exact-order steps of 10.
double decade_of(double w) {
  static const double kPow10[] = {1e-30, 1e-29, 1e-28, 1e-27, 1e-26, 1e-25, 1e-24, 1e-23, 1e-22, 1e-21, 1e-20, 1e-19, 1e-18,
                                  1e-17, 1e-16, 1e-15, 1e-14, 1e-13, 1e-12, 1e-11, 1e-10, 1e-9,  1e-8,  1e-7,  1e-6,  1e-5,
                                  1e-4,  1e-3,  1e-2,  1e-1,  1e0,   1e1,   1e2,   1e3,   1e4,   1e5,   1e6,   1e7,   1e8,
                                  1e9,   1e10,  1e11,  1e12,  1e13,  1e14,  1e15,  1e16,  1e17,  1e18,  1e19,  1e20,  1e21,
                                  1e22,  1e23,  1e24,  1e25,  1e26,  1e27,  1e28,  1e29,  1e30};
  constexpr int kN = static_cast<int>(sizeof kPow10 / sizeof kPow10[0]);
  if (!(w > 0) || !std::isfinite(w)) return w;
  double p = 1.0, scale = 1.0;
  while (w >= 1e30 * 10.0) {  // beyond the table: w / 10^k, k a multiple of 10 (w stays finite)
    w /= 1e10;
    scale *= 1e10;
  }
  while (w < 1e-30) {
    w *= 1e10;
    scale /= 1e10;
  }
  for (int k = kN - 1; k >= 0; --k)
    if (kPow10[k] <= w) {
      p = kPow10[k];
      break;
    }
  return p * scale;
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
  const double step = decade_of(hi - lo) / 10.0;
  out_lo = std::floor(lo / step) * step;
  out_hi = std::ceil(hi / step) * step;
  if (nonneg && out_lo < 0.2 * out_hi) out_lo = 0;
  if (nonpos && out_hi > 0.2 * out_lo) out_hi = 0;
  out_lo += 0.0;  // no -0
  out_hi += 0.0;
}

// The summary's ranges: each histogram's the one given (--range) or by default the pilot's, the 0.5%
// and 99.5% quantiles of the quantity over its ok rows, evaluated on the study's backend in
// precision T. The exact sums' grid is always the data's, the scale of the pilot's range (a range
// given only for the histogram does not move it); with no finite value in the pilot, the range's.
template <class T>
SummaryRanges summary_ranges(const ReduceSpec& rs) {
  const std::size_t m = kPilot;
  engine::InputColumns<T> in;
  engine::OutputColumns<T> out;
  in.resize(m);
  out.resize(m);
  T* cols[kNumInputs];
  for (int k = 0; k < kNumInputs; ++k) cols[k] = in.col[k].data();
  materialize<T>(rs.spec, rs.seed, 0, m, cols);
  engine::batch_fn<T>(*rs.law, rs.backend)(in.view(nullptr, 0, m), out.view(), rs.opt);
  std::vector<double> x[kNumQuantities];
  for (std::size_t i = 0; i < m; ++i) {
    if (out.status_of(i) != Status::ok) continue;
    T v[kNumInputs];
    for (int k = 0; k < kNumInputs; ++k) v[k] = in.col[k][i];
    double q[kNumQuantities];
    summary_quantities(from_columns(v), out.row(i), q);
    for (int k = 0; k < kNumQuantities; ++k)
      if (std::isfinite(q[k])) x[k].push_back(q[k]);
  }
  SummaryRanges rg;
  for (int k = 0; k < kNumQuantities; ++k) {
    std::vector<double>& v = x[k];
    if (v.empty()) {
      rg.lo[k] = k == kEnergyRatio ? -1.0 : 0.0;
      rg.hi[k] = k == kEnergyRatio ? 0.0 : 1.0;
    } else {
      std::sort(v.begin(), v.end());
      const double lo = v[static_cast<std::size_t>(0.005 * (v.size() - 1))];
      const double hi = v[static_cast<std::size_t>(0.995 * (v.size() - 1))];
      nice_range(lo, hi, rg.lo[k], rg.hi[k]);
    }
    rg.grid[k] = exact::range_exponent(rg.lo[k], rg.hi[k]);
  }
  for (const RangeOverride& r : rs.ranges) {
    rg.lo[r.quantity] = r.lo, rg.hi[r.quantity] = r.hi;
    if (x[r.quantity].empty()) rg.grid[r.quantity] = exact::range_exponent(r.lo, r.hi);
  }
  return rg;
}

// Everything that decides a chunk's bits, as one line (the checkpoint's key).
std::string run_key(const ReduceSpec& rs, const SummaryRanges& rg, std::uint64_t chunk) {
  std::string k = rs.law->name + " " + rs.scenario;
  for (const auto& [name, v] : systems::describe(rs.spec)) k += " " + name + "=" + v;
  char buf[64];
  for (int q = 0; q < kNumQuantities; ++q) {
    std::snprintf(buf, sizeof buf, " %a:%a/%d", rg.lo[q], rg.hi[q], static_cast<int>(rg.grid[q]));
    k += buf;
  }
  return k + " sums=exact-60-24-48" + " seed=" + std::to_string(rs.seed) + " first=" + std::to_string(rs.first) +
         " n=" + std::to_string(rs.n) + " chunk=" + std::to_string(chunk) + " " + engine::precision_name(rs.precision) +
         " steps=" + std::to_string(rs.opt.steps) + " " + engine::integrator_name(rs.opt.integrator) + " " +
         engine::backend_name(rs.backend);
}

// Chunk k ([b, e)): from the checkpoint when it holds it (with --resume), else computed (and saved).
template <class T>
BatchSummary chunk_summary(const ReduceSpec& rs, engine::SampledFn<T> fn, const SummaryRanges& rg, resume::Checkpoint* ck,
                           std::uint64_t k, std::uint64_t b, std::uint64_t e) {
  BatchSummary s;
  if (ck && rs.resume && ck->load(k, s)) return s;
  s = fn(rs.spec, rs.seed, b, e, rs.opt, rg);
  if (ck) ck->save(k, s);
  return s;
}

// total + chunk k's summary; a summary on another grid or with other histogram ranges (from a
// foreign checkpoint file, or a process that chose other ranges) is an error, never a sum of
// unlike integers.
BatchSummary merge_chunk(const BatchSummary& total, const BatchSummary& chunk, std::uint64_t k) {
  if (!same_grid(total, chunk))
    throw std::runtime_error("reduce: the summary of chunk " + std::to_string(k) +
                             " has another grid or other histogram ranges than the run's: not merged");
  return merge(total, chunk);
}

// Collective, once every process has taken its chunks: `chunks` (this process's) becomes every
// chunk's on rank 0 and empty elsewhere; `loads` gets every process's load there (rank order). Each
// process's load and chunk summaries travel as bytes.
void gather_chunks(resume::ProcessGroup& group, std::vector<ChunkSummary>& chunks, const ProcessLoad& mine,
                   std::vector<ProcessLoad>& loads) {
  static_assert(std::is_trivially_copyable_v<ChunkSummary>, "chunk summaries travel as bytes");
  static_assert(std::is_trivially_copyable_v<ProcessLoad>, "loads travel as bytes");
  std::string b(reinterpret_cast<const char*>(&mine), sizeof mine);
  b.append(reinterpret_cast<const char*>(chunks.data()), chunks.size() * sizeof(ChunkSummary));
  const std::vector<std::string> all = group.gather(b, "too many chunk summaries: use a larger --chunk");
  chunks.clear();
  loads.clear();
  for (const std::string& r : all) {
    ProcessLoad load;
    std::memcpy(&load, r.data(), sizeof load);
    loads.push_back(load);
    const std::size_t n = (r.size() - sizeof load) / sizeof(ChunkSummary);
    const std::size_t at = chunks.size();
    chunks.resize(at + n);
    std::memcpy(static_cast<void*>(chunks.data() + at), r.data() + sizeof load, n * sizeof(ChunkSummary));
  }
}

// The chunks the group hands this process, gathered and merged in chunk order on rank 0.
template <class T>
void run_planned(const ReduceSpec& rs, engine::SampledFn<T> fn, const SummaryRanges& rg, resume::ProcessGroup& plan,
                 resume::Checkpoint* ck, ReduceResult& res) {
  const std::uint64_t end = rs.first + rs.n, count = (rs.n + res.chunk - 1) / res.chunk;
  std::vector<ChunkSummary> chunks;
  ProcessLoad mine;
  for (std::uint64_t k; plan.next(count, k);) {
    const std::uint64_t b = rs.first + k * res.chunk, e = end - b < res.chunk ? end : b + res.chunk;
    const auto t0 = Clock::now();
    chunks.push_back(ChunkSummary{k, chunk_summary<T>(rs, fn, rg, ck, k, b, e)});
    mine.busy_seconds += std::chrono::duration<double>(Clock::now() - t0).count();
    ++mine.chunks;
    mine.instances += e - b;
  }
  if (ck) mine.loaded = ck->loaded(), mine.corrupt = ck->corrupt();
  gather_chunks(plan, chunks, mine, res.loads);
  for (const ProcessLoad& l : res.loads) res.chunks_loaded += l.loaded, res.chunks_corrupt += l.corrupt;
  if (plan.rank() != 0) return;
  std::sort(chunks.begin(), chunks.end(), [](const ChunkSummary& a, const ChunkSummary& b) { return a.index < b.index; });
  for (std::uint64_t k = 0; k < count; ++k)
    if (k >= chunks.size() || chunks[k].index != k)
      throw std::runtime_error("reduce: chunk " + std::to_string(k) + " of " + std::to_string(count) +
                               " is missing from the gathered summaries");
  if (chunks.size() != count) throw std::runtime_error("reduce: more chunk summaries than chunks");
  for (const ChunkSummary& c : chunks) res.summary = merge_chunk(res.summary, c.summary, c.index);
}

template <class T>
ReduceResult run(const ReduceSpec& rs, std::FILE* log, resume::ProcessGroup* plan) {
  const auto t0 = Clock::now();
  const double cpu0 = io::cpu_seconds();
  const SummaryRanges rg = summary_ranges<T>(rs);
  const engine::SampledFn<T> fn = engine::sampled_fn<T>(*rs.law, rs.backend);
  if (!fn)
    throw std::invalid_argument(std::string("backend '") + engine::backend_name(rs.backend) + "' has no sampled reduction");
  ReduceResult res;
  res.chunk = rs.chunk ? rs.chunk : (rs.backend == Backend::cuda ? (1ull << 24) : (1ull << 16));
  if (!rs.cases_out.empty() && (!plan || plan->rank() == 0)) write_cases(rs.cases_out, rs.spec, rs.seed, rs.first, rs.n);

  res.ranges = rg;
  res.summary = summary_identity(rg);
  std::unique_ptr<resume::Checkpoint> ck;
  if (!rs.checkpoint.empty()) {
    ck = std::make_unique<resume::Checkpoint>(rs.checkpoint, run_key(rs, rg, res.chunk));
    const bool earlier = ck->has_chunks();
    if (plan) plan->sync();  // every process has looked before any writes a chunk
    if (earlier && !rs.resume)
      throw std::invalid_argument("--checkpoint " + rs.checkpoint +
                                  " holds chunks of an earlier run: add --resume to continue it, or give an empty folder");
  }
  auto last = Clock::now();
  const auto t_study = last;  // the rate excludes the pilot and the optional CSV
  const std::uint64_t end = rs.first + rs.n;
  if (plan) run_planned<T>(rs, fn, rg, *plan, ck.get(), res);
  for (std::uint64_t b = plan ? end : rs.first; b < end;) {
    const std::uint64_t e = end - b < res.chunk ? end : b + res.chunk;
    const std::uint64_t k = (b - rs.first) / res.chunk;
    res.summary = merge_chunk(res.summary, chunk_summary<T>(rs, fn, rg, ck.get(), k, b, e), k);
    b = e;
    const auto now = Clock::now();
    const double el = std::chrono::duration<double>(now - t0).count();
    if (log && b < end && el > 1.0 && std::chrono::duration<double>(now - last).count() >= 1.0) {
      const double done = double(b - rs.first), rate = done / el;
      std::fprintf(log, "impact reduce: %5.1f%% (%llu / %llu instances), %.1f s, %.3g instances/s, ~%.0f s left\n",
                   100.0 * done / double(rs.n), static_cast<unsigned long long>(b - rs.first),
                   static_cast<unsigned long long>(rs.n), el, rate, (double(rs.n) - done) / rate);
      std::fflush(log);
      last = now;
    }
  }
  if (ck && !plan) res.chunks_loaded = ck->loaded(), res.chunks_corrupt = ck->corrupt();
  res.wall_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  res.study_seconds = std::chrono::duration<double>(Clock::now() - t_study).count();
  res.peak_rss_kb = io::peak_rss_kb();
  res.cpu_seconds = io::cpu_seconds() - cpu0;
  return res;
}

}  // namespace

const char* quantity_key(int k) { return k >= 0 && k < kNumQuantities ? kQuantityKeys[k] : "?"; }
const char* quantity_name(int k) { return k >= 0 && k < kNumQuantities ? kQuantityNames[k] : "?"; }

RangeOverride parse_range(const std::string& setting) {
  const std::size_t eq = setting.find('=');
  const std::string key = eq == std::string::npos ? setting : setting.substr(0, eq);
  int q = -1;
  for (int k = 0; k < kNumQuantities; ++k)
    if (key == kQuantityKeys[k]) q = k;
  if (q < 0 || eq == std::string::npos)
    throw std::invalid_argument("--range " + setting + ": expected QUANTITY=LO:HI with QUANTITY one of Pn, Pt, vfn, dE_K0");
  const std::string v = setting.substr(eq + 1);
  const std::size_t c = v.find(':');
  const std::string a = c == std::string::npos ? v : v.substr(0, c);
  const std::string b = c == std::string::npos ? "" : v.substr(c + 1);
  double lo = 0, hi = 0;  // the one number grammar (io/number.hpp)
  if (c == std::string::npos || !io::parse_number_text(a, lo) || !io::parse_number_text(b, hi) || !std::isfinite(lo) ||
      !std::isfinite(hi) || !(lo < hi))
    throw std::invalid_argument("--range " + setting + ": expected " + key + "=LO:HI with finite LO < HI");
  if (!std::isfinite(hi - lo))  // the bins divide by the width
    throw std::invalid_argument("--range " + setting + ": the width HI - LO overflows a double (at most 1.8e308)");
  return RangeOverride{q, lo, hi};
}

ReduceResult reduce(const ReduceSpec& rs, std::FILE* log, resume::ProcessGroup* plan) {
  if (rs.precision == engine::Precision::f32) return run<float>(rs, log, plan);
  return run<double>(rs, log, plan);
}

void write_cases(const std::string& path, const SampleSpec& spec, std::uint64_t seed, std::uint64_t first, std::uint64_t n) {
  io::OutFile f(path, io::Links::follow);  // --cases-out: a file the user names
  std::string buf = "index";
  for (const char* c : kInputNames) buf += std::string(",") + c;
  buf += '\n';
  const std::size_t block = 1 << 14;
  std::vector<double> col[kNumInputs];
  double* cols[kNumInputs];
  for (int k = 0; k < kNumInputs; ++k) col[k].resize(block), cols[k] = col[k].data();
  for (std::uint64_t b = 0; b < n; b += block) {
    const std::size_t m = static_cast<std::size_t>(std::min<std::uint64_t>(block, n - b));
    materialize<double>(spec, seed, first + b, m, cols);
    for (std::size_t i = 0; i < m; ++i) {
      buf += std::to_string(first + b + i);
      for (const std::vector<double>& c : col) {
        buf += ',';
        io::append_number(buf, c[i]);
      }
      buf += '\n';
    }
    f.put(buf);
    buf.clear();
  }
  f.commit();
}

ReduceSpec reduce_spec(const ReduceRequest& a, std::string* why) {
  ReduceSpec rs;
  rs.law = &engine::law_named(a.law);
  rs.scenario = a.scenario;
  rs.spec = systems::default_spec(systems::parse_scenario(a.scenario));
  systems::apply_settings(rs.spec, a.sets);
  if (a.backend != "auto" && a.backend != "cuda" && a.backend != "omp" && a.backend != "serial")
    throw std::invalid_argument("unknown backend '" + a.backend + "' for reduce (known: auto, cuda, omp, serial)");
  rs.precision = engine::parse_precision(a.precision);
  rs.opt = engine::law_options(a.steps, engine::parse_integrator(a.integrator));
  if (a.n < 1) throw std::invalid_argument("--n must be >= 1");
  engine::Workload w;
  w.laws = {rs.law};
  w.precision = rs.precision;
  w.steps = a.steps;
  w.rows = double(a.n);
  w.host_resident = false;  // sampled and reduced where the law runs
  const engine::BackendPick pick = engine::pick_backend(a.backend, w, false);
  rs.backend = pick.backend;
  if (rs.backend == Backend::cuda) engine::check_cuda_environment();  // IMPACT_CUDA_LANES, before any work
  if (why) *why = pick.why;
  if (a.first + a.n < a.first) throw std::invalid_argument("--first + --n overflows the 64-bit index range");
  for (const std::string& r : a.ranges) rs.ranges.push_back(parse_range(r));  // usage errors before any work
  rs.n = a.n;
  rs.first = a.first;
  rs.seed = a.seed;
  rs.chunk = a.chunk;
  rs.cases_out = a.cases_out;
  rs.checkpoint = a.checkpoint;
  rs.resume = a.resume;
  if (a.resume && a.checkpoint.empty()) throw std::invalid_argument("--resume needs --checkpoint DIR (where the chunks are)");
  return rs;
}

std::string reduce_json(const ReduceSpec& a, const ReduceResult& r) {
  const BatchSummary& s = r.summary;
  std::uint64_t total = 0;
  for (std::uint64_t c : s.status) total += c;
  std::string j = "{\n";
  j += "  \"law\": " + jstr(a.law->name) + ",\n";
  j += "  \"scenario\": " + jstr(a.scenario) + ",\n";
  j += "  \"backend\": " + jstr(engine::backend_name(a.backend)) + ",\n";
  j += "  \"precision\": " + jstr(engine::precision_name(a.precision)) + ",\n";
  j += "  \"steps\": " + std::to_string(a.opt.steps) + ",\n";
  j += "  \"integrator\": " + jstr(engine::integrator_name(a.opt.integrator)) + ",\n";
  j += "  \"seed\": " + std::to_string(a.seed) + ",\n";
  j += "  \"first\": " + std::to_string(a.first) + ",\n";
  j += "  \"n\": " + std::to_string(a.n) + ",\n";
  j += "  \"chunk\": " + std::to_string(r.chunk) + ",\n";
  if (!a.checkpoint.empty())
    j += R"(  "checkpoint": {"dir": )" + jstr(a.checkpoint) + ", \"chunks_loaded\": " + std::to_string(r.chunks_loaded) +
         ", \"chunks_corrupt\": " + std::to_string(r.chunks_corrupt) + "},\n";
  if (!r.loads.empty()) {  // a run over several processes: each one's share (docs/distributed.md)
    double mx = 0, sum = 0;
    j += "  \"processes\": [";
    for (std::size_t p = 0; p < r.loads.size(); ++p) {
      const ProcessLoad& l = r.loads[p];
      mx = std::max(mx, l.busy_seconds);
      sum += l.busy_seconds;
      j += std::string(p ? ", " : "") + "{\"chunks\": " + std::to_string(l.chunks) +
           ", \"instances\": " + std::to_string(l.instances) + ", \"busy_seconds\": " + jnum(l.busy_seconds) + "}";
    }
    j += "],\n  \"busy_max_over_mean\": " + jnum(sum > 0 ? mx / (sum / double(r.loads.size())) : 1.0) + ",\n";
  }
  j += "  \"study\": {";
  bool first = true;
  for (const auto& [k, v] : systems::describe(a.spec)) {
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
    const SumMoments& m = s.q[k];
    const Histogram& h = s.h[k];
    const bool any = m.min <= m.max;  // a finite value was seen
    j += "    " + jstr(quantity_key(k)) + ": {\"description\": " + jstr(quantity_name(k));
    j += ", \"count\": " + std::to_string(m.count()) + ", \"mean\": " + jnum(m.mean()) + ", \"sd\": " + jnum(m.sd()) +
         ", \"min\": " + jnum(any ? m.min : NAN) + ", \"max\": " + jnum(any ? m.max : NAN) +
         ", \"not_summed\": " + std::to_string(m.far) + ",\n";
    j += R"(      "histogram": {"lo": )" + jnum(h.lo) + ", \"hi\": " + jnum(h.hi) +
         ", \"bins\": " + std::to_string(Histogram::kBins) + ", \"below\": " + std::to_string(h.count[0]) +
         ", \"above\": " + std::to_string(h.count[Histogram::kBins + 1]) + ", \"counts\": [";
    for (int i = 1; i <= Histogram::kBins; ++i) j += (i > 1 ? ", " : "") + std::to_string(h.count[i]);
    j += "]}}";
    j += k + 1 < kNumQuantities ? ",\n" : "\n";
  }
  j += "  }\n}\n";
  return j;
}

}  // namespace impact::sampled
