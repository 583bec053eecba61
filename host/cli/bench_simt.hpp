// `impact bench --simt`: the SIMT model (host/study/simt.hpp, docs/bench.md) for every integrator
// law x precision x steps of the bench's options, as a markdown table (and JSON with --json).
#pragma once
#include <cstdio>

#include "cli/bench.hpp"
#include "study/bench.hpp"

namespace impact::cli {

int run_simt(const study::BenchSpec& spec, const BenchArgs& args, std::FILE* table, std::FILE* log);

}  // namespace impact::cli
