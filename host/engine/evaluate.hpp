// Evaluation of a contact-space CSV table (`impact eval`): rows read in chunks, evaluated by a
// batch entry point (any backend, the CPU reference included), written back with the result
// columns appended, and summarised on the way.
#pragma once
#include <cmath>
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "engine/columns.hpp"
#include "engine/registry.hpp"
#include "engine/table.hpp"
#include "io/csv.hpp"
#include "io/out_file.hpp"

namespace impact::engine {

struct RangeStat {
  // NOLINTNEXTLINE(bugprone-narrowing-conversions): clang-tidy 14 takes an infinite constant for a narrowing
  double min = INFINITY, max = -INFINITY, sum = 0;
  std::size_t n = 0;
  void add(double v) {
    min = v < min ? v : min;
    max = v > max ? v : max;
    sum += v;
    ++n;
  }
};

struct TableStats {
  std::size_t rows = 0;
  std::size_t status_count[static_cast<int>(Status::count_)] = {};
  std::map<std::string, std::size_t> modes;  // mode sequence -> ok rows
  RangeStat Pn, Pt, vfn, dE_rel;             // over ok rows (impact/derived.hpp)
  double law_seconds = 0;                    // time in the batch calls
};

// How evaluate_rows goes through a table: in chunks of `chunk` rows, through a pipeline of three
// stages (io/pipeline.hpp), `depth` chunks in flight:
//   input   reads chunk k+1's records (one thread), then splits and parses them (OpenMP threads)
//   law     evaluates chunk k (the backend's own threads, or the GPU)
//   output  formats chunk k-1's rows (OpenMP threads), writes them in order and adds them to the
//           summary (one thread)
// depth 1: one stage after another (no overlap). The bytes written and the summary are the same
// for every chunk size, depth and thread count (tests/cli/eval_pipeline.sh).
// Memory: each chunk in flight holds its records' text, columns, results and output text (about
// 0.8 kB a row of 16 columns), and a slot grows to the largest chunk it held; the depth is lowered
// so that at most max(chunk, kMostRowsInFlight) rows are in flight (pipeline_depth: 2^21 rows,
// about 1.7 GB; a chunk of 2^20 rows runs 2 deep, one of 2^21 or more one after another).
struct EvalPipeline {
  std::size_t chunk = std::size_t(1) << 16;
  int depth = 3;
};
constexpr std::size_t kMostRowsInFlight = std::size_t(1) << 21;
int pipeline_depth(const EvalPipeline& how);  // the depth evaluate_rows runs

// Where a chunk's time went: seconds since the pipeline began, per stage.
struct StageSpan {
  double begin = 0, end = 0;
  double seconds() const { return end - begin; }
};
enum EvalStage { stage_read, stage_parse, stage_law, stage_format, stage_write, kNumEvalStages };
const char* eval_stage_name(int stage);  // "read", "parse", ...
struct ChunkTimes {
  std::size_t rows = 0;
  StageSpan stage[kNumEvalStages];
};
struct EvalTimeline {
  int depth = 0, host_threads = 0;  // host_threads: the OpenMP threads of parse and format
  double wall = 0;                  // seconds from the pipeline's start to its last write
  std::vector<ChunkTimes> chunks;
  // The seconds each stage was busy, summed over the chunks.
  double busy(int stage) const;
  // The fraction of the wall time the thread of a stage group was idle: input (read, parse), law,
  // output (format, write).
  double idle_input() const;
  double idle_law() const;
  double idle_output() const;
};
// The timeline as a table for people (stage, busy seconds, share of the wall time; each thread's
// idle fraction), every line starting with `indent`.
std::string timeline_table(const EvalTimeline& t, const std::string& indent);
// The timeline as CSV (chunk, rows, stage, begin_s, end_s: one line per chunk and stage).
std::string timeline_csv(const EvalTimeline& t);

// Rows [0, m) of a chunk into the summary (every row's status; the quantities of ok rows).
template <class T>
void summarise_rows(TableStats& s, const InputColumns<T>& cols, const OutputColumns<T>& res, std::size_t m);

// The rows of `in` after its header (lay: read_header's) in chunks of `chunk`, each written with its
// results to `out` (not committed); no header. A share of a file split between processes reads
// its byte range this way (host/cli/eval.cpp).
// timeline: filled with the pipeline's stage times when not null.
template <class T>
TableStats evaluate_rows(io::CsvReader& in, io::OutFile& out, const InputLayout& lay, const LawInfo& law, const BatchCall<T>& fn,
                         const LawOptions& opt, const EvalPipeline& how, EvalTimeline* timeline = nullptr);
// The result table's header line (the input header, the law's output columns, '\n').
std::string table_header(const InputLayout& lay);

// Adds a share's summary to another (law_seconds: the longest share's).
void merge_into(TableStats& into, const TableStats& share);
// A summary as text and back, exactly (hexadecimal doubles), to send between processes.
std::string to_text(const TableStats& s);
TableStats table_stats_from_text(const std::string& text);

// Reads `in` to its end in chunks of `chunk` rows, evaluates each chunk with `fn`, writes the
// header and every row with its results to `out` (not committed). Throws io::InputError for a
// malformed file and std::runtime_error for a failed write.
template <class T>
TableStats evaluate_table(io::CsvReader& in, io::OutFile& out, const LawInfo& law, const BatchCall<T>& fn, const LawOptions& opt,
                          const EvalPipeline& how, EvalTimeline* timeline = nullptr);

}  // namespace impact::engine
