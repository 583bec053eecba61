#include "study/config.hpp"

#include <climits>
#include <cstdlib>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <stdexcept>

#include <toml++/toml.h>

#include "engine/options.hpp"
#include "engine/registry.hpp"
#include "io/number.hpp"
#include "study/bodies.hpp"
#include "study/scenarios.hpp"
#include "study/columns.hpp"

namespace impact::study {

using namespace impact::engine;

using json = nlohmann::ordered_json;

std::string ConfigTree::at(const std::string& key) const {
  auto it = where.find(key);
  // a key set by --set, or inside an inline value: the nearest parent with a location
  std::string k = key;
  while (it == where.end()) {
    const std::size_t cut = k.find_last_of(".[");
    if (cut == std::string::npos) break;
    k = k.substr(0, cut);
    it = where.find(k);
  }
  if (it != where.end() && it->second.first == 0) return "--set: ";  // the key came from the command line
  if (it == where.end() || it->second.first <= 0) return file + ": ";
  return file + ":" + std::to_string(it->second.first) + ":" + std::to_string(it->second.second) + ": ";
}

namespace {

// ---- TOML -> JSON with source locations ---------------------------------------------------------

void record(ConfigTree& t, const std::string& key, const toml::node& n) {
  const auto& s = n.source();
  t.where[key] = {static_cast<long>(s.begin.line), static_cast<long>(s.begin.column)};
}

std::string location(const std::string& file, long line, long col) {
  return file + ":" + std::to_string(line) + ":" + std::to_string(col) + ": ";
}

[[noreturn]] void too_deep(const std::string& file, long line, long col) {
  throw ConfigError(location(file, line, col) + "nested deeper than " + std::to_string(kMaxConfigDepth) +
                    " levels (tables, arrays and dotted keys); a study config needs a handful");
}

json from_toml(ConfigTree& t, const toml::node& n, const std::string& key, int depth = 0) {
  record(t, key, n);
  if (depth > kMaxConfigDepth) too_deep(t.file, n.source().begin.line, n.source().begin.column);
  if (const auto* tb = n.as_table()) {
    json o = json::object();
    // toml++ keeps keys sorted; a study keeps the file's order (it is the design's column order)
    std::vector<std::pair<const toml::key*, const toml::node*>> entries;
    for (const auto& [k, v] : *tb) entries.emplace_back(&k, &v);
    std::stable_sort(entries.begin(), entries.end(), [](const auto& x, const auto& y) {
      const auto& a = x.first->source().begin;
      const auto& b = y.first->source().begin;
      return a.line != b.line ? a.line < b.line : a.column < b.column;
    });
    for (const auto& [kp, vp] : entries) {
      const toml::key& k = *kp;
      const toml::node& v = *vp;
      const std::string sub = key.empty() ? std::string(k.str()) : key + "." + std::string(k.str());
      // the key's own position is more useful than its value's for messages
      o[std::string(k.str())] = from_toml(t, v, sub, depth + 1);
      const auto& ks = k.source();
      if (ks.begin.line > 0) t.where[sub] = {static_cast<long>(ks.begin.line), static_cast<long>(ks.begin.column)};
    }
    return o;
  }
  if (const auto* ar = n.as_array()) {
    json a = json::array();
    std::size_t i = 0;
    for (const auto& v : *ar) a.push_back(from_toml(t, v, key + "[" + std::to_string(i++) + "]", depth + 1));
    return a;
  }
  if (const auto* v = n.as_string()) return json(v->get());
  if (const auto* v = n.as_integer()) return json(v->get());
  if (const auto* v = n.as_floating_point()) return json(v->get());
  if (const auto* v = n.as_boolean()) return json(v->get());
  const auto& s = n.source();
  throw ConfigError(t.file + ":" + std::to_string(s.begin.line) + ":" + std::to_string(s.begin.column) + ": " + key +
                    ": dates and times are not study values");
}

std::pair<long, long> line_col(const std::string& text, std::size_t byte) {
  long line = 1, col = 1;
  for (std::size_t i = 0; i < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return {line, col};
}

// ---- typed access ---------------------------------------------------------------------------------

const char* type_name(const json& v) {
  switch (v.type()) {
    case json::value_t::object: return "a table";
    case json::value_t::array: return "an array";
    case json::value_t::string: return "a string";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return "an integer";
    case json::value_t::number_float: return "a number";
    case json::value_t::null: return "null";
    default: return "a value";
  }
}

// A value for a message, without recursion (a config value may be nested deeply): a table or an
// array by its size, a number or a literal as written, a string cut to 57 bytes (at a character
// boundary: a cut UTF-8 sequence would make dump() throw).
std::string show(const json& v) {
  if (v.is_object()) return "with " + std::to_string(v.size()) + " key(s)";
  if (v.is_array()) return "of " + std::to_string(v.size()) + " value(s)";
  if (!v.is_string()) return v.dump();
  std::string s = v.get_ref<const std::string&>();
  const bool cut = s.size() > 57;
  if (cut) {
    std::size_t n = 57;
    while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;  // inside a UTF-8 sequence
    s.resize(n);
  }
  return json(s).dump(-1, ' ', false, json::error_handler_t::replace) + (cut ? "..." : "");
}

struct Reader {
  const ConfigTree& t;
  [[noreturn]] void fail(const std::string& key, const std::string& msg) const {
    throw ConfigError(t.at(key) + key + ": " + msg);
  }
  void expect_keys(const json& obj, const std::string& key, const std::set<std::string>& known) const {
    for (auto it = obj.begin(); it != obj.end(); ++it) {
      if (!known.count(it.key())) {
        std::string list;
        for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
        const std::string full = key.empty() ? it.key() : key + "." + it.key();
        throw ConfigError(t.at(full) + full + ": unknown key (known" + (key.empty() ? "" : " in " + key) + ": " + list + ")");
      }
    }
  }
  const json& table(const json& v, const std::string& key) const {
    if (!v.is_object()) fail(key, std::string("expected a table, got ") + type_name(v));
    return v;
  }
  std::string str(const json& v, const std::string& key) const {
    if (!v.is_string()) fail(key, std::string("expected a string, got ") + type_name(v) + " " + show(v));
    return v.get<std::string>();
  }
  double num(const json& v, const std::string& key) const {
    if (v.is_number()) return v.get<double>();
    if (v.is_string()) {  // inf / -inf / nan written as strings in JSON
      const std::string s = v.get<std::string>();
      if (s == "inf" || s == "+inf") return INFINITY;
      if (s == "-inf") return -INFINITY;
    }
    fail(key, std::string("expected a number, got ") + type_name(v) + " " + show(v));
  }
  // A whole number in [lo, hi] (the range of the key's type and of its documented values): an
  // integer, or a number with an integral value (JSON writes 1e6). Never wraps: a value outside
  // the range fails naming the key.
  std::uint64_t integer(const json& v, const std::string& key, std::uint64_t lo, std::uint64_t hi) const {
    const auto too_large = [&](const std::string& got) {
      return "expected an integer <= " + std::to_string(hi) + ", got " + got;
    };
    if (v.is_number_unsigned()) {
      const std::uint64_t u = v.get<std::uint64_t>();
      if (u < lo) fail(key, "expected an integer >= " + std::to_string(lo) + ", got " + std::to_string(u));
      if (u > hi) fail(key, too_large(std::to_string(u)));
      return u;
    }
    if (v.is_number_integer()) {  // signed (TOML's integers, negative JSON ones)
      const std::int64_t i = v.get<std::int64_t>();
      if (i < 0 || static_cast<std::uint64_t>(i) < lo)
        fail(key, "expected an integer >= " + std::to_string(lo) + ", got " + std::to_string(i));
      if (static_cast<std::uint64_t>(i) > hi) fail(key, too_large(std::to_string(i)));
      return static_cast<std::uint64_t>(i);
    }
    if (v.is_number_float()) {
      const double d = v.get<double>();
      if (std::isfinite(d) && d == std::floor(d)) {
        if (d < double(lo)) fail(key, "expected an integer >= " + std::to_string(lo) + ", got " + show(v));
        // hi as a double rounds up at most to the next power of two: compare strictly beyond it
        if (d > double(hi) || d >= 18446744073709551616.0) fail(key, too_large(show(v)));
        const std::uint64_t u = static_cast<std::uint64_t>(d);
        if (u > hi) fail(key, too_large(show(v)));
        return u;
      }
    }
    fail(key, std::string("expected an integer >= ") + std::to_string(lo) + ", got " + type_name(v) + " " + show(v));
  }
  bool boolean(const json& v, const std::string& key) const {
    if (!v.is_boolean()) fail(key, std::string("expected true or false, got ") + type_name(v) + " " + show(v));
    return v.get<bool>();
  }
  std::vector<std::string> strings(const json& v, const std::string& key) const {
    std::vector<std::string> out;
    if (v.is_string()) return {v.get<std::string>()};
    if (!v.is_array()) fail(key, std::string("expected a string or an array of strings, got ") + type_name(v));
    for (std::size_t i = 0; i < v.size(); ++i) out.push_back(str(v[i], key + "[" + std::to_string(i) + "]"));
    return out;
  }
};

std::vector<std::string> split(const std::string& s, char c) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (;;) {
    const std::size_t p = s.find(c, start);
    parts.push_back(s.substr(start, p == std::string::npos ? std::string::npos : p - start));
    if (p == std::string::npos) break;
    start = p + 1;
  }
  return parts;
}

// A number written in a config string ("uniform:0.1:0.8", "-inf"): the one number grammar of
// text (io/number.hpp; blanks around it skipped). hint (when given): why it is not one.
bool parse_double_text(const std::string& s, double& out, std::string* hint = nullptr) {
  const io::ParsedNumber p = io::parse_number_text(io::trim_blanks(s));
  if (p.ok()) out = p.value;
  else if (hint) *hint = io::number_fault_hint(p.fault);
  return p.ok();
}

}  // namespace

// ---- loading ----------------------------------------------------------------------------------------

namespace {

// Line and column (1-based, in bytes) of text[i], counted as a scan advances.
struct Cursor {
  const std::string& text;
  std::size_t i = 0;
  long line = 1, col = 1;
  bool more() const { return i < text.size(); }
  char peek() const { return i < text.size() ? text[i] : '\0'; }
  void next() {
    if (text[i] == '\n') ++line, col = 0;
    ++i;
    ++col;
  }
  bool starts(const char* s) const { return text.compare(i, std::strlen(s), s) == 0; }
};

// Skips a string, the cursor on its opening quote, to after its closing quote (or the end of its
// line when unterminated: the parser says so). `escapes`: a JSON or TOML basic string; `triple`:
// a multi-line TOML string.
void skip_string(Cursor& c, char quote, bool escapes, bool triple = false) {
  const std::string close(triple ? 3 : 1, quote);
  for (std::size_t k = 0; k < close.size(); ++k) c.next();
  while (c.more()) {
    if (escapes && c.peek() == '\\') {
      c.next();
      if (c.more()) c.next();
      continue;
    }
    if (c.starts(close.c_str())) {
      for (std::size_t k = 0; k < close.size(); ++k) c.next();
      return;
    }
    if (!triple && c.peek() == '\n') return;
    c.next();
  }
}

// JSON: the nesting of arrays and objects, refused beyond kMaxConfigDepth before the parser (and
// the recursive parts of nlohmann/json, dump() among them) see it.
void check_json_depth(const std::string& text, const std::string& name) {
  Cursor c{text};
  int depth = 0;
  while (c.more()) {
    const char ch = c.peek();
    if (ch == '"') {
      skip_string(c, '"', true);
      continue;
    }
    if (ch == '{' || ch == '[') {
      if (++depth > kMaxConfigDepth) too_deep(name, c.line, c.col);
    } else if ((ch == '}' || ch == ']') && depth > 0) {
      --depth;
    }
    c.next();
  }
}

// TOML: the depth a value can reach, counted on the text: a [table] header's dotted parts (one
// more for an [[array of tables]]), a key's dotted parts, arrays and inline tables. toml++ bounds
// the nesting of inline values itself, but not that of dotted keys and headers, and recurses over
// them. Whatever is not TOML is skipped here: the parser says what it is.
class TomlDepth {
 public:
  TomlDepth(const std::string& text, const std::string& name) : c_{text}, name_(name) {}

