// Contact-space tables (docs/INTERFACE.md) as CSV: the header's column map for one law, input rows
// parsed into InputColumns, result rows written (and read back, for `impact compare --given`).
// The CSV reader itself is io::CsvReader; the column names come from impact/columns.hpp and the
// law's metadata.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "engine/columns.hpp"
#include "engine/registry.hpp"
#include "io/csv.hpp"

namespace impact::engine {

struct InputLayout {
  std::size_t ncols = 0;
  std::string header;  // the header line as read
  long header_line = 0;
  bool needed[kNumInputs];  // columns the law reads
  std::size_t col_of[kNumInputs];
  std::vector<std::string> out_names;  // the output columns the law appends
  // With read_header(..., with_outputs = true): where each out_names column is in the file.
  std::vector<std::size_t> out_col;
};

// Reads and checks the header for `law`: names unique and non-empty, every needed column present,
// no input column that collides with an output. Throws io::InputError with the location.
// with_outputs: the file is an `impact eval` result table instead; every output column of the law
// must be present too (their positions go to out_col).
InputLayout read_header(io::CsvReader& reader, const LawInfo& law, bool with_outputs = false);

// A layout with every input column and no file (sampled instances, study rows).
InputLayout all_inputs_layout();

// Row m of dst from a record already split into fields (io::split_csv_line): the field count
// checked against the header, the needed inputs parsed. `raw` is the record, `path` and `line_no`
// say where it is. Throws io::InputError with the location. read_row, and the eval pipeline's
// parallel parse (engine/evaluate.cpp), both read rows through it.
template <class T>
void parse_row(const std::vector<io::CsvField>& fields, std::string_view raw, const std::string& path, long line_no,
               const InputLayout& lay, InputColumns<T>& dst, std::size_t m);

// Reads the next row into row m of dst (the needed inputs); false at end of input. Throws
// io::InputError for a wrong field count or a bad number.
template <class T>
bool read_row(io::CsvReader& reader, std::vector<io::CsvField>& fields, const InputLayout& lay, InputColumns<T>& dst,
              std::size_t m);

// The results of a row of an `impact eval` table (lay from read_header(..., true)) into row j of g
// (numbers 0 unless the status is ok). Throws io::InputError for an unknown status or mode.
void read_results(const std::vector<io::CsvField>& fields, const io::CsvReader& reader, const InputLayout& lay,
                  const LawInfo& law, OutputColumns<double>& g, std::size_t j);

// Appends the result cells of row i (",P_x,...,status,extras", empty numbers unless ok) to buf.
template <class T>
void append_results(std::string& buf, const LawInfo& law, const OutputColumns<T>& res, std::size_t i);

}  // namespace impact::engine
