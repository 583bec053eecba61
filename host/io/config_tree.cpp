// A configuration file as a tree (io/config_tree.hpp): TOML or JSON into one JSON tree with the
// location of every key, the nesting checks that run before any parser, and --set overrides.
#include "io/config_tree.hpp"

#include <climits>
#include <cstdlib>

#include <cmath>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include <toml++/toml.h>

namespace impact::io {

using json = nlohmann::ordered_json;

std::string ConfigTree::path_beside(const std::string& key, const std::string& path) const {
  const auto it = where.find(key);
  if (path.empty() || path[0] == '/' || it == where.end() || it->second.first <= 0) return path;
  const std::size_t slash = file.find_last_of('/');
  const std::string folder = slash == std::string::npos ? "." : file.substr(0, slash + 1);
  char buf[PATH_MAX];
  return realpath(folder.c_str(), buf) ? std::string(buf) + "/" + path : path;
}

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

// ---- typed access ---------------------------------------------------------------------------------

const char* json_type_name(const json& v) {
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
std::string show_value(const json& v) {
  if (v.is_object()) return "with " + std::to_string(v.size()) + " key(s)";
  if (v.is_array()) return "of " + std::to_string(v.size()) + " value(s)";
  if (v.is_number_float() && !std::isfinite(v.get<double>()))  // JSON would say null
    return std::isnan(v.get<double>()) ? "nan" : v.get<double>() > 0 ? "inf" : "-inf";
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
        skip_string(c_, ch, ch == '"', c_.starts(ch == '"' ? R"(""")" : "'''"));
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
                      R"( is beyond a double's 1.8e308 (an infinite bound is written "inf" or "-inf"))");
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
                        std::to_string(seen.first->second.first) + ", column " + std::to_string(seen.first->second.second) + ")");
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
  } catch (const toml::parse_error&) { value = text; }
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

}  // namespace impact::io
