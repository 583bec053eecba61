// Study configs at their limits (host/io/config_tree.hpp, host/study/config.hpp): nesting refused on the text before any
// parser recurses (a 10^5-deep JSON array crashed the error message's dump()), numbers beyond a
// double, duplicate JSON keys and every other error located FILE:LINE:COL, integer keys
// range-checked instead of wrapped, and the size of a config file bounded.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "study/config.hpp"

using namespace impact;
using namespace impact::study;

namespace {

const std::string kMinimalJson = R"({"study": {"scenario": "ball", "law": "newton"}})";
const std::string kMinimalToml = "[study]\nscenario = \"ball\"\nlaw = \"newton\"\n";

// The message of parsing and resolving a config text, or "" when it resolves.
std::string error_of(const std::string& text, bool toml, const std::string& name = "") {
  try {
    resolve_config(io::parse_config_text(text, name.empty() ? (toml ? "bad.toml" : "bad.json") : name, toml));
  } catch (const io::ConfigError& e) { return e.what(); }
  return "";
}

std::string repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

bool starts(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }
bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST(ConfigLimits, DeepJsonRefusedBeforeParsing) {
  // the reproducer's shape: a 10^5-deep array as study.name (a SIGSEGV in the message's dump())
  const std::string deep =
      R"({"study": {"scenario": "ball", "laws": ["newton"], "name": )" + repeat("[", 100000) + repeat("]", 100000) + "}}";
  const std::string msg = error_of(deep, false);
  EXPECT_TRUE(starts(msg, "bad.json:1:")) << msg.substr(0, 200);
  EXPECT_TRUE(has(msg, "nested deeper than 64 levels")) << msg.substr(0, 200);
  // the first bracket too deep is named: the root is level 1, study level 2, the name's first
  // bracket (column 60) level 3, so its 63rd (column 122) is level 65
  const auto name_nested = [](int n) {
    return R"({"study": {"scenario": "ball", "laws": ["newton"], "name": )" + repeat("[", n) + repeat("]", n) + "}}";
  };
  EXPECT_TRUE(starts(error_of(name_nested(70), false), "bad.json:1:122: nested deeper than 64 levels"))
      << error_of(name_nested(70), false);
  EXPECT_TRUE(starts(error_of(name_nested(63), false), "bad.json:1:122: nested deeper than 64 levels"));
  EXPECT_TRUE(has(error_of(name_nested(62), false), "study.name: expected a string")) << error_of(name_nested(62), false);
  // objects count as arrays do; brackets inside strings do not count
  EXPECT_TRUE(has(error_of(repeat("{\"a\":", 100) + "1" + repeat("}", 100), false), "nested deeper than 64"));
  const std::string in_string = R"({"study": {"scenario": "ball", "law": "newton", "name": ")" + repeat("[{", 500) + R"(\"]"}})";
  EXPECT_EQ(error_of(in_string, false), "");
  // within the limit: a wrong type is described by its size, not printed (no recursion)
  const std::string nested =
      R"({"study": {"scenario": "ball", "law": "newton", "name": )" + repeat("[", 60) + repeat("]", 60) + "}}";
  const std::string m2 = error_of(nested, false);
  EXPECT_TRUE(starts(m2, "bad.json:1:49: study.name: expected a string, got an array of 1 value(s)")) << m2;
}

TEST(ConfigLimits, ValuesInMessagesAreCutSafely) {
  // a long string where a number is expected: cut at 60 bytes, inside a UTF-8 sequence here (its
  // dump() threw nlohmann's type_error 316 instead of the config error)
  std::string s = "a";
  for (int i = 0; i < 40; ++i) s += "\xc3\xa9";  // e acute
  const std::string msg = error_of(kMinimalToml + "[run]\nsteps = \"" + s + "\"\n", true);
  EXPECT_TRUE(starts(msg, "bad.toml:5:1: run.steps: expected an integer >= 1, got a string \"a")) << msg;
  EXPECT_TRUE(has(msg, "\"...")) << msg;
  EXPECT_NO_THROW(nlohmann::json(msg).dump()) << "the message is not valid UTF-8";
  // a table where a string is expected: described by its size
  EXPECT_TRUE(has(error_of(kMinimalToml + "name = { a = 1, b = 2 }\n", true),
                  "bad.toml:4:1: study.name: expected a string, got a table with 2 key(s)"))
      << error_of(kMinimalToml + "name = { a = 1, b = 2 }\n", true);
}

