// host/engine tables (engine/table.hpp): mode sequences of 1 to 8 modes through their text, and
// result rows written to an `impact eval` table and read back (the path of `impact compare --given`).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "engine/columns.hpp"
#include "engine/evaluate.hpp"
#include "engine/registry.hpp"
#include "engine/table.hpp"
#include "io/csv.hpp"
#include "io/out_file.hpp"

using namespace impact;

namespace {

// Every packed sequence of 1..8 modes (slip, stick, reverse), repeats included: the 8th mode of a
// full sequence may repeat the 7th (ModeSeq::push keeps the first 7 and the latest).
std::vector<std::uint32_t> all_mode_sequences() {
  std::vector<std::uint32_t> all;
  for (int len = 1; len <= 8; ++len) {
    int count = 1;
    for (int i = 0; i < len; ++i) count *= 3;
    for (int c = 0; c < count; ++c) {
      std::uint32_t bits = 0;
      for (int i = 0, r = c; i < len; ++i, r /= 3) bits |= static_cast<std::uint32_t>(1 + r % 3) << (4 * i);
      all.push_back(bits);
    }
  }
  return all;
}

std::uint32_t parsed(const std::string& text) {
  std::uint32_t bits = 0xdeadu;
  std::string bad;
  EXPECT_TRUE(engine::parse_modes(text, bits, bad)) << text << ": bad word '" << bad << "'";
  return bits;
}

// The outputs the fake batch function below writes, row after row across its calls.
engine::OutputColumns<double> g_planned;
std::size_t g_next_row = 0;

void planned_batch(const BatchIn<double>& in, const BatchOut<double>& out, const LawOptions&) {
  for (std::size_t i = 0; i < in.count; ++i, ++g_next_row) {
    for (int k = 0; k < kNumRealOutputs; ++k) out.real[k][i] = g_planned.real[k][g_next_row];
    out.modes[i] = g_planned.modes[g_next_row];
    out.steps[i] = g_planned.steps[g_next_row];
    out.status[i] = g_planned.status[g_next_row];
  }
}

}  // namespace

TEST(EngineModes, TextRoundTripsOneToEightModes) {
  EXPECT_EQ(engine::modes_string(0), "none");
  EXPECT_EQ(parsed("none"), 0u);
  EXPECT_EQ(parsed(""), 0u);
  const std::vector<std::uint32_t> all = all_mode_sequences();
  ASSERT_EQ(all.size(), 9840u);  // 3 + 9 + ... + 3^8
  std::size_t differ = 0;
  for (std::uint32_t bits : all) {
    const std::string text = engine::modes_string(bits);
    const std::uint32_t back = parsed(text);
    if (back != bits && differ++ < 10) ADD_FAILURE() << std::hex << "0x" << bits << " '" << text << "' reads back 0x" << back;
  }
  EXPECT_EQ(differ, 0u);
  // the case that did not round-trip: a full sequence whose 8th mode repeats the 7th
  ModeSeq m = ModeSeq::empty();
  for (int i = 0; i < 8; ++i) m.push(i % 2 ? Mode::stick : Mode::slip);
  m.push(Mode::slip);
  ASSERT_EQ(m.bits, 0x11212121u);
  EXPECT_EQ(engine::modes_string(m.bits), "slip>stick>slip>stick>slip>stick>slip>slip");
  EXPECT_EQ(parsed(engine::modes_string(m.bits)), 0x11212121u);
}

TEST(EngineModes, UnknownWordsAreNamed) {
  std::uint32_t bits = 0;
  std::string bad;
  EXPECT_FALSE(engine::parse_modes("slip>skid", bits, bad));
  EXPECT_EQ(bad, "skid");
  EXPECT_FALSE(engine::parse_modes("slip>", bits, bad));
  EXPECT_EQ(bad, "");
  EXPECT_FALSE(engine::parse_modes("Stick", bits, bad));
  EXPECT_EQ(bad, "Stick");
}

