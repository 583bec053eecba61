// The one text form of a parameter's marginal, read by `impact study` (a config string,
// "params.mu = \"uniform:0.1:0.8\"") and `impact reduce` (--set mu=uniform:0.1:0.8):
//
//   spec  := NUMBER                              a fixed value
//          | KIND ":" NUMBER { ":" NUMBER }      the kind's numbers, in the order below
//   fixed:VALUE  uniform:LO:HI  normal:MEAN:SD  lognormal:MU:SIGMA  truncnormal:MEAN:SD:LO:HI
//   linspace:A:B:COUNT                           (a grid design's points; `impact study` only)
//
// NUMBER is io/number.hpp's grammar (blanks around it skipped). What a kind's numbers may be is
// ParamSpec::validate's rule, the only one: finite (truncnormal's LO and HI may be -inf/inf, never
// NaN), LO <= HI, SD > 0 (a point mass is written as a number), COUNT a positive integer. The
// table form of a config ({dist = "normal", mean = 0.4, sd = 0.05}) names the same numbers by the
// lower-case field names of the same table (param_forms()).
#pragma once
#include <string>
#include <string_view>

#include "design/design.hpp"

namespace impact::design {

// A kind of marginal and its numbers: their names in a config table (`fields`) and, upper-cased,
// in the text form.
struct ParamForm {
  ParamKind kind;
  const char* name;
  int arity;
  const char* fields[4];
};

// The forms, in ParamKind order (fixed .. linspace).
const ParamForm* param_forms_begin();
const ParamForm* param_forms_end();
const ParamForm& param_form(ParamKind k);
const ParamForm* find_param_form(std::string_view name);  // nullptr when no kind is called so

// "a number, fixed:VALUE, uniform:LO:HI, ..., linspace:A:B:COUNT", for messages.
std::string param_forms_text();

// The spec of `kind` from its numbers in form order, validated. Throws std::invalid_argument
// "<key>: ..." (`key` names where the text came from, e.g. "params.mu").
ParamSpec param_from_numbers(const std::string& name, const std::string& key, ParamKind kind, const double* v);

// Parses the text form. Throws std::invalid_argument "<key>: ..." naming the number or the rule
// at fault.
ParamSpec parse_param_text(const std::string& name, const std::string& key, std::string_view text);

// The text form of a spec ("uniform:0.1:0.8", numbers as the shortest text that reads back to the
// same double; a fixed value as "fixed:VALUE"): parse_param_text(param_text(p)) == p.
std::string param_text(const ParamSpec& p);

}  // namespace impact::design
