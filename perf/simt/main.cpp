// impact-simt: the SIMT model (perf/simt/simt.hpp, docs/bench.md "SIMT model") for every
// integrator law x precision x steps asked for, as a markdown table (and JSON with --json): how
// coherently the lanes of a warp run each CUDA schedule, predicted from CPU traces of the laws.
// A tool of the performance room (perf/README.md), not of the product.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/registry.hpp"
#include "io/config_tree.hpp"
#include "io/number.hpp"
#include "io/out_file.hpp"
#include "perf/simt/simt.hpp"
#include "systems/sample_spec.hpp"

namespace impact::perf {

namespace {

struct SimtArgs {
  std::vector<std::string> laws;        // empty: every law with probes
  std::vector<std::string> precisions;  // empty: double, float
  std::vector<int> steps;               // empty: 250, 1000
  std::string scenario = "contact";
  std::uint64_t seed = 1;
  std::vector<std::string> sets;  // KEY=DIST settings of the scenario
  int warps = 64, rounds = 8;     // warps and grid-stride rounds the model replays
  std::string local_traffic;      // a JSON of perf/sass/local_traffic.py: configurations to predict
  std::string json, markdown;     // "" none, "-" stdout
  bool quiet = false;
  bool levers = false;  // the table of the levers: predictors of the iteration count, instances per thread
};

// The run's laws, precisions, steps and instances, checked (usage errors throw invalid_argument).
struct SimtSpec {
  std::vector<const engine::LawInfo*> laws;
  std::vector<engine::Precision> precisions;
  std::vector<int> steps;
  SampleSpec sample;
  std::string scenario_name;
  std::uint64_t seed = 1;
};

SimtSpec spec_of(const SimtArgs& a) {
  SimtSpec s;
  if (a.laws.empty())
    for (const engine::LawInfo& l : engine::all_laws()) s.laws.push_back(&l);
  for (const std::string& n : a.laws) s.laws.push_back(&engine::law_named(n));
  for (const std::string& p : a.precisions) {
    if (p != "double" && p != "float") throw std::invalid_argument("unknown precision '" + p + "' (known: double, float)");
    s.precisions.push_back(engine::parse_precision(p));
  }
  if (s.precisions.empty()) s.precisions = {engine::Precision::f64, engine::Precision::f32};
  for (int st : a.steps) {
    if (st < 1) throw std::invalid_argument("--steps must be >= 1, got " + std::to_string(st));
    s.steps.push_back(st);
  }
  if (s.steps.empty()) s.steps = {250, 1000};
  if (a.warps < 1 || a.rounds < 1) throw std::invalid_argument("--warps and --rounds must be >= 1");
  if (!a.json.empty() && !a.markdown.empty() && io::same_destination(a.json, a.markdown))
    throw std::invalid_argument("--json " + a.json + " and --markdown " + a.markdown +
                                " name one file (standard output counts as one): name another for one of them");
  s.sample = systems::default_spec(systems::parse_scenario(a.scenario));
  s.scenario_name = a.scenario;
  for (const std::string& kv : a.sets) {
    systems::apply_setting(s.sample, kv);  // errors name the key
    s.scenario_name += " " + kv;
  }
  s.seed = a.seed;
  return s;
}

std::string fixed(double v, int digits) { return io::fixed_text(v, digits); }
std::string eng(double v) { return io::eng_text(v); }

// One kernel configuration of a --local-traffic file: a build's kernel for a law, precision and
// steps at `blocks` blocks per SM, with its local loads and stores per instance (per lane).
struct LocalConfig {
  std::string where, law, precision, label;
  int steps = 0, blocks = 0;
  perf::LocalTraffic local;
};

// The file perf/sass/local_traffic.py writes: {"local_traffic": [{"law", "precision", "steps", "label",
// "blocks", "loads", "stores"}, ...], "about": "..."}. Errors name the file, line and column.
std::vector<LocalConfig> read_local_traffic(const std::string& path) {
  const io::ConfigTree t = io::load_config_file(path);
  const io::ConfigReader r{t};
  r.expect_keys(r.table(t.root, ""), "", {"local_traffic", "about"});
  if (!t.root.contains("local_traffic")) r.fail("local_traffic", "missing (a list of configurations)");
  const auto& list = t.root["local_traffic"];
  if (!list.is_array() || list.empty()) r.fail("local_traffic", "expected a non-empty list of configurations");
  std::vector<LocalConfig> out;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string key = "local_traffic[" + std::to_string(i) + "]";
    const auto& e = r.table(list[i], key);
    r.expect_keys(e, key, {"law", "precision", "steps", "label", "blocks", "loads", "stores"});
    for (const char* k : {"law", "precision", "steps", "blocks", "loads", "stores"})
      if (!e.contains(k)) r.fail(key + "." + k, "missing");
    LocalConfig c;
    c.where = t.at(key);
    c.law = r.str(e["law"], key + ".law");
    c.precision = r.str(e["precision"], key + ".precision");
    if (c.precision != "double" && c.precision != "float") r.fail(key + ".precision", "expected double or float");
    c.label = e.contains("label") ? r.str(e["label"], key + ".label") : "";
    c.steps = static_cast<int>(r.integer(e["steps"], key + ".steps", 1, 1u << 30));
    c.blocks = static_cast<int>(r.integer(e["blocks"], key + ".blocks", 1, 64));
    c.local.loads = r.num(e["loads"], key + ".loads");
    c.local.stores = r.num(e["stores"], key + ".stores");
    if (!(c.local.loads >= 0 && c.local.loads < 1e12)) r.fail(key + ".loads", "expected a finite number >= 0");
    if (!(c.local.stores >= 0 && c.local.stores < 1e12)) r.fail(key + ".stores", "expected a finite number >= 0");
    out.push_back(c);
  }
  return out;
}

// The blocks that cost the most warp issue, with their own coherence: "name 37% (12.1)".
std::string top_blocks(const perf::SimtResult& r, int count) {
  std::string s;
  for (int i = 0; i < count && i < static_cast<int>(r.blocks.size()); ++i) {
    const perf::SimtBlockUse& b = r.blocks[i];
    s += (i ? ", " : "") + b.name + " " + fixed(100.0 * b.warp_issue / r.warp_issue, 0) + "% (" +
         fixed(b.lane_work / b.warp_issue, 1) + ")";
  }
  return s;
}

// One law's blocks under a schedule: share of the warp issue, active threads, code.
std::string where_table(const std::string& title, const perf::SimtResult& r) {
  std::string s = "\n" + title +
                  "\n\n| block | code | share of warp issue | active threads | lane work/instance |\n"
                  "| --- | --- | ---: | ---: | ---: |\n";
  for (const perf::SimtBlockUse& b : r.blocks)
    s += "| " + b.name + " | `" + b.code + "` | " + fixed(100.0 * b.warp_issue / r.warp_issue, 1) + "% | " +
         fixed(b.lane_work / b.warp_issue, 1) + " | " + fixed(b.lane_work, 0) + " |\n";
  return s;
}

// The rows of the configurations of one law, precision and steps (marked traced): each one's
// predicted time from the model run `de` at its blocks per SM with its local traffic, and its rate
// relative to the first of them.
std::string local_rows(const std::vector<LocalConfig>& configs, std::vector<bool>& traced, const std::string& law,
                       const std::string& precision, int steps, const perf::SimtResult& de, nlohmann::ordered_json& out) {
  std::string md;
  double first_ms = 0;
  for (std::size_t i = 0; i < configs.size(); ++i) {
    const LocalConfig& c = configs[i];
    if (c.law != law || c.precision != precision || c.steps != steps) continue;
    traced[i] = true;
    const double occ = perf::occupancy_of_blocks(c.blocks, perf::kSimtBlockWarps * 32);
    const double ms = 1e3 * perf::predicted_seconds(de, c.local, 1e6, occ);
    if (first_ms == 0) first_ms = ms;
    md += "| " + law + " | " + precision + " | " + std::to_string(steps) + " | " + c.label + " | " + std::to_string(c.blocks) +
          " | " + fixed(100 * occ, 2) + "% | " + fixed(c.local.loads, 0) + " / " + fixed(c.local.stores, 0) + " | " +
          fixed(ms, 1) + " | " + fixed(first_ms / ms, 2) + " |\n";
    out.push_back({{"label", c.label},
                   {"blocks", c.blocks},
                   {"occupancy", occ},
                   {"loads", c.local.loads},
                   {"stores", c.local.stores},
                   {"predicted_ms_per_1e6", ms}});
  }
  return md;
}

// Active threads per warp if a warp's lanes ran only their loop iterations, in batches of 32
// consecutive instances of the trace's key order.
double iteration_coherence(const perf::PathTrace& t) {
  return perf::iteration_coherence(perf::iterations_running(t, -1), t.key).active();
}

// The levers of docs/bench.md ("Two levers weighed on the model"), on the kernels' schedule (persistent lanes,
// deferred searches): the regime key against keys from predictors of each instance's iteration count
// (perf::predicted_count_keys; the oracle knows it, a log-correlation of 0.99 orders about as well
// as the key), each at one instance per thread at `blocks1` blocks per SM (the kernel's launch
// bound) and at two per thread at half of them (the registers per instance of one per thread) and
// one block more. Time per 1e6 instances, issue and latency
// (no local term), with GpuTiming's dependent share of the latency and with 0.74 (every stall but the
// issue and the scheduler's queue: an upper bound of what a second instance covers).
std::string lever_rows(const std::string& what, const perf::PathTrace& t0, const perf::SimtBlocks& blocks,
                       const perf::SimtGeometry& geom, int blocks1) {
  struct Key {
    std::string name;
    double outside, descent;  // log-correlations of the predictor; 0: the regime key
  };
  const std::vector<Key> keys = {{"regime key", 0, 0},
                                 {"oracle: the true count", 1, 1},
                                 {"count to 0.999", 0.999, 0.999},
                                 {"count to 0.995", 0.995, 0.995},
                                 {"count to 0.99", 0.99, 0.99},
                                 {"p-steps exact, tau-steps to 0.95", 1, 0.95},
                                 {"p-steps exact, tau-steps to 0.81", 1, 0.81},
                                 {"p-steps to 0.99, tau-steps exact", 0.99, 1}};
  perf::GpuTiming bound;
  bound.dependent_share = 0.74;
  std::string md;
  for (const Key& k : keys) {
    perf::PathTrace t = t0;
    if (k.outside > 0) t.key = perf::predicted_count_keys(t0, blocks.descent_block, k.outside, k.descent, 1);
    const double iter_active = iteration_coherence(t);
    for (int per_lane : {1, 2})
      for (int bl : per_lane == 1 ? std::vector<int>{blocks1} : std::vector<int>{blocks1 / 2, blocks1 / 2 + 1}) {
        const perf::SimtResult r = perf::simt_model(t, blocks, geom, perf::Schedule::deferred, per_lane);
        const double occ = perf::occupancy_of_blocks(bl, perf::kSimtBlockWarps * 32);
        md += "| " + what + " | " + k.name + " | " + std::to_string(per_lane) + " | " + std::to_string(bl) + " (" +
              fixed(100 * occ, 2) + "%) | " + fixed(iter_active, 2) + " | " + fixed(r.active_threads, 2) + " | " +
              fixed(r.warp_issue, 0) + " | " + fixed(100 * r.overlapped_issue / r.warp_issue, 0) + "% | " +
              fixed(1e3 * perf::predicted_seconds(r, 1e6, occ), 2) + " | " +
              fixed(1e3 * perf::predicted_seconds(r, 1e6, occ, bound), 2) + " |\n";
      }
  }
  return md;
}

// Two passes, the path split at the first iteration of the descent block (docs/bench.md, "Two passes: the
// path split at the first tau-step"), by loop iterations alone: the first pass sorted by the regime key,
// by the first-pass count of a run at `coarse_steps` steps (a key pass that runs the law at those steps:
// its iterations per instance against the law's) or by the count itself; the second by the regime key (no
// second sort), by predictors of its count, by the coarse run's second-pass count, or by the count.
// Beside them the one pass of today's kernels, by the regime key and by the whole count.
std::string pass_rows(const std::string& what, const perf::PathTrace& t, const perf::PathTrace& coarse, int coarse_steps,
                      int descent_block) {
  const perf::PassCounts c = perf::pass_counts(t, descent_block), cc = perf::pass_counts(coarse, descent_block);
  const std::vector<std::uint32_t> all = perf::iterations_running(t, -1);
  std::vector<std::uint8_t> second(c.second.size());
  double reached = 0;
  for (std::size_t i = 0; i < second.size(); ++i) reached += second[i] = c.second[i] > 0;
  const double one_key = perf::iteration_coherence(all, t.key).active();
  auto mean = [](const std::vector<std::uint32_t>& v) {
    double s = 0;
    for (std::uint32_t x : v) s += x;
    return v.empty() ? 0.0 : s / static_cast<double>(v.size());
  };
  const std::string coarse_name = std::to_string(coarse_steps) + "-step run (" +
                                  fixed(100 * mean(perf::iterations_running(coarse, -1)) / mean(all), 0) + "% of the iterations)";
  struct Row {
    std::string first_name, second_name;
    std::vector<std::uint32_t> first_key, second_key;
  };
  const std::vector<Row> rows = {
      {"regime key", "regime key (not sorted again)", t.key, t.key},
      {"regime key", "count to 0.81", t.key, perf::count_keys(c.second, 0.81, 3)},
      {"regime key", "count to 0.95", t.key, perf::count_keys(c.second, 0.95, 3)},
      {"regime key", "the count (oracle)", t.key, perf::count_keys(c.second, 1, 3)},
      {"regime key", coarse_name, t.key, perf::count_keys(cc.second, 1, 3)},
      {coarse_name, "the count (oracle)", perf::count_keys(cc.first, 1, 3), perf::count_keys(c.second, 1, 3)},
      {"the count (oracle)", "the count (oracle)", perf::count_keys(c.first, 1, 3), perf::count_keys(c.second, 1, 3)}};
  const double one_oracle = perf::iteration_coherence(all, perf::count_keys(all, 1, 3)).active();
  std::string md = "| " + what + " | one pass | regime key | | | | " + fixed(one_key, 2) + " | 1 |\n| " + what +
                   " | one pass | the count (oracle) | | | | " + fixed(one_oracle, 2) + " | " + fixed(one_oracle / one_key, 2) +
                   " |\n";
  for (const Row& r : rows) {
    const perf::IterationCoherence a = perf::iteration_coherence(c.first, r.first_key),
                                   b = perf::iteration_coherence(c.second, r.second_key, second);
    perf::IterationCoherence both = a;
    both += b;
    md += "| " + what + " | two passes (" + fixed(100 * reached / static_cast<double>(second.size()), 0) + "% in the second) | " +
          r.first_name + " | " + r.second_name + " | " + fixed(a.active(), 2) + " | " + fixed(b.active(), 2) + " | " +
          fixed(both.active(), 2) + " | " + fixed(both.active() / one_key, 2) + " |\n";
  }
  return md;
}

}  // namespace

