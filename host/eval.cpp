#include "eval.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cmath>
#include <map>
#include <memory>
#include <stdexcept>
#include <unordered_map>

#include "csv.hpp"
#include "laws.hpp"

namespace impact::host {

namespace {

using Clock = std::chrono::steady_clock;

// Input columns in BatchIn order.
const char* const kInputNames[] = {"W_xx", "W_xy", "W_xz", "W_yy", "W_yz", "W_zz", "n_x", "n_y",
                                   "n_z",  "v_x",  "v_y",  "v_z",  "mu",   "e",    "e_t", "eta0"};
constexpr int kNumInputs = 16;
const char* const kOutputNames[] = {"P_x", "P_y", "P_z", "vf_x", "vf_y", "vf_z", "dE", "status"};

struct Stat {
  double min = INFINITY, max = -INFINITY, sum = 0;
  std::size_t n = 0;
  void add(double v) {
    min = std::min(min, v);
    max = std::max(max, v);
    sum += v;
    ++n;
  }
};

struct Summary {
  std::size_t rows = 0;
  std::size_t status_count[static_cast<int>(Status::count_)] = {};
  std::map<std::string, std::size_t> modes;
  Stat Pn, Pt, vfn, dE_rel;
};

template <class T>
struct Columns {
  std::vector<T> in[kNumInputs];
  std::vector<T> P[3], vf[3], dE, In_c, aux[kAux];
  std::vector<std::uint32_t> modes;
  std::vector<std::int32_t> steps;
  std::vector<std::uint8_t> status;
  void resize(std::size_t n) {
    for (auto& c : in) c.resize(n);
    for (auto& c : P) c.resize(n);
    for (auto& c : vf) c.resize(n);
    dE.resize(n);
    In_c.resize(n);
    for (auto& c : aux) c.resize(n);
    modes.resize(n);
    steps.resize(n);
    status.resize(n);
  }
};

template <class T>
EvalSummary run(const EvalArgs& args, const LawInfo& law, Backend backend, std::FILE* sum_out) {
  const auto t_start = Clock::now();
  CsvReader reader(args.in);
  std::vector<CsvField> fields;
  if (!reader.next(fields)) throw InputError(reader.path() + ": empty file: expected a header row");
  const std::size_t ncols = fields.size();
  std::unordered_map<std::string, std::size_t> index;
  for (std::size_t c = 0; c < ncols; ++c) {
    std::string name(fields[c].text);
    while (!name.empty() && (name.back() == ' ' || name.back() == '\t')) name.pop_back();
    while (!name.empty() && (name.front() == ' ' || name.front() == '\t')) name.erase(0, 1);
    if (name.empty())
      throw InputError(located(reader.path(), reader.line_no(), fields[c].col, "empty column name in header"));
    if (!index.emplace(name, c).second)
      throw InputError(located(reader.path(), reader.line_no(), fields[c].col, "duplicate column '" + name + "'"));
  }
  const std::string header = reader.raw();
  const long header_line = reader.line_no();
  // which inputs the law needs
  bool needed[kNumInputs];
  for (int k = 0; k < 12; ++k) needed[k] = true;
  needed[12] = law.uses_mu;
  needed[13] = law.uses_e;
  needed[14] = law.uses_et;
  needed[15] = law.uses_eta0;
  std::size_t col_of[kNumInputs];
  std::string missing;
  for (int k = 0; k < kNumInputs; ++k) {
    if (!needed[k]) continue;
    auto it = index.find(kInputNames[k]);
    if (it == index.end()) {
      missing += missing.empty() ? "" : ", ";
      missing += kInputNames[k];
    } else {
      col_of[k] = it->second;
    }
  }
  if (!missing.empty())
    throw InputError(located(reader.path(), header_line, 0,
                             "missing column(s) " + missing + " required by law '" + law.name + "'"));
  std::vector<std::string> out_names(std::begin(kOutputNames), std::end(kOutputNames));
  for (const ExtraColumn& x : law.extras) out_names.push_back(x.name);
  for (const std::string& o : out_names)
    if (index.count(o))
      throw InputError(located(reader.path(), header_line, fields[index[o]].col,
                               "input column '" + o + "' collides with an output column of law '" +
                                   law.name + "'; rename it"));

  std::FILE* out = stdout;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> out_guard(nullptr, &std::fclose);
  if (args.out != "-") {
    out = std::fopen(args.out.c_str(), "wb");
    if (!out) throw std::invalid_argument(args.out + ": cannot open for writing");
    out_guard.reset(out);
  }
  std::string buf = header;
  for (const std::string& o : out_names) buf += "," + o;
  buf += '\n';

  LawOptions opt;
  opt.steps = args.steps;
  opt.integrator = args.integrator == "euler" ? Integrator::euler : Integrator::rk4;
  const BatchFn<T> fn = batch_fn<T>(law, backend);

  Columns<T> cols;
  cols.resize(args.chunk);
  std::vector<std::string> raw(args.chunk);
  Summary sum;
  double law_seconds = 0;
  bool eof = false;
  while (!eof) {
    std::size_t m = 0;
    while (m < args.chunk) {
      if (!reader.next(fields)) {
        eof = true;
        break;
      }
      if (fields.size() != ncols)
        throw InputError(located(reader.path(), reader.line_no(), 0,
                                 "expected " + std::to_string(ncols) + " fields as in the header, found " +
                                     std::to_string(fields.size())));
      for (int k = 0; k < kNumInputs; ++k) {
        if (!needed[k]) continue;
        cols.in[k][m] = static_cast<T>(parse_number(fields[col_of[k]], reader, kInputNames[k]));
      }
      raw[m] = reader.raw();
      ++m;
    }
    if (m == 0) break;
    BatchIn<T> bin{};
    for (int k = 0; k < 6; ++k) bin.W[k] = cols.in[k].data();
    for (int k = 0; k < 3; ++k) bin.n[k] = cols.in[6 + k].data();
    for (int k = 0; k < 3; ++k) bin.v[k] = cols.in[9 + k].data();
    bin.mu = needed[12] ? cols.in[12].data() : nullptr;
    bin.e = needed[13] ? cols.in[13].data() : nullptr;
    bin.e_t = needed[14] ? cols.in[14].data() : nullptr;
    bin.eta0 = needed[15] ? cols.in[15].data() : nullptr;
    bin.count = m;
    BatchOut<T> bout{};
    for (int k = 0; k < 3; ++k) bout.P[k] = cols.P[k].data();
    for (int k = 0; k < 3; ++k) bout.vf[k] = cols.vf[k].data();
    bout.dE = cols.dE.data();
    bout.In_c = cols.In_c.data();
    for (int k = 0; k < kAux; ++k) bout.aux[k] = cols.aux[k].data();
    bout.modes = cols.modes.data();
    bout.steps = cols.steps.data();
    bout.status = cols.status.data();
    const auto t0 = Clock::now();
    fn(bin, bout, opt);
    law_seconds += std::chrono::duration<double>(Clock::now() - t0).count();

    for (std::size_t i = 0; i < m; ++i) {
      const Status st = static_cast<Status>(cols.status[i]);
      const bool ok = st == Status::ok;
      ++sum.rows;
      ++sum.status_count[static_cast<int>(st)];
      buf += raw[i];
      auto num = [&](T v) {
        buf += ',';
        if (ok) append_number(buf, v);
      };
      for (int k = 0; k < 3; ++k) num(cols.P[k][i]);
      for (int k = 0; k < 3; ++k) num(cols.vf[k][i]);
      num(cols.dE[i]);
      buf += ',';
      buf += status_name(st);
      std::string modes;
      if (ok) modes = modes_string(cols.modes[i]);
      for (const ExtraColumn& x : law.extras) {
        switch (x.what) {
          case Extra::In_c: num(cols.In_c[i]); break;
          case Extra::Modes: buf += ','; buf += modes; break;
          case Extra::Steps:
            buf += ',';
            if (ok) buf += std::to_string(cols.steps[i]);
            break;
          default: num(cols.aux[static_cast<int>(x.what) - static_cast<int>(Extra::Aux0)][i]); break;
        }
      }
      buf += '\n';
      if (ok) {
        const Vec3<double> n0{cols.in[6][i], cols.in[7][i], cols.in[8][i]};
        const Vec3<double> n = (1.0 / norm(n0)) * n0;
        const Vec3<double> P{cols.P[0][i], cols.P[1][i], cols.P[2][i]};
        const Vec3<double> v0{cols.in[9][i], cols.in[10][i], cols.in[11][i]};
        const Vec3<double> vf{cols.vf[0][i], cols.vf[1][i], cols.vf[2][i]};
        const Sym3<double> W{cols.in[0][i], cols.in[1][i], cols.in[2][i],
                             cols.in[3][i], cols.in[4][i], cols.in[5][i]};
        sum.Pn.add(dot(P, n));
        sum.Pt.add(norm(tangential(P, n)));
        sum.vfn.add(dot(vf, n));
        // energy change relative to the initial contact energy K0 = 1/2 v0^T W^-1 v0
        const Chol3<double> c = cholesky(W);
        if (c.ok) sum.dE_rel.add(cols.dE[i] / contact_energy(c, v0));
        if (!modes.empty()) ++sum.modes[modes];
      }
    }
    if (std::fwrite(buf.data(), 1, buf.size(), out) != buf.size())
      throw std::runtime_error(args.out + ": write failed");
    buf.clear();
  }
  if (std::fflush(out) != 0) throw std::runtime_error(args.out + ": write failed");
  const double total = std::chrono::duration<double>(Clock::now() - t_start).count();

  if (sum_out) {
    std::fprintf(sum_out, "impact eval: law %s, backend %s, precision %s, input %s\n", law.name.c_str(),
                 backend_name(backend), args.precision.c_str(), reader.path().c_str());
    std::fprintf(sum_out, "  rows %zu", sum.rows);
    for (int s = 0; s < static_cast<int>(Status::count_); ++s)
      if (sum.status_count[s])
        std::fprintf(sum_out, "   %s %zu", status_name(static_cast<Status>(s)), sum.status_count[s]);
    std::fprintf(sum_out, "\n");
    std::fprintf(sum_out, "  law time %.3g s (%.3g instances/s), total %.3g s (%.3g rows/s incl. I/O)\n",
                 law_seconds, law_seconds > 0 ? sum.rows / law_seconds : 0.0, total,
                 total > 0 ? sum.rows / total : 0.0);
    if (sum.Pn.n) {
      std::fprintf(sum_out, "  %-22s %12s %12s %12s\n", "over ok rows", "min", "mean", "max");
      auto row = [&](const char* name, const Stat& s) {
        if (s.n)
          std::fprintf(sum_out, "  %-22s %12.5g %12.5g %12.5g\n", name, s.min, s.sum / s.n, s.max);
      };
      row("normal impulse P.n", sum.Pn);
      row("tangential |P_t|", sum.Pt);
      row("separation vf.n", sum.vfn);
      row("dE / K0 (energy ratio)", sum.dE_rel);
    }
    if (!sum.modes.empty()) {
      std::fprintf(sum_out, "  mode sequences:");
      for (const auto& [k, v] : sum.modes)
        std::fprintf(sum_out, "  %s %.1f%%", k.c_str(), 100.0 * v / sum.Pn.n);
      std::fprintf(sum_out, "\n");
    }
    if (args.out != "-") std::fprintf(sum_out, "  results written to %s\n", args.out.c_str());
  }
  EvalSummary es;
  es.rows = sum.rows;
  es.ok = sum.status_count[0];
  es.law_seconds = law_seconds;
  es.total_seconds = total;
  return es;
}

}  // namespace

EvalSummary run_eval_checked(const EvalArgs& args, std::FILE* summary_stream);

EvalSummary run_eval(const EvalArgs& args, std::FILE* summary_stream) {
  try {
    return run_eval_checked(args, summary_stream);
  } catch (const InputError&) {
    // a file that failed part-way leaves no partial table behind
    if (args.out != "-") std::remove(args.out.c_str());
    throw;
  }
}

EvalSummary run_eval_checked(const EvalArgs& args, std::FILE* summary_stream) {
  const LawInfo* law = find_law(args.law);
  if (!law) throw std::invalid_argument("unknown law '" + args.law + "' (known: " + law_names() + ")");
  Backend backend = Backend::serial;
  std::string why;
  if (args.backend == "auto") {
    backend = cuda_usable(&why) ? Backend::cuda : Backend::omp;
  } else if (args.backend == "cuda") {
    if (!cuda_usable(&why)) throw std::invalid_argument("backend 'cuda' is not usable: " + why);
    backend = Backend::cuda;
  } else if (args.backend == "omp") {
    backend = Backend::omp;
  } else if (args.backend == "reference") {
    backend = Backend::reference;
    if (args.precision != "double")
      throw std::invalid_argument("backend 'reference' is double precision only (got --precision " +
                                  args.precision + ")");
  } else if (args.backend != "serial") {
    throw std::invalid_argument("unknown backend '" + args.backend + "' (known: auto, cuda, omp, serial, reference)");
  }
  if (args.precision != "double" && args.precision != "float")
    throw std::invalid_argument("precision must be 'double' or 'float', got '" + args.precision + "'");
  if (args.integrator != "rk4" && args.integrator != "euler")
    throw std::invalid_argument("integrator must be 'rk4' or 'euler', got '" + args.integrator + "'");
  if (args.steps < 1) throw std::invalid_argument("--steps must be >= 1");
  if (args.chunk < 1) throw std::invalid_argument("chunk must be >= 1");
  if (args.precision == "float") return run<float>(args, *law, backend, summary_stream);
  return run<double>(args, *law, backend, summary_stream);
}

}  // namespace impact::host
