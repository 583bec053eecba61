#include "io/csv.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "io/number.hpp"

namespace impact::io {

std::string located(const std::string& file, long line, long col, const std::string& msg) {
  std::string s = file + ":" + std::to_string(line);
  if (col > 0) s += ":" + std::to_string(col);
  return s + ": " + msg;
}

CsvReader::CsvReader(const std::string& path, std::string subject) : path_(path), subject_(std::move(subject)) {
  if (path == "-") {
    f_ = stdin;
    path_ = "<stdin>";
  } else {
    struct stat st;
    if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
      throw InputError(path + ": cannot read: is a directory, expected " + subject_);
    f_ = std::fopen(path.c_str(), "rb");
    if (!f_) throw InputError(path + ": cannot open for reading: " + std::strerror(errno));
    owns_ = true;
  }
}

CsvReader::CsvReader(const std::string& path, std::uint64_t begin, std::uint64_t end, long first_line) : CsvReader(path) {
  if (f_ == stdin) throw InputError("a byte range of standard input cannot be read: give a file");
  if (fseeko(f_, static_cast<off_t>(begin), SEEK_SET) != 0)
    throw InputError(path + ": cannot seek to byte " + std::to_string(begin) + ": " + std::strerror(errno));
  pos_ = begin;
  end_ = end;
  line_no_ = first_line - 1;
}

std::uint64_t CsvReader::offset() const { return pos_; }

void CsvReader::keep_checksum() { crc_on_ = true; }

CsvReader::CsvReader(FromText, std::string text, std::string name) : path_(std::move(name)) {
  // the text is the one block there is
  buf_.assign(text.begin(), text.end());
  buf_len_ = buf_.size();
}

CsvReader CsvReader::from_text(std::string text, std::string name) {
  return CsvReader(FromText{}, std::move(text), std::move(name));
}

CsvReader::~CsvReader() {
  if (owns_ && f_) std::fclose(f_);
}

bool CsvReader::refill() {
  if (!f_ || pos_ >= end_) return false;
  if (buf_.size() < kBlock) buf_.resize(kBlock);
  const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(kBlock, end_ - pos_));
  buf_pos_ = 0;
  buf_len_ = std::fread(buf_.data(), 1, want, f_);
  if (crc_on_) crc_.add(buf_.data(), buf_len_);
  return buf_len_ > 0;
}

int CsvReader::get() {
  if (buf_pos_ == buf_len_ && !refill()) return EOF;
  ++pos_;
  return static_cast<unsigned char>(buf_[buf_pos_++]);
}

void CsvReader::unget() {  // the byte is still in the block: get() read it from there
  --buf_pos_;
  --pos_;
}

// A line ends at LF, CRLF or a lone CR (old Mac files). A read error is an error, never the end of
// the input; a NUL byte or a line over kMaxLineChars (a binary file, /dev/zero) is refused.
bool CsvReader::read_line() {
  line_.clear();
  bool any = false;
  errno = 0;
  for (;;) {
    // the ordinary bytes of the line that are in the block, appended at once
    if (buf_pos_ == buf_len_ && !refill()) break;
    const char* b = buf_.data() + buf_pos_;
    const char* e = buf_.data() + buf_len_;
    const char* p = b;
    while (p < e && *p != '\n' && *p != '\r' && *p != '\0') ++p;
    if (p > b) {
      any = true;
      const std::size_t run = static_cast<std::size_t>(p - b);
      if (line_.size() + run > kMaxLineChars)
        throw InputError(located(path_, line_no_ + 1, 0,
                                 "line longer than " + std::to_string(kMaxLineChars) + " characters: expected " + subject_));
      line_.append(b, run);
      buf_pos_ += run;
      pos_ += run;
    }
    if (p == e) continue;  // the block ended inside the line
    const int c = get();   // '\n', '\r' or NUL
    any = true;
    if (c == '\n') break;
    if (c == '\r') {
      const int d = get();
      if (d != '\n' && d != EOF) unget();
      break;
    }
    throw InputError(located(path_, line_no_ + 1, static_cast<long>(line_.size()) + 1,
                             "NUL byte: expected " + subject_ + " (is this a binary file?)"));
  }
  if (f_ && std::ferror(f_))
    throw InputError(
        located(path_, line_no_ + 1, 0, std::string("read error: ") + (errno ? std::strerror(errno) : "unknown error")));
  if (!any) return false;
  // a UTF-8 byte order mark before the header (spreadsheet exports): not part of the first name
  if (line_no_ == 0 && line_.compare(0, 3, "\xEF\xBB\xBF") == 0) line_.erase(0, 3);
  ++line_no_;
  return true;
}

