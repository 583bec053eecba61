// The sample-spec parser of studies (host/systems/sample_spec.hpp): distributions, keys, settings and
// their error messages.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>
#include <stdexcept>
#include <string>

#include "impact/sampling.hpp"
#include "systems/sample_spec.hpp"
#include "systems/scenarios.hpp"

using namespace impact;

// ---- the study parser -------------------------------------------------------------------------------

TEST(SampleSpecParse, DistsKeysAndErrors) {
  using systems::parse_dist;
  const Dist u = parse_dist("mu", "uniform:0:1.5");
  EXPECT_EQ(u.kind, DistKind::uniform);
  EXPECT_EQ(u.b, 1.5);
  EXPECT_EQ(parse_dist("e", "0.5").kind, DistKind::fixed);
  EXPECT_EQ(parse_dist("e", "fixed:0.5").a, 0.5);
  const Dist t = parse_dist("vn", "truncnormal:1:0.5:0:inf");
  EXPECT_EQ(t.hi, INFINITY);
  EXPECT_EQ(systems::dist_string(t), "truncnormal:1:0.5:0:inf");
  EXPECT_EQ(systems::dist_string(parse_dist("vn", "lognormal:0:0.5")), "lognormal:0:0.5");
  auto message = [](auto f) {
    try {
      f();
    } catch (const std::invalid_argument& e) { return std::string(e.what()); }
    return std::string("no error");
  };
  EXPECT_NE(message([] { parse_dist("mu", "gauss:0:1"); }).find("mu=gauss:0:1: unknown distribution 'gauss'"), std::string::npos);
  EXPECT_NE(
      message([] { parse_dist("mu", "uniform:0"); }).find("--set mu=uniform:0: 'uniform' takes 2 numbers (uniform:LO:HI), got 1"),
      std::string::npos);
  EXPECT_NE(message([] { parse_dist("mu", "uniform:2:1"); }).find("--set mu=uniform:2:1: uniform(a, b) needs a <= b"),
            std::string::npos);
  EXPECT_NE(message([] { parse_dist("e", "normal:0:x"); }).find("--set e=normal:0:x: SD 'x' is not a number"), std::string::npos);
  EXPECT_NE(message([] { parse_dist("e", "normal:0:-1"); }).find("normal needs sd > 0"), std::string::npos);
  EXPECT_NE(message([] { parse_dist("e", "truncnormal:0:1:2:1"); }).find("truncnormal needs lo < hi"), std::string::npos);
  EXPECT_NE(message([] { parse_dist("e", "uniform:0:inf"); }).find("must be finite"), std::string::npos);
  // the study's rules (design/param_text.hpp), the only ones: a point mass is a number, NaN is no
  // parameter, a truncation interval must hold some probability, and a grid is no distribution
  EXPECT_NE(message([] { parse_dist("e", "normal:0:0"); }).find("normal needs sd > 0"), std::string::npos);
  EXPECT_NE(message([] { parse_dist("e", "lognormal:0:0"); }).find("lognormal needs sd > 0"), std::string::npos);
  EXPECT_NE(message([] { parse_dist("e", "normal:nan:1"); }).find("must be finite"), std::string::npos);
  EXPECT_NE(message([] { parse_dist("e", "nan"); }).find("fixed value must be finite"), std::string::npos);
  EXPECT_NE(message([] { parse_dist("e", "truncnormal:0:1:40:41"); }).find("< 1e-12"), std::string::npos);
  EXPECT_NE(message([] { parse_dist("e", "linspace:0:1:3"); }).find("--set e=linspace:0:1:3: linspace is a grid"),
            std::string::npos);
  EXPECT_NE(message([] { parse_dist("e", "0x10"); }).find("--set e=0x10: '0x10' is not a number (hexadecimal"),
            std::string::npos);
  SampleSpec spec = systems::default_spec(Scenario::contact);
  EXPECT_NE(message([&] { systems::apply_setting(spec, "mass=1"); }).find("unknown key 'mass' for scenario contact (known: w1"),
            std::string::npos);
  EXPECT_NE(message([&] { systems::apply_setting(spec, "mu"); }).find("expected KEY=DIST"), std::string::npos);
  EXPECT_NE(message([&] { systems::apply_setting(spec, "rotation=maybe"); }).find("rotation must be"), std::string::npos);
  EXPECT_NE(message([] { systems::parse_scenario("pencil"); }).find("unknown scenario 'pencil'"), std::string::npos);
  SampleSpec ball = systems::default_spec(Scenario::ball);
  systems::apply_setting(ball, "V0x=normal:-2:0.1");
  EXPECT_EQ(ball.slot[kSlotV0x].a, -2.0);
  EXPECT_EQ(systems::describe(ball).size(), systems::spec_keys(Scenario::ball).size());
}

