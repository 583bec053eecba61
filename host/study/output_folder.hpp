// A study owns its output folder (docs/study.md, "The output folder"). Before a run writes anything,
// claim_output_folder() makes the folder this run's:
//   * a missing or empty folder is created;
//   * a folder an earlier run of impactbatch wrote (its manifest, DIR/.impactbatch-outputs.json, or,
//     from before manifests, its metadata.json) loses every file that run listed and this run does
//     not write (tables of other laws or formats, SALib files, sensitivity.csv, plots), its
//     metadata.json and parts.json, every part file and every io::OutFile temporary
//     (NAME.part-NNNNN.EXT, .NAME.tmp-PID-N: a killed run's); the files of this run's names are
//     replaced as it writes them (io::OutFile: all at once, a link of that name kept), files the
//     manifest does not list are left alone;
//   * any other non-empty folder is refused (it is not a study's: a typo in --out must not mix a
//     study's tables into someone's data), unless `force`: then its metadata.json, parts and
//     temporaries go, the files of this run's names are replaced, the rest stays.
// Then it writes the manifest of this run's files, before the first table, so that a run killed at
// any point is cleaned by the next. A resumed run in pieces keeps the parts (they are what it reads
// back). Nothing in the folder can therefore look like a result of this run but this run's files,
// and metadata.json, written last, says the run completed.
#pragma once
#include <string>
#include <vector>

#include "study/config.hpp"

namespace impact::study {

// The manifest's name in the output folder.
constexpr const char* kOutputManifest = ".impactbatch-outputs.json";

// Every file a run of c writes in its folder, relative to it: `tables` (run_layout's files),
// sensitivity.csv, summary.md, metadata.json, the plots and parts.json.
std::vector<std::string> study_output_files(const StudyConfig& c, const std::vector<std::string>& tables);

struct FolderClaim {
  std::vector<std::string> removed;  // earlier files removed, relative to the folder
  bool forced = false;               // the folder was not a study's and --force took it
};

// Makes `dir` this run's (see above). `keep_parts`: a resumed run in pieces (its parts stay).
// Throws std::invalid_argument ("output.dir: DIR ...") for a folder that is not a study's without
// `force`, std::runtime_error when a file cannot be removed or the manifest written.
FolderClaim claim_output_folder(const std::string& dir, const std::vector<std::string>& files, bool force,
                                bool keep_parts = false);

// "output folder: N files of an earlier run removed (a, b, ...)", "" when there were none.
std::string claim_note(const FolderClaim& claim);

}  // namespace impact::study
