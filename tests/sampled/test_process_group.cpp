// The processes of a run (resume/process_group.hpp) and a reduction spread over them
// (sampled/reduce.hpp): each process takes chunks from the shared counter, rank 0 merges them in
// chunk order, so the summary is the same bits for any number of processes and whichever took
// which chunk. MPI runs it over ranks (tests/cli/mpi.sh); here a group of threads stands in for the
// processes, so that the rule is tested in every build.
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "engine/registry.hpp"
#include "resume/process_group.hpp"
#include "sampled/reduce.hpp"
#include "systems/sample_spec.hpp"

using namespace impact;

namespace {

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
  void sync() override { s_.barrier(); }

 private:
  Shared& s_;
  int rank_;
};

sampled::ReduceSpec spec_of(const char* law) {
  sampled::ReduceSpec rs;
  rs.law = engine::find_law(law);
  rs.scenario = "contact";
  rs.spec = systems::default_spec(Scenario::contact);
  rs.n = 50000;
  rs.first = 123;
  rs.seed = 9;
  rs.backend = engine::Backend::serial;
  rs.chunk = 4096;  // 13 chunks, the last one short
  return rs;
}

std::string bytes_of(const BatchSummary& s) { return std::string(reinterpret_cast<const char*>(&s), sizeof s); }

}  // namespace

TEST(ProcessGroup, OneProcessHandsOutEveryItemOnceAndGathersItsOwn) {
  resume::OneProcess one;
  std::uint64_t k = 99;
  std::vector<std::uint64_t> got;
  while (one.next(5, k)) got.push_back(k);
  EXPECT_EQ(got, (std::vector<std::uint64_t>{0, 1, 2, 3, 4}));
  EXPECT_FALSE(one.next(5, k));
  EXPECT_EQ(one.gather("abc", ""), (std::vector<std::string>{"abc"}));
  EXPECT_TRUE(one.all(true));
  EXPECT_FALSE(one.all(false));
  EXPECT_EQ(one.rank(), 0);
  EXPECT_EQ(one.size(), 1);
}

// 1, 2, 3 and 5 "processes" (threads with a shared counter): the summary on rank 0 is the one
// process's, byte for byte; every instance is counted once, and only rank 0 holds the summary.
TEST(ProcessGroup, ReductionOverProcessesIsTheSameBits) {
  for (const char* law : {"chatterjee-ruina", "stronge"}) {
    SCOPED_TRACE(law);
    const sampled::ReduceSpec rs = spec_of(law);
    ASSERT_NE(rs.law, nullptr);
    const sampled::ReduceResult alone = sampled::reduce(rs, nullptr);
    for (int procs : {1, 2, 3, 5}) {
      SCOPED_TRACE(procs);
      Shared shared(procs);
      std::vector<sampled::ReduceResult> res(static_cast<std::size_t>(procs));
      std::vector<std::thread> threads;
      std::vector<std::string> errors(static_cast<std::size_t>(procs));
      for (int r = 0; r < procs; ++r)
        threads.emplace_back([&, r] {
          ThreadGroup g(shared, r);
          try {
            res[static_cast<std::size_t>(r)] = sampled::reduce(rs, nullptr, &g);
          } catch (const std::exception& e) {
            errors[static_cast<std::size_t>(r)] = e.what();
          }
        });
      for (std::thread& t : threads) t.join();
      for (const std::string& e : errors) ASSERT_EQ(e, "");
      const sampled::ReduceResult& r0 = res[0];
      EXPECT_EQ(bytes_of(r0.summary), bytes_of(alone.summary));
      ASSERT_EQ(r0.loads.size(), static_cast<std::size_t>(procs));
      std::uint64_t chunks = 0, instances = 0;
      for (const sampled::ProcessLoad& l : r0.loads) chunks += l.chunks, instances += l.instances;
      EXPECT_EQ(chunks, 13u);
      EXPECT_EQ(instances, rs.n);
      for (int r = 1; r < procs; ++r) EXPECT_TRUE(res[static_cast<std::size_t>(r)].loads.empty());
    }
  }
}
