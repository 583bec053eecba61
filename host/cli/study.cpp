#include "cli/study.hpp"

#include <omp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <ctime>
#include <fstream>
#include <memory>
#include <stdexcept>

#include "io/csv.hpp"
#include "engine/columns.hpp"
#include "engine/registry.hpp"
#include "io/progress.hpp"
#include "study/scenarios.hpp"
#include "study/sensitivity.hpp"
#include "study/columns.hpp"
#include "study/config.hpp"
#include "io/version.hpp"
#include "impact/derived.hpp"
#include "reference/reference.hpp"

namespace impact::cli {

using namespace impact::io;
using namespace impact::engine;
using namespace impact::study;

using json = nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;

CLI::App* add_study_subcommand(CLI::App& app, StudyArgs& a) {
  CLI::App* c = app.add_subcommand(
      "study", "Run a parameter-space study or UQ described by a TOML/JSON config (docs/study.md)");
  c->add_option("config", a.config, "Study config (.toml or .json)")->required();
  c->add_option("--set", a.sets, "KEY=VALUE override of a config key, e.g. design.n=1000, params.mu=uniform:0.1:0.9 (repeatable)");
  c->add_option("--out", a.out, "Output folder (overrides output.dir)");
  c->add_option("--backend", a.backend, "auto|cuda|omp|serial|reference (overrides run.backend)");
  c->add_flag("--no-plots", a.no_plots, "Do not draw the plots");
  c->add_flag("--quiet,-q", a.quiet, "No progress bar and no tables");
  c->add_flag("--dry-run", a.dry_run, "Check the config, print it in canonical JSON form and stop");
  return c;
}

namespace {

void make_dirs(const std::string& path) {
  std::string cur;
  for (std::size_t i = 0; i <= path.size(); ++i) {
    if (i == path.size() || path[i] == '/') {
      if (!cur.empty() && cur != "." && cur != "..") {
        if (mkdir(cur.c_str(), 0777) != 0 && errno != EEXIST)
          throw std::runtime_error("output.dir: " + cur + ": cannot create the folder: " + std::strerror(errno));
      }
    }
    if (i < path.size()) cur += path[i];
  }
}

// An output file whose every write and whose close are checked: a full disk or a lost buffer is
// an error (exit 2), never a silently short table.
class OutFile {
 public:
  OutFile() = default;
  explicit OutFile(const std::string& path) { open(path); }
  OutFile(OutFile&& o) noexcept : f_(o.f_), path_(std::move(o.path_)) { o.f_ = nullptr; }
  OutFile& operator=(OutFile&& o) noexcept {
    std::swap(f_, o.f_);
    std::swap(path_, o.path_);
    return *this;
  }
  OutFile(const OutFile&) = delete;
  OutFile& operator=(const OutFile&) = delete;
  ~OutFile() {
    if (f_) std::fclose(f_);  // only on an error path: close() reports failures
  }
  void open(const std::string& path) {
    path_ = path;
    f_ = std::fopen(path.c_str(), "wb");
    if (!f_) throw std::runtime_error(path + ": cannot open for writing: " + std::strerror(errno));
  }
  explicit operator bool() const { return f_ != nullptr; }
  void put(const void* data, std::size_t n) {
    if (n && std::fwrite(data, 1, n, f_) != n) fail();
  }
  void put(const std::string& s) { put(s.data(), s.size()); }
  void close() {
    if (!f_) return;
    std::FILE* f = f_;
    f_ = nullptr;
    const bool bad = std::ferror(f) != 0;
    if (std::fclose(f) != 0 || bad) throw std::runtime_error(path_ + ": write failed: " + std::strerror(errno));
  }

