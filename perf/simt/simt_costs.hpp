// The SIMT model's view of an integrator: SimtCosts<Law> names each code block the law reports to a
// path probe (impact/probe.hpp; the block ids are the law's detail Seg enum) and gives its cost in
// issued instructions (double, RK4). A law without a specialisation has no probes, and the model
// does not cover it.
//
//   kSegments    the number of blocks;
//   name[s]      what block s does;
//   cost[s]      its issued instructions, counted from the code on sm_90 SASS: a double square root
//                or division ~17-25 (a division's fast path is 17), exp, log, atan, sin, cos ~40-60,
//                one rsqrt (math::inv_sqrt) ~15;
//   code[s]      the functions whose source lines a line table charges its instructions to, so that
//                the model can be set beside per-line GPU profiles (perf/sass/simt_beside_hotspots.py);
//   latency      cycles between a warp's issues in these blocks on sm_90 (the model's latency term,
//                Little's law), fitted to an H200's time for 2e5 random-contact instances at 12.5%
//                occupancy (perf/simt/test_simt.cpp, SimtOccupancy; docs/perf-log.md);
//   search       (stronge) the block that opens an event search inside a step: what a lane defers
//                on the device (impact/search_vote.hpp), which Schedule::deferred replays;
//   descent      (stronge) the block of a tau-step iteration (the descent to the slip's end), which
//                predicted_count_keys predicts apart from the p-steps.
#pragma once
#include "impact/laws/jia.hpp"
#include "impact/laws/stronge.hpp"

namespace impact::perf {

template <class Law>
struct SimtCosts;

template <>
struct SimtCosts<JiaLaw> {
  using S = detail::Jia;
  static constexpr int kSegments = S::kSegments;
  static constexpr const char* name[kSegments] = {"setup",
                                                  "sigma head start",
                                                  "loop control",
                                                  "stiffness test",
                                                  "sigma step length",
                                                  "sigma tail close",
                                                  "root trial point",
                                                  "step rk",
                                                  "step rhs stick",
                                                  "step rhs slip",
                                                  "step sigma scale",
                                                  "step slaved",
                                                  "event function",
                                                  "root bracket",
                                                  "slip projection",
                                                  "event handling",
                                                  "finish"};
  static constexpr int cost[kSegments] = {300, 60,  40,  85,  46,   60, 30,  //
                                          110, 120, 204, 180, 3614,          //
                                          40,  30,  51,  20,  100};
  static constexpr const char* code[kSegments] = {"solve start",
                                                  "start",
                                                  "control",
                                                  "control",
                                                  "control step_length",
                                                  "control",
                                                  "solve",
                                                  "advance rk_step_one_site",
                                                  "rhs",
                                                  "rhs slip_dir",
                                                  "sig_scale",
                                                  "slaved_step slaved_dir rhs_frozen",
                                                  "event_fn scan",
                                                  "advanced trial update",
                                                  "project_slip",
                                                  "settle record_event",
                                                  "conclude"};
  static constexpr double latency = 12.5;
};

template <>
struct SimtCosts<StrongeLaw> {
  using S = detail::Stronge;
  static constexpr int kSegments = S::kSegments;
  static constexpr const char* name[kSegments] = {"setup",          "outgoing ray (bisection)",
                                                  "loop control",   "straight segment",
                                                  "segment event",  "slip rates and ray test",
                                                  "ray start",      "tau step length",
                                                  "step rk",        "step rate",
                                                  "root rk",        "root rate",
                                                  "root bracket",   "locate start",
                                                  "event handling", "finish"};
  // loop control includes the warp's vote on deferred searches (the active mask, a ballot, two
  // population counts, the rule and the lane's wait count); a step's rate takes |v_t| and its rsqrt
  // from the slip tests at the same state, a trial point computes its own
  static constexpr int cost[kSegments] = {350, 1800, 25, 70, 15, 51, 25, 24, 61, 145, 61, 172, 55, 30, 20, 100};
  static constexpr const char* code[kSegments] = {"eval_unit start",
                                                  "outgoing",
                                                  "control",
                                                  "segment line_rate",
                                                  "control",
                                                  "slip_control",
                                                  "slip_control",
                                                  "slip_control",
                                                  "step rk_step",
                                                  "rate",
                                                  "locate rk_step",
                                                  "rate",
                                                  "locate value happened trial update",
                                                  "locate",
                                                  "on_event compression_ends",
                                                  "eval_unit"};
  // shorter than jia's: fewer FP64 division and square-root chains per instruction
  static constexpr double latency = 7.0;
  static constexpr int search = S::kSegLocate;
  static constexpr int descent = S::kSegTauLen;
};

}  // namespace impact::perf
