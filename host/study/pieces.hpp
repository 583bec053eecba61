// A study run in pieces (docs/distributed.md): over the processes of an MPI run (host/dist), and by
// one process with --checkpoint. The design is cut into pieces of whole statistics blocks
// (piece_rows); each process takes the next piece as it finishes one (resume::ProcessGroup::next: a
// counter shared by the processes), runs it as one process runs the whole design (study::run with a
// RunPart) and writes its part of every table (resume/parts.hpp). With a checkpoint folder each
// finished piece's statistics and the sizes of its part files are kept (Checkpoint, stem "piece",
// CRC-32), so that a resumed run (--resume, with any number of processes) reads them back and
// computes only the missing pieces. At the end the pieces' statistics go to rank 0, which merges
// them in piece order (= block order: the single process's bits), writes parts.json, merges the
// parts into the single process's files (unless keep_parts) and writes the report.
#pragma once
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "resume/process_group.hpp"
#include "study/session.hpp"

namespace impact::study {

struct PieceOptions {
  bool keep_parts = false;  // leave the tables in parts (impact study --merge DIR assembles them)
  std::string checkpoint;   // folder of the pieces' statistics ("": none)
  bool resume = false;      // read back the valid pieces of `checkpoint`
  std::uint64_t piece = 0;  // rows per piece (rounded up to whole blocks); 0: piece_rows()
};

// Says each distinct error of `errors` (one per process, in rank order, "" for none) once on `log`,
// naming the rank but for rank 0's.
void say_distinct_errors(const std::vector<std::string>& errors, std::FILE* log);

// The rows of a piece of a design of `rows` rows: whole statistics blocks, at least 2^16 rows, and
// at most 1024 pieces.
std::uint64_t piece_rows(std::uint64_t rows);

struct PiecesRun {
  bool ok = false;
  int code = 2;          // the exit status when not ok (1: the config or the arguments)
  StudyOutcome outcome;  // on rank 0, when ok
};

// Every process calls it with the same loaded study, request and options. Errors are said once,
// by rank 0, on `log`.
PiecesRun run_in_pieces(const LoadedStudy& s, const StudyRequest& q, resume::ProcessGroup& comm, const PieceOptions& po,
                        std::chrono::steady_clock::time_point start, std::FILE* log);

}  // namespace impact::study
