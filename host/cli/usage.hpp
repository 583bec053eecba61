// A usage error of a command: its arguments do not make a run (exit 2, docs/INTERFACE.md).
// Arguments are every process's under mpirun, so every rank throws the same one before any
// collective: main says it once, from rank 0, and every rank exits 2 without aborting the world
// (an abort is for a failure on one rank that would leave the others waiting).
#pragma once
#include <stdexcept>
#include <string>
#include <utility>

namespace impact::cli {

struct UsageError : std::invalid_argument {
  UsageError(std::string command, const std::string& what) : std::invalid_argument(what), command_(std::move(command)) {}
  // "study": the message reads "impact study: error: WHAT"
  const std::string& command() const { return command_; }

 private:
  std::string command_;
};

}  // namespace impact::cli
