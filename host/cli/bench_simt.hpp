// `impact bench --simt`: the SIMT model (host/bench/simt.hpp, docs/bench.md) for every integrator
// law x precision x steps of the bench's options, as a markdown table (and JSON with --json).
#pragma once
#include <cstdio>

#include "cli/bench.hpp"
#include "bench/bench.hpp"

namespace impact::cli {

int run_simt(const bench::BenchSpec& spec, const BenchArgs& args, std::FILE* table, std::FILE* log);

}  // namespace impact::cli