 private:
  [[noreturn]] void fail() { throw std::runtime_error(path_ + ": write failed: " + std::strerror(errno)); }
  std::FILE* f_ = nullptr;
  std::string path_;
};

// ---- .npy (NumPy format 1.0, one structured record per row) -----------------------------------------

const char* npy_type(ColKind k) {
  switch (k) {
    case ColKind::real: return "<f8";
    case ColKind::integer: return "<i4";
    case ColKind::modes: return "<u4";
    case ColKind::status: return "|u1";
  }
  return "<f8";
}

void write_npy_header(OutFile& f, const std::vector<std::pair<std::string, const char*>>& fields, std::uint64_t rows) {
  std::string d = "{'descr': [";
  for (std::size_t i = 0; i < fields.size(); ++i)
    d += (i ? ", " : "") + std::string("('") + fields[i].first + "', '" + fields[i].second + "')";
  d += "], 'fortran_order': False, 'shape': (" + std::to_string(rows) + ",), }";
  const std::size_t pre = 10;  // magic(6) + version(2) + header length(2)
  std::size_t total = pre + d.size() + 1;
  const std::size_t pad = (64 - total % 64) % 64;
  d.append(pad, ' ');
  d += '\n';
  const unsigned char magic[8] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
  f.put(magic, 8);
  const std::uint16_t len = static_cast<std::uint16_t>(d.size());
  const unsigned char l2[2] = {static_cast<unsigned char>(len & 0xff), static_cast<unsigned char>(len >> 8)};
  f.put(l2, 2);
  f.put(d);
}

template <class X>
void put(std::string& buf, X v) {
  char b[sizeof(X)];
  std::memcpy(b, &v, sizeof(X));
  buf.append(b, sizeof(X));
}

// ---- one law's results for a chunk, in double --------------------------------------------------------

struct LawRun {
  const LawInfo* law;
  std::vector<StudyColumn> cols;        // output columns (law_output_columns)
  OutFile csv, npy;
  double seconds = 0;                   // time in the law's batch call
  std::vector<Moments> moments;         // per output column (ok rows)
  std::uint64_t status_count[static_cast<int>(Status::count_)] = {};
  std::vector<int> kept_pos;                    // per kept column: its index in cols, or -1 (law lacks it)
  std::vector<std::vector<double>> chunk_keep;  // per kept column: the current chunk's rows
  std::vector<std::vector<double>> keep;        // per kept column: every row (sensitivity only)
  std::vector<OutFile> salib;                  // per kept column: its SALib Y file (null: absent)
};

std::string iso_now() {
  char b[64];
  const std::time_t t = std::time(nullptr);
  std::strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return b;
}

std::string hostname() {
  char b[256] = {0};
  if (gethostname(b, sizeof b - 1) != 0) return "unknown";
  return b;
}

std::string cpu_model() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("model name", 0) == 0) {
      const std::size_t p = line.find(':');
      if (p != std::string::npos) return line.substr(p + 2);
    }
  return "unknown";
}

std::string fmt(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.6g", v);
  return b;
}

std::string python_for_plots() {
  if (const char* p = std::getenv("IMPACT_PYTHON")) return p;
  if (access("/usr/bin/python3", X_OK) == 0) return "/usr/bin/python3";
  return "python3";
}

std::string plot_script() {
  if (const char* p = std::getenv("IMPACT_PLOT_SCRIPT")) return p;
  return std::string(IMPACT_SOURCE_ROOT) + "/scripts/plot_study.py";
}

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char ch : s) {
    if (ch == '\'') q += "'\\''";
    else q += ch;
  }
  return q + "'";
}

