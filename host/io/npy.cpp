#include "io/npy.hpp"

#include <stdexcept>

namespace impact::io {

namespace {

// A Python string literal of printable ASCII text (NumPy reads the header with ast.literal_eval).
std::string py_literal(const std::string& s) {
  std::string q = "'";
  for (char c : s) {
    if (c < 0x20 || c > 0x7e) throw std::invalid_argument("an .npy field title must be printable ASCII: " + s);
    if (c == '\\' || c == '\'') q += '\\';
    q += c;
  }
  return q + "'";
}

}  // namespace

void write_npy_header(OutFile& f, const std::vector<NpyField>& fields, std::uint64_t rows) {
  std::string descr = "[";
  for (std::size_t i = 0; i < fields.size(); ++i) {
    const NpyField& x = fields[i];
    const std::string name = x.title.empty() ? py_literal(x.name) : "(" + py_literal(x.title) + ", " + py_literal(x.name) + ")";
    descr += (i ? ", (" : "(") + name + ", '" + x.type + "')";
  }
  write_npy_header(f, descr + "]", rows);
}

void write_npy_header(OutFile& f, const std::string& descr, std::uint64_t rows) {
  std::string d = "{'descr': " + descr + ", 'fortran_order': False, 'shape': (" + std::to_string(rows) + ",), }";
  const bool v2 = d.size() + 64 > 65535;
  const std::size_t pre = v2 ? 12 : 10;  // magic(6) + version(2) + header length(2, or 4 in 2.0)
  const std::size_t total = pre + d.size() + 1;
  const std::size_t pad = (64 - total % 64) % 64;
  d.append(pad, ' ');
  d += '\n';
  const unsigned char magic[8] = {0x93, 'N', 'U', 'M', 'P', 'Y', static_cast<unsigned char>(v2 ? 2 : 1), 0};
  f.put(magic, 8);
  const std::uint32_t len = static_cast<std::uint32_t>(d.size());
  const unsigned char l4[4] = {static_cast<unsigned char>(len & 0xff), static_cast<unsigned char>((len >> 8) & 0xff),
                               static_cast<unsigned char>((len >> 16) & 0xff), static_cast<unsigned char>(len >> 24)};
  f.put(l4, v2 ? 4 : 2);
  f.put(d);
}

NpyHeader read_npy_header(std::FILE* f, const std::string& path) {
  const auto bad = [&](const std::string& why) { return std::runtime_error(path + ": not a one-dimensional .npy file: " + why); };
  unsigned char pre[12];
  if (std::fread(pre, 1, 10, f) != 10 || std::memcmp(pre, "\x93NUMPY", 6) != 0) throw bad("no .npy magic");
  std::size_t len = pre[8] | (std::size_t(pre[9]) << 8), at = 10;
  if (pre[6] >= 2) {  // 4-byte header length
    if (std::fread(pre + 10, 1, 2, f) != 2) throw bad("short header");
    len |= (std::size_t(pre[10]) << 16) | (std::size_t(pre[11]) << 24);
    at = 12;
  } else if (pre[6] != 1) {
    throw bad("unknown version " + std::to_string(pre[6]));
  }
  if (len > (1u << 20)) throw bad("header of " + std::to_string(len) + " bytes");
  std::string d(len, '\0');
  if (std::fread(d.data(), 1, len, f) != len) throw bad("short header");
  NpyHeader h;
  h.bytes = at + len;
  const std::size_t a = d.find("'descr': "), b = d.find(", 'fortran_order': False"), c = d.find("'shape': (");
  if (a == std::string::npos || b == std::string::npos || b < a || c == std::string::npos)
    throw bad("header dict not as written by impactbatch");
  h.descr = d.substr(a + 9, b - a - 9);
  std::size_t i = c + 10;
  if (i >= d.size() || d[i] < '0' || d[i] > '9') throw bad("shape not (rows,)");
  for (; i < d.size() && d[i] >= '0' && d[i] <= '9'; ++i) h.rows = h.rows * 10 + std::uint64_t(d[i] - '0');
  if (d.compare(i, 2, ",)") != 0) throw bad("shape not (rows,)");
  return h;
}

}  // namespace impact::io
