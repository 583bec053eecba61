#include "resume/checkpoint.hpp"

#include <boost/crc.hpp>
#include <dirent.h>
#include <sys/stat.h>

#include <cerrno>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <type_traits>

#include "io/out_file.hpp"

namespace impact::resume {

namespace {

static_assert(std::is_trivially_copyable_v<BatchSummary>, "a summary is stored as its bytes");

std::uint32_t crc32(const std::string& bytes) {
  boost::crc_32_type c;
  c.process_bytes(bytes.data(), bytes.size());
  return c.checksum();
}

}  // namespace

Checkpoint::Checkpoint(std::string dir, std::string key, std::string stem)
    : dir_(std::move(dir)), key_(std::move(key)), stem_(std::move(stem)) {
  io::make_dirs(dir_, "--checkpoint");
}

std::string Checkpoint::path(std::uint64_t k) const { return dir_ + "/" + stem_ + "-" + std::to_string(k) + ".sum"; }

// "impact-chunk 1\n" (or piece), the key line, the index line
std::string Checkpoint::head(std::uint64_t k) const {
  return "impact-" + stem_ + " 1\n" + key_ + "\n" + std::to_string(k) + "\n";
}

bool Checkpoint::load_bytes(std::uint64_t k, std::string& bytes, std::size_t size) {
  const std::string p = path(k), h = head(k);
  std::uint32_t stored = 0;
  // the type and size before any byte is read: a link to /dev/zero or a FIFO would never end, a
  // folder has no bytes
  struct stat st {};
  if (::lstat(p.c_str(), &st) != 0) return false;  // no file: the piece was not finished
  if (::stat(p.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
    throw std::runtime_error(p +
                             ": not a regular file (a checkpoint holds only the files impactbatch wrote; "
                             "remove it, or name another --checkpoint folder)");
  const std::uint64_t want = size == kAnySize ? 0 : h.size() + size + sizeof stored;
  if ((size != kAnySize && static_cast<std::uint64_t>(st.st_size) != want) ||
      static_cast<std::uint64_t>(st.st_size) < h.size() + sizeof stored) {
    ++corrupt_;
    return false;
  }
  std::ifstream f(p, std::ios::binary);
  if (!f) throw std::runtime_error(p + ": cannot read: " + std::strerror(errno));
  std::string all(static_cast<std::size_t>(st.st_size), '\0');
  f.read(all.data(), static_cast<std::streamsize>(all.size()));
  if (f.gcount() != static_cast<std::streamsize>(all.size())) all.resize(static_cast<std::size_t>(f.gcount()));
  bool ok = all.size() >= h.size() + sizeof stored && all.compare(0, h.size(), h) == 0 &&
            (size == kAnySize || all.size() == h.size() + size + sizeof stored);
  if (ok) {
    std::memcpy(&stored, all.data() + all.size() - sizeof stored, sizeof stored);
    ok = crc32(all.substr(0, all.size() - sizeof stored)) == stored;
  }
  if (!ok) {
    ++corrupt_;
    return false;
  }
  bytes = all.substr(h.size(), all.size() - h.size() - sizeof stored);
  ++loaded_;
  return true;
}

void Checkpoint::save_bytes(std::uint64_t k, const std::string& bytes) const {
  std::string b = head(k) + bytes;
  const std::uint32_t c = crc32(b);
  b.append(reinterpret_cast<const char*>(&c), sizeof c);
  io::OutFile f(path(k));
  f.put(b);
  f.commit();
}

bool Checkpoint::load(std::uint64_t k, BatchSummary& s) {
  std::string bytes;
  if (!load_bytes(k, bytes, sizeof s)) return false;
  std::memcpy(&s, bytes.data(), sizeof s);
  return true;
}

void Checkpoint::save(std::uint64_t k, const BatchSummary& s) const {
  save_bytes(k, std::string(reinterpret_cast<const char*>(&s), sizeof s));
}

bool Checkpoint::has_chunks() const {
  DIR* d = opendir(dir_.c_str());
  if (!d) return false;
  const std::string prefix = stem_ + "-";
  bool any = false;
  for (dirent* e; !any && (e = readdir(d));) any = std::strncmp(e->d_name, prefix.c_str(), prefix.size()) == 0;
  closedir(d);
  return any;
}

}  // namespace impact::resume
