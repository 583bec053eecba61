#include "io/folder_names.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <system_error>

namespace impact::io {

namespace {

bool plain_name(const std::string& n) {
  if (n.empty() || n == "." || n == ".." || n == kFolderManifest) return false;
  for (unsigned char c : n)
    if (c == '/' || c < 0x20 || c == 0x7f) return false;
  return true;
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
  // "x/.." names the folder above x's target when x is a link: the entry examined below would not be
  // the folder the run writes into. Leading "../" (above the working folder) is the user's path.
  bool named = false;
  for (std::size_t at = 0; at <= spelled.size();) {
    const std::size_t end = std::min(spelled.find('/', at), spelled.size());
    const std::string part = spelled.substr(at, end - at);
    if (part == ".." && named)
      throw std::invalid_argument(what + ": " + spelled +
                                  ": '..' after a folder's name: name the output folder "
                                  "without it (through a link, x/.. is not the folder x is in)");
    if (!part.empty() && part != "." && part != "..") named = true;
    at = end + 1;
  }
  const std::string path = folder_entry(spelled);
  struct stat st {};
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

}  // namespace impact::io
