#include "design/param_text.hpp"

#include <cctype>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "io/csv.hpp"
#include "io/number.hpp"

namespace impact::design {

namespace {

// In ParamKind order; param_form() relies on it.
constexpr ParamForm kForms[] = {
    {ParamKind::fixed, "fixed", 1, {"value"}},
    {ParamKind::uniform, "uniform", 2, {"lo", "hi"}},
    {ParamKind::normal, "normal", 2, {"mean", "sd"}},
    {ParamKind::lognormal, "lognormal", 2, {"mu", "sigma"}},
    {ParamKind::truncnormal, "truncnormal", 4, {"mean", "sd", "lo", "hi"}},
    {ParamKind::linspace, "linspace", 3, {"a", "b", "count"}},
};
static_assert(sizeof kForms / sizeof kForms[0] == static_cast<int>(ParamKind::linspace) + 1, "one form per ParamKind");

std::string upper(const char* s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// "uniform:LO:HI"
std::string form_text(const ParamForm& f) {
  std::string s = f.name;
  for (int i = 0; i < f.arity; ++i) s += ":" + upper(f.fields[i]);
  return s;
}

[[noreturn]] void fail(const std::string& key, const std::string& what) { throw std::invalid_argument(key + ": " + what); }

// A number of the text form, blanks around it skipped; `what` names it in the message.
double number(const std::string& key, std::string_view text, const std::string& what) {
  const io::ParsedNumber p = io::parse_number_text(io::trim_blanks(text));
  if (!p.ok()) fail(key, what + "'" + std::string(text) + "' is not a number" + io::number_fault_hint(p.fault));
  return p.value;
}

}  // namespace

const ParamForm* param_forms_begin() { return kForms; }
const ParamForm* param_forms_end() { return kForms + sizeof kForms / sizeof kForms[0]; }

const ParamForm& param_form(ParamKind k) { return kForms[static_cast<int>(k)]; }

const ParamForm* find_param_form(std::string_view name) {
  for (const ParamForm& f : kForms)
    if (name == f.name) return &f;
  return nullptr;
}

std::string param_forms_text() {
  std::string s = "a number";
  for (const ParamForm& f : kForms) s += ", " + form_text(f);
  return s;
}

ParamSpec param_from_numbers(const std::string& name, const std::string& key, ParamKind kind, const double* v) {
  ParamSpec p;
  p.name = name;
  p.kind = kind;
  // the form's numbers in its order (param_text's): a, then b, then lo and hi (truncnormal) or the
  // count (linspace)
  p.a = v[0];
  if (kind != ParamKind::fixed) p.b = v[1];
  if (kind == ParamKind::truncnormal) {
    p.lo = v[2];
    p.hi = v[3];
  }
  if (kind == ParamKind::linspace) {
    // 1e9 points are beyond any grid a study can hold (kMaxDesignRows bounds the product)
    if (!(v[2] >= 1 && v[2] == std::floor(v[2]) && v[2] < 1e9)) fail(key, "linspace COUNT must be a positive integer below 1e9");
    p.count = static_cast<std::size_t>(v[2]);
  }
  p.validate(key);
  return p;
}

ParamSpec parse_param_text(const std::string& name, const std::string& key, std::string_view text) {
  std::vector<std::string_view> parts;
  for (std::size_t start = 0;;) {
    const std::size_t c = text.find(':', start);
    parts.push_back(text.substr(start, c == std::string_view::npos ? std::string_view::npos : c - start));
    if (c == std::string_view::npos) break;
    start = c + 1;
  }
  if (parts.size() == 1) {
    // a bare number; a text that begins like one (0x10, 1e400) is refused as a number, not taken
    // for the name of a distribution
    const std::string_view bare = io::trim_blanks(parts[0]);
    if (io::begins_like_number(bare)) {
      const double v = number(key, parts[0], "");
      return param_from_numbers(name, key, ParamKind::fixed, &v);
    }
  }
  const ParamForm* f = find_param_form(parts[0]);
  if (!f) fail(key, "unknown distribution '" + std::string(parts[0]) + "' (expected " + param_forms_text() + ")");
  if (static_cast<int>(parts.size()) - 1 != f->arity)
    fail(key, "'" + std::string(f->name) + "' takes " + std::to_string(f->arity) + (f->arity == 1 ? " number (" : " numbers (") +
                  form_text(*f) + "), got " + std::to_string(parts.size() - 1) + " in '" + std::string(text) + "'");
  double v[4] = {0, 0, 0, 0};
  for (int i = 0; i < f->arity; ++i) v[i] = number(key, parts[1 + i], upper(f->fields[i]) + " ");
  return param_from_numbers(name, key, f->kind, v);
}

std::string param_text(const ParamSpec& p) {
  const ParamForm& f = param_form(p.kind);
  const double v[4] = {p.a, p.b, p.lo, p.hi};
  std::string s = f.name;
  for (int i = 0; i < f.arity; ++i) {
    s += ':';
    if (p.kind == ParamKind::linspace && i == 2) s += std::to_string(p.count);
    else io::append_number(s, v[i]);
  }
  return s;
}

}  // namespace impact::design
