// A usage error of a command: its arguments do not make a run (exit 2, docs/INTERFACE.md).
// Arguments are every process's under mpirun, so every rank throws the same one before any
// collective: main says it once, from rank 0, and every rank exits 2 without aborting the world
// (an abort is for a failure on one rank that would leave the others waiting).
#pragma once
#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace impact::cli {

struct UsageError : std::invalid_argument {
  UsageError(std::string command, const std::string& what) : std::invalid_argument(what), command_(std::move(command)) {}
  // "study": the message reads "impact study: error: WHAT"
  const std::string& command() const { return command_; }

 private:
  std::string command_;
};

// --steps / --integrator given (`given`, in order) for a law that integrates nothing: said on stderr
// rather than refused, since a loop over laws passes the same options to each. `speaks`: this
// process says notes (rank 0 under mpirun), with or without --quiet.
inline void note_integrator_options(const char* command, const std::vector<std::string>& given, bool integrates,
                                    const std::string& law, bool speaks) {
  if (given.empty() || integrates || !speaks) return;
  std::fprintf(stderr, "impact %s: note: %s changes nothing: %s is algebraic (no integration steps)\n", command,
               given.front().c_str(), law.c_str());
}

}  // namespace impact::cli
