#include "study/pieces.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <cstring>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "engine/device.hpp"
#include "io/checksum.hpp"
#include "io/out_file.hpp"
#include "io/version.hpp"
#include "io/progress.hpp"
#include "resume/checkpoint.hpp"
#include "study/output_folder.hpp"
#include "resume/parts.hpp"
#include "study/run.hpp"
#include "systems/scenarios.hpp"

namespace impact::study {

namespace {

static_assert(std::is_trivially_copyable_v<Moments>, "moments travel as bytes");

// Values as bytes (the processes run the same build, so the layouts agree).
class Bytes {
 public:
  template <class X>
  void put(const X& x) {
    s_.append(reinterpret_cast<const char*>(&x), sizeof x);
  }
  template <class X>
  void put(const std::vector<X>& v) {
    put<std::uint64_t>(v.size());
    s_.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(X));
  }
  void put_text(const std::string& t) {
    put<std::uint64_t>(t.size());
    s_ += t;
  }
  std::string& str() { return s_; }

 private:
  std::string s_;
};

class Reader {
 public:
  explicit Reader(const std::string& s) : s_(s), end_(s.size()) {}
  template <class X>
  X get() {
    X x;
    take(&x, sizeof x);
    return x;
  }
  template <class X>
  void append_to(std::vector<X>& v) {
    const std::uint64_t n = get<std::uint64_t>();
    if (n > (end_ - at_) / sizeof(X)) throw std::runtime_error("study: a piece's statistics are short");
    const std::size_t at = v.size();
    v.resize(at + n);
    take(v.data() + at, n * sizeof(X));
  }
  std::string text() {
    const std::uint64_t n = get<std::uint64_t>();
    if (n > end_ - at_) throw std::runtime_error("study: a piece's statistics are short");
    std::string t = s_.substr(at_, n);
    at_ += n;
    return t;
  }
  bool done() const { return at_ >= end_; }

