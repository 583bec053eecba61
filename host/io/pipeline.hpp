// An ordered three-stage pipeline over a ring of slots: chunk k is taken in by `first`, processed
// by `middle`, and given out by `last`, each stage on its own thread, every stage seeing the
// chunks in order 0, 1, 2, ... So chunk k+1 can be read while chunk k is evaluated and chunk k-1
// written (`impact eval`: engine/evaluate.cpp), and what each stage does, and the bytes it writes,
// are the same for any depth.
//
//   first(slot, k)  -> bool   fills `slot` with chunk k; false: there is no chunk k (the end)
//   middle(slot, k)           runs on the calling thread (a GPU context, the law's OpenMP team)
//   last(slot, k)             empties `slot`; afterwards the slot is handed to `first` again
//
// depth: the slots, i.e. chunks in flight (1..kMaxPipelineDepth). With 1 slot the stages run one
// after another, as a plain loop would; with 3 all three overlap. `first` and `last` run on two
// threads of their own, which may start OpenMP teams of their own.
//
// Errors: after an exception in chunk f, the chunks before f still go through every stage (at
// most depth - 1 of them) and no stage runs chunk f or a later one; then run_pipeline rethrows the
// exception of the earliest chunk (of one chunk, the earlier stage's): the error a plain loop
// would have met first, whatever the depth.
#pragma once
#include <cstddef>
#include <functional>

namespace impact::io {

constexpr int kMaxPipelineDepth = 8;

void run_pipeline(int depth, const std::function<bool(int slot, std::size_t k)>& first,
                  const std::function<void(int slot, std::size_t k)>& middle,
                  const std::function<void(int slot, std::size_t k)>& last);

}  // namespace impact::io