  void run() {
    while (c_.more()) {
      skip_blank();
      if (!c_.more()) break;
      const char ch = c_.peek();
      if (ch == '\n') c_.next();
      else if (ch == '#') skip_line();
      else if (ch == '[') header();
      else key_value();
    }
  }

 private:
  void skip_blank() {
    while (c_.more() && (c_.peek() == ' ' || c_.peek() == '\t' || c_.peek() == '\r')) c_.next();
  }
  void skip_line() {
    while (c_.more() && c_.peek() != '\n') c_.next();
  }
  void reach(int depth) const {
    if (depth > kMaxConfigDepth) too_deep(name_, c_.line, c_.col);
  }
  // A dotted key up to `stop` (or the end of the line), refused as soon as depth + its parts is too
  // deep; returns the number of its parts.
  int key_parts(char stop, int depth) {
    int parts = 1;
    while (c_.more() && c_.peek() != stop && c_.peek() != '\n') {
      const char ch = c_.peek();
      if (ch == '"' || ch == '\'') {
        skip_string(c_, ch, ch == '"');
        continue;
      }
      if (ch == '.') reach(depth + ++parts);
      c_.next();
    }
    return parts;
  }
  void header() {
    c_.next();
    const bool array = c_.peek() == '[';
    if (array) c_.next();
    header_depth_ = key_parts(']', array ? 1 : 0) + (array ? 1 : 0);
    reach(header_depth_);
    skip_line();
  }
  void key_value() {
    const int d = header_depth_ + key_parts('=', header_depth_);
    if (c_.peek() != '=') return;
    c_.next();
    value(d);
  }
  // A value at `depth`: arrays and inline tables to their end, then the rest of its line.
  void value(int depth) {
    std::vector<std::pair<char, int>> open;  // '[' or '{' and its depth
    while (c_.more()) {
      const char ch = c_.peek();
      if (ch == '"' || ch == '\'') {
        skip_string(c_, ch, ch == '"', c_.starts(ch == '"' ? "\"\"\"" : "'''"));
        continue;
      }
      if (ch == '#') skip_line();
      if (!c_.more() || (c_.peek() == '\n' && open.empty())) return;
      const char x = c_.peek();
      const int here = open.empty() ? depth : open.back().second;
      c_.next();
      if (x == '[' || x == '{') {
        open.emplace_back(x, here + 1);
        reach(here + 1);
        if (x == '{') inline_key(here + 1);
      } else if ((x == ']' || x == '}') && !open.empty()) {
        open.pop_back();
      } else if (x == ',' && !open.empty() && open.back().first == '{') {
        inline_key(here);
      }
    }
  }
  // After '{' or ',' in an inline table at `depth`: the next key's parts.
  void inline_key(int depth) {
    skip_blank();
    if (c_.peek() == '}') return;
    key_parts('=', depth);
    if (c_.peek() == '=') c_.next();
  }

