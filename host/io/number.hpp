// The one grammar of a number written as text (docs/INTERFACE.md, "Numbers in text"): CSV cells
// (`impact eval`, `impact compare`, scenario tables), imported design files, and the numbers
// inside config strings and --set values ("uniform:0.1:0.8"). Every reader parses with
// parse_number_text, so a text is a number, and the same double, everywhere or nowhere.
//
//   number   := [sign] (decimal | word)
//   decimal  := (digits ["." [digits]] | "." digits) [("e" | "E") [sign] digits]
//   word     := "inf" | "infinity" | "nan"            (any case)
//   sign     := "+" | "-"          digits := one or more of 0-9
//
// The value is the double nearest to the decimal (round to nearest even), subnormals included;
// a decimal below half the smallest subnormal reads as (signed) zero. A decimal whose nearest
// double would be infinite (1e400) is refused: an infinite value is written `inf`. Refused too:
// hexadecimal (0x10, 0x1p-2), blanks inside the text, a NaN payload ("nan(1)"), digit
// separators, anything else. Blanks around the text are the reader's business (a CSV cell's are
// skipped). Whether a non-finite value (inf, nan) is meaningful is the reader's decision: a table
// row takes it and gets the status `non_finite`; a study's values must be finite.
#pragma once
#include <string>
#include <string_view>

namespace impact::io {

enum class NumberFault {
  none,
  empty,        // no text
  hexadecimal,  // 0x..., 0X...
  overflow,     // a decimal beyond the range of double
  malformed,    // anything else outside the grammar
};

struct ParsedNumber {
  double value = 0;
  NumberFault fault = NumberFault::none;
  bool ok() const { return fault == NumberFault::none; }
};

// Parses all of `text` (no surrounding blanks) by the grammar above.
ParsedNumber parse_number_text(std::string_view text);

// The same, true and v set on success.
bool parse_number_text(std::string_view text, double& v);

// Why `text` is not a number, for a message after "expected a number, found 'TEXT'": empty for
// NumberFault::none and malformed (nothing to add), else e.g. " (hexadecimal is not accepted:
// write the decimal value)".
std::string number_fault_hint(NumberFault f);

// Whether `text` begins like a number (a digit, a sign, a point, or inf/nan in any case): where a
// field may be a name or a number (a header line, "uniform:0:1" against "0.5"), such a text is
// taken as a number and refused as one when it is outside the grammar.
bool begins_like_number(std::string_view text);

// `text` without the spaces and tabs at its ends; *col (when given) advanced past those skipped
// at the start.
std::string_view trim_blanks(std::string_view text, long* col = nullptr);

// Numbers for tables that people read: `digits` decimals, or three significant digits with a k, M
// or G suffix (2.5e7 -> "25 M"); "-" for a value that is not finite.
std::string fixed_text(double v, int digits);
std::string eng_text(double v);

}  // namespace impact::io
