// Path probes: an integrator reports which code block each of its loop iterations runs, so that a
// host-side model can replay the lanes of a GPU warp from CPU runs of the same code (the SIMT
// model of `impact bench --simt`, host/study/simt.hpp, docs/bench.md).
//
// A law that supports probes takes a `Probe& probe` and calls
//   probe.iter()       where a new iteration of its main loop begins: lanes of a warp that run the
//                      same code align there (the loop's back edge is where a warp reconverges);
//   probe.seg(id)      for each code block it runs, id < Law::kSegments, with Law::seg_cost[id]
//                      its cost in issued instructions and Law::seg_name[id] its name; a block
//                      run twice in one iteration (a nested loop) is reported twice;
//   probe.done()       after the loop (what follows is the post-loop code, where the lanes that
//                      left the loop early wait for the others).
// NoProbe does nothing and compiles away: the kernels and the CPU backends run with it.
#pragma once
#include "impact/config.hpp"

namespace impact {

struct NoProbe {
  IMPACT_HDI void iter() const {}
  IMPACT_HDI void seg(int) const {}
  IMPACT_HDI void done() const {}
};

}  // namespace impact
