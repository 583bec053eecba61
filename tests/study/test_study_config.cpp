// Study configs (study/config.hpp): TOML and JSON give the same study, the canonical JSON
// form round-trips, --set overrides, and every kind of bad config fails with a message that names
// the key (and the line and column where the file has them).
#include <gtest/gtest.h>

#include <dirent.h>

#include <string>
#include <vector>

#include "io/config_tree.hpp"
#include "study/config.hpp"
#include "systems/sample_spec.hpp"

using namespace impact;
using namespace impact::study;

namespace {

const char* kToml = R"(
[study]
name = "t"
scenario = "ball"
laws = ["jia", "stronge"]

[run]
backend = "serial"
precision = "float"
steps = 400

[design]
kind = "lhs"
n = 123
seed = 9

[params]
mu = { dist = "uniform", lo = 0.1, hi = 0.9 }
V0x = "normal:-1:0.5"
e = { dist = "truncnormal", mean = 0.5, sd = 0.2, lo = 0.0, hi = 1.0 }
eta0 = { dist = "lognormal", mu = 0.1, sigma = 0.2 }
V0z = -5

[output]
dir = "out/t"
formats = ["csv"]
columns = ["Vx", "wy"]

[[plots]]
kind = "hist"
y = ["Vx"]
bins = 20

[[plots]]
kind = "scatter"
x = "mu"
y = "wy"
law = "jia"
)";

const char* kJson = R"({
  "study": {"name": "t", "scenario": "ball", "laws": ["jia", "stronge"]},
  "run": {"backend": "serial", "precision": "float", "steps": 400},
  "design": {"kind": "lhs", "n": 123, "seed": 9},
  "params": {
    "mu": {"dist": "uniform", "lo": 0.1, "hi": 0.9},
    "V0x": "normal:-1:0.5",
    "e": {"dist": "truncnormal", "mean": 0.5, "sd": 0.2, "lo": 0.0, "hi": 1.0},
    "eta0": {"dist": "lognormal", "mu": 0.1, "sigma": 0.2},
    "V0z": -5
  },
  "output": {"dir": "out/t", "formats": ["csv"], "columns": ["Vx", "wy"]},
  "plots": [{"kind": "hist", "y": ["Vx"], "bins": 20},
            {"kind": "scatter", "x": "mu", "y": "wy", "law": "jia"}]
})";

StudyConfig from_toml(const std::string& text) { return resolve_config(io::parse_config_text(text, "t.toml", true)); }

// The error message of resolving `text` (TOML), or "" when it resolves.
std::string error_of(const std::string& text, const std::vector<std::string>& sets = {}) {
  try {
    io::ConfigTree t = io::parse_config_text(text, "bad.toml", true);
    for (const std::string& s : sets) io::apply_override(t, s);
    resolve_config(t);
  } catch (const io::ConfigError& e) { return e.what(); }
  return "";
}

const std::string kMinimal = "[study]\nscenario = \"ball\"\nlaw = \"newton\"\n";

}  // namespace

TEST(StudyConfig, TomlAndJsonGiveTheSameStudy) {
  const StudyConfig a = from_toml(kToml);
  const StudyConfig b = resolve_config(io::parse_config_text(kJson, "t.json", false));
  EXPECT_TRUE(same_study(a, b));
  ASSERT_EQ(a.params.size(), 5u);
  EXPECT_EQ(a.params[0].name, "mu");
  EXPECT_EQ(a.params[0].kind, design::ParamKind::uniform);
  EXPECT_EQ(a.params[1].kind, design::ParamKind::normal);
  EXPECT_EQ(a.params[1].a, -1.0);
  EXPECT_EQ(a.params[1].b, 0.5);
  EXPECT_EQ(a.params[4].kind, design::ParamKind::fixed);
  EXPECT_EQ(a.params[4].a, -5.0);
  EXPECT_EQ(a.design.kind, design::DesignKind::lhs);
  EXPECT_EQ(a.design.n, 123u);
  EXPECT_EQ(a.steps, 400);
  EXPECT_EQ(a.precision, impact::engine::Precision::f32);
  ASSERT_EQ(a.plots.size(), 2u);
  EXPECT_EQ(a.plots[1].y, std::vector<std::string>{"wy"});
  EXPECT_EQ(a.plots[1].law, "jia");
}

