// Designs in bounded memory (host/design/design.hpp): the memory a design needs is estimated and
// refused before anything is allocated (an lhs design of 2^32 - 1 rows took 17 GB for a dry run),
// the number of rows is bounded, and an imported file is read line by line with a line-length and a
// row limit, a NUL byte refused (an imported /dev/zero grew to 16 GB).
#include <gtest/gtest.h>

#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "design/design.hpp"
#include "io/csv.hpp"

using namespace impact::design;

namespace {

ParamSpec U(const std::string& n, double a, double b) {
  ParamSpec p;
  p.name = n;
  p.kind = ParamKind::uniform;
  p.a = a;
  p.b = b;
  return p;
}

DesignSpec DS(DesignKind k, std::size_t n) {
  DesignSpec s;
  s.kind = k;
  s.n = n;
  return s;
}

// The message of make_design, or "" when it builds.
std::string error_of(const std::vector<ParamSpec>& specs, const DesignSpec& s, double limit = 0) {
  try {
    make_design(specs, s, limit);
  } catch (const std::invalid_argument& e) { return e.what(); }
  return "";
}

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "impact_design_limits_" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

bool starts(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }
bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST(DesignLimits, LhsMemoryRefusedBeforeAllocating) {
  const std::vector<ParamSpec> two = {U("a", 0, 1), U("b", 0, 1)};
  // n x d x 4 bytes of strata
  EXPECT_DOUBLE_EQ(design_memory_bytes(two, DS(DesignKind::lhs, 1000000)), 8e6);
  EXPECT_DOUBLE_EQ(design_memory_bytes(two, DS(DesignKind::mc, 1000000)), 0.0);
  EXPECT_DOUBLE_EQ(design_memory_bytes(two, DS(DesignKind::sobol, 1000000)), 0.0);
  // 8 MB of strata against a 1 MiB limit: refused naming design.n (without the check the design
  // would be built: this test then fails, harmlessly)
  const std::string msg = error_of(two, DS(DesignKind::lhs, 1000000), 1 << 20);
  EXPECT_TRUE(starts(msg, "design.n: an lhs design of 1000000 rows needs")) << msg;
  EXPECT_TRUE(has(msg, "use fewer rows, or mc or sobol")) << msg;
  // within the limit it builds; mc and sobol of any size hold nothing per row
  EXPECT_EQ(error_of(two, DS(DesignKind::lhs, 1000), 1 << 20), "");
  EXPECT_EQ(error_of(two, DS(DesignKind::mc, 4294967295u), 1 << 20), "");
  EXPECT_EQ(error_of(two, DS(DesignKind::sobol, 4294967295u), 1 << 20), "");
  // lhs_huge.toml: n = 2^32 - 1 (16 GiB of strata) against a 4 GiB limit: refused at once
  const auto t0 = std::chrono::steady_clock::now();
  const std::string huge = error_of({U("mu", 0.1, 0.5)}, DS(DesignKind::lhs, 4294967295u), 4.0 * (1u << 30));
  EXPECT_TRUE(starts(huge, "design.n: an lhs design of 4294967295 rows needs 16 GiB")) << huge;
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 1.0);
  // the default limit: half of the available memory at most (and of ulimit -v where set)
  const double budget = memory_budget_bytes();
  EXPECT_GT(budget, 0.0);
  rlimit as{};
  if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) { EXPECT_LE(budget, 0.5 * double(as.rlim_cur)); }
}

TEST(DesignLimits, RowsBounded) {
  const std::vector<ParamSpec> two = {U("a", 0, 1), U("b", 0, 1)};
  EXPECT_TRUE(starts(error_of(two, DS(DesignKind::mc, kMaxDesignRows + 1)), "design.n: at most 10000000000 rows"))
      << error_of(two, DS(DesignKind::mc, kMaxDesignRows + 1));
  // saltelli: N (d + 2) rows
  EXPECT_TRUE(starts(error_of(two, DS(DesignKind::saltelli, 3000000000u)), "design.n: a saltelli design has N (d + 2)"))
      << error_of(two, DS(DesignKind::saltelli, 3000000000u));
  EXPECT_EQ(error_of(two, DS(DesignKind::saltelli, 2000000000u)), "");
  // a grid: the product of its counts
  ParamSpec g1 = U("a", 0, 1), g2 = U("b", 0, 1);
  g1.kind = g2.kind = ParamKind::linspace;
  g1.count = g2.count = 200000;  // 4e10 rows
  EXPECT_TRUE(starts(error_of({g1, g2}, DS(DesignKind::grid, 0)), "design.kind: a grid of 40000000000 rows"))
      << error_of({g1, g2}, DS(DesignKind::grid, 0));
}

TEST(DesignLimits, ImportedFilesReadWithinLimits) {
  const std::vector<ParamSpec> specs = {U("a", 0, 1), U("b", 0, 1)};
  auto imported = [](const std::string& file) {
    DesignSpec s = DS(DesignKind::imported, 0);
    s.file = file;
    return s;
  };
  // import_devzero.toml: /dev/zero was read into one endless line; now its first byte is refused
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(error_of(specs, imported("/dev/zero")),
            "design.file: /dev/zero:1:1: NUL byte: expected a sample matrix (is this a binary file?)");
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 1.0);
  // a NUL byte inside a file: its line and column
  std::string f = write_temp("nul.txt", std::string("a b\n0.1 0.2\n0.3 0.\0 4\n", 22));
  EXPECT_EQ(error_of(specs, imported(f)),
            "design.file: " + f + ":3:7: NUL byte: expected a sample matrix (is this a binary file?)");
  std::remove(f.c_str());
  // an overlong line (io::CsvReader::kMaxLineChars, 1 MiB): refused, naming its line
  const std::size_t max_line = impact::io::CsvReader::kMaxLineChars;
  f = write_temp("long.txt", "0.1 0.2\n" + std::string(max_line + 100, ' ') + "0.3 0.4\n");
  EXPECT_EQ(error_of(specs, imported(f)),
            "design.file: " + f + ":2: line longer than " + std::to_string(max_line) + " characters: expected a sample matrix");
  std::remove(f.c_str());
  // more rows than the memory limit holds (8 bytes a value): refused at the first row too many
  std::string rows;
  for (int i = 0; i < 1000; ++i) rows += "0.5 0.5\n";
  f = write_temp("rows.txt", "a b\n" + rows);
  const std::string msg = error_of(specs, imported(f), 100 * 2 * 8);
  EXPECT_TRUE(starts(msg, "design.file: " + f + ":102:1: expected at most 100 rows")) << msg;
  EXPECT_EQ(error_of(specs, imported(f), 1000 * 2 * 8), "");
  std::remove(f.c_str());
  // a folder
  const std::string dir = error_of(specs, imported(::testing::TempDir()));
  EXPECT_TRUE(has(dir, ": cannot read: is a directory, expected a sample matrix")) << dir;
  // CR LF and a last line without its newline still read
  f = write_temp("crlf.txt", "a,b\r\n0.1,0.2\r\n0.3,0.4");
  DesignSpec s = imported(f);
  const auto des = make_design(specs, s);
  ASSERT_EQ(des->rows(), 2u);
  std::vector<double> v(4);
  des->fill(0, 2, v.data());
  EXPECT_EQ(v, (std::vector<double>{0.1, 0.2, 0.3, 0.4}));
  std::remove(f.c_str());
}
