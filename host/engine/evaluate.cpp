#include "engine/evaluate.hpp"

#include <chrono>

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
TableStats evaluate_table(io::CsvReader& reader, io::OutFile& out, const LawInfo& law, BatchFn<T> fn,
                          const LawOptions& opt, std::size_t chunk) {
  using Clock = std::chrono::steady_clock;
  std::vector<io::CsvField> fields;
  const InputLayout lay = read_header(reader, law);
  std::string buf = lay.header;
  for (const std::string& o : lay.out_names) buf += "," + o;
  buf += '\n';

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
  out.put(buf);  // a header-only table
  return stats;
}

template TableStats evaluate_table<double>(io::CsvReader&, io::OutFile&, const LawInfo&, BatchFn<double>,
                                           const LawOptions&, std::size_t);
template TableStats evaluate_table<float>(io::CsvReader&, io::OutFile&, const LawInfo&, BatchFn<float>,
                                          const LawOptions&, std::size_t);

}  // namespace impact::engine
