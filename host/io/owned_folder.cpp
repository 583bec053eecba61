#include "io/owned_folder.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>

#include "io/out_file.hpp"

namespace impact::io {

namespace {

constexpr const char* kSalib = "salib";
constexpr std::size_t kManifestMax = std::size_t(1) << 24;  // bytes: a manifest of a million names

// A descriptor closed at the end of its scope.
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  Fd(Fd&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  Fd& operator=(Fd&& o) noexcept {
    std::swap(fd_, o.fd_);
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }

 private:
  int fd_;
};

bool plain_name(const std::string& n) {
  if (n.empty() || n == "." || n == ".." || n == kFolderManifest) return false;
  for (unsigned char c : n)
    if (c == '/' || c < 0x20 || c == 0x7f) return false;
  return true;
}

// An entry of the folder (or of its salib/), as lstat sees it.
struct Entry {
  std::string name;  // relative to the folder: "x.csv", "salib/x.txt"
  mode_t mode = 0;
  bool link() const { return S_ISLNK(mode); }
  bool folder() const { return S_ISDIR(mode); }
};

std::vector<Entry> list(int dirfd, const std::string& prefix, const std::string& path) {
  const int dup = ::fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
  DIR* d = dup < 0 ? nullptr : ::fdopendir(dup);
  if (!d) {
    if (dup >= 0) ::close(dup);
    throw std::runtime_error(path + ": cannot list the folder: " + std::strerror(errno));
  }
  std::vector<Entry> v;
  for (dirent* e; (e = ::readdir(d));) {
    const std::string n = e->d_name;
    if (n == "." || n == "..") continue;
    struct stat st{};
    Entry x;
    x.name = prefix + n;
    x.mode = ::fstatat(dirfd, n.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 ? st.st_mode : 0;
    v.push_back(std::move(x));
  }
  ::closedir(d);
  std::sort(v.begin(), v.end(), [](const Entry& a, const Entry& b) { return a.name < b.name; });
  return v;
}

// The folder's manifest as found: absent, of a kind with its names, or not one impactbatch wrote.
struct Manifest {
  bool present = false;  // an entry of the manifest's name is there
  bool valid = false;
  std::string kind;
  std::vector<std::string> files;
  std::string why;  // !valid: what is wrong
};

Manifest read_manifest(int dirfd, const std::string& path) {
  Manifest m;
  struct stat st{};
  if (::fstatat(dirfd, kFolderManifest, &st, AT_SYMLINK_NOFOLLOW) != 0) return m;
  m.present = true;
  if (!S_ISREG(st.st_mode)) {
    m.why = path + " is not a regular file (a link, a folder or a device is no manifest of a run)";
    return m;
  }
  if (static_cast<std::size_t>(st.st_size) > kManifestMax) {
    m.why = path + " is larger than any manifest of a run";
    return m;
  }
  Fd fd(::openat(dirfd, kFolderManifest, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  std::string text;
  if (fd) {
    char buf[1 << 16];
    for (ssize_t got; (got = ::read(fd.get(), buf, sizeof buf)) > 0 && text.size() <= kManifestMax;)
      text.append(buf, static_cast<std::size_t>(got));
  }
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  const int version = j.is_object() && j.contains("impactbatch_outputs") && j["impactbatch_outputs"].is_number_integer()
                          ? j["impactbatch_outputs"].get<int>()
                          : 0;
  if (!fd || version < 1 || version > 2 || !j.contains("files") || !j["files"].is_array()) {
    m.why = path + " is not a manifest of impactbatch's outputs";
    return m;
  }
  for (const nlohmann::json& f : j["files"]) {
    if (!f.is_string() || !owned_name(f.get<std::string>())) {
      m.why = path + " lists " + (f.is_string() ? "'" + f.get<std::string>() + "'" : f.dump()) +
              ", which is no file of the folder or of its salib/ (a manifest lists plain names and salib/NAME "
              "only): impactbatch did not write it";
      return m;
    }
    m.files.push_back(f.get<std::string>());
  }
  if (version == 2) {
    if (!j.contains("kind") || !j["kind"].is_string()) {
      m.why = path + " says of no kind of run";
      return m;
    }
    m.kind = j["kind"].get<std::string>();
  } else {  // the first manifests, written by studies and calibrations before kinds: a study's lists parts.json
    m.kind = std::find(m.files.begin(), m.files.end(), "parts.json") != m.files.end() ? "study" : "calibration";
  }
  m.valid = true;
  return m;
}

std::string article(const std::string& kind) {
  return (!kind.empty() && std::strchr("aeiou", kind[0]) ? "an " : "a ") + kind;
}

std::string some(const std::vector<std::string>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size() && i < 3; ++i) s += (i ? ", " : "") + v[i];
  if (v.size() > 3) s += ", ...";
  return s;
}

std::string base_name(const std::string& rel) {
  const std::size_t s = rel.rfind('/');
  return s == std::string::npos ? rel : rel.substr(s + 1);
}
std::string sub_of(const std::string& rel) {
  const std::size_t s = rel.rfind('/');
  return s == std::string::npos ? std::string() : rel.substr(0, s + 1);
}

// The entry `e` is a dead temporary (.NAME.tmp-PID-N) of one of `names` (same subfolder); `live`
// receives the pid when the process still runs.
bool temporary_of(const std::string& e, const std::set<std::string>& names, long& live) {
  std::string stem;
  long pid = 0;
  live = 0;
  if (!parse_temporary(base_name(e), stem, pid) || !names.count(sub_of(e) + stem)) return false;
  if (process_alive(pid)) {
    live = pid;
    return false;
  }
  return true;
}

void remove_entry(int dirfd, int salibfd, const std::string& dir, const std::string& e) {
  const bool in_salib = e.compare(0, 6, "salib/") == 0;
  const int fd = in_salib ? salibfd : dirfd;
  if (fd < 0) return;
  if (::unlinkat(fd, base_name(e).c_str(), 0) != 0 && errno != ENOENT)
    throw std::runtime_error(dir + "/" + e + ": cannot remove: " + std::strerror(errno));
}

}  // namespace

bool owned_name(const std::string& name) {
  if (name.compare(0, 6, "salib/") == 0) return plain_name(name.substr(6));
  return plain_name(name);
}

bool usable_folder_name(const std::string& dir) {
  return dir.find_first_not_of(" \t\r\n\f\v") != std::string::npos && dir.find('\0') == std::string::npos;
}

void check_folder_name(const std::string& dir, const std::string& what) {
  if (!usable_folder_name(dir)) throw std::invalid_argument(what + ": " + kEmptyFolderName);
}

namespace {
// Where part_file_name() puts the tag: before the extension of the last path element.
std::size_t tag_at(const std::string& name) {
  const std::size_t slash = name.rfind('/'), dot = name.rfind('.');
  return dot == std::string::npos || (slash != std::string::npos && dot < slash) ? name.size() : dot;
}
}  // namespace

std::string part_file_name(const std::string& name, int part) {
  char tag[32];
  std::snprintf(tag, sizeof tag, ".part-%05d", part);
  const std::size_t at = tag_at(name);
  return name.substr(0, at) + tag + name.substr(at);
}

int part_index(const std::string& entry, const std::string& name) {
  const std::size_t at = tag_at(name);
  const std::string head = name.substr(0, at) + ".part-", tail = name.substr(at);
  if (entry.size() < head.size() + 5 + tail.size() || entry.compare(0, head.size(), head) != 0 ||
      entry.compare(entry.size() - tail.size(), tail.size(), tail) != 0)
    return -1;
  const std::string digits = entry.substr(head.size(), entry.size() - head.size() - tail.size());
  if (digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) return -1;
  const int k = std::stoi(digits);
  return part_file_name(name, k) == entry ? k : -1;
}

std::string folder_entry(const std::string& path) {
  // "out/", "out/.", "out//./" name the entry "out": lstat of a spelling with a trailing '/' or "."
  // would look through a link of that name (".." is left: it names no link)
  std::string p = path;
  for (bool more = true; more;) {
    more = false;
    while (p.size() > 1 && p.back() == '/') p.pop_back(), more = true;
    if (p.size() > 2 && p.compare(p.size() - 2, 2, "/.") == 0) p.resize(p.size() - 2), more = true;
  }
  return p.empty() ? "." : p;
}

void check_real_folder(const std::string& spelled, const std::string& what) {
  const std::string path = folder_entry(spelled);
  struct stat st{};
  if (::lstat(path.c_str(), &st) != 0) return;
  if (S_ISLNK(st.st_mode)) {
    std::error_code ec;
    const std::string to = std::filesystem::read_symlink(path, ec).string();
    throw std::invalid_argument(what + ": " + path + " is a link" + (to.empty() ? "" : " (to " + to + ")") +
                                ": a run writes into a real folder and never through a link; name the folder "
                                "itself");
  }
  if (!S_ISDIR(st.st_mode)) throw std::invalid_argument(what + ": " + path + " exists and is not a folder");
}

std::vector<std::string> manifest_files(const std::string& dir, const std::string& kind, bool& found) {
  found = false;
  Fd fd(::open(folder_entry(dir).c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd) return {};
  Manifest m = read_manifest(fd.get(), dir + "/" + kFolderManifest);
  found = m.valid && m.kind == kind;
  return found ? m.files : std::vector<std::string>{};
}

FolderClaim claim_folder(const FolderRequest& r) {
  check_folder_name(r.dir, r.what);
  for (const std::string& f : r.files)
    if (!owned_name(f)) throw std::invalid_argument(r.what + ": '" + f + "' is no file name of a run's folder");
  const std::string& dir = r.dir;
  make_dirs(dir, r.what);
  check_real_folder(dir, r.what);
  Fd dfd(::open(folder_entry(dir).c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!dfd) {
    check_real_folder(dir, r.what);  // replaced by a link since: say so
    throw std::runtime_error(r.what + ": " + dir + ": cannot open the folder: " + std::strerror(errno));
  }
  const std::set<std::string> mine(r.files.begin(), r.files.end());
  const bool writes_salib = std::any_of(r.files.begin(), r.files.end(), [](const std::string& f) {
    return f.compare(0, 6, "salib/") == 0;
  });
  std::vector<Entry> entries = list(dfd.get(), "", dir);
  Fd sfd;
  for (const Entry& e : entries)
    if (e.name == kSalib && e.folder()) sfd = Fd(::openat(dfd.get(), kSalib, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (sfd) {
    const std::vector<Entry> sub = list(sfd.get(), "salib/", dir + "/salib");
    entries.insert(entries.end(), sub.begin(), sub.end());
  }
  const Manifest m = read_manifest(dfd.get(), dir + "/" + kFolderManifest);
  const bool ours = m.valid && m.kind == r.kind;
  FolderClaim claim;
  if (!ours && !entries.empty()) {
    if (!r.force) {
      const std::string anyway = ": name a new or empty folder, or add --force to write into it anyway (the files of "
                                 "this run's names are replaced, every other file is left as it is)";
      if (m.valid)
        throw std::invalid_argument(r.what + ": " + dir + " holds " + article(m.kind) + "'s outputs (its manifest " +
                                    kFolderManifest + "), not " + article(r.kind) + "'s" + anyway);
      if (m.present) throw std::invalid_argument(r.what + ": " + m.why + anyway);
      std::vector<std::string> names;
      for (const Entry& e : entries)
        if (e.name != kSalib || !sfd) names.push_back(e.name);
      throw std::invalid_argument(r.what + ": " + dir + " holds " + std::to_string(names.size()) + " file(s) that no " +
                                  "impactbatch " + r.kind + " wrote there (" + some(names) + ")" + anyway);
    }
    claim.forced = true;
  }
  // what may go: the earlier manifest's names (ours only), and the dead temporaries of those and of
  // this run's names
  std::set<std::string> listed;
  if (ours) listed.insert(m.files.begin(), m.files.end());
  std::set<std::string> known = listed;
  known.insert(mine.begin(), mine.end());
  std::vector<std::string> gone;
  for (const Entry& e : entries) {
    if (e.name == kFolderManifest) continue;
    if (e.name == kSalib) {
      if (writes_salib && !e.folder())
        throw std::invalid_argument(r.what + ": " + dir + "/salib is " + (e.link() ? "a link" : "not a folder") +
                                    ": this run writes its SALib files there, into a real folder only; remove it or "
                                    "name another folder");
      continue;
    }
    long live = 0;
    const bool dead_temporary = temporary_of(e.name, known, live);
    if (live)
      throw std::invalid_argument(r.what + ": " + dir + ": process " + std::to_string(live) + " is writing " +
                                  sub_of(e.name) + base_name(e.name).substr(1, base_name(e.name).rfind(".tmp-") - 1) +
                                  " there now (its temporary " + e.name + "): wait for it to end, or name another folder");
    if (mine.count(e.name)) {
      if (!S_ISREG(e.mode) && !e.link())
        throw std::invalid_argument(r.what + ": " + dir + "/" + e.name + " is " +
                                    (e.folder() ? "a folder" : "a device, FIFO or socket") +
                                    " where this run writes a file: remove it or name another folder");
      const bool first = std::find(r.removed_first.begin(), r.removed_first.end(), e.name) != r.removed_first.end();
      if (first || e.link()) gone.push_back(e.name);  // a link is replaced, never written through
      continue;
    }
    if (!ours || e.folder()) continue;
    if (listed.count(e.name) || dead_temporary) gone.push_back(e.name);
  }
  for (const std::string& e : gone) {
    remove_entry(dfd.get(), sfd.get(), dir, e);
    claim.removed.push_back(e);
  }
  // salib/ of an earlier run of this kind (its manifest listed files there), left empty, that this
  // run does not use
  const bool listed_salib = std::any_of(listed.begin(), listed.end(), [](const std::string& f) {
    return f.compare(0, 6, "salib/") == 0;
  });
  if (ours && sfd && listed_salib && !writes_salib && list(sfd.get(), "salib/", dir + "/salib").empty())
    ::unlinkat(dfd.get(), kSalib, AT_REMOVEDIR);
  write_manifest(dir, r.kind, r.files);
  return claim;
}

void write_manifest(const std::string& dir, const std::string& kind, const std::vector<std::string>& files) {
  for (const std::string& f : files)
    if (!owned_name(f)) throw std::invalid_argument("'" + f + "' is no file name of a run's folder");
  const nlohmann::json manifest = {
      {"impactbatch_outputs", 2},
      {"kind", kind},
      {"note", "the files an impactbatch " + kind + " writes in this folder; the next " + kind +
                   " run here removes them first, and nothing else (docs/study.md, \"The output folder\")"},
      {"files", files}};
  write_file(dir + "/" + kFolderManifest, manifest.dump(1) + "\n");
}

std::string claim_note(const FolderClaim& claim) {
  if (claim.removed.empty() && !claim.forced) return "";
  std::string s = "output folder: ";
  if (claim.forced) s += "not this kind of run's, written into with --force; ";
  s += std::to_string(claim.removed.size()) + " file(s) of an earlier run removed";
  for (std::size_t i = 0; i < claim.removed.size() && i < 4; ++i) s += (i ? ", " : " (") + claim.removed[i];
  if (claim.removed.size() > 4) s += ", ...";
  if (!claim.removed.empty()) s += ")";
  return s;
}

}  // namespace impact::io
