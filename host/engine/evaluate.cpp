#include "engine/evaluate.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <string_view>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include "engine/columns.hpp"
#include "engine/table.hpp"
#include "impact/derived.hpp"
#include "io/machine.hpp"
#include "io/pipeline.hpp"

namespace impact::engine {

template <class T>
void summarise_rows(TableStats& s, const InputColumns<T>& cols, const OutputColumns<T>& res, std::size_t m) {
  for (std::size_t i = 0; i < m; ++i) {
    const Status st = res.status_of(i);
    ++s.rows;
    ++s.status_count[static_cast<int>(st)];
    if (st != Status::ok) continue;
    T v[kNumInputs];
    for (int k = 0; k < kNumInputs; ++k) v[k] = cols.col[k][i];
    double x[kNumQuantities];
    summary_quantities(from_columns(v), res.row(i), x);
    s.Pn.add(x[kPn]);
    s.Pt.add(x[kPt]);
    s.vfn.add(x[kVfn]);
    if (std::isfinite(x[kEnergyRatio])) s.dE_rel.add(x[kEnergyRatio]);
    ++s.modes[modes_string(res.modes[i])];
  }
}

template void summarise_rows<double>(TableStats&, const InputColumns<double>&, const OutputColumns<double>&, std::size_t);
template void summarise_rows<float>(TableStats&, const InputColumns<float>&, const OutputColumns<float>&, std::size_t);

namespace {

using Clock = std::chrono::steady_clock;

// One chunk in the pipeline: its records as read, their parsed columns, the law's results and the
// rows' text. Every buffer is kept from one chunk to the next, grown to the largest chunk the
// slot has held (take_in).
template <class T>
struct EvalSlot {
  std::string text;             // the records, one after another
  std::vector<std::size_t> at;  // record i is text[at[i], at[i + 1])
  std::vector<long> line;       // record i's line number in the file
  InputColumns<T> cols;
  OutputColumns<T> res;
  std::size_t m = 0;
  std::vector<std::string> blocks;  // the rows' text in blocks of kFormatBlock rows
  ChunkTimes times;
  std::string_view record(std::size_t i) const { return std::string_view(text).substr(at[i], at[i + 1] - at[i]); }
};

// Rows per task of the parallel formatting: a few hundred kB of text each.
constexpr std::size_t kFormatBlock = 4096;

// f(i) for i in [0, n) over the OpenMP threads. Of the exceptions thrown, the one of the lowest i
// is rethrown (the one a plain loop would meet); once one is thrown, larger i are skipped.
template <class F>
void parallel_rows(std::size_t n, F&& f) {
  const long count = static_cast<long>(n);
  std::atomic<long> first_bad{count};
  std::exception_ptr error;
#pragma omp parallel for schedule(static)
  for (long i = 0; i < count; ++i) {
    if (i > first_bad.load(std::memory_order_relaxed)) continue;
    try {
      f(static_cast<std::size_t>(i));
    } catch (...) {
#pragma omp critical(impact_parallel_rows_error)
      if (i < first_bad.load(std::memory_order_relaxed)) {
        first_bad.store(i, std::memory_order_relaxed);
        error = std::current_exception();
      }
    }
  }
  if (error) std::rethrow_exception(error);
}

// Input stage: up to `chunk` records read (one thread), then split and parsed (OpenMP threads);
// false when the input had no record left. A reader error (a NUL byte, an overlong line, a read
// error) on a later line than a bad cell of the records before it is thrown after them: the first
// error in the file is the one reported, as a loop reading and parsing a row at a time reports it.
template <class T>
bool take_in(EvalSlot<T>& s, io::CsvReader& reader, const InputLayout& lay, std::size_t chunk, Clock::time_point t0) {
  ChunkTimes& t = s.times;
  t = ChunkTimes{};
  t.stage[stage_read].begin = io::seconds_since(t0);
  s.text.clear();
  s.at.clear();
  s.line.clear();
  std::exception_ptr read_error;
  try {
    while (s.line.size() < chunk && reader.next_record()) {
      s.at.push_back(s.text.size());
      s.text += reader.raw();
      s.line.push_back(reader.line_no());
    }
  } catch (const io::InputError&) { read_error = std::current_exception(); }
  s.at.push_back(s.text.size());
  s.m = t.rows = s.line.size();
  if (s.cols.size() < s.m) {  // a slot grows to the largest chunk it has held, not to --chunk up front
    s.cols.resize(s.m);
    s.res.resize(s.m);
  }
  t.stage[stage_read].end = t.stage[stage_parse].begin = io::seconds_since(t0);
  const std::string& path = reader.path();
  parallel_rows(s.m, [&](std::size_t i) {
    thread_local std::vector<io::CsvField> fields;
    thread_local std::string unquoted;
    const std::string_view rec = s.record(i);
    io::split_csv_line(rec, path, s.line[i], unquoted, fields);
    parse_row(fields, rec, path, s.line[i], lay, s.cols, i);
  });
  if (read_error) std::rethrow_exception(read_error);
  t.stage[stage_parse].end = io::seconds_since(t0);
  return s.m > 0;
}

// Output stage: the rows' text (OpenMP threads, by blocks), written in order, then the summary
// (one thread, row order: the same sums for every chunk size).
template <class T>
void give_out(EvalSlot<T>& s, io::OutFile& out, const LawInfo& law, TableStats& stats, Clock::time_point t0) {
  ChunkTimes& t = s.times;
  t.stage[stage_format].begin = io::seconds_since(t0);
  s.blocks.resize((s.m + kFormatBlock - 1) / kFormatBlock);
  parallel_rows(s.blocks.size(), [&](std::size_t b) {
    std::string& buf = s.blocks[b];
    buf.clear();
    const std::size_t end = std::min(s.m, (b + 1) * kFormatBlock);
    for (std::size_t i = b * kFormatBlock; i < end; ++i) {
      buf += s.record(i);
      append_results(buf, law, s.res, i);
      buf += '\n';
    }
  });
  t.stage[stage_format].end = t.stage[stage_write].begin = io::seconds_since(t0);
  for (const std::string& b : s.blocks) out.put(b);
  summarise_rows(stats, s.cols, s.res, s.m);
  t.stage[stage_write].end = io::seconds_since(t0);
}

}  // namespace

template <class T>
TableStats evaluate_rows(io::CsvReader& reader, io::OutFile& out, const InputLayout& lay, const LawInfo& law,
                         const BatchCall<T>& fn, const LawOptions& opt, const EvalPipeline& how, EvalTimeline* timeline) {
  if (how.chunk < 1) throw std::invalid_argument("eval pipeline: a chunk must hold at least one row");
  const int depth = pipeline_depth(how);
  std::vector<EvalSlot<T>> slots(static_cast<std::size_t>(depth));
  TableStats stats;
  EvalTimeline tl;
  tl.depth = depth;
  tl.host_threads = omp_get_max_threads();
  const Clock::time_point t0 = Clock::now();
  io::run_pipeline(
      depth, [&](int q, std::size_t) { return take_in(slots[q], reader, lay, how.chunk, t0); },
      [&](int q, std::size_t) {
        EvalSlot<T>& s = slots[q];
        s.times.stage[stage_law].begin = io::seconds_since(t0);
        fn(s.cols.view(lay.needed, 0, s.m), s.res.view(), opt);
        s.times.stage[stage_law].end = io::seconds_since(t0);
        stats.law_seconds += s.times.stage[stage_law].seconds();
      },
      [&](int q, std::size_t) {
        give_out(slots[q], out, law, stats, t0);
        tl.chunks.push_back(slots[q].times);
      });
  tl.wall = io::seconds_since(t0);
  if (timeline) *timeline = std::move(tl);
  return stats;
}

int pipeline_depth(const EvalPipeline& how) {
  const std::size_t most = std::max<std::size_t>(1, std::max(how.chunk, kMostRowsInFlight) / std::max<std::size_t>(how.chunk, 1));
  return static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(std::max(how.depth, 1)), most));
}

