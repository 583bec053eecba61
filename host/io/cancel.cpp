#include "io/cancel.hpp"

#include <atomic>

namespace impact::io {

namespace {

std::atomic<CancelHook> g_hook{nullptr};
volatile std::int32_t g_stop = 0;

}  // namespace

CancelHook set_cancel_hook(CancelHook hook) noexcept { return g_hook.exchange(hook, std::memory_order_acq_rel); }

const volatile std::int32_t* stop_flag() noexcept { return &g_stop; }

void raise_stop_flag(bool on) noexcept {
  g_stop = on ? 1 : 0;
  std::atomic_thread_fence(std::memory_order_seq_cst);  // seen by the laws' next poll on any core
}

void check_cancelled() {
  const CancelHook hook = g_hook.load(std::memory_order_acquire);
  if (hook && hook()) throw Cancelled();
}

}  // namespace impact::io
