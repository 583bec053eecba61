// The run of `impact study` (docs/study.md): the design's rows in chunks; each chunk's samples
// built into contact-space instances by the scenario; every law evaluated on them; each row's
// output columns (the derived parts, the extras, the body-level outputs) written to the tables
// (host/study/writers.hpp) and folded into per-law statistics. The report on the run is
// host/study/report.hpp.
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "engine/options.hpp"
#include "impact/stats.hpp"
#include "study/columns.hpp"
#include "study/config.hpp"
#include "systems/scenarios.hpp"

namespace impact::study {

// What the rows of one law came to.
struct LawStats {
  double seconds = 0;            // time in the law's batch calls
  std::vector<Moments> moments;  // per output column, over the ok rows
  // per block of stat_block_rows() design rows (in row order) x output column: the moments of the
  // block's ok rows, each folded in row order from the identity; `moments` is their merge in block
  // order (fold_block_moments). The blocks lie on the design's row grid, so the statistics depend
  // neither on run.chunk, nor on the threads, nor on the processes the rows ran on.
  std::vector<Moments> block_moments;
  std::vector<Moments> open_block;  // per output column: the block being folded (internal)
  std::uint64_t status_count[static_cast<int>(Status::count_)] = {};
  std::vector<std::vector<double>> keep;  // per kept column: every row (the sensitivity outputs only)
};

struct RunResult {
  // output.columns (default: P_n, P_t, vf_n, dE and the scenario's body outputs), then the
  // sensitivity outputs not among them
  std::vector<std::string> kept;
  std::vector<LawColumns> laws;    // in study.laws order
  std::vector<LawStats> stats;     // per law
  std::vector<std::string> files;  // the tables written, relative to output.dir (StudyFiles::names)
  double build_seconds = 0;        // building the samples (and writing design.txt)
  double write_seconds = 0;        // the rows' outputs, statistics and tables (laws' seconds: LawStats)
  std::uint64_t build_failed = 0;  // samples the scenario could not build (their rows keep the status)
  std::vector<std::string> notes;  // e.g. a configured format not written (Formats::note)
  bool overlapped = false;         // the laws ran beside the host work (cuda, serial): phases overlap
};

// The bytes a run over `rows` design rows holds besides the design itself: the chunk buffers of
// run.chunk rows (samples, instances, every law's outputs, the rows' text; two chunks where the
// laws run beside the host work) and, with [sensitivity], every row of the sensitivity outputs.
// An estimate made before anything is allocated (the study checks it against
// memory_budget_bytes()).
struct RunMemory {
  double chunks = 0;  // the chunk buffers
  double rows = 0;    // what grows with the rows (the sensitivity outputs)
};
RunMemory run_memory_bytes(const StudyConfig& c, const systems::ScenarioInfo& sc, std::uint64_t rows);

// The part of the design one process runs (a run over several processes, host/dist): rows
// [first, first + rows), both ends on the grid of stat_block_rows() (or at the design's end), its
// tables written as part files (part_file_name) with `part` >= 0. The default is the whole design
// as one process writes it.
struct RunPart {
  std::uint64_t first = 0;
  std::uint64_t rows = ~std::uint64_t(0);  // clipped to the design
  int part = -1;                           // -1: the final files; else the index in the part names
};

// A run's result before any row: the kept columns, each law's columns and empty statistics, the
// files it writes (StudyFiles' names) and the notes on them.
RunResult run_layout(const StudyConfig& c, const systems::ScenarioInfo& sc, const design::Design& design,
                     engine::Backend backend);

// The rows of a statistics block of a design of `rows` rows: a power of two from 64, such that
// there are at most 8192 blocks (memory flat in the rows; a run over several processes splits the
// design on this grid).
std::uint64_t stat_block_rows(std::uint64_t rows);

// The moments of every column: the blocks' moments merged in block order from the identity.
std::vector<Moments> fold_block_moments(const std::vector<Moments>& block_moments, std::size_t ncol);

// Runs the study on `backend` (resolved, not "auto") in `precision` and writes its tables into
// c.out_dir. The progress bar goes to `progress` (null: none). Throws std::invalid_argument when a
// law has no entry point for the backend and precision (before anything is written), and
// std::runtime_error when a file cannot be written.
RunResult run(const StudyConfig& c, const systems::ScenarioInfo& sc, const design::Design& design, engine::Backend backend,
              engine::Precision precision, std::FILE* progress, const RunPart& part = {});

}  // namespace impact::study
