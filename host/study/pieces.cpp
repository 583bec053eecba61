#include "study/pieces.hpp"

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
  template <class X> void put(const X& x) { s_.append(reinterpret_cast<const char*>(&x), sizeof x); }
  template <class X> void put(const std::vector<X>& v) {
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
  template <class X> X get() {
    X x;
    take(&x, sizeof x);
    return x;
  }
  template <class X> void append_to(std::vector<X>& v) {
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
  for (const std::string& f : files) sums.push_back(io::file_sum(part_path(dir, f, k)));
  return sums;
}

// Whether the part files of a piece read back from the checkpoint are there with the bytes it
// recorded (size and CRC-32: a part of another run or of another piece does not pass).
bool parts_intact(const std::string& dir, const std::vector<std::string>& files, std::uint64_t k,
                  const std::string& bytes) {
  try {
    Reader in(bytes);
    std::vector<io::FileSum> sums;
    in.append_to(sums);
    if (sums.size() != files.size()) return false;
    for (std::size_t i = 0; i < files.size(); ++i) {
      const io::FileSum now = io::file_sum(part_path(dir, files[i], k));
      if (now.bytes != sums[i].bytes || now.crc32 != sums[i].crc32) return false;
    }
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

// One piece's statistics added into `r` (status counts, build failures, block moments and
// sensitivity outputs appended); its law seconds per law into `law_s` and its building and writing
// seconds into `host_s` unless it was read back; its part files' sums into `sums`. Returns its rows
// and sets `first`; throws when the bytes do not decode into r's layout.
std::uint64_t add_piece(RunResult& r, const std::string& bytes, bool computed, std::vector<double>& law_s,
                        double& host_s, std::uint64_t& first, std::vector<io::FileSum>& sums) {
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
bool piece_fits(const RunResult& layout, const std::string& bytes, std::uint64_t first, std::uint64_t rows,
                std::uint64_t B) {
  RunResult one = layout;
  std::vector<double> law_s(layout.stats.size());
  double host_s = 0;
  std::uint64_t at = 0;
  std::vector<io::FileSum> sums;
  try {
    if (add_piece(one, bytes, false, law_s, host_s, at, sums) != rows || at != first) return false;
  } catch (const std::exception&) {
    return false;
  }
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
  if (pieces.size() != count) throw std::runtime_error("study: " + std::to_string(pieces.size()) + " of " +
                                                       std::to_string(count) + " pieces were run");
  // per process and law: the seconds in the law (of the pieces it computed)
  std::vector<std::vector<double>> law_s(ranks.size(), std::vector<double>(r.stats.size(), 0.0));
  std::uint64_t at = 0;
  for (const Piece& pc : pieces) {
    Load& L = loads[pc.rank];
    std::uint64_t first = 0;
    std::vector<io::FileSum> sums;
    const std::uint64_t rows = add_piece(r, pc.bytes, pc.computed, law_s[pc.rank], L.host_s, first, sums);
    if (first != at) throw std::runtime_error("study: piece " + std::to_string(pc.k) + " holds rows from " +
                                              std::to_string(first) + ", expected " + std::to_string(at));
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
  return j.dump() + " rows=" + std::to_string(rows) + " design_source=" + source +
         " backend=" + engine::backend_name(o.backend) + " piece=" + std::to_string(per) + " build=" + io::version() +
         "/" + io::git_revision();
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

PiecesRun run_in_pieces(const LoadedStudy& s, const StudyRequest& q, resume::ProcessGroup& comm, const PieceOptions& po,
                        std::chrono::steady_clock::time_point start, std::FILE* log) {
  const StudyConfig& c = s.config;
  const systems::ScenarioInfo& sc = *systems::find_scenario(c.scenario);
  const design::Design& design = *s.design;
  PiecesRun res;
  StudyOutcome& o = res.outcome;
  const std::uint64_t rows = design.rows(), B = stat_block_rows(rows);
  const std::uint64_t per = po.piece ? (std::min(po.piece, rows) + B - 1) / B * B : piece_rows(rows);
  const std::uint64_t count = std::max<std::uint64_t>(1, (rows + per - 1) / per);
  std::string key, err;
  FolderClaim claim;
  const bool r0 = comm.rank() == 0;
  try {
    o.options = study_options(s, q, start);
    if (comm.size() > 1 && o.options.backend == engine::Backend::cuda) engine::bind_device_to_rank(comm.local_rank());
    key = run_key(c, design, o.options, rows, per);
  } catch (const std::exception& e) {
    err = e.what();
  }
  // `auto` is resolved by each process: on nodes with and without a GPU they could differ, and so
  // would their bits (the CUDA kernels contract a*b+c)
  const bool cuda = o.options.backend == engine::Backend::cuda;
  const bool all_cuda = comm.all(cuda), none_cuda = comm.all(!cuda);
  if (err.empty() && !all_cuda && !none_cuda)
    err = "the processes resolved the backend differently (cuda on some, " +
          std::string(engine::backend_name(o.options.backend)) + " here): name one with --backend";
  if (r0 && err.empty()) try {
      if (!po.checkpoint.empty() && !po.resume && resume::Checkpoint(po.checkpoint, key, "piece").has_chunks()) {
        err = "--checkpoint " + po.checkpoint + " holds pieces of an earlier run: add --resume to finish it, or use another folder";
      } else {  // the folder this run's, before any process writes (resumed: the parts read back stay)
        claim = claim_output_folder(c.out_dir, study_output_files(c, run_layout(c, sc, design, o.options.backend).files),
                                    q.force, po.resume);
      }
    } catch (const std::invalid_argument& e) {
      err = e.what();
      res.code = 1;
    } catch (const std::exception& e) {
      err = e.what();
    }
  if (!comm.all(err.empty())) return say_errors(comm, err, log), res;

  std::unique_ptr<resume::Checkpoint> ck;
  const RunResult layout = run_layout(c, sc, design, o.options.backend);
  Bytes mine;
  Load me;
  std::vector<std::uint64_t> ran;  // the pieces this process wrote
  std::string pieces;
  try {
    if (!po.checkpoint.empty()) ck = std::make_unique<resume::Checkpoint>(po.checkpoint, key, "piece");
    io::Progress bar(r0 && !q.quiet ? log : nullptr, count, "study " + c.name);
    for (std::uint64_t k = 0; comm.next(count, k);) {
      RunPart part;
      part.first = k * per;
      part.rows = std::min(per, rows - part.first);
      part.part = static_cast<int>(k);
      std::string bytes;
      bool computed = false;
      const bool stored = ck && po.resume && ck->load_bytes(k, bytes);
      const bool intact = stored && piece_fits(layout, bytes, part.first, part.rows, B) &&
                          parts_intact(c.out_dir, layout.files, k, bytes);
      me.loaded += intact;
      me.parts_bad += stored && !intact;
      if (!intact) {
        const RunResult r = run(c, sc, design, o.options.backend, o.options.precision, nullptr, part);
        ran.push_back(k);
        bytes = pack(r, part.first, part.rows, part_sums(c.out_dir, layout.files, k));
        if (ck) ck->save_bytes(k, bytes);
        computed = true;
      }
      Bytes p;
      p.put(k);
      p.put<std::uint8_t>(computed);
      p.put_text(bytes);
      pieces += p.str();
      bar.update(k + 1);
    }
    bar.finish();
  } catch (const std::invalid_argument& e) {
    err = e.what();
    res.code = 1;
  } catch (const std::exception& e) {
    err = e.what();
  }
  if (!comm.all(err.empty())) {
    if (!ck)  // without a checkpoint nothing of this run can be used again
      for (std::uint64_t k : ran)
        for (const std::string& f : layout.files) std::remove(part_path(c.out_dir, f, k).c_str());
    say_errors(comm, err, log);
    return res;
  }
  mine.put<std::uint64_t>(me.loaded);
  mine.put<std::uint64_t>(ck ? ck->corrupt() : 0);
  mine.put<std::uint64_t>(me.parts_bad);
  std::vector<std::string> all;
  try {  // every process throws alike when the gather is too large (dist::World::gather)
    all = comm.gather(mine.str() + pieces, "use fewer rows per run, or fewer sensitivity outputs");
  } catch (const std::exception& e) {
    err = e.what();
  }
  pieces.clear();
  pieces.shrink_to_fit();
  if (!comm.all(err.empty())) return say_errors(comm, err, log), res;
  if (r0) try {
      o.run = layout;
      resume::PartsManifest m;
      m.files = layout.files;
      io::Crc32 key_sum;
      key_sum.add(key);
      m.run = io::crc_hex(key_sum.value());
      std::string note;
      merge_pieces(all, count, rows, o.run, m, note);
      write_parts_manifest(c.out_dir, m);
      if (!po.keep_parts) {
        merge_parts(c.out_dir, m);
        resume::remove_stale_parts(c.out_dir);  // parts of pieces beyond this run's (an earlier --piece)
      } else {
        o.options.plots = false;
        o.options.no_plots_why =
            "the tables are in parts (impact study --merge " + c.out_dir + " assembles them and draws the plots)";
        o.run.notes.push_back("tables kept in parts (" + std::to_string(count) + " per file, parts.json): impact " +
                              "study --merge " + c.out_dir + " assembles them");
      }
      o.run.notes.push_back(note);
      if (const std::string n = claim_note(claim); !n.empty()) o.run.notes.insert(o.run.notes.begin(), n);
      o.report = write_report(c, sc, design, o.run, o.options, log ? log : stderr);
    } catch (const std::exception& e) {
      err = e.what();
    }
  if (!comm.all(err.empty())) return say_errors(comm, err, log), res;
  res.ok = true;
  res.code = 0;
  return res;
}

}  // namespace impact::study
