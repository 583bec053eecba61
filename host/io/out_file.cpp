#include "io/out_file.hpp"

#include <filesystem>

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
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

// The temporary files alive in this process, so that SIGINT, SIGTERM, SIGHUP and SIGPIPE remove
// them before the process ends (a killed run leaves neither a partial table nor its temporary;
// SIGKILL cannot be caught: then the hidden temporary stays, the target is still untouched).
// Fixed storage and atomics only: the handler may run at any point.
constexpr int kSlots = 256;
constexpr std::size_t kPathMax = 4096;
char g_paths[kSlots][kPathMax];
std::atomic<int> g_state[kSlots];  // 0 free, 1 being written, 2 a live temporary
std::atomic<bool> g_handlers{false};

extern "C" void remove_temporaries(int sig) {
  for (int i = 0; i < kSlots; ++i)
    if (g_state[i].load(std::memory_order_acquire) == 2) ::unlink(g_paths[i]);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

int register_temporary(const std::string& path) {
  if (!g_handlers.exchange(true))
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) {
      struct sigaction old{};
      sigaction(sig, nullptr, &old);
      if (old.sa_handler == SIG_DFL) std::signal(sig, remove_temporaries);  // an ignored signal stays ignored
    }
  if (path.size() >= kPathMax) return -1;
  for (int i = 0; i < kSlots; ++i) {
    int expected = 0;
    if (g_state[i].compare_exchange_strong(expected, 1)) {
      std::memcpy(g_paths[i], path.c_str(), path.size() + 1);
      g_state[i].store(2, std::memory_order_release);
      return i;
    }
  }
  return -1;  // more than kSlots files open at once: this one is not removed on a signal
}

void unregister_temporary(int slot) {
  if (slot >= 0) g_state[slot].store(0, std::memory_order_release);
}

}  // namespace

bool same_file(const std::string& a, const std::string& b) {
  struct stat sa{}, sb{};
  if (a == "-" || b == "-" || stat(a.c_str(), &sa) != 0 || stat(b.c_str(), &sb) != 0) return false;
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino && S_ISREG(sa.st_mode);
}

bool same_destination(const std::string& a, const std::string& b) {
  if (a == "-" || b == "-") return a == b;
  if (same_file(a, b)) return true;
  std::error_code ea, eb;
  const std::filesystem::path pa = std::filesystem::weakly_canonical(a, ea), pb = std::filesystem::weakly_canonical(b, eb);
  return !ea && !eb && pa == pb;
}

OutFile::OutFile(OutFile&& o) noexcept
    : f_(std::exchange(o.f_, nullptr)),
      to_stdout_(o.to_stdout_),
      slot_(std::exchange(o.slot_, -1)),
      path_(std::move(o.path_)),
      tmp_(std::move(o.tmp_)),
      final_(std::move(o.final_)) {}

OutFile& OutFile::operator=(OutFile&& o) noexcept {
  std::swap(f_, o.f_);
  std::swap(to_stdout_, o.to_stdout_);
  std::swap(slot_, o.slot_);
  std::swap(path_, o.path_);
  std::swap(tmp_, o.tmp_);
  std::swap(final_, o.final_);
  return *this;
}

OutFile::~OutFile() { discard(); }

void OutFile::discard() noexcept {
  if (!f_) return;
  std::fclose(f_);
  if (!tmp_.empty()) std::remove(tmp_.c_str());
  unregister_temporary(std::exchange(slot_, -1));
  f_ = nullptr;
}