int run_simt(const SimtArgs& a, std::FILE* table, std::FILE* log) {
  const SimtSpec spec = spec_of(a);
  const SampleSpec& sample = spec.sample;
  const bool all = a.laws.empty();
  perf::SimtGeometry geom;
  geom.warps = a.warps;
  geom.rounds = a.rounds;
  std::string md =
      "| law | precision | steps | instances | iterations | nested search: active | nested search: time | "
      "active threads/warp | warp issue/instance | "
      "refill: active | refill: time | sorted: active | sorted: time | sorted: ms per 1e6 at 12.5% / 25% occupancy | "
      "block wait, sorted / persistent | persistent: ms per 1e6 at 25% | deferred searches: active | "
      "deferred searches: ms per 1e6 at 25% | largest blocks (share of issue, active threads) |\n"
      "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | "
      "---: | --- |\n";
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  std::string where;  // per block of the kernels' schedule (deferred): its code, share of the issue, coherence
  const std::vector<LocalConfig> configs =
      a.local_traffic.empty() ? std::vector<LocalConfig>{} : read_local_traffic(a.local_traffic);
  std::vector<bool> config_traced(configs.size(), false);
  std::string local_md;   // the configurations' predicted times (--local-traffic)
  std::string levers_md;  // --levers
  std::string passes_md;  // --levers, a law with a descent block: two passes
  for (const engine::LawInfo* law : spec.laws) {
    if (!perf::simt_supported(law->name)) {
      if (all) continue;
      throw std::invalid_argument("law '" + law->name + "' has no path probes (the model covers jia and stronge)");
    }
    const perf::SimtBlocks blocks = perf::simt_blocks(law->name);
    for (int steps : spec.steps)
      for (engine::Precision p : spec.precisions) {
        LawOptions opt;
        opt.steps = steps;
        if (log && !a.quiet)
          std::fprintf(log, "impact-simt: tracing %s %s %d steps\n", law->name.c_str(), engine::precision_name(p), steps);
        const perf::PathTrace t = perf::trace_paths(law->name, p, sample, spec.seed, opt, geom);
        const perf::SimtResult gs = perf::simt_model(t, blocks, geom, perf::Schedule::grid_stride);
        const perf::SimtResult rf = perf::simt_model(t, blocks, geom, perf::Schedule::refill);
        const perf::SimtResult so = perf::simt_model(t, blocks, geom, perf::Schedule::sorted);
        const perf::SimtResult ne = perf::simt_model(t, blocks, geom, perf::Schedule::nested_search);
        const perf::SimtResult pe = perf::simt_model(t, blocks, geom, perf::Schedule::persistent);
        const perf::SimtResult de = perf::simt_model(t, blocks, geom, perf::Schedule::deferred);
        const double ms_125 = 1e3 * perf::predicted_seconds(so, 1e6, 0.125);  // sorted, per 1e6 instances
        const double ms_25 = 1e3 * perf::predicted_seconds(so, 1e6, 0.25);
        const double pe_25 = 1e3 * perf::predicted_seconds(pe, 1e6, 0.25);
        const double de_25 = 1e3 * perf::predicted_seconds(de, 1e6, 0.25);
        // the block's wait for its slowest warp: block issue over warp issue
        auto wait = [](const perf::SimtResult& r) { return r.warp_issue > 0 ? r.block_issue / r.warp_issue : 1.0; };
        md += "| " + law->name + " | " + engine::precision_name(p) + " | " + std::to_string(steps) + " | " +
              std::to_string(gs.instances) + " | " + fixed(gs.mean_iterations, 1) + " | " + fixed(ne.active_threads, 2) + " | " +
              fixed(ne.warp_issue / gs.warp_issue, 2) + " | " + fixed(gs.active_threads, 2) + " | " + eng(gs.warp_issue) + " | " +
              fixed(rf.active_threads, 2) + " | " + fixed(rf.warp_issue / gs.warp_issue, 2) + " | " +
              fixed(so.active_threads, 2) + " | " + fixed(so.warp_issue / gs.warp_issue, 2) + " | " + fixed(ms_125, 1) + " / " +
              fixed(ms_25, 1) + " | " + fixed(wait(so), 3) + " / " + fixed(wait(pe), 3) + " | " + fixed(pe_25, 1) + " | " +
              fixed(de.active_threads, 2) + " | " + fixed(de_25, 1) + " | " + top_blocks(gs, 4) + " |\n";
        nlohmann::ordered_json blocks_json = nlohmann::ordered_json::array(), sorted_json = blocks_json;
        for (const perf::SimtBlockUse& b : gs.blocks)
          blocks_json.push_back({{"block", b.name}, {"code", b.code}, {"lane_work", b.lane_work}, {"warp_issue", b.warp_issue}});
        for (const perf::SimtBlockUse& b : so.blocks)
          sorted_json.push_back(
              {{"block", b.name}, {"code", b.code}, {"cost", b.cost}, {"lane_work", b.lane_work}, {"warp_issue", b.warp_issue}});
        where += where_table(law->name + " " + engine::precision_name(p) + ", " + std::to_string(steps) + " steps", de);
        nlohmann::ordered_json local_json = nlohmann::ordered_json::array();
        local_md += local_rows(configs, config_traced, law->name, engine::precision_name(p), steps, de, local_json);
        if (a.levers && blocks.descent_block >= 0) {
          // the key pass runs the law at an eighth of the steps (31 of 250): a fixed share of its work
          const int coarse_steps = std::max(1, steps / 8);
          LawOptions coarse_opt = opt;
          coarse_opt.steps = coarse_steps;
          passes_md +=
              pass_rows(law->name + " " + engine::precision_name(p) + " " + std::to_string(steps), t,
                        perf::trace_paths(law->name, p, sample, spec.seed, coarse_opt, geom), coarse_steps, blocks.descent_block);
        }
        if (a.levers)
          levers_md += lever_rows(law->name + " " + engine::precision_name(p) + " " + std::to_string(steps), t, blocks, geom,
                                  p == engine::Precision::f32 ? 5 : (law->name == "jia" ? 3 : 4));
        rows.push_back({{"law", law->name},
                        {"precision", engine::precision_name(p)},
                        {"steps", steps},
                        {"instances", gs.instances},
                        {"iterations_per_instance", gs.mean_iterations},
                        {"grid_stride", {{"active_threads", gs.active_threads}, {"warp_issue", gs.warp_issue}}},
                        {"refill", {{"active_threads", rf.active_threads}, {"warp_issue", rf.warp_issue}}},
                        {"sorted",
                         {{"active_threads", so.active_threads},
                          {"warp_issue", so.warp_issue},
                          {"block_issue", so.block_issue},
                          {"kernel_issue", so.kernel_issue},
                          {"predicted_ms_per_1e6", {{"occupancy_12.5", ms_125}, {"occupancy_25", ms_25}}}}},
                        {"persistent",
                         {{"active_threads", pe.active_threads},
                          {"warp_issue", pe.warp_issue},
                          {"block_issue", pe.block_issue},
                          {"predicted_ms_per_1e6", {{"occupancy_25", pe_25}}}}},
                        {"deferred",
                         {{"active_threads", de.active_threads},
                          {"warp_issue", de.warp_issue},
                          {"block_issue", de.block_issue},
                          {"predicted_ms_per_1e6", {{"occupancy_25", de_25}}}}},
                        {"nested_search", {{"active_threads", ne.active_threads}, {"warp_issue", ne.warp_issue}}},
                        {"local_traffic", local_json},
                        {"blocks", blocks_json},
                        {"sorted_blocks", sorted_json}});
      }
  }
  for (std::size_t i = 0; i < configs.size(); ++i)
    if (!config_traced[i])
      throw std::invalid_argument(configs[i].where + "a configuration of " + configs[i].law + " " + configs[i].precision +
                                  " at " + std::to_string(configs[i].steps) +
                                  " steps, which this run does not trace (--laws, --precisions, --steps)");
  md = "SIMT model (docs/bench.md): scenario " + spec.scenario_name + ", seed " + std::to_string(spec.seed) + ", " +
       std::to_string(geom.warps) + " warps x " + std::to_string(geom.rounds) +
       " grid-stride rounds of the reduction kernel. Times relative to the grid-stride schedule of the kernels' loop; "
       "nested search: event searches nested in their step, as the kernels the calibration measured ran them; refill: lanes take "
       "the next instance "
       "when done; sorted: instances ordered by regime key; persistent: the sorted batches taken from a work counter by "
       "whichever warp is free (block wait: a block's time over its warps' mean, the barrier after the loop); "
       "deferred searches: persistent, with the event searches the lanes of a warp run together after a vote "
       "(impact/search_vote.hpp; stronge).\n\n" +
       md +
       "\nWhere the issue goes (persistent lanes with deferred searches, as the kernels run; `code`: the functions whose source "
       "lines "
       "a line table charges the block to; perf/sass/simt_beside_hotspots.py sets this beside a per-line profile):\n" +
       where;
  if (!configs.empty())
    md +=
        "\nLocal memory (docs/bench.md, \"Local memory in the model\"): each configuration's predicted time from the "
        "deferred schedule's issue, its blocks of 128 threads per SM and its local loads and stores per instance "
        "(per lane, perf/sass/local_traffic.py); rate relative to the first configuration of its law, precision and "
        "steps. The local term is fitted to ratios between launch bounds of one build: compare configurations, not "
        "absolute times.\n\n| law | precision | steps | configuration | blocks per SM | occupancy | local loads / "
        "stores per instance | ms per 1e6 | relative rate |\n| --- | --- | ---: | --- | ---: | ---: | ---: | ---: | "
        "---: |\n" +
        local_md;
  if (a.levers)
    md +=
        "\nLevers (docs/bench.md, \"Two levers weighed on the model\"): persistent lanes with deferred searches, sorted by the "
        "regime key or "
        "by a predictor of each instance's iteration count (log-normal errors of the given log-correlation, the p-steps and "
        "tau-steps apart; the oracle knows the count), at one or two instances per thread; ms per 1e6 from issue and latency "
        "(no local term), a second instance covering the dependent share of the latency (0.35: Nsight Compute's fixed-latency "
        "wait; 0.74: every stall but the issue and the queue).\n\n| kernel | key | instances per thread | blocks per SM | "
        "iterations alone: active | active threads | warp issue/instance | overlapped issue | ms per 1e6 (0.35) | "
        "ms per 1e6 (0.74) |\n| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n" +
        levers_md;
  if (a.levers && !passes_md.empty())
    md +=
        "\nTwo passes (docs/bench.md, \"Two passes: the path split at the first tau-step\"): the first pass ends an "
        "instance at its first tau-step, the second runs the rest of the instances that reached one, each pass sorted by its "
        "own key; active threads per warp by loop iterations alone, beside the one pass of today's kernels.\n\n| kernel | "
        "passes | first pass sorted by | second pass sorted by | first: active | second: active | all: active | vs one "
        "pass by the regime key |\n| --- | --- | --- | --- | ---: | ---: | ---: | ---: |\n" +
        passes_md;
  if (!a.json.empty()) {
    nlohmann::ordered_json j = {
        {"simt", rows}, {"scenario", spec.scenario_name}, {"seed", spec.seed}, {"warps", geom.warps}, {"rounds", geom.rounds}};
    io::write_file(a.json, j.dump(2) + "\n", io::Links::follow);
  }
  if (!a.markdown.empty()) io::write_file(a.markdown, md, io::Links::follow);
  if (table && !a.quiet && a.json != "-" && a.markdown != "-") std::fputs(md.c_str(), table);
  return 0;
}

}  // namespace impact::perf