TEST(ConfigLimits, DeepTomlRefusedBeforeParsing) {
  struct Case {
    std::string what, text, where;
  };
  // (the 10^5-part header and key crashed inside toml++, which recurses over them)
  const std::vector<Case> cases = {
      {"table header", kMinimalToml + "[" + repeat("a.", 100000) + "a]\nx = 1\n", "bad.toml:4:"},
      {"array of tables header", kMinimalToml + "[[" + repeat("a.", 100) + "a]]\nx = 1\n", "bad.toml:4:"},
      {"dotted key", kMinimalToml + repeat("a.", 100000) + "a = 1\n", "bad.toml:4:"},
      {"quoted dotted key", kMinimalToml + repeat("\"a\" . ", 100) + "a = 1\n", "bad.toml:4:"},
      {"arrays", kMinimalToml + "x = " + repeat("[", 300) + repeat("]", 300) + "\n", "bad.toml:4:"},
      {"inline tables", kMinimalToml + "x = " + repeat("{a=", 300) + "1" + repeat("}", 300) + "\n", "bad.toml:4:"},
      {"inline dotted key", kMinimalToml + "x = {" + repeat("a.", 100) + "a = 1}\n", "bad.toml:4:"},
      // a header 41 deep is fine by itself; its key of 41 parts makes 82
      {"header + key", kMinimalToml + "[" + repeat("a.", 40) + "a]\n" + repeat("b.", 40) + "b = 1\n", "bad.toml:5:"},
  };
  for (const Case& c : cases) {
    const std::string msg = error_of(c.text, true);
    EXPECT_TRUE(starts(msg, c.where)) << c.what << ": " << msg.substr(0, 200);
    EXPECT_TRUE(has(msg, "nested deeper than 64 levels")) << c.what << ": " << msg.substr(0, 200);
  }
  // dots in values, strings and comments are not keys
  const std::string fine = kMinimalToml + "description = \"a.b.c." + repeat("x.", 200) + "\"\n" + "# " + repeat("c.", 200) +
                           "\n[design]\nkind = \"mc\"\n[params]\nmu = \"uniform:0.1:0.5\"\n" +
                           "e = { dist = \"uniform\", lo = 0.25, hi = 0.75 }\n";
  EXPECT_EQ(error_of(fine, true), "");
  const std::string multiline = kMinimalToml + "description = \"\"\"\n" + repeat("[a.b.c]\n", 100) + "\"\"\"\n";
  EXPECT_EQ(error_of(multiline, true), "");
}

TEST(ConfigLimits, JsonNumberBeyondDoubleIsLocated) {
  // json_n_inf.json: "[json.exception.out_of_range.406] number overflow parsing '1e400'" had no position
  const std::string text = R"({"study": {"scenario": "ball", "laws": ["newton"]}, "design": {"kind": "mc", "n": 1e400}})";
  const std::string msg = error_of(text, false);
  EXPECT_TRUE(starts(msg, "bad.json:1:83: JSON number out of range: 1e400")) << msg;
  EXPECT_FALSE(has(msg, "json.exception")) << msg;
  // on a later line, negative
  const std::string m2 =
      error_of("{\"study\": {\"scenario\": \"ball\", \"law\": \"newton\"},\n  \"params\": {\"mu\": -2e999}}", false);
  EXPECT_TRUE(starts(m2, "bad.json:2:20: JSON number out of range: -2e999")) << m2;
}

