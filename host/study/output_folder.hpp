// A study owns its output folder (docs/study.md, "The output folder"): resume::claim_folder() with the
// kind "study" makes it this run's before the run writes anything (the one rule of
// resume/owned_folder.hpp: a run removes or replaces only what a study's manifest there lists, the
// parts and dead temporaries of those names, and the files of its own names; it follows no link).
// metadata.json and parts.json, the marks of a complete run and of its parts, go at the claim, so
// that a run that fails leaves neither; metadata.json, written last, says the run completed. A run
// in pieces lists its parts in the manifest, so that the next run may remove them.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "resume/owned_folder.hpp"
#include "study/config.hpp"

namespace impact::study {

using resume::claim_note;
using resume::FolderClaim;

// The kind a study's manifest names.
constexpr const char* kStudyKind = "study";

// Every file a run of c writes in its folder, relative to it: `tables` (run_layout's files),
// sensitivity.csv, summary.md, metadata.json, the plots and parts.json.
std::vector<std::string> study_output_files(const StudyConfig& c, const std::vector<std::string>& tables);

// Makes `dir` this study's (resume::claim_folder). A run in `parts` pieces names its `tables` (it writes
// parts 0..parts-1 of each): its manifest lists them, and they stay (a resumed run reads them back,
// a new one replaces them). Throws std::invalid_argument ("output.dir: DIR ...") for a folder a
// study may not take, std::runtime_error when a file cannot be removed or the manifest written.
FolderClaim claim_output_folder(const std::string& dir, const std::vector<std::string>& files, bool force,
                                const std::vector<std::string>& tables = {}, std::uint64_t parts = 0);

// NOLINTNEXTLINE(bugprone-exception-escape): its default constructor's nlohmann::json(), NOLINT in the library too
struct MergeOutcome {
  std::uint64_t bytes = 0;  // written
  std::size_t parts = 0, files = 0;
  nlohmann::json metadata;  // the folder's metadata.json (null when absent or unreadable)
};

// `impact study --merge DIR`: the tables of a study kept in parts, merged (resume::merge_parts). The
// folder must be a real folder holding a study's manifest that lists every table parts.json names
// (a merge writes only a study's own files), and the parts must hold the run's rows as parts.json
// and metadata.json say them (both, when both do). Throws std::runtime_error (nothing written).
MergeOutcome merge_folder(const std::string& dir);

}  // namespace impact::study
