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
#include "input.hpp"
#include "laws.hpp"

namespace impact::host {

namespace {

using Clock = std::chrono::steady_clock;

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
EvalSummary run(const EvalArgs& args, const LawInfo& law, Backend backend, std::FILE* sum_out) {
  const auto t_start = Clock::now();
  CsvReader reader(args.in);
  std::vector<CsvField> fields;
  const InputLayout lay = read_header(reader, law);
  const std::vector<std::string>& out_names = lay.out_names;

  std::FILE* out = stdout;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> out_guard(nullptr, &std::fclose);
  if (args.out != "-") {
    out = std::fopen(args.out.c_str(), "wb");
    if (!out) throw std::invalid_argument(args.out + ": cannot open for writing");
    out_guard.reset(out);
  }
  std::string buf = lay.header;
  for (const std::string& o : out_names) buf += "," + o;
  buf += '\n';

  LawOptions opt;
  opt.steps = args.steps;
  opt.integrator = args.integrator == "euler" ? Integrator::euler : Integrator::rk4;
  const BatchFn<T> fn = batch_fn<T>(law, backend);

  InputColumns<T> cols;
  OutputColumns<T> res;
  cols.resize(args.chunk);
  res.resize(args.chunk);
  std::vector<std::string> raw(args.chunk);
  Summary sum;
  double law_seconds = 0;
  bool eof = false;
  while (!eof) {
    std::size_t m = 0;
    while (m < args.chunk) {
      if (!read_row(reader, fields, lay, cols.in, m)) {
        eof = true;
        break;
      }
      raw[m] = reader.raw();
      ++m;
    }
    if (m == 0) break;
    const BatchIn<T> bin = cols.view(lay, 0, m);
    const BatchOut<T> bout = res.view(0);
    const auto t0 = Clock::now();
    fn(bin, bout, opt);
    law_seconds += std::chrono::duration<double>(Clock::now() - t0).count();

    for (std::size_t i = 0; i < m; ++i) {
      const Status st = static_cast<Status>(res.status[i]);
      const bool ok = st == Status::ok;
      ++sum.rows;
      ++sum.status_count[static_cast<int>(st)];
      buf += raw[i];
      auto num = [&](T v) {
        buf += ',';
        if (ok) append_number(buf, v);
      };
      for (int k = 0; k < 3; ++k) num(res.P[k][i]);
      for (int k = 0; k < 3; ++k) num(res.vf[k][i]);
      num(res.dE[i]);
      buf += ',';
      buf += status_name(st);
      std::string modes;
      if (ok) modes = modes_string(res.modes[i]);
      for (const ExtraColumn& x : law.extras) {
        switch (x.what) {
          case Extra::In_c: num(res.In_c[i]); break;
          case Extra::Modes: buf += ','; buf += modes; break;
          case Extra::Steps:
            buf += ',';
            if (ok) buf += std::to_string(res.steps[i]);
            break;
          default: num(res.aux[static_cast<int>(x.what) - static_cast<int>(Extra::Aux0)][i]); break;
        }
      }
      buf += '\n';
      if (ok) {
        const Vec3<double> n0{cols.in[6][i], cols.in[7][i], cols.in[8][i]};
        const Vec3<double> n = (1.0 / norm(n0)) * n0;
        const Vec3<double> P{res.P[0][i], res.P[1][i], res.P[2][i]};
        const Vec3<double> v0{cols.in[9][i], cols.in[10][i], cols.in[11][i]};
        const Vec3<double> vf{res.vf[0][i], res.vf[1][i], res.vf[2][i]};
        const Sym3<double> W{cols.in[0][i], cols.in[1][i], cols.in[2][i],
                             cols.in[3][i], cols.in[4][i], cols.in[5][i]};
        sum.Pn.add(dot(P, n));
        sum.Pt.add(norm(tangential(P, n)));
        sum.vfn.add(dot(vf, n));
        // energy change relative to the initial contact energy K0 = 1/2 v0^T W^-1 v0
        const Chol3<double> c = cholesky(W);
        if (c.ok) sum.dE_rel.add(res.dE[i] / contact_energy(c, v0));
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
  check_law_options(args.precision, args.integrator, args.steps);
  const Backend backend = resolve_backend(args.backend, args.precision, true);
  if (args.chunk < 1) throw std::invalid_argument("chunk must be >= 1");
  if (args.precision == "float") return run<float>(args, *law, backend, summary_stream);
  return run<double>(args, *law, backend, summary_stream);
}

}  // namespace impact::host
