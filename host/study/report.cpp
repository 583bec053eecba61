#include "study/report.hpp"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "io/csv.hpp"
#include "io/machine.hpp"
#include "io/out_file.hpp"
#include "io/python.hpp"
#include "io/version.hpp"
#include "design/salib_problem.hpp"
#include "design/sensitivity.hpp"

namespace impact::study {

using json = nlohmann::ordered_json;

namespace {

std::string fmt(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.6g", v);
  return b;
}

bool contains(const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); }

const char* kind_name(ColKind k) {
  return k == ColKind::real ? "real" : k == ColKind::integer ? "integer" : k == ColKind::modes ? "modes" : "status";
}

// ---- Sobol indices --------------------------------------------------------------------------------

struct Sensitivity {
  json entries = json::array();  // metadata's "sensitivity"
  std::string csv = "law,output,parameter,S1,S1_conf,ST,ST_conf,base_rows_used\n";
  std::string table = "\n| law | output | parameter | S1 | ± | ST | ± |\n|---|---|---|---:|---:|---:|---:|\n";
  // second order (design.second_order): sensitivity2.csv and its table
  std::string csv2 = "law,output,parameter_i,parameter_j,S2,S2_conf,base_rows_used\n";
  std::string table2 = "\n| law | output | parameters | S2 | ± |\n|---|---|---|---:|---:|\n";
};

// The Sobol indices of output `o` of one law (y: its every row) into s; a warning on `log` where they
// cannot be computed or are undefined.
void add_sobol(Sensitivity& s, const StudyConfig& c, const design::Design& design, const std::string& law, const std::string& o,
               const std::vector<double>& y, std::FILE* log) {
  const std::size_t nvar = design.names().size();
  design::SobolIndices si;
  try {
    si = design::sobol_indices(y, nvar, c.bootstrap, c.confidence, c.design.seed, c.design.second_order);
  } catch (const std::invalid_argument& e) {
    std::fprintf(log, "impact study: warning: no Sobol indices for %s %s: %s\n", law.c_str(), o.c_str(), e.what());
    return;
  }
  if (!std::isfinite(si.S1.empty() ? 0.0 : si.S1[0]))
    std::fprintf(log, "impact study: warning: %s %s does not vary over the design: its Sobol indices are undefined (nan)\n",
                 law.c_str(), o.c_str());
  json params = json::object();
  for (std::size_t j = 0; j < nvar; ++j) {
    const std::string& pn = design.names()[j];
    params[pn] = {{"S1", si.S1[j]}, {"S1_conf", si.S1_conf[j]}, {"ST", si.ST[j]}, {"ST_conf", si.ST_conf[j]}};
    s.csv += law + "," + o + "," + pn;
    for (double v : {si.S1[j], si.S1_conf[j], si.ST[j], si.ST_conf[j]}) {
      s.csv += ',';
      io::append_number(s.csv, v);
    }
    s.csv += "," + std::to_string(si.used) + "\n";
    s.table += "| " + law + " | " + o + " | " + pn + " | " + fmt(si.S1[j]) + " | " + fmt(si.S1_conf[j]) + " | " + fmt(si.ST[j]) +
               " | " + fmt(si.ST_conf[j]) + " |\n";
  }
  json entry = {{"law", law}, {"output", o}, {"base_rows_used", si.used}, {"indices", params}};
  if (c.design.second_order) {
    json pairs = json::array();
    for (std::size_t i = 0; i < nvar; ++i)
      for (std::size_t j = i + 1; j < nvar; ++j) {
        const std::string &pi = design.names()[i], &pj = design.names()[j];
        const double v = si.S2[i * nvar + j], h = si.S2_conf[i * nvar + j];
        pairs.push_back({{"i", pi}, {"j", pj}, {"S2", v}, {"S2_conf", h}});
        s.csv2 += law + "," + o + "," + pi + "," + pj + ",";
        io::append_number(s.csv2, v);
        s.csv2 += ',';
        io::append_number(s.csv2, h);
        s.csv2 += "," + std::to_string(si.used) + "\n";
        s.table2 += "| " + law + " | " + o + " | " + pi + " x " + pj + " | " + fmt(v) + " | " + fmt(h) + " |\n";
      }
    entry["second_order"] = pairs;
  }
  s.entries.push_back(entry);
}

// Every law's sensitivity outputs (those it has).
Sensitivity sensitivity(const StudyConfig& c, const design::Design& design, const RunResult& run, std::FILE* log) {
  Sensitivity s;
  for (std::size_t l = 0; l < run.laws.size(); ++l)
    for (const std::string& o : c.sens_outputs) {
      const std::size_t k = std::find(run.kept.begin(), run.kept.end(), o) - run.kept.begin();
      if (run.laws[l].kept_pos[k] < 0) continue;
      add_sobol(s, c, design, run.laws[l].law->name, o, run.stats[l].keep[k], log);
    }
  return s;
}

// ---- statistics -----------------------------------------------------------------------------------

struct Statistics {
  std::string table = "| law | column | ok rows | mean | sd | min | max |\n|---|---|---:|---:|---:|---:|---:|\n";
  json summary = json::object();  // metadata's "summary"
};

json moments_json(const Moments& mo) {
  if (mo.n > 0) return {{"n", mo.n}, {"mean", mo.mean}, {"sd", std::sqrt(mo.variance())}, {"min", mo.min}, {"max", mo.max}};
  // no ok row: no statistics (null), not zeros
  return {{"n", 0}, {"mean", nullptr}, {"sd", nullptr}, {"min", nullptr}, {"max", nullptr}};
}

std::string table_row(const std::string& law, const std::string& col, const Moments& mo) {
  return "| " + law + " | " + col + " | " + std::to_string(static_cast<std::uint64_t>(mo.n)) + " | " +
         (mo.n > 0 ? fmt(mo.mean) + " | " + fmt(std::sqrt(mo.variance())) + " | " + fmt(mo.min) + " | " + fmt(mo.max)
                   : std::string("- | - | - | -")) +
         " |\n";
}

json status_json(const LawStats& st) {
  json j = json::object();
  for (int k = 0; k < static_cast<int>(Status::count_); ++k)
    if (st.status_count[k]) j[status_name(static_cast<Status>(k))] = st.status_count[k];
  return j;
}

double rate(std::size_t rows, double seconds) { return seconds > 0 ? double(rows) / seconds : 0.0; }

// Per law: the moments of every numeric column (metadata) and a table row per kept column.
Statistics statistics(const RunResult& run, std::size_t rows) {
  Statistics s;
  for (std::size_t l = 0; l < run.laws.size(); ++l) {
    const LawColumns& lc = run.laws[l];
    const LawStats& st = run.stats[l];
    json cols = json::object();
    for (std::size_t k = 0; k < lc.cols.size(); ++k) {
      const StudyColumn& col = lc.cols[k];
      if (col.kind != ColKind::real && col.kind != ColKind::integer) continue;
      cols[col.name] = moments_json(st.moments[k]);
      if (contains(run.kept, col.name)) s.table += table_row(lc.law->name, col.name, st.moments[k]);
    }
    s.summary[lc.law->name] = {
        {"status", status_json(st)}, {"law_seconds", st.seconds}, {"instances_per_s", rate(rows, st.seconds)}, {"columns", cols}};
  }
  return s;
}

std::string status_lines(const RunResult& run) {
  std::string s;
  for (std::size_t l = 0; l < run.laws.size(); ++l) {
    s += "  " + run.laws[l].law->name + ":";
    const LawStats& st = run.stats[l];
    for (int k = 0; k < static_cast<int>(Status::count_); ++k)
      if (st.status_count[k])
        s += " " + std::string(status_name(static_cast<Status>(k))) + " " + std::to_string(st.status_count[k]);
    s += "\n";
  }
  return s;
}

// ---- metadata.json and summary.md -----------------------------------------------------------------

// Per law: every column of its table (sample_id, the scenario's parameters, its outputs): its kind,
// unit, plot symbol and meaning.
json columns_json(const systems::ScenarioInfo& sc, const RunResult& run) {
  json meta = json::object();
  for (const LawColumns& lc : run.laws) {
    json l = json::array();
    const auto entry = [](const engine::ColumnInfo& c, const char* kind) {
      return json{{"name", c.name}, {"kind", kind}, {"unit", c.unit}, {"symbol", c.symbol}, {"meaning", c.meaning}};
    };
    l.push_back(entry(*engine::contact_column("sample_id"), "integer"));
    for (const systems::ScenarioParam& p : sc.params) l.push_back(entry(systems::column_info(p), "input"));
    for (const StudyColumn& col : lc.cols) l.push_back(entry(column_info(col, *lc.law, sc), kind_name(col.kind)));
    meta[lc.law->name] = l;
  }
  return meta;
}

json metadata(const StudyConfig& c, const systems::ScenarioInfo& sc, const design::Design& design, const RunResult& run,
              const ReportOptions& opt, const Statistics& stats, const Sensitivity& sens, const std::vector<std::string>& files) {
  const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - opt.start).count();
  json meta = io::provenance_json();
  meta["backend"] = engine::backend_name(opt.backend);
  if (!opt.backend_why.empty()) meta["backend_choice"] = opt.backend_why.substr(2, opt.backend_why.size() - 3);
  meta["precision"] = engine::precision_name(opt.precision);
  meta["steps"] = c.steps;
  meta["integrator"] = engine::integrator_name(c.integrator);
  meta["seed"] = c.design.seed;
  meta["scenario"] = c.scenario;
  meta["laws"] = c.laws;
  meta["rows"] = design.rows();
  meta["varied"] = design.names();
  meta["columns"] = columns_json(sc, run);
  json status_codes = json::array();
  for (int k = 0; k < static_cast<int>(Status::count_); ++k) status_codes.push_back(status_name(static_cast<Status>(k)));
  meta["status_codes"] = status_codes;
  meta["kept_columns"] = run.kept;
  double laws_s = 0;
  for (const LawStats& st : run.stats) laws_s += st.seconds;
  // by phase: building the samples, the laws, writing the rows' outputs, and the rest (statistics,
  // sensitivity, report; plots are drawn after metadata.json is written). Overlapped (cuda, serial
  // backends): the laws run beside building and writing, so the phases add up to more than the
  // wall time and other_s is the wall time less the host phases and the laws' time not hidden.
  const double hidden = run.overlapped ? std::min(laws_s, run.build_seconds + run.write_seconds) : 0.0;
  meta["timings"] = {{"total_s", total},
                     {"build_s", run.build_seconds},
                     {"laws_s", laws_s},
                     {"write_s", run.write_seconds},
                     {"overlapped", run.overlapped},
                     {"other_s", std::max(0.0, total - run.build_seconds - laws_s - run.write_seconds + hidden)}};
  if (!run.notes.empty()) meta["notes"] = run.notes;
  meta["summary"] = stats.summary;
  if (!sens.entries.empty()) meta["sensitivity"] = sens.entries;
  meta["files"] = files;
  meta["config"] = to_json(c);
  return meta;
}

