// The report of a study (study/report.hpp) says what its tables hold: metadata.json's status counts
// are the tables' status column counted, its statistics of every column are those of the table's
// ok rows (count, mean, sample sd, min, max), summary.md prints the same numbers, and `files` lists
// every file the study wrote. A design where half the rows are invalid (e > 1) makes the ok rows a
// strict subset.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/csv.hpp"
#include "files.hpp"
#include "text_study.hpp"
#include "study/session.hpp"
#include "study/columns.hpp"
#include "engine/column_info.hpp"
#include "engine/registry.hpp"
#include "impact/columns.hpp"

using namespace impact;
using namespace impact::study;

namespace {

const char* kStudy = R"(
[study]
name = "report"
scenario = "ball"
laws = ["newton", "chatterjee-ruina"]
[run]
backend = "serial"
[design]
kind = "mc"
n = 300
seed = 4
[params]
mu = "uniform:0.1:0.8"
e = "uniform:0.5:1.5"
V0x = "normal:-1:0.5"
)";

// A table read back: its header and its rows as text.
struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::size_t col(const std::string& name) const {
    for (std::size_t i = 0; i < header.size(); ++i)
      if (header[i] == name) return i;
    ADD_FAILURE() << "no column " << name;
    return 0;
  }
};

Table read_table(const std::string& path) {
  Table t;
  io::CsvReader r(path);
  std::vector<io::CsvField> f;
  while (r.next(f)) {
    std::vector<std::string> row;
    for (const io::CsvField& x : f) row.emplace_back(x.text);
    if (t.header.empty()) t.header = row;
    else t.rows.push_back(row);
  }
  return t;
}

std::string g6(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%g", v);
  return b;
}

}  // namespace

TEST(StudyReport, SaysWhatTheTablesHold) {
  const test::ScratchDir scratch("report");
  const StudyRequest q = test::text_study(kStudy, scratch / "out");
  const LoadedStudy s = load_study(q);
  const StudyOutcome o = run_study(s, q, std::chrono::steady_clock::now(), nullptr);
  std::ifstream mf(q.out + "/metadata.json");
  const nlohmann::json meta = nlohmann::json::parse(mf);
  std::ifstream sf(q.out + "/summary.md");
  const std::string summary((std::istreambuf_iterator<char>(sf)), std::istreambuf_iterator<char>());

  for (const char* law : {"newton", "chatterjee-ruina"}) {
    SCOPED_TRACE(law);
    const Table t = read_table(q.out + "/" + law + ".csv");
    ASSERT_EQ(t.rows.size(), 300u);
    const nlohmann::json& sum = meta.at("summary").at(law);
    // status counts: the table's, every row counted once
    std::map<std::string, std::uint64_t> counted;
    const std::size_t st = t.col("status");
    for (const auto& row : t.rows) ++counted[row[st]];
    std::map<std::string, std::uint64_t> said;
    for (auto it = sum.at("status").begin(); it != sum.at("status").end(); ++it) said[it.key()] = it.value();
    EXPECT_EQ(said, counted);
    ASSERT_GT(counted["ok"], 50u);
    ASSERT_LT(counted["ok"], 250u);  // the invalid rows are left out of the statistics below
    EXPECT_NE(o.report.status_lines.find(law), std::string::npos);
    EXPECT_NE(o.report.status_lines.find("ok " + std::to_string(counted["ok"])), std::string::npos) << o.report.status_lines;
    // every column's statistics: those of the ok rows
    for (auto it = sum.at("columns").begin(); it != sum.at("columns").end(); ++it) {
      SCOPED_TRACE(it.key());
      const std::size_t c = t.col(it.key());
      std::vector<double> v;
      for (const auto& row : t.rows)
        if (row[st] == "ok") v.push_back(std::stod(row[c]));
      double mean = 0, lo = INFINITY, hi = -INFINITY;
      for (double x : v) mean += x, lo = std::min(lo, x), hi = std::max(hi, x);
      mean /= static_cast<double>(v.size());
      double ss = 0;
      for (double x : v) ss += (x - mean) * (x - mean);
      const double sd = std::sqrt(ss / static_cast<double>(v.size() - 1));
      const nlohmann::json& j = it.value();
      EXPECT_EQ(j.at("n").get<double>(), static_cast<double>(v.size()));
      const double scale = std::max({std::fabs(lo), std::fabs(hi), 1e-300});
      EXPECT_NEAR(j.at("mean").get<double>(), mean, 1e-13 * scale);
      EXPECT_NEAR(j.at("sd").get<double>(), sd, 1e-12 * std::max(sd, 1e-300) + 1e-13 * scale);
      EXPECT_EQ(j.at("min").get<double>(), lo);  // extremes are values of the table, exactly
      EXPECT_EQ(j.at("max").get<double>(), hi);
      // summary.md prints the kept columns with the same numbers
      const std::string line = "| " + std::string(law) + " | " + it.key() + " | ";
      const std::size_t at = summary.find(line);
      if (at == std::string::npos) continue;  // not a kept column
      const std::string want = line + std::to_string(v.size()) + " | " + g6(j.at("mean").get<double>()) + " | " +
                               g6(j.at("sd").get<double>()) + " | " + g6(lo) + " | " + g6(hi) + " |";
      EXPECT_EQ(summary.substr(at, summary.find('\n', at) - at), want);
    }
  }
  // `files`: every file written but metadata.json, summary.md and the folder's claim, and nothing else
  std::set<std::string> listed, found;
  for (const auto& f : meta.at("files")) listed.insert(f.get<std::string>());
  for (const auto& e : std::filesystem::recursive_directory_iterator(q.out))
    if (e.is_regular_file()) found.insert(std::filesystem::relative(e.path(), q.out).string());
  found.erase("metadata.json");
  found.erase("summary.md");
  EXPECT_EQ(found.erase(".impactbatch-outputs.json"), 1u);  // the folder's claim (study/output_folder.hpp)
  EXPECT_EQ(listed, found);
  EXPECT_EQ(std::set<std::string>(o.report.files.begin(), o.report.files.end()), found);
}

