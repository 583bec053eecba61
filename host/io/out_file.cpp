#include "io/out_file.hpp"

#include "io/folder_names.hpp"

#include <filesystem>
#include <functional>

#include <dirent.h>
#include <fcntl.h>
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
      struct sigaction old {};
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
  struct stat sa {
  }, sb{};
  if (a == "-" || b == "-" || stat(a.c_str(), &sa) != 0 || stat(b.c_str(), &sb) != 0) return false;
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino && S_ISREG(sa.st_mode);
}

std::string destination(const std::string& path) {
  namespace fs = std::filesystem;
  if (path == "-" || path.empty()) return path;
  std::error_code ec;
  fs::path p = fs::absolute(path, ec);
  if (ec) return path;
  // at most as many links as the system follows in one path (Linux: 40); a longer chain fails to open
  for (int hop = 0; hop < 40; ++hop) {
    const fs::path name = p.filename();
    // the folder as the system resolves it: its links first, then "..", so "link/../x" is the
    // folder above the link's target (weakly_canonical: the existing part resolved, the rest lexical)
    const fs::path folder = fs::weakly_canonical(p.parent_path(), ec);
    if (ec || name.empty() || name == "." || name == "..") return fs::weakly_canonical(p, ec).string();
    const fs::path at = folder / name;
    struct stat st {};
    if (::lstat(at.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return at.string();
    const fs::path to = fs::read_symlink(at, ec);
    if (ec) return at.string();
    p = to.is_absolute() ? to : folder / to;
  }
  return p.string();
}

bool same_destination(const std::string& a, const std::string& b) {
  if (a == b) return true;
  // "-" is standard output, which /dev/stdout and /dev/fd/1 name too (links the system resolves)
  const std::string x = a == "-" ? "/dev/stdout" : a, y = b == "-" ? "/dev/stdout" : b;
  return same_file(x, y) || destination(x) == destination(y);
}

bool parse_temporary(const std::string& entry, std::string& stem, long& pid) {
  const auto digits = [&](std::size_t from, std::size_t to) {
    if (from >= to || to - from > 18) return false;
    for (std::size_t i = from; i < to; ++i)
      if (entry[i] < '0' || entry[i] > '9') return false;
    return true;
  };
  const std::size_t tmp = entry.rfind(".tmp-");
  if (entry.size() < 2 || entry[0] != '.' || tmp == std::string::npos || tmp < 2) return false;
  const std::size_t dash = entry.find('-', tmp + 5);
  if (dash == std::string::npos || !digits(tmp + 5, dash) || !digits(dash + 1, entry.size())) return false;
  stem = entry.substr(1, tmp - 1);
  pid = std::strtol(entry.c_str() + tmp + 5, nullptr, 10);
  return true;
}

bool process_alive(long pid) {
  if (pid <= 0) return true;  // no process of its own: a group or every process, never "dead"
  if (pid == static_cast<long>(getpid())) return true;
  return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH;
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

void OutFile::open(const std::string& path, Links links) {
  discard();
  path_ = path;
  to_stdout_ = path == "-";
  if (to_stdout_) {  // spooled: nothing reaches stdout before commit()
    tmp_.clear();
    f_ = std::tmpfile();
    if (!f_) throw std::runtime_error("standard output: cannot create the spool file: " + std::string(std::strerror(errno)));
    return;
  }
  std::string target = path;
  struct stat st {};
  if (links == Links::follow) {
    // a device, a FIFO or a link to one is written in place (a rename would replace it); any other
    // name is written where it leads (a link's target, existing or not)
    target = stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) ? std::string() : destination(path);
  } else {
    // a file or a link of that name is replaced (the link itself, never its target); anything else
    // there (a folder, a device, a FIFO) is no file of a run's and stays; a folder that is a link
    // would take the file outside the run's folder
    if (::lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
      throw std::runtime_error(path +
                               ": cannot open for writing: " + (S_ISDIR(st.st_mode) ? "a folder" : "a device, FIFO or socket") +
                               " of that name is there (a run replaces only files and links)");
    const std::size_t slash = path.rfind('/');
    const std::string folder = folder_entry(slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash));
    if (::lstat(folder.c_str(), &st) == 0 && S_ISLNK(st.st_mode))
      throw std::runtime_error(path + ": cannot open for writing: its folder " + folder +
                               " is a link (a run writes into real folders only, never through a link)");
  }
  final_ = target;
  tmp_.clear();
  int err = 0;
  if (target.empty()) {
    f_ = std::fopen(path.c_str(), "wb");
    err = errno;
  }
  // a new file of a name no one else uses, never an existing one or a link planted there (a name
  // left by a dead process of the same id is passed over)
  for (int tries = 0; !target.empty() && !f_ && tries < 64; ++tries) {
    tmp_ = temp_name(target);
    slot_ = register_temporary(tmp_);
    const int fd = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    err = errno;
    f_ = fd < 0 ? nullptr : ::fdopen(fd, "wb");
    if (f_) break;
    if (fd >= 0) {
      err = errno;
      ::close(fd);
      ::unlink(tmp_.c_str());
    }
    unregister_temporary(std::exchange(slot_, -1));
    if (err != EEXIST) break;
  }
  if (!f_) {
    tmp_.clear();
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

void OutFile::flush() {
  if (f_ && !to_stdout_ && (std::fflush(f_) != 0 || std::ferror(f_) != 0)) fail("write failed");
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

void write_file(const std::string& path, const std::string& text, Links links) {
  OutFile f(path, links);
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
  if (unlink(path.c_str()) != 0 && errno != ENOENT) throw std::runtime_error(path + ": cannot remove: " + std::strerror(errno));
}

std::vector<std::string> remove_stale_writes(const std::string& path) {
  std::vector<std::string> removed;
  if (path.empty() || path == "-") return removed;
  const std::size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  // .NAME.tmp-PID-N and the shares' .NAME.partR.tmp-PID-N, of processes that have ended: the
  // temporaries' names say whose they are; a share NAME.partR (a committed file) says nothing of its
  // run and is left (the next run over several processes replaces its own shares, and removes them
  // once merged)
  const std::string share = base + ".part";
  // OUT, a share OUT.partR, or a share's own name (.OUT.partR.tmp-PID-0, eval under mpirun) whose
  // OutFile left its temporary of it
  const std::function<bool(const std::string&, int)> ours = [&](const std::string& stem, int depth) {
    if (stem == base) return true;
    std::string inner;
    long pid = 0;
    if (depth == 0 && parse_temporary(stem, inner, pid)) return ours(inner, 1);
    if (stem.compare(0, share.size(), share) != 0 || stem.size() == share.size()) return false;
    return stem.find_first_not_of("0123456789", share.size()) == std::string::npos;
  };
  DIR* d = ::opendir(dir.c_str());
  if (!d) return removed;
  std::vector<std::string> names;
  for (dirent* e; (e = ::readdir(d));) names.emplace_back(e->d_name);
  ::closedir(d);
  for (const std::string& n : names) {
    std::string stem;
    long pid = 0;
    if (!parse_temporary(n, stem, pid) || !ours(stem, 0) || process_alive(pid)) continue;
    if (::unlinkat(AT_FDCWD, (dir + "/" + n).c_str(), 0) != 0 && errno != ENOENT)
      throw std::runtime_error(dir + "/" + n + ": cannot remove: " + std::strerror(errno));
    removed.push_back(n);
  }
  return removed;
}

}  // namespace impact::io