 private:
  void take(void* p, std::size_t n) {
    if (n > end_ - at_) throw std::runtime_error("study: a piece's statistics are short");
    std::memcpy(p, s_.data() + at_, n);
    at_ += n;
  }
  const std::string& s_;
  std::size_t at_ = 0, end_;
};

static_assert(std::is_trivially_copyable_v<io::FileSum>, "part sums travel as bytes");

// A piece as stored and sent: the size and CRC-32 of each of its part files (layout.files order),
// its first row and rows, then its statistics. The checkpoint file around it holds the run's key
// and the piece's index (Checkpoint::head), so a piece is tied to its run, its position and the
// bytes of its parts.
std::string pack(const RunResult& r, std::uint64_t first, std::uint64_t rows, const std::vector<io::FileSum>& sums) {
  Bytes b;
  b.put(sums);
  b.put(first);
  b.put(rows);
  b.put(r.build_seconds);
  b.put(r.write_seconds);
  b.put(r.build_failed);
  for (const LawStats& st : r.stats) {
    b.put(st.seconds);
    for (std::uint64_t n : st.status_count) b.put(n);
    b.put(st.block_moments);
    for (const std::vector<double>& k : st.keep) b.put(k);
  }
  return b.str();
}

std::string part_path(const std::string& dir, const std::string& name, std::uint64_t k) {
  return dir + "/" + resume::part_file_name(name, static_cast<int>(k));
}

// The size and CRC-32 of each part file piece k wrote, read back from the disk.
std::vector<io::FileSum> part_sums(const std::string& dir, const std::vector<std::string>& files, std::uint64_t k) {
  std::vector<io::FileSum> sums;
  sums.reserve(files.size());
  for (const std::string& f : files) sums.push_back(io::file_sum(part_path(dir, f, k)));
  return sums;
}

// Whether the part files of a piece read back from the checkpoint are there with the bytes it
// recorded (size and CRC-32: a part of another run or of another piece does not pass).
bool parts_intact(const std::string& dir, const std::vector<std::string>& files, std::uint64_t k, const std::string& bytes) {
  try {
    Reader in(bytes);
    std::vector<io::FileSum> sums;
    in.append_to(sums);
    if (sums.size() != files.size()) return false;
    for (std::size_t i = 0; i < files.size(); ++i) {
      struct stat st {};  // a part is a regular file of the folder, never read through a link
      if (::lstat(part_path(dir, files[i], k).c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
      const io::FileSum now = io::file_sum(part_path(dir, files[i], k));
      if (now.bytes != sums[i].bytes || now.crc32 != sums[i].crc32) return false;
    }
    return true;
  } catch (const std::exception&) { return false; }
}

// One piece's statistics added into `r` (status counts, build failures, block moments and
// sensitivity outputs appended); its law seconds per law into `law_s` and its building and writing
// seconds into `host_s` unless it was read back; its part files' sums into `sums`. Returns its rows
// and sets `first`; throws when the bytes do not decode into r's layout.
std::uint64_t add_piece(RunResult& r, const std::string& bytes, bool computed, std::vector<double>& law_s, double& host_s,
                        std::uint64_t& first, std::vector<io::FileSum>& sums) {
  Reader in(bytes);
  sums.clear();
  in.append_to(sums);
  first = in.get<std::uint64_t>();
  const std::uint64_t rows = in.get<std::uint64_t>();
  const double build = in.get<double>(), write = in.get<double>();
  r.build_failed += in.get<std::uint64_t>();
  if (computed) host_s += build + write;
  for (std::size_t l = 0; l < r.stats.size(); ++l) {
    LawStats& st = r.stats[l];
    const double s = in.get<double>();
    if (computed) law_s[l] += s;
    for (std::uint64_t& n : st.status_count) n += in.get<std::uint64_t>();
    in.append_to(st.block_moments);
    for (std::vector<double>& k : st.keep) in.append_to(k);
  }
  if (!in.done()) throw std::runtime_error("study: a piece's statistics are longer than their layout");
  return rows;
}

// Whether a piece read back from the checkpoint decodes into this run's layout (add_piece on an
// empty copy of it) with the rows [first, first + rows): that many rows' statistics blocks and
// sensitivity outputs, and a sum for each part file.
bool piece_fits(const RunResult& layout, const std::string& bytes, std::uint64_t first, std::uint64_t rows, std::uint64_t B) {
  RunResult one = layout;
  std::vector<double> law_s(layout.stats.size());
  double host_s = 0;
  std::uint64_t at = 0;
  std::vector<io::FileSum> sums;
  try {
    if (add_piece(one, bytes, false, law_s, host_s, at, sums) != rows || at != first) return false;
  } catch (const std::exception&) { return false; }
  if (sums.size() != layout.files.size()) return false;
  for (std::size_t l = 0; l < one.stats.size(); ++l) {
    if (one.stats[l].block_moments.size() != (rows + B - 1) / B * one.laws[l].cols.size()) return false;
    for (const std::vector<double>& k : one.stats[l].keep)
      if (k.size() != rows) return false;
  }
  return true;
}

// Says every process's distinct error once (rank 0).
void say_errors(resume::ProcessGroup& comm, const std::string& mine, std::FILE* log) {
  say_distinct_errors(comm.gather(mine, "use fewer rows per run, or fewer sensitivity outputs"), log);
}

// What a process did: its rows, its host seconds, and its pieces read back or found bad.
struct Load {
  std::uint64_t rows = 0, loaded = 0, corrupt = 0, parts_bad = 0;
  double host_s = 0;
};

// Rank 0: every process's pieces in piece order, merged into the run's result; the manifest of the
// parts; the note on how the work was shared.
void merge_pieces(const std::vector<std::string>& ranks, std::uint64_t count, std::uint64_t total, RunResult& r,
                  resume::PartsManifest& m, std::string& note) {
  struct Piece {
    std::uint64_t k;
    bool computed;
    std::string bytes;
    std::size_t rank;
  };
  std::vector<Piece> pieces;
  std::vector<Load> loads(ranks.size());
  for (std::size_t p = 0; p < ranks.size(); ++p) {
    Reader in(ranks[p]);
    loads[p].loaded = in.get<std::uint64_t>();
    loads[p].corrupt = in.get<std::uint64_t>();
    loads[p].parts_bad = in.get<std::uint64_t>();
    while (!in.done()) {
      const std::uint64_t k = in.get<std::uint64_t>();
      const bool computed = in.get<std::uint8_t>() != 0;
      pieces.push_back({k, computed, in.text(), p});
    }
  }
  std::sort(pieces.begin(), pieces.end(), [](const Piece& a, const Piece& b) { return a.k < b.k; });
  for (std::size_t i = 0; i < pieces.size(); ++i)
    if (pieces[i].k != i) throw std::runtime_error("study: piece " + std::to_string(i) + " was not run");
  if (pieces.size() != count)
    throw std::runtime_error("study: " + std::to_string(pieces.size()) + " of " + std::to_string(count) + " pieces were run");
  // per process and law: the seconds in the law (of the pieces it computed)
  std::vector<std::vector<double>> law_s(ranks.size(), std::vector<double>(r.stats.size(), 0.0));
  std::uint64_t at = 0;
  for (const Piece& pc : pieces) {
    Load& L = loads[pc.rank];
    std::uint64_t first = 0;
    std::vector<io::FileSum> sums;
    const std::uint64_t rows = add_piece(r, pc.bytes, pc.computed, law_s[pc.rank], L.host_s, first, sums);
    if (first != at)
      throw std::runtime_error("study: piece " + std::to_string(pc.k) + " holds rows from " + std::to_string(first) +
                               ", expected " + std::to_string(at));
    m.first.push_back(at);
    m.rows.push_back(rows);
    m.sums.push_back(sums);
    at += rows;
    L.rows += rows;
  }
  if (at != total)
    throw std::runtime_error("study: the pieces hold " + std::to_string(at) + " rows, the design " + std::to_string(total));
  // the laws' time of the run: its slowest process's; the host phases likewise
  for (std::size_t l = 0; l < r.stats.size(); ++l) {
    r.stats[l].seconds = 0;
    for (const std::vector<double>& s : law_s) r.stats[l].seconds = std::max(r.stats[l].seconds, s[l]);
    r.stats[l].moments = fold_block_moments(r.stats[l].block_moments, r.laws[l].cols.size());
  }
  double mx = 0, sum = 0, host = 0;
  std::uint64_t loaded = 0, corrupt = 0, parts_bad = 0;
  for (std::size_t p = 0; p < loads.size(); ++p) {
    double busy = 0;
    for (double x : law_s[p]) busy += x;
    mx = std::max(mx, busy), sum += busy, host = std::max(host, loads[p].host_s);
  }
  for (const Load& L : loads) loaded += L.loaded, corrupt += L.corrupt, parts_bad += L.parts_bad;
  r.build_seconds = host;  // building and writing, per process: reported together
  r.write_seconds = 0;
  char buf[160];
  std::snprintf(buf, sizeof buf, "%zu pieces of %llu rows over %zu process(es)", pieces.size(),
                static_cast<unsigned long long>(m.rows.front()), ranks.size());
  note = buf;
  note += " (rows per process:";
  for (std::size_t p = 0; p < loads.size(); ++p) note += (p ? ", " : " ") + std::to_string(loads[p].rows);
  const double mean = sum / double(loads.size());
  std::snprintf(buf, sizeof buf, "; law seconds max/mean %.3f", mean > 0 ? mx / mean : 1.0);
  note += buf;
  if (loaded || corrupt || parts_bad)
    note += "; read back from the checkpoint: " + std::to_string(loaded) + " pieces, " + std::to_string(corrupt) +
            " bad files recomputed, " + std::to_string(parts_bad) + " recomputed for parts missing or changed";
  note += ")";
}

// Everything that decides a piece's bits and files: the resolved study but for run.chunk and the
// plots (they change neither), the design's rows and an imported file's bytes (the CRC-32 of the
// very bytes the rows were read from, taken while reading them), the backend, the piece size and
// the build.
std::string run_key(const StudyConfig& c, const design::Design& design, const ReportOptions& o, std::uint64_t rows,
                    std::uint64_t per) {
  nlohmann::json j = to_json(c);
  j["run"].erase("chunk");
  j.erase("plots");
  const std::string source = design.source_sum().empty() ? "none" : design.source_sum();
  return j.dump() + " rows=" + std::to_string(rows) + " design_source=" + source + " backend=" + engine::backend_name(o.backend) +
         " piece=" + std::to_string(per) + " build=" + io::version() + "/" + io::git_revision();
}

}  // namespace

void say_distinct_errors(const std::vector<std::string>& errors, std::FILE* log) {
  std::vector<std::string> said;
  for (std::size_t p = 0; p < errors.size(); ++p) {
    if (errors[p].empty() || std::find(said.begin(), said.end(), errors[p]) != said.end()) continue;
    said.push_back(errors[p]);
    const std::string who = p > 0 ? "rank " + std::to_string(p) + ": " : "";
    if (log) std::fprintf(log, "impact study: error: %s%s\n", who.c_str(), errors[p].c_str());
  }
}

std::uint64_t piece_rows(std::uint64_t rows) {
  const std::uint64_t B = stat_block_rows(rows), nb = (rows + B - 1) / B;
  return B * std::max((nb + 1023) / 1024, ((std::uint64_t(1) << 16) + B - 1) / B);
}

namespace {

// One run in pieces, phase by phase. Every phase is collective: each process runs it and keeps its
// error, and the run goes on only when no process failed (agreed()); otherwise rank 0 says every
// process's distinct error once.
class PiecesRunner {
 public:
  PiecesRunner(const LoadedStudy& s, const StudyRequest& q, resume::ProcessGroup& comm, const PieceOptions& po, std::FILE* log)
      : c_(s.config),
        sc_(*systems::find_scenario(c_.scenario)),
        design_(*s.design),
        s_(s),
        q_(q),
        comm_(comm),
        po_(po),
        log_(log),
        r0_(comm.rank() == 0),
        rows_(design_.rows()),
        B_(stat_block_rows(rows_)),
        per_(po.piece ? (std::min(po.piece, rows_) + B_ - 1) / B_ * B_ : piece_rows(rows_)),
        count_(std::max<std::uint64_t>(1, (rows_ + per_ - 1) / per_)) {}

  PiecesRun go(std::chrono::steady_clock::time_point start) {
    prepare(start);
    if (!agreed()) return res_;
    compute();
    if (!comm_.all(err_.empty())) {
      if (!ck_)  // without a checkpoint nothing of this run can be used again
        for (std::uint64_t k : ran_)
          for (const std::string& f : layout_.files) std::remove(part_path(c_.out_dir, f, k).c_str());
      say_errors(comm_, err_, log_);
      return res_;
    }
    gather();
    if (!agreed()) return res_;
    if (r0_) attempt([&] { finish(); }, false);
    if (!agreed()) return res_;
    res_.ok = true;
    res_.code = 0;
    return res_;
  }

 private:
  // Runs f, keeping its error; a std::invalid_argument is the config's (exit 1) when `config`.
  template <class F>
  void attempt(F&& f, bool config) {
    try {
      f();
    } catch (const std::invalid_argument& e) {
      err_ = e.what();
      if (config) res_.code = 1;
    } catch (const std::exception& e) { err_ = e.what(); }
  }

  bool agreed() {
    if (comm_.all(err_.empty())) return true;
    say_errors(comm_, err_, log_);
    return false;
  }

  // The options and the run's key on every process, one backend kind on all of them, and (rank 0)
  // the output folder claimed before any process writes.
  void prepare(std::chrono::steady_clock::time_point start) {
    StudyOutcome& o = res_.outcome;
    attempt(
        [&] {
          o.options = study_options(s_, q_, start);
          if (comm_.size() > 1 && o.options.backend == engine::Backend::cuda) engine::bind_device_to_rank(comm_.local_rank());
          key_ = run_key(c_, design_, o.options, rows_, per_);
        },
        false);
    // `auto` is resolved by each process: on nodes with and without a GPU they could differ, and
    // so would their bits (the CUDA kernels contract a*b+c)
    const bool cuda = o.options.backend == engine::Backend::cuda;
    const bool all_cuda = comm_.all(cuda), none_cuda = comm_.all(!cuda);
    if (err_.empty() && !all_cuda && !none_cuda)
      err_ = "the processes resolved the backend differently (cuda on some, " +
             std::string(engine::backend_name(o.options.backend)) + " here): name one with --backend";
    if (!r0_ || !err_.empty()) return;
    attempt(
        [&] {
          if (!po_.checkpoint.empty() && !po_.resume && resume::Checkpoint(po_.checkpoint, key_, "piece").has_chunks()) {
            err_ = "--checkpoint " + po_.checkpoint +
                   " holds pieces of an earlier run: add --resume to finish it, or use another folder";
            return;
          }
          // the folder this run's, before any process writes (its parts among its names: a resumed
          // run's read back stay, and the next run may remove them)
          const std::vector<std::string> tables = run_layout(c_, sc_, design_, o.options.backend).files;
          claim_ = claim_output_folder(c_.out_dir, study_output_files(c_, tables), q_.force, tables, count_);
        },
        true);
  }

  // This process's pieces, taken from the shared counter: read back intact from the checkpoint,
  // or run and written (their parts and, with a checkpoint, their statistics).
  void compute() {
    const StudyOutcome& o = res_.outcome;
    layout_ = run_layout(c_, sc_, design_, o.options.backend);
    attempt(
        [&] {
          if (!po_.checkpoint.empty()) ck_ = std::make_unique<resume::Checkpoint>(po_.checkpoint, key_, "piece");
          io::Progress bar(r0_ && !q_.quiet ? log_ : nullptr, count_, "study " + c_.name);
          for (std::uint64_t k = 0; comm_.next(count_, k);) {
            RunPart part;
            part.first = k * per_;
            part.rows = std::min(per_, rows_ - part.first);
            part.part = static_cast<int>(k);
            std::string bytes;
            const bool stored = ck_ && po_.resume && ck_->load_bytes(k, bytes);
            const bool intact = stored && piece_fits(layout_, bytes, part.first, part.rows, B_) &&
                                parts_intact(c_.out_dir, layout_.files, k, bytes);
            me_.loaded += intact;
            me_.parts_bad += stored && !intact;
            if (!intact) {
              const RunResult r = run(c_, sc_, design_, o.options.backend, o.options.precision, nullptr, part);
              ran_.push_back(k);
              bytes = pack(r, part.first, part.rows, part_sums(c_.out_dir, layout_.files, k));
              if (ck_) ck_->save_bytes(k, bytes);
            }
            Bytes p;
            p.put(k);
            p.put<std::uint8_t>(!intact);
            p.put_text(bytes);
            pieces_ += p.str();
            bar.update(k + 1);
          }
          bar.finish();
        },
        true);
  }

  // Every process's pieces to rank 0 (every process throws alike when the gather is too large,
  // dist::World::gather).
  void gather() {
    Bytes mine;
    mine.put<std::uint64_t>(me_.loaded);
    mine.put<std::uint64_t>(ck_ ? ck_->corrupt() : 0);
    mine.put<std::uint64_t>(me_.parts_bad);
    attempt([&] { all_ = comm_.gather(mine.str() + pieces_, "use fewer rows per run, or fewer sensitivity outputs"); }, false);
    pieces_.clear();
    pieces_.shrink_to_fit();
  }

  // Rank 0: the pieces merged in piece order, parts.json, the tables merged (unless kept in
  // parts), the report.
  void finish() {
    StudyOutcome& o = res_.outcome;
    o.run = layout_;
    resume::PartsManifest m;
    m.files = layout_.files;
    io::Crc32 key_sum;
    key_sum.add(key_);
    m.run = io::crc_hex(key_sum.value());
    m.total = rows_;
    std::string note;
    merge_pieces(all_, count_, rows_, o.run, m, note);
    write_parts_manifest(c_.out_dir, m);
    if (!po_.keep_parts) {
      merge_parts(c_.out_dir, m);
      // the parts are gone: the folder lists what it holds, the single process's manifest
      resume::write_manifest(c_.out_dir, resume::FolderFiles{kStudyKind, study_output_files(c_, layout_.files), {}, 0});
    } else {
      o.options.plots = false;
      o.options.no_plots_why =
          "the tables are in parts (impact study --merge " + c_.out_dir + " assembles them and draws the plots)";
      o.run.notes.push_back("tables kept in parts (" + std::to_string(count_) + " per file, parts.json): impact " +
                            "study --merge " + c_.out_dir + " assembles them");
    }
    o.run.notes.push_back(note);
    if (const std::string n = claim_note(claim_); !n.empty()) o.run.notes.insert(o.run.notes.begin(), n);
    o.report = write_report(c_, sc_, design_, o.run, o.options, log_ ? log_ : stderr);
  }

  const StudyConfig& c_;
  const systems::ScenarioInfo& sc_;
  const design::Design& design_;
  const LoadedStudy& s_;
  const StudyRequest& q_;
  resume::ProcessGroup& comm_;
  const PieceOptions& po_;
  std::FILE* log_;
  const bool r0_;
  const std::uint64_t rows_, B_, per_, count_;
  PiecesRun res_;
  std::string key_, err_;
  FolderClaim claim_;
  std::unique_ptr<resume::Checkpoint> ck_;
  RunResult layout_;
  Load me_;
  std::vector<std::uint64_t> ran_;  // the pieces this process wrote
  std::string pieces_;              // their statistics, packed
  std::vector<std::string> all_;    // rank 0: every process's
};

}  // namespace

PiecesRun run_in_pieces(const LoadedStudy& s, const StudyRequest& q, resume::ProcessGroup& comm, const PieceOptions& po,
                        std::chrono::steady_clock::time_point start, std::FILE* log) {
  return PiecesRunner(s, q, comm, po, log).go(start);
}

}  // namespace impact::study