// Outside the try below only building the command line throws (CLI11's set-up: a programming error, or
// bad_alloc), and std::terminate's report is the end for those.
// NOLINTNEXTLINE(bugprone-exception-escape): CLI11's set-up, above
int main(int argc, char** argv) {
  using impact::perf::SimtArgs;
  SimtArgs a;
  CLI::App app{
      "impact-simt: the SIMT model of the CUDA kernels, predicted from CPU traces of the integrators "
      "(perf/README.md, docs/bench.md \"SIMT model\")"};
  app.add_option("--laws", a.laws, "Laws, comma-separated (default: every law with path probes)")->delimiter(',');
  app.add_option("--precisions", a.precisions, "double,float (default: both)")->delimiter(',');
  app.add_option("--steps", a.steps, "Steps per instance, comma-separated (default: 250,1000)")->delimiter(',');
  app.add_option("--scenario", a.scenario, "Sampled instances: contact|ball")->capture_default_str();
  app.add_option("--seed", a.seed, "Philox seed of the instances")->capture_default_str();
  app.add_option("--set", a.sets, "KEY=DIST: a distribution of the scenario, as for `impact reduce` (repeatable)");
  app.add_option("--warps", a.warps, "Warps the model replays")->capture_default_str();
  app.add_option("--rounds", a.rounds, "Grid-stride rounds per warp the model replays")->capture_default_str();
  app.add_option("--local-traffic", a.local_traffic,
                 "A JSON of perf/sass/local_traffic.py (kernels' local loads and stores per instance and their blocks "
                 "per SM); the model predicts each configuration's time (docs/bench.md, Local memory in the model)");
  app.add_option("--json", a.json, "Write the results as JSON ('-' for stdout)");
  app.add_option("--markdown", a.markdown, "Write the markdown table to a file ('-' for stdout)");
  app.add_flag("--levers", a.levers,
               "Add the tables of the levers: the regime key against predictors of the iteration count, one or two "
               "instances per thread (docs/bench.md, Two levers weighed on the model), and for a law with a descent "
               "phase two passes split at its first iteration (Two passes: the path split at the first tau-step)");
  app.add_flag("--quiet,-q", a.quiet, "No progress lines on stderr and no table on stdout (unless --markdown -)");
  CLI11_PARSE(app, argc, argv);
  try {
    return impact::perf::run_simt(a, stdout, stderr);
  } catch (const std::invalid_argument& e) {  // a usage error
    std::fprintf(stderr, "impact-simt: %s\n", e.what());
    return 2;
  } catch (const impact::io::ConfigError& e) {  // a bad --local-traffic file, at its line and column
    std::fprintf(stderr, "impact-simt: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "impact-simt: %s\n", e.what());
    return 1;
  }
}
