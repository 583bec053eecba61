// The one grammar of numbers in text (io/number.hpp, docs/INTERFACE.md "Numbers in text"), and the
// readers that use it: a CSV cell (io::parse_number) reads what the grammar reads, the same double,
// and refuses what it refuses, with the place (two readers with grammars of their own disagree at
// the edges: one taking 0x10 as 16 and refusing 4.9e-324, the other the opposite).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "io/csv.hpp"
#include "io/number.hpp"

using namespace impact;
using io::NumberFault;

namespace {

std::uint64_t bits(double x) {
  std::uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

NumberFault fault_of(const std::string& t) { return io::parse_number_text(t).fault; }

// The same text as a CSV cell: its value, or the message of the InputError.
std::string csv_cell(const std::string& t, double& v) {
  io::CsvReader r = io::CsvReader::from_text("x,mu\n1," + t + "\n", "c.csv");
  std::vector<io::CsvField> f;
  r.next(f);
  r.next(f);
  try {
    v = io::parse_number(f.at(1), r, "mu");
    return "";
  } catch (const io::InputError& e) { return e.what(); }
}

}  // namespace

TEST(Number, DecimalsReadAsTheNearestDouble) {
  const std::vector<std::pair<std::string, double>> cases = {
      {"0", 0.0},
      {"1", 1.0},
      {"-1", -1.0},
      {"+1", 1.0},
      {"1.", 1.0},
      {".5", 0.5},
      {"-.5", -0.5},
      {"007", 7.0},
      {"1e3", 1000.0},
      {"1E+3", 1000.0},
      {"2.5e-3", 2.5e-3},
      {"0.1", 0.1},
      {"1e-0", 1.0},
      {"123456789012345678901234567890", 1.2345678901234568e29},
      {"1.7976931348623157e308", std::numeric_limits<double>::max()},
      {"2.2250738585072014e-308", std::numeric_limits<double>::min()},
  };
  for (const auto& [t, want] : cases) {
    const io::ParsedNumber p = io::parse_number_text(t);
    EXPECT_TRUE(p.ok()) << t;
    EXPECT_EQ(bits(p.value), bits(want)) << t;
  }
}

TEST(Number, SubnormalsAreValuesAndUnderflowIsZero) {
  const double tiny = std::numeric_limits<double>::denorm_min();
  double v = -1;
  ASSERT_TRUE(io::parse_number_text("4.9e-324", v));
  EXPECT_EQ(v, tiny);
  ASSERT_TRUE(io::parse_number_text("-4.9e-324", v));
  EXPECT_EQ(v, -tiny);
  ASSERT_TRUE(io::parse_number_text("2.4703282292062328e-324", v));  // just above half of it: rounds up
  EXPECT_EQ(v, tiny);
  ASSERT_TRUE(io::parse_number_text("1e-310", v));
  EXPECT_EQ(bits(v), bits(1e-310));
  // below half the smallest subnormal: zero, with its sign
  for (const char* t : {"2e-324", "1e-400", "1e-99999999999999999999", "0.000000001e-320"}) {
    v = -1;
    ASSERT_TRUE(io::parse_number_text(t, v)) << t;
    EXPECT_EQ(bits(v), bits(0.0)) << t;
  }
  ASSERT_TRUE(io::parse_number_text("-1e-400", v));
  EXPECT_TRUE(v == 0.0 && std::signbit(v));
  ASSERT_TRUE(io::parse_number_text("-0", v));
  EXPECT_TRUE(v == 0.0 && std::signbit(v));
}

TEST(Number, OverflowIsRefused) {
  for (const char* t :
       {"1e400", "-1e400", "1e309", "1.7976931348623159e308", "1e99999999999999999999", "123456789e305", "0.0000001e316"})
    EXPECT_EQ(fault_of(t), NumberFault::overflow) << t;
  // the largest double, and a text that rounds down to it
  EXPECT_EQ(fault_of("1.7976931348623158e308"), NumberFault::none);
  EXPECT_EQ(fault_of("0.0000001e315"), NumberFault::none);
}

TEST(Number, HexadecimalIsRefused) {
  for (const char* t : {"0x10", "0X10", "-0x10", "+0x1p-2", "0x1p-2", "0x", "0xg"})
    EXPECT_EQ(fault_of(t), NumberFault::hexadecimal) << t;
}

TEST(Number, WordsAreNonFiniteValues) {
  double v = 0;
  for (const char* t : {"inf", "INF", "Inf", "+inf", "infinity", "Infinity", "INFINITY"}) {
    ASSERT_TRUE(io::parse_number_text(t, v)) << t;
    EXPECT_TRUE(std::isinf(v) && v > 0) << t;
  }
  ASSERT_TRUE(io::parse_number_text("-inf", v));
  EXPECT_TRUE(std::isinf(v) && v < 0);
  for (const char* t : {"nan", "NaN", "NAN", "-nan", "+nan"}) {
    ASSERT_TRUE(io::parse_number_text(t, v)) << t;
    EXPECT_TRUE(std::isnan(v)) << t;
  }
}

TEST(Number, EverythingElseIsMalformed) {
  EXPECT_EQ(fault_of(""), NumberFault::empty);
  for (const char* t : {"+",     "-",    ".",  "+.",        "e5",    ".e5", "1e",  "1e+", "1e-",   "1.2.3", "1e5.5",     "1,5",
                        "1_000", " 1",   "1 ", "1 2",       "--1",   "+-1", "abc", "1a",  "in",    "infin", "infinityy", "nan(1)",
                        "nan()", "inf1", "١",  "1\xc2\xa0", "0b101", "1d5", "1f",  "\t",  "1e5e5", "e",     "E"})
    EXPECT_EQ(fault_of(t), NumberFault::malformed) << "'" << t << "'";
}

TEST(Number, HintsSayWhy) {
  EXPECT_NE(io::number_fault_hint(NumberFault::hexadecimal).find("hexadecimal"), std::string::npos);
  EXPECT_NE(io::number_fault_hint(NumberFault::overflow).find("range of double"), std::string::npos);
  EXPECT_EQ(io::number_fault_hint(NumberFault::malformed), "");
  EXPECT_EQ(io::number_fault_hint(NumberFault::none), "");
}

TEST(Number, BeginsLikeNumber) {
  for (const char* t : {"0x10", "1e400", "-x", "+", ".5", "inf", "NaN", "Infinity", "9abc"})
    EXPECT_TRUE(io::begins_like_number(t)) << t;
  for (const char* t : {"", "mu", "V0x", "in", "x1", "\"1\"", " 1", "e5"}) EXPECT_FALSE(io::begins_like_number(t)) << t;
}

TEST(Number, TrimBlanks) {
  long col = 5;
  EXPECT_EQ(io::trim_blanks(" \t1.5 \t", &col), "1.5");
  EXPECT_EQ(col, 7);
  EXPECT_EQ(io::trim_blanks("   "), "");
  EXPECT_EQ(io::trim_blanks("1 2"), "1 2");
}

// A CSV cell reads what the grammar reads (blanks around it skipped), the same bits, and refuses
// the rest with file, line, column and the reason.
TEST(Number, CsvCellsFollowTheGrammar) {
  for (const char* t : {"0.3", "4.9e-324", "-4.9e-324", "1e-400", "+2", ".5", "1.", "inf", "-inf", "nan", "Infinity",
                        "1.7976931348623157e308", " 0.25 "}) {
    double v = 0, g = 0;
    const std::string trimmed(io::trim_blanks(t));
    ASSERT_TRUE(io::parse_number_text(trimmed, g)) << t;
    EXPECT_EQ(csv_cell(t, v), "") << t;
    EXPECT_EQ(bits(v), bits(g)) << t;
  }
  double v = 0;
  EXPECT_EQ(csv_cell("0x10", v),
            "c.csv:2:3: expected a number in column 'mu', got '0x10' (hexadecimal is not accepted: numbers are decimal)");
  EXPECT_EQ(csv_cell("1e400", v)
                .rfind("c.csv:2:3: expected a number in column 'mu', got '1e400' (beyond the range of "
                       "double",
                       0),
            0u);
  EXPECT_EQ(csv_cell("  -1e999", v).rfind("c.csv:2:5: expected a number in column 'mu', got '  -1e999' (beyond", 0), 0u);
  EXPECT_EQ(csv_cell("0x1p-2", v).rfind("c.csv:2:3: expected a number in column 'mu', got '0x1p-2' (hexadecimal", 0), 0u);
  EXPECT_EQ(csv_cell("nan(1)", v), "c.csv:2:3: expected a number in column 'mu', got 'nan(1)'");
  EXPECT_EQ(csv_cell("1_000", v), "c.csv:2:3: expected a number in column 'mu', got '1_000'");
  EXPECT_EQ(csv_cell("", v), "c.csv:2:3: expected a number in column 'mu', found an empty cell");
}
