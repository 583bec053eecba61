#include "systems/sample_spec.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "io/csv.hpp"
#include "io/number.hpp"

namespace impact::systems {

using namespace impact::io;

namespace {

const std::vector<SpecKey>& contact_keys() {
  static const std::vector<SpecKey> k = {
      {"w1", kSlotW1, "first eigenvalue of W (1/kg)"},
      {"w2", kSlotW2, "second eigenvalue of W (1/kg)"},
      {"w3", kSlotW3, "third eigenvalue of W (1/kg)"},
      {"rotation", kRotationKey, "eigenvectors of W: random (uniform rotation) or identity"},
      {"vn", kSlotVn, "approach speed, v0.n = -vn (m/s, > 0 to collide)"},
      {"vt", kSlotVt, "tangential speed (m/s)"},
      {"phi", kSlotPhi, "direction of the tangential velocity in the x-y plane (rad)"},
      {"mu", kSlotMu, "Coulomb friction coefficient"},
      {"e", kSlotE, "restitution"},
      {"e_t", kSlotEt, "tangential restitution (chatterjee-ruina, aghili)"},
      {"eta0", kSlotEta0, "Jia's stiffness ratio sqrt(k_n/k_t) (jia)"},
  };
  return k;
}

const std::vector<SpecKey>& ball_keys() {
  static const std::vector<SpecKey> k = {
      {"m", kSlotMass, "mass of the sphere (kg)"},
      {"r", kSlotRadius, "radius of the sphere (m)"},
      {"V0x", kSlotV0x, "centre velocity x (m/s)"},
      {"V0y", kSlotV0y, "centre velocity y (m/s)"},
      {"V0z", kSlotV0z, "centre velocity z (m/s, < 0 to collide)"},
      {"w0x", kSlotW0x, "angular velocity x (rad/s)"},
      {"w0y", kSlotW0y, "angular velocity y (rad/s)"},
      {"w0z", kSlotW0z, "angular velocity z (rad/s; moves no contact point)"},
      {"mu", kSlotMu, "Coulomb friction coefficient"},
      {"e", kSlotE, "restitution"},
      {"e_t", kSlotEt, "tangential restitution (chatterjee-ruina, aghili)"},
      {"eta0", kSlotEta0, "Jia's stiffness ratio sqrt(k_n/k_t) (jia)"},
  };
  return k;
}

const char* const kKindNames[] = {"fixed", "uniform", "normal", "lognormal", "truncnormal"};
const int kKindArity[] = {1, 2, 2, 2, 4};
const char* const kKindParams[] = {"A", "A:B", "MEAN:SD", "MU:SIGMA", "MEAN:SD:LO:HI"};

// A number in a --set value: the one number grammar of text (io/number.hpp; blanks around it
// skipped); NaN is no distribution's parameter. hint (when given): why it is not a number.
bool parse_double(const std::string& s, double& v, std::string* hint = nullptr) {
  const io::ParsedNumber p = io::parse_number_text(io::trim_blanks(s));
  if (p.ok() && !std::isnan(p.value)) {
    v = p.value;
    return true;
  }
  if (hint) *hint = p.ok() ? " (NaN is not accepted here)" : io::number_fault_hint(p.fault);
  return false;
}

std::string num(double v) {
  std::string s;
  append_number(s, v);
  return s;
}

}  // namespace

Scenario parse_scenario(const std::string& name) {
  if (name == "contact") return Scenario::contact;
  if (name == "ball") return Scenario::ball;
  throw std::invalid_argument("unknown scenario '" + name + "' (known: " + scenario_names() + ")");
}

const char* scenario_name(Scenario s) { return s == Scenario::ball ? "ball" : "contact"; }
std::string scenario_names() { return "contact, ball"; }

const std::vector<SpecKey>& spec_keys(Scenario s) { return s == Scenario::ball ? ball_keys() : contact_keys(); }

SampleSpec default_spec(Scenario s) {
  SampleSpec spec{};
  for (int k = 0; k < kMaxSlots; ++k) spec.slot[k] = Dist::fixed(0.0);
  spec.scenario = s;
  spec.flags = 0;
  if (s == Scenario::ball) {
    // Jia 2013, Section 8.1: m = r = 1, V0 = (-1, 0, -5), w0 = (0, 2, 0), mu = 0.4, spread around it
    spec.slot[kSlotMass] = Dist::fixed(1.0);
    spec.slot[kSlotRadius] = Dist::fixed(1.0);
    spec.slot[kSlotV0x] = Dist::normal(-1.0, 0.5);
    spec.slot[kSlotV0y] = Dist::normal(0.0, 0.5);
    spec.slot[kSlotV0z] = Dist::truncnormal(-5.0, 1.0, -10.0, -0.5);
    spec.slot[kSlotW0x] = Dist::normal(0.0, 1.0);
    spec.slot[kSlotW0y] = Dist::normal(2.0, 1.0);
    spec.slot[kSlotW0z] = Dist::fixed(0.0);
    spec.slot[kSlotMu] = Dist::uniform(0.1, 0.8);
    spec.slot[kSlotE] = Dist::uniform(0.0, 1.0);
    spec.slot[kSlotEt] = Dist::fixed(0.0);
    spec.slot[kSlotEta0] = Dist::fixed(1.1019463300386794);  // sqrt(17/14), the solid sphere's
  } else {
    spec.flags = kRandomRotation;
    spec.slot[kSlotW1] = Dist::lognormal(0.0, 0.5);
    spec.slot[kSlotW2] = Dist::lognormal(0.0, 0.5);
    spec.slot[kSlotW3] = Dist::lognormal(0.0, 0.5);
    spec.slot[kSlotVn] = Dist::lognormal(0.0, 0.5);
    spec.slot[kSlotVt] = Dist::uniform(0.0, 2.0);
    spec.slot[kSlotPhi] = Dist::uniform(0.0, 6.283185307179586);
    spec.slot[kSlotMu] = Dist::uniform(0.0, 1.0);
    spec.slot[kSlotE] = Dist::uniform(0.0, 1.0);
    spec.slot[kSlotEt] = Dist::uniform(0.0, 0.5);
    spec.slot[kSlotEta0] = Dist::uniform(0.5, 3.0);
  }
  return spec;
}

Dist parse_dist(const std::string& key, const std::string& text) {
  const std::string where = "--set " + key + "=" + text + ": ";
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (;;) {
    const std::size_t c = text.find(':', start);
    parts.push_back(text.substr(start, c == std::string::npos ? std::string::npos : c - start));
    if (c == std::string::npos) break;
    start = c + 1;
  }
  double bare;
  std::string hint;
  if (parts.size() == 1 && parse_double(parts[0], bare, &hint)) {
    if (!std::isfinite(bare)) throw std::invalid_argument(where + "a fixed value must be finite");
    return Dist::fixed(bare);
  }
  if (parts.size() == 1 && io::begins_like_number(io::trim_blanks(parts[0])))
    throw std::invalid_argument(where + "'" + parts[0] + "' is not a number" + hint);
  int kind = -1;
  for (int k = 0; k < static_cast<int>(DistKind::count_); ++k)
    if (parts[0] == kKindNames[k]) kind = k;
  if (kind < 0)
    throw std::invalid_argument(where + "unknown distribution '" + parts[0] +
                                "' (known: fixed:A, uniform:A:B, normal:MEAN:SD, lognormal:MU:SIGMA, "
                                "truncnormal:MEAN:SD:LO:HI, or a number)");
  const int arity = kKindArity[kind];
  if (static_cast<int>(parts.size()) - 1 != arity)
    throw std::invalid_argument(where + "'" + kKindNames[kind] + "' takes " + std::to_string(arity) +
                                " parameter(s) (" + kKindNames[kind] + ":" + kKindParams[kind] + "), got " +
                                std::to_string(parts.size() - 1));
  double p[4] = {0, 0, 0, 0};
  for (int i = 0; i < arity; ++i)
    if (!parse_double(parts[1 + i], p[i], &hint))
      throw std::invalid_argument(where + "parameter " + std::to_string(i + 1) + " ('" + parts[1 + i] +
                                  "') is not a number" + hint);
  const bool bounds_ok = kind == static_cast<int>(DistKind::truncnormal);
  for (int i = 0; i < arity; ++i)
    if (!std::isfinite(p[i]) && !(bounds_ok && i >= 2))
      throw std::invalid_argument(where + "parameter " + std::to_string(i + 1) + " must be finite");
  switch (static_cast<DistKind>(kind)) {
    case DistKind::fixed: return Dist::fixed(p[0]);
    case DistKind::uniform:
      if (!(p[0] <= p[1])) throw std::invalid_argument(where + "uniform:A:B needs A <= B");
      return Dist::uniform(p[0], p[1]);
    case DistKind::normal:
      if (!(p[1] >= 0)) throw std::invalid_argument(where + "normal:MEAN:SD needs SD >= 0");
      return Dist::normal(p[0], p[1]);
    case DistKind::lognormal:
      if (!(p[1] >= 0)) throw std::invalid_argument(where + "lognormal:MU:SIGMA needs SIGMA >= 0");
      return Dist::lognormal(p[0], p[1]);
    default:
      if (!(p[1] > 0)) throw std::invalid_argument(where + "truncnormal:MEAN:SD:LO:HI needs SD > 0");
      if (!(p[2] < p[3])) throw std::invalid_argument(where + "truncnormal:MEAN:SD:LO:HI needs LO < HI");
      return Dist::truncnormal(p[0], p[1], p[2], p[3]);
  }
}

std::string dist_string(const Dist& d) {
  const int k = static_cast<int>(d.kind);
  if (k < 0 || k >= static_cast<int>(DistKind::count_)) return "invalid";
  std::string s = kKindNames[k];
  const double p[4] = {d.a, d.b, d.lo, d.hi};
  for (int i = 0; i < kKindArity[k]; ++i) s += ":" + num(p[i]);
  return s;
}

void apply_setting(SampleSpec& spec, const std::string& setting) {
  const std::size_t eq = setting.find('=');
  if (eq == std::string::npos || eq == 0)
    throw std::invalid_argument("--set " + setting + ": expected KEY=DIST, e.g. mu=uniform:0:1.5");
  const std::string key = setting.substr(0, eq), value = setting.substr(eq + 1);
  for (const SpecKey& k : spec_keys(spec.scenario)) {
    if (key != k.name) continue;
    if (k.slot == kRotationKey) {
      if (value == "random") spec.flags |= kRandomRotation;
      else if (value == "identity") spec.flags &= ~static_cast<std::uint32_t>(kRandomRotation);
      else throw std::invalid_argument("--set " + setting + ": rotation must be 'random' or 'identity'");
      return;
    }
    spec.slot[k.slot] = parse_dist(key, value);
    return;
  }
  std::string known;
  for (const SpecKey& k : spec_keys(spec.scenario)) known += (known.empty() ? "" : ", ") + std::string(k.name);
  throw std::invalid_argument("--set " + setting + ": unknown key '" + key + "' for scenario " +
                              scenario_name(spec.scenario) + " (known: " + known + ")");
}

std::vector<std::pair<std::string, std::string>> describe(const SampleSpec& spec) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const SpecKey& k : spec_keys(spec.scenario))
    out.emplace_back(k.name, k.slot == kRotationKey ? ((spec.flags & kRandomRotation) ? "random" : "identity")
                                                    : dist_string(spec.slot[k.slot]));
  return out;
}

}  // namespace impact::systems