template <class T>
int run_typed(const StudyConfig& c, const ScenarioInfo& sc, const Design* design, Backend backend,
              const StudyArgs& args, Clock::time_point t_start, std::FILE* out, std::FILE* log) {
  const bool quiet = args.quiet;
  const std::size_t rows = design->rows();
  const std::size_t P = sc.params.size();
  const std::size_t nvar = design->names().size();

  // the full parameter vector: defaults, then the study's fixed values; the design fills the rest
  std::vector<double> base(P);
  for (std::size_t k = 0; k < P; ++k) base[k] = sc.params[k].value;
  for (const ParamSpec& p : c.params)
    if (p.kind == ParamKind::fixed) base[sc.index_of(p.name)] = p.a;
  std::vector<int> var_index(nvar);
  for (std::size_t j = 0; j < nvar; ++j) var_index[j] = sc.index_of(design->names()[j]);

  // columns kept in memory: output.columns (default below) plus the sensitivity outputs
  std::vector<std::string> kept = c.columns;
  if (kept.empty()) {
    for (const char* n : {"P_n", "P_t", "vf_n", "dE"}) kept.push_back(n);
    for (const std::string& b : sc.body_outputs) kept.push_back(b);
  }
  for (const std::string& s : c.sens_outputs)
    if (std::find(kept.begin(), kept.end(), s) == kept.end()) kept.push_back(s);
  const bool want_csv = std::find(c.formats.begin(), c.formats.end(), "csv") != c.formats.end();
  const bool want_npy = std::find(c.formats.begin(), c.formats.end(), "npy") != c.formats.end();
  const bool want_salib = std::find(c.formats.begin(), c.formats.end(), "salib") != c.formats.end();
  const bool keep_chunk = want_salib || !c.sens_outputs.empty();  // kept columns of the current chunk
  const bool keep_all = !c.sens_outputs.empty();                   // every row (Sobol indices need them)

  const std::string dir = c.out_dir;
  make_dirs(dir);
  std::vector<LawRun> runs;
  for (const std::string& ln : c.laws) {
    LawRun r;
    r.law = find_law(ln);
    r.cols = law_output_columns(*r.law, sc);
    r.moments.assign(r.cols.size(), Moments::identity());
    r.kept_pos.assign(kept.size(), -1);
    for (std::size_t k = 0; k < kept.size(); ++k)
      for (std::size_t j = 0; j < r.cols.size(); ++j)
        if (r.cols[j].name == kept[k]) r.kept_pos[k] = static_cast<int>(j);
    if (keep_all) r.keep.resize(kept.size());
    if (keep_chunk) r.chunk_keep.assign(kept.size(), std::vector<double>(std::min<std::uint64_t>(c.chunk, design->rows()), NAN));
    runs.push_back(std::move(r));
  }

  // headers
  for (LawRun& r : runs) {
    if (want_csv) {
      r.csv.open(dir + "/" + r.law->name + ".csv");
      std::string h = "sample_id";
      for (const ScenarioParam& p : sc.params) h += std::string(",") + p.name;
      for (const StudyColumn& col : r.cols) h += "," + col.name;
      h += '\n';
      r.csv.put(h);
    }
    if (want_npy) {
      r.npy.open(dir + "/" + r.law->name + ".npy");
      std::vector<std::pair<std::string, const char*>> fields;
      fields.emplace_back("sample_id", "<u8");
      for (const ScenarioParam& p : sc.params) fields.emplace_back(p.name, "<f8");
      for (const StudyColumn& col : r.cols) fields.emplace_back(col.name, npy_type(col.kind));
      write_npy_header(r.npy, fields, rows);
    }
  }
  std::vector<std::string> salib_files;
  if (want_salib) {
    make_dirs(dir + "/salib");
    for (LawRun& r : runs) {
      r.salib.resize(kept.size());
      for (std::size_t k = 0; k < kept.size(); ++k) {
        if (r.kept_pos[k] < 0) continue;
        const std::string name = "salib/" + r.law->name + "_" + kept[k] + ".txt";
        r.salib[k].open(dir + "/" + name);
        salib_files.push_back(name);
      }
    }
  }
  OutFile design_out;
  if (want_salib) {
    // the sample matrix of the varied parameters, whitespace separated (SALib's X)
    design_out.open(dir + "/design.txt");
    std::string h = "#";
    for (const std::string& n : design->names()) h += " " + n;
    h += '\n';
    design_out.put(h);
  }

  LawOptions opt;
  opt.steps = c.steps;
  opt.integrator = c.integrator == "euler" ? Integrator::euler : Integrator::rk4;

  const std::size_t chunk = std::max<std::size_t>(1, std::min<std::size_t>(c.chunk, rows));
  std::vector<double> dvals(chunk * nvar), vals(chunk * P);
  std::vector<ContactProblem<double>> probs(chunk);
  std::vector<std::uint8_t> build_status(chunk);
  InputColumns<T> in;
  in.resize(chunk);
  OutputColumns<T> res;
  res.resize(chunk);
  std::vector<std::string> lines(chunk);
  std::vector<std::string> recs(chunk);
  double build_seconds = 0, write_seconds = 0;
  std::uint64_t build_failed = 0;

  Progress bar(quiet ? nullptr : log, rows * runs.size(), "study " + c.name);
  std::uint64_t done = 0;
  for (std::size_t b0 = 0; b0 < rows; b0 += chunk) {
    const std::size_t m = std::min(chunk, rows - b0);
    const auto tb = Clock::now();
    design->fill(b0, b0 + m, dvals.data());
#pragma omp parallel for schedule(static)
    for (std::ptrdiff_t i = 0; i < static_cast<std::ptrdiff_t>(m); ++i) {
      double* v = &vals[i * P];
      std::copy(base.begin(), base.end(), v);
      for (std::size_t j = 0; j < nvar; ++j) v[var_index[j]] = dvals[i * nvar + j];
      ContactProblem<double> p{};
      Status s = sc.build(v, &p);
      if (s != Status::ok) {  // a placeholder the laws accept; the row keeps the build status
        p = ContactProblem<double>{};
        p.W = Sym3<double>{1, 0, 0, 1, 0, 1};
        p.n = Vec3<double>{0, 0, 1};
        p.v0 = Vec3<double>{0, 0, -1};
        p.mu = 0;
        p.e = 0;
        p.e_t = 0;
        p.eta0 = 1;
      }
      build_status[i] = static_cast<std::uint8_t>(s);
      probs[i] = p;
      in.set(i, p);
    }
    for (std::size_t i = 0; i < m; ++i) build_failed += build_status[i] != 0;
    if (design_out) {
      std::string s;
      for (std::size_t i = 0; i < m; ++i) {
        for (std::size_t j = 0; j < nvar; ++j) {
          if (j) s += ' ';
          append_number(s, dvals[i * nvar + j]);
        }
        s += '\n';
      }
      design_out.put(s);
    }
    build_seconds += std::chrono::duration<double>(Clock::now() - tb).count();

    for (LawRun& r : runs) {
      const BatchFn<T> fn = ref::any_batch_fn<T>(*r.law, backend);
      const auto tl = Clock::now();
      // on the CPU backends the chunk goes in up to 32 pieces, so that the progress bar moves during
      // slow laws; a GPU call keeps the whole chunk (its rate needs large batches)
      const std::size_t pieces = backend == Backend::cuda ? 1 : std::min<std::size_t>(32, (m + 1023) / 1024);
      for (std::size_t q = 0; q < pieces; ++q) {
        const std::size_t lo = m * q / pieces, hi = m * (q + 1) / pieces;
        BatchIn<T> bi = in.view(nullptr, lo, hi - lo);
        fn(bi, res.view(lo), opt);
        bar.update(done + hi);
      }
      r.seconds += std::chrono::duration<double>(Clock::now() - tl).count();
      const auto tw = Clock::now();
      const std::size_t ncol = r.cols.size();
      const std::size_t nbody = sc.body_outputs.size();
      const std::size_t first_body = ncol - nbody;
      const std::vector<int>& kept_pos = r.kept_pos;
      const int nthreads = omp_get_max_threads();
      // each ok row's outputs, merged into the statistics in row order after the parallel loop, so
      // that the statistics do not depend on the chunk size or the thread count
      std::vector<double> rowout(m * ncol);
      std::vector<std::uint8_t> row_ok(m);
      std::vector<std::vector<std::uint64_t>> stc(nthreads, std::vector<std::uint64_t>(static_cast<int>(Status::count_), 0));
#pragma omp parallel
      {
        const int tid = omp_get_thread_num();
        std::vector<double> o(ncol, NAN);
#pragma omp for schedule(static)
        for (std::ptrdiff_t ii = 0; ii < static_cast<std::ptrdiff_t>(m); ++ii) {
          const std::size_t i = static_cast<std::size_t>(ii);
          Status s = static_cast<Status>(build_status[i] ? build_status[i] : res.status[i]);
          std::fill(o.begin(), o.end(), NAN);
          const bool ok = s == Status::ok;
          if (ok) {
            const ContactProblem<double>& p = probs[i];
            const Vec3<T> PT = res.P(i), vfT = res.vf(i);
            const double Pv[3] = {double(PT.x), double(PT.y), double(PT.z)};
            const ContactParts cp = contact_parts(p.n, PT, vfT);
            o[0] = Pv[0]; o[1] = Pv[1]; o[2] = Pv[2];
            o[3] = cp.Pn;
            o[4] = cp.Pt;
            o[5] = double(vfT.x); o[6] = double(vfT.y); o[7] = double(vfT.z);
            o[8] = cp.vfn;
            o[9] = cp.vft;
            o[10] = double(res.real[out_dE][i]);
            std::size_t j = 11;
            for (const ExtraColumn& x : r.law->extras) o[j++] = res.extra(i, x.what);
            if (nbody) sc.body(&vals[i * P], Pv, &o[first_body]);
            // never a silent NaN in an ok row: the impulse, velocities, energy and body outputs
            // must be finite (a law's diagnostic extras may be inf where documented, e.g. mu_star)
            bool finite = true;
            for (std::size_t k = 0; k < ncol; ++k)
              if ((k < 11 || k >= first_body) && r.cols[k].kind == ColKind::real && !std::isfinite(o[k])) finite = false;
            if (!finite) s = Status::non_finite;
          }
          stc[tid][static_cast<int>(s)]++;
          row_ok[i] = s == Status::ok;
          if (s == Status::ok) std::copy(o.begin(), o.end(), rowout.begin() + i * ncol);
          if (keep_chunk)
            for (std::size_t k = 0; k < kept.size(); ++k)
              r.chunk_keep[k][i] = (s == Status::ok && kept_pos[k] >= 0) ? o[kept_pos[k]] : NAN;
          const std::uint64_t id = b0 + i;
          if (want_csv) {
            std::string& L = lines[i];
            L.clear();
            L += std::to_string(id);
            for (std::size_t k = 0; k < P; ++k) {
              L += ',';
              append_number(L, vals[i * P + k]);
            }
            for (std::size_t k = 0; k < ncol; ++k) {
              L += ',';
              const ColKind kind = r.cols[k].kind;
              if (kind == ColKind::status) {
                L += status_name(s);
              } else if (s != Status::ok) {
                // empty cell: the row has no result
              } else if (kind == ColKind::modes) {
                L += modes_string(static_cast<std::uint32_t>(o[k]));
              } else if (kind == ColKind::integer) {
                L += std::to_string(static_cast<long long>(o[k]));
              } else {
                // a float law's own outputs are floats (shortest float text); the derived and
                // body-level columns are computed in double from them, as in the .npy
                const bool law_output = (k < 11 && k != 3 && k != 4 && k != 8 && k != 9) || (k >= 11 && k < first_body);
                if (std::is_same_v<T, float> && law_output) append_number(L, static_cast<float>(o[k]));
                else append_number(L, o[k]);
              }
            }
            L += '\n';
          }
          if (want_npy) {
            std::string& R = recs[i];
            R.clear();
            put<std::uint64_t>(R, id);
            for (std::size_t k = 0; k < P; ++k) put<double>(R, vals[i * P + k]);
            for (std::size_t k = 0; k < ncol; ++k) {
              switch (r.cols[k].kind) {
                case ColKind::real: put<double>(R, s == Status::ok ? o[k] : NAN); break;
                case ColKind::integer: put<std::int32_t>(R, s == Status::ok ? static_cast<std::int32_t>(o[k]) : -1); break;
                case ColKind::modes: put<std::uint32_t>(R, s == Status::ok ? static_cast<std::uint32_t>(o[k]) : 0u); break;
                case ColKind::status: put<std::uint8_t>(R, static_cast<std::uint8_t>(s)); break;
              }
            }
          }
        }
      }
      for (int t = 0; t < nthreads; ++t)
        for (int k = 0; k < static_cast<int>(Status::count_); ++k) r.status_count[k] += stc[t][k];
      for (std::size_t i = 0; i < m; ++i)
        if (row_ok[i])
          for (std::size_t k = 0; k < ncol; ++k)
            if (r.cols[k].kind == ColKind::real || r.cols[k].kind == ColKind::integer)
              r.moments[k] = merge(r.moments[k], Moments::of(rowout[i * ncol + k]));
      if (want_csv) {
        for (std::size_t i = 0; i < m; ++i) r.csv.put(lines[i]);
      }
      if (want_npy) {
        for (std::size_t i = 0; i < m; ++i) r.npy.put(recs[i]);
      }
      for (std::size_t k = 0; k < r.salib.size(); ++k) {
        if (!r.salib[k]) continue;
        std::string sb;
        for (std::size_t i = 0; i < m; ++i) {
          const double v = r.chunk_keep[k][i];
          if (std::isfinite(v)) append_number(sb, v);
          else sb += "nan";
          sb += '\n';
        }
        r.salib[k].put(sb);
      }
      if (keep_all)
        for (std::size_t k = 0; k < kept.size(); ++k)
          if (std::find(c.sens_outputs.begin(), c.sens_outputs.end(), kept[k]) != c.sens_outputs.end())
            r.keep[k].insert(r.keep[k].end(), r.chunk_keep[k].begin(), r.chunk_keep[k].begin() + m);
      write_seconds += std::chrono::duration<double>(Clock::now() - tw).count();
      done += m;
      bar.update(done);
    }
  }
  bar.finish();
  for (LawRun& r : runs) {
    r.csv.close();
    r.npy.close();
    for (OutFile& f : r.salib) f.close();
  }
  design_out.close();

  // ---- SALib Y files --------------------------------------------------------------------------------
  std::vector<std::string> files;
  for (LawRun& r : runs) {
    if (want_csv) files.push_back(r.law->name + ".csv");
    if (want_npy) files.push_back(r.law->name + ".npy");
  }
  if (want_salib) {
    files.push_back("design.txt");
    files.insert(files.end(), salib_files.begin(), salib_files.end());
  }

  // ---- sensitivity ----------------------------------------------------------------------------------
  json sens = json::array();
  std::string sens_table;
  if (!c.sens_outputs.empty()) {
    OutFile f(dir + "/sensitivity.csv");
    std::string s = "law,output,parameter,S1,S1_conf,ST,ST_conf,base_rows_used\n";
    sens_table = "\n| law | output | parameter | S1 | ± | ST | ± |\n|---|---|---|---:|---:|---:|---:|\n";
    for (LawRun& r : runs)
      for (const std::string& o : c.sens_outputs) {
        const std::size_t k = std::find(kept.begin(), kept.end(), o) - kept.begin();
        if (r.kept_pos[k] < 0) continue;
        SobolIndices si;
        try {
          si = sobol_indices(r.keep[k], nvar, c.bootstrap, c.confidence, c.design.seed);
        } catch (const std::invalid_argument& e) {
          std::fprintf(log, "impact study: warning: no Sobol indices for %s %s: %s\n", r.law->name.c_str(), o.c_str(), e.what());
          continue;
        }
        if (!std::isfinite(si.S1.empty() ? 0.0 : si.S1[0]))
          std::fprintf(log, "impact study: warning: %s %s does not vary over the design: its Sobol indices are undefined (nan)\n",
                       r.law->name.c_str(), o.c_str());
        json params = json::object();
        for (std::size_t j = 0; j < nvar; ++j) {
          const std::string& pn = design->names()[j];
          params[pn] = {{"S1", si.S1[j]}, {"S1_conf", si.S1_conf[j]}, {"ST", si.ST[j]}, {"ST_conf", si.ST_conf[j]}};
          s += r.law->name + "," + o + "," + pn;
          for (double v : {si.S1[j], si.S1_conf[j], si.ST[j], si.ST_conf[j]}) {
            s += ',';
            append_number(s, v);
          }
          s += "," + std::to_string(si.used) + "\n";
          sens_table += "| " + r.law->name + " | " + o + " | " + pn + " | " + fmt(si.S1[j]) + " | " + fmt(si.S1_conf[j]) +
                        " | " + fmt(si.ST[j]) + " | " + fmt(si.ST_conf[j]) + " |\n";
        }
        sens.push_back({{"law", r.law->name}, {"output", o}, {"base_rows_used", si.used}, {"indices", params}});
      }
    f.put(s);
    f.close();
    files.push_back("sensitivity.csv");
  }

  // ---- summary table ---------------------------------------------------------------------------------
  std::string table = "| law | column | ok rows | mean | sd | min | max |\n|---|---|---:|---:|---:|---:|---:|\n";
  json summary = json::object();
  for (LawRun& r : runs) {
    json cols = json::object();
    for (std::size_t k = 0; k < r.cols.size(); ++k) {
      const StudyColumn& col = r.cols[k];
      if (col.kind != ColKind::real && col.kind != ColKind::integer) continue;
      const Moments& mo = r.moments[k];
      if (mo.n > 0)
        cols[col.name] = {{"n", mo.n}, {"mean", mo.mean}, {"sd", std::sqrt(mo.variance())}, {"min", mo.min}, {"max", mo.max}};
      else  // no ok row: no statistics (null), not zeros
        cols[col.name] = {{"n", 0}, {"mean", nullptr}, {"sd", nullptr}, {"min", nullptr}, {"max", nullptr}};
      if (std::find(kept.begin(), kept.end(), col.name) == kept.end()) continue;
      table += "| " + r.law->name + " | " + col.name + " | " + std::to_string(static_cast<std::uint64_t>(mo.n)) + " | " +
               (mo.n > 0 ? fmt(mo.mean) + " | " + fmt(std::sqrt(mo.variance())) + " | " + fmt(mo.min) + " | " + fmt(mo.max)
                         : std::string("- | - | - | -")) +
               " |\n";
    }
    json st = json::object();
    for (int k = 0; k < static_cast<int>(Status::count_); ++k)
      if (r.status_count[k]) st[status_name(static_cast<Status>(k))] = r.status_count[k];
    summary[r.law->name] = {{"status", st}, {"law_seconds", r.seconds},
                            {"instances_per_s", r.seconds > 0 ? double(rows) / r.seconds : 0.0}, {"columns", cols}};
  }
  std::string status_line;
  for (LawRun& r : runs) {
    status_line += "  " + r.law->name + ":";
    for (int k = 0; k < static_cast<int>(Status::count_); ++k)
      if (r.status_count[k])
        status_line += " " + std::string(status_name(static_cast<Status>(k))) + " " + std::to_string(r.status_count[k]);
    status_line += "\n";
  }

  // ---- metadata -----------------------------------------------------------------------------------------
  const double total = std::chrono::duration<double>(Clock::now() - t_start).count();
  json meta;
  meta["impact_version"] = version();
  meta["git_revision"] = git_revision();
  meta["date"] = iso_now();
  meta["host"] = {{"name", hostname()}, {"cpu", cpu_model()}, {"omp_threads", omp_get_max_threads()}};
  meta["backend"] = backend_name(backend);
  meta["precision"] = c.precision;
  meta["steps"] = c.steps;
  meta["integrator"] = c.integrator;
  meta["seed"] = c.design.seed;
  meta["scenario"] = c.scenario;
  meta["laws"] = c.laws;
  meta["rows"] = rows;
  meta["varied"] = design->names();
  json cols_meta = json::object();
  for (LawRun& r : runs) {
    json l = json::array();
    l.push_back({{"name", "sample_id"}, {"kind", "integer"}});
    for (const ScenarioParam& p : sc.params) l.push_back({{"name", p.name}, {"kind", "input"}, {"help", p.help}});
    for (const StudyColumn& col : r.cols)
      l.push_back({{"name", col.name},
                   {"kind", col.kind == ColKind::real ? "real" : col.kind == ColKind::integer ? "integer"
                                                              : col.kind == ColKind::modes  ? "modes"
                                                                                            : "status"}});
    cols_meta[r.law->name] = l;
  }
  meta["columns"] = cols_meta;
  json status_codes = json::array();
  for (int k = 0; k < static_cast<int>(Status::count_); ++k) status_codes.push_back(status_name(static_cast<Status>(k)));
  meta["status_codes"] = status_codes;
  meta["kept_columns"] = kept;
  meta["timings"] = {{"total_s", total}, {"build_s", build_seconds}, {"write_s", write_seconds}};
  meta["summary"] = summary;
  if (!sens.empty()) meta["sensitivity"] = sens;
  meta["files"] = files;
  meta["config"] = to_json(c);
  {
    OutFile f(dir + "/metadata.json");
    f.put(meta.dump(2) + "\n");
    f.close();
  }
  {
    OutFile f(dir + "/summary.md");
    std::string s = "# " + c.name + "\n\n" + (c.description.empty() ? "" : c.description + "\n\n") + "scenario " +
                    c.scenario + ", " + std::to_string(rows) + " samples (" + design_kind_name(c.design.kind) +
                    "), backend " + backend_name(backend) + ", " + c.precision + "\n\n" + table + sens_table;
    f.put(s);
    f.close();
  }

  // ---- plots ----------------------------------------------------------------------------------------------
  std::string plot_note;
  if (!c.plots.empty() && !args.no_plots) {
    const std::string cmd = python_for_plots() + " " + shell_quote(plot_script()) + " " + shell_quote(dir);
    const int rc = std::system((cmd + (quiet ? " >/dev/null" : " >&2")).c_str());
    if (rc != 0) {
      std::fprintf(log, "impact study: warning: the plots were not drawn (exit %d of: %s); the tables are written\n", rc,
                   cmd.c_str());
      plot_note = "plots: not drawn (see the warning above)";
    } else {
      plot_note = "plots: ";
      for (std::size_t i = 0; i < c.plots.size(); ++i) plot_note += (i ? ", " : "") + dir + "/" + c.plots[i].file;
    }
  }

  if (!quiet && out) {
    std::fprintf(out, "study %s: scenario %s, %zu samples (%s), %zu law(s), backend %s, %s%s\n", c.name.c_str(),
                 c.scenario.c_str(), rows, design_kind_name(c.design.kind), runs.size(), backend_name(backend),
                 c.precision.c_str(), build_failed ? (", " + std::to_string(build_failed) + " samples not buildable").c_str() : "");
    std::fprintf(out, "status counts:\n%s\n%s%s\n", status_line.c_str(), table.c_str(), sens_table.c_str());
    for (LawRun& r : runs)
      std::fprintf(out, "%s: %.3g instances/s (%.3f s in the law)\n", r.law->name.c_str(),
                   r.seconds > 0 ? double(rows) / r.seconds : 0.0, r.seconds);
    const double wall = std::chrono::duration<double>(Clock::now() - t_start).count();
    std::fprintf(out, "wall time %.2f s (plots included)\nresults: %s/ (%s, metadata.json, summary.md)\n", wall, dir.c_str(),
                 [&] {
                   std::string s;
                   for (std::size_t i = 0; i < files.size() && i < 6; ++i) s += (i ? ", " : "") + files[i];
                   if (files.size() > 6) s += ", ...";
                   return s;
                 }().c_str());
    if (!plot_note.empty()) std::fprintf(out, "%s\n", plot_note.c_str());
  }
  return 0;
}

}  // namespace

