// What every law declares about itself, next to its physics (include/impact/laws/*.hpp):
//
//   struct MyLaw {
//     static constexpr const char* name = "my-law";        // the CLI and file name
//     static constexpr const char* summary = "...";        // one line for `impact laws`
//     IMPACT_HD static constexpr ParamUse use() { ... }     // parameters read (input columns, range checks)
//     static constexpr ExtraColumns extras = {...};         // law-specific output columns
//     static constexpr Cost cost = {...};                   // flop counts of docs/bench.md
//     template <class T> IMPACT_HD static Result<T> eval(ContactProblem<T>, const LawOptions&);
//   };
//
// The host derives everything from these (the registry, the input columns a law needs, the output
// columns it writes, the bench cost model); the device only ever calls eval().
#pragma once

namespace impact {

// Which parameters a law reads: their input columns are required, and validate() checks the
// ranges of e, e_t and eta0 when read. mu is range-checked for every law (0 when not read).
struct ParamUse {
  bool mu;    // mu >= 0
  bool e;     // 0 <= e <= 1
  bool e_t;   // -1 <= e_t <= 1
  bool eta0;  // eta0 > 0
};

// Where a law-specific output column comes from in a Result: In_c, one of the aux scalars, the
// packed mode sequence or the step count.
enum class Extra : unsigned char { In_c, Aux0, Aux1, Aux2, Aux3, Aux4, Modes, Steps };

// Units are SI for SI inputs (any consistent unit set scales alike): "1" for a pure number, ""
// for a non-numeric column (modes). The symbol is matplotlib mathtext, without the dollars.
struct ExtraColumn {
  const char* name;     // the column name in tables
  Extra what;           // its source in the Result
  const char* unit;     // SI unit
  const char* symbol;   // for plot labels
  const char* meaning;  // one line for `impact laws`, metadata.json and the plots
};

// A law's extra output columns, in table order (a fixed-capacity list, usable in constexpr).
struct ExtraColumns {
  static constexpr int kMax = 8;
  ExtraColumn c[kMax];
  int count;
  constexpr const ExtraColumn* begin() const { return c; }
  constexpr const ExtraColumn* end() const { return c + count; }
  constexpr int size() const { return count; }
};

// Floating-point operations (add/sub, mul, div, sqrt: 1 each; an FMA is 2) per instance for the
// algebraic laws, or per integration step (the law's `steps` output) for the integrators; derived
// in docs/bench.md.
struct Cost {
  double flops_instance;
  double flops_step;
};

}  // namespace impact
