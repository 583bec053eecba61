#include "study/run.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <future>
#include <stdexcept>
#include <vector>

#include "engine/columns.hpp"
#include "engine/registry.hpp"
#include "impact/derived.hpp"
#include "io/cancel.hpp"
#include "io/machine.hpp"
#include "io/progress.hpp"
#include "reference/reference.hpp"
#include "study/rows.hpp"
#include "study/writers.hpp"

namespace impact::study {

using engine::Backend;
using engine::Precision;

namespace {

using Clock = std::chrono::steady_clock;

using io::seconds_since;

bool contains(const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); }

std::vector<std::string> kept_columns(const StudyConfig& c, const systems::ScenarioInfo& sc) {
  std::vector<std::string> kept = c.columns;
  if (kept.empty()) {
    for (const char* n : {"P_n", "P_t", "vf_n", "dE"}) kept.emplace_back(n);
    for (const engine::ColumnInfo& b : sc.body_outputs) kept.push_back(b.name);
  }
  for (const std::string& s : c.sens_outputs)
    if (!contains(kept, s)) kept.push_back(s);
  return kept;
}

// Builds the samples of a chunk: every scenario parameter at its default, the study's fixed
// values over them, then the design's values of the varied ones.
class SampleBuilder {
 public:
  SampleBuilder(const StudyConfig& c, const systems::ScenarioInfo& sc, const design::Design& design) : sc_(sc), design_(design) {
    base_.resize(sc.params.size());
    for (std::size_t k = 0; k < base_.size(); ++k) base_[k] = sc.params[k].value;
    for (const design::ParamSpec& p : c.params)
      if (p.kind == design::ParamKind::fixed) base_[sc.index_of(p.name)] = p.a;
    for (const std::string& n : design.names()) var_index_.push_back(sc.index_of(n));
  }

  // Rows [first, first + m) into ch; returns how many samples could not be built.
  template <class T>
  std::uint64_t build(std::size_t first, std::size_t m, Chunk<T>& ch) const {
    const std::size_t P = base_.size(), nvar = var_index_.size();
    ch.first = first;
    ch.m = m;
    design_.fill(first, first + m, ch.design.data());
#pragma omp parallel for schedule(static)
    for (std::ptrdiff_t i = 0; i < static_cast<std::ptrdiff_t>(m); ++i) {
      double* v = &ch.values[i * P];
      std::copy(base_.begin(), base_.end(), v);
      for (std::size_t j = 0; j < nvar; ++j) v[var_index_[j]] = ch.design[i * nvar + j];
    }
    return ch.build_instances(sc_);
  }

