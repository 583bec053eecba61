// The processes of a run, as the layers above see them (docs/distributed.md): one process
// (OneProcess) or the ranks of an MPI world (dist::MpiGroup, the one implementation over MPI).
// Work is handed out by a counter the processes share: a process takes the next piece or chunk as
// it finishes one. Results meet on rank 0, which merges them in piece or chunk order, so the bits
// do not depend on the number of processes or on which took what. Used by `impact reduce` (chunks,
// sampled/reduce.hpp), by `impact study` in pieces (study/pieces.hpp), and by `impact calibrate`,
// whose every batch is shared among the processes and met on all (calibrate/model.hpp).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace impact::resume {

class ProcessGroup {
 public:
  virtual ~ProcessGroup() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual int local_rank() const = 0;  // among the processes of this node (one GPU per rank)
  // The next of `count` items for this process; false when none is left.
  virtual bool next(std::uint64_t count, std::uint64_t& index) = 0;
  // Collectives (every process calls them, in the same order):
  virtual bool all(bool mine) = 0;  // true when every process's is
  // Every process's bytes on rank 0, in rank order (elsewhere: none). More than a gather can carry
  // (MPI: 2 GB) throws std::runtime_error on every process alike, saying `hint`.
  virtual std::vector<std::string> gather(const std::string& mine, const std::string& hint) = 0;
  // Every process's bytes on every process, in rank order (a calibration's batch, each process having
  // evaluated its share: calibrate/model.hpp). Too much for one call throws as gather does.
  virtual std::vector<std::string> allgather(const std::string& mine, const std::string& hint) = 0;
  virtual void sync() = 0;  // every process reaches this point before any goes on
};

class OneProcess final : public ProcessGroup {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  int local_rank() const override { return 0; }
  bool next(std::uint64_t count, std::uint64_t& index) override {
    if (next_ >= count) return false;
    index = next_++;
    return true;
  }
  bool all(bool mine) override { return mine; }
  std::vector<std::string> gather(const std::string& mine, const std::string&) override { return {mine}; }
  std::vector<std::string> allgather(const std::string& mine, const std::string&) override { return {mine}; }
  void sync() override {}

 private:
  std::uint64_t next_ = 0;
};

}  // namespace impact::resume
