#include "study/checkpoint.hpp"

#include <boost/crc.hpp>
#include <dirent.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <type_traits>

#include "io/out_file.hpp"

namespace impact::study {

namespace {

static_assert(std::is_trivially_copyable_v<BatchSummary>, "a summary is stored as its bytes");
constexpr char kMagic[] = "impact-chunk 1\n";

std::uint32_t crc32(const std::string& bytes) {
  boost::crc_32_type c;
  c.process_bytes(bytes.data(), bytes.size());
  return c.checksum();
}

std::string body(const std::string& key, std::uint64_t k, const BatchSummary& s) {
  std::string b = kMagic + key + "\n" + std::to_string(k) + "\n";
  b.append(reinterpret_cast<const char*>(&s), sizeof s);
  return b;
}

}  // namespace

Checkpoint::Checkpoint(std::string dir, std::string key) : dir_(std::move(dir)), key_(std::move(key)) {
  io::make_dirs(dir_, "--checkpoint");
}

std::string Checkpoint::path(std::uint64_t k) const { return dir_ + "/chunk-" + std::to_string(k) + ".sum"; }

bool Checkpoint::load(std::uint64_t k, BatchSummary& s) {
  std::ifstream f(path(k), std::ios::binary);
  if (!f) return false;
  const std::string all((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const std::string want = body(key_, k, BatchSummary{});
  std::uint32_t stored = 0;
  bool ok = all.size() == want.size() + sizeof stored;
  if (ok) {
    std::memcpy(&stored, all.data() + want.size(), sizeof stored);
    const std::string head = want.substr(0, want.size() - sizeof(BatchSummary));
    ok = all.compare(0, head.size(), head) == 0 && crc32(all.substr(0, want.size())) == stored;
  }
  if (!ok) {
    ++corrupt_;
    return false;
  }
  std::memcpy(&s, all.data() + want.size() - sizeof(BatchSummary), sizeof s);
  ++loaded_;
  return true;
}

void Checkpoint::save(std::uint64_t k, const BatchSummary& s) const {
  std::string b = body(key_, k, s);
  const std::uint32_t c = crc32(b);
  b.append(reinterpret_cast<const char*>(&c), sizeof c);
  io::OutFile f(path(k));
  f.put(b);
  f.commit();
}

bool Checkpoint::has_chunks() const {
  DIR* d = opendir(dir_.c_str());
  if (!d) return false;
  bool any = false;
  for (dirent* e; !any && (e = readdir(d));) any = std::strncmp(e->d_name, "chunk-", 6) == 0;
  closedir(d);
  return any;
}

}  // namespace impact::study
