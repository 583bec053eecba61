// io::CsvReader and io::OutFile (host/io): how text is read (records, fields, columns, line ends,
// the errors with their places) and how every file is written (all at once or not at all).
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "files.hpp"
#include "io/checksum.hpp"
#include "io/csv.hpp"
#include "io/out_file.hpp"

using namespace impact;

namespace {

bool exists(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}

// The first error reading all of r, or "no error".
std::string error_of(io::CsvReader& r) {
  std::vector<io::CsvField> f;
  try {
    while (r.next(f)) {}
  } catch (const io::InputError& e) { return e.what(); }
  return "no error";
}

}  // namespace

// io::CsvReader::from_text (the memory entry point of tests/fuzz/fuzz_csv.cpp) reads a text as the
// file path reads the same bytes: the records, their fields and columns, line numbers, and errors.
TEST(IoCsv, FromTextReadsAsTheFile) {
  const std::string dir = ::testing::TempDir();
  const std::string path = dir + "impact_io_csv_from_text.csv";
  const std::vector<std::string> texts = {
      "\xEF\xBB\xBF"
      "a,b\r\n1,\"x,\"\"y\"\r\n\r\n  \n2,3,\rlast,",  // BOM, CRLF, quotes, blank lines, lone CR
      "a,b\n1,2",                                     // no final line end
      "a\r",                                          // a lone CR at the end
      "",
      "a,\"open\n",                 // unterminated quote: InputError
      std::string("a,b\n1,\0", 7),  // NUL byte: InputError
  };
  for (const std::string& text : texts) {
    io::write_file(path, text);
    io::CsvReader file(path);
    io::CsvReader mem = io::CsvReader::from_text(text, path);
    std::vector<io::CsvField> ff, fm;
    for (int rec = 0;; ++rec) {
      std::string ef, em;
      bool gf = false, gm = false;
      try {
        gf = file.next(ff);
      } catch (const io::InputError& e) { ef = e.what(); }
      try {
        gm = mem.next(fm);
      } catch (const io::InputError& e) { em = e.what(); }
      ASSERT_EQ(ef, em) << "record " << rec;
      if (!ef.empty()) break;
      ASSERT_EQ(gf, gm) << "record " << rec;
      if (!gf) break;
      EXPECT_EQ(file.raw(), mem.raw());
      EXPECT_EQ(file.line_no(), mem.line_no());
      ASSERT_EQ(ff.size(), fm.size());
      for (std::size_t c = 0; c < ff.size(); ++c) {
        EXPECT_EQ(ff[c].text, fm[c].text);
        EXPECT_EQ(ff[c].col, fm[c].col);
      }
    }
  }
  std::remove(path.c_str());
  EXPECT_EQ(io::CsvReader::from_text("x\n").path(), "<memory>");
}

TEST(IoCsv, FieldsKeepTheirColumns) {
  io::CsvReader r = io::CsvReader::from_text("a, b ,\"c,\"\"d\"\n\n1,,x,\n", "t.csv");
  std::vector<io::CsvField> f;
  ASSERT_TRUE(r.next(f));
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[0].text, "a");
  EXPECT_EQ(f[1].text, " b ");  // blanks are the number parser's business
  EXPECT_EQ(f[1].col, 3);
  EXPECT_EQ(f[2].text, "c,\"d");
  EXPECT_EQ(f[2].col, 7);
  ASSERT_TRUE(r.next(f));  // the blank line is skipped, its number is not
  EXPECT_EQ(r.line_no(), 3);
  ASSERT_EQ(f.size(), 4u);  // a trailing comma makes one more empty field
  EXPECT_EQ(f[1].text, "");
  EXPECT_EQ(f[3].col, 6);
  EXPECT_FALSE(r.next(f));
}

