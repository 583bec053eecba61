// The table files of `impact study` (docs/study.md), written chunk by chunk into output.dir: per
// law LAW.csv and LAW.npy (sample_id, every scenario parameter, the law's output columns); with
// the salib format, the SALib Y file salib/LAW_COLUMN.txt of each kept column and design.txt
// (SALib's X: the varied parameters). Every file is an io::OutFile: it appears, complete, at
// commit().
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/options.hpp"
#include "io/out_file.hpp"
#include "study/columns.hpp"
#include "study/config.hpp"
#include "systems/scenarios.hpp"

namespace impact::study {

// The output.formats of a study.
struct Formats {
  bool csv = false, npy = false, salib = false;
  std::string note;  // why a configured format is not written (empty: every one is)
};
// The formats written for a study of `rows` rows: output.formats, without csv beyond
// output.csv_max_rows rows when npy is written (the same table, binary).
Formats formats_of(const StudyConfig& c, std::uint64_t rows);

// The files a study of `rows` rows writes, relative to output.dir (StudyFiles opens them, named for
// a part where it writes one): each law's CSV and .npy, then design.txt and the SALib Y files of
// the kept columns each law has.
std::vector<std::string> table_file_names(const StudyConfig& c, const std::vector<LawColumns>& laws,
                                          const std::vector<std::string>& kept, std::uint64_t rows);

// One law's rows of a chunk of the design, as the writers take them.
struct ChunkRows {
  std::uint64_t first = 0;               // sample_id of row 0
  std::size_t m = 0;                     // rows
  const double* values = nullptr;        // m x (scenario parameters): every parameter of each sample
  const double* out = nullptr;           // m x (the law's output columns); read only where the status is ok
  const std::uint8_t* status = nullptr;  // m: each row's final status
};

class StudyFiles {
 public:
  // Creates output.dir and opens the files of the study's formats with their headers: each law's
  // CSV and .npy, then the SALib Y files (of the kept columns each law has) and design.txt.
  // precision: a float study writes its laws' own outputs as float text in the CSV.
  // part >= 0: the files of one process's part of the design (`rows` rows; resume/parts.hpp), each a
  // complete file of its kind (the CSV and design.txt with their header line, the .npy with its
  // header), named part_file_name(name, part); an earlier metadata.json is left to the caller.
  StudyFiles(const StudyConfig& c, const systems::ScenarioInfo& sc, const design::Design& design,
             const std::vector<std::string>& kept, const std::vector<LawColumns>& laws, engine::Precision precision,
             int part = -1, std::uint64_t rows = 0);

  // Rows of design.txt: the design's values of a chunk (m x the varied parameters).
  void write_design(const double* u, std::size_t m);
  // Law l's rows of a chunk, and its kept columns' values (per kept column, m values; NaN where a
  // row has none) for the SALib Y files.
  void write_rows(std::size_t l, const ChunkRows& rows, const std::vector<std::vector<double>>& kept_values);
  // Finishes every file (each law's CSV, .npy and SALib Y files, then design.txt).
  void commit();

 private:
  struct LawFiles {
    io::OutFile csv, npy;
    std::vector<io::OutFile> salib;  // per kept column (not open where the law lacks it)
  };
  void open_tables(const std::string& dir, const LawColumns& lc, LawFiles& f, std::uint64_t rows);
  void open_salib(const std::string& dir, const std::vector<std::string>& kept);
  std::string path(const std::string& dir, const std::string& name) const;  // of a file of this part

  const systems::ScenarioInfo& sc_;
  const std::vector<LawColumns>& laws_;
  int part_;
  Formats formats_;
  std::vector<std::string> salib_text_;  // per kept column: a chunk's SALib lines
  bool float_text_;
  std::size_t nvar_;
  std::vector<LawFiles> files_;  // per law
  io::OutFile design_;
  std::vector<std::string> text_;  // per row of a chunk: its CSV line or .npy record
};

}  // namespace impact::study
