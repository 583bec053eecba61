#include "io/pipeline.hpp"

#include <condition_variable>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>

namespace impact::io {

namespace {

// The pipeline's shared state: three queues of (slot, chunk) under one lock, and the earliest
// failure. After a failure in chunk f, the chunks before f still go through every stage (one of
// them may fail too, earlier in the file: the error a plain loop would have met), no stage runs a
// chunk from f on, and the input stage takes in no new one. The queues are fixed rings (a queue
// never holds more than the slots and one end item), so that a push cannot throw.
class Rings {
 public:
  enum Queue { free_slots = 0, taken_in = 1, processed = 2 };
  struct Item {
    int slot;
    std::size_t k;
    bool end;  // no chunk: the stage before has finished (or the pipeline was abandoned)
  };

  void push(Queue q, Item it) noexcept {
    {
      std::lock_guard<std::mutex> g(m_);
      Ring& r = q_[q];
      r.items[(r.head + r.count) % kCap] = it;
      ++r.count;
    }
    cv_.notify_all();
  }
  // The next item of q; an end item once the pipeline is abandoned.
  Item pop(Queue q) {
    std::unique_lock<std::mutex> g(m_);
    cv_.wait(g, [&] { return abandoned_ || q_[q].count > 0; });
    if (abandoned_) return Item{-1, 0, true};
    Ring& r = q_[q];
    const Item it = r.items[r.head];
    r.head = (r.head + 1) % kCap;
    --r.count;
    return it;
  }
  // Records the exception of chunk k in stage s (0, 1, 2).
  void fail(std::size_t k, int s, std::exception_ptr e) {
    std::lock_guard<std::mutex> g(m_);
    if (!error_ || k < stop_ || (k == stop_ && s < error_stage_)) stop_ = k, error_stage_ = s, error_ = std::move(e);
  }
  // Every stage stops at once (a stage thread could not be started): pops return end items.
  void abandon() {
    {
      std::lock_guard<std::mutex> g(m_);
      abandoned_ = true;
    }
    cv_.notify_all();
  }
  // Whether chunk k is still to run (it comes before every failure so far).
  bool runs(std::size_t k) {
    std::lock_guard<std::mutex> g(m_);
    return !error_ || k < stop_;
  }
  std::exception_ptr error() {
    std::lock_guard<std::mutex> g(m_);
    return error_;
  }

 private:
  static constexpr int kCap = kMaxPipelineDepth + 1;
  struct Ring {
    Item items[kCap];
    int head = 0, count = 0;
  };
  std::mutex m_;
  std::condition_variable cv_;
  Ring q_[3];
  bool abandoned_ = false;
  std::size_t stop_ = 0;
  int error_stage_ = 0;
  std::exception_ptr error_;
};

}  // namespace

void run_pipeline(int depth, const std::function<bool(int, std::size_t)>& first,
                  const std::function<void(int, std::size_t)>& middle, const std::function<void(int, std::size_t)>& last) {
  if (depth < 1 || depth > kMaxPipelineDepth)
    throw std::invalid_argument("pipeline depth must be between 1 and " + std::to_string(kMaxPipelineDepth) + ", got " +
                                std::to_string(depth));
  Rings r;
  for (int s = 0; s < depth; ++s) r.push(Rings::free_slots, {s, 0, false});

  // every chunk taken in goes on to the end of the line, run or not, and its slot comes back: no
  // stage waits for an item that never comes
  std::thread in([&] {
    for (std::size_t k = 0;; ++k) {
      const Rings::Item it = r.pop(Rings::free_slots);
      if (it.end) return;  // abandoned
      bool more = r.runs(k);
      if (more) try {
          more = first(it.slot, k);
        } catch (...) {
          r.fail(k, 0, std::current_exception());
          more = false;
        }
      r.push(Rings::taken_in, {it.slot, k, !more});
      if (!more) return;
    }
  });
  std::thread out;
  try {
    out = std::thread([&] {
      for (;;) {
        const Rings::Item it = r.pop(Rings::processed);
        if (it.end) return;
        if (r.runs(it.k)) try {
            last(it.slot, it.k);
          } catch (...) { r.fail(it.k, 2, std::current_exception()); }
        r.push(Rings::free_slots, {it.slot, 0, false});
      }
    });
  } catch (...) {  // no second thread (a limit on threads): the first one stops, then the error
    r.abandon();
    in.join();
    throw;
  }
  for (;;) {
    const Rings::Item it = r.pop(Rings::taken_in);
    if (!it.end && r.runs(it.k)) try {
        middle(it.slot, it.k);
      } catch (...) { r.fail(it.k, 1, std::current_exception()); }
    r.push(Rings::processed, it);
    if (it.end) break;
  }
  in.join();
  out.join();
  if (const std::exception_ptr e = r.error()) std::rethrow_exception(e);
}

}  // namespace impact::io