TEST(IoCsv, ErrorsSayWhereAndWhat) {
  io::CsvReader open = io::CsvReader::from_text("a,b\n1,\"2\n", "t.csv");
  EXPECT_EQ(error_of(open),
            "t.csv:2:3: unterminated quoted field (a quoted field ends on its own line: a line break inside quotes is not read)");
  io::CsvReader nul = io::CsvReader::from_text(std::string("a\n\0", 3), "bin.dat");
  EXPECT_NE(error_of(nul).find("bin.dat:2:1: NUL byte"), std::string::npos) << error_of(nul);
  std::string long_line(io::CsvReader::kMaxLineChars + 1, '7');
  io::CsvReader big = io::CsvReader::from_text("x\n" + long_line + "\n", "big.csv");
  EXPECT_NE(error_of(big).find("big.csv:2"), std::string::npos);
  io::CsvReader exact = io::CsvReader::from_text(long_line.substr(1) + "\n", "ok.csv");
  EXPECT_EQ(error_of(exact), "no error");  // kMaxLineChars itself is a line
  io::CsvReader nums = io::CsvReader::from_text("mu\n0x10\n", "n.csv");
  std::vector<io::CsvField> f;
  ASSERT_TRUE(nums.next(f));
  ASSERT_TRUE(nums.next(f));
  try {
    io::parse_number(f[0], nums, "mu");
    ADD_FAILURE() << "0x10 read as a number";
  } catch (const io::InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("n.csv:2:1: expected a number in column 'mu', got '0x10'", 0), 0u) << e.what();
  }
  EXPECT_THROW(io::CsvReader("/nonexistent/impact/x.csv"), io::InputError);
}

TEST(IoCsv, ChecksumIsTheBytesRead) {
  const std::string text =
      "\xEF\xBB\xBF"
      "a,b\r\n1,2\r\n\r\n3,4";
  const test::ScratchDir dir("io_crc");
  const std::string path = dir / "t.csv";
  io::write_file(path, text);
  io::CsvReader r(path);
  r.keep_checksum();
  while (r.next_record()) {}
  io::Crc32 want;
  want.add(text);
  EXPECT_EQ(r.checksum(), want.value());
  EXPECT_EQ(r.offset(), text.size());
}

// The shares of a file split between processes hold its records once, in order, with the line
// numbers of the whole file; a share may be empty.
TEST(IoCsv, LineSharesCoverTheFileOnce) {
  const test::ScratchDir scratch("io_share");
  const std::string dir = scratch.path();
  std::string text = "h1,h2\n";
  for (int i = 0; i < 37; ++i) text += std::to_string(i) + "," + std::string(i % 5, 'x') + (i % 7 == 0 ? "\n\n" : "\n");
  for (const char* eol : {"\n", "\r"}) {
    std::string t = text;
    if (std::string(eol) == "\r")
      for (char& c : t)
        if (c == '\n') c = '\r';
    const std::string path = dir + "/t.csv";
    io::write_file(path, t);
    std::vector<std::pair<long, std::string>> whole;
    {
      io::CsvReader r(path);
      while (r.next_record()) whole.emplace_back(r.line_no(), r.raw());
    }
    const std::uint64_t from = 6;  // after the header
    for (int k : {1, 2, 3, 8, 64}) {
      std::vector<std::pair<long, std::string>> got = {whole[0]};
      std::uint64_t prev_end = from;
      long line = 2;
      for (int s = 0; s < k; ++s) {
        const io::ByteRange br = io::line_share(path, from, s, k);
        ASSERT_EQ(br.begin, prev_end) << "k " << k << " share " << s;
        prev_end = br.end;
        io::CsvReader r(path, br.begin, br.end, line);
        while (r.next_record()) got.emplace_back(r.line_no(), r.raw());
        line += static_cast<long>(io::count_line_breaks(path, br));
      }
      EXPECT_EQ(prev_end, t.size());
      EXPECT_EQ(got, whole) << "k " << k << (eol[0] == '\r' ? ", CR" : ", LF");
    }
  }
}

// ---- io::OutFile ----------------------------------------------------------------------------------

TEST(IoOutFile, TheFileAppearsAtCommitWhole) {
  const test::ScratchDir scratch("io_commit");
  const std::string dir = scratch.path(), path = dir + "/t.csv";
  io::write_file(path, "old\n");
  {
    io::OutFile f(path);
    f.put("new ");
    f.put(std::string(1 << 20, 'y'));
    EXPECT_EQ(test::slurp(path), "old\n");      // before commit the target is as it was
    EXPECT_EQ(test::names_in(dir).size(), 2u);  // and the bytes are in one temporary beside it
    f.commit();
  }
  EXPECT_EQ(test::slurp(path), "new " + std::string(1 << 20, 'y'));
  EXPECT_EQ(test::names_in(dir), std::vector<std::string>{"t.csv"});
}

