#include "systems/scenario_table.hpp"

#include <chrono>
#include <string>
#include <vector>

#include "engine/table.hpp"

namespace impact::systems {

using io::CsvField;
using io::InputError;
using io::located;

namespace {

// The header: each column a parameter of the scenario, once. Returns each column's parameter index.
std::vector<int> parameter_columns(io::CsvReader& in, const ScenarioInfo& sc) {
  std::vector<CsvField> fields;
  if (!in.next(fields)) throw InputError(in.path() + ": empty file: expected a header row of " + sc.name + " parameters");
  std::string known;
  for (const ScenarioParam& p : sc.params) known += (known.empty() ? "" : ", ") + std::string(p.name);
  std::vector<int> index;
  for (const CsvField& f : fields) {
    std::string name(f.text);
    while (!name.empty() && (name.back() == ' ' || name.back() == '\t')) name.pop_back();
    while (!name.empty() && (name.front() == ' ' || name.front() == '\t')) name.erase(0, 1);
    const int k = sc.index_of(name);
    if (k < 0)
      throw InputError(located(in.path(), in.line_no(), f.col,
                               "expected a parameter of scenario " + sc.name + " (" + known + "), found '" + name + "'"));
    for (int j : index)
      if (j == k) throw InputError(located(in.path(), in.line_no(), f.col, "duplicate column '" + name + "'"));
    index.push_back(k);
  }
  return index;
}

}  // namespace

template <class T>
engine::TableStats evaluate_scenario_table(io::CsvReader& in, io::OutFile& out, const ScenarioInfo& sc,
                                           const engine::LawInfo& law, const engine::BatchCall<T>& fn, const LawOptions& opt,
                                           std::size_t chunk) {
  const std::vector<int> col_param = parameter_columns(in, sc);
  const std::size_t ncols = col_param.size(), np = sc.params.size(), nb = sc.body_outputs.size();
  std::string buf = in.raw();
  for (const std::string& o : engine::output_names(law)) buf += "," + o;
  for (const engine::ColumnInfo& b : sc.body_outputs) buf += "," + b.name;
  buf += '\n';

  std::vector<double> base(np);
  for (std::size_t k = 0; k < np; ++k) base[k] = sc.params[k].value;
  engine::InputColumns<T> cols;
  engine::OutputColumns<T> res;
  cols.resize(chunk);
  res.resize(chunk);
  std::vector<double> values(chunk * np), body(nb);
  std::vector<std::uint8_t> built(chunk);
  std::vector<std::string> raw(chunk);
  std::vector<CsvField> fields;
  bool all[kNumInputs];
  for (bool& a : all) a = true;
  engine::TableStats stats;
  for (bool eof = false; !eof;) {
    std::size_t m = 0;
    for (; m < chunk; ++m) {
      if (!in.next(fields)) {
        eof = true;
        break;
      }
      if (fields.size() != ncols) {
        const long col = fields.size() > ncols ? fields[ncols].col : static_cast<long>(in.raw().size()) + 1;
        throw InputError(
            located(in.path(), in.line_no(), col,
                    "expected " + std::to_string(ncols) + " fields as in the header, found " + std::to_string(fields.size())));
      }
      double* v = &values[m * np];
      std::copy(base.begin(), base.end(), v);
      for (std::size_t c = 0; c < ncols; ++c) v[col_param[c]] = io::parse_number(fields[c], in, sc.params[col_param[c]].name);
      ContactProblem<double> p{};
      const Status s = sc.build(v, &p);
      built[m] = static_cast<std::uint8_t>(s);
      cols.set(m, s == Status::ok ? p : placeholder_instance());
      raw[m] = in.raw();
    }
    if (m == 0) break;
    const auto t0 = std::chrono::steady_clock::now();
    fn(cols.view(all, 0, m), res.view(), opt);
    stats.law_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    for (std::size_t i = 0; i < m; ++i)
      if (built[i] != 0) res.status[i] = built[i];
    for (std::size_t i = 0; i < m; ++i) {
      buf += raw[i];
      engine::append_results(buf, law, res, i);
      const bool ok = res.status_of(i) == Status::ok;
      if (ok) {
        const double P[3] = {double(res.real[out_P_x][i]), double(res.real[out_P_y][i]), double(res.real[out_P_z][i])};
        sc.body(&values[i * np], P, body.data());
      }
      for (std::size_t k = 0; k < nb; ++k) {
        buf += ',';
        if (ok) io::append_number(buf, body[k]);
      }
      buf += '\n';
    }
    engine::summarise_rows(stats, cols, res, m);
    out.put(buf);
    buf.clear();
  }
  out.put(buf);  // a header-only table
  return stats;
}

template engine::TableStats evaluate_scenario_table<double>(io::CsvReader&, io::OutFile&, const ScenarioInfo&,
                                                            const engine::LawInfo&, const engine::BatchCall<double>&,
                                                            const LawOptions&, std::size_t);
template engine::TableStats evaluate_scenario_table<float>(io::CsvReader&, io::OutFile&, const ScenarioInfo&,
                                                           const engine::LawInfo&, const engine::BatchCall<float>&,
                                                           const LawOptions&, std::size_t);

}  // namespace impact::systems
