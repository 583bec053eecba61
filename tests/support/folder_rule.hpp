// The property test of the one rule of a run's folder (resume/owned_folder.hpp, docs/study.md "The
// output folder"): random sandboxes, a run into their folder out/, and a check of the rule from the
// folder as it was and as it is, read independently of the code under test:
//   * every path of the sandbox outside out/ (and outside the run's checkpoint folder) is as it was:
//     its kind, its bytes (a hash), its link's target, its inode;
//   * every path inside out/ that changed or went is one the run may change: its own names, the
//     manifest, and where out/ held a well-formed manifest of the run's kind, the names it listed
//     and the temporaries (.NAME.tmp-PID-N) of those and of the run's names whose process had ended
//     (a temporary is removed only when its process is dead: a live one may still be writing it);
//     a name like a part proves nothing;
//   * a path that appeared in out/ is one of the run's names or the manifest (salib/ for them);
//   * no link was followed: a link that stayed points where it pointed, and one that changed is now
//     the run's regular file (a write through a link changes its target, outside or inside: caught above).
// The sandboxes hold user files, names like parts and temporaries (of ended and running processes),
// links to files and folders outside (salib among them), dangling links, hard links to outside
// files, FIFOs, and manifests of each kind or none, well formed or with random entries. Used by the
// ctest property test (tests/calibrate/test_folder_rule.cpp: real runs) and by the fuzz harness
// tests/fuzz/fuzz_folder.cpp (the claim and the merge, driven by the fuzzer's bytes).
#pragma once
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace impact::test::folder_rule {

// A source of choices: a seeded stream (splitmix64) or a fuzzer's bytes (zeros once they run out).
class Choices {
 public:
  explicit Choices(std::uint64_t seed) : state_(seed) {}
  Choices(const std::uint8_t* data, std::size_t size) : bytes_(data), size_(size) {}
  std::uint32_t below(std::uint32_t n) {
    if (n <= 1) return 0;
    std::uint64_t x = 0;
    if (bytes_) {
      for (int k = 0; k < 4; ++k) x = x << 8 | (at_ < size_ ? bytes_[at_++] : 0);
    } else {
      std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
      x = z ^ (z >> 31);
    }
    return static_cast<std::uint32_t>(x % n);
  }
  bool coin(std::uint32_t one_in = 2) { return below(one_in) == 0; }
  template <class T>
  const T& pick(const std::vector<T>& v) {
    return v[below(static_cast<std::uint32_t>(v.size()))];
  }

 private:
  std::uint64_t state_ = 0;
  const std::uint8_t* bytes_ = nullptr;
  std::size_t size_ = 0, at_ = 0;
};

// What a path is, read without following links.
struct Node {
  char kind = '?';         // f file, d folder, l link, p FIFO, ? other
  std::uint64_t hash = 0;  // a file's bytes (FNV-1a)
  std::string target;      // a link's
  std::uint64_t ino = 0, dev = 0;
  bool operator==(const Node& o) const {
    return kind == o.kind && hash == o.hash && target == o.target && (kind == 'd' || (ino == o.ino && dev == o.dev));
  }
  bool operator!=(const Node& o) const { return !(*this == o); }
};
using Snapshot = std::map<std::string, Node>;  // relative to the sandbox

inline std::uint64_t fnv1a(const std::string& bytes) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ull;
  return h;
}

inline Snapshot snapshot(const std::string& root) {
  namespace fs = std::filesystem;
  Snapshot s;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, fs::directory_options::none, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const std::string path = it->path().string();
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) continue;
    Node n;
    n.ino = st.st_ino;
    n.dev = st.st_dev;
    if (S_ISREG(st.st_mode)) {
      n.kind = 'f';
      std::ifstream f(path, std::ios::binary);
      std::ostringstream b;
      b << f.rdbuf();
      n.hash = fnv1a(b.str());
    } else if (S_ISDIR(st.st_mode)) {
      n.kind = 'd';
    } else if (S_ISLNK(st.st_mode)) {
      n.kind = 'l';
      n.target = fs::read_symlink(path, ec).string();
    } else if (S_ISFIFO(st.st_mode)) {
      n.kind = 'p';
    }
    s[path.substr(root.size() + 1)] = n;
  }
  return s;
}

