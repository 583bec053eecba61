// The [run] table every command's config shares (a study's, a calibration's): its keys, documented
// (io/config_keys.hpp) and read.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/options.hpp"
#include "io/config_keys.hpp"
#include "io/config_tree.hpp"

namespace impact::engine {

// The [run] table of a command's config (a study's, a calibration's): backend, precision,
// integrator, steps and, where `chunk` is given, chunk; each key checked with its location, into
// the references. `allow_reference`: the reference backend is a choice; `max_steps`: run.steps'
// bound.
struct RunKeys {
  std::string& backend;
  Precision& precision;
  Integrator& integrator;
  int& steps;
  std::uint64_t* chunk;  // null: the command has no run.chunk
  bool allow_reference;
  std::uint64_t max_steps;
  std::uint64_t max_chunk;  // run.chunk's bound
};
void resolve_run_keys(const io::ConfigReader& r, const nlohmann::ordered_json& root, const RunKeys& keys);

// [run]'s keys: backend, precision, integrator, steps, and chunk (at most max_chunk) where the
// command has one; the reference backend where it may run.
std::vector<io::KeyDoc> run_key_docs(bool chunk, bool reference, std::uint64_t max_chunk);

}  // namespace impact::engine
