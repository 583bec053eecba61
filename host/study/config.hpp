// The study description of `impact study` (docs/study.md): parsed from TOML (toml++) or JSON
// (nlohmann/json), overridden by --set KEY=VALUE, checked key by key, and written back in a
// canonical JSON form that parses to the same study (round trip).
//
// Every error is a ConfigError whose message starts with the location and the key:
//   "study.toml:12:7: design.n: expected a positive integer, got -3"
// (JSON files too: every key's line and column are recorded; a syntax error, a number out of
// range, a duplicate key or a nesting deeper than kMaxConfigDepth has its own).
#pragma once
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/options.hpp"
#include "impact/problem.hpp"
#include "study/design.hpp"

namespace impact::study {

struct ConfigError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Limits of a config (docs/study.md, "Errors"): its size, its nesting (tables, arrays, dotted
// keys: refused before any parser recurses into them) and the ranges of the integer keys beyond
// their types' own.
constexpr std::size_t kMaxConfigBytes = std::size_t(16) << 20;
constexpr int kMaxConfigDepth = 64;
constexpr std::uint64_t kMaxSteps = 10000000;         // run.steps
constexpr std::uint64_t kMaxChunk = 100000000;        // run.chunk
constexpr std::uint64_t kMaxBootstrap = 100000;       // sensitivity.bootstrap
constexpr std::uint64_t kMaxBins = 1000000;           // plots[i].bins

struct PlotSpec {
  std::string kind;            // sweep | hist | scatter
  std::string x;               // sweep: a parameter; scatter: a column
  std::vector<std::string> y;  // sweep/hist: columns; scatter: one column
  std::string file;            // PNG name inside the output folder
  std::string title;
  std::string law;             // "" = every law of the study, overlaid
  int bins = 60;               // hist
};

struct StudyConfig {
  // [study]
  std::string name = "study";
  std::string description;
  std::string scenario = "contact";
  std::vector<std::string> laws = {"jia"};
  // [run]
  std::string backend = "auto";      // resolved when the study runs (engine::resolve_backend)
  engine::Precision precision = engine::Precision::f64;
  Integrator integrator = Integrator::rk4;
  int steps = 250;
  std::uint64_t chunk = 65536;
  // [design]
  DesignSpec design;
  // [params]: every scenario parameter the study sets (fixed or varied), in file order
  std::vector<ParamSpec> params;
  // [output]
  std::string out_dir = "out/study";
  std::vector<std::string> formats = {"csv", "npy", "salib"};
  // CSV tables are written up to this many rows when an .npy table is written too (the same
  // table, binary: at scale the text is most of a GPU run's time); 0: no limit
  std::uint64_t csv_max_rows = 200000;
  std::vector<std::string> columns;  // SALib Y files and summary: these columns ("" list = defaults)
  // [sensitivity] (needs design.kind = saltelli)
  std::vector<std::string> sens_outputs;
  std::uint64_t bootstrap = 200;
  double confidence = 0.95;
  // [[plots]]
  std::vector<PlotSpec> plots;
};

// Config text as a JSON tree plus where each key came from ("a.b", "plots[1].x" -> line, column).
struct ConfigTree {
  nlohmann::ordered_json root;
  std::map<std::string, std::pair<long, long>> where;
  std::string file;
  // "FILE:LINE:COL: " for a key (or "FILE: " when its location is unknown).
  std::string at(const std::string& key) const;
};

// Reads a .toml or .json file (by extension; other extensions: by content), at most
// kMaxConfigBytes. Syntax errors, numbers out of range, duplicate keys (JSON; TOML refuses them
// itself) and nesting deeper than kMaxConfigDepth throw ConfigError with line and column.
ConfigTree load_config_file(const std::string& path);
ConfigTree parse_config_text(const std::string& text, const std::string& name, bool toml);

// Applies "KEY=VALUE" (KEY a dotted path such as design.n or params.mu; VALUE a TOML value: a
// number, true/false, "string" or bare word, [array] or { inline table }). Throws ConfigError.
void apply_override(ConfigTree& tree, const std::string& setting);

// Checks every key and builds the study. Unknown keys, wrong types, impossible distributions,
// parameters the scenario does not have, unknown laws/outputs: ConfigError naming the key.
StudyConfig resolve_config(const ConfigTree& tree);

// The canonical JSON form of a study (every key explicit); resolve_config(parse of it) == it.
nlohmann::ordered_json to_json(const StudyConfig& c);

// The value forms of a parameter: a number (fixed) or a string "uniform:LO:HI",
// "normal:MEAN:SD", "lognormal:MU:SIGMA", "truncnormal:MEAN:SD:LO:HI", "linspace:A:B:COUNT", or a
// table {dist = "uniform", lo = , hi = } / {linspace = [A, B, COUNT]} (see docs/study.md).
ParamSpec parse_param(const std::string& name, const nlohmann::ordered_json& v, const std::string& where);

bool operator==(const ParamSpec& a, const ParamSpec& b);
bool same_study(const StudyConfig& a, const StudyConfig& b);

}  // namespace impact::study
