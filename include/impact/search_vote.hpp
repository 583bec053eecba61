// Deferred event searches: when a lane of a GPU warp may run the search for an event that its
// step has found (StrongeLaw's locate: Illinois trial points, each a Runge-Kutta step).
//
// Why. A lane's events fall at its own iterations (the end of compression at 236-430 iterations in
// one sorted warp of random contact, 250 steps, and the end of the impact at 458-500), so a search
// run as soon as its lane finds it runs alone: the SIMT model put stronge's searches at 1.6 active
// threads per warp and 18% of the double kernel's issue (impact-simt). Run together,
// k pending lanes cost one search (the most trials among them) instead of k.
//
// How. A lane whose step finds an event leaves its state as it was before the step and is pending:
// it skips the following iterations (no issue of its own) until the warp's vote lets it search.
// It then runs the whole iteration again, the step recomputed from the same state with the same
// code (the same bits) and the search after it, side by side with the other pending lanes that
// the same vote released and with the lanes that step on. Results do not depend on when a lane
// searches (tests/physics: a vote that holds lanes back at random changes no bit).
//
// The vote, taken at the top of every iteration by every lane still in the loop:
//  * a search that ends the impact (restitution, or e = 0) waits until every lane still in the
//    loop is pending: the lane would otherwise sit idle at the warp's end anyway;
//  * one that goes on (the end of compression) waits until a quarter of those lanes are pending,
//    or for kDeferWaitMost iterations, whichever is first: waiting delays the lane's own end.
// kDeferFinalWaitMost bounds the first kind too (a lane never waits for a runaway neighbour longer
// than that). Chosen on the SIMT model (Schedule::deferred, docs/bench.md "Deferred event searches").
//
// Host (serial, OMP, the CPU reference, the model's traces): SearchAtOnce, every lane alone.
#pragma once
#include "impact/config.hpp"

namespace impact {

// Search when at least kDeferShareNum / kDeferShareDen of the lanes in the loop are pending.
constexpr int kDeferShareNum = 1, kDeferShareDen = 4;
constexpr int kDeferWaitMost = 32;
constexpr int kDeferFinalWaitMost = 4096;

// Whether a pending lane that has waited `waited` iterations may search, `pending` of the `active`
// lanes in the loop being pending; `last`: its event ends the impact.
IMPACT_HDI bool deferred_search_due(int pending, int active, bool last, int waited) {
  if (last) return pending >= active || waited >= kDeferFinalWaitMost;
  return kDeferShareDen * pending >= kDeferShareNum * active || waited >= kDeferWaitMost;
}

// A lane alone: an event found is searched at once (nothing is ever pending). Constructed from
// LawOptions::defer_searches as WarpVote is, which it ignores.
struct SearchAtOnce {
  IMPACT_HDI explicit SearchAtOnce(bool = false) {}
  IMPACT_HDI bool holds() const { return false; }
  IMPACT_HDI bool due(bool pending, bool, int) const { return pending; }
};

#if defined(__CUDA_ARCH__)
// The lanes of a warp that are in the loop together: a ballot of the pending ones. Every lane in
// the loop calls due() at the same point; __activemask() is the set that got there together (a
// lane the hardware has not reconverged yet is simply not counted: the vote can only come sooner,
// and results do not depend on it).
// `on` (LawOptions::defer_searches, a kernel parameter, the same for every lane) false: every lane
// searches at once, as on the host (IMPACT_CUDA_SEARCH=at-once, to compare the two on a device).
struct WarpVote {
  bool on;
  __device__ __forceinline__ explicit WarpVote(bool defer) : on(defer) {}
  __device__ __forceinline__ bool holds() const { return on; }
  __device__ __forceinline__ bool due(bool pending, bool last, int waited) const {
    if (!on) return pending;
    const unsigned in_loop = __activemask();
    const unsigned held = __ballot_sync(in_loop, pending);
    return pending && deferred_search_due(__popc(held), __popc(in_loop), last, waited);
  }
};
using LaneVote = WarpVote;
#else
using LaneVote = SearchAtOnce;
#endif

}  // namespace impact
