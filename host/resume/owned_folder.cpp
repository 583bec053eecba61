#include "resume/owned_folder.hpp"

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

namespace impact::resume {

using io::check_folder_name;
using io::check_real_folder;
using io::folder_entry;
using io::kFolderManifest;
using io::make_dirs;
using io::owned_name;
using io::parse_temporary;
using io::part_index;
using io::process_alive;
using io::write_file;

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
    struct stat st {};
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
  FolderFiles f;
  std::string why;  // !valid: what is wrong
};

constexpr std::uint64_t kMaxParts = 1u << 30;

Manifest read_manifest(int dirfd, const std::string& path) {
  Manifest m;
  struct stat st {};
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
    m.f.files.push_back(f.get<std::string>());
  }
  if (j.contains("parts")) {  // {"count": K, "of": [tables]}
    const nlohmann::json& p = j["parts"];
    const bool count =
        p.is_object() && p.contains("count") && p["count"].is_number_unsigned() && p["count"].get<std::uint64_t>() <= kMaxParts;
    if (!count || !p.contains("of") || !p["of"].is_array()) {
      m.why = path + " says of parts what no manifest says (" + p.dump() + ")";
      return m;
    }
    m.f.parts = p["count"].get<std::uint64_t>();
    for (const nlohmann::json& t : p["of"]) {
      if (!t.is_string() || !owned_name(t.get<std::string>())) {
        m.why = path + " lists parts of " + t.dump() + ", which is no file of the folder or of its salib/";
        return m;
      }
      m.f.parts_of.push_back(t.get<std::string>());
    }
  }
  if (version == 2) {
    if (!j.contains("kind") || !j["kind"].is_string()) {
      m.why = path + " says of no kind of run";
      return m;
    }
    m.f.kind = j["kind"].get<std::string>();
  } else {  // the first manifests, written by studies and calibrations before kinds: a study's lists parts.json
    m.f.kind = std::find(m.f.files.begin(), m.f.files.end(), "parts.json") != m.f.files.end() ? "study" : "calibration";
  }
  m.valid = true;
  return m;
}

std::string article(const std::string& kind) { return (!kind.empty() && std::strchr("aeiou", kind[0]) ? "an " : "a ") + kind; }

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

