// Fuzzes the rule of a run's folder (resume/owned_folder.hpp): the input's bytes build a sandbox
// (tests/support/folder_rule.hpp: files and folders outside, and in out/ an earlier run's manifest
// and files or none, user files, names like parts and temporaries, links to files and folders
// outside, dangling links, hard links, FIFOs, manifests with random entries), then choose what runs
// into out/: a claim (resume::claim_folder: a kind, names from the pool, the names removed first,
// force) or `impact study --merge` (study::merge_folder over a parts.json of random
// parts). A finding is any path outside out/ that changed, any path in out/ the run may not take
// that changed or went, or a link followed (folder_rule::violations).
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "folder_rule.hpp"
#include "fuzz_common.hpp"
#include "io/folder_names.hpp"
#include "resume/owned_folder.hpp"
#include "resume/parts.hpp"
#include "study/output_folder.hpp"

namespace {

namespace fr = impact::test::folder_rule;
namespace fs = std::filesystem;

std::vector<std::string> some_names(fr::Choices& c, std::uint32_t most) {
  std::vector<std::string> v;
  for (std::uint32_t k = c.below(most + 1); k > 0; --k) {
    const std::string& n = c.pick(fr::name_pool());
    if (impact::io::owned_name(n) && std::find(v.begin(), v.end(), n) == v.end()) v.push_back(n);
  }
  return v;
}

// An earlier run of a kind: its manifest and (some of) its files.
void earlier_run(fr::Choices& c, const std::string& out) {
  const std::vector<std::string> files = some_names(c, 8);
  nlohmann::json j = {{"impactbatch_outputs", 2}, {"kind", c.coin() ? "study" : "calibration"}, {"files", files}};
  fr::put_file(out + "/.impactbatch-outputs.json", j.dump());
  for (const std::string& f : files)
    if (c.coin(3) != 0) fr::put_file(out + "/" + f, "an earlier run's " + f + "\n");
}

// A parts.json of random parts over some of the earlier run's names, and some of its part files.
void random_parts(fr::Choices& c, const std::string& out) {
  impact::resume::PartsManifest m;
  m.files = {c.coin() ? "newton.csv" : "design.txt"};
  if (c.coin()) m.files.push_back("salib/newton_P_n.txt");
  const std::uint32_t K = 1 + c.below(3);
  std::uint64_t next = 0;
  for (std::uint32_t p = 0; p < K; ++p) {
    const std::uint64_t rows = c.below(3);
    m.first.push_back(c.coin(8) ? next + 1 : next);
    m.rows.push_back(rows);
    next += rows;
    std::vector<impact::io::FileSum> sums;
    for (const std::string& f : m.files) {
      const std::string path = out + "/" + impact::io::part_file_name(f, static_cast<int>(p));
      std::string body = f == "newton.csv" || f == "design.txt" ? "h\n" : "";
      for (std::uint64_t r = 0; r < rows; ++r) body += std::to_string(r) + "\n";
      struct stat st {};
      if (::lstat(path.c_str(), &st) != 0 && c.coin(4) != 0) fr::put_file(path, body);
      const bool file = ::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);  // never read a FIFO
      sums.push_back(file ? impact::io::file_sum(path) : impact::io::FileSum{});
    }
    m.sums.push_back(sums);
  }
  m.total = c.coin(4) ? next + c.below(3) : next;
  m.run = "0000abcd";
  try {
    impact::resume::write_parts_manifest(out, m);
  } catch (const std::exception&) {  // parts.json is a folder or a FIFO of the sandbox
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fr::Choices c(data, size);
  char tmpl[] = "/tmp/impact-fuzz-folder-XXXXXX";
  if (!::mkdtemp(tmpl)) impact::fuzz::fuzz_fail("mkdtemp: cannot make a sandbox");
  const std::string root = tmpl, out = root + "/out";
  fr::make_sandbox(c, root);
  const bool has_out = fs::exists(out);
  if (has_out && c.coin()) earlier_run(c, out);
  if (has_out) fr::scatter(c, root, c.below(10));
  const bool merge = has_out && c.coin(3);
  if (merge) random_parts(c, out);
  impact::resume::FolderRequest r;
  r.dir = out;
  r.kind = c.coin() ? "study" : "calibration";
  r.files = some_names(c, 8);
  for (const std::string& f : r.files)
    if (c.coin(3)) r.removed_first.push_back(f);
  r.force = c.coin();
  if (c.coin(3)) {  // a run in pieces: parts 0..parts-1 of some tables
    for (const std::string& t : some_names(c, 2)) r.parts_of.push_back(t);
    r.parts = c.below(4);
  }
  std::vector<std::string> files = r.files;
  for (const std::string& t : r.parts_of)
    for (std::uint64_t k = 0; k < r.parts; ++k) files.push_back(impact::io::part_file_name(t, static_cast<int>(k)));
  std::string kind = r.kind;
  if (merge) {  // what a merge may take: a study's tables, their parts, parts.json (its own reading)
    kind = "study";
    files.clear();
    try {
      const impact::resume::PartsManifest m = impact::resume::read_parts_manifest(out);
      files = m.files;
      for (const std::string& p : impact::resume::part_files(m)) files.push_back(p);
      files.push_back("parts.json");
    } catch (const std::exception&) {}
  }
  const fr::Snapshot before = fr::snapshot(root);
  const fr::Allowed allowed = fr::allowed(out, kind, files, before, "out");
  try {
    if (merge) impact::study::merge_folder(out);
    else impact::resume::claim_folder(r);
  } catch (const std::invalid_argument&) {  // refused: the documented errors
  } catch (const std::runtime_error&) {
  } catch (const std::exception& e) { impact::fuzz::unexpected_exception(merge ? "merge_folder" : "claim_folder", e); }
  const fr::Snapshot after = fr::snapshot(root);
  const std::vector<std::string> v = fr::violations(before, after, "out", allowed);
  if (!v.empty()) {
    std::string all;
    for (const std::string& s : v) all += "\n  " + s;
    impact::fuzz::fuzz_fail("%s (kind %s, force %d) broke the folder rule:%s", merge ? "a merge" : "a claim", kind.c_str(),
                            int(r.force), all.c_str());
  }
  std::error_code ec;
  fs::remove_all(root, ec);  // links are removed, never followed
  return 0;
}
