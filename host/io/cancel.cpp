#include "io/cancel.hpp"

#include <atomic>

namespace impact::io {

namespace {

std::atomic<CancelHook> g_hook{nullptr};
volatile std::int32_t g_stop = 0;
std::atomic<std::uint64_t> g_epoch{0};

}  // namespace

CancelHook set_cancel_hook(CancelHook hook) noexcept { return g_hook.exchange(hook, std::memory_order_acq_rel); }

const volatile std::int32_t* stop_flag() noexcept { return &g_stop; }

void raise_stop_flag(bool on) noexcept {
  if (on) g_epoch.fetch_add(1, std::memory_order_seq_cst);  // counted before any law can see the flag
  g_stop = on ? 1 : 0;
  std::atomic_thread_fence(std::memory_order_seq_cst);  // seen by the laws' next poll on any core
}

std::uint64_t stop_epoch() noexcept { return g_epoch.load(std::memory_order_seq_cst); }

void check_cancelled(std::uint64_t since) {
  check_cancelled();
  if (stop_epoch() != since) throw Cancelled();
}

void check_cancelled() {
  const CancelHook hook = g_hook.load(std::memory_order_acquire);
  if (hook && hook()) throw Cancelled();
}

}  // namespace impact::io
