// The names of a run's folder, as the rule of a run's folder reads them (resume/owned_folder.hpp):
// which names a run may own in it (plain names and salib/NAME), how a folder's spelling names its
// entry, when a folder name is usable at all, and the grammar of the parts of a table split over
// pieces. The grammar of temporaries (.NAME.tmp-PID-N) is io::OutFile's (out_file.hpp).
#pragma once
#include <string>

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

// The entry a folder's spelling names: "out/", "out/." and "out//./" name "out", so that the entry
// itself is what is examined, never what a link of that name leads to.
std::string folder_entry(const std::string& path);

// Throws std::invalid_argument("WHAT: PATH is a link ...") when the entry `path` names
// (folder_entry) exists and is a symbolic link, or exists and is not a folder, or when its spelling
// has ".." after a folder's name (through a link, x/.. is not the folder x is in): a run writes into
// real folders only. The folders above it are the user's path, links among them (a scratch space
// reached through a link) as the user spelled them.
void check_real_folder(const std::string& path, const std::string& what);

// The part files of a table split over pieces: "jia.npy" -> "jia.part-00003.npy",
// "salib/jia_P_n.txt" -> "salib/jia_P_n.part-00003.txt", "design" -> "design.part-00003".
std::string part_file_name(const std::string& name, int part);
// The part index of `entry` when it is a part of `name` (part_file_name(name, k) == entry), else -1.
int part_index(const std::string& entry, const std::string& name);

}  // namespace impact::io
