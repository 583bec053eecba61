// Path probes: an integrator reports which code block each of its loop iterations runs, so that a
// host-side model can replay the lanes of a GPU warp from CPU runs of the same code (the SIMT
// model of `impact-simt`, perf/simt/simt.hpp, docs/bench.md).
//
// A law that supports probes takes a `Probe& probe` and calls
//   probe.iter()       where a new iteration of its main loop begins: lanes of a warp that run the
//                      same code align there (the loop's back edge is where a warp reconverges);
//   probe.seg(id)      for each code block it runs, id < SimtCosts<Law>::kSegments (the block's
//                      cost in issued instructions and its name are the model's, perf/simt/
//                      simt_costs.hpp, not the law's); a block
//                      run twice in one iteration (a nested loop) is reported twice;
//   probe.sub()        right after iter() when the iteration is a sub-step of the one before (an
//                      Illinois trial point of an event search, the landing on the event): the
//                      kernels the calibration was measured on ran those in a loop nested inside
//                      the step, which the model replays (Schedule::nested_search);
//   probe.done()       after the loop (what follows is the post-loop code, where the lanes that
//                      left the loop early wait for the others).
// NoProbe does nothing and compiles away: the kernels and the CPU backends run with it.
#pragma once
#include <cmath>
#include <cstdint>

#include "impact/config.hpp"

namespace impact {

struct NoProbe {
  IMPACT_HDI void iter() const {}
  IMPACT_HDI void sub() const {}
  IMPACT_HDI void seg(int) const {}
  IMPACT_HDI void done() const {}
};

// Regime keys (LaunchTraits<Law>::regime_key, kernels/launch_traits.hpp): an instance's expected code path as an integer,
// so that a kernel can hand a warp instances of nearby keys. slip_ratio_key: 3D after planar, then
// log2(vt / scale) in eighths of an octave, clipped to 10 bits (scale <= 0, e.g. mu = 0: the top).
template <class T>
IMPACT_HDI std::uint32_t slip_ratio_key(bool planar, T vt, T scale) {
  int lk = 1023;
  if (scale > T(0)) {
    const double r = static_cast<double>(vt) / static_cast<double>(scale);
    lk = 0;  // also for a NaN ratio
    if (r > 0) {
      const double l = 8.0 * log2(r);
      lk = l < -512.0 ? 0 : (l >= 511.0 ? 1023 : static_cast<int>(floor(l)) + 512);
    }
  }
  return (planar ? 0u : 1024u) | static_cast<std::uint32_t>(lk);
}

// stop_fraction_key: 3D after planar, then `stops` (the slip comes to rest before the end), then a
// fraction x of the impact's normal impulse scale in 1/64, clipped to 9 bits (a NaN or negative x:
// the bottom, x >= 8 or inf: the top).
IMPACT_HDI std::uint32_t stop_fraction_key(bool planar, bool stops, double x) {
  const std::uint32_t q = x >= 8.0 ? 511u : (x > 0.0 ? static_cast<std::uint32_t>(64.0 * x) : 0u);
  return (planar ? 0u : 1024u) | (stops ? 512u : 0u) | q;
}

}  // namespace impact
