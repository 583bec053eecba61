#include "io/checksum.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <sys/stat.h>
#include <vector>
#include <zlib.h>

namespace impact::io {

void Crc32::add(const void* data, std::size_t n) {
  const auto* p = static_cast<const Bytef*>(data);
  while (n > 0) {  // zlib takes at most a uInt at a time
    const uInt k = n > (1u << 30) ? (1u << 30) : static_cast<uInt>(n);
    crc_ = static_cast<std::uint32_t>(crc32(crc_, p, k));
    p += k;
    n -= k;
  }
}

FileSum file_sum(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw std::runtime_error(path + ": cannot read: " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) throw std::runtime_error(path + ": not a regular file");
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) throw std::runtime_error(path + ": cannot read: " + std::strerror(errno));
  FileSum s;
  Crc32 c;
  std::vector<char> buf(1 << 20);
  for (std::size_t got; (got = std::fread(buf.data(), 1, buf.size(), f.get())) > 0;) {
    c.add(buf.data(), got);
    s.bytes += got;
  }
  if (std::ferror(f.get())) throw std::runtime_error(path + ": read error");
  s.crc32 = c.value();
  return s;
}

std::string crc_hex(std::uint32_t crc) {
  char b[16];
  std::snprintf(b, sizeof b, "%08x", crc);
  return b;
}

}  // namespace impact::io
