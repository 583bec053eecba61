// `auto` from a trial on the run's own rows: each candidate backend times batches of the first rows
// it is given and is modelled as fixed cost + rows / rate (backend_cost.hpp); the cheapest for the
// run's batch evaluates every batch. What the rate model of backend_pick.hpp cannot know: what these
// rows cost (an integrator's steps on them, not on random contact) and what one batch costs on this
// machine whatever its rows (the GPU's launch, copies and wait; a thread team waking).
// docs/architecture.md, "Choosing the backend".
#pragma once
#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "engine/backend_cost.hpp"
#include "engine/backend_pick.hpp"
#include "engine/registry.hpp"

namespace impact::engine {

// One candidate of a trial: its backend and a clock of its batches (evaluates the first `rows` rows
// on hand and returns the seconds it took; may throw, and is then no longer a candidate).
struct TrialCandidate {
  Backend backend = Backend::omp;
  std::function<double(std::size_t rows)> seconds_for;
};

// The batches a trial times. Each candidate first makes one untimed call of the least size (a GPU's
// context and code, its buffers, a team's threads), then times sizes least, 2 least, 4 least, ...
// (each `repeats` times, the least time kept: a batch that grew a buffer or met a busy core is not
// the batch's cost) until one takes `enough_s` or the size reaches the rows on hand. Its line goes
// through the largest size L and the largest timed size at most L / 8 (the least size when L is
// under 8 x least): a long base for the rate, a batch of the least fixed cost's scale for the rest.
// A candidate's trial is bounded by about 2 x repeats x enough_s + the untimed call, whatever its rate.
struct TrialSizes {
  std::size_t least = 64;
  double enough_s = 0.02;
  int repeats = 3;
};

// Each surviving candidate's line (same order), from batches of up to `rows` rows (rows >= 2);
// `dropped` gets "cuda: <what it threw>" for each candidate that threw.
std::vector<BatchCost> trial_costs(const std::vector<TrialCandidate>& candidates, std::size_t rows, const TrialSizes& sizes,
                                   std::string* dropped = nullptr);

// The lines a trial found for `key` in this process, or null (a process that evaluates many tables
// or calls of one law, precision, options and device times them once).
const std::vector<BatchCost>* costs_known(const std::string& key);
void remember_costs(const std::string& key, const std::vector<BatchCost>& costs);

// A batch entry point that chooses its backend by a trial on its first batch, and then evaluates
// every batch, the first included, on the chosen one alone (the trial's outputs are overwritten:
// the results are the chosen backend's bits). `batch_rows`: the rows of the run's batches (an
// eval's chunk, or the table's rows when fewer), for which the cheapest line is chosen. `key`:
// costs_known's, completed with the candidates' names in order (lines are known for one set);
// an empty key is neither looked up nor remembered, nor are the lines of a trial during which a
// candidate threw or a stop was raised (LawOptions::stop: its instances ended early). `aside`: a clause the reason ends
// with (why a backend is not a candidate). Not thread-safe: one run's batches, one after another.
template <class T>
class TrialBatch {
 public:
  TrialBatch(std::vector<std::pair<Backend, BatchFn<T>>> candidates, double batch_rows, std::string key, std::string aside = "",
             TrialSizes sizes = {});
  // `law` with `opt` among auto_candidates' backends that have its entry point in T, keyed by the
  // law, precision and options (a process times them once), the reason ending with why cuda is not
  // a candidate when it is not, and which candidate has no entry point in T.
  static TrialBatch for_law(const LawInfo& law, const LawOptions& opt, const AutoCandidates& candidates, double batch_rows);
  void operator()(const BatchIn<T>& in, const BatchOut<T>& out, const LawOptions& opt);
  bool decided() const { return decided_; }
  Backend backend() const { return candidates_[chosen_].first; }  // the first candidate until decided
  // " (auto: trial of batches of up to N rows: <each line> = <its time> for a batch of M rows: <backend>; <aside>)"
  const std::string& why() const { return why_; }
  const std::string& key() const { return key_; }  // the key completed: "<key> among omp, serial"

 private:
  std::vector<std::pair<Backend, BatchFn<T>>> candidates_;
  double batch_rows_;
  std::string key_, aside_, why_;
  TrialSizes sizes_;
  std::size_t chosen_ = 0;
  bool decided_ = false;
};

}  // namespace impact::engine