// A process id that no longer runs (a child that has exited and been reaped).
inline long ended_pid() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ::waitpid(child, nullptr, 0);
  return child;
}

// The names of the runs the tests make (tests/calibrate/test_folder_rule.cpp): a study of newton
// (csv, npy, salib) and a calibration, plus the names users pick.
inline const std::vector<std::string>& name_pool() {
  static const std::vector<std::string> v = {"newton.csv",
                                             "newton.npy",
                                             "design.txt",
                                             "salib/newton_P_n.txt",
                                             "summary.md",
                                             "metadata.json",
                                             "parts.json",
                                             "samples.csv",
                                             "samples.npy",
                                             "predictive.csv",
                                             "estimate.csv",
                                             "starts.csv",
                                             "notes.txt",
                                             "data.csv",
                                             "newton.part-00000.csv",
                                             "newton.part-00001.npy",
                                             "newton.part-00007.csv",
                                             "salib/newton_P_n.part-00000.txt",
                                             "backup.part-00001.rar",
                                             "video.part-00002.mkv",
                                             "samples.part-00000.csv",
                                             "design.part-00000.txt",
                                             "report.pdf",
                                             ".impactbatch-outputs.json",
                                             "salib",
                                             "lnk"};
  return v;
}

// Writes `bytes` to path, a new file or a regular one (its folder made where it can be); a link, a
// FIFO or a folder of that name, or a folder that cannot be made, leaves it unwritten.
inline void put_file(const std::string& path, const std::string& bytes) {
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) return;
  std::ofstream(path, std::ios::binary) << bytes;
}

// A random manifest's text: a kind or none, a version, entries from the pool and from outside the
// folder; sometimes not JSON at all.
inline std::string random_manifest(Choices& c) {
  if (c.coin(8)) return c.coin() ? "not json {" : "[1, 2]";
  static const std::vector<std::string> foreign = {
      "../outside/a.txt", "lnk/a.txt",      "/tmp/impact-folder-rule-x", "salib/../../outside/a.txt", "", "a/b", "..", ".",
      "salib/",           "salib/lnk/a.txt"};
  nlohmann::json files = nlohmann::json::array();
  for (std::uint32_t k = c.below(6); k > 0; --k) files.push_back(c.coin(4) ? c.pick(foreign) : c.pick(name_pool()));
  nlohmann::json j = {{"impactbatch_outputs", c.coin(4) ? 1 : 2}, {"files", files}};
  if (c.coin(3)) {  // the parts of a run in pieces, well formed or not
    nlohmann::json of = nlohmann::json::array();
    for (std::uint32_t k = c.below(3); k > 0; --k) of.push_back(c.coin(5) ? c.pick(foreign) : c.pick(name_pool()));
    j["parts"] = c.coin(6) ? nlohmann::json("all") : nlohmann::json{{"count", c.below(12)}, {"of", of}};
  }
  const std::uint32_t kind = c.below(4);
  if (kind < 3) j["kind"] = std::vector<std::string>{"study", "calibration", "bogus"}[kind];
  return j.dump();
}

