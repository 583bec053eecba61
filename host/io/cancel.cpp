#include "io/cancel.hpp"

#include <atomic>

namespace impact::io {

namespace {

std::atomic<CancelHook> g_hook{nullptr};

}  // namespace

CancelHook set_cancel_hook(CancelHook hook) noexcept { return g_hook.exchange(hook, std::memory_order_acq_rel); }

void check_cancelled() {
  const CancelHook hook = g_hook.load(std::memory_order_acquire);
  if (hook && hook()) throw Cancelled();
}

}  // namespace impact::io