  Cursor c_;
  const std::string& name_;
  int header_depth_ = 0;
};

// nlohmann/json's DOM builder, keeping the position of an error of any kind (a number beyond a
// double's range is an out_of_range exception without one).
class JsonBuilder {
 public:
  using number_integer_t = json::number_integer_t;
  using number_unsigned_t = json::number_unsigned_t;
  using number_float_t = json::number_float_t;
  using string_t = json::string_t;
  using binary_t = json::binary_t;

  explicit JsonBuilder(json& root) : dom_(root, false) {}
  bool null() { return dom_.null(); }
  bool boolean(bool v) { return dom_.boolean(v); }
  bool number_integer(number_integer_t v) { return dom_.number_integer(v); }
  bool number_unsigned(number_unsigned_t v) { return dom_.number_unsigned(v); }
  bool number_float(number_float_t v, const string_t& s) { return dom_.number_float(v, s); }
  bool string(string_t& v) { return dom_.string(v); }
  bool binary(binary_t& v) { return dom_.binary(v); }
  bool start_object(std::size_t n) { return dom_.start_object(n); }
  bool key(string_t& v) { return dom_.key(v); }
  bool end_object() { return dom_.end_object(); }
  bool start_array(std::size_t n) { return dom_.start_array(n); }
  bool end_array() { return dom_.end_array(); }
  bool parse_error(std::size_t position, const std::string& token, const nlohmann::detail::exception& e) {
    failed = true;
    byte = position;
    last_token = token;
    id = e.id;
    what = e.what();
    return false;
  }

  bool failed = false;
  std::size_t byte = 0;  // bytes read when the error was found (1-based position of the last one)
  std::string last_token, what;
  int id = 0;

 private:
  nlohmann::detail::json_sax_dom_parser<json> dom_;
};

json parse_json(const std::string& text, const std::string& name) {
  json root;
  JsonBuilder b(root);
  const bool ok = json::sax_parse(text, &b);
  if (ok && !b.failed) return root;
  if (b.id == 406) {  // a number beyond a double's range: located at its first byte
    const std::size_t start = b.byte >= b.last_token.size() ? b.byte - b.last_token.size() : 0;
    const auto lc = line_col(text, start);
    throw ConfigError(location(name, lc.first, lc.second) + "JSON number out of range: " + b.last_token +
                      " is beyond a double's 1.8e308 (an infinite bound is written \"inf\" or \"-inf\")");
  }
  const auto lc = line_col(text, b.byte == 0 ? 0 : b.byte - 1);
  const std::size_t p = b.what.find("syntax error");
  throw ConfigError(location(name, lc.first, lc.second) + "JSON " + (p == std::string::npos ? b.what : b.what.substr(p)));
}

// The position of every key of a (valid) JSON text, recorded as ConfigTree::where has them ("a.b",
// and "plots[1]" for array elements); a duplicate key is an error.
class JsonKeys {
 public:
  JsonKeys(const std::string& text, ConfigTree& t) : c_{text}, t_(t) {}