// Every column a table can hold states its unit, symbol and meaning once (engine/column_info.hpp,
// the laws' extras, the scenarios' tables): listings, metadata.json, the .npy titles and the plots
// read them, so a column without them would be an unlabelled axis.
TEST(StudyColumns, EveryColumnStatesItsUnitSymbolAndMeaning) {
  for (int k = 0; k < impact::kNumInputs; ++k) {
    const impact::engine::ColumnInfo* c = impact::engine::contact_column(impact::kInputNames[k]);
    ASSERT_NE(c, nullptr) << impact::kInputNames[k];
    EXPECT_FALSE(c->unit.empty()) << c->name;
  }
  for (const impact::engine::LawInfo& law : impact::engine::all_laws())
    for (const impact::systems::ScenarioInfo& sc : impact::systems::all_scenarios())
      for (const impact::study::StudyColumn& col : impact::study::law_output_columns(law, sc)) {
        const impact::engine::ColumnInfo c = impact::study::column_info(col, law, sc);
        SCOPED_TRACE(law.name + " " + sc.name + " " + col.name);
        EXPECT_EQ(c.name, col.name);
        EXPECT_FALSE(c.meaning.empty());
        EXPECT_FALSE(c.symbol.empty());
        // a quantity has a unit ("1" for a pure number); only text columns have none
        const bool text = col.kind == impact::study::ColKind::status || col.kind == impact::study::ColKind::modes;
        EXPECT_EQ(c.unit.empty(), text);
        // the .npy title: printable ASCII that names the column
        const std::string t = impact::study::npy_title(c);
        EXPECT_EQ(t.rfind(col.name + ": ", 0), 0u);
        for (char ch : t) EXPECT_TRUE(ch >= 0x20 && ch <= 0x7e) << t;
      }
}
