#include "engine/run_keys.hpp"

#include <stdexcept>

namespace impact::engine {

using json = nlohmann::ordered_json;

std::vector<io::KeyDoc> run_key_docs(bool chunk, bool reference, std::uint64_t max_chunk) {
  std::vector<io::KeyDoc> k = {
      {"run.backend", "string", "auto", "",
       std::string("auto (the GPU when usable, else every CPU core), cuda, omp, serial") +
           (reference ? ", reference (the independent CPU reference, docs/cpu-reference.md)" : "")},
      {"run.precision", "string", "double", "", "double or float (the laws' arithmetic; float where it pays)"},
      {"run.integrator", "string", "rk4", "", "rk4 or euler: the integrators' fixed-step method"},
      {"run.steps", "integer", "250", "", "steps per instance of the integrators (jia, stronge)"}};
  if (chunk)
    k.push_back({"run.chunk", "integer", "65536", "",
                 "rows built, evaluated and written at a time (at most " + std::to_string(max_chunk) + ")"});
  return k;
}

void resolve_run_keys(const io::ConfigReader& r, const nlohmann::ordered_json& root, const RunKeys& k) {
  std::string precision = precision_name(k.precision), integrator = integrator_name(k.integrator);
  if (root.contains("run")) {
    const json& rn = r.table(root.at("run"), "run");
    r.expect_keys(rn, "run", io::keys_under(run_key_docs(k.chunk != nullptr, k.allow_reference, k.max_chunk), "run"));
    if (rn.contains("backend")) k.backend = r.str(rn.at("backend"), "run.backend");
    if (rn.contains("precision")) precision = r.str(rn.at("precision"), "run.precision");
    if (rn.contains("integrator")) integrator = r.str(rn.at("integrator"), "run.integrator");
    if (rn.contains("steps")) k.steps = static_cast<int>(r.integer(rn.at("steps"), "run.steps", 1, k.max_steps));
    if (k.chunk && rn.contains("chunk")) *k.chunk = r.integer(rn.at("chunk"), "run.chunk", 1, k.max_chunk);
  }
  if (k.backend != "auto" && k.backend != "cuda" && k.backend != "omp" && k.backend != "serial" &&
      !(k.allow_reference && k.backend == "reference"))
    r.fail("run.backend", std::string(k.allow_reference ? "expected auto, cuda, omp, serial or reference, got '"
                                                        : "expected auto, cuda, omp or serial, got '") +
                              k.backend + "'");
  try {
    k.precision = parse_precision(precision);
  } catch (const std::invalid_argument&) { r.fail("run.precision", "expected double or float, got '" + precision + "'"); }
  try {
    k.integrator = parse_integrator(integrator);
  } catch (const std::invalid_argument&) { r.fail("run.integrator", "expected rk4 or euler, got '" + integrator + "'"); }
  if (k.backend == "reference" && k.precision != Precision::f64) r.fail("run.backend", "the reference backend is double only");
}

}  // namespace impact::engine
