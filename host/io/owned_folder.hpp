// A run's output folder and the one rule that guards it (docs/study.md, "The output folder"):
//
//   a run deletes or replaces only files it can prove are its own, by name, inside its folder,
//   and it never follows a link.
//
// claim_folder() is the only place that decides what a run may remove there, for every kind of run
// (a study, a calibration). A folder is a kind's only when it holds that kind's manifest,
// DIR/.impactbatch-outputs.json, which lists plain names and salib/NAME only; file names that look
// like a run's (parts, temporaries, metadata.json) prove nothing by themselves. What a claim may
// remove in a folder of its kind: the files the earlier manifest lists (a run in pieces lists its
// parts, NAME.part-NNNNN.EXT), and the temporaries of those and of this run's names whose process
// has ended (.NAME.tmp-PID-N). Of this run's own names it removes only links and `removed_first`:
// the others it replaces as it writes them (a resumed run reads its parts back first). Any other non-empty folder (one of another kind, one whose manifest is not
// well formed, a folder of other files) is refused unless `force`; then only this run's own names
// are replaced, nothing else is touched. Entries are reached through the folder's descriptor
// without following links (openat/unlinkat, O_NOFOLLOW): a link is removed or replaced as an entry,
// never written or read through, and the output folder itself (and its salib/ where the run writes
// there) must be a real folder. Then the new manifest is written, before any table, so that a run
// killed at any point is cleaned by the next of its kind.
#pragma once
#include <string>
#include <vector>

namespace impact::io {

// The manifest's name in an output folder.
constexpr const char* kFolderManifest = ".impactbatch-outputs.json";

// A name a run may own in its folder: a plain file name (not empty, no '/', not "." or "..", no
// control character, not the manifest), or "salib/" followed by one.
bool owned_name(const std::string& name);

// A folder name a run may write into: not empty, not only blanks, no NUL (a path formed from ""
// would be the filesystem's root: "" + "/" + NAME). kEmptyFolderName is what an error says of one.
bool usable_folder_name(const std::string& dir);
constexpr const char* kEmptyFolderName =
    "an empty folder name (name the folder the run writes into; \".\" is the current folder)";
// Throws std::invalid_argument("WHAT: " + kEmptyFolderName) unless usable_folder_name(dir).
void check_folder_name(const std::string& dir, const std::string& what);

// The part files of a table split over pieces: "jia.npy" -> "jia.part-00003.npy",
// "salib/jia_P_n.txt" -> "salib/jia_P_n.part-00003.txt", "design" -> "design.part-00003".
std::string part_file_name(const std::string& name, int part);
// The part index of `entry` when it is a part of `name` (part_file_name(name, k) == entry), else -1.
int part_index(const std::string& entry, const std::string& name);

struct FolderRequest {
  std::string dir;
  std::string kind;                         // "study", "calibration": a manifest of another kind is not ours
  std::vector<std::string> files;           // every name this run writes there (owned_name each)
  std::vector<std::string> removed_first;   // of `files`: removed now, before the run writes (metadata.json,
                                            // which marks a complete run, must not outlive the run that wrote it)
  bool force = false;                       // take a folder that is not this kind's (only `files` replaced)
  std::string what = "output.dir";          // the key that errors name
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

// Writes the manifest of a run of `kind` in `dir` listing `files` (what claim_folder writes first),
// e.g. again once a run's parts are merged and gone, so that the folder lists what it holds.
void write_manifest(const std::string& dir, const std::string& kind, const std::vector<std::string>& files);

// "output folder: N file(s) of an earlier run removed (a, b, ...)", "" when there were none.
std::string claim_note(const FolderClaim& claim);

// The names an earlier run's manifest in `dir` lists when it is a manifest of `kind` (a real
// file, well formed, every entry an owned_name); `found` says whether it is. Read without
// following links.
std::vector<std::string> manifest_files(const std::string& dir, const std::string& kind, bool& found);

// The entry a folder's spelling names: "out/", "out/." and "out//./" name "out", so that the entry
// itself is what is examined, never what a link of that name leads to.
std::string folder_entry(const std::string& path);

// Throws std::invalid_argument("WHAT: PATH is a link ...") when the entry `path` names
// (folder_entry) exists and is a symbolic link, or exists and is not a folder: a run writes into
// real folders only. The folders above it are the user's path, links among them (a scratch space
// reached through a link) as the user spelled them.
void check_real_folder(const std::string& path, const std::string& what);

}  // namespace impact::io
