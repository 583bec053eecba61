#include "io/out_file.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <utility>

namespace impact::io {

namespace {

// A temporary name beside `path`: same folder (so that rename() is atomic), hidden, unique per
// process and file.
std::string temp_name(const std::string& path) {
  static std::atomic<unsigned> counter{0};
  const std::size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  return dir + "." + base + ".tmp-" + std::to_string(getpid()) + "-" + std::to_string(counter++);
}

}  // namespace

OutFile::OutFile(OutFile&& o) noexcept
    : f_(std::exchange(o.f_, nullptr)), path_(std::move(o.path_)), tmp_(std::move(o.tmp_)), final_(std::move(o.final_)) {}

OutFile& OutFile::operator=(OutFile&& o) noexcept {
  std::swap(f_, o.f_);
  std::swap(path_, o.path_);
  std::swap(tmp_, o.tmp_);
  std::swap(final_, o.final_);
  return *this;
}

OutFile::~OutFile() { discard(); }

void OutFile::discard() noexcept {
  if (!f_) return;
  if (f_ != stdout) {
    std::fclose(f_);
    if (!tmp_.empty()) std::remove(tmp_.c_str());
  }
  f_ = nullptr;
}

void OutFile::open(const std::string& path) {
  discard();
  path_ = path;
  if (path == "-") {
    tmp_.clear();
    f_ = stdout;
    return;
  }
  // a device, a FIFO or a link to one is written in place (a rename would replace it); a link to
  // a regular file is replaced through its target
  std::string target = path;
  struct stat st{};
  if (stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    target.clear();
  } else if (char* real = realpath(path.c_str(), nullptr)) {
    target = real;
    std::free(real);
  }
  tmp_ = target.empty() ? std::string() : temp_name(target);
  final_ = target;
  f_ = std::fopen(target.empty() ? path.c_str() : tmp_.c_str(), "wb");
  if (!f_) throw std::runtime_error(path + ": cannot open for writing: " + std::strerror(errno));
}

void OutFile::fail(const char* what) {
  const int err = errno;
  discard();
  throw std::runtime_error(path_ + ": " + what + ": " + std::strerror(err));
}

void OutFile::put(const void* data, std::size_t n) {
  if (n && std::fwrite(data, 1, n, f_) != n) fail("write failed");
}

void OutFile::commit() {
  if (!f_) return;
  if (f_ == stdout) {
    f_ = nullptr;
    if (std::fflush(stdout) != 0 || std::ferror(stdout)) throw std::runtime_error(path_ + ": write failed");
    return;
  }
  std::FILE* f = std::exchange(f_, nullptr);
  const bool bad = std::fflush(f) != 0 || std::ferror(f) != 0;
  const int err = errno;
  if (std::fclose(f) != 0 || bad) {
    if (!tmp_.empty()) std::remove(tmp_.c_str());
    throw std::runtime_error(path_ + ": write failed: " + std::strerror(bad ? err : errno));
  }
  if (tmp_.empty()) return;  // written in place
  if (std::rename(tmp_.c_str(), final_.c_str()) != 0) {
    const int rerr = errno;
    std::remove(tmp_.c_str());
    throw std::runtime_error(path_ + ": cannot move the finished file into place: " + std::strerror(rerr));
  }
}

void write_file(const std::string& path, const std::string& text) {
  OutFile f(path);
  f.put(text);
  f.commit();
}

void make_dirs(const std::string& path, const std::string& what) {
  std::string cur;
  for (std::size_t i = 0; i <= path.size(); ++i) {
    if (i == path.size() || path[i] == '/') {
      if (!cur.empty() && cur != "." && cur != "..") {
        if (mkdir(cur.c_str(), 0777) != 0 && errno != EEXIST)
          throw std::runtime_error(what + ": " + cur + ": cannot create the folder: " + std::strerror(errno));
      }
    }
    if (i < path.size()) cur += path[i];
  }
}

}  // namespace impact::io
