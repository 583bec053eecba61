// Imported designs (design/design.hpp: design.kind = imported, or saltelli with a file): make_design's
// reader of a sample matrix.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "design/design.hpp"

namespace impact::design {

// The design of the file's rows, at most kMaxDesignRows and what memory_limit holds. `declared`: the
// varied parameters of the specs (spec order), `fixed`: the fixed ones, `known`: the scenario's
// parameters (any of them may be a column; empty: only the declared ones), as make_design says.
// `saltelli`: the rows must form a Saltelli matrix (second_order: SALib's calc_second_order = True
// layout). The file is read by io::CsvReader and its records split by io::split_csv_line
// (io::Separators::comma_or_blanks); every error is std::invalid_argument
// "design.file: FILE:LINE[:COLUMN]: what was expected", the reader's own included.
std::unique_ptr<Design> read_imported(const std::vector<std::string>& declared, const std::vector<std::string>& fixed,
                                      const std::vector<std::string>& known, const std::string& file, bool saltelli,
                                      bool second_order, double memory_limit);

}  // namespace impact::design
