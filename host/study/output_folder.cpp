#include "study/output_folder.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <stdexcept>

#include "io/out_file.hpp"
#include "resume/parts.hpp"

namespace impact::study {

namespace fs = std::filesystem;

namespace {

// A name the manifest may hold: relative, inside the folder.
bool safe_name(const std::string& n) {
  return !n.empty() && n[0] != '/' && n.find("..") == std::string::npos && n != kOutputManifest;
}

// Names written by impactbatch whatever the study: parts and io::OutFile temporaries.
bool tool_pattern(const std::string& name) {
  static const std::regex part(R"(.*\.part-[0-9]{5}(\.[A-Za-z]+)?)");
  static const std::regex temporary(R"(\..+\.tmp-[0-9]+-[0-9]+)");
  return std::regex_match(name, part) || std::regex_match(name, temporary);
}

nlohmann::json read_json(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return nullptr;
  try {
    return nlohmann::json::parse(f);
  } catch (const nlohmann::json::exception&) {
    return nullptr;
  }
}

// The files an earlier run listed: its manifest's, else (a folder from before manifests) those of
// its metadata.json. `found`: whether either says the folder is a study's.
std::set<std::string> earlier_files(const std::string& dir, bool& found) {
  std::set<std::string> files;
  found = false;
  const nlohmann::json m = read_json(dir + "/" + kOutputManifest);
  if (m.is_object() && m.value("impactbatch_outputs", 0) == 1 && m.contains("files") && m["files"].is_array()) {
    found = true;
    for (const nlohmann::json& f : m["files"])
      if (f.is_string() && safe_name(f.get<std::string>())) files.insert(f.get<std::string>());
    return files;
  }
  const nlohmann::json meta = read_json(dir + "/metadata.json");
  if (meta.is_object() && meta.contains("impact_version") && meta.contains("files") && meta["files"].is_array()) {
    found = true;
    for (const nlohmann::json& f : meta["files"])
      if (f.is_string() && safe_name(f.get<std::string>())) files.insert(f.get<std::string>());
    for (const char* n : {"metadata.json", "summary.md", "sensitivity.csv", "parts.json"}) files.insert(n);
    const nlohmann::json* plots = meta.contains("config") && meta["config"].is_object() && meta["config"].contains("plots")
                                      ? &meta["config"]["plots"]
                                      : nullptr;
    if (plots && plots->is_array())
      for (const nlohmann::json& p : *plots)
        if (p.is_object() && p.contains("file") && p["file"].is_string() && safe_name(p["file"].get<std::string>()))
          files.insert(p["file"].get<std::string>());
  }
  return files;
}

// Every entry of the folder and of its salib/ subfolder, relative to the folder ("salib" itself not).
std::vector<std::string> entries(const std::string& dir) {
  std::vector<std::string> v;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name == "salib" && e.is_directory(ec)) {
      std::error_code ec2;
      for (const auto& s : fs::directory_iterator(e.path(), ec2)) v.push_back("salib/" + s.path().filename().string());
    } else {
      v.push_back(name);
    }
  }
  std::sort(v.begin(), v.end());
  return v;
}

std::string base_name(const std::string& rel) {
  const std::size_t s = rel.rfind('/');
  return s == std::string::npos ? rel : rel.substr(s + 1);
}

}  // namespace

std::vector<std::string> study_output_files(const StudyConfig& c, const std::vector<std::string>& tables) {
  std::vector<std::string> v = tables;
  if (!c.sens_outputs.empty()) v.push_back("sensitivity.csv");
  v.push_back("summary.md");
  v.push_back("metadata.json");
  for (const PlotSpec& p : c.plots) v.push_back(p.file);
  v.push_back("parts.json");
  return v;
}

FolderClaim claim_output_folder(const std::string& dir, const std::vector<std::string>& files, bool force,
                                bool keep_parts) {
  FolderClaim claim;
  io::make_dirs(dir, "output.dir");
  bool ours = false;
  std::set<std::string> listed = earlier_files(dir, ours);
  const std::set<std::string> mine(files.begin(), files.end());
  // what is neither listed, nor of this run's names, nor of the tool's patterns
  std::vector<std::string> foreign;
  for (const std::string& e : entries(dir))
    if (e != kOutputManifest && !listed.count(e) && !mine.count(e) && !tool_pattern(base_name(e))) foreign.push_back(e);
  if (!ours && !foreign.empty()) {
    if (!force) {
      std::string some;
      for (std::size_t i = 0; i < foreign.size() && i < 3; ++i) some += (i ? ", " : "") + foreign[i];
      if (foreign.size() > 3) some += ", ...";
      throw std::invalid_argument("output.dir: " + dir + " holds " + std::to_string(foreign.size()) +
                                  " file(s) that no impactbatch study wrote there (" + some +
                                  "): name a new or empty folder, or add --force to write into it anyway (the files "
                                  "of this study's names are replaced, the others are left)");
    }
    claim.forced = true;
  }
  // the earlier run's files that this run does not write (those it writes it replaces, through
  // io::OutFile, which also keeps a link of that name pointing where it points), and the marks of a
  // complete run or of parts, which must not outlive the run that wrote them
  std::set<std::string> gone;
  for (const std::string& f : listed)
    if (!mine.count(f)) gone.insert(f);
  gone.insert("metadata.json");
  gone.insert("parts.json");
  for (const std::string& f : gone) {
    std::error_code ec;
    if (fs::is_regular_file(dir + "/" + f, ec) || fs::is_symlink(dir + "/" + f, ec)) {
      io::remove_if_exists(dir + "/" + f);
      claim.removed.push_back(f);
    }
  }
  for (const std::string& e : entries(dir)) {
    const std::string b = base_name(e);
    if (tool_pattern(b) && (!keep_parts || b[0] == '.')) {  // parts stay for a resumed run, temporaries never
      io::remove_if_exists(dir + "/" + e);
      claim.removed.push_back(e);
    }
  }
  std::error_code ec;
  if (fs::is_directory(dir + "/salib", ec) && fs::is_empty(dir + "/salib", ec)) fs::remove(dir + "/salib", ec);
  const nlohmann::json manifest = {{"impactbatch_outputs", 1},
                                   {"note", "the files an impactbatch study writes in this folder; the next study "
                                            "run here removes them first (docs/study.md)"},
                                   {"files", files}};
  io::write_file(dir + "/" + kOutputManifest, manifest.dump(1) + "\n");
  return claim;
}

std::string claim_note(const FolderClaim& claim) {
  if (claim.removed.empty() && !claim.forced) return "";
  std::string s = "output folder: ";
  if (claim.forced) s += "not a study's, written into with --force; ";
  s += std::to_string(claim.removed.size()) + " file(s) of an earlier run removed";
  for (std::size_t i = 0; i < claim.removed.size() && i < 4; ++i) s += (i ? ", " : " (") + claim.removed[i];
  if (claim.removed.size() > 4) s += ", ...";
  if (!claim.removed.empty()) s += ")";
  return s;
}

}  // namespace impact::study
