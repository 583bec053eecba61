#include "dist/study.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "engine/device.hpp"
#include "io/out_file.hpp"
#include "study/parts.hpp"
#include "study/run.hpp"
#include "study/scenarios.hpp"

namespace impact::dist {

namespace {

static_assert(std::is_trivially_copyable_v<Moments>, "moments travel as bytes");

// A rank's statistics as bytes (every rank runs the same code, so the layouts agree).
class Bytes {
 public:
  template <class X> void put(const X& x) { s_.append(reinterpret_cast<const char*>(&x), sizeof x); }
  template <class X> void put(const std::vector<X>& v) {
    put<std::uint64_t>(v.size());
    s_.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(X));
  }
  const std::string& str() const { return s_; }

 private:
  std::string s_;
};

class Reader {
 public:
  explicit Reader(const std::string& s) : s_(s) {}
  template <class X> X get() {
    X x;
    take(&x, sizeof x);
    return x;
  }
  template <class X> void append_to(std::vector<X>& v) {
    const std::uint64_t n = get<std::uint64_t>();
    const std::size_t at = v.size();
    v.resize(at + n);
    take(v.data() + at, n * sizeof(X));
  }

 private:
  void take(void* p, std::size_t n) {
    if (at_ + n > s_.size()) throw std::runtime_error("study: a rank's statistics are short");
    std::memcpy(p, s_.data() + at_, n);
    at_ += n;
  }
  const std::string& s_;
  std::size_t at_ = 0;
};

std::string pack(const study::RunResult& r, std::uint64_t rows) {
  Bytes b;
  b.put(rows);
  b.put(r.build_seconds);
  b.put(r.write_seconds);
  b.put(r.build_failed);
  for (const study::LawStats& st : r.stats) {
    b.put(st.seconds);
    for (std::uint64_t n : st.status_count) b.put(n);
    b.put(st.block_moments);
    for (const std::vector<double>& k : st.keep) b.put(k);
  }
  return b.str();
}

// Rank 0: the ranks' statistics merged into its own run's result (which has the columns and files).
study::RunResult merge(study::RunResult r, const std::vector<std::string>& ranks, std::vector<std::uint64_t>& rows,
                       std::vector<double>& law_seconds) {
  r.build_seconds = r.write_seconds = 0;
  r.build_failed = 0;
  for (study::LawStats& st : r.stats) {
    st.seconds = 0;
    std::fill(std::begin(st.status_count), std::end(st.status_count), 0);
    st.block_moments.clear();
    for (std::vector<double>& k : st.keep) k.clear();
  }
  for (const std::string& bytes : ranks) {
    Reader in(bytes);
    rows.push_back(in.get<std::uint64_t>());
    r.build_seconds = std::max(r.build_seconds, in.get<double>());
    r.write_seconds = std::max(r.write_seconds, in.get<double>());
    r.build_failed += in.get<std::uint64_t>();
    double mine = 0;
    for (study::LawStats& st : r.stats) {
      const double s = in.get<double>();
      mine += s;
      st.seconds = std::max(st.seconds, s);  // the laws' time of the run: its slowest rank's
      for (std::uint64_t& n : st.status_count) n += in.get<std::uint64_t>();
      in.append_to(st.block_moments);  // rank order is block order
      for (std::vector<double>& k : st.keep) in.append_to(k);
    }
    law_seconds.push_back(mine);
  }
  for (std::size_t l = 0; l < r.stats.size(); ++l)
    r.stats[l].moments = study::fold_block_moments(r.stats[l].block_moments, r.laws[l].cols.size());
  return r;
}

// What the report says of the split: rows and law seconds per rank, and the balance.
std::string balance_note(const std::vector<std::uint64_t>& rows, const std::vector<double>& secs) {
  double mx = 0, sum = 0;
  for (double s : secs) mx = std::max(mx, s), sum += s;
  const double mean = sum / double(secs.size());
  char buf[96];
  std::snprintf(buf, sizeof buf, "; law seconds max/mean %.3f", mean > 0 ? mx / mean : 1.0);
  std::string n = "run over " + std::to_string(rows.size()) + " processes (rows per process:";
  for (std::size_t p = 0; p < rows.size(); ++p) n += (p ? ", " : " ") + std::to_string(rows[p]);
  return n + buf + ")";
}

// Says every distinct error once (rank 0), in rank order.
void say_errors(const World& w, const std::string& mine, std::FILE* log) {
  const std::vector<std::string> all = w.gather(mine);
  std::vector<std::string> said;
  for (int p = 0; p < static_cast<int>(all.size()); ++p) {
    if (all[p].empty() || std::find(said.begin(), said.end(), all[p]) != said.end()) continue;
    said.push_back(all[p]);
    if (log) std::fprintf(log, "impact study: error: %s%s\n", w.size() > 1 && p > 0 ? ("rank " + std::to_string(p) + ": ").c_str() : "", all[p].c_str());
  }
}

}  // namespace