// Adds `count` random entries to out/ (root/out), pointing only inside root/outside when they point.
inline void scatter(Choices& c, const std::string& root, std::uint32_t count) {
  namespace fs = std::filesystem;
  const std::string out = root + "/out";
  std::error_code ec;
  const long dead = ended_pid();
  for (std::uint32_t k = 0; k < count; ++k) {
    std::string name = c.pick(name_pool());
    if (name.rfind("salib/", 0) == 0) {  // inside salib/: only when it is (or can be) a real folder
      struct stat st {};
      if (::lstat((out + "/salib").c_str(), &st) == 0 && !S_ISDIR(st.st_mode)) continue;
      fs::create_directories(out + "/salib", ec);
    }
    const std::string at = out + "/" + name;
    struct stat st {};
    if (::lstat(at.c_str(), &st) == 0) continue;  // taken
    switch (c.below(9)) {
      case 0:
      case 1: put_file(at, "a user's " + name + " " + std::to_string(c.below(1000)) + "\n"); break;
      case 2: fs::create_symlink(root + "/outside/" + c.pick(std::vector<std::string>{"a.txt", "h.txt", "d"}), at, ec); break;
      case 3: fs::create_symlink("../outside/" + c.pick(std::vector<std::string>{"a.txt", "d", "nowhere.txt"}), at, ec); break;
      case 4: fs::create_hard_link(root + "/outside/h.txt", at, ec); break;
      case 5: {  // a temporary of one of the names, of an ended process or of a running one
        const std::string base = name.substr(name.rfind('/') + 1);
        const std::string sub = name.substr(0, name.size() - base.size());
        const long pid = c.coin(3) ? 1 : dead;
        put_file(out + "/" + sub + "." + base + ".tmp-" + std::to_string(pid) + "-" + std::to_string(c.below(3)),
                 "half a table\n");
        break;
      }
      case 6: ::mkfifo(at.c_str(), 0644); break;
      case 7: fs::create_directories(at, ec); break;
      default: put_file(out + "/.impactbatch-outputs.json", random_manifest(c)); break;
    }
  }
}

// The sandbox: root/outside (files, a folder, a file hard linked into out/), and out/ (absent
// sometimes, or a link to a folder outside) with what an earlier run left (the caller's, before) and
// `scatter`'s entries.
inline void make_sandbox(Choices& c, const std::string& root) {
  namespace fs = std::filesystem;
  fs::create_directories(root + "/outside/d");
  put_file(root + "/outside/a.txt", "outside a\n");
  put_file(root + "/outside/h.txt", "outside h (hard linked)\n");
  put_file(root + "/outside/d/results.part-00001.csv", "someone else's split file\n");
  put_file(root + "/outside/d/newton_P_n.txt", "someone else's SALib file\n");
  put_file(root + "/outside/d/.impactbatch-outputs.json",
           R"({"impactbatch_outputs": 2, "kind": "study", "files": ["newton_P_n.txt"]})");
  const std::uint32_t how = c.below(16);
  if (how == 0) return;                                                    // no folder yet
  if (how == 1) fs::create_directory_symlink("outside/d", root + "/out");  // the folder a link
  else fs::create_directories(root + "/out");
}

// How the run spells its folder root/out: plainly, or with a trailing "/", "/." or "//./" (the
// same entry, a link as much as the plain name).
inline std::string spelled(Choices& c, const std::string& root) {
  static const std::vector<std::string> tails = {"", "", "", "/", "/.", "//./"};
  return root + "/out" + c.pick(tails);
}

// Part k of `name`, as docs/distributed.md writes it: ".part-" and k in at least 5 digits before the
// extension of the last path element (jia.npy -> jia.part-00003.npy, design -> design.part-00003).
inline std::string part_name(const std::string& name, long k) {
  const std::size_t slash = name.rfind('/'), dot = name.rfind('.');
  const std::size_t at = dot == std::string::npos || (slash != std::string::npos && dot < slash) ? name.size() : dot;
  char tag[32];
  std::snprintf(tag, sizeof tag, ".part-%05ld", k);
  return name.substr(0, at) + tag + name.substr(at);
}

