// Minimal, strict CSV reading and number formatting for the contact-space interface.
// Errors carry file, line and column, and say what was expected.
#pragma once
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "io/checksum.hpp"

namespace impact::io {

struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Formats "FILE:LINE:COL: message" (COL omitted when 0).
std::string located(const std::string& file, long line, long col, const std::string& msg);

struct CsvField {
  std::string_view text;  // unquoted content
  long col;               // 1-based character column of the field's first character
};

class CsvReader {
 public:
  // path "-" reads standard input. `subject`: what the text is, in messages ("NUL byte: expected
  // CSV text (is this a binary file?)").
  explicit CsvReader(const std::string& path, std::string subject = "CSV text");
  // Reads `text` from memory instead of a file (tests, fuzzing: tests/fuzz); `name` stands for the
  // file in messages. Everything else is as for a file.
  static CsvReader from_text(std::string text, std::string name = "<memory>");
  // Reads the bytes [begin, end) of a file only (a share of a file split between processes:
  // begin at the start of a line), numbering its lines from first_line.
  CsvReader(const std::string& path, std::uint64_t begin, std::uint64_t end, long first_line);
  ~CsvReader();
  CsvReader(const CsvReader&) = delete;
  CsvReader& operator=(const CsvReader&) = delete;

  static constexpr std::size_t kMaxLineChars = std::size_t(1) << 20;

  // Reads the next record; false at end of input. Blank lines are skipped. Lines end at LF, CRLF
  // or CR; a UTF-8 byte order mark before the first line is skipped. InputError on a read error,
  // a NUL byte or a line over kMaxLineChars characters.
  bool next(std::vector<CsvField>& fields);
  // The same record without splitting it into fields (raw() and line_no() are its own): a reader
  // that splits records elsewhere, in parallel (split_csv_line), reads them this way.
  bool next_record();
  const std::string& raw() const { return line_; }  // the record as read, without line ending
  long line_no() const { return line_no_; }
  const std::string& path() const { return path_; }
  // Bytes of the file read so far (its position; for a range, from the file's start).
  std::uint64_t offset() const;
  // From the first read on, the CRC-32 of the bytes read: the whole file's once next_record() has
  // returned false (a file's identity in a study's metadata). Called before anything is read.
  void keep_checksum();
  std::uint32_t checksum() const { return crc_.value(); }

 private:
  struct FromText {};
  CsvReader(FromText, std::string text, std::string name);
  bool read_line();
  int get();      // the next byte or EOF, from the file or the text
  void unget();   // gives back the byte get() returned last
  bool refill();  // the next block of the file into buf_; false at its end (or the range's)
  std::FILE* f_ = nullptr;
  // a file is read in blocks of kBlock bytes (a byte at a time through getc was a quarter of
  // `impact eval`'s time on a 1e6-row table)
  static constexpr std::size_t kBlock = std::size_t(1) << 20;
  std::vector<char> buf_;
  std::size_t buf_pos_ = 0, buf_len_ = 0;
  bool owns_ = false;
  std::string path_;
  std::string line_;
  std::string unquoted_;  // storage for fields that needed unquoting
  long line_no_ = 0;
  std::uint64_t end_ = UINT64_MAX;  // a range: the byte where the input ends
  std::uint64_t pos_ = 0;           // bytes of the file read (get())
  std::string subject_ = "CSV text";
  bool crc_on_ = false;
  Crc32 crc_;
};

// A file split between processes at line starts: share r of k of the bytes [from, size) (from: a
// line start, e.g. after the header). A line break is LF, or CR in a file whose first line ends in
// a lone CR. The shares are contiguous, in order, and cover the bytes once; a share may be empty.
struct ByteRange {
  std::uint64_t begin = 0, end = 0;
};
ByteRange line_share(const std::string& path, std::uint64_t from, int r, int k);
// The line breaks in [range.begin, range.end) of a file (the lines a share holds, blank ones included).
std::uint64_t count_line_breaks(const std::string& path, ByteRange range);

// Where a record's fields end: at ',' (CSV), or at ',' and/or runs of blanks (a sample matrix as
// SALib, np.savetxt and a study's design.txt write it: design/design_import.cpp).
enum class Separators { comma, comma_or_blanks };

// Splits one record (a line without its ending) into fields: the one tokenizer of text tables.
// comma, as CsvReader::next does: fields end at ',', a field that begins with '"' is quoted ("" inside
// is one '"') and must end at its closing quote, and a trailing comma makes one more empty field.
// Quoted fields' content goes to `unquoted` (cleared), which the fields' views may point into, as
// into `line`. InputError "PATH:LINE:COL: ..." for an unterminated quoted field or text after a
// closing quote. comma_or_blanks: fields end at ',' and/or blanks (' ', '\t', '\v', '\f'), no quoting,
// no error; an empty field before a first ',', between two or after a last is kept (at its ',' or
// past the line's end), so that a reader can say where a value is missing.
void split_csv_line(std::string_view line, const std::string& path, long line_no, std::string& unquoted,
                    std::vector<CsvField>& fields, Separators sep = Separators::comma);

// Parses a whole field (blanks around it skipped) by the one number grammar (io/number.hpp):
// "inf", "nan" are values; anything else outside the grammar (hexadecimal, 1e400 beyond double's
// range, ...) throws InputError "FILE:LINE:COL: expected a number in column 'C', got 'TEXT'".
double parse_number(const CsvField& f, const CsvReader& r, const std::string& column);
// The same for a field of line `line_no` of the file `path` (records split by split_csv_line).
double parse_number(const CsvField& f, const std::string& path, long line_no, const std::string& column);

// Shortest representation that round-trips (std::to_chars).
void append_number(std::string& out, double v);
void append_number(std::string& out, float v);

}  // namespace impact::io