StudyRun run_study(const World& w, const study::LoadedStudy& s, const study::StudyRequest& q, bool keep_parts,
                   std::chrono::steady_clock::time_point start, std::FILE* log) {
  const study::StudyConfig& c = s.config;
  const study::ScenarioInfo& sc = *study::find_scenario(c.scenario);
  const int K = w.size(), r = w.rank();
  StudyRun res;
  study::StudyOutcome& o = res.outcome;
  o.options = study::study_options(s, q, start);
  if (o.options.backend == engine::Backend::cuda) engine::bind_device_to_rank(w.local_rank());
  // this rank's statistics blocks: [nb r / K, nb (r + 1) / K)
  const std::uint64_t rows = s.design->rows();
  const std::uint64_t B = study::stat_block_rows(rows);
  const std::uint64_t nb = (rows + B - 1) / B;
  study::RunPart part;
  part.part = r;
  part.first = std::min(rows, nb * std::uint64_t(r) / std::uint64_t(K) * B);
  part.rows = std::min(rows, nb * std::uint64_t(r + 1) / std::uint64_t(K) * B) - part.first;

  std::string err;
  res.code = 2;
  if (r == 0) try {  // the folder, without an earlier run's marks of completeness and parts
      io::make_dirs(c.out_dir, "output.dir");
      io::remove_if_exists(c.out_dir + "/metadata.json");
      io::remove_if_exists(c.out_dir + "/parts.json");
      study::remove_stale_parts(c.out_dir);
    } catch (const std::exception& e) {
      err = e.what();
    }
  if (!w.all(err.empty())) return say_errors(w, err, log), res;

  study::RunResult mine;
  try {
    mine = study::run(c, sc, *s.design, o.options.backend, o.options.precision, r == 0 && !q.quiet ? log : nullptr,
                      part);
  } catch (const std::invalid_argument& e) {
    err = e.what();
    res.code = 1;
  } catch (const std::exception& e) {
    err = e.what();
  }
  const auto remove_my_parts = [&] {
    for (const std::string& f : mine.files) std::remove((c.out_dir + "/" + study::part_file_name(f, r)).c_str());
  };
  if (!w.all(err.empty())) {
    remove_my_parts();
    say_errors(w, err, log);
    return res;
  }

  const std::vector<std::string> stats = w.gather(pack(mine, part.rows));
  if (r == 0) try {
      std::vector<std::uint64_t> part_rows;
      std::vector<double> law_seconds;
      o.run = merge(mine, stats, part_rows, law_seconds);
      study::PartsManifest m;
      m.files = o.run.files;
      for (std::size_t p = 0, at = 0; p < part_rows.size(); at += part_rows[p], ++p) {
        m.first.push_back(at);
        m.rows.push_back(part_rows[p]);
      }
      study::write_parts_manifest(c.out_dir, m);
      if (!keep_parts) {
        study::merge_parts(c.out_dir, m);
      } else {
        o.options.plots = false;
        o.options.no_plots_why = "the tables are in parts (impact study --merge " + c.out_dir + " assembles them and draws the plots)";
        o.run.notes.push_back("tables kept in parts (" + std::to_string(K) + " per file, parts.json): impact study --merge " +
                              c.out_dir + " assembles them");
      }
      o.run.notes.push_back(balance_note(part_rows, law_seconds));
      o.report = study::write_report(c, sc, *s.design, o.run, o.options, log ? log : stderr);
    } catch (const std::exception& e) {
      err = e.what();
    }
  if (!w.all(err.empty())) return say_errors(w, err, log), res;
  res.ok = true;
  res.code = 0;
  return res;
}

}  // namespace impact::dist