TEST(StudyConfig, CanonicalJsonRoundTrips) {
  const StudyConfig a = from_toml(kToml);
  const std::string dumped = to_json(a).dump(2);
  const StudyConfig b = resolve_config(io::parse_config_text(dumped, "dump.json", false));
  EXPECT_TRUE(same_study(a, b)) << dumped;
  // and the dump of the dump is the same text
  EXPECT_EQ(to_json(b).dump(2), dumped);
  // a change is seen
  StudyConfig c = b;
  c.params[0].b = 0.8;
  EXPECT_FALSE(same_study(a, c));
}

TEST(StudyConfig, InfiniteBoundsRoundTrip) {
  const StudyConfig a = from_toml(kMinimal + "[design]\nkind = \"mc\"\n[params]\nmu = \"truncnormal:0.3:0.2:0:inf\"\n");
  ASSERT_EQ(a.params.size(), 1u);
  EXPECT_TRUE(std::isinf(a.params[0].hi));
  const StudyConfig b = resolve_config(io::parse_config_text(to_json(a).dump(), "d.json", false));
  EXPECT_TRUE(same_study(a, b));
}

TEST(StudyConfig, EveryShippedExampleResolvesAndRoundTrips) {
  const std::string dir = std::string(IMPACT_SOURCE_DIR) + "/examples/studies";
  DIR* d = opendir(dir.c_str());
  ASSERT_NE(d, nullptr) << dir;
  int n = 0;
  while (dirent* e = readdir(d)) {
    const std::string f = e->d_name;
    if (f.size() < 5 || f.substr(f.size() - 5) != ".toml") continue;
    SCOPED_TRACE(f);
    const StudyConfig a = resolve_config(io::load_config_file(dir + "/" + f));
    const StudyConfig b = resolve_config(io::parse_config_text(to_json(a).dump(), "d.json", false));
    EXPECT_TRUE(same_study(a, b));
    ++n;
  }
  closedir(d);
  EXPECT_GE(n, 6);  // five Jia figures and the pencil Monte Carlo at least
}

TEST(StudyConfig, OverridesReplaceKeys) {
  io::ConfigTree t = io::parse_config_text(kToml, "t.toml", true);
  io::apply_override(t, "design.n=77");
  io::apply_override(t, "params.mu=uniform:0.2:0.3");
  io::apply_override(t, "run.backend=omp");
  io::apply_override(t, "study.laws=[\"jia\"]");
  io::apply_override(t, "params.r={ dist = \"normal\", mean = 1.0, sd = 0.01 }");
  const StudyConfig c = resolve_config(t);
  EXPECT_EQ(c.design.n, 77u);
  EXPECT_EQ(c.params[0].a, 0.2);
  EXPECT_EQ(c.params[0].b, 0.3);
  EXPECT_EQ(c.backend, "omp");
  EXPECT_EQ(c.laws, std::vector<std::string>{"jia"});
  ASSERT_EQ(c.params.size(), 6u);
  EXPECT_EQ(c.params[5].name, "r");
  EXPECT_EQ(c.params[5].kind, design::ParamKind::normal);
}