TEST(EngineTable, ResultsRoundTripThroughAnEvalTable) {
  const engine::LawInfo* law = engine::find_law("jia");  // In_c, modes and steps columns
  ASSERT_NE(law, nullptr);
  // planned results: every status, every mode sequence of 1..8 modes, numbers of every magnitude
  const std::vector<std::uint32_t> seqs = all_mode_sequences();
  const std::size_t n = seqs.size();
  g_planned.resize(n);
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> mant(-1, 1);
  std::uniform_int_distribution<int> expo(-300, 300);
  for (std::size_t i = 0; i < n; ++i) {
    for (int k = 0; k < kNumRealOutputs; ++k) g_planned.real[k][i] = std::ldexp(mant(rng), expo(rng));
    g_planned.modes[i] = seqs[i];
    g_planned.steps[i] = static_cast<std::int32_t>(i % 1000);
    g_planned.status[i] = static_cast<std::uint8_t>(i % 3 ? 0 : (i / 3) % static_cast<int>(Status::count_));
  }
  // an input table: every input column, the row number in mu
  const std::string dir = ::testing::TempDir();
  const std::string in_path = dir + "impact_engine_table_in.csv", out_path = dir + "impact_engine_table_out.csv";
  {
    std::string text;
    for (int k = 0; k < kNumInputs; ++k) text += std::string(k ? "," : "") + kInputNames[k];
    text += '\n';
    for (std::size_t i = 0; i < n; ++i) {
      for (int k = 0; k < kNumInputs; ++k) text += (k ? "," : "") + std::to_string(k == in_mu ? double(i) : 0.5);
      text += '\n';
    }
    io::write_file(in_path, text);
  }
  // written by `impact eval`'s path (in chunks), read back by `impact compare --given`'s
  g_next_row = 0;
  {
    io::CsvReader reader(in_path);
    io::OutFile out(out_path);
    const engine::TableStats stats =
        engine::evaluate_table<double>(reader, out, *law, &planned_batch, LawOptions{}, engine::EvalPipeline{1000, 3});
    out.commit();
    EXPECT_EQ(stats.rows, n);
  }
  ASSERT_EQ(g_next_row, n);
  io::CsvReader reader(out_path);
  const engine::InputLayout lay = engine::read_header(reader, *law, true);
  engine::InputColumns<double> cols;
  engine::OutputColumns<double> got;
  cols.resize(n + 1);
  got.resize(n + 1);
  std::vector<io::CsvField> fields;
  std::size_t rows = 0;
  while (engine::read_row(reader, fields, lay, cols, rows)) {
    ASSERT_LT(rows, n);
    engine::read_results(fields, reader, lay, *law, got, rows);
    ++rows;
  }
  ASSERT_EQ(rows, n);
  std::size_t ok = 0;
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(cols.col[in_mu][i], double(i));
    ASSERT_EQ(got.status[i], g_planned.status[i]) << "row " << i;
    if (got.status[i] != 0) {
      EXPECT_EQ(got.modes[i], 0u) << "row " << i;  // numbers and modes are empty unless ok
      continue;
    }
    ++ok;
    for (int k = 0; k <= out_In_c; ++k)  // P, vf, dE and jia's In_c, to the bit
      EXPECT_EQ(std::memcmp(&got.real[k][i], &g_planned.real[k][i], sizeof(double)), 0)
          << "row " << i << " column " << k << ": " << got.real[k][i] << " vs " << g_planned.real[k][i];
    EXPECT_EQ(got.modes[i], g_planned.modes[i])
        << std::hex << "row " << std::dec << i << ": 0x" << std::hex << g_planned.modes[i] << " reads back 0x" << got.modes[i];
  }
  EXPECT_GT(ok, n / 2);
  std::remove(in_path.c_str());
  std::remove(out_path.c_str());
}
