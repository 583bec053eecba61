// The sample-spec parser of studies (host/systems/sample_spec.hpp): distributions, keys, settings and
// their error messages.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "systems/sample_spec.hpp"

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
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message([] { parse_dist("mu", "gauss:0:1"); }).find("mu=gauss:0:1: unknown distribution 'gauss'"), std::string::npos);
  EXPECT_NE(message([] { parse_dist("mu", "uniform:0"); }).find("'uniform' takes 2 parameter(s)"), std::string::npos);
  EXPECT_NE(message([] { parse_dist("mu", "uniform:2:1"); }).find("--set mu=uniform:2:1: uniform:A:B needs A <= B"), std::string::npos);
  EXPECT_NE(message([] { parse_dist("e", "normal:0:x"); }).find("parameter 2 ('x') is not a number"), std::string::npos);
  EXPECT_NE(message([] { parse_dist("e", "normal:0:-1"); }).find("needs SD >= 0"), std::string::npos);
  EXPECT_NE(message([] { parse_dist("e", "truncnormal:0:1:2:1"); }).find("needs LO < HI"), std::string::npos);
  EXPECT_NE(message([] { parse_dist("e", "uniform:0:inf"); }).find("must be finite"), std::string::npos);
  SampleSpec spec = systems::default_spec(Scenario::contact);
  EXPECT_NE(message([&] { systems::apply_setting(spec, "mass=1"); }).find("unknown key 'mass' for scenario contact (known: w1"), std::string::npos);
  EXPECT_NE(message([&] { systems::apply_setting(spec, "mu"); }).find("expected KEY=DIST"), std::string::npos);
  EXPECT_NE(message([&] { systems::apply_setting(spec, "rotation=maybe"); }).find("rotation must be"), std::string::npos);
  EXPECT_NE(message([] { systems::parse_scenario("pencil"); }).find("unknown scenario 'pencil'"), std::string::npos);
  SampleSpec ball = systems::default_spec(Scenario::ball);
  systems::apply_setting(ball, "V0x=normal:-2:0.1");
  EXPECT_EQ(ball.slot[kSlotV0x].a, -2.0);
  EXPECT_EQ(systems::describe(ball).size(), systems::spec_keys(Scenario::ball).size());
}
