#include "input.hpp"

namespace impact::host {

const char* const kInputNames[kNumInputs] = {"W_xx", "W_xy", "W_xz", "W_yy", "W_yz", "W_zz", "n_x", "n_y",
                                             "n_z",  "v_x",  "v_y",  "v_z",  "mu",   "e",    "e_t", "eta0"};
const char* const kOutputNames[8] = {"P_x", "P_y", "P_z", "vf_x", "vf_y", "vf_z", "dE", "status"};

InputLayout read_header(CsvReader& reader, const LawInfo& law, bool with_outputs) {
  std::vector<CsvField> fields;
  if (!reader.next(fields)) throw InputError(reader.path() + ": empty file: expected a header row");
  InputLayout lay;
  lay.ncols = fields.size();
  std::unordered_map<std::string, std::size_t> index;
  for (std::size_t c = 0; c < lay.ncols; ++c) {
    std::string name(fields[c].text);
    while (!name.empty() && (name.back() == ' ' || name.back() == '\t')) name.pop_back();
    while (!name.empty() && (name.front() == ' ' || name.front() == '\t')) name.erase(0, 1);
    if (name.empty())
      throw InputError(located(reader.path(), reader.line_no(), fields[c].col, "empty column name in header"));
    if (!index.emplace(name, c).second)
      throw InputError(located(reader.path(), reader.line_no(), fields[c].col, "duplicate column '" + name + "'"));
  }
  lay.header = reader.raw();
  lay.header_line = reader.line_no();
  for (int k = 0; k < 12; ++k) lay.needed[k] = true;
  lay.needed[12] = law.uses_mu;
  lay.needed[13] = law.uses_e;
  lay.needed[14] = law.uses_et;
  lay.needed[15] = law.uses_eta0;
  std::string missing;
  for (int k = 0; k < kNumInputs; ++k) {
    lay.col_of[k] = 0;
    if (!lay.needed[k]) continue;
    auto it = index.find(kInputNames[k]);
    if (it == index.end()) {
      missing += missing.empty() ? "" : ", ";
      missing += kInputNames[k];
    } else {
      lay.col_of[k] = it->second;
    }
  }
  if (!missing.empty())
    throw InputError(located(reader.path(), lay.header_line, 0,
                             "missing column(s) " + missing + " required by law '" + law.name + "'"));
  lay.out_names.assign(std::begin(kOutputNames), std::end(kOutputNames));
  for (const ExtraColumn& x : law.extras) lay.out_names.push_back(x.name);
  if (with_outputs) {
    std::string absent;
    for (const std::string& o : lay.out_names) {
      auto it = index.find(o);
      if (it == index.end()) {
        absent += absent.empty() ? "" : ", ";
        absent += o;
        continue;
      }
      lay.out_col.push_back(it->second);
    }
    if (!absent.empty())
      throw InputError(located(reader.path(), lay.header_line, 0,
                               "missing result column(s) " + absent + " of law '" + law.name +
                                   "' (expected a table written by `impact eval`)"));
    return lay;
  }
  for (const std::string& o : lay.out_names)
    if (index.count(o))
      throw InputError(located(reader.path(), lay.header_line, fields[index[o]].col,
                               "input column '" + o + "' collides with an output column of law '" + law.name +
                                   "'; rename it"));
  return lay;
}

template <class T>
bool read_row(CsvReader& reader, std::vector<CsvField>& fields, const InputLayout& lay, std::vector<T>* dst,
              std::size_t m) {
  if (!reader.next(fields)) return false;
  if (fields.size() != lay.ncols)
    throw InputError(located(reader.path(), reader.line_no(), 0,
                             "expected " + std::to_string(lay.ncols) + " fields as in the header, found " +
                                 std::to_string(fields.size())));
  for (int k = 0; k < kNumInputs; ++k) {
    if (!lay.needed[k]) continue;
    dst[k][m] = static_cast<T>(parse_number(fields[lay.col_of[k]], reader, kInputNames[k]));
  }
  return true;
}

template <class T>
BatchIn<T> InputColumns<T>::view(const InputLayout& lay, std::size_t offset, std::size_t count) const {
  BatchIn<T> b{};
  for (int k = 0; k < 6; ++k) b.W[k] = in[k].data() + offset;
  for (int k = 0; k < 3; ++k) b.n[k] = in[6 + k].data() + offset;
  for (int k = 0; k < 3; ++k) b.v[k] = in[9 + k].data() + offset;
  b.mu = lay.needed[12] ? in[12].data() + offset : nullptr;
  b.e = lay.needed[13] ? in[13].data() + offset : nullptr;
  b.e_t = lay.needed[14] ? in[14].data() + offset : nullptr;
  b.eta0 = lay.needed[15] ? in[15].data() + offset : nullptr;
  b.count = count;
  return b;
}

template <class T>
void OutputColumns<T>::resize(std::size_t n) {
  for (auto& c : P) c.resize(n);
  for (auto& c : vf) c.resize(n);
  dE.resize(n);
  In_c.resize(n);
  for (auto& c : aux) c.resize(n);
  modes.resize(n);
  steps.resize(n);
  status.resize(n);
}

template <class T>
BatchOut<T> OutputColumns<T>::view(std::size_t o) {
  BatchOut<T> b{};
  for (int k = 0; k < 3; ++k) b.P[k] = P[k].data() + o;
  for (int k = 0; k < 3; ++k) b.vf[k] = vf[k].data() + o;
  b.dE = dE.data() + o;
  b.In_c = In_c.data() + o;
  for (int k = 0; k < kAux; ++k) b.aux[k] = aux[k].data() + o;
  b.modes = modes.data() + o;
  b.steps = steps.data() + o;
  b.status = status.data() + o;
  return b;
}

Backend resolve_backend(const std::string& name, const std::string& precision, bool allow_reference) {
  std::string why;
  if (name == "auto") return cuda_usable(&why) ? Backend::cuda : Backend::omp;
  if (name == "cuda") {
    if (!cuda_usable(&why)) throw std::invalid_argument("backend 'cuda' is not usable: " + why);
    return Backend::cuda;
  }
  if (name == "omp") return Backend::omp;
  if (name == "serial") return Backend::serial;
  if (name == "reference" && allow_reference) {
    if (precision != "double")
      throw std::invalid_argument("backend 'reference' is double precision only (got --precision " + precision + ")");
    return Backend::reference;
  }
  throw std::invalid_argument("unknown backend '" + name + "' (known: auto, cuda, omp, serial" +
                              (allow_reference ? ", reference)" : ")"));
}

void check_law_options(const std::string& precision, const std::string& integrator, int steps) {
  if (precision != "double" && precision != "float")
    throw std::invalid_argument("precision must be 'double' or 'float', got '" + precision + "'");
  if (integrator != "rk4" && integrator != "euler")
    throw std::invalid_argument("integrator must be 'rk4' or 'euler', got '" + integrator + "'");
  if (steps < 1) throw std::invalid_argument("--steps must be >= 1");
}

template bool read_row<double>(CsvReader&, std::vector<CsvField>&, const InputLayout&, std::vector<double>*, std::size_t);
template bool read_row<float>(CsvReader&, std::vector<CsvField>&, const InputLayout&, std::vector<float>*, std::size_t);
template struct InputColumns<double>;
template struct InputColumns<float>;
template struct OutputColumns<double>;
template struct OutputColumns<float>;

}  // namespace impact::host