 private:
  const systems::ScenarioInfo& sc_;
  const design::Design& design_;
  std::vector<double> base_;    // the values every sample starts from
  std::vector<int> var_index_;  // per varied parameter: its index in sc.params
};

// Folds a chunk's rows (design rows [first, first + m) of `total`) into the law's statistics: the
// status counts, and each column's ok values in row order into the open block of stat_block_rows()
// rows, which is appended to st.block_moments when its last row is folded.
void add_rows(const LawColumns& lc, const LawRows& rows, std::uint64_t first, std::size_t m, std::uint64_t total, LawStats& st) {
  const std::size_t ncol = lc.cols.size();
  const std::uint64_t B = stat_block_rows(total);
  for (std::size_t i = 0; i < m; ++i) st.status_count[rows.status[i]]++;
  if (st.open_block.size() != ncol) st.open_block.assign(ncol, Moments::identity());
  // the blocks this chunk closes: at rows whose successor is on the grid, or the design's last row
  const auto closes = [&](std::uint64_t g) { return (g + 1) % B == 0 || g + 1 == total; };
  std::size_t nclosed = 0;
  for (std::uint64_t g = first; g < first + m; ++g) nclosed += closes(g);
  const std::size_t at = st.block_moments.size();
  st.block_moments.resize(at + nclosed * ncol, Moments::identity());
  // one column per thread, its rows in order: the same sums as one thread
#pragma omp parallel for schedule(dynamic)
  for (std::ptrdiff_t kk = 0; kk < static_cast<std::ptrdiff_t>(ncol); ++kk) {
    const std::size_t k = static_cast<std::size_t>(kk);
    if (lc.cols[k].kind != ColKind::real && lc.cols[k].kind != ColKind::integer) continue;
    Moments mk = st.open_block[k];
    std::size_t b = 0;
    for (std::size_t i = 0; i < m; ++i) {
      if (rows.status[i] == static_cast<std::uint8_t>(Status::ok)) mk = merge(mk, Moments::of(rows.out[i * ncol + k]));
      if (closes(first + i)) {
        st.block_moments[at + b++ * ncol + k] = mk;
        mk = Moments::identity();
      }
    }
    st.open_block[k] = mk;
  }
}

// The kept columns' values of a chunk's rows (NaN where a row is not ok or the law lacks the column).
void kept_values(const LawColumns& lc, const LawRows& rows, std::size_t m, std::vector<std::vector<double>>& kv) {
  const std::size_t ncol = lc.cols.size();
  for (std::size_t k = 0; k < kv.size(); ++k) {
    kv[k].assign(m, NAN);
    if (lc.kept_pos[k] < 0) continue;
    for (std::size_t i = 0; i < m; ++i)
      if (rows.status[i] == static_cast<std::uint8_t>(Status::ok)) kv[k][i] = rows.out[i * ncol + lc.kept_pos[k]];
  }
}

// The study's run in precision T: the chunks, and each law on each chunk.
// The pieces a chunk goes to the backend in (Driver::evaluate): about this long each, and on the
// GPU (whose integrators do not poll the stop) at least kMinGpuPiece rows, the first that many.
constexpr double kPieceSeconds = 0.04, kGpuPieceSeconds = 0.12;
constexpr std::size_t kMinGpuPiece = 4096;

// On the CUDA and serial backends the laws of chunk k run on a second thread while this one builds
// chunk k+1 and then writes chunk k's rows (two chunk slots, the laws' outputs per slot and law):
// the host work overlaps the device's (or the one core's). Everything is written in chunk order
// by this thread, so the files do not depend on it. The OMP backend uses every core for the laws:
// there the steps run one after the other.
template <class T>
class Driver {
 public:
  Driver(const StudyConfig& c, const systems::ScenarioInfo& sc, const design::Design& design, Backend backend, RunResult& result,
         std::uint64_t first, std::uint64_t rows)
      : c_(c),
        sc_(sc),
        design_(design),
        backend_(backend),
        result_(result),
        opt_(engine::stoppable(engine::law_options(c.steps, c.integrator))),
        overlap_(result.overlapped),
        first_(first),
        end_(first + rows) {
    chunk_ = std::max<std::size_t>(1, std::min<std::size_t>(c.chunk, design.rows()));
    const std::size_t nslots = overlap_ && rows > chunk_ ? 2 : 1;
    for (std::size_t q = 0; q < nslots; ++q) {
      slot_[q].ch.resize(chunk_, design.names().size(), sc.params.size());
      slot_[q].res.resize(result.laws.size());
      for (engine::OutputColumns<T>& r : slot_[q].res) r.resize(chunk_);
    }
    kept_values_.resize(result.kept.size());
    piece_.assign(result.laws.size(), backend == Backend::cuda ? kMinGpuPiece : 256);
  }

  void run(StudyFiles& files, std::FILE* progress) {
    const std::size_t rows = end_ - first_;
    io::Progress bar(progress, rows * result_.laws.size(), "study " + c_.name);
    if (rows == 0) return;
    if (!overlap_) {
      for (std::size_t b0 = first_; b0 < end_; b0 += chunk_) {
        build(b0, slot_[0], files);
        for (std::size_t l = 0; l < result_.laws.size(); ++l) {
          result_.stats[l].seconds += evaluate(l, slot_[0], &bar);
          collect(l, slot_[0], files);
          done_ += slot_[0].ch.m;
          bar.update(done_);
        }
      }
      bar.finish();
      return;
    }
    const std::size_t nchunks = (rows + chunk_ - 1) / chunk_;
    build(first_, slot_[0], files);
    std::future<std::vector<double>> laws = std::async(std::launch::async, [this] { return evaluate_all(slot_[0]); });
    for (std::size_t k = 0; k < nchunks; ++k) {
      Slot& cur = slot_[k % 2];
      if (k + 1 < nchunks) build(first_ + (k + 1) * chunk_, slot_[(k + 1) % 2], files);  // while chunk k's laws run
      const std::vector<double> secs = laws.get();
      for (std::size_t l = 0; l < secs.size(); ++l) result_.stats[l].seconds += secs[l];
      if (k + 1 < nchunks) {
        Slot& next = slot_[(k + 1) % 2];
        laws = std::async(std::launch::async, [this, &next] { return evaluate_all(next); });
      }
      for (std::size_t l = 0; l < result_.laws.size(); ++l) {  // while chunk k+1's laws run
        collect(l, cur, files);
        done_ += cur.ch.m;
        bar.update(done_);
      }
    }
    bar.finish();
  }

