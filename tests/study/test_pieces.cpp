// A study run in pieces (study/pieces.hpp) over 1, 2 and 3 "processes" (threads with a shared
// counter, tests/support/thread_group.hpp, standing in for MPI ranks): the output folder is the
// single process's byte for byte (but metadata.json, which holds timings and the host), whichever
// process took which piece. A failure on one process ends every process, is said once by rank 0
// naming the rank, and leaves no part of the run's tables behind.
#include <gtest/gtest.h>

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "study/pieces.hpp"
#include "study/session.hpp"
#include "files.hpp"
#include "text_study.hpp"
#include "thread_group.hpp"

using namespace impact;
using namespace impact::study;

namespace {

const char* kStudy = R"(
[study]
name = "pieces"
scenario = "ball"
laws = ["newton", "chatterjee-ruina"]

[run]
backend = "serial"

[design]
kind = "saltelli"
n = 700
seed = 3

[params]
mu = "uniform:0.1:0.8"
e = "uniform:0.2:0.9"
V0x = "normal:-1:0.5"

[output]
formats = ["csv", "npy"]

[sensitivity]
outputs = ["Vx", "Vz"]
bootstrap = 20
)";

// A process group whose rank `bad` fails when it asks for its first piece (the others run theirs).
class FailingGroup final : public resume::ProcessGroup {
 public:
  FailingGroup(test::Shared& s, int rank, int bad) : g_(s, rank), bad_(rank == bad) {}
  int rank() const override { return g_.rank(); }
  int size() const override { return g_.size(); }
  int local_rank() const override { return g_.local_rank(); }
  bool next(std::uint64_t count, std::uint64_t& index) override {
    if (bad_ && taken_++ == 0) throw std::runtime_error("disk on fire");
    return g_.next(count, index);
  }
  bool all(bool mine) override { return g_.all(mine); }
  std::vector<std::string> gather(const std::string& mine, const std::string& hint) override { return g_.gather(mine, hint); }
  std::vector<std::string> allgather(const std::string& mine, const std::string& hint) override {
    return g_.allgather(mine, hint);
  }
  void sync() override { g_.sync(); }

 private:
  test::ThreadGroup g_;
  bool bad_;
  int taken_ = 0;
};

// Runs the study in pieces of `piece` rows over `procs` threads into `out`; rank 0's result and
// what it said.
template <class Group>
std::pair<std::vector<PiecesRun>, std::string> in_pieces(const std::string& out, int procs, std::uint64_t piece, int bad = -1) {
  test::Shared shared(procs);
  std::vector<PiecesRun> res(static_cast<std::size_t>(procs));
  std::FILE* log = std::tmpfile();
  std::vector<std::thread> threads;
  for (int r = 0; r < procs; ++r)
    threads.emplace_back([&, r] {
      const StudyRequest q = test::text_study(kStudy, out);
      const LoadedStudy s = load_study(q);  // every process loads the study itself
      PieceOptions po;
      po.piece = piece;
      Group g = [&] {
        if constexpr (std::is_same_v<Group, FailingGroup>) return FailingGroup(shared, r, bad);
        else return test::ThreadGroup(shared, r);
      }();
      res[static_cast<std::size_t>(r)] = run_in_pieces(s, q, g, po, std::chrono::steady_clock::now(), r == 0 ? log : nullptr);
    });
  for (std::thread& t : threads) t.join();
  std::rewind(log);
  std::string said;
  for (int c; (c = std::fgetc(log)) != EOF;) said += static_cast<char>(c);
  std::fclose(log);
  return {res, said};
}

}  // namespace

TEST(StudyPieces, AnyNumberOfProcessesWritesTheSingleProcessFolder) {
  const test::ScratchDir scratch("pieces");
  const std::string one = scratch / "one";
  {
    const StudyRequest q = test::text_study(kStudy, one);
    const LoadedStudy s = load_study(q);
    run_study(s, q, std::chrono::steady_clock::now(), nullptr);
  }
  const std::vector<std::string> want = test::names_in(one);
  ASSERT_GE(want.size(), 6u) << "tables of both laws, .npy, design, sensitivity, summary, metadata";
  for (int procs : {1, 2, 3}) {
    SCOPED_TRACE(procs);
    const std::string out = scratch / ("p" + std::to_string(procs));
    // 3500 rows (700 x (3 + 2)) in pieces of 512: 7 pieces, the last one short
    const auto [res, said] = in_pieces<test::ThreadGroup>(out, procs, 512);
    ASSERT_TRUE(res[0].ok) << said;
    EXPECT_EQ(res[0].code, 0);
    EXPECT_EQ(test::names_in(out), want);
    for (const std::string& f : want)
      if (f != "metadata.json") { EXPECT_EQ(test::slurp(out + "/" + f), test::slurp(one + "/" + f)) << f; }
  }
}

TEST(StudyPieces, AFailureOnOneProcessEndsAllAndIsSaidOnce) {
  const test::ScratchDir scratch("pieces_fail");
  const std::string out = scratch / "out";
  const auto [res, said] = in_pieces<FailingGroup>(out, 3, 512, 1);
  for (const PiecesRun& r : res) {
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.code, 2);
  }
  EXPECT_EQ(said, "impact study: error: rank 1: disk on fire\n");
  // without a checkpoint nothing of the run can be used again: no part is left, and nothing that
  // looks like a result
  for (const std::string& f : test::names_in(out)) {
    EXPECT_EQ(f.find(".part-"), std::string::npos) << f;
    EXPECT_NE(f, "metadata.json");
  }
}