  void run() {
    while (c_.more()) {
      const char ch = c_.peek();
      if (ch == '{' || ch == '[') {
        Frame f;
        f.object = ch == '{';
        f.path = value_path();
        frames_.push_back(std::move(f));
        c_.next();
      } else if (ch == '}' || ch == ']') {
        if (!frames_.empty()) frames_.pop_back();
        c_.next();
      } else if (ch == ',') {
        if (!frames_.empty() && frames_.back().object) frames_.back().expect_key = true;
        c_.next();
      } else if (ch == '"') {
        string();
      } else if (std::strchr(": \t\r\n", ch)) {
        c_.next();
      } else {  // a number or a literal
        value_path();
        while (c_.more() && !std::strchr(",]}: \t\r\n", c_.peek())) c_.next();
      }
    }
  }

 private:
  struct Frame {
    bool object = false;
    std::string path;
    bool expect_key = true;
    std::size_t index = 0;  // an array's next element
    std::string key;        // an object's current key
    std::map<std::string, std::pair<long, long>> seen;
  };

  // The path of the value starting at the cursor (an array element's position is recorded).
  std::string value_path() {
    if (frames_.empty()) return "";
    Frame& f = frames_.back();
    if (f.object) return f.path.empty() ? f.key : f.path + "." + f.key;
    std::string p = f.path + "[" + std::to_string(f.index++) + "]";
    t_.where[p] = {c_.line, c_.col};
    return p;
  }

  void string() {
    if (frames_.empty() || !frames_.back().object || !frames_.back().expect_key) {
      value_path();
      skip_string(c_, '"', true);
      return;
    }
    const long line = c_.line, col = c_.col;
    const std::size_t start = c_.i;
    skip_string(c_, '"', true);
    Frame& f = frames_.back();
    f.key = json::parse(c_.text.substr(start, c_.i - start)).get<std::string>();
    f.expect_key = false;
    const std::string full = f.path.empty() ? f.key : f.path + "." + f.key;
    const auto seen = f.seen.emplace(f.key, std::make_pair(line, col));
    if (!seen.second)
      throw ConfigError(location(t_.file, line, col) + full + ": duplicate key (first at line " +
                        std::to_string(seen.first->second.first) + ", column " +
                        std::to_string(seen.first->second.second) + ")");
    t_.where[full] = {line, col};
  }

  Cursor c_;
  ConfigTree& t_;
  std::vector<Frame> frames_;
};

}  // namespace

ConfigTree parse_config_text(const std::string& text, const std::string& name, bool toml_syntax) {
  ConfigTree t;
  t.file = name;
  if (toml_syntax) {
    TomlDepth(text, name).run();
    toml::table tb;
    try {
      tb = toml::parse(std::string_view(text), std::string_view(name));
    } catch (const toml::parse_error& e) {
      const auto& s = e.source();
      throw ConfigError(location(name, s.begin.line, s.begin.column) + "TOML syntax: " + std::string(e.description()));
    }
    t.root = from_toml(t, tb, "");
    t.where.erase("");
  } else {
    // nlohmann/json ends the text at a NUL byte (and accepts what came before); the key scan below
    // would read on past it
    const std::size_t nul = text.find('\0');
    if (nul != std::string::npos) {
      const auto lc = line_col(text, nul);
      throw ConfigError(location(name, lc.first, lc.second) + "NUL byte: expected JSON text (is this a binary file?)");
    }
    check_json_depth(text, name);
    t.root = parse_json(text, name);
    if (!t.root.is_object()) throw ConfigError(name + ":1:1: expected a JSON object at the top level");
    JsonKeys(text, t).run();
  }
  return t;
}

ConfigTree load_config_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw ConfigError(path + ": cannot open the study config");
  // at most kMaxConfigBytes: a config is a page or two (and /dev/zero is none)
  std::string text;
  std::vector<char> buf(1 << 16);
  while (f.read(buf.data(), static_cast<std::streamsize>(buf.size())) || f.gcount() > 0) {
    text.append(buf.data(), static_cast<std::size_t>(f.gcount()));
    if (text.size() > kMaxConfigBytes)
      throw ConfigError(path + ": larger than " + std::to_string(kMaxConfigBytes >> 20) + " MiB: not a study config");
  }
  if (f.bad()) throw ConfigError(path + ": cannot read the study config (a read error, or a folder)");
  bool toml_syntax;
  const auto ends = [&](const char* x) {
    const std::string s(x);
    return path.size() >= s.size() && path.compare(path.size() - s.size(), s.size(), s) == 0;
  };
  if (ends(".toml")) toml_syntax = true;
  else if (ends(".json")) toml_syntax = false;
  else {
    const std::size_t p = text.find_first_not_of(" \t\r\n");
    toml_syntax = !(p != std::string::npos && text[p] == '{');
  }
  return parse_config_text(text, path, toml_syntax);
}

void apply_override(ConfigTree& tree, const std::string& setting) {
  const std::size_t eq = setting.find('=');
  if (eq == std::string::npos || eq == 0)
    throw ConfigError("--set " + setting + ": expected KEY=VALUE (e.g. design.n=1000, params.mu=uniform:0.1:0.9)");
  const std::string key = setting.substr(0, eq);
  const std::string text = setting.substr(eq + 1);
  json value;
  // a TOML value: parse "v = TEXT"; a bare word that is not TOML becomes a string
  try {
    toml::table tb = toml::parse(std::string_view("v = " + text), std::string_view("--set"));
    ConfigTree tmp;
    tmp.file = "--set";
    value = from_toml(tmp, *tb.get("v"), "v");
  } catch (const toml::parse_error&) {
    value = text;
  }
  json* node = &tree.root;
  const std::vector<std::string> path = split(key, '.');
  for (std::size_t i = 0; i < path.size(); ++i) {
    if (path[i].empty()) throw ConfigError("--set " + setting + ": empty key component");
    if (!node->is_object()) throw ConfigError("--set " + setting + ": " + key + ": a parent key is not a table");
    if (i + 1 == path.size()) {
      (*node)[path[i]] = value;
    } else {
      if (!node->contains(path[i])) (*node)[path[i]] = json::object();
      node = &(*node)[path[i]];
    }
  }
  tree.where[key] = {0, 0};  // set on the command line
}

// ---- parameters ---------------------------------------------------------------------------------

