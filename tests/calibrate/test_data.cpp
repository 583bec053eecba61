// The experiments of a calibration read from CSV (calibrate/data.hpp): conditions by the scenario's
// parameter names, observations, their uncertainties (a sigma_ column or a constant), columns to
// ignore; every fault said with its place.
#include <gtest/gtest.h>

#include <string>

#include "calibrate/data.hpp"
#include "files.hpp"
#include "io/csv.hpp"
#include "io/out_file.hpp"

using namespace impact;
using namespace impact::calibrate;

namespace {

const systems::ScenarioInfo& ball() { return *systems::find_scenario("ball"); }

std::string error_of(const std::string& path, const std::string& text, DataSpec spec) {
  io::write_file(path, text);
  spec.file = path;
  try {
    read_experiments(spec, ball());
  } catch (const std::exception& e) { return e.what(); }
  return "no error";
}

}  // namespace

TEST(CalibrateData, ReadsConditionsObservationsAndUncertainties) {
  const test::ScratchDir dir("cal_data");
  io::write_file(dir / "d.csv",
                 "label,V0x,w0y,Vx,sigma_Vx,Vz\n"
                 "shot 1, -1.5, 2, 0.25, 0.01, 2.9\n"
                 "shot 2,0.5,-1,-0.1,0.02,3.1\r\n");
  DataSpec spec;
  spec.file = dir / "d.csv";
  spec.observed = {"Vz", "Vx"};
  spec.sigma = {{"Vz", 0.05}};
  spec.ignore = {"label"};
  const Experiments d = read_experiments(spec, ball());
  EXPECT_EQ(d.n, 2u);
  EXPECT_EQ(d.conditions, (std::vector<std::string>{"V0x", "w0y"}));
  EXPECT_EQ(d.observed, (std::vector<std::string>{"Vz", "Vx"}));
  EXPECT_EQ(d.cond, (std::vector<double>{-1.5, 2, 0.5, -1}));
  EXPECT_EQ(d.obs, (std::vector<double>{2.9, 0.25, 3.1, -0.1}));  // in the observed order
  EXPECT_EQ(d.sigma, (std::vector<double>{0.05, 0.01, 0.05, 0.02}));
}

TEST(CalibrateData, FaultsAreSaidWithTheirPlace) {
  const test::ScratchDir dir("cal_data_bad");
  const std::string f = dir / "d.csv";
  DataSpec spec;
  spec.observed = {"Vx"};
  spec.sigma = {{"Vx", 0.1}};
  EXPECT_EQ(error_of(f, "V0x,Vxx,Vx\n1,2,3\n", spec),
            f + ":1:5: column 'Vxx' names no parameter of scenario ball, no observed output (Vx) and no sigma_<output>");
  EXPECT_EQ(error_of(f, "V0x,Vx\n1,2\n-1,nan\n", spec), f + ":3:4: expected a finite number in column 'Vx', got 'nan'");
  DataSpec by_column = spec;  // the uncertainty from its column only
  by_column.sigma.clear();
  EXPECT_EQ(error_of(f, "V0x,Vx,sigma_Vx\n1,2,0\n", by_column),
            f + ":2:5: expected a standard deviation > 0 in column 'sigma_Vx', got '0'");
  EXPECT_NE(error_of(f, "V0x,Vx\n1,0x2\n", spec).find(f + ":2:3: expected a number in column 'Vx', got '0x2'"),
            std::string::npos);
  EXPECT_EQ(error_of(f, "V0x,Vx\n1,2,3\n", spec), f + ":2: expected 2 fields (the header's), got 3");
  EXPECT_EQ(error_of(f, "V0x,Vx,V0x\n", spec), f + ":1:8: column 'V0x' twice");
  EXPECT_EQ(error_of(f, "V0x,Vx\n", spec), f + ":2: no experiment: expected rows after the header");
  EXPECT_EQ(error_of(f, "", spec), f + ":1: no header: expected the experiments' columns");
  EXPECT_EQ(error_of(f, "V0x,w0y\n1,2\n", spec), "data.observed: 'Vx' has no column in " + f);
  EXPECT_EQ(error_of(f, "V0x,Vx,sigma_Vx\n1,2,0.1\n", spec),
            "data.sigma.Vx: " + f + " has a column sigma_Vx (one uncertainty per output: the column or the constant)");
  spec.not_conditions = {"mu"};
  EXPECT_NE(error_of(f, "V0x,mu,Vx\n1,0.2,2\n", spec).find(f + ":1:5: column 'mu' sets a parameter [params] fixes or frees"),
            std::string::npos);
  spec.not_conditions.clear();
  spec.sigma.clear();
  EXPECT_EQ(error_of(f, "V0x,Vx\n1,2\n", spec),
            "data: 'Vx' has no uncertainty: a column sigma_Vx in " + f + ", or data.sigma.Vx");
}
