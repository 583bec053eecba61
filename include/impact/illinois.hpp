// The event search of the impulse-space integrators (jia, stronge): Illinois regula falsi on a
// bracket [lo, hi] of the sub-step length, with f(lo) <= 0 < f(hi) (or f(hi) = 0 where the caller
// counts a zero as the event). Each trial point is re-integrated from the step's start by the
// caller: jia runs one trial per iteration of its main loop, so that a lane searching for an event
// runs the same step body as the lanes of its warp that step on (docs/bench.md, "SIMT model");
// stronge runs a search's trials in a loop inside its step (detail::Stronge::Run::locate), which the
// lanes of a warp on the device run together after a vote (impact/search_vote.hpp).
//
//   IllinoisBracket<T> b;  b.start(lo, hi, flo, fhi);
//   while (b.open(tol, max_iter)) { const T x = b.trial(); b.update(x, f(x), f(x) counts as the event); }
//   b.hi: the earliest point known to be past the event (to tol, or after max_iter trials).
// (The tolerance and the bound are arguments, not members: a bracket that lives across the
// iterations of a kernel's loop then carries two values fewer in registers.)
//
// Trial point: the secant root (flo hi - fhi lo) / (flo - fhi), the midpoint where that is not
// strictly inside (equal signs, a zero end, round-off). Illinois: when the same end moves twice
// in a row, the other end's value is halved (superlinear convergence where plain regula falsi
// would stall against one end). Bounded: at most max_iter trials.
#pragma once
#include "impact/config.hpp"

namespace impact {

template <class T>
struct IllinoisBracket {
  T lo, hi, flo, fhi;
  int side;  // +1: hi moved last, -1: lo moved last, 0: neither yet
  int it;    // trials made

  IMPACT_HDI void start(T lo0, T hi0, T flo0, T fhi0) {
    lo = lo0;
    hi = hi0;
    flo = flo0;
    fhi = fhi0;
    side = 0;
    it = 0;
  }
  // More trials are due: the bracket is wider than tol and fewer than max_iter trials were made.
  IMPACT_HDI bool open(T tol, int max_iter) const { return it < max_iter && hi - lo > tol; }
  IMPACT_HDI T trial() const {
    const T x = (flo * hi - fhi * lo) / (flo - fhi);
    return x > lo && x < hi ? x : T(0.5) * (lo + hi);
  }
  // The value fx at the trial point x; past: x is at or past the event.
  IMPACT_HDI void update(T x, T fx, bool past) {
    if (past) {
      hi = x;
      fhi = fx;
      if (side == 1) flo *= T(0.5);
      side = 1;
    } else {
      lo = x;
      flo = fx;
      if (side == -1) fhi *= T(0.5);
      side = -1;
    }
    ++it;
  }
};

}  // namespace impact
