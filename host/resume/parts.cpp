#include "resume/parts.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include <sys/stat.h>

#include "io/npy.hpp"
#include "io/out_file.hpp"

namespace impact::resume {

namespace {

using FilePtr = std::unique_ptr<std::FILE, int (*)(std::FILE*)>;

FilePtr open_part(const std::string& path) {
  FilePtr f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) throw std::runtime_error(path + ": cannot open a part of the table: " + std::strerror(errno));
  return f;
}

bool ends_with(const std::string& s, const char* x) {
  const std::size_t n = std::strlen(x);
  return s.size() >= n && s.compare(s.size() - n, n, x) == 0;
}

// Kinds of table: a header line (CSV, design.txt), a .npy header, or none (SALib Y files).
enum class Head { line, npy, none };
Head head_of(const std::string& name) {
  if (ends_with(name, ".npy")) return Head::npy;
  if (ends_with(name, ".csv") || name == "design.txt") return Head::line;
  return Head::none;
}

// Reads the header line of a text part (with its newline).
std::string read_line(std::FILE* f, const std::string& path) {
  std::string s;
  for (int c; (c = std::fgetc(f)) != EOF;) {
    s += static_cast<char>(c);
    if (c == '\n') return s;
  }
  throw std::runtime_error(path + ": a part without its header line");
}

// Appends the rest of f to out; returns the bytes, counts the newlines in `lines` and says whether
// the last byte is one.
std::uint64_t copy_rest(std::FILE* f, const std::string& path, io::OutFile& out, std::uint64_t& lines, bool& ends_in_newline) {
  std::vector<char> buf(1 << 20);
  std::uint64_t bytes = 0;
  ends_in_newline = true;  // an empty rest
  for (std::size_t got; (got = std::fread(buf.data(), 1, buf.size(), f)) > 0;) {
    ends_in_newline = buf[got - 1] == '\n';
    for (const char* p = buf.data(); (p = static_cast<const char*>(std::memchr(p, '\n', buf.data() + got - p))); ++p) ++lines;
    out.put(buf.data(), got);
    bytes += got;
  }
  if (std::ferror(f)) throw std::runtime_error(path + ": read error in a part of the table");
  return bytes;
}

// One final file from its parts.
std::uint64_t merge_file(const std::string& dir, const std::string& name, const PartsManifest& m, io::OutFile& out) {
  const Head head = head_of(name);
  std::uint64_t total_rows = 0;
  for (std::uint64_t r : m.rows) total_rows += r;
  std::string first_head;
  std::uint64_t bytes = 0, record = 0;
  for (std::size_t p = 0; p < m.rows.size(); ++p) {
    const std::string path = dir + "/" + part_file_name(name, static_cast<int>(p));
    FilePtr f = open_part(path);
    std::uint64_t lines = 0, body = 0;
    bool newline = true;
    const auto wrong = [&](const std::string& why) {
      return std::runtime_error(path + ": " + why + " (parts.json: part " + std::to_string(p) + " holds rows " +
                                std::to_string(m.first[p]) + ".." + std::to_string(m.first[p] + m.rows[p]) + ")");
    };
    if (head == Head::npy) {
      const io::NpyHeader h = io::read_npy_header(f.get(), path);
      if (p == 0) {
        first_head = h.descr;
        io::write_npy_header(out, h.descr, total_rows);
      } else if (h.descr != first_head) {
        throw wrong("its fields differ from part 0's");
      }
      if (h.rows != m.rows[p]) throw wrong("it holds " + std::to_string(h.rows) + " rows");
      body = copy_rest(f.get(), path, out, lines, newline);
      const std::uint64_t rec = h.rows ? body / h.rows : record;
      if ((h.rows && body % h.rows) || (h.rows == 0 && body) || (record && rec != record))
        throw wrong("its size is not that of " + std::to_string(h.rows) + " records");
      if (h.rows) record = rec;
    } else {
      if (head == Head::line) {
        const std::string line = read_line(f.get(), path);
        if (p == 0) out.put(first_head = line);
        else if (line != first_head) throw wrong("its header line differs from part 0's");
      }
      body = copy_rest(f.get(), path, out, lines, newline);
      if (lines != m.rows[p]) throw wrong("it holds " + std::to_string(lines) + " lines");
      if (!newline) throw wrong("its last line is not whole");
    }
    bytes += body;
  }
  return bytes;
}

}  // namespace

