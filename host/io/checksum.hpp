// CRC-32 (zlib's, the polynomial of gzip and PNG) of bytes and of files: what ties a study's part
// files to the run and position that wrote them (study/pieces.hpp, resume/parts.hpp) and an
// imported design to the bytes its rows came from.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace impact::io {

// Running CRC-32: Crc32 c; c.add(p, n); ... c.value().
class Crc32 {
 public:
  void add(const void* data, std::size_t n);
  void add(const std::string& s) { add(s.data(), s.size()); }
  std::uint32_t value() const { return crc_; }

 private:
  std::uint32_t crc_ = 0;
};

struct FileSum {
  std::uint64_t bytes = 0;
  std::uint32_t crc32 = 0;
};

// The size and CRC-32 of a regular file's bytes (std::runtime_error naming the file when it is
// missing, not a regular file, or unreadable).
FileSum file_sum(const std::string& path);

// "1a2b3c4d": a CRC-32 as 8 hex digits.
std::string crc_hex(std::uint32_t crc);

}  // namespace impact::io
