// samples.csv and samples.npy: one row per draw, the integer columns that say where the draw came
// from (<u8), then the free parameters and logp (<f8). Both files hold the same rows, and each is
// written whole (io::OutFile) or not at all.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace impact::io {

// `row(i, ids, values)` fills draw i's ids (ids.size() == id_names.size()) and values (the
// parameters then logp: names.size() + 1). `titles`: the .npy titles of the parameters and logp
// (names.size() + 1; empty: none).
using SampleRow = std::function<void(std::size_t i, std::uint64_t* ids, double* values)>;

void write_samples_files(const std::string& dir, const std::vector<std::string>& id_names, const std::vector<std::string>& names,
                         const std::vector<std::string>& titles, std::size_t rows, const SampleRow& row);

}  // namespace impact::io
