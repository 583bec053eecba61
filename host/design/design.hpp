// Parameter specifications and experimental designs for `impact study`.
//
// A study varies some of a scenario's parameters. Each varied parameter has a ParamSpec (its
// marginal distribution, or a linspace grid); a Design turns the specs into rows of values:
//   grid      full factorial over linspace (and fixed) parameters; the LAST parameter varies fastest
//   mc        independent draws (Philox counter-based: row r is the same whatever the chunking)
//   lhs       Latin hypercube: each parameter's n strata hit exactly once, random permutation per
//             parameter, uniform within the stratum
//   sobol     Sobol quasi-random points (Joe-Kuo direction numbers via boost::random::sobol),
//             optionally skipping the first point (the origin)
//   saltelli  the Saltelli (2010) matrix for first-order and total Sobol indices, SALib order:
//             for each base row j: A_j, AB_j^(1), ..., AB_j^(d), B_j  (N (d + 2) rows), from a
//             2d-dimensional Sobol sequence; with second_order, BA_j^(1..d) before B_j (N (2d + 2)
//             rows: Saltelli's 2002 second-order indices)
//             (with a file: SALib's Saltelli matrix imported, its group structure checked)
//   imported  a sample matrix from a file (SALib/Chaospy: whitespace- or comma-separated
//             numbers, optional header naming the parameters), rows kept in file order
// The random designs map u in (0,1)^d through each parameter's inverse CDF.
// Errors (inconsistent specs, a linspace in a random design, a bad file) throw
// std::invalid_argument whose message starts with the config key concerned.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace impact::design {

enum class ParamKind { fixed, uniform, normal, lognormal, truncnormal, linspace };

// fixed: a. uniform: [a, b]. normal: mean a, sd b > 0. lognormal: exp(N(a, b^2)), b > 0.
// truncnormal: N(a, b^2) conditioned on [lo, hi], lo < hi. linspace: count >= 1 points from a to b.
struct ParamSpec {
  std::string name;
  ParamKind kind = ParamKind::fixed;
  double a = 0, b = 0, lo = 0, hi = 0;
  std::size_t count = 0;

  // Throws std::invalid_argument "<key>: ..." for impossible parameters (sd <= 0, lo >= hi,
  // b < a for uniform, count == 0, non-finite values, a truncation interval of negligible
  // probability). `key` is the config key used in the message (e.g. "params.mu").
  void validate(const std::string& key) const;
  // Inverse CDF at u in (0, 1) (fixed: a; linspace: not defined, throws).
  double quantile(double u) const;
  // CDF at x (for tests; fixed: step at a; linspace: throws).
  double cdf(double x) const;
  // The log of the density at x, normalised (-inf outside the support; rmath's log: the same bits
  // on every machine). fixed and linspace have none: throws. A prior's density in calibrate/.
  double log_pdf(double x) const;
  // Exact mean and variance of the marginal (linspace: of its points).
  double mean() const;
  double variance() const;
  // "uniform(0.1, 0.9)" etc., for reports.
  std::string describe() const;
};

const char* param_kind_name(ParamKind k);
// The same name, kind and the parameters the kind reads (NaN equal to NaN).
bool operator==(const ParamSpec& a, const ParamSpec& b);

enum class DesignKind { grid, mc, lhs, sobol, saltelli, imported };
const char* design_kind_name(DesignKind k);
DesignKind parse_design_kind(const std::string& key, const std::string& text);  // throws naming key

struct DesignSpec {
  DesignKind kind = DesignKind::mc;
  std::size_t n = 1000;       // mc, lhs, sobol: rows; saltelli: base rows N (N (d+2) rows in all)
  std::uint64_t seed = 1;     // mc, lhs; sobol/saltelli: scrambling off, seed unused unless noted
  bool skip_first = true;     // sobol, saltelli: drop the origin point of the sequence
                              // (kept, the origin's u = 0 is taken as 2^-64 so that unbounded
                              // marginals stay finite)
  std::string file;           // imported; saltelli: the matrix from a file (SALib's X) instead of
                              // generated (N = rows / (d + 2); n, seed, skip_first unused)
  bool second_order = false;  // saltelli: SALib's calc_second_order = True layout, 2d + 2 rows per
                              // base row (A, AB_1..AB_d, BA_1..BA_d, B; BA_i = B with A's column i)
};

// The rows of one base row of a Saltelli design: d + 2, or 2 d + 2 with second-order rows.
inline std::size_t saltelli_group(std::size_t d, bool second_order) { return second_order ? 2 * d + 2 : d + 2; }

// A design over the VARIED parameters (every spec whose kind is not fixed; fixed ones are
// constants the study fills in itself).
class Design {
 public:
  virtual ~Design() = default;
  // Number of rows.
  virtual std::size_t rows() const = 0;
  // Number of columns = number of varied parameters, in the order of `names()`.
  const std::vector<std::string>& names() const { return names_; }
  // Writes rows [begin, end) row-major into out (end - begin) x names().size(). Deterministic:
  // the same row has the same values whatever the chunking.
  virtual void fill(std::size_t begin, std::size_t end, double* out) const = 0;
  // An imported design's source: "crc32=XXXXXXXX bytes=N" of the bytes its rows were read from
  // (one read: a file that changes afterwards cannot pass for it); "" for a generated design.
  const std::string& source_sum() const { return source_sum_; }
  void set_source_sum(std::string s) { source_sum_ = std::move(s); }

 protected:
  std::vector<std::string> names_;
  std::string source_sum_;
};

// The most rows a design may have: design.n (saltelli: N (d + 2) rows), an imported file's rows.
constexpr std::uint64_t kMaxDesignRows = 10000000000ull;

// The memory a study may hold (designs, chunk buffers): half of MemAvailable, and at most half of
// the address space the process may map (`ulimit -v`) where that is limited.
double memory_budget_bytes();

// The bytes the design of these specs holds in memory (an LHS design: its strata permutations,
// n x d x 4 bytes; the sequences and the grid: none to speak of; an imported file: its rows, known
// when read), estimated before anything is allocated.
double design_memory_bytes(const std::vector<ParamSpec>& specs, const DesignSpec& spec);

// Builds the design for the given specs. For `imported` (and `saltelli` with a file), a header
// line names the file's columns: with `known` (the scenario's parameters) any of them, each
// column declaring its parameter varied (no [params] entry needed; a distribution declared for it
// is not used, its values come from the file); without `known`, exactly the varied parameters of
// the specs (any order). Every varied spec needs its column, a fixed spec may not have one.
// Without a header the columns are the varied specs in spec order. A Saltelli file must have
// N (d + 2) rows in groups A, AB_1..AB_d, B (AB_i = A with B's column i), checked value by value.
// Throws std::invalid_argument naming the key ("design.kind", "design.n", "design.file",
// "params.<name>") on inconsistency, and ("design.n", "design.file") when the design needs more
// than memory_limit bytes (0: memory_budget_bytes()) or more than kMaxDesignRows rows. An imported
// file is read by io::CsvReader (lines of at most io::CsvReader::kMaxLineChars, a NUL byte or a
// read error refused: not a sample matrix) and split by commas and/or blanks; its errors are
// "design.file: FILE:LINE[:COLUMN]: what was expected".
std::unique_ptr<Design> make_design(const std::vector<ParamSpec>& specs, const DesignSpec& spec, double memory_limit = 0,
                                    const std::vector<std::string>& known = {});

}  // namespace impact::design