int run_study(const StudyArgs& args, std::FILE* out, std::FILE* log) {
  const auto t_start = Clock::now();
  StudyConfig c;
  std::unique_ptr<Design> design;
  try {
    ConfigTree tree = load_config_file(args.config);
    for (const std::string& s : args.sets) apply_override(tree, s);
    if (!args.out.empty()) apply_override(tree, "output.dir=" + nlohmann::json(args.out).dump());
    if (!args.backend.empty()) apply_override(tree, "run.backend=" + nlohmann::json(args.backend).dump());
    c = resolve_config(tree);
    // the design is built before any work, so that a bad config never starts a run; its messages
    // start with the key, which gives the location
    try {
      design = make_design(c.params, c.design);
    } catch (const std::invalid_argument& e) {
      const std::string msg = e.what();
      throw ConfigError(tree.at(msg.substr(0, msg.find(':'))) + msg);
    }
  } catch (const ConfigError& e) {
    std::fprintf(log, "impact study: error: %s\n", e.what());
    return 1;
  } catch (const std::invalid_argument& e) {
    std::fprintf(log, "impact study: error: %s: %s\n", args.config.c_str(), e.what());
    return 1;
  }
  if (args.dry_run) {
    std::fprintf(out, "%s\n", to_json(c).dump(2).c_str());
    return 0;
  }
  const ScenarioInfo* sc = find_scenario(c.scenario);
  const Precision precision = parse_precision(c.precision);
  law_options(c.steps, parse_integrator(c.integrator));
  const Backend backend = resolve_backend(c.backend, precision, true);
  for (const std::string& l : c.laws) {
    const LawInfo* li = find_law(l);
    if (precision == Precision::f64 ? !ref::any_batch_fn<double>(*li, backend) : !ref::any_batch_fn<float>(*li, backend))
      throw std::invalid_argument("law " + l + " has no " + c.precision + " entry point on backend " + backend_name(backend));
  }
  if (c.precision == "float") return run_typed<float>(c, *sc, design.get(), backend, args, t_start, out, log);
  return run_typed<double>(c, *sc, design.get(), backend, args, t_start, out, log);
}

}  // namespace impact::cli
