#include "engine/table.hpp"

#include <unordered_map>

namespace impact::engine {

using io::CsvField;
using io::CsvReader;
using io::InputError;
using io::located;

namespace {

std::unordered_map<std::string, std::size_t> header_index(CsvReader& reader, std::vector<CsvField>& fields) {
  std::unordered_map<std::string, std::size_t> index;
  for (std::size_t c = 0; c < fields.size(); ++c) {
    std::string name(fields[c].text);
    while (!name.empty() && (name.back() == ' ' || name.back() == '\t')) name.pop_back();
    while (!name.empty() && (name.front() == ' ' || name.front() == '\t')) name.erase(0, 1);
    if (name.empty()) throw InputError(located(reader.path(), reader.line_no(), fields[c].col, "empty column name in header"));
    if (!index.emplace(name, c).second)
      throw InputError(located(reader.path(), reader.line_no(), fields[c].col, "duplicate column '" + name + "'"));
  }
  return index;
}

std::string join_missing(const std::vector<std::string>& names, const std::unordered_map<std::string, std::size_t>& index) {
  std::string missing;
  for (const std::string& n : names)
    if (!index.count(n)) missing += (missing.empty() ? "" : ", ") + n;
  return missing;
}

}  // namespace

InputLayout read_header(CsvReader& reader, const LawInfo& law, bool with_outputs) {
  std::vector<CsvField> fields;
  if (!reader.next(fields)) throw InputError(reader.path() + ": empty file: expected a header row");
  InputLayout lay;
  lay.ncols = fields.size();
  const std::unordered_map<std::string, std::size_t> index = header_index(reader, fields);
  lay.header = reader.raw();
  lay.header_line = reader.line_no();
  std::vector<std::string> needed_names;
  for (int k = 0; k < kNumInputs; ++k) {
    lay.needed[k] = law.reads(k);
    lay.col_of[k] = 0;
    if (!lay.needed[k]) continue;
    needed_names.emplace_back(kInputNames[k]);
    const auto it = index.find(kInputNames[k]);
    if (it != index.end()) lay.col_of[k] = it->second;
  }
  const std::string missing = join_missing(needed_names, index);
  if (!missing.empty())
    throw InputError(
        located(reader.path(), lay.header_line, 0, "missing column(s) " + missing + " required by law '" + law.name + "'"));
  lay.out_names = output_names(law);
  if (with_outputs) {
    const std::string absent = join_missing(lay.out_names, index);
    if (!absent.empty())
      throw InputError(located(
          reader.path(), lay.header_line, 0,
          "missing result column(s) " + absent + " of law '" + law.name + "' (expected a table written by `impact eval`)"));
    for (const std::string& o : lay.out_names) lay.out_col.push_back(index.at(o));
    return lay;
  }
  for (const std::string& o : lay.out_names)
    if (index.count(o))
      throw InputError(located(reader.path(), lay.header_line, fields[index.at(o)].col,
                               "input column '" + o + "' collides with an output column of law '" + law.name + "'; rename it"));
  return lay;
}

InputLayout all_inputs_layout() {
  InputLayout lay;
  for (int k = 0; k < kNumInputs; ++k) lay.needed[k] = true, lay.col_of[k] = static_cast<std::size_t>(k);
  return lay;
}

template <class T>
void parse_row(const std::vector<CsvField>& fields, std::string_view raw, const std::string& path, long line_no,
               const InputLayout& lay, InputColumns<T>& dst, std::size_t m) {
  if (fields.size() != lay.ncols) {
    // the column where the row departs from the header: the first extra field, or the end of the line
    const long col = fields.size() > lay.ncols ? fields[lay.ncols].col : static_cast<long>(raw.size()) + 1;
    const bool commas = fields.size() > lay.ncols && raw.find('.') == std::string_view::npos;
    throw InputError(located(path, line_no, col,
                             "expected " + std::to_string(lay.ncols) + " fields as in the header, found " +
                                 std::to_string(fields.size()) +
                                 (commas ? " (decimal commas? numbers must use '.' and fields ',')" : "")));
  }
  for (int k = 0; k < kNumInputs; ++k) {
    if (!lay.needed[k]) continue;
    dst.col[k][m] = static_cast<T>(io::parse_number(fields[lay.col_of[k]], path, line_no, kInputNames[k]));
  }
}

template <class T>
bool read_row(CsvReader& reader, std::vector<CsvField>& fields, const InputLayout& lay, InputColumns<T>& dst, std::size_t m) {
  if (!reader.next(fields)) return false;
  parse_row(fields, reader.raw(), reader.path(), reader.line_no(), lay, dst, m);
  return true;
}

void read_results(const std::vector<CsvField>& fields, const CsvReader& r, const InputLayout& lay, const LawInfo& law,
                  OutputColumns<double>& g, std::size_t j) {
  const CsvField& sf = fields[lay.out_col[kNumCommonOutputs - 1]];
  Status st;
  if (!parse_status(sf.text, st))
    throw InputError(located(r.path(), r.line_no(), sf.col, "unknown status '" + std::string(sf.text) + "'"));
  g.status[j] = static_cast<std::uint8_t>(st);
  const bool ok = st == Status::ok;
  auto num = [&](std::size_t k) { return ok ? io::parse_number(fields[lay.out_col[k]], r, lay.out_names[k]) : 0.0; };
  for (auto& c : g.real) c[j] = 0.0;
  for (int k = 0; k < out_In_c; ++k) g.real[k][j] = num(static_cast<std::size_t>(k));  // P, vf, dE
  g.modes[j] = 0;
  g.steps[j] = 0;
  for (std::size_t x = 0; x < law.extras.size(); ++x) {
    const std::size_t k = kNumCommonOutputs + x;
    const CsvField& f = fields[lay.out_col[k]];
    const Extra what = law.extras[x].what;
    if (what == Extra::Steps) continue;
    if (what != Extra::Modes) {
      g.real[real_column_of(what)][j] = num(k);
      continue;
    }
    std::string bad;
    if (ok && !parse_modes(f.text, g.modes[j], bad))
      throw InputError(located(r.path(), r.line_no(), f.col, "unknown contact mode '" + bad + "'"));
  }
}

template <class T>
void append_results(std::string& buf, const LawInfo& law, const OutputColumns<T>& res, std::size_t i) {
  const Status st = res.status_of(i);
  const bool ok = st == Status::ok;
  auto num = [&](T v) {
    buf += ',';
    if (ok) io::append_number(buf, v);
  };
  for (int k = 0; k < out_In_c; ++k) num(res.real[k][i]);  // P, vf, dE
  buf += ',';
  buf += status_name(st);
  for (const ExtraColumn& x : law.extras) {
    if (x.what == Extra::Modes) {
      buf += ',';
      if (ok) buf += modes_string(res.modes[i]);
    } else if (x.what == Extra::Steps) {
      buf += ',';
      if (ok) buf += std::to_string(res.steps[i]);
    } else {
      num(res.real[real_column_of(x.what)][i]);
    }
  }
}

std::vector<std::string> output_names(const LawInfo& law) {
  std::vector<std::string> names(std::begin(kCommonOutputNames), std::end(kCommonOutputNames));
  for (const ExtraColumn& x : law.extras) names.emplace_back(x.name);
  return names;
}

std::string modes_string(std::uint32_t bits) {
  const ModeSeq m{bits};
  const int k = m.size();
  if (k == 0) return "none";
  std::string s;
  for (int i = 0; i < k; ++i) {
    if (i) s += '>';
    s += mode_name(m.at(i));
  }
  return s;
}

bool parse_modes(std::string_view t, std::uint32_t& bits, std::string& bad_word) {
  ModeSeq m = ModeSeq::empty();
  bits = m.bits;
  if (t.empty() || t == "none") return true;
  std::size_t a = 0;
  while (a <= t.size()) {
    std::size_t b = t.find('>', a);
    if (b == std::string_view::npos) b = t.size();
    const std::string_view w = t.substr(a, b - a);
    Mode md = Mode::none;
    for (Mode c : {Mode::slip, Mode::stick, Mode::reverse})
      if (w == mode_name(c)) md = c;
    if (md == Mode::none) {
      bad_word = std::string(w);
      return false;
    }
    // the k-th word is the k-th mode, as modes_string() wrote it; not ModeSeq::push, which drops a
    // repeat of the last mode (the 8th mode of a full sequence may repeat the 7th). Past 8 words: as
    // push, the first 7 and the latest.
    const int k = m.size() < 8 ? m.size() : 7;
    m.bits = (m.bits & ~(0xFu << (4 * k))) | static_cast<std::uint32_t>(md) << (4 * k);
    a = b + 1;
  }
  bits = m.bits;
  return true;
}

bool parse_status(std::string_view t, Status& s) {
  for (int k = 0; k < static_cast<int>(Status::count_); ++k)
    if (t == status_name(static_cast<Status>(k))) {
      s = static_cast<Status>(k);
      return true;
    }
  return false;
}

template void parse_row<double>(const std::vector<CsvField>&, std::string_view, const std::string&, long, const InputLayout&,
                                InputColumns<double>&, std::size_t);
template void parse_row<float>(const std::vector<CsvField>&, std::string_view, const std::string&, long, const InputLayout&,
                               InputColumns<float>&, std::size_t);
template bool read_row<double>(CsvReader&, std::vector<CsvField>&, const InputLayout&, InputColumns<double>&, std::size_t);
template bool read_row<float>(CsvReader&, std::vector<CsvField>&, const InputLayout&, InputColumns<float>&, std::size_t);
template void append_results<double>(std::string&, const LawInfo&, const OutputColumns<double>&, std::size_t);
template void append_results<float>(std::string&, const LawInfo&, const OutputColumns<float>&, std::size_t);

}  // namespace impact::engine
