#include "cli/bench_simt.hpp"

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "cli/bench_report.hpp"
#include "io/out_file.hpp"
#include "systems/sample_spec.hpp"
#include "bench/simt.hpp"

namespace impact::cli {

namespace {

// The blocks that cost the most warp issue, with their own coherence: "name 37% (12.1)".
std::string top_blocks(const bench::SimtResult& r, int count) {
  std::string s;
  for (int i = 0; i < count && i < static_cast<int>(r.blocks.size()); ++i) {
    const bench::SimtBlockUse& b = r.blocks[i];
    s += (i ? ", " : "") + b.name + " " + fixed(100.0 * b.warp_issue / r.warp_issue, 0) + "% (" +
         fixed(b.lane_work / b.warp_issue, 1) + ")";
  }
  return s;
}

// One law's blocks under a schedule: share of the warp issue, active threads, code.
std::string where_table(const std::string& title, const bench::SimtResult& r) {
  std::string s = "\n" + title + "\n\n| block | code | share of warp issue | active threads | lane work/instance |\n"
                  "| --- | --- | ---: | ---: | ---: |\n";
  for (const bench::SimtBlockUse& b : r.blocks)
    s += "| " + b.name + " | `" + b.code + "` | " + fixed(100.0 * b.warp_issue / r.warp_issue, 1) + "% | " +
         fixed(b.lane_work / b.warp_issue, 1) + " | " + fixed(b.lane_work, 0) + " |\n";
  return s;
}

}  // namespace

int run_simt(const bench::BenchSpec& spec, const BenchArgs& a, std::FILE* table, std::FILE* log) {
  if (a.simt_warps < 1 || a.simt_rounds < 1) throw std::invalid_argument("--simt-warps and --simt-rounds must be >= 1");
  SampleSpec sample = systems::default_spec(spec.scenario);
  for (const std::string& kv : spec.sets) systems::apply_setting(sample, kv);
  const bool all = a.laws.empty();
  bench::SimtGeometry geom;
  geom.warps = a.simt_warps;
  geom.rounds = a.simt_rounds;
  std::string md =
      "| law | precision | steps | instances | iterations | 573a81e loop: active | 573a81e loop: time | "
      "active threads/warp | warp issue/instance | "
      "refill: active | refill: time | sorted: active | sorted: time | sorted: ms per 1e6 at 12.5% / 25% occupancy | "
      "block wait, sorted / persistent | persistent: ms per 1e6 at 25% | deferred searches: active | "
      "deferred searches: ms per 1e6 at 25% | largest blocks (share of issue, active threads) |\n"
      "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n";
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  std::string where;  // per block of the kernels' schedule (deferred): its code, share of the issue, coherence
  for (const engine::LawInfo* law : spec.laws) {
    if (!bench::simt_supported(law->name)) {
      if (all) continue;
      throw std::invalid_argument("--simt: law '" + law->name + "' has no path probes (the model covers jia and stronge)");
    }
    const bench::SimtBlocks blocks = bench::simt_blocks(law->name);
    for (int steps : spec.steps)
      for (engine::Precision p : spec.precisions) {
        LawOptions opt;
        opt.steps = steps;
        if (log && !a.quiet) std::fprintf(log, "impact bench --simt: tracing %s %s %d steps\n", law->name.c_str(),
                                          engine::precision_name(p), steps);
        const bench::PathTrace t = bench::trace_paths(law->name, p, sample, spec.seed, opt, geom);
        const bench::SimtResult gs = bench::simt_model(t, blocks, geom, bench::Schedule::grid_stride);
        const bench::SimtResult rf = bench::simt_model(t, blocks, geom, bench::Schedule::refill);
        const bench::SimtResult so = bench::simt_model(t, blocks, geom, bench::Schedule::sorted);
        const bench::SimtResult ne = bench::simt_model(t, blocks, geom, bench::Schedule::nested_search);
        const bench::SimtResult pe = bench::simt_model(t, blocks, geom, bench::Schedule::persistent);
        const bench::SimtResult de = bench::simt_model(t, blocks, geom, bench::Schedule::deferred);
        const double ms_125 = 1e3 * bench::predicted_seconds(so, 1e6, 0.125);  // sorted, per 1e6 instances
        const double ms_25 = 1e3 * bench::predicted_seconds(so, 1e6, 0.25);
        const double pe_25 = 1e3 * bench::predicted_seconds(pe, 1e6, 0.25);
        const double de_25 = 1e3 * bench::predicted_seconds(de, 1e6, 0.25);
        // the block's wait for its slowest warp: block issue over warp issue
        auto wait = [](const bench::SimtResult& r) { return r.warp_issue > 0 ? r.block_issue / r.warp_issue : 1.0; };
        md += "| " + law->name + " | " + engine::precision_name(p) + " | " + std::to_string(steps) + " | " +
              std::to_string(gs.instances) + " | " + fixed(gs.mean_iterations, 1) + " | " +
              fixed(ne.active_threads, 2) + " | " + fixed(ne.warp_issue / gs.warp_issue, 2) + " | " +
              fixed(gs.active_threads, 2) + " | " + eng(gs.warp_issue) + " | " +
              fixed(rf.active_threads, 2) + " | " + fixed(rf.warp_issue / gs.warp_issue, 2) + " | " +
              fixed(so.active_threads, 2) + " | " + fixed(so.warp_issue / gs.warp_issue, 2) + " | " +
              fixed(ms_125, 1) + " / " + fixed(ms_25, 1) + " | " + fixed(wait(so), 3) + " / " + fixed(wait(pe), 3) +
              " | " + fixed(pe_25, 1) + " | " + fixed(de.active_threads, 2) + " | " + fixed(de_25, 1) + " | " +
              top_blocks(gs, 4) + " |\n";
        nlohmann::ordered_json blocks_json = nlohmann::ordered_json::array(), sorted_json = blocks_json;
        for (const bench::SimtBlockUse& b : gs.blocks)
          blocks_json.push_back({{"block", b.name}, {"code", b.code}, {"lane_work", b.lane_work}, {"warp_issue", b.warp_issue}});
        for (const bench::SimtBlockUse& b : so.blocks)
          sorted_json.push_back({{"block", b.name}, {"code", b.code}, {"cost", b.cost}, {"lane_work", b.lane_work},
                                 {"warp_issue", b.warp_issue}});
        where += where_table(law->name + " " + engine::precision_name(p) + ", " + std::to_string(steps) + " steps", de);
        rows.push_back({{"law", law->name},
                        {"precision", engine::precision_name(p)},
                        {"steps", steps},
                        {"instances", gs.instances},
                        {"iterations_per_instance", gs.mean_iterations},
                        {"grid_stride", {{"active_threads", gs.active_threads}, {"warp_issue", gs.warp_issue}}},
                        {"refill", {{"active_threads", rf.active_threads}, {"warp_issue", rf.warp_issue}}},
                        {"sorted", {{"active_threads", so.active_threads},
                                    {"warp_issue", so.warp_issue},
                                    {"block_issue", so.block_issue},
                                    {"kernel_issue", so.kernel_issue},
                                    {"predicted_ms_per_1e6", {{"occupancy_12.5", ms_125}, {"occupancy_25", ms_25}}}}},
                        {"persistent", {{"active_threads", pe.active_threads},
                                        {"warp_issue", pe.warp_issue},
                                        {"block_issue", pe.block_issue},
                                        {"predicted_ms_per_1e6", {{"occupancy_25", pe_25}}}}},
                        {"deferred", {{"active_threads", de.active_threads},
                                      {"warp_issue", de.warp_issue},
                                      {"block_issue", de.block_issue},
                                      {"predicted_ms_per_1e6", {{"occupancy_25", de_25}}}}},
                        {"nested_search", {{"active_threads", ne.active_threads}, {"warp_issue", ne.warp_issue}}},
                        {"blocks", blocks_json},
                        {"sorted_blocks", sorted_json}});
      }
  }
  md = "SIMT model (docs/bench.md): scenario " + spec.scenario_name + ", seed " + std::to_string(spec.seed) + ", " +
       std::to_string(geom.warps) + " warps x " + std::to_string(geom.rounds) +
       " grid-stride rounds of the reduction kernel. Times relative to the grid-stride schedule of today's loop; "
       "573a81e loop: event searches nested in their step as in that build; refill: lanes take the next instance "
       "when done; sorted: instances ordered by regime key; persistent: the sorted batches taken from a work counter by "
       "whichever warp is free (block wait: a block's time over its warps' mean, the barrier after the loop); "
       "deferred searches: persistent, with the event searches the lanes of a warp run together after a vote "
       "(impact/search_vote.hpp; stronge).\n\n" + md +
       "\nWhere the issue goes (persistent lanes with deferred searches, as the kernels run; `code`: the functions whose source lines "
       "a line table charges the block to; scripts/simt_beside_hotspots.py sets this beside a per-line profile):\n" +
       where;
  if (!a.json.empty()) {
    nlohmann::ordered_json j = {{"simt", rows}, {"scenario", spec.scenario_name}, {"seed", spec.seed},
                                {"warps", geom.warps}, {"rounds", geom.rounds}};
    io::write_file(a.json, j.dump(2) + "\n");
  }
  if (!a.markdown.empty()) io::write_file(a.markdown, md);
  if (table && !a.quiet && a.json != "-" && a.markdown != "-") std::fputs(md.c_str(), table);
  return 0;
}

}  // namespace impact::cli
