#include "cli/reduce.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/usage.hpp"
#include "engine/backend_pick.hpp"
#include "engine/device.hpp"
#include "engine/options.hpp"
#include "engine/registry.hpp"
#include "io/csv.hpp"
#include "io/out_file.hpp"
#include "sampled/reduce.hpp"
#include "systems/sample_spec.hpp"

namespace impact::cli {

using namespace impact::engine;
using sampled::quantity_key;
using sampled::quantity_name;
using sampled::ReduceResult;
using sampled::ReduceSpec;

namespace {

// One line of the histogram: counts scaled to 10 levels.
std::string sparkline(const Histogram& h) {
  static const char levels[] = " .:-=+*#%@";
  std::uint64_t mx = 0;
  for (int i = 1; i <= Histogram::kBins; ++i) mx = std::max(mx, h.count[i]);
  std::string s;
  for (int i = 1; i <= Histogram::kBins; ++i) {
    const std::uint64_t c = h.count[i];
    int l = c == 0 || mx == 0 ? 0 : 1 + static_cast<int>(std::lround(8.0 * double(c) / double(mx)));
    s += levels[std::min(l, 9)];
  }
  return s;
}

void print_table(std::FILE* t, const sampled::ReduceSpec& a, const sampled::ReduceResult& r, const std::string& choice) {
  const BatchSummary& s = r.summary;
  std::uint64_t total = 0;
  for (std::uint64_t c : s.status) total += c;
  std::fprintf(t, "impact reduce: law %s, scenario %s, backend %s%s, precision %s, seed %llu\n", a.law->name.c_str(),
               a.scenario.c_str(), backend_name(a.backend), choice.c_str(), precision_name(a.precision),
               static_cast<unsigned long long>(a.seed));
  std::string line;
  for (const auto& [k, v] : systems::describe(a.spec)) line += "  " + k + "=" + v;
  std::fprintf(t, "  study:%s\n", line.c_str());
  std::fprintf(t,
               "  instances [%llu, %llu): %llu in %.3f s (%.4g instances/s); %.3f s in all with the range pilot, "
               "CPU time %.3f s, peak RSS %.1f MB\n",
               static_cast<unsigned long long>(a.first), static_cast<unsigned long long>(a.first) + a.n,
               static_cast<unsigned long long>(total), r.study_seconds,
               r.study_seconds > 0 ? double(total) / r.study_seconds : 0.0, r.wall_seconds, r.cpu_seconds,
               r.peak_rss_kb / 1024.0);
  std::fprintf(t, "  status:");
  for (int i = 0; i < static_cast<int>(Status::count_); ++i)
    if (s.status[i])
      std::fprintf(t, "  %s %llu (%.3g%%)", status_name(static_cast<Status>(i)), static_cast<unsigned long long>(s.status[i]),
                   total ? 100.0 * double(s.status[i]) / double(total) : 0.0);
  std::fprintf(t, "\n");
  if (!a.checkpoint.empty())
    std::fprintf(t, "  checkpoint %s: %llu chunks read back, %llu recomputed (a file corrupt or of another run's key)\n",
                 a.checkpoint.c_str(), static_cast<unsigned long long>(r.chunks_loaded),
                 static_cast<unsigned long long>(r.chunks_corrupt));
  if (!r.loads.empty()) {
    double mx = 0, sum = 0;
    for (const sampled::ProcessLoad& l : r.loads) mx = std::max(mx, l.busy_seconds), sum += l.busy_seconds;
    std::fprintf(t, "  %zu processes (chunks of %llu handed out as they finish), busy time max/mean %.3f:", r.loads.size(),
                 static_cast<unsigned long long>(r.chunk), sum > 0 ? mx / (sum / double(r.loads.size())) : 1.0);
    for (std::size_t p = 0; p < r.loads.size(); ++p)
      std::fprintf(t, "  [%zu] %llu chunks %.3f s", p, static_cast<unsigned long long>(r.loads[p].chunks),
                   r.loads[p].busy_seconds);
    std::fprintf(t, "\n");
  }
  std::fprintf(t, "  %-26s %12s %13s %13s %13s %13s\n", "over ok rows", "count", "mean", "sd", "min", "max");
  for (int k = 0; k < kNumQuantities; ++k) {
    const SumMoments& m = s.q[k];
    const bool any = m.min <= m.max;  // a finite value was seen
    const double nan = SumMoments::nan();
    std::fprintf(t, "  %-6s %-19s %12llu %13.6g %13.6g %13.6g %13.6g\n", quantity_key(k), quantity_name(k),
                 static_cast<unsigned long long>(m.count()), m.mean(), m.sd(), any ? m.min : nan, any ? m.max : nan);
  }
  for (int k = 0; k < kNumQuantities; ++k)
    if (s.q[k].far)
      std::fprintf(t,
                   "  %s: %llu values not finite or beyond 2^72 times the data's scale (the pilot's range), so no "
                   "mean or sd: they are counted, not summed\n",
                   quantity_key(k), static_cast<unsigned long long>(s.q[k].far));
  std::fprintf(t, "  histograms (%d bins on [lo, hi); '<' below lo, '>' at or above hi):\n", Histogram::kBins);
  for (int k = 0; k < kNumQuantities; ++k) {
    const Histogram& h = s.h[k];
    std::fprintf(t, "  %-6s [%-9.4g %9.4g) <%-9llu |%s| >%llu\n", quantity_key(k), h.lo, h.hi,
                 static_cast<unsigned long long>(h.count[0]), sparkline(h).c_str(),
                 static_cast<unsigned long long>(h.count[Histogram::kBins + 1]));
  }
}

}  // namespace

CLI::App* add_reduce_subcommand(CLI::App& app, ReduceArgs& a) {
  CLI::App* c = app.add_subcommand(
      "reduce",
      "Sample N instances of a study on the device, evaluate one law and reduce to a summary (no per-instance storage)");
  c->add_option("--law", a.req.law, "Impact law: " + law_names())->required();
  c->add_option("--scenario", a.req.scenario, "contact|ball")->capture_default_str();
  c->add_option("--n", a.req.n, "Number of instances")->capture_default_str();
  c->add_option("--first", a.req.first, "Index of the first instance (a shard is [first, first + n))")->capture_default_str();
  c->add_option("--seed", a.req.seed, "Philox seed")->capture_default_str();
  c->add_option("--set", a.req.sets,
                "KEY=DIST, DIST one of fixed:VALUE, uniform:LO:HI, normal:MEAN:SD, lognormal:MU:SIGMA, "
                "truncnormal:MEAN:SD:LO:HI or a number, as in a study's config (repeatable). contact keys: w1 w2 w3 rx ry rz vn "
                "vt phi mu e "
                "e_t eta0, and rotation=random|vector|identity (random by default; setting rx, ry or rz selects vector); "
                "ball keys: m r V0x V0y V0z w0x w0y w0z mu e e_t eta0 (the parameters of `impact study`'s scenarios)");
  c->add_option("--range", a.req.ranges, "QUANTITY=LO:HI histogram range (Pn, Pt, vfn, dE_K0; default from a pilot run)");
  c->add_option("--backend", a.req.backend, "auto|cuda|omp|serial")->capture_default_str();
  c->add_option("--precision", a.req.precision, "double|float")->capture_default_str();
  c->add_option("--steps", a.req.steps, "Steps per instance for the integrators")
      ->capture_default_str()
      ->each([&a](const std::string&) { a.integrator_options.emplace_back("--steps"); });
  c->add_option("--integrator", a.req.integrator, "rk4|euler (integrators)")
      ->capture_default_str()
      ->each([&a](const std::string&) { a.integrator_options.emplace_back("--integrator"); });
  c->add_option("--chunk", a.req.chunk, "Instances per reduction call (0: 65536 on CPUs, 2^24 on CUDA)")->capture_default_str();
  c->add_option("--out", a.out, "JSON summary file ('-' for stdout)");
  c->add_option("--cases-out", a.req.cases_out, "Also write the sampled instances as a CSV for `impact eval`");
  c->add_option("--checkpoint", a.req.checkpoint,
                "Keep every finished chunk in this folder (atomic files with checksums), so that an interrupted run "
                "can be resumed");
  c->add_flag("--resume", a.req.resume,
              "With --checkpoint: compute only the chunks missing there (a corrupt file is recomputed); the result is "
              "that of an uninterrupted run");
  c->add_flag("--quiet,-q", a.quiet, "No progress lines and no table");
  return c;
}

sampled::ReduceResult run_reduce(const ReduceArgs& a, std::FILE* table, std::FILE* log) {
  std::string why;
  const sampled::ReduceSpec rs = sampled::reduce_spec(a.req, &why);
  if (!a.out.empty() && !a.req.cases_out.empty() && io::same_destination(a.out, a.req.cases_out))
    throw std::invalid_argument("--out and --cases-out name one file (" + a.out + "): name another for one of them");
  if (table == stdout && a.out == "-") table = stderr;  // keep stdout parseable
  if (table == stdout && a.req.cases_out == "-") table = stderr;
  const bool writes = !a.plan || a.plan->rank() == 0;
  note_integrator_options("reduce", a.integrator_options, rs.law->integrator(), rs.law->name, writes);
  if (a.plan && rs.backend == Backend::cuda) {
    const int d = bind_device_to_rank(a.local_rank);
    if (d >= 0) why += ", GPU " + std::to_string(d) + " per node-local rank";
  }
  sampled::ReduceResult res = sampled::reduce(rs, a.quiet || !writes ? nullptr : log, a.plan);
  if (!writes) return res;
  if (table && !a.quiet) print_table(table, rs, res, why);
  if (!a.out.empty()) io::write_file(a.out, sampled::reduce_json(rs, res), io::Links::follow);
  return res;
}

}  // namespace impact::cli
