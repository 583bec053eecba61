// A study's tables in parts (resume/parts.hpp, docs/distributed.md): the part names, the .npy header
// read back as written, the merge of synthetic parts into the whole file byte for byte (empty parts
// included), the faults it refuses, and the chunk-order merge of moments that makes a study's
// statistics independent of how its chunks were shared.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "impact/stats.hpp"
#include "io/checksum.hpp"
#include "io/npy.hpp"
#include "io/out_file.hpp"
#include "resume/parts.hpp"
#include "study/run.hpp"
#include "files.hpp"

namespace impact::study {
using namespace impact::resume;
namespace {

namespace fs = std::filesystem;

using impact::test::slurp;

struct TempDir {
  std::string path;
  TempDir() {
    char tmpl[] = "/tmp/impact_parts_XXXXXX";
    path = mkdtemp(tmpl);
    fs::create_directories(path + "/salib");
  }
  ~TempDir() { fs::remove_all(path); }
};

// A .npy of records (u8 id, f8 x) for ids [first, first + n).
std::string npy_bytes(const std::string& path, std::uint64_t first, std::uint64_t n) {
  {
    io::OutFile f(path);
    io::write_npy_header(f, {{"sample_id", "<u8"}, {"x", "<f8"}}, n);
    std::string r;
    for (std::uint64_t i = first; i < first + n; ++i) {
      io::put_binary<std::uint64_t>(r, i);
      io::put_binary<double>(r, 0.5 * double(i));
    }
    f.put(r);
    f.commit();
  }
  return slurp(path);
}

std::string csv_rows(std::uint64_t first, std::uint64_t n) {
  std::string s;
  for (std::uint64_t i = first; i < first + n; ++i) s += std::to_string(i) + "," + std::to_string(i * 3) + "\n";
  return s;
}

void write(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

// The manifest's sums of the part files now in dir (what the pieces record as they finish).
void record_sums(const std::string& dir, resume::PartsManifest& m) {
  m.sums.assign(m.rows.size(), {});
  for (std::size_t p = 0; p < m.rows.size(); ++p)
    for (const std::string& f : m.files) m.sums[p].push_back(io::file_sum(dir + "/" + part_file_name(f, static_cast<int>(p))));
}

TEST(Parts, FileNames) {
  EXPECT_EQ(part_file_name("jia.npy", 3), "jia.part-00003.npy");
  EXPECT_EQ(part_file_name("design.txt", 0), "design.part-00000.txt");
  EXPECT_EQ(part_file_name("salib/jia_P_n.txt", 12), "salib/jia_P_n.part-00012.txt");
  EXPECT_EQ(part_file_name("chatterjee-ruina.csv", 99999), "chatterjee-ruina.part-99999.csv");
  EXPECT_EQ(part_file_name("a.b/noext", 1), "a.b/noext.part-00001");
}

TEST(Parts, NpyHeaderReadBack) {
  TempDir d;
  for (std::uint64_t rows : {std::uint64_t(0), std::uint64_t(7), std::uint64_t(123456789012)}) {
    const std::string p = d.path + "/h.npy";
    {
      io::OutFile f(p);
      io::write_npy_header(f, {{"sample_id", "<u8"}, {"status", "|u1"}}, rows);
      f.commit();
    }
    std::FILE* f = std::fopen(p.c_str(), "rb");
    const io::NpyHeader h = io::read_npy_header(f, p);
    std::fclose(f);
    EXPECT_EQ(h.rows, rows);
    EXPECT_EQ(h.descr, "[('sample_id', '<u8'), ('status', '|u1')]");
    EXPECT_EQ(h.bytes % 64, 0u);
    EXPECT_EQ(h.bytes, fs::file_size(p));
  }
  write(d.path + "/bad.npy", "not a numpy file at all");
  std::FILE* f = std::fopen((d.path + "/bad.npy").c_str(), "rb");
  EXPECT_THROW(io::read_npy_header(f, "bad.npy"), std::runtime_error);
  std::fclose(f);
}

// Parts of 4, 0 and 5 rows of a .npy, a CSV with a header line and a SALib file merge into the
// files one writer makes of the 9 rows.
TEST(Parts, MergeIsTheWholeFileByteForByte) {
  TempDir d;
  const std::vector<std::uint64_t> first = {0, 4, 4}, rows = {4, 0, 5};
  for (int p = 0; p < 3; ++p) {
    npy_bytes(d.path + "/" + part_file_name("law.npy", p), first[p], rows[p]);
    write(d.path + "/" + part_file_name("law.csv", p), "sample_id,x\n" + csv_rows(first[p], rows[p]));
    write(d.path + "/" + part_file_name("salib/law_x.txt", p), csv_rows(first[p], rows[p]));
  }
  resume::PartsManifest m;
  m.first = first;
  m.rows = rows;
  m.files = {"law.npy", "law.csv", "salib/law_x.txt"};
  m.run = "0123abcd";
  m.total = 9;
  record_sums(d.path, m);
  write_parts_manifest(d.path, m);
  const resume::PartsManifest back = read_parts_manifest(d.path);
  EXPECT_EQ(back.first, m.first);
  EXPECT_EQ(back.rows, m.rows);
  EXPECT_EQ(back.files, m.files);
  EXPECT_EQ(back.run, m.run);
  EXPECT_EQ(back.total, 9u);
  ASSERT_EQ(back.sums.size(), 3u);
  for (std::size_t p = 0; p < 3; ++p)
    for (std::size_t i = 0; i < 3; ++i) {
      EXPECT_EQ(back.sums[p][i].bytes, m.sums[p][i].bytes);
      EXPECT_EQ(back.sums[p][i].crc32, m.sums[p][i].crc32);
    }
  // a part of a listed table beyond the parts listed: parts.json lacks parts (a gap), nothing merged
  write(d.path + "/" + part_file_name("law.csv", 7), "sample_id,x\n");
  try {
    resume::check_no_parts_beyond(d.path, back);
    ADD_FAILURE() << "a part beyond the listed ones passed";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("law.part-00007.csv is part 7 of law.csv, beyond the 3 parts listed"), std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(fs::exists(d.path + "/law.csv"));
  fs::remove(d.path + "/" + part_file_name("law.csv", 7));
  write(d.path + "/notes.part-00009.csv", "a user's file named like a part of no listed table\n");
  resume::check_no_parts_beyond(d.path, back);
  merge_parts(d.path, back);
  EXPECT_TRUE(fs::exists(d.path + "/notes.part-00009.csv"));  // not a part of a listed table: left
  TempDir whole;
  EXPECT_EQ(slurp(d.path + "/law.npy"), npy_bytes(whole.path + "/law.npy", 0, 9));
  EXPECT_EQ(slurp(d.path + "/law.csv"), "sample_id,x\n" + csv_rows(0, 9));
  EXPECT_EQ(slurp(d.path + "/salib/law_x.txt"), csv_rows(0, 9));
  EXPECT_FALSE(fs::exists(d.path + "/parts.json"));
  EXPECT_FALSE(fs::exists(d.path + "/" + part_file_name("law.npy", 0)));
}

TEST(Parts, FaultsAreRefusedAndNothingIsRemoved) {
  TempDir d;
  resume::PartsManifest m;
  m.first = {0, 3};
  m.rows = {3, 2};
  m.files = {"law.npy", "law.csv"};
  m.total = 5;
  const auto make = [&] {
    for (int p = 0; p < 2; ++p) {
      npy_bytes(d.path + "/" + part_file_name("law.npy", p), m.first[p], m.rows[p]);
      write(d.path + "/" + part_file_name("law.csv", p), "sample_id,x\n" + csv_rows(m.first[p], m.rows[p]));
    }
  };
  // refused with `needle` in the message, nothing merged or removed
  const auto refused_as_listed = [&](const char* needle) {
    try {
      merge_parts(d.path, m);
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
      EXPECT_TRUE(fs::exists(d.path + "/" + part_file_name("law.npy", 0)));
      EXPECT_FALSE(fs::exists(d.path + "/law.npy"));
      return true;
    }
    return false;
  };
  // the same with the manifest recording the parts as they are (the checks after the checksums:
  // header, rows, size)
  const auto refused = [&](const char* needle) {
    record_sums(d.path, m);
    return refused_as_listed(needle);
  };
  make();
  record_sums(d.path, m);
  fs::remove(d.path + "/" + part_file_name("law.csv", 1));
  EXPECT_TRUE(refused_as_listed("law.part-00001.csv"));  // missing
  // the manifest against the run's rows: its last part (or every part but the first) missing from
  // it and from the folder, a run of more rows, parts that do not start at row 0
  make();
  record_sums(d.path, m);
  {
    resume::PartsManifest cut = m;
    cut.first.pop_back(), cut.rows.pop_back(), cut.sums.pop_back();
    fs::remove(d.path + "/" + part_file_name("law.csv", 1));
    fs::remove(d.path + "/" + part_file_name("law.npy", 1));
    std::swap(cut, m);
    EXPECT_TRUE(refused_as_listed("its 1 parts hold rows 0..3 of the run's 5 (parts are missing)"));
    std::swap(cut, m);
    make();
    resume::PartsManifest more = m;
    more.total = 6;
    std::swap(more, m);
    EXPECT_TRUE(refused_as_listed("hold rows 0..5 of the run's 6"));
    m.total = 5;
    m.first = {1, 3};
    EXPECT_TRUE(refused_as_listed("part 0 starts at row 1, not 0 (a gap)"));
    std::swap(more, m);
  }
  // a part that is a link (to the right bytes) is no part
  make();
  record_sums(d.path, m);
  fs::rename(d.path + "/" + part_file_name("law.csv", 1), d.path + "/elsewhere.csv");
  fs::create_symlink("elsewhere.csv", d.path + "/" + part_file_name("law.csv", 1));
  EXPECT_TRUE(refused_as_listed("law.part-00001.csv: not a regular file"));
  fs::remove(d.path + "/" + part_file_name("law.csv", 1));
  // the checksums: two parts of the same size swapped, a byte changed, a part of another run
  make();
  record_sums(d.path, m);
  const std::string p0 = d.path + "/" + part_file_name("law.npy", 0), p1 = d.path + "/" + part_file_name("law.npy", 1);
  npy_bytes(p1, 3, 3);  // part 1 now holds 3 rows like part 0
  record_sums(d.path, m);
  fs::rename(p0, d.path + "/x");
  fs::rename(p1, p0);
  fs::rename(d.path + "/x", p1);
  EXPECT_EQ(fs::file_size(p0), fs::file_size(p1));
  EXPECT_TRUE(refused_as_listed("law.part-00000.npy: not the part parts.json lists as part 0"));
  make();
  record_sums(d.path, m);
  {
    std::string b = slurp(d.path + "/" + part_file_name("law.csv", 1));
    b[b.size() - 2] ^= 1;
    write(d.path + "/" + part_file_name("law.csv", 1), b);
  }
  EXPECT_TRUE(refused_as_listed("law.part-00001.csv: not the part parts.json lists as part 1"));
  make();
  write(d.path + "/" + part_file_name("law.csv", 1), "sample_id,y\n" + csv_rows(3, 2));
  EXPECT_TRUE(refused("header line differs"));
  make();
  write(d.path + "/" + part_file_name("law.csv", 0), "sample_id,x\n" + csv_rows(0, 2));
  EXPECT_TRUE(refused("holds 2 lines"));
  make();
  npy_bytes(d.path + "/" + part_file_name("law.npy", 1), 3, 4);
  EXPECT_TRUE(refused("holds 4 rows"));
  make();
  { std::ofstream(d.path + "/" + part_file_name("law.npy", 1), std::ios::binary | std::ios::app) << "xyz"; }
  EXPECT_TRUE(refused("size is not that of 2 records"));
  // a manifest of the earlier version (no checksums)
  write(d.path + "/parts.json", R"({"impactbatch_parts": 1, "parts": [{"first": 0, "rows": 3}], "files": ["law.npy"]})");
  try {
    read_parts_manifest(d.path);
    ADD_FAILURE() << "a version-1 manifest was read";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("without the parts' checksums"), std::string::npos) << e.what();
  }
  const std::string sum = R"(, "files": [{"bytes": 10, "crc32": "0000abcd"}]})";
  // a manifest whose parts are not contiguous
  write(d.path + "/parts.json", R"({"impactbatch_parts": 2, "run": "x", "parts": [{"first": 0, "rows": 3)" + sum +
                                    R"(, {"first": 4, "rows": 2)" + sum + R"(], "files": ["law.npy"]})");
  EXPECT_THROW(read_parts_manifest(d.path), std::runtime_error);
  write(d.path + "/parts.json",
        R"({"impactbatch_parts": 2, "run": "x", "parts": [{"first": 0, "rows": 3)" + sum + R"(], "files": ["../x"]})");
  EXPECT_THROW(read_parts_manifest(d.path), std::runtime_error);
  write(d.path + "/parts.json",
        R"({"impactbatch_parts": 2, "run": "x", "parts": [{"first": 0, "rows": 3)" + sum + R"(], "files": ["law.npy"]})");
  EXPECT_EQ(read_parts_manifest(d.path).sums.at(0).at(0).crc32, 0xabcdu);  // the well-formed one is read
  write(
      d.path + "/parts.json",
      R"({"impactbatch_parts": 2, "run": "x", "parts": [{"first": 0, "rows": 3, "files": [{"bytes": 10, "crc32": "abcd"}]}], "files": ["law.npy"]})");
  EXPECT_THROW(read_parts_manifest(d.path), std::runtime_error);  // a CRC of 4 hex digits
  write(d.path + "/parts.json",
        R"({"impactbatch_parts": 2, "run": "x", "parts": [{"first": 0, "rows": 3, "files": []}], "files": ["law.npy"]})");
  EXPECT_THROW(read_parts_manifest(d.path), std::runtime_error);  // a part without its file's sum
  // a version-3 manifest holding more rows than the run's
  write(d.path + "/parts.json", R"({"impactbatch_parts": 3, "run": "x", "rows": 2, "parts": [{"first": 0, "rows": 3)" + sum +
                                    R"(], "files": ["law.npy"]})");
  EXPECT_THROW(read_parts_manifest(d.path), std::runtime_error);
  for (const char* name : {"lnk/x.npy", "salib/../x.npy", "parts.json", ""}) {  // no table of a study's folder
    write(d.path + "/parts.json", R"({"impactbatch_parts": 2, "run": "x", "parts": [{"first": 0, "rows": 3)" + sum +
                                      R"(], "files": [")" + name + R"("]})");
    EXPECT_THROW(read_parts_manifest(d.path), std::runtime_error) << name;
  }
  // a part beyond those listed is a gap only for a part of a listed table
  write(d.path + "/law.part-00005.txt", "a user's file: not a part of law.npy or law.csv\n");
  resume::PartsManifest two = m;
  EXPECT_NO_THROW(resume::check_no_parts_beyond(d.path, two));
  write(d.path + "/" + part_file_name("law.npy", 5), "x");
  EXPECT_THROW(resume::check_no_parts_beyond(d.path, two), std::runtime_error);
}

// The statistics of a study are the blocks' moments merged in block order: the same bits whichever
// process folded which block (the concatenation of the processes' block lists, in rank order).
TEST(Parts, BlockMomentsFoldInBlockOrder) {
  const std::size_t ncol = 2, nchunks = 7;
  std::vector<Moments> chunks;
  for (std::size_t c = 0; c < nchunks; ++c)
    for (std::size_t k = 0; k < ncol; ++k) {
      Moments m = Moments::identity();
      for (int i = 0; i < 13; ++i) m = merge(m, Moments::of(std::sin(double(c * 100 + k * 10 + i)) * 1e3));
      chunks.push_back(m);
    }
  const std::vector<Moments> all = fold_block_moments(chunks, ncol);
  for (std::size_t k = 0; k < ncol; ++k) {
    Moments seq = Moments::identity();
    for (std::size_t c = 0; c < nchunks; ++c) seq = merge(seq, chunks[c * ncol + k]);
    EXPECT_EQ(0, std::memcmp(&seq, &all[k], sizeof seq));
    EXPECT_EQ(all[k].n, 13.0 * nchunks);
  }
  EXPECT_EQ(fold_block_moments({}, ncol)[0].n, 0.0);
}

TEST(Parts, StatisticsBlocks) {
  EXPECT_EQ(stat_block_rows(0), 64u);
  EXPECT_EQ(stat_block_rows(2100), 64u);
  EXPECT_EQ(stat_block_rows(64 * 8192), 64u);
  EXPECT_EQ(stat_block_rows(64 * 8192 + 1), 128u);
  EXPECT_EQ(stat_block_rows(1000000000), 131072u);
  for (std::uint64_t rows : {1ull, 1000ull, 123456789ull, 10000000000ull}) EXPECT_LE(rows / stat_block_rows(rows), 8192u);
}

}  // namespace
}  // namespace impact::study