TEST(ConfigLimits, JsonErrorsCarryLineAndColumn) {
  // a key error in a JSON file: the key's own line and column
  const std::string text = "{\"study\": {\"scenario\": \"ball\",\n  \"law\": \"newton\"},\n  \"design\": {\"n\": -3}}";
  EXPECT_TRUE(starts(error_of(text, false), "bad.json:3:14: design.n: expected an integer >= 1, got -3"))
      << error_of(text, false);
  const std::string unknown = "{\"study\": {\"scenario\": \"ball\", \"law\": \"newton\"},\n \"run\": {\"stepz\": 3}}";
  EXPECT_TRUE(starts(error_of(unknown, false), "bad.json:2:10: run.stepz: unknown key")) << error_of(unknown, false);
  // an array element
  const std::string plot = kMinimalJson.substr(0, kMinimalJson.size() - 1) +
                           ",\n \"plots\": [{\"kind\": \"hist\", \"y\": [\"Vx\"]},\n   {\"kind\": \"pie\", \"y\": [\"Vx\"]}]}";
  EXPECT_TRUE(starts(error_of(plot, false), "bad.json:3:5: plots[1].kind")) << error_of(plot, false);
  // a missing [study] and a syntax error
  EXPECT_TRUE(starts(error_of("{\"run\": {}}", false), "bad.json:")) << error_of("{\"run\": {}}", false);
  EXPECT_TRUE(starts(error_of("{\n\n  \"study\": tru}", false), "bad.json:3:")) << error_of("{\n\n  \"study\": tru}", false);
}

// A NUL byte ends nlohmann/json's text: "{}" then NUL then anything was accepted by the parser and
// the key scan read on past it into an uncaught nlohmann parse_error (found by fuzz_config_json;
// tests/fuzz/findings/fuzz_config_json/).
TEST(ConfigLimits, JsonNulByteIsLocated) {
  EXPECT_EQ(error_of(std::string("{}\0\"kin\x01\": 1", 12), false),
            "bad.json:1:3: NUL byte: expected JSON text (is this a binary file?)");
  EXPECT_EQ(error_of(kMinimalJson + "\n  " + std::string(1, '\0'), false),
            "bad.json:2:3: NUL byte: expected JSON text (is this a binary file?)");
  EXPECT_EQ(error_of(std::string("{\"study\"\0: {}}", 14), false),
            "bad.json:1:9: NUL byte: expected JSON text (is this a binary file?)");
}

TEST(ConfigLimits, JsonDuplicateKeysAreErrors) {
  // json_dupkey.json: the second "study" silently replaced the first
  const std::string text =
      R"({"study": {"scenario": "ball", "laws": ["newton"]}, "study": {"scenario": "pencil", "laws": ["jia"]}})";
  EXPECT_EQ(error_of(text, false), "bad.json:1:53: study: duplicate key (first at line 1, column 2)");
  // nested, and spelled with an escape
  const std::string nested = "{\"study\": {\"scenario\": \"ball\", \"law\": \"newton\",\n \"l\\u0061w\": \"jia\"}}";
  EXPECT_EQ(error_of(nested, false), "bad.json:2:2: study.law: duplicate key (first at line 1, column 32)");
  // the same key in two different objects is fine
  const std::string two = R"({"study": {"scenario": "ball", "law": "newton"},
    "params": {"mu": {"dist": "uniform", "lo": 0.1, "hi": 0.5}, "e": {"dist": "uniform", "lo": 0.1, "hi": 0.5}}})";
  EXPECT_EQ(error_of(two, false), "");
}