TEST(StudyConfig, BadConfigsNameTheKey) {
  struct Case {
    std::string text, key_in_message;
  };
  const std::vector<Case> cases = {
      {kMinimal + "[desing]\nn = 3\n", "desing: unknown key"},
      {kMinimal + "[design]\nnn = 3\n", "design.nn: unknown key"},
      {kMinimal + "[design]\nn = \"many\"\n", "design.n: expected an integer"},
      {kMinimal + "[design]\nn = -3\n", "design.n: expected an integer >= 1"},
      {kMinimal + "[design]\nkind = \"latin\"\n", "design.kind"},
      {kMinimal + "[run]\nsteps = 2.5\n", "run.steps: expected an integer"},
      {kMinimal + "[run]\nprecision = \"half\"\n", "run.precision"},
      {kMinimal + "[run]\nbackend = 3\n", "run.backend: expected a string"},
      {kMinimal + "[params]\nmu = \"normal:0.3:-1\"\n", "params.mu"},
      {kMinimal + "[params]\nmu = \"uniform:0.9:0.1\"\n", "params.mu"},
      {kMinimal + "[params]\nmu = \"truncnormal:0:1:2:1\"\n", "params.mu"},
      {kMinimal + "[params]\nmu = \"gamma:1:2\"\n", "params.mu: unknown distribution 'gamma'"},
      {kMinimal + "[params]\nmu = { dist = \"normal\", mean = 0.3 }\n", "params.mu: missing 'sd'"},
      {kMinimal + "[params]\nmu = { dist = \"normal\", mean = 0.3, sd = 0.1, sigma = 2 }\n", "params.mu: unknown key 'sigma'"},
      {kMinimal + "[params]\nmu = true\n", "params.mu: expected"},
      {kMinimal + "[params]\nradius = 2\n", "params.radius: scenario ball has no parameter"},
      {"[study]\nscenario = \"balll\"\nlaw = \"jia\"\n", "study.scenario: unknown scenario 'balll'"},
      {"[study]\nscenario = \"ball\"\nlaw = \"jai\"\n", "study.law: unknown law 'jai'"},
      {"[study]\nscenario = \"ball\"\nlaws = [\"jia\", \"jia\"]\n", "study.laws: law 'jia' listed twice"},
      {"[study]\nlaw = \"jia\"\n", "study.scenario: missing"},
      {kMinimal + "[output]\nformats = [\"xlsx\"]\n", "output.formats: unknown format 'xlsx'"},
      {kMinimal + "[output]\ncolumns = [\"Vz\", \"speed\"]\n", "output.columns: unknown column 'speed'"},
      {kMinimal + "[sensitivity]\noutputs = [\"Vx\"]\n", "sensitivity: Sobol indices need design.kind = \"saltelli\""},
      {kMinimal + "[[plots]]\nkind = \"pie\"\ny = [\"Vx\"]\n", "plots[0].kind"},
      {kMinimal + "[[plots]]\nkind = \"sweep\"\nx = \"Vx\"\ny = [\"wy\"]\n",
       "plots[0].x: a sweep's x must be a scenario parameter"},
      {kMinimal + "[[plots]]\nkind = \"hist\"\ny = [\"nope\"]\n", "plots[0].y: unknown column 'nope'"},
      {kMinimal + "[design]\nkind = \"imported\"\n", "design.file"},
      {kMinimal + "[design]\nkind = \"grid\"\nn = 10\n", "design.n: not used by a grid design"},
      {kMinimal + "[design]\nkind = \"mc\"\n[[plots]]\nkind = \"sweep\"\nx = \"mu\"\ny = [\"wy\"]\n",
       "plots[0].kind: a sweep needs design.kind = \"grid\""},
  };
  for (const Case& c : cases) {
    const std::string msg = error_of(c.text);
    EXPECT_NE(msg.find(c.key_in_message), std::string::npos) << "config:\n" << c.text << "\nmessage: " << msg;
    EXPECT_EQ(msg.rfind("bad.toml:", 0), 0u) << msg;
  }
}

