// Imported designs (design.kind = imported, or saltelli with a file): a sample matrix read through
// io::CsvReader and split by io::split_csv_line (Separators::comma_or_blanks, the one tokenizer of
// text tables), its header matched to the parameters, its values checked, a Saltelli matrix's groups
// checked value by value.
#include "design/design_import.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <string_view>

#include "io/checksum.hpp"
#include "io/csv.hpp"
#include "io/machine.hpp"
#include "io/number.hpp"

namespace impact::design {

namespace {

using io::gib;  // "1.5 GiB", for messages on memory

class ImportedDesign final : public Design {
 public:
  ImportedDesign(std::vector<std::string> names, std::vector<double> values) : values_(std::move(values)) {
    names_ = std::move(names);
    rows_ = names_.empty() ? 0 : values_.size() / names_.size();
  }
  std::size_t rows() const override { return rows_; }
  void fill(std::size_t begin, std::size_t end, double* out) const override {
    const std::size_t d = names_.size();
    std::copy(values_.begin() + begin * d, values_.begin() + end * d, out);
  }

 private:
  std::vector<double> values_;
  std::size_t rows_ = 0;
};

// ---- imported sample files -------------------------------------------------------------------------

struct Token {
  std::string text;
  std::size_t column;  // 1-based
};

// A record's fields by io's tokenizer (fields end at commas and/or blanks; an empty field between
// two commas, or before a first or after a last one, kept so that it is reported), owned: a comment's
// header outlives its line. `offset`: the characters of the line before `text` (a comment's '#').
std::vector<Token> split_fields(std::string_view text, std::size_t offset = 0) {
  thread_local std::vector<io::CsvField> fields;  // reused from line to line
  thread_local std::string unquoted;              // unused: the rule has no quoting, no error to locate
  io::split_csv_line(text, "", 0, unquoted, fields, io::Separators::comma_or_blanks);
  std::vector<Token> out;
  out.reserve(fields.size());
  for (const io::CsvField& f : fields) out.push_back({std::string(f.text), static_cast<std::size_t>(f.col) + offset});
  return out;
}

// A value of an imported file: the one number grammar of text (io/number.hpp, as a CSV cell of
// `impact eval`), finite (a design's values are). Empty when v is set, else what was wrong.
std::string design_number(const std::string& s, double& v) {
  const io::ParsedNumber p = io::parse_number_text(s);
  if (p.ok() && std::isfinite(p.value)) {
    v = p.value;
    return "";
  }
  return "expected a finite number, found '" + s + "'" +
         (p.ok() ? std::string(" (a design's values must be finite)") : io::number_fault_hint(p.fault));
}

std::string unquote(const std::string& s) {
  if (s.size() >= 2 && ((s.front() == '"' && s.back() == '"') || (s.front() == '\'' && s.back() == '\'')))
    return s.substr(1, s.size() - 2);
  return s;
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

// The header of an imported file: the names of its columns, the design's columns. With `known`
// (the scenario's parameters) a column names any of them and declares itself varied; without, it
// must be one of the varied parameters declared in [params] (`declared`). Every declared varied
// parameter needs its column (a distribution without one would be silently unused), a parameter
// fixed in [params] may not have one (`fixed`), and no name repeats.
template <class Err>
std::vector<std::string> header_names(const std::vector<std::string>& declared, const std::vector<std::string>& fixed,
                                      const std::vector<std::string>& known, const std::vector<Token>& tok, std::size_t lineno,
                                      std::size_t line_size, const Err& err) {
  auto has = [](const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); };
  std::vector<std::string> names;
  for (const Token& t : tok) {
    const std::string name = unquote(t.text);
    if (known.empty() && !has(declared, name))
      throw err(lineno, t.column,
                "expected a header naming the varied parameters (" + join(declared) + "); '" + name + "' is not one of them");
    if (!known.empty() && !has(known, name))
      throw err(lineno, t.column,
                "expected a header of scenario parameters (" + join(known) + "); '" + name + "' is not one of them");
    if (has(fixed, name))
      throw err(lineno, t.column, "'" + name + "' is fixed in [params] and also a column of the file: remove one of the two");
    if (has(names, name)) throw err(lineno, t.column, "expected each parameter once in the header; '" + name + "' repeats");
    names.push_back(name);
  }
  std::vector<std::string> missing;
  for (const std::string& n : declared)
    if (!has(names, n)) missing.push_back(n);
  if (!missing.empty())
    throw err(lineno, line_size + 1, "expected a header naming every varied parameter of [params]; missing " + join(missing));
  return names;
}

// The rows of a Saltelli matrix come in groups of d + 2 (A, AB_1..AB_d, B), or 2 d + 2 (A,
// AB_1..AB_d, BA_1..BA_d, B): AB_i is A with B's value in column i, BA_i B with A's. Checked on the
// parsed values (SALib writes them by copying, so a file written with full precision repeats the
// bits).
template <class Err>
void check_saltelli_group(const double* g, std::size_t d, bool second_order, const std::vector<std::size_t>& lines,
                          const Err& err) {
  const std::size_t per = saltelli_group(d, second_order);
  const double* a = g;
  const double* b = g + (per - 1) * d;
  for (std::size_t t = 1; t + 1 < per; ++t) {
    const bool ab = t <= d;
    const std::size_t i = ab ? t - 1 : t - d - 1;
    const double* row = g + t * d;
    for (std::size_t k = 0; k < d; ++k) {
      const double want = ab ? (k == i ? b[k] : a[k]) : (k == i ? a[k] : b[k]);
      if (row[k] != want)
        throw err(lines[t], 1,
                  "expected a Saltelli matrix (rows A, AB_1..AB_" + std::to_string(d) +
                      (second_order ? ", BA_1..BA_" + std::to_string(d) : std::string()) +
                      ", B per base row, AB_i = A with B's column i" + (second_order ? ", BA_i = B with A's" : "") +
                      "; SALib's calc_second_order = " + (second_order ? "True" : "False") + "): row " + std::to_string(t + 1) +
                      " of the group starting at line " + std::to_string(lines[0]) + " differs in column " +
                      std::to_string(k + 1));
    }
  }
}

// Rows of an imported file read by `in`, at most max_rows (kMaxDesignRows, and what the memory
// limit holds); its columns as header_names() says, or without a header the declared varied
// parameters in order. `saltelli`: the rows must form a Saltelli matrix (check_saltelli_group).
// The reader's own errors (io::InputError) pass through; read_imported() says them as design.file's.
std::unique_ptr<Design> read_rows(io::CsvReader& in, const std::vector<std::string>& declared,
                                  const std::vector<std::string>& fixed, const std::vector<std::string>& known, bool saltelli,
                                  bool second_order, double memory_limit) {
  // "design.file: FILE:LINE:COLUMN: what was expected"
  auto err = [&](std::size_t line, std::size_t col, const std::string& what) {
    return std::invalid_argument("design.file: " + in.path() + ":" + std::to_string(line) + ":" + std::to_string(col) + ": " +
                                 what);
  };
  std::vector<std::string> names = declared, file_names;
  std::vector<std::size_t> col_of;  // file column -> design column
  bool first = true;
  std::size_t d = 0;
  std::uint64_t max_rows = 0;
  std::vector<double> values;
  std::vector<std::size_t> group_lines;  // saltelli: the lines of the current group
  std::vector<Token> comment_header;     // "# a b c" before the first row
  std::size_t comment_line = 0, comment_size = 0;
  std::size_t lineno = 0;
  while (in.next_record()) {
    lineno = static_cast<std::size_t>(in.line_no());
    const std::string& line = in.raw();
    const std::size_t nonspace = line.find_first_not_of(" \t\v\f");
    if (nonspace == std::string::npos) continue;
    if (line[nonspace] == '#') {
      // np.savetxt(header=...) and design.txt write the names as a comment: "# a b c", taken as
      // the header when the file has no other and every word is a parameter's name
      if (first) {
        const std::vector<Token> words = split_fields(std::string_view(line).substr(nonspace + 1), nonspace + 1);
        const std::vector<std::string>& pool = known.empty() ? declared : known;
        bool names_only = !words.empty();
        for (const Token& w : words)
          names_only = names_only && std::find(pool.begin(), pool.end(), unquote(w.text)) != pool.end();
        if (names_only) {
          comment_header = words;
          comment_line = lineno;
          comment_size = line.size();
        }
      }
      continue;
    }
    std::vector<Token> tok = split_fields(line);
    double v = 0;
    if (first) {
      first = false;
      // a header when its first field does not begin like a number ("0x10" there is a value,
      // refused as one)
      const bool plain = !tok.empty() && !tok[0].text.empty() && !io::begins_like_number(tok[0].text);
      // a comment header counts when it names as many columns as the first row has
      if (!plain && comment_header.size() != tok.size()) comment_header.clear();
      if (plain || !comment_header.empty()) {
        file_names = plain ? header_names(declared, fixed, known, tok, lineno, line.size(), err)
                           : header_names(declared, fixed, known, comment_header, comment_line, comment_size, err);
        // the declared parameters in [params] order, then the file's others in its order; a
        // Saltelli file keeps its own order (its AB_i replaces the file's column i)
        names = saltelli ? file_names : declared;
        for (const std::string& n : file_names)
          if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
        if (plain) continue;
      }
      if (names.empty())
        throw err(lineno, 1,
                  "expected a header line naming the file's columns (parameters of the scenario), "
                  "or the varied parameters declared in [params]");
    }
    if (d == 0) {
      d = names.size();
      col_of.resize(d);
      std::iota(col_of.begin(), col_of.end(), 0);
      for (std::size_t c = 0; c < file_names.size(); ++c)
        col_of[c] = static_cast<std::size_t>(std::find(names.begin(), names.end(), file_names[c]) - names.begin());
      const double by_memory = std::floor(memory_limit / (8.0 * double(d)));
      max_rows = static_cast<std::uint64_t>(std::max(1.0, std::min(double(kMaxDesignRows), by_memory)));
    }
    const std::size_t base = values.size();
    if (base / d >= max_rows)
      throw err(lineno, 1,
                "expected at most " + std::to_string(max_rows) + " rows (" +
                    (double(max_rows) < double(kMaxDesignRows) ? "the " + gib(memory_limit) + " a study may use)"
                                                               : "the largest design)"));
    // grow within the limit: never more than max_rows rows' capacity
    if (values.capacity() < base + d)
      values.reserve(static_cast<std::size_t>(
          std::min<double>(double(max_rows) * double(d), std::max<double>(1024.0, 2.0 * double(base + d)))));
    values.resize(base + d);
    for (std::size_t c = 0; c < tok.size(); ++c) {
      if (c >= d)
        throw err(lineno, tok[c].column,
                  "expected " + std::to_string(d) + " values per row, found " + std::to_string(tok.size()));
      const std::string bad = design_number(tok[c].text, v);
      if (!bad.empty()) throw err(lineno, tok[c].column, bad);
      values[base + col_of[c]] = v;
    }
    if (tok.size() < d)
      throw err(lineno, line.size() + 1,
                "expected " + std::to_string(d) + " values per row, found " + std::to_string(tok.size()));
    if (saltelli) {
      group_lines.push_back(lineno);
      if (group_lines.size() == saltelli_group(d, second_order)) {
        check_saltelli_group(&values[values.size() - saltelli_group(d, second_order) * d], d, second_order, group_lines, err);
        group_lines.clear();
      }
    }
  }
  if (values.empty()) throw err(lineno + 1, 1, "expected at least one row of values, found none");
  if (saltelli && !group_lines.empty())
    throw err(lineno + 1, 1,
              std::string("expected N ") + (second_order ? "(2d + 2)" : "(d + 2)") + " rows for a Saltelli matrix of d = " +
                  std::to_string(d) + " columns, found " + std::to_string(values.size() / d) + " (the last group has " +
                  std::to_string(group_lines.size()) + " of its " + std::to_string(saltelli_group(d, second_order)) + " rows)");
  auto design = std::make_unique<ImportedDesign>(names, std::move(values));
  design->set_source_sum("crc32=" + io::crc_hex(in.checksum()) + " bytes=" + std::to_string(in.offset()));
  return design;
}

}  // namespace

// An imported file through io's reader (blocks of 1 MiB, lines of at most
// io::CsvReader::kMaxLineChars, a NUL byte or a read error an error, never the end), keeping the
// file's CRC-32 for the study's metadata; its records are split by read_rows, by commas and/or
// blanks. The reader's errors become design.file's: "design.file: FILE:LINE[:COL]: ...".
std::unique_ptr<Design> read_imported(const std::vector<std::string>& declared, const std::vector<std::string>& fixed,
                                      const std::vector<std::string>& known, const std::string& file, bool saltelli,
                                      bool second_order, double memory_limit) {
  try {
    io::CsvReader in(file, "a sample matrix");
    in.keep_checksum();
    return read_rows(in, declared, fixed, known, saltelli, second_order, memory_limit);
  } catch (const io::InputError& e) { throw std::invalid_argument("design.file: " + std::string(e.what())); }
}

}  // namespace impact::design
