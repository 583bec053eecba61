#include "io/pipeline.hpp"

#include <condition_variable>
#include <deque>
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
// chunk from f on, and the input stage takes in no new one.
class Rings {
 public:
  enum Queue { free_slots = 0, taken_in = 1, processed = 2 };
  struct Item {
    int slot;
    std::size_t k;
    bool end;  // no chunk: the stage before has finished
  };

  void push(Queue q, Item it) {
    {
      std::lock_guard<std::mutex> g(m_);
      q_[q].push_back(it);
    }
    cv_.notify_all();
  }
  Item pop(Queue q) {
    std::unique_lock<std::mutex> g(m_);
    cv_.wait(g, [&] { return !q_[q].empty(); });
    const Item it = q_[q].front();
    q_[q].pop_front();
    return it;
  }
  // Records the exception of chunk k in stage s (0, 1, 2).
  void fail(std::size_t k, int s, std::exception_ptr e) {
    std::lock_guard<std::mutex> g(m_);
    if (!error_ || k < stop_ || (k == stop_ && s < error_stage_)) stop_ = k, error_stage_ = s, error_ = e;
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
  std::mutex m_;
  std::condition_variable cv_;
  std::deque<Item> q_[3];
  std::size_t stop_ = 0;
  int error_stage_ = 0;
  std::exception_ptr error_;
};

}  // namespace

void run_pipeline(int depth, const std::function<bool(int, std::size_t)>& first,
                  const std::function<void(int, std::size_t)>& middle,
                  const std::function<void(int, std::size_t)>& last) {
  if (depth < 1 || depth > kMaxPipelineDepth)
    throw std::invalid_argument("pipeline depth must be between 1 and " + std::to_string(kMaxPipelineDepth) +
                                ", got " + std::to_string(depth));
  Rings r;
  for (int s = 0; s < depth; ++s) r.push(Rings::free_slots, {s, 0, false});

  // every chunk taken in goes on to the end of the line, run or not, and its slot comes back: no
  // stage waits for an item that never comes
  std::thread in([&] {
    for (std::size_t k = 0;; ++k) {
      const Rings::Item it = r.pop(Rings::free_slots);
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
  std::thread out([&] {
    for (;;) {
      const Rings::Item it = r.pop(Rings::processed);
      if (it.end) return;
      if (r.runs(it.k)) try {
          last(it.slot, it.k);
        } catch (...) {
          r.fail(it.k, 2, std::current_exception());
        }
      r.push(Rings::free_slots, {it.slot, 0, false});
    }
  });
  for (;;) {
    const Rings::Item it = r.pop(Rings::taken_in);
    if (!it.end && r.runs(it.k)) try {
        middle(it.slot, it.k);
      } catch (...) {
        r.fail(it.k, 1, std::current_exception());
      }
    r.push(Rings::processed, it);
    if (it.end) break;
  }
  in.join();
  out.join();
  if (const std::exception_ptr e = r.error()) std::rethrow_exception(e);
}

}  // namespace impact::io
