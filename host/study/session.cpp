#include "study/session.hpp"

#include <algorithm>
#include <stdexcept>

#include "engine/backend_pick.hpp"
#include "engine/registry.hpp"
#include "io/machine.hpp"
#include "study/output_folder.hpp"
#include "systems/scenarios.hpp"

namespace impact::study {

using io::gib;

namespace {

// The run's buffers and what grows with its rows, with the design's own memory, within what a
// study may use (design::memory_budget_bytes()): checked before anything is allocated.
void check_memory(const io::ConfigTree& tree, const StudyConfig& c, const design::Design& design) {
  const RunMemory m = run_memory_bytes(c, *systems::find_scenario(c.scenario), design.rows());
  const double own = design_memory_bytes(c.params, c.design), budget = design::memory_budget_bytes();
  if (own + m.chunks + m.rows <= budget) return;
  const std::string limit = ", more than the " + gib(budget) + " a study may use (half of the available memory, or of ulimit -v)";
  if (m.rows > m.chunks)
    throw io::ConfigError(tree.at("design.n") + "design.n: the sensitivity outputs of " + std::to_string(design.rows()) +
                          " rows need " + gib(m.rows) + " (every row of each is kept for the Sobol indices)" + limit +
                          "; use fewer rows");
  throw io::ConfigError(tree.at("run.chunk") + "run.chunk: chunks of " +
                        std::to_string(std::min<std::uint64_t>(c.chunk, design.rows())) + " rows need " + gib(m.chunks) +
                        " of buffers" + limit + "; use a smaller run.chunk (memory is flat in the number of rows)");
}

}  // namespace

LoadedStudy load_study(const StudyRequest& q) {
  io::ConfigTree tree = q.text.empty() ? io::load_config_file(q.config) : io::parse_config_text(q.text, q.config, q.toml);
  for (const std::string& s : q.sets) io::apply_override(tree, s);
  if (!q.out.empty()) io::apply_override(tree, "output.dir=" + nlohmann::json(q.out).dump());
  if (!q.backend.empty()) io::apply_override(tree, "run.backend=" + nlohmann::json(q.backend).dump());
  LoadedStudy s;
  s.config = resolve_config(tree);
  // the design's messages start with the key, which gives the location
  try {
    std::vector<std::string> known;
    for (const systems::ScenarioParam& p : systems::find_scenario(s.config.scenario)->params) known.emplace_back(p.name);
    s.design = make_design(s.config.params, s.config.design, 0, known);
  } catch (const std::invalid_argument& e) {
    const std::string msg = e.what();
    throw io::ConfigError(tree.at(msg.substr(0, msg.find(':'))) + msg);
  }
  check_memory(tree, s.config, *s.design);
  return s;
}

ReportOptions study_options(const LoadedStudy& s, const StudyRequest& q, std::chrono::steady_clock::time_point start) {
  const StudyConfig& c = s.config;
  ReportOptions o;
  o.precision = c.precision;
  engine::Workload w;
  for (const std::string& name : c.laws) w.laws.push_back(&engine::law_named(name));
  w.precision = o.precision;
  w.steps = c.steps;
  w.rows = double(s.design->rows());
  const engine::BackendPick pick = engine::pick_backend(c.backend, w, true);
  o.backend = pick.backend;
  o.backend_why = pick.why;
  o.start = start;
  o.plots = q.plots;
  o.quiet = q.quiet;
  return o;
}

StudyOutcome run_study(const LoadedStudy& s, const StudyRequest& q, std::chrono::steady_clock::time_point start, std::FILE* log) {
  const StudyConfig& c = s.config;
  const systems::ScenarioInfo& sc = *systems::find_scenario(c.scenario);
  StudyOutcome o;
  o.options = study_options(s, q, start);
  const FolderClaim claim =
      claim_output_folder(c.out_dir, study_output_files(c, run_layout(c, sc, *s.design, o.options.backend).files), q.force);
  o.run = run(c, sc, *s.design, o.options.backend, o.options.precision, q.quiet ? nullptr : log);
  if (const std::string n = claim_note(claim); !n.empty()) o.run.notes.insert(o.run.notes.begin(), n);
  o.report = write_report(c, sc, *s.design, o.run, o.options, log ? log : stderr);
  return o;
}

}  // namespace impact::study
