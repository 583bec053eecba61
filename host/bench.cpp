// Placeholder: replaced by the implementation of `impact bench`.
#include "bench.hpp"

#include <CLI/CLI.hpp>
#include <stdexcept>

namespace impact::host {

CLI::App* add_bench_subcommand(CLI::App& app, BenchArgs& a) {
  CLI::App* c = app.add_subcommand("bench", "Throughput of every law x backend x precision (not implemented yet)");
  return c;
}

int run_bench(const BenchArgs&, std::FILE*, std::FILE*) { throw std::runtime_error("impact bench: not implemented yet"); }

}  // namespace impact::host