ParamSpec parse_param(const std::string& name, const json& v, const std::string& where) {
  const std::string key = "params." + name;
  const auto fail = [&](const std::string& msg) -> void { throw ConfigError(where + key + ": " + msg); };
  ParamSpec p;
  p.name = name;
  const std::string forms =
      "a number, \"uniform:LO:HI\", \"normal:MEAN:SD\", \"lognormal:MU:SIGMA\", \"truncnormal:MEAN:SD:LO:HI\", "
      "\"linspace:A:B:COUNT\", or a table {dist = ..., ...} / {linspace = [A, B, COUNT]}";
  if (v.is_number()) {
    p.kind = ParamKind::fixed;
    p.a = v.get<double>();
  } else if (v.is_string()) {
    const std::vector<std::string> parts = split(v.get<std::string>(), ':');
    double num[4] = {0, 0, 0, 0};
    const std::string kind = parts[0];
    static const std::map<std::string, std::pair<ParamKind, int>> arity = {
        {"fixed", {ParamKind::fixed, 1}},       {"uniform", {ParamKind::uniform, 2}},
        {"normal", {ParamKind::normal, 2}},     {"lognormal", {ParamKind::lognormal, 2}},
        {"truncnormal", {ParamKind::truncnormal, 4}}, {"linspace", {ParamKind::linspace, 3}}};
    double bare;
    std::string hint;
    if (parts.size() == 1 && parse_double_text(parts[0], bare, &hint)) {
      p.kind = ParamKind::fixed;
      p.a = bare;
    } else if (parts.size() == 1 && io::begins_like_number(io::trim_blanks(parts[0]))) {
      fail("'" + parts[0] + "' is not a number" + hint);
    } else {
      const auto it = arity.find(kind);
      if (it == arity.end()) fail("unknown distribution '" + kind + "' (expected " + forms + ")");
      if (static_cast<int>(parts.size()) - 1 != it->second.second)
        fail("'" + kind + "' takes " + std::to_string(it->second.second) + " numbers, got " +
             std::to_string(parts.size() - 1) + " in '" + v.get<std::string>() + "'");
      for (int i = 0; i < it->second.second; ++i)
        if (!parse_double_text(parts[1 + i], num[i], &hint)) fail("'" + parts[1 + i] + "' is not a number" + hint);
      p.kind = it->second.first;
      switch (p.kind) {
        case ParamKind::fixed: p.a = num[0]; break;
        case ParamKind::uniform: p.a = num[0]; p.b = num[1]; break;
        case ParamKind::normal:
        case ParamKind::lognormal: p.a = num[0]; p.b = num[1]; break;
        case ParamKind::truncnormal: p.a = num[0]; p.b = num[1]; p.lo = num[2]; p.hi = num[3]; break;
        case ParamKind::linspace:
          p.a = num[0]; p.b = num[1];
          if (!(num[2] >= 1 && num[2] == std::floor(num[2]) && num[2] < 1e9)) fail("linspace COUNT must be a positive integer");
          p.count = static_cast<std::size_t>(num[2]);
          break;
      }
    }
  } else if (v.is_object()) {
    const auto need = [&](const char* k) -> double {
      if (!v.contains(k)) { fail(std::string("missing '") + k + "'"); }
      const json& x = v.at(k);
      if (x.is_number()) return x.get<double>();
      std::string why;
      if (x.is_string()) {
        double d;
        if (parse_double_text(x.get<std::string>(), d, &why)) return d;
      }
      fail(std::string(k) + ": expected a number, got " + type_name(x) + " " + show(x) + why);
      return 0;
    };
    const auto only = [&](std::set<std::string> allowed) {
      for (auto it = v.begin(); it != v.end(); ++it)
        if (!allowed.count(it.key())) {
          std::string list;
          for (const std::string& k : allowed) list += (list.empty() ? "" : ", ") + k;
          fail("unknown key '" + it.key() + "' (known here: " + list + ")");
        }
    };
    if (v.contains("linspace")) {
      only({"linspace"});
      const json& l = v.at("linspace");
      if (!l.is_array() || l.size() != 3 || !l[0].is_number() || !l[1].is_number() || !l[2].is_number())
        fail("linspace: expected [A, B, COUNT]");
      p.kind = ParamKind::linspace;
      p.a = l[0].get<double>();
      p.b = l[1].get<double>();
      const double c = l[2].get<double>();
      if (!(c >= 1 && c == std::floor(c) && c < 1e9)) fail("linspace COUNT must be a positive integer");
      p.count = static_cast<std::size_t>(c);
    } else if (v.contains("E1")) {
      // eta0 from the elastic constants of both bodies (Hertz-Mindlin, study/bodies.hpp)
      if (name != "eta0") fail("elastic constants {E1, nu1, E2, nu2} give eta0 only");
      only({"E1", "nu1", "E2", "nu2"});
      const double E2 = v.contains("E2") ? need("E2") : std::numeric_limits<double>::infinity();
      const double nu2 = v.contains("nu2") ? need("nu2") : 0.3;
      if (v.contains("nu2") && !v.contains("E2")) fail("nu2 without E2 (body 2 is rigid without E2)");
      p.kind = ParamKind::fixed;
      try {
        p.a = eta0_from_elastic(need("E1"), need("nu1"), E2, nu2);
      } catch (const std::invalid_argument& e) {
        fail(e.what());
      }
    } else if (v.contains("dist")) {
      if (!v.at("dist").is_string()) fail("dist: expected a string");
      const std::string d = v.at("dist").get<std::string>();
      if (d == "fixed") { only({"dist", "value"}); p.kind = ParamKind::fixed; p.a = need("value"); }
      else if (d == "uniform") { only({"dist", "lo", "hi"}); p.kind = ParamKind::uniform; p.a = need("lo"); p.b = need("hi"); }
      else if (d == "normal") { only({"dist", "mean", "sd"}); p.kind = ParamKind::normal; p.a = need("mean"); p.b = need("sd"); }
      else if (d == "lognormal") { only({"dist", "mu", "sigma"}); p.kind = ParamKind::lognormal; p.a = need("mu"); p.b = need("sigma"); }
      else if (d == "truncnormal") {
        only({"dist", "mean", "sd", "lo", "hi"});
        p.kind = ParamKind::truncnormal;
        p.a = need("mean"); p.b = need("sd"); p.lo = need("lo"); p.hi = need("hi");
      } else {
        fail("dist: unknown distribution '" + d + "' (known: fixed, uniform, normal, lognormal, truncnormal)");
      }
    } else {
      fail("a table needs 'dist' or 'linspace' (expected " + forms + "; for eta0 also {E1, nu1, E2, nu2})");
    }
  } else {
    fail(std::string("expected ") + forms + ", got " + type_name(v));
  }
  try {
    p.validate(key);
  } catch (const std::invalid_argument& e) {
    throw ConfigError(where + e.what());
  }
  return p;
}

