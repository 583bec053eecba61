// The imported design reader (design::make_design with design.kind = imported: a SALib/Chaospy
// sample matrix, optional header, whitespace or commas) on a file of fuzzed content. The file is
// an in-memory file (memfd) opened through /proc/self/fd, so the reader's own fopen path runs.
//
//   byte 0: bits 0-1: the number of varied parameters d - 1 (names mu, e, v_n, theta);
//           bit 2: a memory limit of 4 KiB (else 64 MiB): the "at most N rows" path
//   the rest: the file
//
// Findings: any exception but std::invalid_argument (the documented error: "design.file:
// FILE:LINE:COL: ..."), a crash or a sanitizer report, a design of no rows or with a non-finite
// value (the reader takes finite numbers only), or rows beyond the memory limit.
#include <sys/mman.h>
#include <unistd.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "fuzz_common.hpp"
#include "design/design.hpp"

namespace {

// One memfd for the process, rewritten for every input.
const std::string& memfile(const std::string& content) {
  static int fd = -1;
  static std::string path;
  if (fd < 0) {
    fd = memfd_create("fuzz_design", 0);
    if (fd < 0) impact::fuzz::fuzz_fail("memfd_create failed");
    path = "/proc/self/fd/" + std::to_string(fd);
  }
  if (ftruncate(fd, 0) != 0) impact::fuzz::fuzz_fail("ftruncate failed");
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t w = pwrite(fd, content.data() + done, content.size() - done, static_cast<off_t>(done));
    if (w <= 0) impact::fuzz::fuzz_fail("pwrite failed");
    done += static_cast<std::size_t>(w);
  }
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace impact;
  fuzz::Bytes in(data, size);
  const std::uint8_t flags = in.u8();
  const std::size_t d = 1 + (flags & 3);
  const double memory_limit = (flags & 4) ? 4096.0 : double(64 << 20);
  const char* names[] = {"mu", "e", "v_n", "theta"};
  std::vector<design::ParamSpec> specs;
  for (std::size_t k = 0; k < d; ++k) {
    design::ParamSpec p;
    p.name = names[k];
    p.kind = design::ParamKind::uniform;
    p.a = 0;
    p.b = 1;
    specs.push_back(p);
  }
  design::DesignSpec spec;
  spec.kind = design::DesignKind::imported;
  spec.file = memfile(in.rest());
  std::unique_ptr<design::Design> design;
  try {
    design = design::make_design(specs, spec, memory_limit);
  } catch (const std::invalid_argument&) {
    return 0;  // the documented error of a bad sample file
  } catch (const std::exception& e) { fuzz::unexpected_exception("design", e); }
  const std::size_t rows = design->rows();
  if (rows == 0) fuzz::fuzz_fail("an imported design of no rows");
  if (design->names().size() != d) fuzz::fuzz_fail("%zu columns for %zu parameters", design->names().size(), d);
  if (double(rows) * double(d) * 8.0 > memory_limit && rows > 1)
    fuzz::fuzz_fail("%zu rows x %zu values beyond the memory limit %g", rows, d, memory_limit);
  std::vector<double> out(rows * d);
  design->fill(0, rows, out.data());
  for (double v : out)
    if (!std::isfinite(v)) fuzz::fuzz_fail("a non-finite value %g in an imported design", v);
  return 0;
}
