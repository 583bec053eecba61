// Rows of scenario parameter values through one law, as a study evaluates them: each row built
// into a contact-space instance by the scenario (a row it cannot build keeps the scenario's status
// and a placeholder instance), the law on the chosen backend and precision, then each ok row's
// output columns (study/columns.hpp: the contact-space outputs, the derived parts, the law's
// extras, the body-level outputs) and its final status (the build's, else the law's, else
// non_finite where an output that must be finite is not). The study's run uses it chunk by chunk
// (study/run.hpp); the calibration's model (host/calibrate) evaluates its batches through
// RowEvaluator.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/columns.hpp"
#include "engine/options.hpp"
#include "study/columns.hpp"
#include "systems/scenarios.hpp"

namespace impact::study {

// The samples of one chunk.
template <class T>
struct Chunk {
  std::size_t first = 0, m = 0;               // rows [first, first + m) of the design
  std::vector<double> design;                 // m x (varied parameters): the design's values
  std::vector<double> values;                 // m x (scenario parameters): every parameter of each sample
  std::vector<ContactProblem<double>> probs;  // each sample's instance (a placeholder where not buildable)
  std::vector<std::uint8_t> build_status;     // the scenario's status (0: ok)
  engine::InputColumns<T> in;                 // the instances as the laws' input columns

  void resize(std::size_t rows, std::size_t nvar, std::size_t nparams) {
    design.resize(rows * nvar);
    values.resize(rows * nparams);
    probs.resize(rows);
    build_status.resize(rows);
    in.resize(rows);
  }
  // Builds rows [0, m) from `values`: instances, statuses, input columns, over the OpenMP threads
  // when m >= parallel_from (rows are independent: the same bits either way). Returns the rows
  // the scenario could not build.
  std::uint64_t build_instances(const systems::ScenarioInfo& sc, std::size_t parallel_from = 1);
};

// One law's rows of a chunk: the output columns of each row (meaningful where its status is ok) and
// its final status.
struct LawRows {
  std::vector<double> out;  // m x (the law's output columns)
  std::vector<std::uint8_t> status;
};

// Each row's outputs and final status (the build status, else the law's, else non_finite); over
// the OpenMP threads when the chunk has parallel_from rows or more.
template <class T>
void law_rows(const LawColumns& lc, const systems::ScenarioInfo& sc, const Chunk<T>& ch, const engine::OutputColumns<T>& res,
              LawRows& rows, std::size_t parallel_from = 1);

// A RowEvaluator's batches below engine::kParallelRows rows stay on one thread: waking a team costs
// more than a few hundred rows gain (a calibration's batches are walkers/2 x experiments).

// One law on rows of scenario values, in the precision and on the backend given. Not thread-safe
// (it keeps its buffers); one per thread.
class RowEvaluator {
 public:
  RowEvaluator(const systems::ScenarioInfo& sc, const engine::LawInfo& law, engine::Backend backend, engine::Precision precision,
               const LawOptions& opt);
  const std::vector<StudyColumn>& columns() const { return lc_.cols; }
  int column(const std::string& name) const;  // its index in columns(), or -1
  // values: m x sc.params.size() (every parameter, in the scenario's order); rows: m x columns()
  // and m statuses. Returns the seconds spent in the law.
  double evaluate(const double* values, std::size_t m, LawRows& rows);
  // The same for rows whose instances were built already: probs[i] and build_status[i] are what
  // the scenario's build() gives values row i (the caller's promise; e.g. an instance built once,
  // its law parameters set per row, which build() only copies). Skips the build.
  double evaluate_built(const double* values, const ContactProblem<double>* probs, const std::uint8_t* build_status,
                        std::size_t m, LawRows& rows);

 private:
  template <class T>
  double run(Chunk<T>& ch, engine::OutputColumns<T>& res, const double* values, std::size_t m, LawRows& rows,
             const ContactProblem<double>* probs, const std::uint8_t* build_status);
  const systems::ScenarioInfo& sc_;
  LawColumns lc_;
  engine::Backend backend_;
  engine::Precision precision_;
  LawOptions opt_;
  Chunk<float> chf_;
  Chunk<double> chd_;
  engine::OutputColumns<float> resf_;
  engine::OutputColumns<double> resd_;
};

}  // namespace impact::study
