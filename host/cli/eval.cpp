#include "cli/eval.hpp"

#include <CLI/CLI.hpp>
#include <chrono>
#include <optional>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "cli/usage.hpp"
#include "engine/backend_pick.hpp"
#include "engine/backend_trial.hpp"
#include "engine/evaluate.hpp"
#include "engine/options.hpp"
#include "engine/registry.hpp"
#include "io/csv.hpp"
#include "io/out_file.hpp"
#include "io/pipeline.hpp"
#include "reference/reference.hpp"
#include "systems/scenario_table.hpp"
#ifdef IMPACT_WITH_MPI
#include <cerrno>
#include <cstring>
#include <optional>
#include <vector>

#include <unistd.h>

#include "dist/mpi.hpp"
#endif

namespace impact::cli {

using namespace impact::engine;

CLI::App* add_eval_subcommand(CLI::App& app, EvalArgs& ea) {
  CLI::App* eval = app.add_subcommand("eval", "Evaluate a CSV of contact-space instances with one law");
  eval->add_option("--law", ea.law, "Impact law: " + law_names())->required();
  eval->add_option("--in", ea.in, "Input CSV with a header row ('-' for stdin)")->required();
  eval->add_option("--scenario", ea.scenario,
                   "The rows are parameters of this scenario (`impact scenarios`; any of them, the others at their "
                   "defaults) instead of contact-space instances; the table gains the body-level outputs");
  eval->add_option("--out", ea.out, "Output CSV ('-' for stdout)")->capture_default_str();
  eval->add_option("--backend", ea.backend, "auto|cuda|omp|serial|reference")->capture_default_str();
  eval->add_option("--precision", ea.precision, "double|float")->capture_default_str();
  eval->add_option("--steps", ea.steps, "Steps per instance for the integrators (not the reference, which is adaptive)")
      ->capture_default_str()
      ->each([&ea](const std::string&) { ea.integrator_options.emplace_back("--steps"); });
  eval->add_option("--integrator", ea.integrator, "rk4|euler (integrators; not the reference)")
      ->capture_default_str()
      ->each([&ea](const std::string&) { ea.integrator_options.emplace_back("--integrator"); });
  eval->add_option("--chunk", ea.chunk, "Rows per batch")->capture_default_str();
  eval->add_option("--pipeline", ea.pipeline,
                   "Chunks in flight (default 3): reading and parsing chunk k+1, the law on chunk k and writing "
                   "chunk k-1 overlap (1: one after another; the output is the same bytes for every value)")
      ->each([&ea](const std::string&) { ea.pipeline_given = true; });
  eval->add_option("--timeline", ea.timeline,
                   "Write the pipeline's stage times per chunk (read, parse, law, format, write) as CSV to this "
                   "file; the summary shows each stage's busy time and each thread's idle fraction");
  eval->add_flag("--quiet,-q", ea.quiet, "No summary on stderr");
  return eval;
}

namespace {

void print_summary(std::FILE* f, const EvalArgs& args, const LawInfo& law, const BackendPick& backend, Precision precision,
                   const std::string& input, const TableStats& s, double total, const EvalTimeline* timeline = nullptr) {
  std::fprintf(f, "impact eval: law %s, backend %s%s, precision %s, input %s\n", law.name.c_str(), backend_name(backend.backend),
               backend.why.c_str(), precision_name(precision), input.c_str());
  std::fprintf(f, "  rows %zu", s.rows);
  for (int k = 0; k < static_cast<int>(Status::count_); ++k)
    if (s.status_count[k]) std::fprintf(f, "   %s %zu", status_name(static_cast<Status>(k)), s.status_count[k]);
  std::fprintf(f, "\n");
  std::fprintf(f, "  law time %.3g s (%.3g instances/s), total %.3g s (%.3g rows/s incl. I/O)\n", s.law_seconds,
               s.law_seconds > 0 ? s.rows / s.law_seconds : 0.0, total, total > 0 ? s.rows / total : 0.0);
  if (s.Pn.n) {
    std::fprintf(f, "  %-22s %12s %12s %12s\n", "over ok rows", "min", "mean", "max");
    auto row = [&](const char* name, const RangeStat& r) {
      if (r.n) std::fprintf(f, "  %-22s %12.5g %12.5g %12.5g\n", name, r.min, r.sum / r.n, r.max);
    };
    row("normal impulse P.n", s.Pn);
    row("tangential |P_t|", s.Pt);
    row("separation vf.n", s.vfn);
    row("dE / K0 (energy ratio)", s.dE_rel);
  }
  if (!s.modes.empty()) {
    std::fprintf(f, "  mode sequences:");
    for (const auto& [k, v] : s.modes) std::fprintf(f, "  %s %.1f%%", k.c_str(), 100.0 * v / s.Pn.n);
    std::fprintf(f, "\n");
  }
  if (timeline) std::fputs(timeline_table(*timeline, "  ").c_str(), f);
  if (args.out != "-") std::fprintf(f, "  results written to %s\n", args.out.c_str());
  if (!args.timeline.empty()) std::fprintf(f, "  pipeline timeline written to %s\n", args.timeline.c_str());
}

// --pipeline, or its default
int pipeline_of(const EvalArgs& args) { return args.pipeline_given ? args.pipeline : EvalPipeline{}.depth; }

// `auto` with more than one candidate: a trial on the first chunk (engine::TrialBatch) for chunks of
// `batch_rows` rows.
struct Trial {
  AutoCandidates candidates;
  double batch_rows = 0;
};

// The entry point of the run: the named (or modelled) backend's, or a trial among the candidates.
template <class T>
BatchCall<T> entry_point(const LawInfo& law, const BackendPick& backend, const LawOptions& opt, const Trial& trial,
                         std::optional<TrialBatch<T>>& chooser) {
  if (trial.candidates.backends.size() < 2) return ref::any_batch_fn<T>(law, backend.backend);
  chooser.emplace(TrialBatch<T>::for_law(law, opt, trial.candidates, trial.batch_rows));
  return std::ref(*chooser);
}

template <class T>
void run(const EvalArgs& args, const LawInfo& law, const BackendPick& backend, Precision precision, const LawOptions& opt,
         const Trial& trial, std::FILE* summary) {
  const auto t0 = std::chrono::steady_clock::now();
  io::CsvReader reader(args.in);
  io::remove_stale_writes(io::destination(args.out));  // what a killed run left beside OUT's destination
  io::OutFile out(args.out, io::Links::follow);
  std::optional<TrialBatch<T>> chooser;
  const BatchCall<T> fn = entry_point<T>(law, backend, opt, trial, chooser);
  std::optional<io::OutFile> tf;  // opened before any work: a path that cannot be written fails first
  if (!args.timeline.empty()) tf.emplace(args.timeline, io::Links::follow);
  EvalTimeline tl;
  const bool piped = args.scenario.empty();
  const TableStats s =
      piped ? evaluate_table<T>(reader, out, law, fn, opt, EvalPipeline{args.chunk, pipeline_of(args)}, &tl)
            : systems::evaluate_scenario_table<T>(reader, out, *systems::find_scenario(args.scenario), law, fn, opt, args.chunk);
  // both files or neither: the timeline's bytes are written out (a full disk, /dev/full) before the
  // table is moved into place, and a failed table leaves no timeline behind
  if (tf) {
    tf->put(timeline_csv(tl));
    tf->flush();
  }
  out.commit();
  if (tf) tf->commit();
  const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const BackendPick ran = chooser && chooser->decided() ? BackendPick{chooser->backend(), chooser->why()} : backend;
  if (summary) print_summary(summary, args, law, ran, precision, reader.path(), s, total, piped ? &tl : nullptr);
}

#ifdef IMPACT_WITH_MPI
// Rank r's share of the table whose destination is `dest`.
std::string share_name(const std::string& dest, int rank) {
  const std::size_t slash = dest.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : dest.substr(0, slash + 1);
  const std::string base = slash == std::string::npos ? dest : dest.substr(slash + 1);
  return dir + "." + base + ".part" + std::to_string(rank) + ".tmp-" + std::to_string(::getpid()) + "-0";
}

// Appends the file at `path` to out, then removes it.
void append_and_remove(io::OutFile& out, const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw std::runtime_error(path + ": cannot open a share of the table: " + std::strerror(errno));
  std::vector<char> buf(1 << 20);
  for (std::size_t got; (got = std::fread(buf.data(), 1, buf.size(), f)) > 0;) out.put(buf.data(), got);
  const bool bad = std::ferror(f);
  std::fclose(f);
  if (bad) throw std::runtime_error(path + ": read error in a share of the table");
  std::remove(path.c_str());
}

// This rank's share of the file's lines (io::line_share) evaluated into a share beside OUT's
// destination, named as a temporary of OUT.partR of this process (.OUT.partR.tmp-PID-0: a name no
// user's file has, removed by the next run's remove_stale_writes if this process dies); once every
// rank's share is written, rank 0 writes the header and the shares in rank order (input order) to
// OUT and removes them (their names gathered: this run's only).
template <class T>
int run_share(const EvalArgs& args, const LawInfo& law, const BackendPick& backend, Precision precision, const LawOptions& opt,
              std::FILE* summary) {
  const dist::World& w = *args.world;
  const auto t0 = std::chrono::steady_clock::now();
  const BatchFn<T> fn = ref::any_batch_fn<T>(law, backend.backend);
  int code = 0;
  std::string error;
  auto fail = [&](int c, const char* what) { code = c, error = what; };
  InputLayout lay;
  io::ByteRange range;
  std::uint64_t breaks = 0;
  long header_line = 1;
  try {
    io::CsvReader head(args.in);
    lay = read_header(head, law);
    header_line = head.line_no();
    range = io::line_share(args.in, head.offset(), w.rank(), w.size());
    breaks = io::count_line_breaks(args.in, range);
  } catch (const io::InputError& e) { fail(1, e.what()); } catch (const std::exception& e) {
    fail(2, e.what());
  }
  // rank 0 removes what a killed run left beside OUT before any rank writes: rank r > 0 passes the
  // scan only after rank 0 entered it
  const std::string dest = io::destination(args.out);  // the shares beside it, in its real folder
  if (w.rank() == 0 && code == 0) try {
      io::remove_stale_writes(dest);
    } catch (const std::exception& e) { fail(2, e.what()); }
  const std::uint64_t before = w.exscan(breaks);  // the lines of the shares before this one
  std::optional<io::OutFile> part;
  TableStats s;
  if (code == 0) try {
      io::CsvReader rows(args.in, range.begin, range.end, header_line + 1 + static_cast<long>(before));
      part.emplace(share_name(dest, w.rank()));
      s = evaluate_rows<T>(rows, *part, lay, law, fn, opt, EvalPipeline{args.chunk, pipeline_of(args)});
    } catch (const io::InputError& e) { fail(1, e.what()); } catch (const std::exception& e) {
      fail(2, e.what());
    }
  const std::vector<std::string> errors = w.gather(std::to_string(code) + " " + error);
  if (!w.all(code == 0)) {
    part.reset();                        // its temporary goes
    for (const std::string& e : errors)  // rank 0: the first share's error is the first in the file
      if (e[0] != '0') {
        std::fprintf(stderr, "impact: error: %s\n", e.substr(2).c_str());
        return e[0] - '0';
      }
    return code;
  }
  part->commit();
  const std::vector<std::string> shares = w.gather(part->path());
  const std::vector<std::string> texts = w.gather(to_text(s));
  w.barrier();  // every share is on disk
  if (w.rank() != 0) return 0;
  io::OutFile out(args.out, io::Links::follow);
  out.put(table_header(lay));
  TableStats all;
  for (int r = 0; r < w.size(); ++r) {
    append_and_remove(out, shares[static_cast<std::size_t>(r)]);
    merge_into(all, table_stats_from_text(texts[static_cast<std::size_t>(r)]));
  }
  out.commit();
  const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (summary) {
    print_summary(summary, args, law, backend, precision, args.in, all, total);
    std::fprintf(summary, "  %d processes, one share of the lines each (law time: the longest share's)\n", w.size());
  }
  return 0;
}
#endif

// The rows of an input file estimated from its size and the mean length of its first rows (those
// that end within its first 64 KiB, the header left out): a table of two short scenario parameters
// has ten times the rows of a contact-space table of the same bytes. 0 for stdin and for what is
// not a regular file (a FIFO is not opened: its bytes are the run's).
double estimated_rows(const std::string& path) {
  if (path == "-") return 0;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec) || ec) return 0;
  const auto bytes = std::filesystem::file_size(path, ec);
  if (ec) return 0;
  std::ifstream f(path, std::ios::binary);
  std::string head(std::size_t(1) << 16, '\0');
  f.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(std::max<std::streamsize>(f.gcount(), 0)));
  const std::size_t header_end = head.find('\n'), last = head.rfind('\n');
  if (header_end == std::string::npos || last == header_end) return 1;  // at most a row beyond the sample's header
  const double rows_seen = double(std::count(head.begin() + static_cast<std::ptrdiff_t>(header_end) + 1,
                                             head.begin() + static_cast<std::ptrdiff_t>(last) + 1, '\n'));
  return double(bytes - header_end - 1) * rows_seen / double(last - header_end);
}

}  // namespace