// The index of `entry` as a part of `name`, or -1: the k (below 1e9) with part_name(name, k) == entry,
// tried for the digits after each ".part-" of entry. The grammar by generation, deliberately not
// io::part_index (a parser): a checker that called the code under test could not find its faults.
inline long part_of(const std::string& entry, const std::string& name) {
  for (std::size_t at = entry.find(".part-"); at != std::string::npos; at = entry.find(".part-", at + 1)) {
    const std::size_t from = at + 6, to = std::min(entry.find_first_not_of("0123456789", from), entry.size());
    if (to - from < 5 || to - from > 9) continue;
    const long k = std::atol(entry.substr(from, to - from).c_str());
    if (part_name(name, k) == entry) return k;
  }
  return -1;
}

// What a run may take by name: listed names, and parts 0..parts-1 of its tables.
struct Names {
  std::set<std::string> names;
  std::vector<std::string> parts_of;
  long parts = 0;
  bool has(const std::string& e) const {
    if (names.count(e)) return true;
    for (const std::string& t : parts_of)
      if (const long k = part_of(e, t); k >= 0 && k < parts) return true;
    return false;
  }
};

// A temporary (.NAME.tmp-PID-N) of one of `names` whose process has ended.
inline bool ended_temporary_of(const std::string& entry, const Names& names) {
  const std::size_t slash = entry.rfind('/');
  const std::string sub = slash == std::string::npos ? "" : entry.substr(0, slash + 1);
  const std::string base = slash == std::string::npos ? entry : entry.substr(slash + 1);
  const std::size_t tmp = base.rfind(".tmp-");
  if (base.empty() || base[0] != '.' || tmp == std::string::npos || tmp < 2) return false;
  const std::string stem = sub + base.substr(1, tmp - 1);
  const std::size_t dash = base.find('-', tmp + 5);
  if (dash == std::string::npos) return false;
  const long pid = std::atol(base.c_str() + tmp + 5);
  const bool ended = pid > 1 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
  return ended && names.has(stem);
}

// The names (relative to out/) a manifest of `kind` in out/ lists, read as the rule says: a regular
// file, JSON with impactbatch_outputs 1 or 2, every entry a plain name or salib/NAME, and "parts"
// (when there) {"count": K <= 2^30, "of": [such names]}; version 2 says its kind, version 1 is a
// study's when it lists parts.json. `ours`: such a manifest of that kind.
inline Names listed(const std::string& out, const std::string& kind, bool& ours) {
  ours = false;
  struct stat st {};
  const std::string path = out + "/.impactbatch-outputs.json";
  if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return {};
  std::ifstream f(path);
  const nlohmann::json j = nlohmann::json::parse(f, nullptr, false);
  if (!j.is_object() || !j.contains("impactbatch_outputs") || !j["impactbatch_outputs"].is_number_integer() ||
      !j.contains("files") || !j["files"].is_array())
    return {};
  const int version = j["impactbatch_outputs"].get<int>();
  if (version != 1 && version != 2) return {};
  const auto plain = [](const std::string& n) {
    return !n.empty() && n != "." && n != ".." && n != ".impactbatch-outputs.json" && n.find('/') == std::string::npos;
  };
  const auto owned = [&](const nlohmann::json& e) {
    return e.is_string() && (plain(e.get<std::string>()) ||
                             (e.get<std::string>().rfind("salib/", 0) == 0 && plain(e.get<std::string>().substr(6))));
  };
  Names names;
  for (const nlohmann::json& e : j["files"]) {
    if (!owned(e)) return {};
    names.names.insert(e.get<std::string>());
  }
  if (j.contains("parts")) {
    const nlohmann::json& p = j["parts"];
    if (!p.is_object() || !p.contains("count") || !p["count"].is_number_unsigned() ||
        p["count"].get<std::uint64_t>() > (1u << 30) || !p.contains("of") || !p["of"].is_array())
      return {};
    for (const nlohmann::json& t : p["of"]) {
      if (!owned(t)) return {};
      names.parts_of.push_back(t.get<std::string>());
    }
    names.parts = static_cast<long>(p["count"].get<std::uint64_t>());
  }
  std::string k;
  if (version == 2) {
    if (!j.contains("kind") || !j["kind"].is_string()) return {};
    k = j["kind"].get<std::string>();
  } else {
    k = names.names.count("parts.json") ? "study" : "calibration";
  }
  ours = k == kind;
  return ours ? names : Names{};
}

