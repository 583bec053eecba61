// Line counts of one integrator on the host, for perf/sass/local_traffic.py (docs/bench.md, "Local
// memory in the model"). The script builds this file with g++ --coverage against a source tree's
// headers and runs it on the instances `impact reduce --cases-out` wrote; gcov then says how often
// each line of the law's header ran, which weighs the SASS instructions a GPU line table charges
// to that line.
//
// Usage: local_traffic_driver LAW PRECISION STEPS CASES.csv   (LAW jia|stronge, PRECISION double|float)
// Prints the instances evaluated and their mean steps. Exit 2 on bad arguments or input.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "impact/laws/jia.hpp"
#include "impact/laws/stronge.hpp"

namespace {

// The columns `impact reduce --cases-out` writes, in its order.
const char* const kHeader = "index,W_xx,W_xy,W_xz,W_yy,W_yz,W_zz,n_x,n_y,n_z,v_x,v_y,v_z,mu,e,e_t,eta0";

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "local_traffic_driver: %s\n", what.c_str());
  std::exit(2);
}

template <class T, class Law>
double run(const std::vector<impact::ContactProblem<double>>& rows, int steps) {
  impact::LawOptions opt;
  opt.steps = steps;
  double total = 0;
  for (const auto& d : rows) total += Law::template eval<T>(impact::problem_cast<T>(d), opt).steps;
  return rows.empty() ? 0.0 : total / static_cast<double>(rows.size());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) fail("usage: local_traffic_driver LAW PRECISION STEPS CASES.csv");
  const std::string law = argv[1], precision = argv[2], path = argv[4];
  const int steps = std::atoi(argv[3]);
  if (law != "jia" && law != "stronge") fail("LAW: expected jia or stronge, got '" + law + "'");
  if (precision != "double" && precision != "float") fail("PRECISION: expected double or float, got '" + precision + "'");
  if (steps < 1) fail(std::string("STEPS: expected a positive integer, got '") + argv[3] + "'");
  std::ifstream in(path);
  if (!in) fail(path + ": cannot be read");
  std::string line;
  if (!std::getline(in, line) || line != kHeader)
    fail(path + ":1: expected the header of `impact reduce --cases-out`: " + kHeader);
  std::vector<impact::ContactProblem<double>> rows;
  for (long ln = 2; std::getline(in, line); ++ln) {
    if (line.empty()) continue;
    std::vector<double> v;
    std::stringstream ss(line);
    for (std::string cell; std::getline(ss, cell, ',');) {
      char* end = nullptr;
      const double x = std::strtod(cell.c_str(), &end);
      if (cell.empty() || *end != '\0') fail(path + ":" + std::to_string(ln) + ": '" + cell + "' is not a number");
      v.push_back(x);
    }
    if (v.size() != 17) fail(path + ":" + std::to_string(ln) + ": expected 17 values, got " + std::to_string(v.size()));
    impact::ContactProblem<double> p;
    p.W = impact::Sym3<double>{v[1], v[2], v[3], v[4], v[5], v[6]};
    p.n = impact::Vec3<double>{v[7], v[8], v[9]};
    p.v0 = impact::Vec3<double>{v[10], v[11], v[12]};
    p.mu = v[13];
    p.e = v[14];
    p.e_t = v[15];
    p.eta0 = v[16];
    rows.push_back(p);
  }
  double mean = 0;
  if (law == "jia")
    mean = precision == "double" ? run<double, impact::JiaLaw>(rows, steps) : run<float, impact::JiaLaw>(rows, steps);
  else mean = precision == "double" ? run<double, impact::StrongeLaw>(rows, steps) : run<float, impact::StrongeLaw>(rows, steps);
  std::printf("%zu instances, %.1f steps on average\n", rows.size(), mean);
  return 0;
}
