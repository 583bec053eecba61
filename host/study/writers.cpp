#include "study/writers.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "engine/columns.hpp"
#include "io/csv.hpp"
#include "io/npy.hpp"
#include "resume/parts.hpp"

namespace impact::study {

namespace {

const char* npy_type(ColKind k) {
  switch (k) {
    case ColKind::real: return "<f8";
    case ColKind::integer: return "<i4";
    case ColKind::modes: return "<u4";
    case ColKind::status: return "|u1";
  }
  return "<f8";
}

// One CSV line (with its newline): sample_id, the parameters, the output columns. A row that is
// not ok has only its status; its other output cells are empty.
void append_csv_row(std::string& L, std::uint64_t id, const double* values, std::size_t nvalues,
                    const std::vector<StudyColumn>& cols, const double* o, Status s, bool float_text) {
  L += std::to_string(id);
  for (std::size_t k = 0; k < nvalues; ++k) {
    L += ',';
    io::append_number(L, values[k]);
  }
  for (std::size_t k = 0; k < cols.size(); ++k) {
    L += ',';
    const StudyColumn& col = cols[k];
    if (col.kind == ColKind::status) {
      L += status_name(s);
    } else if (s != Status::ok) {
      // empty cell: the row has no result
    } else if (col.kind == ColKind::modes) {
      L += engine::modes_string(static_cast<std::uint32_t>(o[k]));
    } else if (col.kind == ColKind::integer) {
      L += std::to_string(static_cast<long long>(o[k]));
    } else {
      // a float law's own outputs are floats (shortest float text); the derived and body-level
      // columns are computed in double from them, as in the .npy
      const bool law_output = col.source == ColSource::law || col.source == ColSource::extra;
      if (float_text && law_output) io::append_number(L, static_cast<float>(o[k]));
      else io::append_number(L, o[k]);
    }
  }
  L += '\n';
}

// One .npy record: sample_id, the parameters, the output columns (a row that is not ok: NaN, -1
// steps, no modes).
void append_npy_record(std::string& R, std::uint64_t id, const double* values, std::size_t nvalues,
                       const std::vector<StudyColumn>& cols, const double* o, Status s) {
  io::put_binary<std::uint64_t>(R, id);
  for (std::size_t k = 0; k < nvalues; ++k) io::put_binary<double>(R, values[k]);
  const bool ok = s == Status::ok;
  for (std::size_t k = 0; k < cols.size(); ++k) {
    switch (cols[k].kind) {
      case ColKind::real: io::put_binary<double>(R, ok ? o[k] : NAN); break;
      case ColKind::integer: io::put_binary<std::int32_t>(R, ok ? static_cast<std::int32_t>(o[k]) : -1); break;
      case ColKind::modes: io::put_binary<std::uint32_t>(R, ok ? static_cast<std::uint32_t>(o[k]) : 0u); break;
      case ColKind::status: io::put_binary<std::uint8_t>(R, static_cast<std::uint8_t>(s)); break;
    }
  }
}

// A SALib Y file's lines: one value per row, "nan" where the row has none.
std::string salib_lines(const std::vector<double>& v, std::size_t m) {
  std::string s;
  for (std::size_t i = 0; i < m; ++i) {
    if (std::isfinite(v[i])) io::append_number(s, v[i]);
    else s += "nan";
    s += '\n';
  }
  return s;
}

}  // namespace

Formats formats_of(const StudyConfig& c, std::uint64_t rows) {
  Formats f;
  f.csv = has_format(c, "csv");
  f.npy = has_format(c, "npy");
  f.salib = has_format(c, "salib");
  if (f.csv && f.npy && c.csv_max_rows > 0 && rows > c.csv_max_rows) {
    f.csv = false;
    f.note = "CSV tables not written: " + std::to_string(rows) +
             " rows > output.csv_max_rows = " + std::to_string(c.csv_max_rows) +
             " (the .npy tables hold the same rows; set output.csv_max_rows = 0 "
             "to write them anyway)";
  }
  return f;
}

StudyFiles::StudyFiles(const StudyConfig& c, const systems::ScenarioInfo& sc, const design::Design& design,
                       const std::vector<std::string>& kept, const std::vector<LawColumns>& laws, engine::Precision precision,
                       int part, std::uint64_t rows)
    : sc_(sc),
      laws_(laws),
      part_(part),
      formats_(formats_of(c, design.rows())),
      float_text_(precision == engine::Precision::f32),
      nvar_(design.names().size()),
      files_(laws.size()) {
  io::make_dirs(c.out_dir, "output.dir");
  // metadata.json, written last, marks a complete run: an earlier run's goes before anything of
  // this run is written, so that a run that fails leaves a folder without it
  if (part < 0) io::remove_if_exists(c.out_dir + "/metadata.json");
  const std::uint64_t table_rows = part < 0 ? design.rows() : rows;
  for (std::size_t l = 0; l < laws.size(); ++l) open_tables(c.out_dir, laws[l], files_[l], table_rows);
  if (!formats_.salib) return;
  open_salib(c.out_dir, kept);
  // the sample matrix of the varied parameters, whitespace separated (SALib's X)
  design_.open(path(c.out_dir, "design.txt"));
  std::string h = "#";
  for (const std::string& n : design.names()) h += " " + n;
  h += '\n';
  design_.put(h);
}

void StudyFiles::open_tables(const std::string& dir, const LawColumns& lc, LawFiles& f, std::uint64_t rows) {
  if (formats_.csv) {
    f.csv.open(path(dir, lc.law->name + ".csv"));
    std::string h = "sample_id";
    for (const systems::ScenarioParam& p : sc_.params) h += std::string(",") + p.name;
    for (const StudyColumn& col : lc.cols) h += "," + col.name;
    h += '\n';
    f.csv.put(h);
  }
  if (formats_.npy) {
    f.npy.open(path(dir, lc.law->name + ".npy"));
    std::vector<io::NpyField> fields;
    fields.emplace_back("sample_id", "<u8", npy_title(*engine::contact_column("sample_id")));
    for (const systems::ScenarioParam& p : sc_.params) fields.emplace_back(p.name, "<f8", npy_title(systems::column_info(p)));
    for (const StudyColumn& col : lc.cols)
      fields.emplace_back(col.name, npy_type(col.kind), npy_title(column_info(col, *lc.law, sc_)));
    io::write_npy_header(f.npy, fields, rows);
  }
}

void StudyFiles::open_salib(const std::string& dir, const std::vector<std::string>& kept) {
  io::make_dirs(dir + "/salib", "output.dir");
  for (std::size_t l = 0; l < laws_.size(); ++l) {
    files_[l].salib.resize(kept.size());
    for (std::size_t k = 0; k < kept.size(); ++k) {
      if (laws_[l].kept_pos[k] < 0) continue;
      files_[l].salib[k].open(path(dir, "salib/" + laws_[l].law->name + "_" + kept[k] + ".txt"));
    }
  }
}

std::string StudyFiles::path(const std::string& dir, const std::string& name) const {
  return dir + "/" + (part_ < 0 ? name : resume::part_file_name(name, part_));
}

void StudyFiles::write_design(const double* u, std::size_t m) {
  if (!design_) return;
  text_.resize(std::max(text_.size(), m));
  // the rows' text is built in parallel, then written in row order
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t ii = 0; ii < static_cast<std::ptrdiff_t>(m); ++ii) {
    const std::size_t i = static_cast<std::size_t>(ii);
    std::string& t = text_[i];
    t.clear();
    for (std::size_t j = 0; j < nvar_; ++j) {
      if (j) t += ' ';
      io::append_number(t, u[i * nvar_ + j]);
    }
    t += '\n';
  }
  for (std::size_t i = 0; i < m; ++i) design_.put(text_[i]);
}

