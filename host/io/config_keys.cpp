#include "io/config_keys.hpp"

namespace impact::io {

namespace {

// "design.n" -> ("design", "n"); "plots[].kind" -> ("plots[]", "kind"); "study" -> ("", "study").
void split_key(const std::string& key, std::string& table, std::string& last) {
  const std::size_t dot = key.rfind('.');
  table = dot == std::string::npos ? "" : key.substr(0, dot);
  last = dot == std::string::npos ? key : key.substr(dot + 1);
}

// A markdown table cell: its bars escaped.
std::string cell(const std::string& s) {
  std::string o;
  for (char c : s) o += c == '|' ? std::string("\\|") : std::string(1, c);
  return o;
}

}  // namespace

std::set<std::string> keys_under(const std::vector<KeyDoc>& docs, const std::string& table) {
  std::set<std::string> out;
  for (const KeyDoc& d : docs) {
    std::string t, last;
    split_key(d.key, t, last);
    if (table.empty()) out.insert(d.key.substr(0, d.key.find_first_of(".[")));
    else if (t == table && last != "NAME") out.insert(last);
  }
  return out;
}

std::string keys_markdown(const std::vector<KeyDoc>& docs) {
  std::string md, current = "\x01";
  for (const KeyDoc& d : docs) {
    const std::size_t end = d.key.find_first_of(".[");
    const std::string table = end == std::string::npos ? "" : d.key.substr(0, end);
    if (table != current) {
      current = table;
      const bool array = d.key.compare(table.size(), 2, "[]") == 0;
      md += "\n### `" + std::string(array ? "[[" : "[") + table + (array ? "]]" : "]") +
            "`\n\n| key | type | default | unit | meaning |\n| --- | --- | --- | --- | --- |\n";
    }
    md += "| `" + d.key + "` | " + cell(d.type) + " | " + (d.dflt.empty() ? "" : "`" + cell(d.dflt) + "`") + " | " +
          cell(d.unit) + " | " + cell(d.meaning) + " |\n";
  }
  return md;
}

}  // namespace impact::io
