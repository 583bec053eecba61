// The key tables (study/config_keys.hpp, calibrate/config_keys.hpp; docs/reference.md) against the
// code: every documented default is the default the resolver gives a config that leaves the key
// out, and every documented key is one the resolver accepts.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "calibrate/config.hpp"
#include "calibrate/config_keys.hpp"
#include "io/config_tree.hpp"
#include "study/config.hpp"
#include "study/config_keys.hpp"

using namespace impact;
using json = nlohmann::ordered_json;

namespace {

// Each documented default that names a value (not a rule such as "max(16, 4 d)" or "out/NAME")
// equals the resolved config's value of the key, where the canonical form holds the key.
int check_defaults(const std::vector<io::KeyDoc>& docs, const json& resolved, const std::set<std::string>& given) {
  int checked = 0;
  for (const io::KeyDoc& d : docs) {
    if (given.count(d.key)) continue;
    const std::size_t dot = d.key.find('.');
    if (dot == std::string::npos || d.key.find('[') != std::string::npos || d.dflt.empty()) continue;
    const std::string table = d.key.substr(0, dot), last = d.key.substr(dot + 1);
    if (!resolved.contains(table) || !resolved.at(table).is_object() || !resolved.at(table).contains(last)) continue;
    json want = json::parse(d.dflt, nullptr, false);
    if (want.is_discarded()) {
      if (d.dflt.find_first_of(" (") != std::string::npos || d.dflt.find("NAME") != std::string::npos) continue;
      want = d.dflt;  // a bare word: a string
    }
    const json& got = resolved.at(table).at(last);
    if (want.is_number() && got.is_number()) EXPECT_DOUBLE_EQ(want.get<double>(), got.get<double>()) << d.key;
    else EXPECT_EQ(want, got) << d.key;
    ++checked;
  }
  return checked;
}

}  // namespace

TEST(ConfigKeys, StudyDefaultsAreTheResolversOwn) {
  const io::ConfigTree t = io::parse_config_text("[study]\nscenario = \"ball\"\n[design]\nkind = \"saltelli\"\n", "s.toml", true);
  const json j = study::to_json(study::resolve_config(t));
  EXPECT_GE(check_defaults(study::study_key_docs(), j, {"study.scenario", "design.kind"}), 12);
}

TEST(ConfigKeys, CalibrationDefaultsAreTheResolversOwn) {
  const std::string data = std::string(IMPACT_SOURCE_ROOT) + "/examples/calibration/ball-synthetic.csv";
  const io::ConfigTree t =
      io::parse_config_text("[calibrate]\nscenario = \"ball\"\nlaw = \"newton\"\n[data]\nfile = \"" + data +
                                "\"\nobserved = [\"Vx\", \"Vz\"]\nsigma = { Vx = 0.02, Vz = 0.02 }\nignore = [\"shot\"]\n"
                                "[params]\nV0z = -3.0\ne = \"uniform:0:1\"\n",
                            "c.toml", true);
  const json j = calibrate::to_json(calibrate::resolve_calibrate_config(t));
  EXPECT_GE(check_defaults(calibrate::calibrate_key_docs(), j,
                           {"calibrate.scenario", "calibrate.law", "data.file", "data.observed", "data.sigma", "data.ignore"}),
            20);
}

TEST(ConfigKeys, EveryTableKeyIsAcceptedWhereItIsDocumented) {
  // the resolvers read exactly keys_under(docs, TABLE): a key listed twice, or a table without keys,
  // would say the tables are not the resolvers'
  for (const auto* docs : {&study::study_key_docs(), &calibrate::calibrate_key_docs()}) {
    std::set<std::string> seen;
    for (const io::KeyDoc& d : *docs) {
      EXPECT_TRUE(seen.insert(d.key).second) << d.key << " twice";
      EXPECT_FALSE(d.type.empty() || d.meaning.empty()) << d.key;
    }
    EXPECT_FALSE(io::keys_under(*docs, "").empty());
  }
  EXPECT_EQ(io::keys_under(study::study_key_docs(), ""),
            (std::set<std::string>{"study", "run", "design", "params", "output", "sensitivity", "plots"}));
  EXPECT_EQ(io::keys_under(calibrate::calibrate_key_docs(), ""),
            (std::set<std::string>{"calibrate", "run", "data", "params", "smc", "mcmc", "fit", "output"}));
  EXPECT_EQ(io::keys_under(study::study_key_docs(), "plots[]"),
            (std::set<std::string>{"kind", "x", "y", "file", "title", "law", "bins"}));
}
