// NumPy .npy files (format 1.0) of structured records: the header, and little-endian values
// appended to a record buffer.
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "io/out_file.hpp"

namespace impact::io {

// A field: its name, its NumPy type string ("<f8", "<i4", "<u4", "|u1", "<u8") and an optional
// title, NumPy's description of a field (dtype.fields[name][2]; printable ASCII, unique in the file).
struct NpyField {
  std::string name;
  const char* type;
  std::string title;
  NpyField(std::string n, const char* t, std::string ti = {}) : name(std::move(n)), type(t), title(std::move(ti)) {}
};

// Writes the magic, the version and the header dict of `rows` records with these fields (padded
// so that the data start on a 64-byte boundary): format 1.0, or 2.0 when the dict outgrows 1.0's
// 65,535 bytes.
void write_npy_header(OutFile& f, const std::vector<NpyField>& fields, std::uint64_t rows);
// The same with the dict's descr given as text ("[('a', '<f8'), ...]" or "'<f8'").
void write_npy_header(OutFile& f, const std::string& descr, std::uint64_t rows);

// The header of a one-dimensional .npy file (format 1.0 to 3.0) as write_npy_header writes it.
struct NpyHeader {
  std::string descr;       // the dict's descr, as text
  std::uint64_t rows = 0;  // shape (rows,)
  std::size_t bytes = 0;   // magic, version, length and dict: where the data start
};
// Reads it from the start of `f` (std::runtime_error "PATH: not a one-dimensional .npy file: ...").
NpyHeader read_npy_header(std::FILE* f, const std::string& path);

// Appends the bytes of v (the host is little-endian, as the "<" types say).
template <class X>
void put_binary(std::string& buf, X v) {
  char b[sizeof(X)];
  std::memcpy(b, &v, sizeof(X));
  buf.append(b, sizeof(X));
}

}  // namespace impact::io
