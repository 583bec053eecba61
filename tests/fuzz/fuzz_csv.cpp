// The CSV reader (io::CsvReader, from memory) and the table layer that turns a contact-space CSV
// into instances (engine::read_header, read_row), evaluates them with the law's serial backend and
// writes the result cells (append_results); or, like `impact compare --given`, reads an eval
// result table back (read_header(..., true), read_results).
//
//   byte 0: the law (index in IMPACT_FOR_EACH_LAW, mod the count)
//   byte 1: bit 0: float (else double); bit 1: a result table (compare --given)
//   the rest: the CSV text
//
// Findings: any exception but io::InputError (the documented error: FILE:LINE:COL), a crash or a
// sanitizer report, and an `ok` row with a non-finite impulse, velocity or energy.
#include <cmath>
#include <string>
#include <vector>

#include "engine/columns.hpp"
#include "engine/registry.hpp"
#include "engine/table.hpp"
#include "fuzz_common.hpp"
#include "io/csv.hpp"

namespace impact::fuzz {
namespace {

constexpr std::size_t kChunk = 16;      // rows per batch
constexpr std::size_t kMaxRows = 4096;  // bounds the time of one input

template <class T>
void eval_table(io::CsvReader& reader, const engine::LawInfo& law) {
  const engine::InputLayout lay = engine::read_header(reader, law);
  engine::InputColumns<T> cols;
  engine::OutputColumns<T> res;
  cols.resize(kChunk);
  res.resize(kChunk);
  std::vector<io::CsvField> fields;
  const engine::BatchFn<T> fn = engine::batch_fn<T>(law, engine::Backend::serial);
  LawOptions opt;
  opt.steps = 20;
  std::string buf;
  for (std::size_t rows = 0; rows < kMaxRows;) {
    std::size_t m = 0;
    while (m < kChunk && engine::read_row(reader, fields, lay, cols, m)) ++m;
    if (m == 0) break;
    rows += m;
    res.fill_sentinel(kChunk);
    fn(cols.view(lay.needed, 0, m), res.view(), opt);
    for (std::size_t i = 0; i < m; ++i) {
      if (res.status[i] >= static_cast<std::uint8_t>(Status::count_)) fuzz_fail("row %zu: status %d", i, int(res.status[i]));
      if (res.status_of(i) == Status::ok)
        for (int k = 0; k <= out_dE; ++k)
          if (!std::isfinite(res.real[k][i])) fuzz_fail("%s: ok row with a non-finite output column %d", law.name.c_str(), k);
      buf.clear();
      engine::append_results(buf, law, res, i);
    }
    if (m < kChunk) break;
  }
}

void read_given(io::CsvReader& reader, const engine::LawInfo& law) {
  const engine::InputLayout lay = engine::read_header(reader, law, true);
  engine::InputColumns<double> cols;
  engine::OutputColumns<double> given;
  cols.resize(1);
  given.resize(1);
  std::vector<io::CsvField> fields;
  for (std::size_t rows = 0; rows < kMaxRows && engine::read_row(reader, fields, lay, cols, 0); ++rows)
    engine::read_results(fields, reader, lay, law, given, 0);
}

}  // namespace
}  // namespace impact::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace impact;
  fuzz::Bytes in(data, size);
  const auto& laws = engine::all_laws();
  const engine::LawInfo& law = laws[in.u8() % laws.size()];
  const std::uint8_t mode = in.u8();
  try {
    io::CsvReader reader = io::CsvReader::from_text(in.rest(), "fuzz.csv");
    if (mode & 2) fuzz::read_given(reader, law);
    else if (mode & 1) fuzz::eval_table<float>(reader, law);
    else fuzz::eval_table<double>(reader, law);
  } catch (const io::InputError&) {
    // the documented error of a malformed table
  } catch (const std::exception& e) { fuzz::unexpected_exception("csv", e); }
  return 0;
}
