// `mpirun -n K impact study CONFIG` (docs/distributed.md): the study run in pieces
// (study/pieces.hpp) by the ranks of the MPI world: pieces handed out by the counter in rank 0's
// window (MPI_Fetch_and_op), as a rank finishes one; outcomes agreed by MPI_Allreduce; the pieces'
// statistics gathered to rank 0 (MPI_Gatherv), which merges them in piece order.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "dist/mpi.hpp"
#include "study/pieces.hpp"

namespace impact::dist {

class MpiPieceComm final : public study::PieceComm {
 public:
  explicit MpiPieceComm(const World& w) : world_(w), plan_(w) {}  // a collective (the counter's window)
  int rank() const override { return world_.rank(); }
  int size() const override { return world_.size(); }
  int local_rank() const override { return world_.local_rank(); }
  bool next(std::uint64_t count, std::uint64_t& index) override { return plan_.next(count, index); }
  bool all(bool mine) override { return world_.all(mine); }
  std::vector<std::string> gather(const std::string& mine) override {
    return world_.gather(mine, "use fewer rows per run, or fewer sensitivity outputs");
  }

 private:
  const World& world_;
  MpiChunkPlan plan_;
};

}  // namespace impact::dist
