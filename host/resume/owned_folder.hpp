// A run's output folder and the one rule that guards it (docs/study.md, "The output folder"):
//
//   a run deletes or replaces only files it can prove are its own, by name, inside its folder,
//   and it never follows a link.
//
// claim_folder() is the only place that decides what a run may remove there, for every kind of run
// (a study, a calibration); the names it reads are io/folder_names.hpp's. A folder is a kind's only when it holds that kind's manifest,
// DIR/.impactbatch-outputs.json, which lists plain names and salib/NAME only; file names that look
// like a run's (parts, temporaries, metadata.json) prove nothing by themselves. What a claim may
// remove in a folder of its kind: the files the earlier manifest lists (a run in pieces lists its
// parts, NAME.part-NNNNN.EXT), and the temporaries of those and of this run's names whose process
// has ended (.NAME.tmp-PID-N). Of this run's own names it removes only links and `removed_first`:
// the others it replaces as it writes them (a resumed run reads its parts back first). Any other
// non-empty folder (one of another kind, one whose manifest is not well formed, a folder of other
// files) is refused unless `force`; then only this run's own names are replaced, nothing else is
// touched. Entries are reached through the folder's descriptor
// without following links (openat/unlinkat, O_NOFOLLOW): a link is removed or replaced as an entry,
// never written or read through, and the output folder itself (and its salib/ where the run writes
// there) must be a real folder. Then the new manifest is written, before any table, so that a run
// killed at any point is cleaned by the next of its kind.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "io/folder_names.hpp"

namespace impact::resume {

// What a manifest says a run of its kind writes in its folder: `files`, and for a run in pieces the
// parts 0..parts-1 of each of `parts_of` (its tables: NAME.part-NNNNN.EXT, part_file_name).
struct FolderFiles {
  std::string kind;
  std::vector<std::string> files;
  std::vector<std::string> parts_of;
  std::uint64_t parts = 0;
  // Whether `name` is one of them.
  bool lists(const std::string& name) const;
};

struct FolderRequest {
  std::string dir;
  std::string kind;                   // "study", "calibration": a manifest of another kind is not ours
  std::vector<std::string> files;     // every name this run writes there (owned_name each)
  std::vector<std::string> parts_of;  // a run in pieces: the tables it writes in `parts` parts too
  std::uint64_t parts = 0;
  std::vector<std::string> removed_first;  // of `files`: removed now, before the run writes (metadata.json,
                                           // which marks a complete run, must not outlive the run that wrote it)
  bool force = false;                      // take a folder that is not this kind's (only `files` replaced)
  std::string what = "output.dir";         // the key that errors name
};

struct FolderClaim {
  std::vector<std::string> removed;  // entries removed, relative to the folder
  bool forced = false;               // the folder was not this kind's and `force` took it
};

// Makes r.dir this run's (see above). Throws std::invalid_argument ("WHAT: DIR ...: what to do")
// for a folder the run may not take (not this kind's without force, a link, a manifest entry that
// is no owned_name, another process writing one of the run's names now, a folder where the run
// writes a file), std::runtime_error when an entry cannot be removed or the manifest written.
FolderClaim claim_folder(const FolderRequest& r);

// Writes the manifest of `f` in `dir` (what claim_folder writes first), e.g. again once a run's
// parts are merged and gone, so that the folder lists what it holds.
void write_manifest(const std::string& dir, const FolderFiles& f);

// "output folder: N file(s) of an earlier run removed (a, b, ...)", "" when there were none.
std::string claim_note(const FolderClaim& claim);

// What an earlier run's manifest in `dir` lists when it is a manifest of `kind` (a real file, well
// formed, every entry an owned_name); `found` says whether it is. Read without following links.
FolderFiles manifest_files(const std::string& dir, const std::string& kind, bool& found);

}  // namespace impact::resume