bool CsvReader::next_record() {
  do {
    if (!read_line()) return false;
  } while (line_.find_first_not_of(" \t") == std::string::npos);
  return true;
}

bool CsvReader::next(std::vector<CsvField>& fields) {
  if (!next_record()) return false;
  split_csv_line(line_, path_, line_no_, unquoted_, fields);
  return true;
}

namespace {

void split_blank_or_comma(std::string_view line, std::vector<CsvField>& fields) {
  const std::size_t n = line.size();
  auto blank = [&](std::size_t i) { return line[i] == ' ' || line[i] == '\t' || line[i] == '\v' || line[i] == '\f'; };
  bool after_comma = false;  // a field is due
  for (std::size_t i = 0;;) {
    while (i < n && blank(i)) ++i;
    if (i >= n || line[i] == ',') {  // an empty field ends here when one is due, or before a first ','
      if (after_comma || (i < n && fields.empty())) fields.push_back({line.substr(n, 0), static_cast<long>(i) + 1});
      if (i >= n) return;
      after_comma = true, ++i;
      continue;
    }
    const std::size_t b = i;
    while (i < n && !blank(i) && line[i] != ',') ++i;
    fields.push_back({line.substr(b, i - b), static_cast<long>(b) + 1});
    after_comma = false;
  }
}

}  // namespace

void split_csv_line(std::string_view line, const std::string& path, long line_no, std::string& unquoted,
                    std::vector<CsvField>& fields, Separators sep) {
  fields.clear();
  unquoted.clear();
  if (sep == Separators::comma_or_blanks) return split_blank_or_comma(line, fields);
  // a quoted field's content is shorter than its text: with this capacity unquoted never
  // reallocates, so views into it stay valid as the fields are collected
  unquoted.reserve(line.size());
  const std::size_t n = line.size();
  std::size_t i = 0;
  while (true) {
    const long col = static_cast<long>(i) + 1;
    if (i < n && line[i] == '"') {
      const std::size_t b = unquoted.size();
      ++i;
      bool closed = false;
      while (i < n) {
        if (line[i] == '"') {
          if (i + 1 < n && line[i + 1] == '"') {
            unquoted.push_back('"');
            i += 2;
          } else {
            ++i;
            closed = true;
            break;
          }
        } else {
          unquoted.push_back(line[i++]);
        }
      }
      if (!closed)
        throw InputError(located(path, line_no, col,
                                 "unterminated quoted field (a quoted field ends on its own line: a line break "
                                 "inside quotes is not read)"));
      if (i < n && line[i] != ',')
        throw InputError(located(path, line_no, static_cast<long>(i) + 1, "expected ',' or end of line after a quoted field"));
      fields.push_back({std::string_view(unquoted.data() + b, unquoted.size() - b), col});
    } else {
      const std::size_t b = i;
      while (i < n && line[i] != ',') ++i;
      fields.push_back({line.substr(b, i - b), col});
    }
    if (i >= n) break;
    ++i;           // skip ','
    if (i == n) {  // trailing comma: one more empty field
      fields.push_back({line.substr(n, 0), static_cast<long>(n) + 1});
      break;
    }
  }
}

