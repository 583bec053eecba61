// A configuration file as a tree: TOML (toml++) or JSON (nlohmann/json) read into one JSON tree
// that remembers where each key came from, so that every error can start with the location and the
// key:
//   "study.toml:12:7: design.n: expected a positive integer, got -3"
// (JSON files too: every key's line and column are recorded; a syntax error, a number out of range,
// a duplicate key or a nesting deeper than kMaxConfigDepth has its own). ConfigReader reads typed
// values from the tree with such errors. What the keys mean is the caller's (study/config.hpp).
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/folder_names.hpp"

namespace impact::io {

struct ConfigError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Limits of a config (docs/study.md, "Errors"): its size, and its nesting (tables, arrays, dotted
// keys: refused before any parser recurses into them).
constexpr std::size_t kMaxConfigBytes = std::size_t(16) << 20;
constexpr int kMaxConfigDepth = 64;

// Config text as a JSON tree plus where each key came from ("a.b", "plots[1].x" -> line, column).
// NOLINTNEXTLINE(bugprone-exception-escape): its default constructor's nlohmann::ordered_json(), NOLINT in the library too
struct ConfigTree {
  nlohmann::ordered_json root;
  std::map<std::string, std::pair<long, long>> where;
  std::string file;
  // "FILE:LINE:COL: " for a key (or "FILE: " when its location is unknown, "--set: " for a key
  // set on the command line).
  std::string at(const std::string& key) const;
  // A path given at `key`: when it is relative and the key came from the file (not --set, not
  // text), the same path from the file's folder (made absolute); else as given.
  std::string path_beside(const std::string& key, const std::string& path) const;
};

// Reads a .toml or .json file (by extension; other extensions: by content), at most
// kMaxConfigBytes. Syntax errors, numbers out of range, duplicate keys (JSON; TOML refuses them
// itself) and nesting deeper than kMaxConfigDepth throw ConfigError with line and column.
ConfigTree load_config_file(const std::string& path);
ConfigTree parse_config_text(const std::string& text, const std::string& name, bool toml);

// Applies "KEY=VALUE" (KEY a dotted path such as design.n or params.mu; VALUE a TOML value: a
// number, true/false, "string" or bare word, [array] or { inline table }). Throws ConfigError.
void apply_override(ConfigTree& tree, const std::string& setting);

// "a table", "an integer", ... for messages.
const char* json_type_name(const nlohmann::ordered_json& v);
// A value for a message, without recursion: a table or an array by its size, a number or a literal
// as written, a string cut to 57 bytes at a character boundary.
std::string show_value(const nlohmann::ordered_json& v);
// s cut at every c ("a:b:" -> "a", "b", "").
std::vector<std::string> split(const std::string& s, char c);

// Typed reads of a tree's values; each failure is a ConfigError "LOCATION: KEY: expected ..., got ...".
struct ConfigReader {
  const ConfigTree& t;
  [[noreturn]] void fail(const std::string& key, const std::string& msg) const {
    throw ConfigError(t.at(key) + key + ": " + msg);
  }
  void expect_keys(const nlohmann::ordered_json& obj, const std::string& key, const std::set<std::string>& known) const {
    for (auto it = obj.begin(); it != obj.end(); ++it) {
      if (!known.count(it.key())) {
        std::string list;
        for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
        const std::string full = key.empty() ? it.key() : key + "." + it.key();
        throw ConfigError(t.at(full) + full + ": unknown key (known" + (key.empty() ? "" : " in " + key) + ": " + list + ")");
      }
    }
  }
  const nlohmann::ordered_json& table(const nlohmann::ordered_json& v, const std::string& key) const {
    if (!v.is_object()) fail(key, std::string("expected a table, got ") + json_type_name(v));
    return v;
  }
  std::string str(const nlohmann::ordered_json& v, const std::string& key) const {
    if (!v.is_string()) fail(key, std::string("expected a string, got ") + json_type_name(v) + " " + show_value(v));
    return v.get<std::string>();
  }
  // A folder a run writes into (output.dir): a string, neither empty nor blank (io/folder_names.hpp).
  std::string folder(const nlohmann::ordered_json& v, const std::string& key) const {
    std::string s = str(v, key);
    if (!usable_folder_name(s)) fail(key, kEmptyFolderName);
    return s;
  }
  double num(const nlohmann::ordered_json& v, const std::string& key) const {
    if (v.is_number()) return v.get<double>();
    if (v.is_string()) {  // inf / -inf / nan written as strings in JSON
      const std::string s = v.get<std::string>();
      if (s == "inf" || s == "+inf") return INFINITY;
      // NOLINTNEXTLINE(bugprone-narrowing-conversions): clang-tidy 14 takes an infinite constant for a narrowing
      if (s == "-inf") return -INFINITY;
    }
    fail(key, std::string("expected a number, got ") + json_type_name(v) + " " + show_value(v));
  }
  // A whole number in [lo, hi] (the range of the key's type and of its documented values): an
  // integer, or a number with an integral value (JSON writes 1e6). Never wraps: a value outside
  // the range fails naming the key.
  std::uint64_t integer(const nlohmann::ordered_json& v, const std::string& key, std::uint64_t lo, std::uint64_t hi) const {
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
        if (d < double(lo)) fail(key, "expected an integer >= " + std::to_string(lo) + ", got " + show_value(v));
        // hi as a double rounds up at most to the next power of two: compare strictly beyond it
        if (d > double(hi) || d >= 18446744073709551616.0) fail(key, too_large(show_value(v)));
        const std::uint64_t u = static_cast<std::uint64_t>(d);
        if (u > hi) fail(key, too_large(show_value(v)));
        return u;
      }
    }
    fail(key, std::string("expected an integer >= ") + std::to_string(lo) + ", got " + json_type_name(v) + " " + show_value(v));
  }
  bool boolean(const nlohmann::ordered_json& v, const std::string& key) const {
    if (!v.is_boolean()) fail(key, std::string("expected true or false, got ") + json_type_name(v) + " " + show_value(v));
    return v.get<bool>();
  }
  std::vector<std::string> strings(const nlohmann::ordered_json& v, const std::string& key) const {
    std::vector<std::string> out;
    if (v.is_string()) return {v.get<std::string>()};
    if (!v.is_array()) fail(key, std::string("expected a string or an array of strings, got ") + json_type_name(v));
    for (std::size_t i = 0; i < v.size(); ++i) out.push_back(str(v[i], key + "[" + std::to_string(i) + "]"));
    return out;
  }
};

}  // namespace impact::io
