#include "io/npy.hpp"

namespace impact::io {

void write_npy_header(OutFile& f, const std::vector<NpyField>& fields, std::uint64_t rows) {
  std::string d = "{'descr': [";
  for (std::size_t i = 0; i < fields.size(); ++i)
    d += (i ? ", " : "") + std::string("('") + fields[i].first + "', '" + fields[i].second + "')";
  d += "], 'fortran_order': False, 'shape': (" + std::to_string(rows) + ",), }";
  const std::size_t pre = 10;  // magic(6) + version(2) + header length(2)
  const std::size_t total = pre + d.size() + 1;
  const std::size_t pad = (64 - total % 64) % 64;
  d.append(pad, ' ');
  d += '\n';
  const unsigned char magic[8] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
  f.put(magic, 8);
  const std::uint16_t len = static_cast<std::uint16_t>(d.size());
  const unsigned char l2[2] = {static_cast<unsigned char>(len & 0xff), static_cast<unsigned char>(len >> 8)};
  f.put(l2, 2);
  f.put(d);
}

}  // namespace impact::io
