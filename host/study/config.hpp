// The study description of `impact study` (docs/study.md): read as a config tree (TOML or JSON,
// overridden by --set KEY=VALUE: io/config_tree.hpp), checked key by key, and written back in a
// canonical JSON form that parses to the same study (round trip).
//
// Every error is an io::ConfigError whose message starts with the location and the key:
//   "study.toml:12:7: design.n: expected a positive integer, got -3"
#pragma once
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/options.hpp"
#include "engine/run_keys.hpp"
#include "io/config_tree.hpp"
#include "impact/problem.hpp"
#include "design/design.hpp"

namespace impact::study {

// Limits of a study config beyond the config tree's own (size and nesting: io/config_tree.hpp):
// the ranges of the integer keys beyond their types' own (docs/study.md, "Errors").
constexpr std::uint64_t kMaxSteps = 10000000;    // run.steps
constexpr std::uint64_t kMaxChunk = 100000000;   // run.chunk
constexpr std::uint64_t kMaxBootstrap = 100000;  // sensitivity.bootstrap
constexpr std::uint64_t kMaxBins = 1000000;      // plots[i].bins

struct PlotSpec {
  std::string kind;            // sweep | hist | scatter
  std::string x;               // sweep: a parameter; scatter: a column
  std::vector<std::string> y;  // sweep/hist: columns; scatter: one column
  std::string file;            // PNG name inside the output folder
  std::string title;
  std::string law;  // "" = every law of the study, overlaid
  int bins = 60;    // hist
};

struct StudyConfig {
  // [study]
  std::string name = "study";
  std::string description;
  std::string scenario = "contact";
  std::vector<std::string> laws = {"jia"};
  // [run]
  std::string backend = "auto";  // resolved when the study runs (engine::resolve_backend)
  engine::Precision precision = engine::Precision::f64;
  Integrator integrator = Integrator::rk4;
  int steps = 250;
  std::uint64_t chunk = 65536;
  // [design]
  design::DesignSpec design;
  // [params]: every scenario parameter the study sets (fixed or varied), in file order
  std::vector<design::ParamSpec> params;
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

// Checks every key and builds the study. Unknown keys, wrong types, impossible distributions,
// parameters the scenario does not have, unknown laws/outputs: ConfigError naming the key.
StudyConfig resolve_config(const io::ConfigTree& tree);

// Whether output.formats names `f` (csv, npy, salib).
inline bool has_format(const StudyConfig& c, const char* f) {
  for (const std::string& x : c.formats)
    if (x == f) return true;
  return false;
}

// Whether the study writes salib/problem.json: its varied parameters as a SALib problem, with the
// salib format (the folder of SALib's files; a study that leaves the format out writes no salib/).
inline bool writes_salib_problem(const StudyConfig& c) {
  bool varied = false;
  for (const design::ParamSpec& p : c.params) varied = varied || p.kind != design::ParamKind::fixed;
  return varied && has_format(c, "salib");
}

// The canonical JSON form of a study (every key explicit); resolve_config(parse of it) == it.
nlohmann::ordered_json to_json(const StudyConfig& c);

// The head of a run's config table, [study] or [calibrate] (calibrate/config.hpp), read once for
// both: the table's keys checked against `keys`; name and description, strings, left as they are
// where absent; and the scenario, one systems knows (systems/scenarios.hpp). ConfigError naming the
// key; a missing table: "FILE:1:1: TABLE: missing table [TABLE] (HOLDS)". Returns the table, for
// the keys that are the caller's own.
struct ConfigHead {
  std::string name, description, scenario;
};
const nlohmann::ordered_json& read_config_head(const io::ConfigReader& r, const std::string& table,
                                               const std::set<std::string>& keys, const std::string& holds, ConfigHead& head);
// out/NAME, the output folder when output.dir is not given; ConfigError naming TABLE.name unless
// NAME is one plain name (not blank, '.' or '..', no '/').
std::string default_out_dir(const io::ConfigReader& r, const std::string& table, const std::string& name);

// The value forms of a parameter: a number (fixed) or a string "uniform:LO:HI",
// "normal:MEAN:SD", "lognormal:MU:SIGMA", "truncnormal:MEAN:SD:LO:HI", "linspace:A:B:COUNT", or a
// table {dist = "uniform", lo = , hi = } / {linspace = [A, B, COUNT]} (see docs/study.md).
design::ParamSpec parse_param(const std::string& name, const nlohmann::ordered_json& v, const std::string& where);

bool same_study(const StudyConfig& a, const StudyConfig& b);

}  // namespace impact::study