const char* eval_stage_name(int stage) {
  static const char* const names[kNumEvalStages] = {"read", "parse", "law", "format", "write"};
  return stage >= 0 && stage < kNumEvalStages ? names[stage] : "?";
}

double EvalTimeline::busy(int stage) const {
  double b = 0;
  for (const ChunkTimes& c : chunks) b += c.stage[stage].seconds();
  return b;
}

double EvalTimeline::idle_input() const { return wall > 0 ? 1 - (busy(stage_read) + busy(stage_parse)) / wall : 0; }
double EvalTimeline::idle_law() const { return wall > 0 ? 1 - busy(stage_law) / wall : 0; }
double EvalTimeline::idle_output() const { return wall > 0 ? 1 - (busy(stage_format) + busy(stage_write)) / wall : 0; }

std::string timeline_table(const EvalTimeline& t, const std::string& indent) {
  std::string s;
  char buf[160];
  std::size_t rows = 0;
  for (const ChunkTimes& c : t.chunks) rows += c.rows;
  std::snprintf(buf, sizeof buf, "%spipeline: %zu chunk%s (%zu rows), %d in flight, %d host threads, wall %.3g s\n",
                indent.c_str(), t.chunks.size(), t.chunks.size() == 1 ? "" : "s", rows, t.depth, t.host_threads, t.wall);
  s += buf;
  std::snprintf(buf, sizeof buf, "%s  %-8s %-7s %10s %9s\n", indent.c_str(), "thread", "stage", "busy s", "of wall");
  s += buf;
  const char* thread_of[kNumEvalStages] = {"input", "", "law", "output", ""};
  for (int k = 0; k < kNumEvalStages; ++k) {
    const double b = t.busy(k);
    std::snprintf(buf, sizeof buf, "%s  %-8s %-7s %10.3f %8.1f%%\n", indent.c_str(), thread_of[k], eval_stage_name(k), b,
                  t.wall > 0 ? 100 * b / t.wall : 0.0);
    s += buf;
  }
  std::snprintf(buf, sizeof buf, "%s  idle: input %.1f%%, law %.1f%%, output %.1f%%\n", indent.c_str(), 100 * t.idle_input(),
                100 * t.idle_law(), 100 * t.idle_output());
  return s + buf;
}

