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
#include "io/folder_names.hpp"

namespace impact::resume {

// "jia.npy" -> "jia.part-00003.npy", "salib/jia_P_n.txt" -> "salib/jia_P_n.part-00003.txt" (the
// one grammar of part names, which the output folder's claim reads too).
using io::part_file_name;

struct PartsManifest {
  std::vector<std::uint64_t> first, rows;      // per part: its design rows [first, first + rows)
  std::vector<std::string> files;              // the final files, relative to the folder (StudyFiles::names)
  std::vector<std::vector<io::FileSum>> sums;  // per part, per file (files' order): its size and CRC-32
  std::string run;                             // the run that wrote them (the CRC-32 of its key, hex)
  std::uint64_t total = 0;                     // the run's rows (its design's): the parts hold exactly these;
                                               // 0 when parts.json is of a version that did not say (2)
};

// DIR/parts.json, written through an io::OutFile (version 3: with the run's row count).
void write_parts_manifest(const std::string& dir, const PartsManifest& m);
// Reads DIR/parts.json (std::runtime_error naming the file and what is wrong: missing, not the
// manifest or of an earlier version without checksums, parts not contiguous from row 0, holding
// more rows than the run's, a sum missing, a file name that is no owned name of the folder).
PartsManifest read_parts_manifest(const std::string& dir);

// Writes every file of the manifest from its parts in part order (the header of part 0, a .npy's
// with the total row count, then every part's rows). Before anything is written the parts are
// checked against the run: parts 0..K-1 hold rows 0..m.total exactly (a part missing at the end of
// parts.json is a gap like any other), and every part is a regular file, not a link, of the size
// and CRC-32 parts.json gives it (a part of another run, or of another position, is refused by
// name); then while merging its header and row count. All files are complete before the parts and
// parts.json are removed. Throws std::runtime_error naming the part at fault (nothing written or
// removed). Returns the bytes written.
std::uint64_t merge_parts(const std::string& dir, const PartsManifest& m);

// Throws std::runtime_error when DIR holds a part of a listed file beyond the K parts listed: a
// parts.json that lacks parts (`impact study --merge`, which knows the run only from the folder;
// the run that wrote the parts knows them).
void check_no_parts_beyond(const std::string& dir, const PartsManifest& m);

// The part files of a manifest (relative to the folder), e.g. for removing them after a failure.
std::vector<std::string> part_files(const PartsManifest& m);

}  // namespace impact::resume
