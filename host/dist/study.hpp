// `mpirun -n K impact study CONFIG` (docs/distributed.md): the design's statistics blocks
// (study::stat_block_rows) split into K contiguous ranges, one per rank (rank order = row order); each rank runs its rows as
// one process would (study::run with a RunPart) and writes its part of every table
// (study/parts.hpp); the ranks' statistics are gathered to rank 0: status counts summed, the
// chunks' moments merged in chunk order (so the summary is the single process's, bit for bit),
// the sensitivity outputs concatenated in row order for the Sobol indices. Rank 0 writes parts.json,
// merges the parts into the single process's files (unless keep_parts) and writes the report.
// Any rank's failure: every rank's parts removed, the errors said once by rank 0, no
// metadata.json.
#pragma once
#include <chrono>
#include <cstdio>

#include "dist/mpi.hpp"
#include "study/session.hpp"

namespace impact::dist {

struct StudyRun {
  bool ok = false;
  int code = 0;                // the exit status when not ok
  study::StudyOutcome outcome;  // on rank 0, when ok
};

// Every rank calls it with the same loaded study and request (a collective).
StudyRun run_study(const World& w, const study::LoadedStudy& s, const study::StudyRequest& q, bool keep_parts,
                   std::chrono::steady_clock::time_point start, std::FILE* log);

}  // namespace impact::dist