// eta0 from the elastic constants (Hertz-Mindlin): fixed at Jia's sqrt(17/14) for like materials at
// nu = 0.3 or against a rigid body 2; errors name the key and the body.
TEST(StudyConfig, Eta0FromElasticConstants) {
  auto eta0_of = [](const std::string& table) {
    const StudyConfig c = from_toml(kMinimal + "[params]\neta0 = " + table + "\n");
    for (const design::ParamSpec& p : c.params)
      if (p.name == "eta0") {
        EXPECT_EQ(p.kind, design::ParamKind::fixed);
        return p.a;
      }
    ADD_FAILURE() << "no eta0";
    return 0.0;
  };
  const double jia = std::sqrt(17.0 / 14.0);
  EXPECT_NEAR(eta0_of("{ E1 = 200e9, nu1 = 0.3 }"), jia, 1e-15);
  EXPECT_NEAR(eta0_of("{ E1 = 70e9, nu1 = 0.3, E2 = 70e9, nu2 = 0.3 }"), jia, 1e-15);
  EXPECT_NEAR(eta0_of("{ E1 = 70e9, nu1 = 0.3, E2 = inf, nu2 = 0.3 }"), jia, 1e-15);
  const double steel_on_rubber = eta0_of("{ E1 = 200e9, nu1 = 0.29, E2 = 0.01e9, nu2 = 0.49 }");
  EXPECT_NEAR(steel_on_rubber, std::sqrt((2 - 0.49) / (2 * (1 - 0.49))), 1e-4);  // the soft body dominates
  EXPECT_NE(error_of(kMinimal + "[params]\neta0 = { E1 = 200e9, nu1 = 0.6 }\n").find("params.eta0: body 1: Poisson's ratio"),
            std::string::npos);
  EXPECT_NE(error_of(kMinimal + "[params]\neta0 = { E1 = -1, nu1 = 0.3 }\n").find("params.eta0: body 1: Young's modulus"),
            std::string::npos);
  EXPECT_NE(error_of(kMinimal + "[params]\neta0 = { E1 = 1e9, nu1 = 0.3, nu2 = 0.2 }\n").find("nu2 without E2"),
            std::string::npos);
  EXPECT_NE(error_of(kMinimal + "[params]\neta0 = { E1 = 1e9, nu = 0.3 }\n").find("params.eta0: unknown key 'nu'"),
            std::string::npos);
  EXPECT_NE(error_of(kMinimal + "[params]\nmu = { E1 = 1e9, nu1 = 0.3 }\n").find("params.mu: elastic constants"),
            std::string::npos);
}

TEST(StudyConfig, ErrorsCarryLineAndColumn) {
  // the unknown key is on line 5, column 1
  const std::string msg = error_of(kMinimal + "[design]\nnn = 3\n");
  EXPECT_EQ(msg.rfind("bad.toml:5:1: design.nn", 0), 0u) << msg;
  // the bad value of params.mu: its key is on line 5
  const std::string m2 = error_of(kMinimal + "[params]\nmu = \"normal:0.3:-1\"\n");
  EXPECT_EQ(m2.rfind("bad.toml:5:1: params.mu", 0), 0u) << m2;
  // TOML syntax: line 4
  try {
    io::parse_config_text(kMinimal + "[design\n", "bad.toml", true);
    FAIL() << "no syntax error";
  } catch (const io::ConfigError& e) { EXPECT_EQ(std::string(e.what()).rfind("bad.toml:4:", 0), 0u) << e.what(); }
  // JSON syntax: line 3
  try {
    io::parse_config_text("{\n  \"study\": {\"scenario\": \"ball\",\n   \"law\": jia}\n}\n", "bad.json", false);
    FAIL() << "no syntax error";
  } catch (const io::ConfigError& e) { EXPECT_EQ(std::string(e.what()).rfind("bad.json:3:", 0), 0u) << e.what(); }
}

TEST(StudyConfig, DefaultOutputFolderFollowsTheName) {
  EXPECT_EQ(from_toml("[study]\nname = \"foo\"\nscenario = \"ball\"\nlaw = \"jia\"\n").out_dir, "out/foo");
  EXPECT_EQ(from_toml("[study]\nname = \"foo\"\nscenario = \"ball\"\nlaw = \"jia\"\n[output]\nformats = [\"csv\"]\n").out_dir,
            "out/foo");
}

TEST(StudyConfig, BadOverridesNameTheKey) {
  EXPECT_EQ(error_of(kMinimal, {"design.n=0"}).rfind("--set: design.n: expected an integer >= 1", 0), 0u)
      << error_of(kMinimal, {"design.n=0"});
  EXPECT_NE(error_of(kMinimal, {"design.n=zero"}).find("design.n: expected an integer"), std::string::npos);
  EXPECT_NE(error_of(kMinimal, {"params.mu=normal:1"}).find("params.mu"), std::string::npos);
  EXPECT_NE(error_of(kMinimal, {"run.colour=red"}).find("run.colour: unknown key"), std::string::npos);
  io::ConfigTree t = io::parse_config_text(kMinimal, "m.toml", true);
  EXPECT_THROW(io::apply_override(t, "=3"), io::ConfigError);
  EXPECT_THROW(io::apply_override(t, "design.n"), io::ConfigError);
}

