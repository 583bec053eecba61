// A main() for the harnesses outside libFuzzer (the ordinary g++ build): runs
// LLVMFuzzerTestOneInput once on every file named, and on every file inside every folder named
// (sorted, not recursive). A missing folder is skipped (tests/fuzz/findings/<harness>/ exists
// only once something was found). ctest runs it as fuzz.replay.<harness> over the seed corpus and
// the findings: a finding that is fixed stays a regression test.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace fs = std::filesystem;

static void run_one(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  if (!f) {
    std::fprintf(stderr, "replay: cannot read %s\n", p.c_str());
    std::exit(2);
  }
  const std::vector<char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::fprintf(stderr, "replay: %s (%zu bytes)\n", p.c_str(), bytes.size());
  LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
}

int main(int argc, char** argv) {
  std::size_t n = 0;
  for (int a = 1; a < argc; ++a) {
    const fs::path arg(argv[a]);
    std::error_code ec;
    if (fs::is_directory(arg, ec)) {
      std::vector<fs::path> files;
      for (const auto& e : fs::directory_iterator(arg))
        if (e.is_regular_file() && e.path().filename().string()[0] != '.') files.push_back(e.path());
      std::sort(files.begin(), files.end());
      for (const auto& p : files) run_one(p), ++n;
    } else if (fs::exists(arg, ec)) {
      run_one(arg), ++n;
    } else {
      std::fprintf(stderr, "replay: %s absent, skipped\n", arg.c_str());
    }
  }
  std::printf("replay: %zu input(s), no finding\n", n);
  return 0;
}
