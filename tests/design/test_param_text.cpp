// The one text form of a parameter's marginal (host/design/param_text.hpp): what it reads, that
// param_text() writes what it reads back, and that its rules are ParamSpec::validate's.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "design/param_text.hpp"

using namespace impact::design;

namespace {

const double kInf = std::numeric_limits<double>::infinity();

std::string error_of(const std::string& text) {
  try {
    parse_param_text("mu", "params.mu", text);
  } catch (const std::invalid_argument& e) { return e.what(); }
  return "no error";
}

}  // namespace

TEST(ParamText, ReadsEveryForm) {
  const ParamSpec f = parse_param_text("mu", "k", " 0.25 ");
  EXPECT_EQ(f.kind, ParamKind::fixed);
  EXPECT_EQ(f.a, 0.25);
  EXPECT_EQ(f.name, "mu");
  EXPECT_EQ(parse_param_text("mu", "k", "fixed:-3").a, -3.0);
  const ParamSpec u = parse_param_text("mu", "k", "uniform: 0.1 :0.8");
  EXPECT_EQ(u.kind, ParamKind::uniform);
  EXPECT_EQ(u.a, 0.1);
  EXPECT_EQ(u.b, 0.8);
  EXPECT_EQ(parse_param_text("mu", "k", "normal:1:2").kind, ParamKind::normal);
  EXPECT_EQ(parse_param_text("mu", "k", "lognormal:1:2").b, 2.0);
  const ParamSpec t = parse_param_text("mu", "k", "truncnormal:0:1:-inf:2");
  EXPECT_EQ(t.lo, -kInf);
  EXPECT_EQ(t.hi, 2.0);
  const ParamSpec l = parse_param_text("mu", "k", "linspace:0:1:11");
  EXPECT_EQ(l.kind, ParamKind::linspace);
  EXPECT_EQ(l.count, 11u);
}

TEST(ParamText, WritesWhatItReads) {
  const char* texts[] = {"fixed:0.1",
                         "uniform:-1e-300:5e-324",
                         "normal:-0:1.7976931348623157e+308",
                         "lognormal:0.30000000000000004:0.5",
                         "truncnormal:1:0.5:0:inf",
                         "truncnormal:0:1:-inf:inf",
                         "linspace:0:1:7"};
  for (const char* text : texts) {
    const ParamSpec p = parse_param_text("x", "k", text);
    EXPECT_EQ(param_text(p), text);
    EXPECT_TRUE(parse_param_text("x", "k", param_text(p)) == p) << text;
  }
  // a bare number is the fixed value, written in its explicit form
  EXPECT_EQ(param_text(parse_param_text("x", "k", "2.5")), "fixed:2.5");
}

TEST(ParamText, OneFormPerKind) {
  for (const ParamForm* f = param_forms_begin(); f != param_forms_end(); ++f) {
    EXPECT_EQ(&param_form(f->kind), f);
    EXPECT_EQ(find_param_form(f->name), f);
    EXPECT_EQ(std::string(param_kind_name(f->kind)), f->name);
  }
  EXPECT_EQ(find_param_form("gauss"), nullptr);
  EXPECT_EQ(param_forms_text(),
            "a number, fixed:VALUE, uniform:LO:HI, normal:MEAN:SD, lognormal:MU:SIGMA, truncnormal:MEAN:SD:LO:HI, "
            "linspace:A:B:COUNT");
}

TEST(ParamText, ErrorsNameTheKeyAndTheNumber) {
  EXPECT_EQ(error_of("gauss:0:1"), "params.mu: unknown distribution 'gauss' (expected " + param_forms_text() + ")");
  EXPECT_EQ(error_of("uniform:0"), "params.mu: 'uniform' takes 2 numbers (uniform:LO:HI), got 1 in 'uniform:0'");
  EXPECT_EQ(error_of("fixed:1:2"), "params.mu: 'fixed' takes 1 number (fixed:VALUE), got 2 in 'fixed:1:2'");
  EXPECT_EQ(error_of("normal:0:x"), "params.mu: SD 'x' is not a number");
  EXPECT_NE(error_of("uniform:0x1:2").find("params.mu: LO '0x1' is not a number (hexadecimal"), std::string::npos);
  // a text that begins like a number is refused as one, not taken for a distribution's name
  EXPECT_NE(error_of("0x10").find("params.mu: '0x10' is not a number (hexadecimal"), std::string::npos);
  EXPECT_NE(error_of("1e400").find("'1e400' is not a number (beyond the range of double"), std::string::npos);
  EXPECT_NE(error_of("").find("unknown distribution ''"), std::string::npos);
  EXPECT_NE(error_of("linspace:0:1:2.5").find("linspace COUNT must be a positive integer"), std::string::npos);
  EXPECT_NE(error_of("linspace:0:1:0").find("linspace COUNT must be a positive integer"), std::string::npos);
}

TEST(ParamText, RulesAreValidates) {
  // every refusal of a well-formed text is ParamSpec::validate's, word for word
  const double nan = std::nan("");
  struct Case {
    const char* text;
    ParamKind kind;
    double a, b, lo, hi;
    std::size_t count;
  };
  const Case cases[] = {
      {"inf", ParamKind::fixed, kInf, 0, 0, 0, 0},
      {"nan", ParamKind::fixed, nan, 0, 0, 0, 0},
      {"uniform:1:0", ParamKind::uniform, 1, 0, 0, 0, 0},
      {"uniform:0:inf", ParamKind::uniform, 0, kInf, 0, 0, 0},
      {"normal:0:0", ParamKind::normal, 0, 0, 0, 0, 0},
      {"normal:0:-1", ParamKind::normal, 0, -1, 0, 0, 0},
      {"lognormal:nan:1", ParamKind::lognormal, nan, 1, 0, 0, 0},
      {"lognormal:0:0", ParamKind::lognormal, 0, 0, 0, 0, 0},
      {"truncnormal:0:0:-1:1", ParamKind::truncnormal, 0, 0, -1, 1, 0},
      {"truncnormal:0:1:1:1", ParamKind::truncnormal, 0, 1, 1, 1, 0},
      {"truncnormal:0:1:nan:1", ParamKind::truncnormal, 0, 1, nan, 1, 0},
      {"truncnormal:0:1:40:41", ParamKind::truncnormal, 0, 1, 40, 41, 0},
      {"linspace:0:inf:3", ParamKind::linspace, 0, kInf, 0, 0, 3},
  };
  for (const Case& c : cases) {
    ParamSpec p;
    p.name = "mu";
    p.kind = c.kind;
    p.a = c.a;
    p.b = c.b;
    p.lo = c.lo;
    p.hi = c.hi;
    p.count = c.count;
    std::string want = "no error";
    try {
      p.validate("params.mu");
    } catch (const std::invalid_argument& e) { want = e.what(); }
    EXPECT_NE(want, "no error") << c.text;
    EXPECT_EQ(error_of(c.text), want) << c.text;
  }
}