void StudyFiles::write_rows(std::size_t l, const ChunkRows& rows, const std::vector<std::vector<double>>& kept_values) {
  const std::vector<StudyColumn>& cols = laws_[l].cols;
  const std::size_t nvalues = sc_.params.size(), ncol = cols.size();
  LawFiles& f = files_[l];
  text_.resize(std::max(text_.size(), rows.m));
  // the rows' text is built in parallel, then written in row order
  const auto put_rows = [&](io::OutFile& file, bool csv) {
#pragma omp parallel for schedule(static)
    for (std::ptrdiff_t ii = 0; ii < static_cast<std::ptrdiff_t>(rows.m); ++ii) {
      const std::size_t i = static_cast<std::size_t>(ii);
      const Status s = static_cast<Status>(rows.status[i]);
      const std::uint64_t id = rows.first + i;
      const double *values = rows.values + i * nvalues, *o = rows.out + i * ncol;
      std::string& t = text_[i];
      t.clear();
      if (csv) append_csv_row(t, id, values, nvalues, cols, o, s, float_text_);
      else append_npy_record(t, id, values, nvalues, cols, o, s);
    }
    for (std::size_t i = 0; i < rows.m; ++i) file.put(text_[i]);
  };
  if (f.csv) put_rows(f.csv, true);
  if (f.npy) put_rows(f.npy, false);
  // the SALib files' text, one kept column per thread, then written in column order
  salib_text_.resize(std::max(salib_text_.size(), f.salib.size()));
#pragma omp parallel for schedule(dynamic)
  for (std::ptrdiff_t kk = 0; kk < static_cast<std::ptrdiff_t>(f.salib.size()); ++kk) {
    const std::size_t k = static_cast<std::size_t>(kk);
    if (f.salib[k]) salib_text_[k] = salib_lines(kept_values[k], rows.m);
  }
  for (std::size_t k = 0; k < f.salib.size(); ++k)
    if (f.salib[k]) f.salib[k].put(salib_text_[k]);
}

void StudyFiles::commit() {
  for (LawFiles& f : files_) {
    f.csv.commit();
    f.npy.commit();
    for (io::OutFile& s : f.salib) s.commit();
  }
  design_.commit();
}

std::vector<std::string> table_file_names(const StudyConfig& c, const std::vector<LawColumns>& laws,
                                          const std::vector<std::string>& kept, std::uint64_t rows) {
  const Formats f = formats_of(c, rows);
  std::vector<std::string> names;
  for (const LawColumns& lc : laws) {
    if (f.csv) names.push_back(lc.law->name + ".csv");
    if (f.npy) names.push_back(lc.law->name + ".npy");
  }
  if (f.salib) {
    names.emplace_back("design.txt");
    for (const LawColumns& lc : laws)
      for (std::size_t k = 0; k < kept.size(); ++k)
        if (lc.kept_pos[k] >= 0) names.push_back("salib/" + lc.law->name + "_" + kept[k] + ".txt");
  }
  return names;
}

}  // namespace impact::study