void OutFile::open(const std::string& path) {
  discard();
  path_ = path;
  to_stdout_ = path == "-";
  if (to_stdout_) {  // spooled: nothing reaches stdout before commit()
    tmp_.clear();
    f_ = std::tmpfile();
    if (!f_) throw std::runtime_error("standard output: cannot create the spool file: " + std::string(std::strerror(errno)));
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
  if (!tmp_.empty()) slot_ = register_temporary(tmp_);
  f_ = std::fopen(target.empty() ? path.c_str() : tmp_.c_str(), "wb");
  if (!f_) {
    const int err = errno;
    unregister_temporary(std::exchange(slot_, -1));
    throw std::runtime_error(path + ": cannot open for writing: " + std::strerror(err));
  }
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
  if (to_stdout_) {  // the spool, copied to stdout now that it is complete
    std::FILE* f = std::exchange(f_, nullptr);
    bool bad = std::fflush(f) != 0 || std::ferror(f) != 0 || std::fseek(f, 0, SEEK_SET) != 0;
    const char* what = "the spool file";
    char buf[1 << 16];
    while (!bad) {
      const std::size_t n = std::fread(buf, 1, sizeof buf, f);
      if (n && std::fwrite(buf, 1, n, stdout) != n) {
        bad = true;
        what = "standard output";
      }
      if (n < sizeof buf) {
        bad = bad || std::ferror(f) != 0;
        break;
      }
    }
    const int err = errno;
    std::fclose(f);
    if (!bad && (std::fflush(stdout) != 0 || std::ferror(stdout))) {
      bad = true;
      what = "standard output";
    }
    if (bad) throw std::runtime_error(std::string(what) + ": write failed: " + std::strerror(errno ? errno : err));
    return;
  }
  std::FILE* f = std::exchange(f_, nullptr);
  const bool bad = std::fflush(f) != 0 || std::ferror(f) != 0;
  const int err = errno;
  const int slot = std::exchange(slot_, -1);
  if (std::fclose(f) != 0 || bad) {
    const int cerr = errno;
    if (!tmp_.empty()) std::remove(tmp_.c_str());
    unregister_temporary(slot);
    throw std::runtime_error(path_ + ": write failed: " + std::strerror(bad ? err : cerr));
  }
  if (tmp_.empty()) return;  // written in place
  const bool moved = std::rename(tmp_.c_str(), final_.c_str()) == 0;
  const int rerr = errno;
  if (!moved) std::remove(tmp_.c_str());
  unregister_temporary(slot);
  if (!moved) throw std::runtime_error(path_ + ": cannot move the finished file into place: " + std::strerror(rerr));
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

void remove_if_exists(const std::string& path) {
  if (unlink(path.c_str()) != 0 && errno != ENOENT)
    throw std::runtime_error(path + ": cannot remove: " + std::strerror(errno));
}

std::vector<std::string> remove_stale_writes(const std::string& path) {
  std::vector<std::string> removed;
  if (path.empty() || path == "-") return removed;
  const std::size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  // NAME.partR, .NAME.tmp-PID-N, .NAME.partR.tmp-PID-N
  const auto digits = [](const std::string& s, std::size_t from, std::size_t to) {
    if (from >= to) return false;
    for (std::size_t i = from; i < to; ++i)
      if (s[i] < '0' || s[i] > '9') return false;
    return true;
  };
  const auto dead_temporary = [&](const std::string& name, const std::string& stem) {  // ".STEM.tmp-PID-N"
    const std::string head = "." + stem + ".tmp-";
    if (name.compare(0, head.size(), head) != 0) return false;
    const std::size_t dash = name.find('-', head.size());
    if (dash == std::string::npos || !digits(name, head.size(), dash) || !digits(name, dash + 1, name.size()))
      return false;
    const long pid = std::strtol(name.c_str() + head.size(), nullptr, 10);
    return pid != static_cast<long>(getpid()) && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
  };
  DIR* d = ::opendir(dir.c_str());
  if (!d) return removed;
  std::vector<std::string> names;
  for (dirent* e; (e = ::readdir(d));) names.emplace_back(e->d_name);
  ::closedir(d);
  const std::string share = base + ".part";
  for (const std::string& n : names) {
    bool stale = dead_temporary(n, base);
    if (!stale && n.compare(0, share.size(), share) == 0) stale = digits(n, share.size(), n.size());
    if (!stale && n.size() > share.size() + 1 && n[0] == '.' && n.compare(1, share.size(), share) == 0) {
      const std::size_t dot = n.find('.', share.size() + 1);
      stale = dot != std::string::npos && digits(n, share.size() + 1, dot) && dead_temporary(n, n.substr(1, dot - 1));
    }
    if (!stale) continue;
    remove_if_exists(dir + "/" + n);
    removed.push_back(n);
  }
  return removed;
}

}  // namespace impact::io