// The entry `e` is a dead temporary (.NAME.tmp-PID-N) of a name `known` says is one (same
// subfolder); `live` receives the pid when the process still runs.
template <class Known>
bool temporary_of(const std::string& e, const Known& known, long& live) {
  std::string stem;
  long pid = 0;
  live = 0;
  if (!parse_temporary(base_name(e), stem, pid) || !known(sub_of(e) + stem)) return false;
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

bool FolderFiles::lists(const std::string& name) const {
  if (std::find(files.begin(), files.end(), name) != files.end()) return true;
  for (const std::string& t : parts_of)
    if (const int k = part_index(name, t); k >= 0 && static_cast<std::uint64_t>(k) < parts) return true;
  return false;
}

FolderFiles manifest_files(const std::string& dir, const std::string& kind, bool& found) {
  found = false;
  Fd fd(::open(folder_entry(dir).c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd) return {};
  Manifest m = read_manifest(fd.get(), dir + "/" + kFolderManifest);
  found = m.valid && m.f.kind == kind;
  return found ? m.f : FolderFiles{};
}

FolderClaim claim_folder(const FolderRequest& r) {
  check_folder_name(r.dir, r.what);
  for (const std::string& f : r.files)
    if (!owned_name(f)) throw std::invalid_argument(r.what + ": '" + f + "' is no file name of a run's folder");
  const std::string& dir = r.dir;
  check_real_folder(dir, r.what);  // before anything is made along the spelling
  make_dirs(dir, r.what);
  check_real_folder(dir, r.what);
  Fd dfd(::open(folder_entry(dir).c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!dfd) {
    check_real_folder(dir, r.what);  // replaced by a link since: say so
    throw std::runtime_error(r.what + ": " + dir + ": cannot open the folder: " + std::strerror(errno));
  }
  const FolderFiles run{r.kind, r.files, r.parts_of, r.parts};
  for (const std::string& t : r.parts_of)
    if (!owned_name(t)) throw std::invalid_argument(r.what + ": '" + t + "' is no file name of a run's folder");
  const bool writes_salib =
      std::any_of(r.files.begin(), r.files.end(), [](const std::string& f) { return f.compare(0, 6, "salib/") == 0; });
  std::vector<Entry> entries = list(dfd.get(), "", dir);
  Fd sfd;
  for (const Entry& e : entries)
    if (e.name == kSalib && e.folder()) sfd = Fd(::openat(dfd.get(), kSalib, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (sfd) {
    const std::vector<Entry> sub = list(sfd.get(), "salib/", dir + "/salib");
    entries.insert(entries.end(), sub.begin(), sub.end());
  }
  const Manifest m = read_manifest(dfd.get(), dir + "/" + kFolderManifest);
  const bool ours = m.valid && m.f.kind == r.kind;
  FolderClaim claim;
  if (!ours && !entries.empty()) {
    if (!r.force) {
      const std::string anyway =
          ": name a new or empty folder, or add --force to write into it anyway (the files of "
          "this run's names are replaced, every other file is left as it is)";
      if (m.valid)
        throw std::invalid_argument(r.what + ": " + dir + " holds " + article(m.f.kind) + "'s outputs (its manifest " +
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
  const auto listed = [&](const std::string& n) { return ours && m.f.lists(n); };
  const auto known = [&](const std::string& n) { return listed(n) || run.lists(n); };
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
      throw std::invalid_argument(r.what + ": " + dir + ": process " + std::to_string(live) + " is writing " + sub_of(e.name) +
                                  base_name(e.name).substr(1, base_name(e.name).rfind(".tmp-") - 1) +
                                  " there now (its temporary " + e.name + "): wait for it to end, or name another folder");
    if (run.lists(e.name)) {
      if (!S_ISREG(e.mode) && !e.link())
        throw std::invalid_argument(r.what + ": " + dir + "/" + e.name + " is " +
                                    (e.folder() ? "a folder" : "a device, FIFO or socket") +
                                    " where this run writes a file: remove it or name another folder");
      const bool first = std::find(r.removed_first.begin(), r.removed_first.end(), e.name) != r.removed_first.end();
      if (first || e.link()) gone.push_back(e.name);  // a link is replaced, never written through
      continue;
    }
    if (!ours || e.folder()) continue;
    if (listed(e.name) || dead_temporary) gone.push_back(e.name);
  }
  for (const std::string& e : gone) {
    remove_entry(dfd.get(), sfd.get(), dir, e);
    claim.removed.push_back(e);
  }
  // salib/ of an earlier run of this kind (its manifest listed files there), left empty, that this
  // run does not use
  const auto in_salib = [](const std::string& f) { return f.compare(0, 6, "salib/") == 0; };
  const bool listed_salib = ours && (std::any_of(m.f.files.begin(), m.f.files.end(), in_salib) ||
                                     std::any_of(m.f.parts_of.begin(), m.f.parts_of.end(), in_salib));
  if (sfd && listed_salib && !writes_salib && list(sfd.get(), "salib/", dir + "/salib").empty())
    ::unlinkat(dfd.get(), kSalib, AT_REMOVEDIR);
  write_manifest(dir, run);
  return claim;
}

void write_manifest(const std::string& dir, const FolderFiles& f) {
  for (const auto* v : {&f.files, &f.parts_of})
    for (const std::string& n : *v)
      if (!owned_name(n)) throw std::invalid_argument("'" + n + "' is no file name of a run's folder");
  nlohmann::json manifest = {
      {"impactbatch_outputs", 2},
      {"kind", f.kind},
      {"note", "the files an impactbatch " + f.kind + " writes in this folder; the next " + f.kind +
                   " run here removes them first, and nothing else (docs/study.md, \"The output folder\")"},
      {"files", f.files}};
  if (f.parts) manifest["parts"] = {{"count", f.parts}, {"of", f.parts_of}};
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

}  // namespace impact::resume