bool operator==(const ParamSpec& a, const ParamSpec& b) {
  const auto same = [](double x, double y) { return x == y || (std::isnan(x) && std::isnan(y)); };
  return a.name == b.name && a.kind == b.kind && same(a.a, b.a) && same(a.b, b.b) &&
         (a.kind != ParamKind::truncnormal || (same(a.lo, b.lo) && same(a.hi, b.hi))) &&
         (a.kind != ParamKind::linspace || a.count == b.count);
}

// ---- the study ----------------------------------------------------------------------------------

namespace {

// [study]: name, description, scenario, law(s); returns the scenario.
const ScenarioInfo& resolve_study(const Reader& r, const json& root, StudyConfig& c) {
  if (!root.contains("study")) throw ConfigError(r.t.file + ":1:1: study: missing table [study] (scenario and law(s))");
  const json& st = r.table(root.at("study"), "study");
  r.expect_keys(st, "study", {"name", "description", "scenario", "law", "laws"});
  if (st.contains("name")) c.name = r.str(st.at("name"), "study.name");
  if (st.contains("description")) c.description = r.str(st.at("description"), "study.description");
  if (!st.contains("scenario")) r.fail("study.scenario", "missing (known: " + scenario_list() + ")");
  c.scenario = r.str(st.at("scenario"), "study.scenario");
  const ScenarioInfo* sc = find_scenario(c.scenario);
  if (!sc) r.fail("study.scenario", "unknown scenario '" + c.scenario + "' (known: " + scenario_list() + ")");
  if (st.contains("law") && st.contains("laws")) r.fail("study.laws", "give either 'law' or 'laws', not both");
  if (st.contains("law")) c.laws = {r.str(st.at("law"), "study.law")};
  if (st.contains("laws")) c.laws = r.strings(st.at("laws"), "study.laws");
  const std::string lawkey = st.contains("law") ? "study.law" : "study.laws";
  if (c.laws.empty()) r.fail(lawkey, "at least one law is needed (known: " + law_names() + ")");
  std::set<std::string> seen;
  for (const std::string& l : c.laws) {
    if (!find_law(l)) r.fail(lawkey, "unknown law '" + l + "' (known: " + law_names() + ")");
    if (!seen.insert(l).second) r.fail(lawkey, "law '" + l + "' listed twice");
  }
  return *sc;
}

// [run]: backend, precision and integrator (to their enums here), steps, chunk.
void resolve_run(const Reader& r, const json& root, StudyConfig& c) {
  std::string precision = precision_name(c.precision), integrator = integrator_name(c.integrator);
  if (root.contains("run")) {
    const json& rn = r.table(root.at("run"), "run");
    r.expect_keys(rn, "run", {"backend", "precision", "integrator", "steps", "chunk"});
    if (rn.contains("backend")) c.backend = r.str(rn.at("backend"), "run.backend");
    if (rn.contains("precision")) precision = r.str(rn.at("precision"), "run.precision");
    if (rn.contains("integrator")) integrator = r.str(rn.at("integrator"), "run.integrator");
    if (rn.contains("steps")) c.steps = static_cast<int>(r.integer(rn.at("steps"), "run.steps", 1, kMaxSteps));
    if (rn.contains("chunk")) c.chunk = r.integer(rn.at("chunk"), "run.chunk", 1, kMaxChunk);
  }
  if (c.backend != "auto" && c.backend != "cuda" && c.backend != "omp" && c.backend != "serial" &&
      c.backend != "reference")
    r.fail("run.backend", "expected auto, cuda, omp, serial or reference, got '" + c.backend + "'");
  try {
    c.precision = parse_precision(precision);
  } catch (const std::invalid_argument&) {
    r.fail("run.precision", "expected double or float, got '" + precision + "'");
  }
  try {
    c.integrator = parse_integrator(integrator);
  } catch (const std::invalid_argument&) {
    r.fail("run.integrator", "expected rk4 or euler, got '" + integrator + "'");
  }
  if (c.backend == "reference" && c.precision != Precision::f64)
    r.fail("run.backend", "the reference backend is double only");
}

// [design]: kind, n, seed, skip_first, file (relative to the config file's folder).
void resolve_design(const Reader& r, const json& d, StudyConfig& c) {
  const ConfigTree& t = r.t;
  r.expect_keys(d, "design", {"kind", "n", "seed", "skip_first", "file"});
  if (d.contains("kind")) {
    const std::string k = r.str(d.at("kind"), "design.kind");
    try {
      c.design.kind = parse_design_kind("design.kind", k);
    } catch (const std::invalid_argument& e) {
      throw ConfigError(t.at("design.kind") + e.what());
    }
  }
  if (d.contains("n")) c.design.n = static_cast<std::size_t>(r.integer(d.at("n"), "design.n", 1, kMaxDesignRows));
  if (d.contains("seed"))
    c.design.seed = r.integer(d.at("seed"), "design.seed", 0, std::numeric_limits<std::uint64_t>::max());
  if (d.contains("skip_first")) c.design.skip_first = r.boolean(d.at("skip_first"), "design.skip_first");
  if (d.contains("file")) c.design.file = r.str(d.at("file"), "design.file");
  if (c.design.kind == DesignKind::imported && c.design.file.empty())
    r.fail("design.file", "design.kind = imported needs a file");
  if (c.design.kind != DesignKind::imported && c.design.kind != DesignKind::saltelli && !c.design.file.empty())
    r.fail("design.file", "only used with design.kind = imported (a sample matrix) or saltelli (SALib's Saltelli matrix)");
  if (c.design.kind == DesignKind::grid && d.contains("n"))
    r.fail("design.n", "not used by a grid design (its size is the product of the linspace counts)");
  // a relative file in a config file is relative to that file's folder
  if (!c.design.file.empty() && c.design.file[0] != '/' && t.where.count("design.file") &&
      t.where.at("design.file").first > 0) {
    const std::size_t slash = t.file.find_last_of('/');
    const std::string folder = slash == std::string::npos ? "." : t.file.substr(0, slash + 1);
    char buf[PATH_MAX];
    if (realpath(folder.c_str(), buf)) c.design.file = std::string(buf) + "/" + c.design.file;
  }
}

// [params]: every parameter the study sets, each one the scenario has.
void resolve_params(const Reader& r, const json& root, const ScenarioInfo& sc, StudyConfig& c) {
  const json& ps = r.table(root.at("params"), "params");
  for (auto it = ps.begin(); it != ps.end(); ++it) {
    const std::string key = "params." + it.key();
    if (sc.index_of(it.key()) < 0) {
      std::string known;
      for (const ScenarioParam& p : sc.params) known += (known.empty() ? "" : ", ") + std::string(p.name);
      r.fail(key, "scenario " + c.scenario + " has no parameter '" + it.key() + "' (known: " + known + ")");
    }
    c.params.push_back(parse_param(it.key(), it.value(), r.t.at(key)));
  }
}

// [output]: dir (default out/NAME), formats, columns (checked once every column is known).
void resolve_output(const Reader& r, const json& root, StudyConfig& c) {
  if (root.contains("output")) {
    const json& o = r.table(root.at("output"), "output");
    r.expect_keys(o, "output", {"dir", "formats", "columns", "csv_max_rows"});
    c.out_dir = o.contains("dir") ? r.str(o.at("dir"), "output.dir") : "out/" + c.name;
    if (o.contains("formats")) c.formats = r.strings(o.at("formats"), "output.formats");
    if (o.contains("columns")) c.columns = r.strings(o.at("columns"), "output.columns");
    if (o.contains("csv_max_rows"))
      c.csv_max_rows = r.integer(o.at("csv_max_rows"), "output.csv_max_rows", 0,
                                 std::numeric_limits<std::uint64_t>::max());
  } else {
    c.out_dir = "out/" + c.name;
  }
  for (const std::string& f : c.formats)
    if (f != "csv" && f != "npy" && f != "salib")
      r.fail("output.formats", "unknown format '" + f + "' (known: csv, npy, salib)");
}

// Checks that a name is a column the study can produce (for output.columns, sensitivity and
// plots), or where allowed a parameter of the scenario.
struct ColumnCheck {
  const Reader& r;
  const ScenarioInfo& sc;
  StudyColumns cols;