// ---- one scenario statement for `impact reduce` and `impact study` -----------------------------

namespace {

std::vector<std::string> key_names(Scenario s) {
  std::vector<std::string> out;
  for (const systems::SpecKey& k : systems::spec_keys(s)) out.push_back(k.name);
  return out;
}

std::vector<std::string> study_names(const char* scenario) {
  std::vector<std::string> out;
  for (const systems::ScenarioParam& p : systems::find_scenario(scenario)->params) out.push_back(p.name);
  return out;
}

std::string fixed(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// The instance `impact reduce` samples when every key of the scenario is fixed at the study's
// parameter values v (in the study's order): settings as the CLI gives them, "KEY=VALUE".
ContactProblem<double> sampled_instance(Scenario s, const std::vector<double>& v, std::uint64_t index) {
  const systems::ScenarioInfo& sc = *systems::find_scenario(systems::scenario_name(s));
  SampleSpec spec = systems::default_spec(s);
  for (std::size_t k = 0; k < v.size(); ++k) systems::apply_setting(spec, std::string(sc.params[k].name) + "=" + fixed(v[k]));
  return make_instance_double(spec, 99, index);
}

}  // namespace

TEST(SampleSpecScenario, KeysAreTheStudyScenariosParameters) {
  // contact: the study's parameters in its order, and the rotation switch before rx
  std::vector<std::string> contact = study_names("contact");
  contact.insert(contact.begin() + 3, "rotation");
  EXPECT_EQ(key_names(Scenario::contact), contact);
  EXPECT_EQ(key_names(Scenario::ball), study_names("ball"));
  // the meanings are the study's, stated once
  for (const systems::SpecKey& k : systems::spec_keys(Scenario::ball)) {
    const systems::ScenarioInfo& sc = *systems::find_scenario("ball");
    EXPECT_STREQ(k.help, sc.params[static_cast<std::size_t>(sc.index_of(k.name))].help) << k.name;
  }
}

TEST(SampleSpecScenario, RotationVectorKeysAndTheOldSwitch) {
  const auto text = [](const SampleSpec& s) {
    std::string t;
    for (const auto& [k, v] : systems::describe(s)) t += k + "=" + v + " ";
    return t;
  };
  SampleSpec spec = systems::default_spec(Scenario::contact);
  // the default reads as it did before rx, ry, rz were keys (checkpoint run keys, JSON summaries)
  EXPECT_EQ(text(spec),
            "w1=lognormal:0:0.5 w2=lognormal:0:0.5 w3=lognormal:0:0.5 rotation=random "
            "vn=lognormal:0:0.5 vt=uniform:0:2 phi=uniform:0:6.283185307179586 mu=uniform:0:1 "
            "e=uniform:0:1 e_t=uniform:0:0.5 eta0=uniform:0.5:3 ");
  systems::apply_setting(spec, "rotation=identity");
  EXPECT_NE(text(spec).find(" rotation=identity vn="), std::string::npos);
  // setting rx selects the vector rotation, and the three components are then part of the study
  systems::apply_setting(spec, "rx=uniform:-1:1");
  EXPECT_EQ(spec.flags & kRandomRotation, 0u);
  EXPECT_NE(text(spec).find(" rotation=vector rx=uniform:-1:1 ry=fixed:0 rz=fixed:0 vn="), std::string::npos);
  systems::apply_setting(spec, "rotation=random");
  EXPECT_NE(text(spec).find(" rotation=random vn="), std::string::npos);
  systems::apply_setting(spec, "rotation=vector");
  EXPECT_NE(text(spec).find(" rotation=vector rx=uniform:-1:1 "), std::string::npos);
  systems::apply_setting(spec, "rotation=identity");  // the old name: the zero vector
  EXPECT_NE(text(spec).find(" rotation=identity vn="), std::string::npos);
  EXPECT_EQ(spec.slot[kSlotRx].kind, DistKind::fixed);
  EXPECT_EQ(spec.slot[kSlotRx].a, 0.0);
  SampleSpec ball = systems::default_spec(Scenario::ball);
  EXPECT_THROW(systems::apply_setting(ball, "rx=0.3"), std::invalid_argument);
}

// The same values give the same contact instance, bit for bit, whether `impact reduce` samples them
// (fixed distributions) or `impact study`'s contact scenario builds them; the ball's two mappings
// (closed form on the device, the rigid-body mapping in the study) agree to rounding.
TEST(SampleSpecScenario, SameValuesSameInstanceInReduceAndStudy) {
  std::uint64_t state = 0x9E3779B97F4A7C15ull;
  const auto uniform = [&](double lo, double hi) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return lo + (hi - lo) * static_cast<double>(state >> 11) * 0x1.0p-53;
  };
  const systems::ScenarioInfo& contact = *systems::find_scenario("contact");
  const systems::ScenarioInfo& ball = *systems::find_scenario("ball");
  int rotated = 0;
  for (int i = 0; i < 300; ++i) {
    SCOPED_TRACE(i);
    // w1 w2 w3 rx ry rz vn vt phi mu e e_t eta0; every fifth row unrotated (r = 0)
    const bool zero = i % 5 == 0;
    const std::vector<double> v = {uniform(0.1, 5),
                                   uniform(0.1, 5),
                                   uniform(0.1, 5),
                                   zero ? 0.0 : uniform(-4, 4),
                                   zero ? 0.0 : uniform(-4, 4),
                                   zero ? 0.0 : uniform(-4, 4),
                                   uniform(0.1, 3),
                                   uniform(0, 2),
                                   uniform(-7, 7),
                                   uniform(0, 1),
                                   uniform(0, 1),
                                   uniform(-1, 1),
                                   uniform(0.5, 3)};
    const ContactProblem<double> a = sampled_instance(Scenario::contact, v, static_cast<std::uint64_t>(i));
    ContactProblem<double> b{};
    ASSERT_EQ(contact.build(v.data(), &b), Status::ok);
    EXPECT_EQ(std::memcmp(&a, &b, sizeof a), 0) << "W_xy " << a.W.xy << " " << b.W.xy;
    rotated += a.W.xy != 0.0;
    // the ball: m r V0x V0y V0z w0x w0y w0z mu e e_t eta0
    const std::vector<double> u = {uniform(0.2, 3),   uniform(0.2, 3), uniform(-3, 3), uniform(-3, 3),
                                   uniform(-6, -0.5), uniform(-4, 4),  uniform(-4, 4), uniform(-4, 4),
                                   uniform(0, 1),     uniform(0, 1),   uniform(-1, 1), uniform(0.5, 3)};
    const ContactProblem<double> c = sampled_instance(Scenario::ball, u, static_cast<std::uint64_t>(i));
    ContactProblem<double> d{};
    ASSERT_EQ(ball.build(u.data(), &d), Status::ok);
    const double wc[6] = {c.W.xx, c.W.xy, c.W.xz, c.W.yy, c.W.yz, c.W.zz},
                 wd[6] = {d.W.xx, d.W.xy, d.W.xz, d.W.yy, d.W.yz, d.W.zz};
    for (int k = 0; k < 6; ++k) EXPECT_NEAR(wc[k], wd[k], 1e-14 * std::fabs(c.W.xx)) << k;
    EXPECT_NEAR(c.v0.x, d.v0.x, 1e-14 * (1 + std::fabs(d.v0.x)));
    EXPECT_NEAR(c.v0.y, d.v0.y, 1e-14 * (1 + std::fabs(d.v0.y)));
    EXPECT_EQ(c.v0.z, d.v0.z);
    EXPECT_EQ(c.mu, d.mu);
    EXPECT_EQ(c.eta0, d.eta0);
  }
  EXPECT_EQ(rotated, 240);  // the rotated rows are rotated: W is not diagonal
}
