#include "io/samples_file.hpp"

#include "io/csv.hpp"
#include "io/npy.hpp"
#include "io/out_file.hpp"

namespace impact::io {

void write_samples_files(const std::string& dir, const std::vector<std::string>& id_names, const std::vector<std::string>& names,
                         const std::vector<std::string>& titles, std::size_t rows, const SampleRow& row) {
  OutFile csv(dir + "/samples.csv"), npy(dir + "/samples.npy");
  std::string head;
  std::vector<NpyField> fields;
  const auto title = [&](std::size_t k) { return titles.size() == names.size() + 1 ? titles[k] : std::string(); };
  for (const std::string& n : id_names) head += (head.empty() ? "" : ",") + n, fields.emplace_back(n, "<u8");
  for (std::size_t k = 0; k < names.size(); ++k) head += "," + names[k], fields.emplace_back(names[k], "<f8", title(k));
  csv.put(head + ",logp\n");
  fields.emplace_back("logp", "<f8", title(names.size()));
  write_npy_header(npy, fields, rows);
  std::vector<std::uint64_t> ids(id_names.size());
  std::vector<double> values(names.size() + 1);
  std::string line, rec;
  for (std::size_t i = 0; i < rows; ++i) {
    row(i, ids.data(), values.data());
    line.clear();
    rec.clear();
    for (std::size_t k = 0; k < ids.size(); ++k) line += (k ? "," : "") + std::to_string(ids[k]);
    // x86-64 is little-endian, as the "<u8"/"<f8" fields say
    rec.append(reinterpret_cast<const char*>(ids.data()), ids.size() * sizeof(std::uint64_t));
    for (double v : values) {
      line += ',';
      append_number(line, v);
    }
    rec.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(double));
    line += '\n';
    csv.put(line);
    npy.put(rec);
  }
  csv.commit();
  npy.commit();
}

}  // namespace impact::io