std::string timeline_csv(const EvalTimeline& t) {
  std::string s = "chunk,rows,stage,begin_s,end_s\n";
  char buf[128];
  for (std::size_t k = 0; k < t.chunks.size(); ++k)
    for (int g = 0; g < kNumEvalStages; ++g) {
      const StageSpan& sp = t.chunks[k].stage[g];
      std::snprintf(buf, sizeof buf, "%zu,%zu,%s,%.9f,%.9f\n", k, t.chunks[k].rows, eval_stage_name(g), sp.begin, sp.end);
      s += buf;
    }
  return s;
}

std::string table_header(const InputLayout& lay) {
  std::string h = lay.header;
  for (const std::string& o : lay.out_names) h += "," + o;
  return h + '\n';
}

template <class T>
TableStats evaluate_table(io::CsvReader& reader, io::OutFile& out, const LawInfo& law, const BatchCall<T>& fn,
                          const LawOptions& opt, const EvalPipeline& how, EvalTimeline* timeline) {
  const InputLayout lay = read_header(reader, law);
  out.put(table_header(lay));  // a header-only table too
  return evaluate_rows<T>(reader, out, lay, law, fn, opt, how, timeline);
}

void merge_into(TableStats& into, const TableStats& s) {
  into.rows += s.rows;
  for (int k = 0; k < static_cast<int>(Status::count_); ++k) into.status_count[k] += s.status_count[k];
  for (const auto& [seq, n] : s.modes) into.modes[seq] += n;
  RangeStat* a[] = {&into.Pn, &into.Pt, &into.vfn, &into.dE_rel};
  const RangeStat* b[] = {&s.Pn, &s.Pt, &s.vfn, &s.dE_rel};
  for (int k = 0; k < 4; ++k) {
    a[k]->min = std::min(a[k]->min, b[k]->min);
    a[k]->max = std::max(a[k]->max, b[k]->max);
    a[k]->sum += b[k]->sum;
    a[k]->n += b[k]->n;
  }
  into.law_seconds = std::max(into.law_seconds, s.law_seconds);
}

std::string to_text(const TableStats& s) {
  std::string t = std::to_string(s.rows);
  char buf[128];
  for (std::size_t c : s.status_count) t += " " + std::to_string(c);
  for (const RangeStat* r : {&s.Pn, &s.Pt, &s.vfn, &s.dE_rel}) {
    std::snprintf(buf, sizeof buf, " %a %a %a %zu", r->min, r->max, r->sum, r->n);
    t += buf;
  }
  std::snprintf(buf, sizeof buf, " %a %zu", s.law_seconds, s.modes.size());
  t += buf;
  for (const auto& [seq, n] : s.modes) t += " " + seq + " " + std::to_string(n);
  return t;
}

TableStats table_stats_from_text(const std::string& text) {
  std::istringstream in(text);
  TableStats s;
  auto real = [&]() {
    std::string w;
    in >> w;
    return std::strtod(w.c_str(), nullptr);  // %a round-trips
  };
  in >> s.rows;
  for (std::size_t& c : s.status_count) in >> c;
  for (RangeStat* r : {&s.Pn, &s.Pt, &s.vfn, &s.dE_rel}) {
    r->min = real();
    r->max = real();
    r->sum = real();
    in >> r->n;
  }
  s.law_seconds = real();
  std::size_t k = 0;
  in >> k;
  for (std::size_t i = 0; i < k; ++i) {
    std::string seq;
    std::size_t n = 0;
    in >> seq >> n;
    s.modes[seq] = n;
  }
  if (!in) throw std::runtime_error("table summary: malformed text");
  return s;
}

template TableStats evaluate_rows<double>(io::CsvReader&, io::OutFile&, const InputLayout&, const LawInfo&,
                                          const BatchCall<double>&, const LawOptions&, const EvalPipeline&, EvalTimeline*);
template TableStats evaluate_rows<float>(io::CsvReader&, io::OutFile&, const InputLayout&, const LawInfo&,
                                         const BatchCall<float>&, const LawOptions&, const EvalPipeline&, EvalTimeline*);
template TableStats evaluate_table<double>(io::CsvReader&, io::OutFile&, const LawInfo&, const BatchCall<double>&,
                                           const LawOptions&, const EvalPipeline&, EvalTimeline*);
template TableStats evaluate_table<float>(io::CsvReader&, io::OutFile&, const LawInfo&, const BatchCall<float>&,
                                          const LawOptions&, const EvalPipeline&, EvalTimeline*);

}  // namespace impact::engine
