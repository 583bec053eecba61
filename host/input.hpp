// The contact-space input table (docs/INTERFACE.md) as the CLI commands read it: the header's
// column map for one law, and rows parsed into structure-of-arrays columns in BatchIn order.
#pragma once
#include <cstddef>
#include <string>
#include <unordered_map>
#include <vector>

#include "csv.hpp"
#include "kernels/batch.hpp"
#include "laws.hpp"

namespace impact::host {

constexpr int kNumInputs = 16;
// Input columns in BatchIn order: W_xx..W_zz, n_*, v_*, mu, e, e_t, eta0.
extern const char* const kInputNames[kNumInputs];
// Output columns every law writes, before its extras.
extern const char* const kOutputNames[8];

struct InputLayout {
  std::size_t ncols = 0;
  std::string header;          // the header line as read
  long header_line = 0;
  bool needed[kNumInputs];     // columns the law reads
  std::size_t col_of[kNumInputs];
  std::vector<std::string> out_names;  // the output columns the law appends
  // With read_header(..., with_outputs = true): where each out_names column is in the file.
  std::vector<std::size_t> out_col;
};

// Reads and checks the header for `law`: names unique and non-empty, every needed column present,
// no input column that collides with an output. Throws InputError with the location.
// with_outputs: the file is an `impact eval` result table instead; every output column of the law
// must be present too (their positions go to out_col).
InputLayout read_header(CsvReader& reader, const LawInfo& law, bool with_outputs = false);

// Reads the next row into dst[k][m] (k over the needed inputs); false at end of input. Throws
// InputError for a wrong field count or a bad number.
template <class T>
bool read_row(CsvReader& reader, std::vector<CsvField>& fields, const InputLayout& lay, std::vector<T>* dst,
              std::size_t m);

// SoA columns of `count` rows in BatchIn order, and views of them.
template <class T>
struct InputColumns {
  std::vector<T> in[kNumInputs];
  void resize(std::size_t n) {
    for (auto& c : in) c.resize(n);
  }
  BatchIn<T> view(const InputLayout& lay, std::size_t offset, std::size_t count) const;
};

// Per-row outputs of one law in SoA form, and the BatchOut view of a range of them.
template <class T>
struct OutputColumns {
  std::vector<T> P[3], vf[3], dE, In_c, aux[kAux];
  std::vector<std::uint32_t> modes;
  std::vector<std::int32_t> steps;
  std::vector<std::uint8_t> status;
  void resize(std::size_t n);
  BatchOut<T> view(std::size_t offset);
};

// The backend named on the command line: auto (cuda when a device is usable, else omp), cuda,
// omp, serial, and reference where allowed. Throws std::invalid_argument with the reason.
Backend resolve_backend(const std::string& name, const std::string& precision, bool allow_reference);

// Checks the common numeric options (precision, integrator, steps); throws std::invalid_argument.
void check_law_options(const std::string& precision, const std::string& integrator, int steps);

}  // namespace impact::host
