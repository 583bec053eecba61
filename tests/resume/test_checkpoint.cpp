// The checkpoint of a run (resume/checkpoint.hpp): what was saved reads back bit for bit, and a
// file that is not this run's piece as it was written is never used: another run's key, another
// index, a flipped byte, a cut file, a wrong size. Such a file is counted corrupt and recomputed; a
// path that is not a regular file is an error.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>

#include "impact/stats.hpp"
#include "resume/checkpoint.hpp"
#include "files.hpp"

using namespace impact;

namespace {

void spill(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << bytes;
}

// Bytes of every value 0..255, a NUL and a newline among them: a piece's bytes are binary.
std::string binary_bytes(std::size_t n, unsigned seed) {
  std::mt19937 g(seed);
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(g() & 0xff);
  return s;
}

}  // namespace

TEST(Checkpoint, SavedBytesReadBackAsTheyWere) {
  const test::ScratchDir scratch("ck_roundtrip");
  const std::string dir = scratch / "ck";
  resume::Checkpoint w(dir, "law=jia seed=1", "piece");  // makes the folder
  EXPECT_FALSE(w.has_chunks());
  const std::string a = binary_bytes(1000, 1), empty;
  w.save_bytes(0, a);
  w.save_bytes(7, empty);
  EXPECT_TRUE(w.has_chunks());
  resume::Checkpoint r(dir, "law=jia seed=1", "piece");
  std::string got = "stale";
  ASSERT_TRUE(r.load_bytes(0, got));
  EXPECT_EQ(got, a);
  ASSERT_TRUE(r.load_bytes(7, got));
  EXPECT_EQ(got, empty);
  EXPECT_FALSE(r.load_bytes(3, got));  // never saved: not finished, not corrupt
  EXPECT_EQ(r.loaded(), 2u);
  EXPECT_EQ(r.corrupt(), 0u);
  // a summary is its bytes
  BatchSummary s{};
  std::memset(&s, 0x5a, sizeof s);
  w.save(2, s);
  BatchSummary t{};
  ASSERT_TRUE(r.load(2, t));
  EXPECT_EQ(std::memcmp(&s, &t, sizeof s), 0);
  // stems are apart: a reduction's chunks are not a study's pieces
  resume::Checkpoint chunks(dir, "law=jia seed=1", "chunk");
  EXPECT_FALSE(chunks.has_chunks());
  EXPECT_FALSE(chunks.load_bytes(0, got));
  EXPECT_EQ(chunks.corrupt(), 0u);
}

TEST(Checkpoint, AFileThatIsNotThisPieceIsNeverUsed) {
  const test::ScratchDir scratch("ck_faults");
  const std::string dir = scratch / "ck";
  resume::Checkpoint w(dir, "run A", "piece");
  const std::string bytes = binary_bytes(333, 2);
  w.save_bytes(4, bytes);
  const std::string path = dir + "/piece-4.sum", good = test::slurp(path);
  std::string got;
  // another run's key
  {
    resume::Checkpoint other(dir, "run B", "piece");
    EXPECT_FALSE(other.load_bytes(4, got));
    EXPECT_EQ(other.corrupt(), 1u);
  }
  // the same file under another index
  spill(dir + "/piece-5.sum", good);
  {
    resume::Checkpoint r(dir, "run A", "piece");
    EXPECT_FALSE(r.load_bytes(5, got));
    EXPECT_EQ(r.corrupt(), 1u);
  }
  // every single flipped byte, and every cut, is caught
  for (std::size_t i = 0; i < good.size(); i += 7) {
    std::string bad = good;
    bad[i] = static_cast<char>(bad[i] ^ 0x10);
    spill(path, bad);
    resume::Checkpoint r(dir, "run A", "piece");
    EXPECT_FALSE(r.load_bytes(4, got)) << "byte " << i;
    EXPECT_EQ(r.corrupt(), 1u);
  }
  for (std::size_t n : {std::size_t(0), std::size_t(3), good.size() / 2, good.size() - 1}) {
    spill(path, good.substr(0, n));
    resume::Checkpoint r(dir, "run A", "piece");
    EXPECT_FALSE(r.load_bytes(4, got)) << "cut at " << n;
    EXPECT_EQ(r.corrupt(), 1u);
  }
  // the right file, but not the size the reader needs
  spill(path, good);
  {
    resume::Checkpoint r(dir, "run A", "piece");
    EXPECT_FALSE(r.load_bytes(4, got, bytes.size() + 1));
    EXPECT_TRUE(r.load_bytes(4, got, bytes.size()));
    EXPECT_EQ(got, bytes);
    EXPECT_EQ(r.corrupt(), 1u);
    EXPECT_EQ(r.loaded(), 1u);
  }
  // a folder (or a device) where a piece's file should be: an error, not a piece
  ::mkdir((dir + "/piece-9.sum").c_str(), 0755);
  resume::Checkpoint r(dir, "run A", "piece");
  EXPECT_THROW(r.load_bytes(9, got), std::runtime_error);
}
