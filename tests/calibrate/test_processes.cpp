// A calibration over several processes (run_calibration with a resume::ProcessGroup; threads stand in
// for MPI's ranks, tests/support/thread_group.hpp, so that every build tests it; tests/cli/mpi.sh runs
// it under mpirun): each process evaluates its share of every batch, and the chain and the fit are
// the single process's, bit for bit, for 2 and 3 processes (shares of 8 and 12 rows of the fit's
// 24-row batches, uneven ones of the Hessian's); only rank 0 writes.
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
  q.sets = {"mcmc.steps=200", "output.plots=false", "run.backend=\"serial\"", "calibrate.method=\"" + method + "\"",
            "fit.starts=3"};
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
    const std::vector<std::string> files =
        method == "mcmc" ? std::vector<std::string>{"samples.npy", "samples.csv", "predictive.csv"}
                         : std::vector<std::string>{"estimate.csv", "starts.csv", "predictive.csv"};
    const std::string one = base + "/" + method + "1";
    const CalibrationOutcome o1 = run_calibration(config(one, method), true, nullptr);
    for (int procs : {2, 3}) {
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