double parse_number(const CsvField& f, const CsvReader& r, const std::string& column) {
  return parse_number(f, r.path(), r.line_no(), column);
}

double parse_number(const CsvField& f, const std::string& path, long line_no, const std::string& column) {
  long col = f.col;
  const std::string_view t = trim_blanks(f.text, &col);
  if (t.empty())
    throw InputError(located(path, line_no, col, "expected a number in column '" + column + "', found an empty cell"));
  // the one grammar of numbers in text (io/number.hpp; docs/INTERFACE.md): 'inf' and 'nan' are
  // values (the row gets the status non_finite); 1e400, hexadecimal and the rest are refused
  const ParsedNumber p = parse_number_text(t);
  if (!p.ok())
    throw InputError(
        located(path, line_no, col,
                "expected a number in column '" + column + "', got '" + std::string(f.text) + "'" + number_fault_hint(p.fault)));
  return p.value;
}

void append_number(std::string& out, double v) {
  char buf[32];
  auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, ptr);
}

void append_number(std::string& out, float v) {
  char buf[32];
  auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, ptr);
}

namespace {

struct File {  // a read-only FILE*, closed at scope exit
  std::FILE* f;
  explicit File(const std::string& path) : f(std::fopen(path.c_str(), "rb")) {
    if (!f) throw InputError(path + ": cannot open for reading: " + std::strerror(errno));
  }
  ~File() { std::fclose(f); }
};

// The line break of a file: '\r' when its first line ends in a lone CR, else '\n'.
int line_break_of(std::FILE* f) {
  for (int c; (c = std::getc(f)) != EOF;) {
    if (c == '\n') return '\n';
    if (c == '\r') return std::getc(f) == '\n' ? '\n' : '\r';
  }
  return '\n';
}

// The first line start at or after `at` (one past the first break at or after at - 1), or size.
std::uint64_t line_start_from(std::FILE* f, int brk, std::uint64_t at, std::uint64_t size) {
  if (at >= size) return size;
  if (fseeko(f, static_cast<off_t>(at - 1), SEEK_SET) != 0) return size;
  std::uint64_t p = at - 1;
  for (int c; (c = std::getc(f)) != EOF; ++p)
    if (c == brk) return p + 1;
  return size;
}

}  // namespace

ByteRange line_share(const std::string& path, std::uint64_t from, int r, int k) {
  File file(path);
  const int brk = line_break_of(file.f);
  if (fseeko(file.f, 0, SEEK_END) != 0) throw InputError(path + ": cannot seek: " + std::strerror(errno));
  const std::uint64_t size = static_cast<std::uint64_t>(ftello(file.f));
  const std::uint64_t body = size > from ? size - from : 0;
  auto start = [&](int q) -> std::uint64_t {
    if (q <= 0) return from;
    if (q >= k) return size;
    const std::uint64_t uk = static_cast<std::uint64_t>(k), uq = static_cast<std::uint64_t>(q);
    const std::uint64_t nominal = from + body / uk * uq + body % uk * uq / uk;  // from + body q / k, no overflow
    return nominal <= from ? from : line_start_from(file.f, brk, nominal, size);
  };
  return ByteRange{start(r), start(r + 1)};
}

std::uint64_t count_line_breaks(const std::string& path, ByteRange range) {
  File file(path);
  const int brk = line_break_of(file.f);
  if (fseeko(file.f, static_cast<off_t>(range.begin), SEEK_SET) != 0)
    throw InputError(path + ": cannot seek: " + std::strerror(errno));
  std::uint64_t n = 0;
  std::vector<char> buf(1 << 16);
  for (std::uint64_t left = range.end - range.begin; left > 0;) {
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(left, buf.size()));
    const std::size_t got = std::fread(buf.data(), 1, want, file.f);
    if (got == 0) break;
    for (std::size_t i = 0; i < got; ++i) n += buf[i] == brk;
    left -= got;
  }
  return n;
}

}  // namespace impact::io