std::vector<std::string> part_files(const PartsManifest& m) {
  std::vector<std::string> v;
  for (const std::string& f : m.files)
    for (std::size_t p = 0; p < m.rows.size(); ++p) v.push_back(part_file_name(f, static_cast<int>(p)));
  return v;
}

namespace {

// The entries of DIR and of DIR/salib (a real folder only), relative to DIR.
std::vector<std::string> folder_entries(const std::string& dir) {
  std::vector<std::string> v;
  for (const std::string sub : {"", "salib/"}) {
    struct stat st {};
    if (!sub.empty() && (::lstat((dir + "/salib").c_str(), &st) != 0 || !S_ISDIR(st.st_mode))) continue;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(dir + "/" + sub, ec))
      v.push_back(sub + e.path().filename().string());
  }
  return v;
}

}  // namespace

void write_parts_manifest(const std::string& dir, const PartsManifest& m) {
  nlohmann::json parts = nlohmann::json::array();
  for (std::size_t p = 0; p < m.rows.size(); ++p) {
    nlohmann::json sums = nlohmann::json::array();
    for (const io::FileSum& s : m.sums.at(p)) sums.push_back({{"bytes", s.bytes}, {"crc32", io::crc_hex(s.crc32)}});
    parts.push_back({{"first", m.first[p]}, {"rows", m.rows[p]}, {"files", sums}});
  }
  const nlohmann::json j = {{"impactbatch_parts", 3}, {"run", m.run}, {"rows", m.total}, {"parts", parts}, {"files", m.files}};
  io::write_file(dir + "/parts.json", j.dump(2) + "\n");
}

PartsManifest read_parts_manifest(const std::string& dir) {
  const std::string path = dir + "/parts.json";
  struct stat st {};  // a regular file only: a FIFO or a device would never end, a link is no run's file
  if (::lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    throw std::runtime_error(path + ": not a regular file (a link, a folder or a device is no parts manifest)");
  FilePtr f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) throw std::runtime_error(path + ": cannot open: " + std::strerror(errno) + " (no study parts in " + dir + ")");
  PartsManifest m;
  try {
    const nlohmann::json j = nlohmann::json::parse(f.get());
    if (!j.is_object() || !j.contains("impactbatch_parts")) throw std::runtime_error("not a parts manifest");
    const int version = j.value("impactbatch_parts", 0);
    if (version != 2 && version != 3)
      throw std::runtime_error("a parts manifest of another version (without the parts' checksums): run the study again");
    if (version == 3) m.total = j.at("rows").get<std::uint64_t>();
    m.files = j.at("files").get<std::vector<std::string>>();
    m.run = j.at("run").get<std::string>();
    std::uint64_t next = 0;
    for (const nlohmann::json& p : j.at("parts")) {
      m.first.push_back(p.at("first").get<std::uint64_t>());
      m.rows.push_back(p.at("rows").get<std::uint64_t>());
      if (m.first.back() != next) throw std::runtime_error("the parts' rows are not contiguous from row 0");
      next += m.rows.back();
      std::vector<io::FileSum> sums;
      for (const nlohmann::json& s : p.at("files")) {
        io::FileSum fs;
        fs.bytes = s.at("bytes").get<std::uint64_t>();
        const std::string hex = s.at("crc32").get<std::string>();
        char* end = nullptr;
        fs.crc32 = static_cast<std::uint32_t>(std::strtoul(hex.c_str(), &end, 16));
        if (hex.size() != 8 || *end) throw std::runtime_error("crc32 '" + hex + "' is not 8 hex digits");
        sums.push_back(fs);
      }
      if (sums.size() != m.files.size())
        throw std::runtime_error("part " + std::to_string(m.rows.size() - 1) + " has " + std::to_string(sums.size()) +
                                 " sums for " + std::to_string(m.files.size()) + " files");
      m.sums.push_back(std::move(sums));
    }
    if (m.rows.empty()) throw std::runtime_error("no parts");
    if (m.total && next > m.total)
      throw std::runtime_error("the parts hold " + std::to_string(next) + " rows, more than the run's " +
                               std::to_string(m.total));
    for (const std::string& n : m.files)
      if (!io::owned_name(n) || n == "parts.json" || n == "metadata.json")
        throw std::runtime_error("file name '" + n + "' is no table of a study's folder");
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(path + ": " + e.what());
  } catch (const std::runtime_error& e) { throw std::runtime_error(path + ": " + e.what()); }
  return m;
}

