// study::RowEvaluator (study/rows.hpp) gives a row of scenario values the outputs and the status the
// study's table gives it, value for value: the study's run and the calibration's model are one
// evaluation. Half the rows are invalid (e > 1): their status, and NaN outputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "engine/registry.hpp"
#include "files.hpp"
#include "io/csv.hpp"
#include "study/rows.hpp"
#include "study/session.hpp"
#include "text_study.hpp"

using namespace impact;
using namespace impact::study;

namespace {

const char* kStudy = R"(
[study]
name = "rows"
scenario = "ball"
laws = ["jia", "chatterjee-ruina"]
[run]
backend = "serial"
precision = "PRECISION"
steps = 120
[design]
kind = "mc"
n = 200
seed = 8
[params]
mu = "uniform:0.1:0.8"
e = "uniform:0.5:1.5"
V0x = "normal:-1:0.5"
w0y = "normal:2:1"
)";

}  // namespace

TEST(StudyRows, TheStudysRowsValueForValue) {
  for (const char* precision : {"double", "float"}) {
    SCOPED_TRACE(precision);
    const test::ScratchDir scratch("rows");
    std::string text = kStudy;
    text.replace(text.find("PRECISION"), 9, precision);
    const StudyRequest q = test::text_study(text.c_str(), scratch / "out");
    const LoadedStudy s = load_study(q);
    run_study(s, q, std::chrono::steady_clock::now(), nullptr);
    const systems::ScenarioInfo& sc = *systems::find_scenario("ball");
    for (const char* law : {"jia", "chatterjee-ruina"}) {
      SCOPED_TRACE(law);
      io::CsvReader r(q.out + "/" + law + ".csv");
      std::vector<io::CsvField> f;
      ASSERT_TRUE(r.next(f));
      std::vector<std::string> header;
      for (const io::CsvField& x : f) header.emplace_back(x.text);
      std::vector<std::vector<std::string>> table;
      while (r.next(f)) {
        table.emplace_back();
        for (const io::CsvField& x : f) table.back().emplace_back(x.text);
      }
      ASSERT_EQ(table.size(), 200u);
      // the inputs: every scenario parameter, by name
      const std::size_t P = sc.params.size();
      std::vector<double> values(table.size() * P);
      for (std::size_t k = 0; k < P; ++k) {
        const auto at = std::find(header.begin(), header.end(), sc.params[k].name);
        ASSERT_NE(at, header.end()) << sc.params[k].name;
        for (std::size_t i = 0; i < table.size(); ++i)
          values[i * P + k] = std::stod(table[i][static_cast<std::size_t>(at - header.begin())]);
      }
      RowEvaluator ev(sc, *engine::find_law(law), engine::Backend::serial,
                      std::string(precision) == "float" ? engine::Precision::f32 : engine::Precision::f64,
                      engine::law_options(120, Integrator::rk4));
      LawRows rows;
      ev.evaluate(values.data(), table.size(), rows);
      const std::size_t st = static_cast<std::size_t>(std::find(header.begin(), header.end(), "status") - header.begin());
      std::size_t ok = 0, compared = 0;
      for (std::size_t i = 0; i < table.size(); ++i) {
        EXPECT_EQ(status_name(static_cast<Status>(rows.status[i])), table[i][st]) << "row " << i;
        ok += table[i][st] == "ok";
        for (std::size_t j = 0; j < ev.columns().size(); ++j) {
          const StudyColumn& col = ev.columns()[j];
          if (col.kind != ColKind::real) continue;
          const auto at = std::find(header.begin(), header.end(), col.name);
          if (at == header.end()) continue;
          const std::string& cell = table[i][static_cast<std::size_t>(at - header.begin())];
          const double got = rows.out[i * ev.columns().size() + j];
          if (table[i][st] != "ok") {
            EXPECT_TRUE(std::isnan(got)) << col.name << " of row " << i;
            continue;
          }
          // the shortest text reads back exactly: as a float where the table holds the law's own
          // float values, else as a double
          const bool as_float =
              std::string(precision) == "float" && (col.source == ColSource::law || col.source == ColSource::extra);
          if (as_float) EXPECT_EQ(static_cast<float>(got), std::stof(cell)) << col.name << " of row " << i;
          else EXPECT_EQ(got, std::stod(cell)) << col.name << " of row " << i;
          ++compared;
        }
      }
      EXPECT_GT(ok, 50u);
      EXPECT_LT(ok, 150u);
      EXPECT_GT(compared, 10 * ok);
      EXPECT_GE(ev.column("Vx"), 0);
      EXPECT_EQ(ev.column("nope"), -1);
    }
  }
}
