// A group of threads standing in for the processes of a run (resume::ProcessGroup): a shared work
// counter and collectives by rendezvous, so that what MPI runs over ranks (tests/cli/mpi.sh) is
// tested in every build.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "resume/process_group.hpp"

namespace impact::test {

// What the threads of a ThreadGroup share: the work counter and a rendezvous for the collectives.
struct Shared {
  explicit Shared(int n) : size(n), slots(static_cast<std::size_t>(n)) {}
  const int size;
  std::atomic<std::uint64_t> counter{0};
  std::mutex m;
  std::condition_variable cv;
  int arrived = 0;
  std::uint64_t generation = 0;
  std::vector<std::string> slots;  // each thread's bytes of the current collective

  // Every thread puts its bytes and waits for the others; rank 0 (or every thread: `to_all`) gets
  // them all, in rank order.
  std::vector<std::string> exchange(int rank, const std::string& mine, bool to_all) {
    std::unique_lock<std::mutex> lock(m);
    slots[static_cast<std::size_t>(rank)] = mine;
    const std::uint64_t gen = generation;
    if (++arrived == size) {
      arrived = 0;
      ++generation;
      result = slots;
      cv.notify_all();
    } else {
      cv.wait(lock, [&] { return generation != gen; });
    }
    std::vector<std::string> out = rank == 0 || to_all ? result : std::vector<std::string>{};
    lock.unlock();
    barrier();  // nobody writes a slot of the next collective before everyone has read this one
    return out;
  }
  void barrier() {
    std::unique_lock<std::mutex> lock(m);
    const std::uint64_t gen = barrier_generation;
    if (++barrier_arrived == size) {
      barrier_arrived = 0;
      ++barrier_generation;
      cv.notify_all();
    } else {
      cv.wait(lock, [&] { return barrier_generation != gen; });
    }
  }
  std::vector<std::string> result;
  int barrier_arrived = 0;
  std::uint64_t barrier_generation = 0;
};

class ThreadGroup final : public resume::ProcessGroup {
 public:
  ThreadGroup(Shared& s, int rank) : s_(s), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return s_.size; }
  int local_rank() const override { return rank_; }
  bool next(std::uint64_t count, std::uint64_t& index) override {
    const std::uint64_t k = s_.counter.fetch_add(1);
    if (k >= count) return false;
    index = k;
    return true;
  }
  bool all(bool mine) override {
    bool r = true;
    for (const std::string& x : s_.exchange(rank_, mine ? "1" : "0", true)) r = r && x == "1";
    return r;
  }
  std::vector<std::string> gather(const std::string& mine, const std::string&) override {
    return s_.exchange(rank_, mine, false);
  }
  std::vector<std::string> allgather(const std::string& mine, const std::string&) override {
    return s_.exchange(rank_, mine, true);
  }
  void sync() override { s_.barrier(); }

 private:
  Shared& s_;
  int rank_;
};

}  // namespace impact::test
