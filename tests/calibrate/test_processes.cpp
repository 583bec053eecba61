// A calibration over several processes (run_calibration with a resume::ProcessGroup; threads stand in
// for MPI's ranks, tests/support/thread_group.hpp, so that every build tests it; tests/cli/mpi.sh runs
// it under mpirun): each process evaluates its share of every batch, and the chain and the fit are
// the single process's, bit for bit, for 2, 3 and 5 processes (5: uneven shares of every batch, all
// multiples of the 24 experiments); only rank 0 writes. A fault on one process only (its data file)
// ends every process, each naming it, none left waiting.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "calibrate/config.hpp"
#include "calibrate/run.hpp"
#include "thread_group.hpp"

using namespace impact;
using namespace impact::calibrate;

namespace {

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

CalibrateConfig config(const std::string& out, const std::string& method) {
  CalibrateRequest q;
  q.config = std::string(IMPACT_SOURCE_DIR) + "/examples/calibration/ball-synthetic.toml";
  q.sets = {"output.plots=false", "run.backend=\"serial\"", "calibrate.method=\"" + method + "\"",
            method == "fit" ? "fit.starts=3" : "mcmc.steps=200"};  // a run takes its own method's settings only
  q.out = out;
  return load_calibrate_config(q);
}

// Runs the config over `procs` threads sharing the batches; rank 0's outcome.
CalibrationOutcome over(const CalibrateConfig& c, int procs) {
  test::Shared shared(procs);
  std::vector<CalibrationOutcome> o(static_cast<std::size_t>(procs));
  std::vector<std::thread> ts;
  for (int r = 0; r < procs; ++r)
    ts.emplace_back([&, r] {
      test::ThreadGroup g(shared, r);
      o[static_cast<std::size_t>(r)] = run_calibration(c, true, nullptr, &g);
    });
  for (std::thread& t : ts) t.join();
  for (int r = 1; r < procs; ++r) EXPECT_EQ(o[static_cast<std::size_t>(r)].rows, o[0].rows) << "rank " << r;
  return o[0];
}

}  // namespace

TEST(CalibrateProcesses, TheChainAndTheFitAreTheSingleProcesssBits) {
  const std::string base = ::testing::TempDir() + "impact_cal_procs";
  std::filesystem::remove_all(base);
  for (const std::string method : {"mcmc", "fit"}) {
    const std::vector<std::string> files = method == "mcmc"
                                               ? std::vector<std::string>{"samples.npy", "samples.csv", "predictive.csv"}
                                               : std::vector<std::string>{"estimate.csv", "starts.csv", "predictive.csv"};
    const std::string one = base + "/" + method + "1";
    const CalibrationOutcome o1 = run_calibration(config(one, method), true, nullptr);
    for (int procs : {2, 3, 5}) {
      const std::string dir = base + "/" + method + std::to_string(procs);
      const CalibrationOutcome o = over(config(dir, method), procs);
      EXPECT_EQ(o.processes, procs);
      EXPECT_EQ(o.rows, o1.rows) << method;
      for (const std::string& f : files) {
        const std::string a = slurp(one + "/" + f), b = slurp(dir + "/" + f);
        EXPECT_FALSE(a.empty()) << f;
        EXPECT_TRUE(a == b) << method << " over " << procs << " processes: " << f << " differs";
      }
      EXPECT_NE(slurp(dir + "/metadata.json").find("\"processes\": " + std::to_string(procs)), std::string::npos);
    }
  }
  std::filesystem::remove_all(base);
}

TEST(CalibrateProcesses, AFaultOnOneProcessEndsEveryProcess) {
  const std::string dir = ::testing::TempDir() + "impact_cal_fault";
  std::filesystem::remove_all(dir);
  test::Shared shared(3);
  std::vector<std::string> said(3);
  std::vector<std::thread> ts;
  for (int r = 0; r < 3; ++r)
    ts.emplace_back([&, r] {
      CalibrateConfig c = config(dir, "mcmc");
      if (r == 2) c.data.file = dir + "-no-such.csv";  // this process's copy of the data is missing
      test::ThreadGroup g(shared, r);
      try {
        run_calibration(c, true, nullptr, &g);
      } catch (const std::exception& e) { said[static_cast<std::size_t>(r)] = e.what(); }
    });
  for (std::thread& t : ts) t.join();  // (a hang here is the failure)
  for (int r = 0; r < 2; ++r)
    EXPECT_EQ(said[static_cast<std::size_t>(r)].rfind("process 2: ", 0), 0u)
        << "rank " << r << ": " << said[static_cast<std::size_t>(r)];
  EXPECT_NE(said[2].find("no-such.csv"), std::string::npos) << said[2];
  EXPECT_FALSE(std::filesystem::exists(dir + "/metadata.json"));
}