std::string summary_md(const StudyConfig& c, const design::Design& design, const ReportOptions& opt, const StudyReport& rep) {
  return "# " + c.name + "\n\n" + (c.description.empty() ? "" : c.description + "\n\n") + "scenario " + c.scenario + ", " +
         std::to_string(design.rows()) + " samples (" + design_kind_name(c.design.kind) + "), backend " +
         engine::backend_name(opt.backend) + ", " + engine::precision_name(opt.precision) + "\n\n" + rep.table + rep.sens_table;
}

// ---- plots ----------------------------------------------------------------------------------------

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char ch : s) {
    if (ch == '\'') q += "'\\''";
    else q += ch;
  }
  return q + "'";
}

}  // namespace

std::string run_plot_script(const std::string& script, const std::string& dir, const std::vector<std::string>& pngs, bool quiet,
                            std::FILE* log, const char* program, const std::vector<std::string>& names) {
  const io::PlotScriptFound found = io::find_plot_script(script);
  if (found.path.empty()) {
    std::fprintf(log,
                 "%s: warning: the plots were not drawn: no %s in %s (`cmake --install` puts it in "
                 "PREFIX/share/impactbatch/plot beside PREFIX/bin/impact; or set IMPACT_PLOT_DIR); the tables are written\n",
                 program, script.c_str(), found.tried.c_str());
    return "plots: not drawn (see the warning above)";
  }
  const io::PythonFound py = io::find_python({"numpy", "matplotlib"});
  if (py.path.empty()) {
    std::fprintf(log,
                 "%s: warning: the plots were not drawn: no Python imports numpy and matplotlib (tried: %s; "
                 "set IMPACT_PYTHON, or run scripts/bootstrap.sh); the tables are written\n",
                 program, py.tried.c_str());
    return "plots: not drawn (see the warning above)";
  }
  std::string cmd = shell_quote(py.path) + " " + shell_quote(found.path) + " " + shell_quote(dir);
  for (const std::string& n : names) cmd += " " + shell_quote(n);
  const int rc = std::system((cmd + (quiet ? " >/dev/null" : " >&2")).c_str());
  if (rc != 0) {
    std::fprintf(log, "%s: warning: the plots were not drawn (exit %d of: %s); the tables are written\n", program, rc,
                 cmd.c_str());
    return "plots: not drawn (see the warning above)";
  }
  std::string note = "plots: ";
  for (std::size_t i = 0; i < pngs.size(); ++i) note += (i ? ", " : "") + dir + "/" + pngs[i];
  return note;
}

