// A study's tables in parts (docs/distributed.md): a run over K processes writes, per process, a part
// of every table (LAW.part-00003.npy, LAW.part-00003.csv, salib/LAW_COL.part-00003.txt,
// design.part-00003.txt), each a complete file of its kind holding a contiguous range of the
// design's rows, and parts.json says which rows each part holds and which files were written.
// merge_parts() reassembles the single process's files from them, byte for byte; `impact study
// --merge DIR` is that on a folder whose parts were kept (--keep-parts, or a merge that did not end).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "io/checksum.hpp"

namespace impact::resume {

// "jia.npy" -> "jia.part-00003.npy", "salib/jia_P_n.txt" -> "salib/jia_P_n.part-00003.txt".
std::string part_file_name(const std::string& name, int part);

struct PartsManifest {
  std::vector<std::uint64_t> first, rows;  // per part: its design rows [first, first + rows)
  std::vector<std::string> files;          // the final files, relative to the folder (StudyFiles::names)
  std::vector<std::vector<io::FileSum>> sums;  // per part, per file (files' order): its size and CRC-32
  std::string run;                         // the run that wrote them (the CRC-32 of its key, hex)
};

// DIR/parts.json, written through an io::OutFile.
void write_parts_manifest(const std::string& dir, const PartsManifest& m);
// Reads DIR/parts.json (std::runtime_error naming the file and what is wrong: missing, not the
// manifest or of an earlier version without checksums, parts not contiguous from row 0, a sum
// missing).
PartsManifest read_parts_manifest(const std::string& dir);

// Writes every file of the manifest from its parts in part order (the header of part 0, a .npy's
// with the total row count, then every part's rows). Every part is checked first against the
// manifest: present, a regular file of the size and CRC-32 parts.json gives it (a part of another
// run, or of another position, is refused by name), then while merging its header and row count;
// all files are complete before the parts and parts.json are removed, and with them any other part
// file in the folder (`stray`: their names; a part parts.json does not list belongs to no table).
// Throws std::runtime_error naming the part at fault (nothing written or removed). Returns the
// bytes written.
std::uint64_t merge_parts(const std::string& dir, const PartsManifest& m, std::vector<std::string>* stray = nullptr);

// Removes the temporary files of io::OutFile (.NAME.tmp-PID-N: a process killed while writing a
// part or a merged table) in DIR and DIR/salib, and with `parts` the part files (NAME.part-NNNNN.EXT) too, left
// by a run that did not end (a killed rank: no parts.json) or kept by an earlier one. Called before
// any process of a run writes.
void remove_stale_parts(const std::string& dir, bool parts = true);

// The part files of a manifest (relative to the folder), e.g. for removing them after a failure.
std::vector<std::string> part_files(const PartsManifest& m);

}  // namespace impact::resume