// What a run of `kind` writing `files` into out/ may change there, from the folder as it was.
struct Allowed {
  std::set<std::string> own;  // the run's names and the manifest
  Names earlier;              // listed, and the ended temporaries of listed and own names
  bool ours = false;
};

inline Allowed allowed(const std::string& out, const std::string& kind, const std::vector<std::string>& files,
                       const Snapshot& before, const std::string& out_rel) {
  Allowed a;
  a.own.insert(files.begin(), files.end());
  a.own.insert(".impactbatch-outputs.json");
  a.earlier = listed(out, kind, a.ours);
  if (!a.ours) return a;
  Names names = a.earlier;
  names.names.insert(files.begin(), files.end());
  for (const auto& [path, node] : before) {
    if (path.rfind(out_rel + "/", 0) != 0) continue;
    const std::string e = path.substr(out_rel.size() + 1);
    if (ended_temporary_of(e, names)) a.earlier.names.insert(e);
  }
  return a;
}

// The rule's violations (empty: none), `out_rel` the folder relative to the sandbox, `skip` a
// folder of the run's own beside it (its checkpoint) relative to the sandbox, or "".
inline std::vector<std::string> violations(const Snapshot& before, const Snapshot& after, const std::string& out_rel,
                                           const Allowed& a, const std::string& skip = "") {
  std::vector<std::string> v;
  const auto inside = [&](const std::string& p) { return p.rfind(out_rel + "/", 0) == 0; };
  const auto skipped = [&](const std::string& p) { return !skip.empty() && (p == skip || p.rfind(skip + "/", 0) == 0); };
  const auto may = [&](const std::string& rel) {
    if (a.own.count(rel) || a.earlier.has(rel)) return true;
    const auto in_salib = [](const std::string& n) { return n.rfind("salib/", 0) == 0; };
    return rel == "salib" && (std::any_of(a.own.begin(), a.own.end(), in_salib) ||
                              std::any_of(a.earlier.names.begin(), a.earlier.names.end(), in_salib) ||
                              std::any_of(a.earlier.parts_of.begin(), a.earlier.parts_of.end(), in_salib));
  };
  for (const auto& [p, was] : before) {
    if (skipped(p)) continue;
    const auto now = after.find(p);
    const bool same = now != after.end() && now->second == was;
    if (p == out_rel) continue;  // the folder itself (its mtime changes; it stays a folder: below)
    if (!inside(p)) {
      if (!same) v.push_back("outside the folder, " + p + (now == after.end() ? " went" : " changed"));
      continue;
    }
    const std::string rel = p.substr(out_rel.size() + 1);
    if (!same && !may(rel))
      v.push_back("in the folder, " + rel + (now == after.end() ? " went" : " changed") + " (not the run's)");
    if (!same && now != after.end() && was.kind == 'l' && now->second.kind != 'f')
      v.push_back("the link " + rel + " is now neither itself nor the run's file");
  }
  for (const auto& [p, now] : after) {
    if (skipped(p) || before.count(p)) continue;
    if (!inside(p)) {
      if (p != out_rel) v.push_back("outside the folder, " + p + " appeared");
      continue;
    }
    const std::string rel = p.substr(out_rel.size() + 1);
    if (!a.own.count(rel) && !(rel == "salib" && now.kind == 'd'))
      v.push_back("in the folder, " + rel + " appeared (not the run's)");
  }
  const auto o = after.find(out_rel), b = before.find(out_rel);
  if (o != after.end() && b != before.end() && o->second.kind != b->second.kind) v.push_back("the folder changed kind");
  if (o != after.end() && b == before.end() && o->second.kind != 'd') v.push_back("the folder appeared as no folder");
  return v;
}

}  // namespace impact::test::folder_rule
