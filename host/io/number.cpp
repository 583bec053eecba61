#include "io/number.hpp"

#include <charconv>
#include <cstdio>
#include <cmath>
#include <limits>
#include <system_error>

namespace impact::io {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool equals_nocase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (lower(a[i]) != b[i]) return false;
  return true;
}

// The decimal's order of magnitude (the exponent of its first significant digit), saturated; only
// asked of a decimal with a nonzero digit that from_chars found beyond double's range, to tell
// overflow (>= 0) from underflow to zero (< 0) without a locale-dependent strtod.
long magnitude(std::string_view int_part, std::string_view frac_part, std::string_view exp_part) {
  long e = 0;
  bool neg = false;
  std::size_t i = 0;
  if (i < exp_part.size() && (exp_part[i] == '+' || exp_part[i] == '-')) neg = exp_part[i++] == '-';
  for (; i < exp_part.size(); ++i) e = e > 100000000L ? e : e * 10 + (exp_part[i] - '0');
  if (neg) e = -e;
  std::size_t lead = 0;
  while (lead < int_part.size() && int_part[lead] == '0') ++lead;
  if (lead < int_part.size()) return e + static_cast<long>(int_part.size() - lead) - 1;
  std::size_t z = 0;
  while (z < frac_part.size() && frac_part[z] == '0') ++z;
  return e - static_cast<long>(z) - 1;
}

}  // namespace

ParsedNumber parse_number_text(std::string_view t) {
  ParsedNumber r;
  if (t.empty()) {
    r.fault = NumberFault::empty;
    return r;
  }
  std::size_t i = 0;
  const bool negative = t[0] == '-';
  if (t[0] == '+' || t[0] == '-') ++i;
  const std::string_view body = t.substr(i);
  if (equals_nocase(body, "inf") || equals_nocase(body, "infinity")) {
    r.value = negative ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
    return r;
  }
  if (equals_nocase(body, "nan")) {
    r.value = std::copysign(std::numeric_limits<double>::quiet_NaN(), negative ? -1.0 : 1.0);
    return r;
  }
  if (body.size() >= 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X')) {
    r.fault = NumberFault::hexadecimal;
    return r;
  }
  // decimal := (digits ["." [digits]] | "." digits) [("e" | "E") [sign] digits]
  std::size_t j = 0;
  const std::size_t int_b = j;
  while (j < body.size() && is_digit(body[j])) ++j;
  const std::string_view int_part = body.substr(int_b, j - int_b);
  std::string_view frac_part;
  if (j < body.size() && body[j] == '.') {
    const std::size_t fb = ++j;
    while (j < body.size() && is_digit(body[j])) ++j;
    frac_part = body.substr(fb, j - fb);
  }
  std::string_view exp_part;
  bool ok = !int_part.empty() || !frac_part.empty();
  if (ok && j < body.size() && (body[j] == 'e' || body[j] == 'E')) {
    const std::size_t eb = ++j;
    if (j < body.size() && (body[j] == '+' || body[j] == '-')) ++j;
    const std::size_t db = j;
    while (j < body.size() && is_digit(body[j])) ++j;
    ok = j > db;
    exp_part = body.substr(eb, j - eb);
  }
  if (!ok || j != body.size()) {
    r.fault = NumberFault::malformed;
    return r;
  }
  double v = 0;
  const auto [ptr, ec] = std::from_chars(body.data(), body.data() + body.size(), v, std::chars_format::general);
  if (ec == std::errc::result_out_of_range) {
    // the nearest double is infinite or zero (libstdc++ reports both so; a subnormal is a value)
    if (magnitude(int_part, frac_part, exp_part) >= 0) {
      r.fault = NumberFault::overflow;
      return r;
    }
    v = 0.0;
  } else if (ec != std::errc() || ptr != body.data() + body.size()) {
    r.fault = NumberFault::malformed;  // not reached: the grammar above is a subset of from_chars'
    return r;
  }
  if (std::isinf(v)) {  // a from_chars that rounds to inf without reporting the range
    r.fault = NumberFault::overflow;
    return r;
  }
  r.value = negative ? -v : v;
  return r;
}

bool parse_number_text(std::string_view text, double& v) {
  const ParsedNumber p = parse_number_text(text);
  if (p.ok()) v = p.value;
  return p.ok();
}

std::string number_fault_hint(NumberFault f) {
  switch (f) {
    case NumberFault::hexadecimal: return " (hexadecimal is not accepted: numbers are decimal)";
    case NumberFault::overflow:
      return " (beyond the range of double, +-1.7976931348623157e308; an infinite value is written 'inf')";
    default: return "";
  }
}

bool begins_like_number(std::string_view t) {
  if (t.empty()) return false;
  const char c = t[0];
  if (is_digit(c) || c == '+' || c == '-' || c == '.') return true;
  return t.size() >= 3 && (equals_nocase(t.substr(0, 3), "inf") || equals_nocase(t.substr(0, 3), "nan"));
}

std::string_view trim_blanks(std::string_view t, long* col) {
  while (!t.empty() && (t.front() == ' ' || t.front() == '\t')) {
    t.remove_prefix(1);
    if (col) ++*col;
  }
  while (!t.empty() && (t.back() == ' ' || t.back() == '\t')) t.remove_suffix(1);
  return t;
}

std::string fixed_text(double v, int digits) {
  if (!std::isfinite(v)) return "-";
  char b[48];
  std::snprintf(b, sizeof b, "%.*f", digits, v);
  return b;
}

std::string eng_text(double v) {
  if (!std::isfinite(v)) return "-";
  const char* suf = "";
  double x = v;
  if (std::fabs(v) >= 1e9) x = v / 1e9, suf = " G";
  else if (std::fabs(v) >= 1e6) x = v / 1e6, suf = " M";
  else if (std::fabs(v) >= 1e3) x = v / 1e3, suf = " k";
  char b[48];
  std::snprintf(b, sizeof b, "%.3g%s", x, suf);
  return b;
}

}  // namespace impact::io