std::string draw_plots(const std::string& dir, const std::vector<std::string>& pngs, bool quiet, std::FILE* log) {
  return run_plot_script("plot_study.py", dir, pngs, quiet, log, "impact study", pngs);
}

StudyReport write_report(const StudyConfig& c, const systems::ScenarioInfo& sc, const design::Design& design,
                         const RunResult& run, const ReportOptions& opt, std::FILE* log) {
  const std::string& dir = c.out_dir;
  StudyReport rep;
  rep.files = run.files;
  Sensitivity sens;
  if (!c.sens_outputs.empty()) {
    io::OutFile f(dir + "/sensitivity.csv");
    sens = sensitivity(c, design, run, log);
    f.put(sens.csv);
    f.commit();
    rep.files.emplace_back("sensitivity.csv");
    rep.sens_table = sens.table;
    if (c.design.second_order) {
      io::write_file(dir + "/sensitivity2.csv", sens.csv2);
      rep.files.emplace_back("sensitivity2.csv");
      rep.sens_table += sens.table2;
    }
  }
  // the varied parameters as a SALib problem: SALib's samplers and analyses read the study's design
  if (writes_salib_problem(c)) {
    const json problem = design::salib_problem(c.params);
    io::make_dirs(dir + "/salib", "output.dir");
    io::write_file(dir + "/salib/problem.json", problem.dump(2) + "\n");
    rep.files.emplace_back("salib/problem.json");
  }
  const Statistics stats = statistics(run, design.rows());
  rep.table = stats.table;
  rep.status_lines = status_lines(run);
  // metadata.json last: its presence says the folder holds a complete run (StudyFiles removes an
  // earlier one first)
  const std::string meta = metadata(c, sc, design, run, opt, stats, sens, rep.files).dump(2) + "\n";
  io::write_file(dir + "/summary.md", summary_md(c, design, opt, rep));
  io::write_file(dir + "/metadata.json", meta);
  std::vector<std::string> pngs;
  for (const PlotSpec& p : c.plots) pngs.push_back(p.file);
  if (!pngs.empty() && opt.plots) rep.plot_note = draw_plots(c.out_dir, pngs, opt.quiet, log);
  else if (!pngs.empty() && !opt.no_plots_why.empty()) rep.plot_note = "plots: not drawn: " + opt.no_plots_why;
  return rep;
}

}  // namespace impact::study