 private:
  struct Slot {
    Chunk<T> ch;
    std::vector<engine::OutputColumns<T>> res;  // per law
  };

  void build(std::size_t b0, Slot& slot, StudyFiles& files) {
    const std::size_t m = std::min<std::size_t>(chunk_, end_ - b0);
    const auto tb = Clock::now();
    result_.build_failed += builder_.build(b0, m, slot.ch);
    files.write_design(slot.ch.design.data(), m);
    result_.build_seconds += seconds_since(tb);
  }

  // Law l on the slot's instances; returns the seconds in the law. The chunk goes to the backend in
  // pieces of about kPieceSeconds (the first small, the next sized from the law's rate in this run,
  // growing at most 8x a piece; on the GPU longer, which its rate needs), a stop request checked
  // before and after each (io::check_cancelled: Python's Ctrl-C; on the host the integrators also
  // end their instances at the stop, opt_ being engine::stoppable, and the piece is dropped with the
  // run) and the progress bar moved after. The instances are independent: the same bits for any
  // pieces.
  double evaluate(std::size_t l, Slot& slot, io::Progress* bar) const {
    const engine::BatchFn<T> fn = ref::any_batch_fn<T>(*result_.laws[l].law, backend_);
    const std::size_t m = slot.ch.m;
    const bool gpu = backend_ == Backend::cuda;
    const double target = gpu ? kGpuPieceSeconds : kPieceSeconds;
    const auto tl = Clock::now();
    std::size_t& piece = piece_[l];
    for (std::size_t lo = 0; lo < m;) {
      const std::size_t hi = std::min(m, lo + piece);
      io::check_cancelled();  // a front end's stop request (io/cancel.hpp), between pieces
      const std::uint64_t epoch = io::stop_epoch();
      const auto tp = Clock::now();
      fn(slot.ch.in.view(nullptr, lo, hi - lo), slot.res[l].view(lo), opt_);
      io::check_cancelled(epoch);  // a stop during the piece may have ended its instances early (opt_.stop)
      const double s = seconds_since(tp);
      if (hi - lo == piece) {
        const double fits = s > 0 ? static_cast<double>(piece) * target / s : 8.0 * static_cast<double>(piece);
        piece = static_cast<std::size_t>(
            std::clamp(std::min(fits, 8.0 * static_cast<double>(piece)), gpu ? static_cast<double>(kMinGpuPiece) : 64.0, 1e9));
      }
      if (bar) bar->update(done_ + hi);
      lo = hi;
    }
    return seconds_since(tl);
  }
  // Every law on the slot (the second thread of the overlapped run: no progress updates there).
  std::vector<double> evaluate_all(Slot& slot) const {
    std::vector<double> secs(result_.laws.size());
    for (std::size_t l = 0; l < secs.size(); ++l) secs[l] = evaluate(l, slot, nullptr);
    return secs;
  }

  // Law l's rows of the slot's chunk: their outputs into the statistics, the tables and the kept
  // columns.
  void collect(std::size_t l, const Slot& slot, StudyFiles& files) {
    const LawColumns& lc = result_.laws[l];
    LawStats& st = result_.stats[l];
    const Chunk<T>& ch = slot.ch;
    const std::size_t m = ch.m;
    const auto tw = Clock::now();
    law_rows(lc, sc_, ch, slot.res[l], rows_);
    add_rows(lc, rows_, ch.first, m, design_.rows(), st);
    kept_values(lc, rows_, m, kept_values_);
    files.write_rows(l, ChunkRows{ch.first, m, ch.values.data(), rows_.out.data(), rows_.status.data()}, kept_values_);
    for (std::size_t k = 0; k < st.keep.size(); ++k)
      if (contains(c_.sens_outputs, result_.kept[k]))
        st.keep[k].insert(st.keep[k].end(), kept_values_[k].begin(), kept_values_[k].begin() + m);
    result_.write_seconds += seconds_since(tw);
  }

  const StudyConfig& c_;
  const systems::ScenarioInfo& sc_;
  const design::Design& design_;
  const Backend backend_;
  RunResult& result_;
  const LawOptions opt_;
  const bool overlap_;
  const std::size_t first_, end_;  // the rows of this run: [first_, end_)
  const SampleBuilder builder_{c_, sc_, design_};
  std::size_t chunk_ = 1;
  Slot slot_[2];
  LawRows rows_;
  std::vector<std::vector<double>> kept_values_;  // per kept column: the chunk's values
  std::uint64_t done_ = 0;                        // rows x laws evaluated (the progress bar)
  mutable std::vector<std::size_t> piece_;        // per law: the rows of its next piece (evaluate)
};

// Every law must have an entry point for the backend in this precision.
void check_entry_points(const StudyConfig& c, Backend backend, Precision precision) {
  for (const std::string& l : c.laws) {
    const engine::LawInfo& li = engine::law_named(l);
    if (precision == Precision::f64 ? !ref::any_batch_fn<double>(li, backend) : !ref::any_batch_fn<float>(li, backend))
      throw std::invalid_argument("law " + l + " has no " + engine::precision_name(precision) + " entry point on backend " +
                                  engine::backend_name(backend));
  }
}

}  // namespace

