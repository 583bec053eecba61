#include "resume/parts.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <regex>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>

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
std::uint64_t copy_rest(std::FILE* f, const std::string& path, io::OutFile& out, std::uint64_t& lines,
                        bool& ends_in_newline) {
  std::vector<char> buf(1 << 20);
  std::uint64_t bytes = 0;
  ends_in_newline = true;  // an empty rest
  for (std::size_t got; (got = std::fread(buf.data(), 1, buf.size(), f)) > 0;) {
    ends_in_newline = buf[got - 1] == '\n';
    for (const char* p = buf.data(); (p = static_cast<const char*>(std::memchr(p, '\n', buf.data() + got - p)));
         ++p)
      ++lines;
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

std::string part_file_name(const std::string& name, int part) {
  char tag[32];
  std::snprintf(tag, sizeof tag, ".part-%05d", part);
  const std::size_t slash = name.rfind('/'), dot = name.rfind('.');
  const std::size_t at = dot == std::string::npos || (slash != std::string::npos && dot < slash) ? name.size() : dot;
  return name.substr(0, at) + tag + name.substr(at);
}

std::vector<std::string> part_files(const PartsManifest& m) {
  std::vector<std::string> v;
  for (const std::string& f : m.files)
    for (std::size_t p = 0; p < m.rows.size(); ++p) v.push_back(part_file_name(f, static_cast<int>(p)));
  return v;
}

void remove_stale_parts(const std::string& dir, bool parts) {
  static const std::regex part(R"(.*\.part-[0-9]{5}(\.[A-Za-z]+)?)");
  static const std::regex temporary(R"(\..+\.tmp-[0-9]+-[0-9]+)");  // an io::OutFile's
  for (const std::string& d : {dir, dir + "/salib"}) {
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(d, ec)) {
      const std::string name = e.path().filename().string();
      if (e.is_regular_file(ec) && (std::regex_match(name, temporary) || (parts && std::regex_match(name, part))))
        io::remove_if_exists(e.path().string());
    }
  }
}

void write_parts_manifest(const std::string& dir, const PartsManifest& m) {
  nlohmann::json parts = nlohmann::json::array();
  for (std::size_t p = 0; p < m.rows.size(); ++p) {
    nlohmann::json sums = nlohmann::json::array();
    for (const io::FileSum& s : m.sums.at(p)) sums.push_back({{"bytes", s.bytes}, {"crc32", io::crc_hex(s.crc32)}});
    parts.push_back({{"first", m.first[p]}, {"rows", m.rows[p]}, {"files", sums}});
  }
  const nlohmann::json j = {{"impactbatch_parts", 2}, {"run", m.run}, {"parts", parts}, {"files", m.files}};
  io::write_file(dir + "/parts.json", j.dump(2) + "\n");
}

PartsManifest read_parts_manifest(const std::string& dir) {
  const std::string path = dir + "/parts.json";
  FilePtr f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) throw std::runtime_error(path + ": cannot open: " + std::strerror(errno) + " (no study parts in " + dir + ")");
  PartsManifest m;
  try {
    const nlohmann::json j = nlohmann::json::parse(f.get());
    if (!j.is_object() || !j.contains("impactbatch_parts")) throw std::runtime_error("not a parts manifest");
    if (j.value("impactbatch_parts", 0) != 2)
      throw std::runtime_error("a parts manifest of another version (without the parts' checksums): run the study again");
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
    for (const std::string& n : m.files)
      if (n.empty() || n.find("..") != std::string::npos || n[0] == '/') throw std::runtime_error("file name '" + n + "'");
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(path + ": " + e.what());
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(path + ": " + e.what());
  }
  return m;
}

std::uint64_t merge_parts(const std::string& dir, const PartsManifest& m, std::vector<std::string>* stray) {
  // every part first: the bytes parts.json recorded, where it recorded them
  for (std::size_t p = 0; p < m.rows.size(); ++p)
    for (std::size_t i = 0; i < m.files.size(); ++i) {
      const std::string name = part_file_name(m.files[i], static_cast<int>(p)), path = dir + "/" + name;
      const io::FileSum want = m.sums.at(p).at(i), have = io::file_sum(path);
      if (have.bytes != want.bytes || have.crc32 != want.crc32)
        throw std::runtime_error(path + ": not the part parts.json lists as part " + std::to_string(p) + " of " +
                                 m.files[i] + " (rows " + std::to_string(m.first[p]) + ".." +
                                 std::to_string(m.first[p] + m.rows[p]) + "): " + std::to_string(have.bytes) +
                                 " bytes, CRC-32 " + io::crc_hex(have.crc32) + "; parts.json: " +
                                 std::to_string(want.bytes) + " bytes, " + io::crc_hex(want.crc32) +
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
  // a part file parts.json does not list (an earlier run's, a copy): it belongs to no table
  static const std::regex part(R"(.*\.part-[0-9]{5}(\.[A-Za-z]+)?)");
  for (const std::string& d : {std::string(), std::string("salib/")}) {
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(dir + "/" + d, ec)) {
      const std::string name = e.path().filename().string();
      if (!std::regex_match(name, part)) continue;
      io::remove_if_exists(e.path().string());
      if (stray) stray->push_back(d + name);
    }
  }
  return bytes;
}

}  // namespace impact::resume
