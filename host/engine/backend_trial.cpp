#include "engine/backend_trial.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <mutex>
#include <stdexcept>

namespace impact::engine {

namespace {

// The least of `repeats` timings of a batch of `rows` rows.
double least_time(const TrialCandidate& c, std::size_t rows, int repeats) {
  double best = HUGE_VAL;
  for (int r = 0; r < std::max(repeats, 1); ++r) best = std::min(best, c.seconds_for(rows));
  return best;
}

// One candidate's line (sizes as TrialSizes says).
BatchCost line_of(const TrialCandidate& c, std::size_t rows, const TrialSizes& sz) {
  const std::size_t least = std::min(std::max<std::size_t>(sz.least, 1), std::max<std::size_t>(rows / 8, 1));
  (void)c.seconds_for(least);  // untimed: what a first call pays once
  std::map<std::size_t, double> t;
  for (std::size_t s = least;; s = std::min(2 * s, rows)) {
    t[s] = least_time(c, s, sz.repeats);
    if (t[s] >= sz.enough_s || s == rows) break;
  }
  if (t.size() == 1) {  // the least size took enough_s already: one larger batch for a line
    const std::size_t s = std::min(2 * least, rows);
    t[s] = least_time(c, s, sz.repeats);
  }
  const std::size_t large = t.rbegin()->first;
  std::size_t small = t.begin()->first;
  for (const auto& [s, _] : t)
    if (s <= large / 8) small = s;
  return cost_from_two_batches(c.backend, double(small), t[small], double(large), t[large]);
}

std::mutex known_mutex;
std::map<std::string, std::vector<BatchCost>>& known() {
  static std::map<std::string, std::vector<BatchCost>> k;
  return k;
}

}  // namespace

std::vector<BatchCost> trial_costs(const std::vector<TrialCandidate>& candidates, std::size_t rows, const TrialSizes& sizes,
                                   std::string* dropped) {
  if (rows < 2) throw std::invalid_argument("trial_costs: a trial needs at least 2 rows");
  std::vector<BatchCost> costs;
  for (const TrialCandidate& c : candidates) {
    try {
      costs.push_back(line_of(c, rows, sizes));
    } catch (const std::exception& e) {
      if (dropped) *dropped += std::string(dropped->empty() ? "" : "; ") + backend_name(c.backend) + ": " + e.what();
    }
  }
  return costs;
}

const std::vector<BatchCost>* costs_known(const std::string& key) {
  const std::lock_guard<std::mutex> lock(known_mutex);
  const auto it = known().find(key);
  return it == known().end() ? nullptr : &it->second;  // entries are never erased or replaced
}

void remember_costs(const std::string& key, const std::vector<BatchCost>& costs) {
  const std::lock_guard<std::mutex> lock(known_mutex);
  known().emplace(key, costs);
}

template <class T>
TrialBatch<T>::TrialBatch(std::vector<std::pair<Backend, BatchFn<T>>> candidates, double batch_rows, std::string key,
                          std::string aside, TrialSizes sizes)
    : candidates_(std::move(candidates)), batch_rows_(batch_rows), key_(std::move(key)), aside_(std::move(aside)), sizes_(sizes) {
  if (candidates_.empty()) throw std::invalid_argument("TrialBatch: no candidate backend");
  for (std::size_t k = 0; k < candidates_.size(); ++k) {
    if (!candidates_[k].second)
      throw std::invalid_argument(std::string("TrialBatch: no entry point on ") + backend_name(candidates_[k].first));
    // lines are known for a set of candidates: another set (a call under kParallelRows rows with
    // serial, a larger one with cuda) is timed anew
    if (!key_.empty()) key_ += std::string(k ? ", " : " among ") + backend_name(candidates_[k].first);
  }
}

template <class T>
TrialBatch<T> TrialBatch<T>::for_law(const LawInfo& law, const LawOptions& opt, const AutoCandidates& candidates,
                                     double batch_rows) {
  std::vector<std::pair<Backend, BatchFn<T>>> fns;
  std::string aside = candidates.no_gpu.empty() ? "" : "cuda not a candidate: " + candidates.no_gpu;
  const char* precision = sizeof(T) == 8 ? "double" : "float";
  for (Backend b : candidates.backends) {
    if (BatchFn<T> f = batch_fn<T>(law, b)) fns.emplace_back(b, f);
    else
      aside += std::string(aside.empty() ? "" : "; ") + backend_name(b) + " has no " + precision + " entry point for " + law.name;
  }
  const std::string key =
      law.name + " " + precision + ", " + std::to_string(opt.steps) + " steps, " + integrator_name(opt.integrator);
  return TrialBatch(std::move(fns), batch_rows, key, aside);
}

template <class T>
void TrialBatch<T>::operator()(const BatchIn<T>& in, const BatchOut<T>& out, const LawOptions& opt) {
  if (!decided_) {
    decided_ = true;
    std::vector<BatchCost> costs;
    std::string dropped, from;
    if (const std::vector<BatchCost>* k = key_.empty() ? nullptr : costs_known(key_)) {
      costs = *k;
      from = "from a trial earlier in this process: ";
    } else if (in.count >= 2) {
      std::vector<TrialCandidate> cs;
      for (const auto& [b, fn] : candidates_) {
        cs.push_back({b, [&in, &out, &opt, fn = fn](std::size_t rows) {
                        BatchIn<T> part = in;
                        part.count = rows;
                        const auto t0 = std::chrono::steady_clock::now();
                        fn(part, out, opt);
                        return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
                      }});
      }
      costs = trial_costs(cs, in.count, sizes_, &dropped);
      // a stop raised during the trial ended its instances early (LawOptions::stop): such times are
      // not the batches' cost, and the front end drops the call anyway
      const bool stopped = opt.stop && *opt.stop != 0;
      if (!key_.empty() && dropped.empty() && !stopped) remember_costs(key_, costs);
      from = "trial of batches of up to " + std::to_string(in.count) + " rows: ";
    }
    if (costs.empty()) {
      why_ = std::string(" (auto: ") +
             (in.count < 2 ? "too few rows for a trial" : "every candidate failed its trial: " + dropped) + ", " +
             backend_name(candidates_[0].first) + (aside_.empty() ? "" : "; " + aside_) + ")";
      chosen_ = 0;
    } else {
      const CostPick pick = cheapest(costs, std::max(batch_rows_, 1.0));
      for (std::size_t k = 0; k < candidates_.size(); ++k)
        if (candidates_[k].first == costs[pick.best].backend) chosen_ = k;
      why_ = " (auto: " + from + pick.why + (dropped.empty() ? "" : "; failed in the trial: " + dropped) +
             (aside_.empty() ? "" : "; " + aside_) + ")";
    }
  }
  candidates_[chosen_].second(in, out, opt);
}

template class TrialBatch<double>;
template class TrialBatch<float>;

}  // namespace impact::engine
