// Host storage of batches in the column layout of impact/columns.hpp (one std::vector per column),
// the output column names of a law, and the text of the non-numeric cells (status, modes). Every
// command, test and benchmark holds its batches in these.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/registry.hpp"
#include "impact/columns.hpp"
#include "kernels/batch.hpp"

namespace impact::engine {

// Input columns in InputColumn order.
template <class T>
struct InputColumns {  // NOLINT(bugprone-reserved-identifier): __i0 is clang's, the implicit operator='s index
  std::vector<T> col[kNumInputs];

  void resize(std::size_t n) {
    for (auto& c : col) c.resize(n);
  }
  std::size_t size() const { return col[0].size(); }
  // Row i from a problem (converted to T).
  template <class U>
  void set(std::size_t i, const ContactProblem<U>& p) {
    U v[kNumInputs];
    to_columns(p, v);
    for (int k = 0; k < kNumInputs; ++k) col[k][i] = static_cast<T>(v[k]);
  }
  // Rows [offset, offset + count) as a batch; a column with needed[k] false is passed as null (not
  // read by the law). needed == nullptr: every column.
  BatchIn<T> view(const bool* needed, std::size_t offset, std::size_t count) const {
    const T* c[kNumInputs];
    for (int k = 0; k < kNumInputs; ++k) c[k] = (!needed || needed[k]) ? col[k].data() + offset : nullptr;
    return batch_in_of<T>(c, count);
  }
  // The columns `law` reads (the others null), as `impact eval` passes them.
  BatchIn<T> view(const LawInfo& law, std::size_t offset, std::size_t count) const {
    bool needed[kNumInputs];
    for (int k = 0; k < kNumInputs; ++k) needed[k] = law.reads(k);
    return view(needed, offset, count);
  }
};

// Output columns of a batch: the reals in OutputColumn order, modes, steps, status.
template <class T>
struct OutputColumns {  // NOLINT(bugprone-reserved-identifier): __i0 is clang's, the implicit operator='s index
  std::vector<T> real[kNumRealOutputs];
  std::vector<std::uint32_t> modes;
  std::vector<std::int32_t> steps;
  std::vector<std::uint8_t> status;

  void resize(std::size_t n) {
    for (auto& c : real) c.resize(n);
    modes.resize(n);
    steps.resize(n);
    status.resize(n);
  }
  // Every cell set to a sentinel that no law writes (tests: an unwritten row shows).
  void fill_sentinel(std::size_t n) {
    for (auto& c : real) c.assign(n, T(-7));
    modes.assign(n, 0xdeadu);
    steps.assign(n, -7);
    status.assign(n, 0xff);
  }
  std::size_t size() const { return status.size(); }
  BatchOut<T> view(std::size_t offset = 0) {
    BatchOut<T> b;
    for (int k = 0; k < kNumRealOutputs; ++k) b.real[k] = real[k].data() + offset;
    b.modes = modes.data() + offset;
    b.steps = steps.data() + offset;
    b.status = status.data() + offset;
    return b;
  }
  Status status_of(std::size_t i) const { return static_cast<Status>(status[i]); }
  Vec3<T> P(std::size_t i) const { return Vec3<T>{real[out_P_x][i], real[out_P_y][i], real[out_P_z][i]}; }
  Vec3<T> vf(std::size_t i) const { return Vec3<T>{real[out_vf_x][i], real[out_vf_y][i], real[out_vf_z][i]}; }
  // Row i as a Result.
  Result<T> row(std::size_t i) const {
    T v[kNumRealOutputs];
    for (int k = 0; k < kNumRealOutputs; ++k) v[k] = real[k][i];
    return from_outputs(v, modes[i], steps[i], status[i]);
  }
  // Row `from` of `src` (any precision) into row `to`.
  template <class U>
  void copy_row(const OutputColumns<U>& src, std::size_t from, std::size_t to) {
    for (int k = 0; k < kNumRealOutputs; ++k) real[k][to] = static_cast<T>(src.real[k][from]);
    modes[to] = src.modes[from];
    steps[to] = src.steps[from];
    status[to] = src.status[from];
  }
  // The value of a law's extra column in row i (modes: the packed sequence, steps: the count).
  double extra(std::size_t i, Extra x) const {
    if (x == Extra::Modes) return double(modes[i]);
    if (x == Extra::Steps) return double(steps[i]);
    return double(real[real_column_of(x)][i]);
  }
};

// The output columns of `law` in a result table: P_*, vf_*, dE, status, then its extras.
std::vector<std::string> output_names(const LawInfo& law);

// "slip>stick>slip" from a packed mode sequence ("none" when empty), and back; the parsers return
// false for text that is no status / no mode sequence.
std::string modes_string(std::uint32_t bits);
bool parse_modes(std::string_view text, std::uint32_t& bits, std::string& bad_word);
bool parse_status(std::string_view text, Status& s);

}  // namespace impact::engine