  void operator()(const std::string& name, const std::string& key, bool allow_params) const {
    if (cols.has_output(name)) return;
    if (allow_params && sc.index_of(name) >= 0) return;
    r.fail(key, "unknown column '" + name + "' (outputs: " + cols.output_list() +
                    (allow_params ? "; or a parameter of the scenario" : "") + ")");
  }
};

// [sensitivity]: outputs, bootstrap, confidence (a Saltelli design).
void resolve_sensitivity(const Reader& r, const json& sens, const ColumnCheck& check, StudyConfig& c) {
  const json& s = r.table(sens, "sensitivity");
  r.expect_keys(s, "sensitivity", {"outputs", "bootstrap", "confidence"});
  if (s.contains("outputs")) c.sens_outputs = r.strings(s.at("outputs"), "sensitivity.outputs");
  if (s.contains("bootstrap"))
    c.bootstrap = r.integer(s.at("bootstrap"), "sensitivity.bootstrap", 10, kMaxBootstrap);
  if (s.contains("confidence")) {
    c.confidence = r.num(s.at("confidence"), "sensitivity.confidence");
    if (!(c.confidence > 0 && c.confidence < 1)) r.fail("sensitivity.confidence", "expected a number in (0, 1)");
  }
  if (c.sens_outputs.empty()) r.fail("sensitivity.outputs", "name at least one output column");
  for (const std::string& o : c.sens_outputs) check(o, "sensitivity.outputs", false);
  if (c.design.kind != DesignKind::saltelli)
    r.fail("sensitivity", "Sobol indices need design.kind = \"saltelli\" (got " +
                              std::string(design_kind_name(c.design.kind)) + ")");
}

// plots[i]: kind, x, y, file, title, law, bins.
PlotSpec resolve_plot(const Reader& r, const json& plot, std::size_t i, const ScenarioInfo& sc,
                      const ColumnCheck& check, const StudyConfig& c) {
  const std::string key = "plots[" + std::to_string(i) + "]";
  const json& p = r.table(plot, key);
  r.expect_keys(p, key, {"kind", "x", "y", "file", "title", "law", "bins"});
  PlotSpec ps;
  if (!p.contains("kind")) r.fail(key + ".kind", "missing (sweep, hist or scatter)");
  ps.kind = r.str(p.at("kind"), key + ".kind");
  if (ps.kind != "sweep" && ps.kind != "hist" && ps.kind != "scatter")
    r.fail(key + ".kind", "expected sweep, hist or scatter, got '" + ps.kind + "'");
  if (p.contains("x")) ps.x = r.str(p.at("x"), key + ".x");
  if (p.contains("y")) ps.y = r.strings(p.at("y"), key + ".y");
  if (p.contains("title")) ps.title = r.str(p.at("title"), key + ".title");
  if (p.contains("law")) {
    ps.law = r.str(p.at("law"), key + ".law");
    bool found = false;
    for (const std::string& l : c.laws) found |= l == ps.law;
    if (!found) r.fail(key + ".law", "law '" + ps.law + "' is not one of study.laws");
  }
  if (p.contains("bins")) ps.bins = static_cast<int>(r.integer(p.at("bins"), key + ".bins", 2, kMaxBins));
  if (ps.y.empty()) r.fail(key + ".y", "name at least one column");
  if (ps.kind == "hist" && !ps.x.empty()) r.fail(key + ".x", "a histogram has no x (put the columns in y)");
  if (ps.kind != "hist" && ps.x.empty()) r.fail(key + ".x", "missing (the column on the horizontal axis)");
  if (ps.kind == "scatter" && ps.y.size() != 1) r.fail(key + ".y", "a scatter plot takes one y column");
  if (ps.kind == "sweep" && sc.index_of(ps.x) < 0)
    r.fail(key + ".x", "a sweep's x must be a scenario parameter, got '" + ps.x + "'");
  if (ps.kind == "sweep" && c.design.kind != DesignKind::grid)
    r.fail(key + ".kind", std::string("a sweep needs design.kind = \"grid\" (got ") + design_kind_name(c.design.kind) +
                              "); use a scatter plot for sampled designs");
  if (!ps.x.empty()) check(ps.x, key + ".x", true);
  for (const std::string& y : ps.y) check(y, key + ".y", true);
  ps.file = p.contains("file") ? r.str(p.at("file"), key + ".file") : c.name + "-" + std::to_string(i + 1) + ".png";
  if (ps.file.find('/') != std::string::npos) r.fail(key + ".file", "a file name inside output.dir, without '/'");
  return ps;
}

}  // namespace

