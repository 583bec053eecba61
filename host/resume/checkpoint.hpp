// Finished chunks of a reduction kept on disk (`impact reduce --checkpoint DIR [--resume]`,
// docs/distributed.md), so that an interrupted run computes only what is missing and ends with the
// bits of an uninterrupted one. One file per chunk, DIR/chunk-<k>.sum, written through io::OutFile
// (a temporary renamed when complete: a killed run leaves whole files or none):
//   "impact-chunk 1\n", the run's key line (everything that decides the chunk's bits: law, study,
//   seed, range, chunk size, precision, steps, integrator, backend, histogram ranges and the sums'
//   grids), the chunk
//   index line, the summary's bytes, and a CRC-32 (Boost.CRC) of all that.
// A file whose checksum, size, key or index does not match is not used: the chunk is recomputed and
// counted as corrupt. A study's pieces use the same files with stem "piece" and bytes of any length.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "impact/stats.hpp"

namespace impact::resume {

class Checkpoint {
 public:
  // stem: the files' name and magic ("chunk": a reduction's chunks; "piece": a study's pieces,
  // study/pieces.hpp)
  Checkpoint(std::string dir, std::string key, std::string stem = "chunk");
  const std::string& dir() const { return dir_; }
  // Chunk k's summary when DIR holds a valid file for it; false (and corrupt() + 1 if a file was
  // there but bad) otherwise.
  bool load(std::uint64_t k, BatchSummary& s);
  void save(std::uint64_t k, const BatchSummary& s) const;  // std::runtime_error on a failed write
  // The same for bytes (checked by the key, the index, the CRC and, unless kAnySize, their size).
  static constexpr std::size_t kAnySize = ~std::size_t(0);
  bool load_bytes(std::uint64_t k, std::string& bytes, std::size_t size = kAnySize);
  void save_bytes(std::uint64_t k, const std::string& bytes) const;
  std::uint64_t loaded() const { return loaded_; }
  std::uint64_t corrupt() const { return corrupt_; }
  // Whether DIR already holds files of this stem (a run without --resume refuses to mix with them).
  bool has_chunks() const;

 private:
  std::string path(std::uint64_t k) const;
  std::string head(std::uint64_t k) const;
  std::string dir_, key_, stem_;
  std::uint64_t loaded_ = 0, corrupt_ = 0;
};

}  // namespace impact::resume
