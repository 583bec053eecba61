// Evaluation of a contact-space CSV table (`impact eval`): rows read in chunks, evaluated by a
// batch entry point (any backend, the CPU reference included), written back with the result
// columns appended, and summarised on the way.
#pragma once
#include <cmath>
#include <cstddef>
#include <map>
#include <string>

#include "engine/columns.hpp"
#include "engine/registry.hpp"
#include "engine/table.hpp"
#include "io/csv.hpp"
#include "io/out_file.hpp"

namespace impact::engine {

struct RangeStat {
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

// Rows [0, m) of a chunk into the summary (every row's status; the quantities of ok rows).
template <class T>
void summarise_rows(TableStats& s, const InputColumns<T>& cols, const OutputColumns<T>& res, std::size_t m);

// The rows of `in` after its header (lay: read_header's) in chunks of `chunk`, each written with its
// results to `out` (not committed); no header. A share of a file split between processes reads
// its byte range this way (host/cli/eval.cpp).
template <class T>
TableStats evaluate_rows(io::CsvReader& in, io::OutFile& out, const InputLayout& lay, const LawInfo& law, BatchFn<T> fn,
                         const LawOptions& opt, std::size_t chunk);
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
TableStats evaluate_table(io::CsvReader& in, io::OutFile& out, const LawInfo& law, BatchFn<T> fn,
                          const LawOptions& opt, std::size_t chunk);

}  // namespace impact::engine
