#include "study/output_folder.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <stdexcept>

#include "resume/parts.hpp"

namespace impact::study {

std::vector<std::string> study_output_files(const StudyConfig& c, const std::vector<std::string>& tables) {
  std::vector<std::string> v = tables;
  if (!c.sens_outputs.empty()) v.emplace_back("sensitivity.csv");
  if (!c.sens_outputs.empty() && c.design.second_order) v.emplace_back("sensitivity2.csv");
  if (writes_salib_problem(c)) v.emplace_back("salib/problem.json");
  v.emplace_back("summary.md");
  v.emplace_back("metadata.json");
  for (const PlotSpec& p : c.plots) v.push_back(p.file);
  v.emplace_back("parts.json");
  return v;
}

FolderClaim claim_output_folder(const std::string& dir, const std::vector<std::string>& files, bool force,
                                const std::vector<std::string>& tables, std::uint64_t parts) {
  resume::FolderRequest r;
  r.dir = dir;
  r.kind = kStudyKind;
  r.files = files;
  r.parts_of = tables;
  r.parts = parts;
  r.removed_first = {"metadata.json", "parts.json"};
  r.force = force;
  return resume::claim_folder(r);
}

MergeOutcome merge_folder(const std::string& dir) {
  MergeOutcome o;
  io::check_folder_name(dir, "--merge");
  io::check_real_folder(dir, "--merge");
  for (const char* name : {"parts.json", "metadata.json"}) {  // read only as regular files (a FIFO would never end)
    struct stat st {};
    if (::lstat((dir + "/" + name).c_str(), &st) == 0 && !S_ISREG(st.st_mode))
      throw std::runtime_error(dir + "/" + name + ": not a regular file: nothing merged");
  }
  {
    std::ifstream meta(dir + "/metadata.json");
    if (meta) o.metadata = nlohmann::json::parse(meta, nullptr, false);
    if (o.metadata.is_discarded()) o.metadata = nullptr;
  }
  resume::PartsManifest m = resume::read_parts_manifest(dir);
  bool study = false;
  resume::FolderFiles own = resume::manifest_files(dir, kStudyKind, study);
  if (!study)
    throw std::runtime_error(dir + ": no study's manifest (" + io::kFolderManifest +
                             ") is there: a merge writes only into a study's folder");
  for (const std::string& f : m.files)
    if (std::find(own.files.begin(), own.files.end(), f) == own.files.end())
      throw std::runtime_error(dir + "/parts.json: its table " + f + " is no file of the study's manifest: nothing merged");
  const nlohmann::json& meta = o.metadata;
  const std::uint64_t said =
      meta.is_object() && meta.contains("rows") && meta["rows"].is_number_unsigned() ? meta["rows"].get<std::uint64_t>() : 0;
  if (m.total && said && m.total != said)
    throw std::runtime_error(dir + ": parts.json says the run has " + std::to_string(m.total) + " rows, metadata.json " +
                             std::to_string(said) + ": nothing merged");
  if (!m.total) m.total = said;
  if (!m.total)
    throw std::runtime_error(dir +
                             ": neither parts.json nor metadata.json says how many rows the run has: nothing "
                             "merged (run the study again)");
  // every table of the run: one parts.json lists, or a whole file already there (a table dropped
  // from parts.json would lose its parts with parts.json)
  if (meta.is_object() && meta.contains("files") && meta["files"].is_array())
    for (const nlohmann::json& f : meta["files"]) {
      if (!f.is_string()) continue;
      const std::string t = f.get<std::string>();
      struct stat st {};
      if (std::find(m.files.begin(), m.files.end(), t) == m.files.end() && ::lstat((dir + "/" + t).c_str(), &st) != 0)
        throw std::runtime_error(dir + ": metadata.json lists the table " + t + ", which parts.json does not list and " +
                                 "the folder does not hold: parts.json lacks a table; nothing merged");
    }
  const std::set<std::string> merged(m.files.begin(), m.files.end());
  for (const std::string& t : own.parts_of)  // a part the manifest lists, of a table parts.json does not
    for (std::uint64_t k = 0; !merged.count(t) && k < own.parts; ++k) {
      const std::string e = io::part_file_name(t, static_cast<int>(k));
      struct stat st {};
      if (::lstat((dir + "/" + e).c_str(), &st) == 0)
        throw std::runtime_error(dir + "/" + e + ": a part of " + t +
                                 ", a table parts.json does not list: parts.json "
                                 "lacks a table; nothing merged");
    }
  resume::check_no_parts_beyond(dir, m);
  o.bytes = resume::merge_parts(dir, m);
  // the manifest without the parts merged and gone
  std::vector<std::string> still;
  for (const std::string& t : own.parts_of)
    if (!merged.count(t)) still.push_back(t);
  own.parts_of = still;
  if (still.empty()) own.parts = 0;
  resume::write_manifest(dir, own);
  o.parts = m.rows.size();
  o.files = m.files.size();
  return o;
}

}  // namespace impact::study
