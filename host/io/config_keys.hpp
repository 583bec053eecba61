// The documented keys of a config file: for every key its type, default, unit and meaning, in the
// table of the command that reads it (study/config_keys.cpp, calibrate/config_keys.cpp). A
// resolver accepts exactly the keys its table lists (keys_under feeds ConfigReader::expect_keys),
// so a key cannot be read without its entry; `impact keys` prints the tables as docs/reference.md.
#pragma once
#include <set>
#include <string>
#include <vector>

namespace impact::io {

struct KeyDoc {
  std::string key;      // dotted: "design.n"; an array of tables as "plots[].kind"; "params.NAME" a pattern
  std::string type;     // "integer", "number", "string", "boolean", "array of strings", "table", ...
  std::string dflt;     // the default as a config would spell it ("" : required or none)
  std::string unit;     // SI unit of a number ("" none)
  std::string meaning;  // one line or two
};

// The keys directly under `table` ("" the root; "design"; "plots[]"): the last part of each key
// below it, and the first part of each key of the root. A pattern (NAME) is left out: its table's
// keys are the caller's (a scenario's parameters).
std::set<std::string> keys_under(const std::vector<KeyDoc>& docs, const std::string& table);

// The table as markdown: a heading per table, then key | type | default | unit | meaning.
std::string keys_markdown(const std::vector<KeyDoc>& docs);

}  // namespace impact::io
