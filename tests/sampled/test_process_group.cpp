// The processes of a run (resume/process_group.hpp) and a reduction spread over them
// (sampled/reduce.hpp): each process takes chunks from the shared counter, rank 0 merges them in
// chunk order, so the summary is the same bits for any number of processes and whichever took
// which chunk. MPI runs it over ranks (tests/cli/mpi.sh); here a group of threads stands in for the
// processes, so that the rule is tested in every build.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "engine/registry.hpp"
#include "resume/process_group.hpp"
#include "sampled/reduce.hpp"
#include "systems/sample_spec.hpp"
#include "thread_group.hpp"

using namespace impact;

namespace {

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
      test::Shared shared(procs);
      std::vector<sampled::ReduceResult> res(static_cast<std::size_t>(procs));
      std::vector<std::thread> threads;
      std::vector<std::string> errors(static_cast<std::size_t>(procs));
      for (int r = 0; r < procs; ++r)
        threads.emplace_back([&, r] {
          test::ThreadGroup g(shared, r);
          try {
            res[static_cast<std::size_t>(r)] = sampled::reduce(rs, nullptr, &g);
          } catch (const std::exception& e) { errors[static_cast<std::size_t>(r)] = e.what(); }
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