RunMemory run_memory_bytes(const StudyConfig& c, const systems::ScenarioInfo& sc, std::uint64_t rows) {
  const double chunk = double(std::max<std::uint64_t>(1, std::min<std::uint64_t>(c.chunk, rows)));
  const std::vector<std::string> kept = kept_columns(c, sc);
  // per row of a chunk (doubles throughout: float buffers are smaller)
  const double sample = 8.0 * double(c.params.size() + sc.params.size() + kNumInputs) + sizeof(ContactProblem<double>) + 1;
  double laws = 0, widest = 0;
  for (const std::string& l : c.laws) {
    const double ncol = double(law_columns(engine::law_named(l), sc, kept).cols.size());
    laws += 8.0 * kNumRealOutputs + 9;  // the law's outputs: reals, modes, steps, status
    widest = std::max(widest, ncol);
  }
  // one law's rows at a time: values, status, kept values, and the rows' text (~24 bytes a cell)
  const double row_text = 8.0 * widest + 1 + 8.0 * double(kept.size()) + 24.0 * (widest + sc.params.size()) + 32;
  RunMemory m;
  m.chunks = chunk * (2.0 * (sample + laws) + row_text);
  m.rows = double(rows) * 8.0 * double(c.sens_outputs.size()) * double(c.laws.size());
  return m;
}

std::uint64_t stat_block_rows(std::uint64_t rows) {
  std::uint64_t b = 64;
  while (b < (std::uint64_t(1) << 62) && b * 8192 < rows) b *= 2;
  return b;
}

std::vector<Moments> fold_block_moments(const std::vector<Moments>& block_moments, std::size_t ncol) {
  std::vector<Moments> m(ncol, Moments::identity());
  for (std::size_t at = 0; ncol && at + ncol <= block_moments.size(); at += ncol)
    for (std::size_t k = 0; k < ncol; ++k) m[k] = merge(m[k], block_moments[at + k]);
  return m;
}

RunResult run(const StudyConfig& c, const systems::ScenarioInfo& sc, const design::Design& design, Backend backend,
              Precision precision, std::FILE* progress, const RunPart& part) {
  check_entry_points(c, backend, precision);
  const std::uint64_t first = std::min<std::uint64_t>(part.first, design.rows());
  const std::uint64_t rows = std::min<std::uint64_t>(part.rows, design.rows() - first);
  const std::uint64_t B = stat_block_rows(design.rows());
  if (first % B != 0 || ((first + rows) % B != 0 && first + rows != design.rows()))
    throw std::logic_error("study::run: a part must start and end on the statistics block grid");
  RunResult result = run_layout(c, sc, design, backend);
  StudyFiles files(c, sc, design, result.kept, result.laws, precision, part.part, rows);
  if (precision == Precision::f32) Driver<float>(c, sc, design, backend, result, first, rows).run(files, progress);
  else Driver<double>(c, sc, design, backend, result, first, rows).run(files, progress);
  files.commit();
  for (std::size_t l = 0; l < result.laws.size(); ++l)
    result.stats[l].moments = fold_block_moments(result.stats[l].block_moments, result.laws[l].cols.size());
  return result;
}

RunResult run_layout(const StudyConfig& c, const systems::ScenarioInfo& sc, const design::Design& design, Backend backend) {
  RunResult result;
  result.kept = kept_columns(c, sc);
  for (const std::string& l : c.laws) {
    result.laws.push_back(law_columns(engine::law_named(l), sc, result.kept));
    LawStats st;
    if (!c.sens_outputs.empty()) st.keep.resize(result.kept.size());  // the Sobol indices need every row
    result.stats.push_back(std::move(st));
  }
  result.files = table_file_names(c, result.laws, result.kept, design.rows());
  const Formats f = formats_of(c, design.rows());
  if (!f.note.empty()) result.notes.push_back(f.note);
  // the laws beside the host work where they leave host cores free (Driver)
  result.overlapped = backend == Backend::cuda || backend == Backend::serial;
  return result;
}

}  // namespace impact::study
