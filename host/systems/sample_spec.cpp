#include "systems/sample_spec.hpp"

#include <stdexcept>

#include "design/param_text.hpp"
#include "systems/scenarios.hpp"

namespace impact::systems {

namespace {

// The device slot of each parameter of a sampled scenario, by the name the study's scenario gives
// it: systems/scenarios.cpp states every parameter once (name, default, meaning), and the keys of
// `impact reduce --set` are those, in that order (keys() checks that the two agree).
struct SlotOf {
  const char* name;
  int slot;
};
constexpr SlotOf kContactSlots[] = {{"w1", kSlotW1}, {"w2", kSlotW2},  {"w3", kSlotW3},    {"rx", kSlotRx},   {"ry", kSlotRy},
                                    {"rz", kSlotRz}, {"vn", kSlotVn},  {"vt", kSlotVt},    {"phi", kSlotPhi}, {"mu", kSlotMu},
                                    {"e", kSlotE},   {"e_t", kSlotEt}, {"eta0", kSlotEta0}};
constexpr SlotOf kBallSlots[] = {{"m", kSlotMass},  {"r", kSlotRadius}, {"V0x", kSlotV0x}, {"V0y", kSlotV0y},
                                 {"V0z", kSlotV0z}, {"w0x", kSlotW0x},  {"w0y", kSlotW0y}, {"w0z", kSlotW0z},
                                 {"mu", kSlotMu},   {"e", kSlotE},      {"e_t", kSlotEt},  {"eta0", kSlotEta0}};
constexpr const char* kRotationHelp =
    "the rotation R of W's eigenvectors: random (uniform, the default), vector (from rx, ry, rz; "
    "setting any of them selects it) or identity (rx = ry = rz = 0)";

// The keys of a scenario: its study parameters with their device slots, and (contact) the rotation
// switch before rx. std::logic_error when a parameter has no slot or a slot no parameter.
template <std::size_t N>
std::vector<SpecKey> keys(const char* scenario, const SlotOf (&slots)[N], bool rotation) {
  const ScenarioInfo* sc = find_scenario(scenario);
  if (!sc) throw std::logic_error(std::string("sample_spec: no study scenario ") + scenario);
  std::vector<SpecKey> out;
  for (const ScenarioParam& prm : sc->params) {
    int slot = -2;
    for (const SlotOf& s : slots)
      if (std::string(s.name) == prm.name) slot = s.slot;
    if (slot == -2)
      throw std::logic_error(std::string("sample_spec: the study's ") + scenario + " parameter " + prm.name +
                             " has no device slot");
    if (rotation && slot == kSlotRx) out.push_back(SpecKey{"rotation", kRotationKey, kRotationHelp});
    out.push_back(SpecKey{prm.name, slot, prm.help});
  }
  if (out.size() != N + (rotation ? 1 : 0))
    throw std::logic_error(std::string("sample_spec: a device slot of ") + scenario + " is no study parameter");
  return out;
}

const std::vector<SpecKey>& contact_keys() {
  static const std::vector<SpecKey> k = keys("contact", kContactSlots, true);
  return k;
}

const std::vector<SpecKey>& ball_keys() {
  static const std::vector<SpecKey> k = keys("ball", kBallSlots, false);
  return k;
}

// rx, ry, rz of the contact scenario (another scenario's slots have the same numbers)
bool is_rotation_vector_slot(Scenario s, int slot) {
  return s == Scenario::contact && (slot == kSlotRx || slot == kSlotRy || slot == kSlotRz);
}

// The rotation is the vector (rx, ry, rz): not random, and not the identity the three fixed zeros give.
bool vector_rotation(const SampleSpec& spec) {
  if (spec.scenario != Scenario::contact || (spec.flags & kRandomRotation)) return false;
  for (int k : {kSlotRx, kSlotRy, kSlotRz})
    if (!(spec.slot[k].kind == DistKind::fixed && spec.slot[k].a == 0.0)) return true;
  return false;
}

// The device form of a marginal (impact/sampling.hpp's Dist) of the host's one (design::ParamSpec).
Dist to_dist(const design::ParamSpec& p, const std::string& key) {
  switch (p.kind) {
    case design::ParamKind::fixed: return Dist::fixed(p.a);
    case design::ParamKind::uniform: return Dist::uniform(p.a, p.b);
    case design::ParamKind::normal: return Dist::normal(p.a, p.b);
    case design::ParamKind::lognormal: return Dist::lognormal(p.a, p.b);
    case design::ParamKind::truncnormal: return Dist::truncnormal(p.a, p.b, p.lo, p.hi);
    case design::ParamKind::linspace: break;
  }
  throw std::invalid_argument(key +
                              ": linspace is a grid of a study's design (impact study); impact reduce samples "
                              "distributions (" +
                              design::param_forms_text() + " but linspace)");
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
  for (Dist& d : spec.slot) d = Dist::fixed(0.0);
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
  const std::string where = "--set " + key + "=" + text;
  return to_dist(design::parse_param_text(key, where, text), where);
}

std::string dist_string(const Dist& d) {
  design::ParamSpec p;
  switch (d.kind) {
    case DistKind::fixed: p.kind = design::ParamKind::fixed; break;
    case DistKind::uniform: p.kind = design::ParamKind::uniform; break;
    case DistKind::normal: p.kind = design::ParamKind::normal; break;
    case DistKind::lognormal: p.kind = design::ParamKind::lognormal; break;
    case DistKind::truncnormal: p.kind = design::ParamKind::truncnormal; break;
    default: return "invalid";
  }
  p.a = d.a;
  p.b = d.b;
  p.lo = d.lo;
  p.hi = d.hi;
  return design::param_text(p);
}

void apply_setting(SampleSpec& spec, const std::string& setting) {
  const std::size_t eq = setting.find('=');
  if (eq == std::string::npos || eq == 0)
    throw std::invalid_argument("--set " + setting + ": expected KEY=DIST, e.g. mu=uniform:0:1.5");
  const std::string key = setting.substr(0, eq), value = setting.substr(eq + 1);
  for (const SpecKey& k : spec_keys(spec.scenario)) {
    if (key != k.name) continue;
    const std::uint32_t not_random = ~static_cast<std::uint32_t>(kRandomRotation);
    if (k.slot == kRotationKey) {
      if (value == "random") {
        spec.flags |= kRandomRotation;
      } else if (value == "vector") {
        spec.flags &= not_random;
      } else if (value == "identity") {  // the rotation by the zero vector
        spec.flags &= not_random;
        for (int r : {kSlotRx, kSlotRy, kSlotRz}) spec.slot[r] = Dist::fixed(0.0);
      } else {
        throw std::invalid_argument("--set " + setting +
                                    ": rotation must be 'random', 'vector' (R from rx, ry, rz) or 'identity'");
      }
      return;
    }
    spec.slot[k.slot] = parse_dist(key, value);
    if (is_rotation_vector_slot(spec.scenario, k.slot)) spec.flags &= not_random;  // rx, ry, rz set the rotation
    return;
  }
  std::string known;
  for (const SpecKey& k : spec_keys(spec.scenario)) known += (known.empty() ? "" : ", ") + std::string(k.name);
  throw std::invalid_argument("--set " + setting + ": unknown key '" + key + "' for scenario " + scenario_name(spec.scenario) +
                              " (known: " + known + ")");
}

void apply_settings(SampleSpec& spec, const std::vector<std::string>& settings) {
  // each setting on its own first (an unknown key or a bad value says so in its own words), then
  // the pair: the last rotation given, random or identity, beside a component of the vector
  SampleSpec out = spec;
  const std::string* rotation = nullptr;
  const std::string* vector = nullptr;
  for (const std::string& s : settings) {
    apply_setting(out, s);
    const std::string key = s.substr(0, s.find('='));
    if (key == "rotation") rotation = &s;
    if (key == "rx" || key == "ry" || key == "rz") vector = &s;
  }
  if (rotation && vector && *rotation != "rotation=vector")
    throw std::invalid_argument("--set " + *rotation + " and --set " + *vector +
                                ": rx, ry, rz give a rotation by their vector, which " +
                                rotation->substr(rotation->find('=') + 1) + " would replace: give one or the other");
  spec = out;
}

std::vector<std::pair<std::string, std::string>> describe(const SampleSpec& spec) {
  std::vector<std::pair<std::string, std::string>> out;
  // rx, ry, rz only when they are the rotation (a random or an identity rotation reads as it did
  // before they were keys: the run key of a checkpoint, the JSON summary)
  const bool vec = vector_rotation(spec);
  for (const SpecKey& k : spec_keys(spec.scenario)) {
    if (is_rotation_vector_slot(spec.scenario, k.slot) && !vec) continue;
    if (k.slot == kRotationKey) out.emplace_back(k.name, (spec.flags & kRandomRotation) ? "random" : vec ? "vector" : "identity");
    else out.emplace_back(k.name, dist_string(spec.slot[k.slot]));
  }
  return out;
}

}  // namespace impact::systems