TEST(ConfigLimits, IntegerKeysAreRangeCheckedNotWrapped) {
  struct Case {
    std::string text;
    bool toml;
    std::string message;
  };
  const std::string run = kMinimalToml + "[run]\n";
  const std::string design = kMinimalToml + "[design]\n";
  const std::vector<Case> cases = {
      // steps_wrap.toml / steps_wrap2.toml: 2^31 wrapped to -2^31, 2^32 + 1 to 1
      {run + "steps = 2147483648\n", true, "bad.toml:5:1: run.steps: expected an integer <= 10000000, got 2147483648"},
      {run + "steps = 4294967297\n", true, "bad.toml:5:1: run.steps: expected an integer <= 10000000, got 4294967297"},
      {run + "steps = 10000001\n", true, "bad.toml:5:1: run.steps: expected an integer <= 10000000, got 10000001"},
      {run + "steps = 3e9\n", true, "bad.toml:5:1: run.steps: expected an integer <= 10000000, got 3000000000"},
      {run + "steps = 0\n", true, "bad.toml:5:1: run.steps: expected an integer >= 1, got 0"},
      {run + "chunk = 0\n", true, "bad.toml:5:1: run.chunk: expected an integer >= 1, got 0"},
      {run + "chunk = 100000001\n", true, "bad.toml:5:1: run.chunk: expected an integer <= 100000000"},
      {design + "n = 10000000001\n", true, "bad.toml:5:1: design.n: expected an integer <= 10000000000"},
      {design + "n = -9223372036854775808\n", true, "bad.toml:5:1: design.n: expected an integer >= 1"},
      {design + "seed = -1\n", true, "bad.toml:5:1: design.seed: expected an integer >= 0, got -1"},
      {kMinimalToml + "[sensitivity]\nbootstrap = 100001\n", true,
       "bad.toml:5:1: sensitivity.bootstrap: expected an integer <= 100000"},
      {kMinimalToml + "[[plots]]\nkind = \"hist\"\ny = [\"Vx\"]\nbins = 4294967298\n", true,
       "bad.toml:7:1: plots[0].bins: expected an integer <= 1000000"},
      // JSON: unsigned 64-bit values and numbers with an exponent
      {R"({"study": {"scenario": "ball", "law": "newton"}, "design": {"n": 18446744073709551615}})", false,
       "bad.json:1:61: design.n: expected an integer <= 10000000000, got 18446744073709551615"},
      {R"({"study": {"scenario": "ball", "law": "newton"}, "run": {"steps": 9223372036854775808}})", false,
       "bad.json:1:58: run.steps: expected an integer <= 10000000, got 9223372036854775808"},
      {R"({"study": {"scenario": "ball", "law": "newton"}, "run": {"steps": 1e19}})", false,
       "bad.json:1:58: run.steps: expected an integer <= 10000000, got 1e+19"},
      {R"({"study": {"scenario": "ball", "law": "newton"}, "run": {"steps": 1e300}})", false,
       "bad.json:1:58: run.steps: expected an integer <= 10000000, got 1e+300"},
  };
  for (const Case& c : cases) {
    const std::string msg = error_of(c.text, c.toml);
    EXPECT_TRUE(starts(msg, c.message)) << "config:\n" << c.text << "\nmessage: " << msg;
  }
  // the limits themselves, and a seed over the whole unsigned range, are accepted
  const StudyConfig a = resolve_config(
      io::parse_config_text(run + "steps = 10000000\nchunk = 100000000\n[design]\nn = 10000000000\n", "ok.toml", true));
  EXPECT_EQ(a.steps, 10000000);
  EXPECT_EQ(a.chunk, 100000000u);
  EXPECT_EQ(a.design.n, 10000000000u);
  const StudyConfig b = resolve_config(io::parse_config_text(
      R"({"study": {"scenario": "ball", "law": "newton"}, "design": {"seed": 18446744073709551615, "n": 1e6}})", "ok.json",
      false));
  EXPECT_EQ(b.design.seed, 18446744073709551615u);
  EXPECT_EQ(b.design.n, 1000000u);
}

TEST(ConfigLimits, ConfigFileSizeIsBounded) {
  // /dev/zero as a config: read up to the limit, then refused (a file without end is never read whole)
  try {
    io::load_config_file("/dev/zero");
    FAIL() << "/dev/zero was read as a config";
  } catch (const io::ConfigError& e) { EXPECT_EQ(std::string(e.what()), "/dev/zero: larger than 16 MiB: not a study config"); }
  // a folder is no config
  try {
    io::load_config_file(::testing::TempDir());
    FAIL() << "a folder was read as a config";
  } catch (const io::ConfigError& e) { EXPECT_TRUE(has(e.what(), "cannot")) << e.what(); }
  // a config file of ordinary size loads
  const std::string path = ::testing::TempDir() + "impact_config_limits.toml";
  std::ofstream(path) << kMinimalToml << "# " << std::string(100000, 'x') << "\n";
  EXPECT_EQ(resolve_config(io::load_config_file(path)).laws, std::vector<std::string>{"newton"});
  std::remove(path.c_str());
}