// `impact study` and `impact reduce` read a distribution with one grammar and one rule set
// (design/param_text.hpp): a text is the same marginal in both, or refused by both with the same
// words after the key; a config table names the same numbers as the text.
TEST(StudyConfig, StudyAndReduceReadOneGrammar) {
  const auto study_error = [](const std::string& text) -> std::string {
    try {
      parse_param("mu", nlohmann::ordered_json(text), "");
    } catch (const io::ConfigError& e) {
      const std::string m = e.what();
      return m.substr(m.find(": ") + 2);  // after "params.mu: "
    }
    return "accepted";
  };
  const auto reduce_error = [](const std::string& text) -> std::string {
    try {
      systems::parse_dist("mu", text);
    } catch (const std::invalid_argument& e) {
      const std::string m = e.what(), where = "--set mu=" + text + ": ";
      EXPECT_EQ(m.rfind(where, 0), 0u) << m;
      return m.substr(where.size());
    }
    return "accepted";
  };
  const char* texts[] = {"0.5", "fixed:-2", "uniform:0.1:0.8", "normal:-1:0.5", "lognormal:0:0.25", "truncnormal:0.5:0.1:0:1",
                         "truncnormal:1:2:-inf:inf", "4.9e-324",
                         // refused, by both, in the same words
                         "nan", "inf", "normal:0:0", "lognormal:1:-1", "uniform:2:1", "uniform:nan:1", "truncnormal:0:1:40:41",
                         "truncnormal:0:1:nan:1", "gauss:0:1", "uniform:0", "uniform:0x1:2", "normal:0:1e400", "0x10", ""};
  for (const char* text : texts) {
    const std::string s = study_error(text), r = reduce_error(text);
    EXPECT_EQ(s, r) << text;
    if (s != "accepted" || r != "accepted") continue;
    const design::ParamSpec p = parse_param("mu", nlohmann::ordered_json(text), "");
    const Dist d = systems::parse_dist("mu", text);
    EXPECT_EQ(static_cast<int>(d.kind), static_cast<int>(p.kind)) << text;
    EXPECT_EQ(d.a, p.a) << text;
    EXPECT_EQ(d.b, p.b) << text;
    EXPECT_EQ(d.lo, p.lo) << text;
    EXPECT_EQ(d.hi, p.hi) << text;
  }
  // the grid is the study's alone
  EXPECT_EQ(study_error("linspace:0:1:3"), "accepted");
  EXPECT_NE(reduce_error("linspace:0:1:3").find("linspace is a grid"), std::string::npos);
  // a table is the text by its field names
  const std::pair<const char*, const char*> tables[] = {
      {R"({"dist": "fixed", "value": 3})", "fixed:3"},
      {R"({"dist": "uniform", "lo": 0.1, "hi": 0.8})", "uniform:0.1:0.8"},
      {R"({"dist": "normal", "mean": "-1", "sd": 0.5})", "normal:-1:0.5"},
      {R"({"dist": "lognormal", "mu": 0, "sigma": 0.25})", "lognormal:0:0.25"},
      {R"({"dist": "truncnormal", "mean": 0.5, "sd": 0.1, "lo": "-inf", "hi": 1})", "truncnormal:0.5:0.1:-inf:1"},
      {R"({"linspace": [0, 1, 3]})", "linspace:0:1:3"}};
  for (const auto& [table, text] : tables) {
    const design::ParamSpec a = parse_param("mu", nlohmann::ordered_json::parse(table), "");
    const design::ParamSpec b = parse_param("mu", nlohmann::ordered_json(text), "");
    EXPECT_TRUE(a == b) << table;
  }
}
