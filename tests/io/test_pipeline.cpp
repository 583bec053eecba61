// io::run_pipeline: every stage sees the chunks in order, at most `depth` chunks are in flight and
// no two of them share a slot, the middle stage runs on the calling thread, and of several
// failures the earliest chunk's is rethrown, without a hang.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "io/pipeline.hpp"

namespace {

struct Record {
  std::mutex m;
  std::vector<std::size_t> seen[3];
  void add(int stage, std::size_t k) {
    std::lock_guard<std::mutex> g(m);
    seen[stage].push_back(k);
  }
};

}  // namespace

TEST(Pipeline, ChunksInOrderAtMostDepthInFlight) {
  for (int depth : {1, 2, 3, 5, 8}) {
    constexpr std::size_t kChunks = 40;
    Record rec;
    std::atomic<int> in_flight{0}, most{0};
    std::vector<std::atomic<int>> busy(static_cast<std::size_t>(depth));
    for (auto& b : busy) b = 0;
    std::atomic<int> slot_clash{0};
    const std::thread::id caller = std::this_thread::get_id();
    bool middle_elsewhere = false;
    impact::io::run_pipeline(
        depth,
        [&](int q, std::size_t k) {
          if (k == kChunks) return false;
          if (busy[q].exchange(1)) ++slot_clash;
          const int now = ++in_flight;
          int m = most.load();
          while (now > m && !most.compare_exchange_weak(m, now)) {}
          rec.add(0, k);
          if (k % 7 == 0) std::this_thread::sleep_for(std::chrono::microseconds(300));
          return true;
        },
        [&](int, std::size_t k) {
          if (std::this_thread::get_id() != caller) middle_elsewhere = true;
          rec.add(1, k);
          if (k % 5 == 0) std::this_thread::sleep_for(std::chrono::microseconds(500));
        },
        [&](int q, std::size_t k) {
          rec.add(2, k);
          if (k % 3 == 0) std::this_thread::sleep_for(std::chrono::microseconds(200));
          --in_flight;
          busy[q] = 0;
        });
    for (int s = 0; s < 3; ++s) {
      ASSERT_EQ(rec.seen[s].size(), kChunks) << "depth " << depth << " stage " << s;
      for (std::size_t k = 0; k < kChunks; ++k) EXPECT_EQ(rec.seen[s][k], k) << "depth " << depth << " stage " << s;
    }
    EXPECT_LE(most.load(), depth);
    EXPECT_GE(most.load(), 1);
    EXPECT_EQ(slot_clash.load(), 0) << "depth " << depth;
    EXPECT_FALSE(middle_elsewhere);
  }
}

TEST(Pipeline, NoChunkMeansNoWork) {
  int calls = 0;
  impact::io::run_pipeline(
      3, [&](int, std::size_t) { return false; }, [&](int, std::size_t) { ++calls; }, [&](int, std::size_t) { ++calls; });
  EXPECT_EQ(calls, 0);
}

// A failure stops every stage; the one rethrown is the earliest chunk's (of one chunk, the earlier
// stage's), whichever thread met its failure first.
TEST(Pipeline, TheEarliestChunksFailureIsRethrown) {
  struct Case {
    int depth;
    std::size_t fail_first, fail_middle, fail_last;  // the chunk where each stage throws (99: never)
    std::string expected;
  };
  const Case cases[] = {
      {3, 7, 5, 99, "middle 5"}, {3, 3, 99, 2, "last 2"},  {1, 4, 4, 4, "first 4"},
      {2, 99, 6, 6, "middle 6"}, {8, 99, 99, 0, "last 0"}, {8, 0, 99, 99, "first 0"},
  };
  for (const Case& c : cases) {
    std::atomic<std::size_t> started{0};
    std::string what;
    try {
      impact::io::run_pipeline(
          c.depth,
          [&](int, std::size_t k) {
            ++started;
            if (k == c.fail_first) throw std::runtime_error("first " + std::to_string(k));
            return k < 1000;
          },
          [&](int, std::size_t k) {
            if (k == c.fail_middle) throw std::runtime_error("middle " + std::to_string(k));
          },
          [&](int, std::size_t k) {
            // a later chunk's failure in another stage must not win over this one
            if (k == c.fail_last) {
              std::this_thread::sleep_for(std::chrono::milliseconds(2));
              throw std::runtime_error("last " + std::to_string(k));
            }
          });
    } catch (const std::runtime_error& e) { what = e.what(); }
    EXPECT_EQ(what, c.expected) << "depth " << c.depth;
    EXPECT_LT(started.load(), 1000u) << "the pipeline stopped";
  }
}

TEST(Pipeline, DepthOutOfRangeIsRefused) {
  const auto none = [](int, std::size_t) { return false; };
  const auto nop = [](int, std::size_t) {};
  EXPECT_THROW(impact::io::run_pipeline(0, none, nop, nop), std::invalid_argument);
  EXPECT_THROW(impact::io::run_pipeline(impact::io::kMaxPipelineDepth + 1, none, nop, nop), std::invalid_argument);
}