void check_no_parts_beyond(const std::string& dir, const PartsManifest& m) {
  const std::size_t K = m.rows.size();
  for (const std::string& e : folder_entries(dir))
    for (const std::string& f : m.files)
      if (const int k = io::part_index(e, f); k >= 0 && static_cast<std::size_t>(k) >= K)
        throw std::runtime_error(dir + "/parts.json: " + e + " is part " + std::to_string(k) + " of " + f + ", beyond the " +
                                 std::to_string(K) + " parts listed (0.." + std::to_string(K - 1) +
                                 "): parts.json lacks parts: nothing merged");
}

std::uint64_t merge_parts(const std::string& dir, const PartsManifest& m) {
  const std::size_t K = m.rows.size();
  const auto refuse = [&](const std::string& why) {
    return std::runtime_error(dir + "/parts.json: " + why + ": nothing merged");
  };
  // the parts against the run: rows 0..total in parts 0..K-1, and no part of a table beyond them
  std::uint64_t next = 0;
  for (std::size_t p = 0; p < K; ++p) {
    if (m.first[p] != next)
      throw refuse("part " + std::to_string(p) + " starts at row " + std::to_string(m.first[p]) + ", not " +
                   std::to_string(next) + " (a gap)");
    next += m.rows[p];
  }
  if (next != m.total)
    throw refuse("its " + std::to_string(K) + " parts hold rows 0.." + std::to_string(next) + " of the run's " +
                 std::to_string(m.total) + (next < m.total ? " (parts are missing)" : ""));
  io::check_real_folder(dir, "study --merge");
  // every part first: the bytes parts.json recorded, where it recorded them, in a file of its own
  for (std::size_t p = 0; p < K; ++p)
    for (std::size_t i = 0; i < m.files.size(); ++i) {
      const std::string name = part_file_name(m.files[i], static_cast<int>(p)), path = dir + "/" + name;
      struct stat st {};
      if (::lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
        throw std::runtime_error(path +
                                 ": not a regular file (a link, a folder or a device is no part of a table): "
                                 "nothing merged");
      if (name.compare(0, 6, "salib/") == 0) io::check_real_folder(dir + "/salib", "study --merge");
      const io::FileSum want = m.sums.at(p).at(i), have = io::file_sum(path);
      if (have.bytes != want.bytes || have.crc32 != want.crc32)
        throw std::runtime_error(path + ": not the part parts.json lists as part " + std::to_string(p) + " of " + m.files[i] +
                                 " (rows " + std::to_string(m.first[p]) + ".." + std::to_string(m.first[p] + m.rows[p]) +
                                 "): " + std::to_string(have.bytes) + " bytes, CRC-32 " + io::crc_hex(have.crc32) +
                                 "; parts.json: " + std::to_string(want.bytes) + " bytes, " + io::crc_hex(want.crc32) +
                                 " (a part of another run or position, or changed since): nothing merged");
    }
  std::vector<io::OutFile> out(m.files.size());
  std::uint64_t bytes = 0;
  for (std::size_t i = 0; i < m.files.size(); ++i) {
    out[i].open(dir + "/" + m.files[i]);
    bytes += merge_file(dir, m.files[i], m, out[i]);
  }
  for (io::OutFile& o : out) o.commit();
  for (const std::string& p : part_files(m)) std::remove((dir + "/" + p).c_str());
  std::remove((dir + "/parts.json").c_str());
  return bytes;
}

}  // namespace impact::resume