int run_eval(const EvalArgs& args, std::FILE* summary) {
  const LawInfo& law = law_named(args.law);
  const Precision precision = parse_precision(args.precision);
  const LawOptions opt = law_options(args.steps, parse_integrator(args.integrator));
  if (!args.scenario.empty() && !systems::find_scenario(args.scenario))
    throw std::invalid_argument("--scenario: unknown scenario '" + args.scenario + "' (known: " + systems::scenario_list() + ")");
  if (io::same_file(args.in, args.out))
    throw std::invalid_argument("--in and --out name the same file (" + args.out + "): write the results to another file");
  Workload w;
  w.laws = {&law};
  w.precision = precision;
  w.steps = args.steps;
  w.rows = estimated_rows(args.in);
  const BackendPick backend = pick_backend(args.backend, w, true);
  // what would change nothing is not taken in silence: the reference integrates to its tolerance
  // whatever the fast path's steps (refused, since its rows would claim them); an algebraic law has
  // no steps (said, since a loop over laws passes the same options to each)
  if (!args.integrator_options.empty() && backend.backend == Backend::reference)
    throw std::invalid_argument(args.integrator_options.front() +
                                ": the reference integrates adaptively (to a relative 1e-13); --steps and "
                                "--integrator set the fast path's integrators");
  note_integrator_options("eval", args.integrator_options, law.integrator(), law.name, args.notes);
  if (args.chunk < 1 || args.chunk > (std::size_t(1) << 24))
    throw std::invalid_argument("--chunk must be between 1 and 16777216 rows, got " + std::to_string(args.chunk));
  if (args.pipeline_given && (args.pipeline < 1 || args.pipeline > io::kMaxPipelineDepth))
    throw std::invalid_argument("--pipeline must be between 1 and " + std::to_string(io::kMaxPipelineDepth) + " chunks, got " +
                                std::to_string(args.pipeline));
  if ((!args.timeline.empty() || args.pipeline_given) && !args.scenario.empty())
    throw std::invalid_argument(std::string(args.timeline.empty() ? "--pipeline" : "--timeline") +
                                ": a --scenario table is evaluated one chunk after another, with no pipeline");
  if (!args.timeline.empty() &&
      (args.timeline == "-" || io::same_destination(args.timeline, args.out) || io::same_destination(args.timeline, args.in)))
    throw std::invalid_argument("--timeline must name a file of its own, not stdout, --in or --out");
#ifdef IMPACT_WITH_MPI
  if (args.world) {
    if (args.in == "-" || args.out == "-")
      throw std::invalid_argument("under mpirun, --in and --out must be files (the processes share the input's lines)");
    if (!args.scenario.empty()) throw std::invalid_argument("under mpirun, --scenario runs as one process");
    if (!args.timeline.empty()) throw std::invalid_argument("under mpirun, --timeline is not written: run one process");
    if (precision == Precision::f32) return run_share<float>(args, law, backend, precision, opt, summary);
    return run_share<double>(args, law, backend, precision, opt, summary);
  }
#endif
  // auto: a trial on the first chunk where there is more than one backend to weigh and chunks follow
  // it to gain from the choice (a table of stdin, or estimated at over two chunks); else the rate
  // model's choice. One process only: over processes every share runs on the modelled backend, so
  // that one table is one backend's bits.
  Trial trial;
  if (args.backend == "auto") {
    trial.batch_rows = w.rows > 0 ? std::min(double(args.chunk), w.rows) : double(args.chunk);
    if (w.rows == 0 || w.rows > 2.0 * double(args.chunk)) trial.candidates = auto_candidates(w, trial.batch_rows);
  }
  if (precision == Precision::f32) run<float>(args, law, backend, precision, opt, trial, summary);
  else run<double>(args, law, backend, precision, opt, trial, summary);
  return 0;
}

}  // namespace impact::cli