StudyConfig resolve_config(const ConfigTree& t) {
  const Reader r{t};
  StudyConfig c;
  const json& root = t.root;
  r.expect_keys(root, "", {"study", "run", "design", "params", "output", "sensitivity", "plots"});
  const ScenarioInfo& sc = resolve_study(r, root, c);
  resolve_run(r, root, c);
  if (root.contains("design")) resolve_design(r, r.table(root.at("design"), "design"), c);
  if (root.contains("params")) resolve_params(r, root, sc, c);
  resolve_output(r, root, c);
  // every column name the study can produce, for output.columns, sensitivity and plots
  const ColumnCheck check{r, sc, study_columns(c.laws, sc)};
  for (const std::string& col : c.columns) check(col, "output.columns", false);
  if (root.contains("sensitivity")) resolve_sensitivity(r, root.at("sensitivity"), check, c);
  if (root.contains("plots")) {
    const json& pl = root.at("plots");
    if (!pl.is_array()) r.fail("plots", std::string("expected an array of tables ([[plots]]), got ") + type_name(pl));
    for (std::size_t i = 0; i < pl.size(); ++i) c.plots.push_back(resolve_plot(r, pl[i], i, sc, check, c));
  }
  return c;
}

json to_json(const StudyConfig& c) {
  json j;
  j["study"] = {{"name", c.name}, {"description", c.description}, {"scenario", c.scenario}, {"laws", c.laws}};
  j["run"] = {{"backend", c.backend}, {"precision", precision_name(c.precision)},
              {"integrator", integrator_name(c.integrator)}, {"steps", c.steps}, {"chunk", c.chunk}};
  json d = {{"kind", design_kind_name(c.design.kind)}};
  if (c.design.kind != DesignKind::grid) d["n"] = c.design.n;  // a grid's size comes from its linspaces
  d["seed"] = c.design.seed;
  d["skip_first"] = c.design.skip_first;
  if (!c.design.file.empty()) d["file"] = c.design.file;
  j["design"] = d;
  json ps = json::object();
  const auto num = [](double x) -> json {
    if (std::isinf(x)) return json(x > 0 ? "inf" : "-inf");
    return json(x);
  };
  for (const ParamSpec& p : c.params) {
    switch (p.kind) {
      case ParamKind::fixed: ps[p.name] = num(p.a); break;
      case ParamKind::uniform: ps[p.name] = {{"dist", "uniform"}, {"lo", num(p.a)}, {"hi", num(p.b)}}; break;
      case ParamKind::normal: ps[p.name] = {{"dist", "normal"}, {"mean", num(p.a)}, {"sd", num(p.b)}}; break;
      case ParamKind::lognormal: ps[p.name] = {{"dist", "lognormal"}, {"mu", num(p.a)}, {"sigma", num(p.b)}}; break;
      case ParamKind::truncnormal:
        ps[p.name] = {{"dist", "truncnormal"}, {"mean", num(p.a)}, {"sd", num(p.b)}, {"lo", num(p.lo)}, {"hi", num(p.hi)}};
        break;
      case ParamKind::linspace: ps[p.name] = {{"linspace", {num(p.a), num(p.b), p.count}}}; break;
    }
  }
  j["params"] = ps;
  j["output"] = {{"dir", c.out_dir}, {"formats", c.formats}, {"columns", c.columns}, {"csv_max_rows", c.csv_max_rows}};
  if (!c.sens_outputs.empty())
    j["sensitivity"] = {{"outputs", c.sens_outputs}, {"bootstrap", c.bootstrap}, {"confidence", c.confidence}};
  json pl = json::array();
  for (const PlotSpec& p : c.plots) {
    json o = {{"kind", p.kind}};
    if (!p.x.empty()) o["x"] = p.x;
    o["y"] = p.y;
    o["file"] = p.file;
    if (!p.title.empty()) o["title"] = p.title;
    if (!p.law.empty()) o["law"] = p.law;
    if (p.kind == "hist") o["bins"] = p.bins;
    pl.push_back(o);
  }
  if (!pl.empty()) j["plots"] = pl;
  return j;
}

bool same_study(const StudyConfig& a, const StudyConfig& b) {
  const auto same_plot = [](const PlotSpec& x, const PlotSpec& y) {
    return x.kind == y.kind && x.x == y.x && x.y == y.y && x.file == y.file && x.title == y.title &&
           x.law == y.law && (x.kind != "hist" || x.bins == y.bins);
  };
  if (a.plots.size() != b.plots.size()) return false;
  for (std::size_t i = 0; i < a.plots.size(); ++i)
    if (!same_plot(a.plots[i], b.plots[i])) return false;
  return a.name == b.name && a.description == b.description && a.scenario == b.scenario && a.laws == b.laws &&
         a.backend == b.backend && a.precision == b.precision && a.integrator == b.integrator && a.steps == b.steps &&
         a.chunk == b.chunk && a.design.kind == b.design.kind && a.design.n == b.design.n &&
         a.design.seed == b.design.seed && a.design.skip_first == b.design.skip_first && a.design.file == b.design.file &&
         a.params == b.params && a.out_dir == b.out_dir && a.formats == b.formats && a.columns == b.columns &&
         a.csv_max_rows == b.csv_max_rows &&
         a.sens_outputs == b.sens_outputs && a.bootstrap == b.bootstrap && a.confidence == b.confidence;
}

}  // namespace impact::study
