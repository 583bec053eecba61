#include "engine/evaluate.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include "engine/columns.hpp"
#include "engine/table.hpp"
#include "impact/derived.hpp"

namespace impact::engine {

template <class T>
void summarise_rows(TableStats& s, const InputColumns<T>& cols, const OutputColumns<T>& res, std::size_t m) {
  for (std::size_t i = 0; i < m; ++i) {
    const Status st = res.status_of(i);
    ++s.rows;
    ++s.status_count[static_cast<int>(st)];
    if (st != Status::ok) continue;
    T v[kNumInputs];
    for (int k = 0; k < kNumInputs; ++k) v[k] = cols.col[k][i];
    double x[kNumQuantities];
    summary_quantities(from_columns(v), res.row(i), x);
    s.Pn.add(x[kPn]);
    s.Pt.add(x[kPt]);
    s.vfn.add(x[kVfn]);
    if (std::isfinite(x[kEnergyRatio])) s.dE_rel.add(x[kEnergyRatio]);
    ++s.modes[modes_string(res.modes[i])];
  }
}

template void summarise_rows<double>(TableStats&, const InputColumns<double>&, const OutputColumns<double>&, std::size_t);
template void summarise_rows<float>(TableStats&, const InputColumns<float>&, const OutputColumns<float>&, std::size_t);

template <class T>
TableStats evaluate_rows(io::CsvReader& reader, io::OutFile& out, const InputLayout& lay, const LawInfo& law,
                         BatchFn<T> fn, const LawOptions& opt, std::size_t chunk) {
  using Clock = std::chrono::steady_clock;
  std::vector<io::CsvField> fields;
  std::string buf;
  InputColumns<T> cols;
  OutputColumns<T> res;
  cols.resize(chunk);
  res.resize(chunk);
  std::vector<std::string> raw(chunk);
  TableStats stats;
  bool eof = false;
  while (!eof) {
    std::size_t m = 0;
    for (; m < chunk; ++m) {
      if (!read_row(reader, fields, lay, cols, m)) {
        eof = true;
        break;
      }
      raw[m] = reader.raw();
    }
    if (m == 0) break;
    const auto t0 = Clock::now();
    fn(cols.view(lay.needed, 0, m), res.view(), opt);
    stats.law_seconds += std::chrono::duration<double>(Clock::now() - t0).count();
    for (std::size_t i = 0; i < m; ++i) {
      buf += raw[i];
      append_results(buf, law, res, i);
      buf += '\n';
    }
    summarise_rows(stats, cols, res, m);
    out.put(buf);
    buf.clear();
  }
  return stats;
}

std::string table_header(const InputLayout& lay) {
  std::string h = lay.header;
  for (const std::string& o : lay.out_names) h += "," + o;
  return h + '\n';
}

template <class T>
TableStats evaluate_table(io::CsvReader& reader, io::OutFile& out, const LawInfo& law, BatchFn<T> fn,
                          const LawOptions& opt, std::size_t chunk) {
  const InputLayout lay = read_header(reader, law);
  out.put(table_header(lay));  // a header-only table too
  return evaluate_rows<T>(reader, out, lay, law, fn, opt, chunk);
}

void merge_into(TableStats& into, const TableStats& s) {
  into.rows += s.rows;
  for (int k = 0; k < static_cast<int>(Status::count_); ++k) into.status_count[k] += s.status_count[k];
  for (const auto& [seq, n] : s.modes) into.modes[seq] += n;
  RangeStat* a[] = {&into.Pn, &into.Pt, &into.vfn, &into.dE_rel};
  const RangeStat* b[] = {&s.Pn, &s.Pt, &s.vfn, &s.dE_rel};
  for (int k = 0; k < 4; ++k) {
    a[k]->min = std::min(a[k]->min, b[k]->min);
    a[k]->max = std::max(a[k]->max, b[k]->max);
    a[k]->sum += b[k]->sum;
    a[k]->n += b[k]->n;
  }
  into.law_seconds = std::max(into.law_seconds, s.law_seconds);
}

std::string to_text(const TableStats& s) {
  std::string t = std::to_string(s.rows);
  char buf[128];
  for (std::size_t c : s.status_count) t += " " + std::to_string(c);
  for (const RangeStat* r : {&s.Pn, &s.Pt, &s.vfn, &s.dE_rel}) {
    std::snprintf(buf, sizeof buf, " %a %a %a %zu", r->min, r->max, r->sum, r->n);
    t += buf;
  }
  std::snprintf(buf, sizeof buf, " %a %zu", s.law_seconds, s.modes.size());
  t += buf;
  for (const auto& [seq, n] : s.modes) t += " " + seq + " " + std::to_string(n);
  return t;
}

TableStats table_stats_from_text(const std::string& text) {
  std::istringstream in(text);
  TableStats s;
  auto real = [&]() {
    std::string w;
    in >> w;
    return std::strtod(w.c_str(), nullptr);  // %a round-trips
  };
  in >> s.rows;
  for (std::size_t& c : s.status_count) in >> c;
  for (RangeStat* r : {&s.Pn, &s.Pt, &s.vfn, &s.dE_rel}) {
    r->min = real();
    r->max = real();
    r->sum = real();
    in >> r->n;
  }
  s.law_seconds = real();
  std::size_t k = 0;
  in >> k;
  for (std::size_t i = 0; i < k; ++i) {
    std::string seq;
    std::size_t n = 0;
    in >> seq >> n;
    s.modes[seq] = n;
  }
  if (!in) throw std::runtime_error("table summary: malformed text");
  return s;
}

template TableStats evaluate_rows<double>(io::CsvReader&, io::OutFile&, const InputLayout&, const LawInfo&,
                                          BatchFn<double>, const LawOptions&, std::size_t);
template TableStats evaluate_rows<float>(io::CsvReader&, io::OutFile&, const InputLayout&, const LawInfo&,
                                         BatchFn<float>, const LawOptions&, std::size_t);
template TableStats evaluate_table<double>(io::CsvReader&, io::OutFile&, const LawInfo&, BatchFn<double>,
                                           const LawOptions&, std::size_t);
template TableStats evaluate_table<float>(io::CsvReader&, io::OutFile&, const LawInfo&, BatchFn<float>,
                                          const LawOptions&, std::size_t);

}  // namespace impact::engine
