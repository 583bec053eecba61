// Shared by the libFuzzer harnesses of tests/fuzz (docs/testing.md, "Fuzzing"). Each harness
// defines LLVMFuzzerTestOneInput; built with clang's -fsanitize=fuzzer by scripts/fuzz.sh, or
// with replay_main.cpp as a plain program that ctest runs over the seed corpus and the findings
// (fuzz.replay.<harness>).
//
// A finding is a crash, a sanitizer report, a hang (-timeout), or fuzz_fail(): a broken invariant
// or an exception other than the documented error type of the parser under test. fuzz_fail prints
// what broke and aborts, which libFuzzer reports as a crash and saves the input of.
#pragma once
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <typeinfo>

namespace impact::fuzz {

[[noreturn]] inline void fuzz_fail(const char* fmt, ...) {
  std::fprintf(stderr, "\n==== fuzz finding: ");
  va_list ap;
  va_start(ap, fmt);
  std::vfprintf(stderr, fmt, ap);
  va_end(ap);
  std::fprintf(stderr, "\n");
  std::fflush(stderr);
  std::abort();
}

// An exception the parser under test must not let out (std::bad_alloc, nlohmann's, a
// std::out_of_range from .at(), an error type of another layer).
[[noreturn]] inline void unexpected_exception(const char* where, const std::exception& e) {
  fuzz_fail("%s: unexpected exception %s: %s", where, typeid(e).name(), e.what());
}

// Reads the input front to back; past its end every byte reads as 0.
struct Bytes {
  const std::uint8_t* p;
  std::size_t n, i = 0;
  Bytes(const std::uint8_t* data, std::size_t size) : p(data), n(size) {}
  std::uint8_t u8() { return i < n ? p[i++] : 0; }
  std::uint16_t u16() { return static_cast<std::uint16_t>(u8() | (u8() << 8)); }
  double raw_double() {
    std::uint64_t b = 0;
    for (int k = 0; k < 8; ++k) b |= std::uint64_t(u8()) << (8 * k);
    double x;
    std::memcpy(&x, &b, sizeof x);
    return x;
  }
  std::size_t left() const { return i < n ? n - i : 0; }
  std::string rest() {
    std::string s(reinterpret_cast<const char*>(p) + (i < n ? i : n), left());
    i = n;
    return s;
  }
};

}  // namespace impact::fuzz
