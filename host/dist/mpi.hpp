// Runs that span processes (docs/distributed.md): MPI (Open MPI) as the engine, built when
// CMake finds it (IMPACT_MPI). A process started by mpirun/srun joins the world; one started alone
// does not initialise MPI at all and runs as before.
//   World          MPI_Init_thread / MPI_Finalize, rank, size, node-local rank (for one GPU per rank)
//   SharedCounter  chunks handed out dynamically: MPI_Fetch_and_op on a counter in rank 0's window
//                  (passive target), so a rank that finishes early takes the next chunk
//   MpiGroup       resume::ProcessGroup over them, the one used by `impact reduce` (chunks),
//                  `impact study` (pieces) and `impact calibrate` (each batch shared): next() from
//                  the counter, the collectives from World
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "resume/process_group.hpp"

namespace impact::dist {

// True when this process was started by an MPI launcher (mpirun, mpiexec, srun with PMI/PMIx).
bool launched_by_mpi();

class World {
 public:
  World(int* argc, char*** argv);  // MPI_Init_thread (funneled)
  ~World();                        // MPI_Finalize
  World(const World&) = delete;
  World& operator=(const World&) = delete;
  int rank() const { return rank_; }
  int size() const { return size_; }
  int local_rank() const { return local_rank_; }  // rank among the processes of this node
  // Ends every rank: MPI_Abort with `code` after printing `why` naming this rank.
  [[noreturn]] void abort(const std::string& why, int code) const;
  // Collectives (every rank calls them, in the same order):
  bool all(bool mine) const;                       // true when every rank's is
  std::uint64_t exscan(std::uint64_t mine) const;  // the sum over the ranks before this one
  // every rank's bytes, on rank 0 (in rank order); more than 2 GB in all: std::runtime_error on every
  // rank alike, saying `hint`
  std::vector<std::string> gather(const std::string& mine, const std::string& hint = "") const;
  // every rank's bytes on every rank (in rank order); the same 2 GB limit
  std::vector<std::string> allgather(const std::string& mine, const std::string& hint = "") const;
  void barrier() const;

 private:
  int rank_ = 0, size_ = 1, local_rank_ = 0;
};

class MpiGroup final : public resume::ProcessGroup {
 public:
  explicit MpiGroup(const World& w);  // a collective (the counter's window)
  ~MpiGroup() override;
  int rank() const override { return world_.rank(); }
  int size() const override { return world_.size(); }
  int local_rank() const override { return world_.local_rank(); }
  bool next(std::uint64_t count, std::uint64_t& index) override;
  bool all(bool mine) override { return world_.all(mine); }
  std::vector<std::string> gather(const std::string& mine, const std::string& hint) override { return world_.gather(mine, hint); }
  std::vector<std::string> allgather(const std::string& mine, const std::string& hint) override {
    return world_.allgather(mine, hint);
  }
  void sync() override { world_.barrier(); }

 private:
  const World& world_;
  struct Window;
  std::unique_ptr<Window> win_;
};

}  // namespace impact::dist