TEST(IoOutFile, NoCommitLeavesTheTargetAndNoTemporary) {
  const test::ScratchDir scratch("io_abandon");
  const std::string dir = scratch.path(), path = dir + "/t.csv", fresh = dir + "/new.csv";
  io::write_file(path, "old\n");
  try {
    io::OutFile f(path), g(fresh);
    f.put("half");
    g.put("half");
    throw std::runtime_error("a failure half-way");
  } catch (const std::runtime_error&) {}
  EXPECT_EQ(test::slurp(path), "old\n");
  EXPECT_FALSE(exists(fresh));
  EXPECT_EQ(test::names_in(dir), std::vector<std::string>{"t.csv"});
  // a moved file is committed once, by its new owner
  io::OutFile a(fresh);
  a.put("x");
  io::OutFile b(std::move(a));
  EXPECT_FALSE(static_cast<bool>(a));
  a.commit();  // nothing to do
  b.commit();
  EXPECT_EQ(test::slurp(fresh), "x");
}

TEST(IoOutFile, FailedWritesAreErrorsNamingTheFile) {
  try {
    io::OutFile f("/nonexistent-impact-dir/t.csv");
    ADD_FAILURE() << "opened a file in a folder that does not exist";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent-impact-dir/t.csv: cannot open for writing"), std::string::npos)
        << e.what();
  }
  if (::access("/dev/full", W_OK) != 0) GTEST_SKIP() << "no /dev/full on this machine";
  try {
    // a device named by the user: written in place, and every write fails as on a full disk
    io::OutFile f("/dev/full", io::Links::follow);
    f.put(std::string(4 << 20, 'z'));
    f.commit();
    ADD_FAILURE() << "4 MiB written to /dev/full without an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/dev/full: write failed"), std::string::npos) << e.what();
  }
}

TEST(IoOutFile, SameFileAndSameDestination) {
  const test::ScratchDir scratch("io_same");
  const std::string dir = scratch.path(), a = dir + "/a.csv";
  io::write_file(a, "1\n");
  ASSERT_EQ(::symlink(a.c_str(), (dir + "/link.csv").c_str()), 0);
  EXPECT_TRUE(io::same_file(a, dir + "/./a.csv"));
  EXPECT_TRUE(io::same_file(a, dir + "/link.csv"));
  EXPECT_FALSE(io::same_file(a, dir + "/b.csv"));  // b does not exist
  EXPECT_TRUE(io::same_destination(dir + "/b.csv", dir + "/../" + dir.substr(dir.rfind('/') + 1) + "/b.csv"));
  EXPECT_FALSE(io::same_destination(dir + "/b.csv", dir + "/c.csv"));
  EXPECT_TRUE(io::same_destination("-", "-"));
  EXPECT_FALSE(io::same_destination("-", a));
}

TEST(IoOutFile, StaleWritesOfDeadProcessesAreRemoved) {
  const test::ScratchDir scratch("io_stale");
  const std::string dir = scratch.path(), path = dir + "/t.csv";
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ASSERT_GT(child, 0);
  ::waitpid(child, nullptr, 0);  // a process that no longer runs
  const std::string dead = std::to_string(child), alive = std::to_string(::getpid());
  // ..t.csv.part3.tmp-DEAD-0.tmp-DEAD-2: the temporary of a share of eval under mpirun, a share's
  // own name being a temporary's (.t.csv.part3.tmp-PID-0)
  for (const std::string& n : std::vector<std::string>{
           ".t.csv.tmp-" + dead + "-0", "t.csv.part3", ".t.csv.part3.tmp-" + dead + "-1", ".t.csv.tmp-" + alive + "-0",
           "t.csv.partx", ".u.csv.tmp-" + dead + "-0", "t.csv", "..t.csv.part3.tmp-" + dead + "-0.tmp-" + dead + "-2"})
    io::write_file(dir + "/" + n, "x");
  std::vector<std::string> removed = io::remove_stale_writes(path);
  std::sort(removed.begin(), removed.end());
  // the temporaries of t.csv and of its shares whose process ended; a committed share (t.csv.part3)
  // proves no run's by its name and stays, as does every other file
  EXPECT_EQ(removed, (std::vector<std::string>{"..t.csv.part3.tmp-" + dead + "-0.tmp-" + dead + "-2",
                                               ".t.csv.part3.tmp-" + dead + "-1", ".t.csv.tmp-" + dead + "-0"}));
  EXPECT_EQ(test::names_in(dir), (std::vector<std::string>{".t.csv.tmp-" + alive + "-0", ".u.csv.tmp-" + dead + "-0", "t.csv",
                                                           "t.csv.part3", "t.csv.partx"}));
}
