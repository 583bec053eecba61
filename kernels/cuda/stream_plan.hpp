// The CUDA eval path's schedule of a batch in host memory, written once against a runtime: which
// buffers it holds, and which copies, launches and synchronisations it makes in which order. No CUDA
// type appears here, so that g++ compiles it too: kernels/cuda/evaluate.cu runs it on the CUDA runtime
// (CudaRuntime), and a recording stand-in (tests/kernels/test_stream_plan.cpp) runs it on the host,
// evaluating the law there and counting the calls, which tells on a machine without a GPU what a
// batch costs in runtime calls. Each runtime counts the calls it makes itself (CudaRuntime in
// cuda::call_counts()), so that on a device the counts are the runtime's, not the schedule's idea
// of them.
//
// The rules the schedule keeps, and why:
//   - no allocation after the first call of a shape: the staging buffers (pinned host memory, device
//     memory, the regime sort's) and the streams belong to a StagePool, one per device and host
//     thread (cuda::per_thread_device), kept across calls and grown to the largest chunk seen (a high
//     water mark). An allocation of pinned memory costs about a millisecond, far above a launch;
//   - a chunk is one upload (its input columns packed into one block), one launch sequence (the
//     law's kernel, or the key kernel, the sort and the ordered kernel) and one download (its outputs
//     packed into one block), on its stage's stream. A batch of up to one chunk is one of each;
//   - the host waits on a stage's stream (stream_sync) before it reuses that stage or reads its
//     outputs; never on the whole device, so that other streams of the process run on;
//   - a call that throws leaves no work in flight: every stage's stream is waited on before the
//     exception leaves, so that a later call never meets a copy still writing into its buffers.
//
// The runtime R provides (CudaRuntime in evaluate.cu; the stand-in in the test):
//   Stream, Order                  a stream handle, and a stage's regime-sort buffers
//   void* device_alloc(bytes), void* host_alloc(bytes), Stream stream_create(), void stream_sync(s)
//   static void device_free(p), host_free(p), stream_destroy(s), stream_sync_quiet(s) (errors
//                                  ignored: the pool's destructor and the clean-up after a throw)
//   void order_reserve(Order&, rows)           the sort's buffers for `rows` rows (none when big enough)
//   void upload(dev, host, bytes, s), void download(host, dev, bytes, s)
//   template <class Law, class T> void launch_law(din, dout, opt, rows, Order* (null: plain order), s)
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <vector>

#include "kernels/batch.hpp"
#include "kernels/cuda/host_copy.hpp"

namespace impact::cuda {

// The runtime calls a batch makes, by kind. A launch counts each kernel or library call that puts
// work on a stream (the regime sort's key kernel, CUB's sort and the ordered kernel are three).
enum class Call : int { device_alloc, host_alloc, stream_create, upload, launch, download, stream_sync, device_sync, kinds };
constexpr int kCallKinds = static_cast<int>(Call::kinds);
inline const char* call_name(Call c) {
  constexpr const char* names[kCallKinds] = {"device_alloc", "host_alloc", "stream_create", "upload",
                                             "launch",       "download",   "stream_sync",   "device_sync"};
  return names[static_cast<int>(c)];
}

struct CallCounts {
  std::uint64_t n[kCallKinds] = {};
  std::uint64_t& operator[](Call c) { return n[static_cast<int>(c)]; }
  std::uint64_t operator[](Call c) const { return n[static_cast<int>(c)]; }
  // the calls made since `before`
  CallCounts since(const CallCounts& before) const {
    CallCounts d;
    for (int k = 0; k < kCallKinds; ++k) d.n[k] = n[k] - before.n[k];
    return d;
  }
};

// Chunked streaming: the batch is cut into chunks of `chunk_rows` rows (0: about a quarter of the
// batch, between 2^14 and 2^17 rows); chunk k goes through stage k mod `streams` (>= 2): host
// packing, upload, kernels, download on the stage's stream, so that the kernels of chunk k overlap
// the copies of chunks k - 1 and k + 1. sort: a law with a regime key (HasRegimeKey) has each
// chunk's rows ordered by key on the device and evaluated in that order (a chunk whose probed keys
// are all alike is not sorted: batch_keys_vary); every row's result goes to its own place, so the
// outputs are those of the unsorted evaluation, row for row.
struct StreamOptions {
  std::size_t chunk_rows = 0;
  int streams = 3;
  bool sort = true;
};

// The rows per chunk for a batch of n rows.
inline std::size_t chunk_rows_for(std::size_t n, const StreamOptions& so) {
  std::size_t chunk = so.chunk_rows;
  if (chunk == 0) {
    chunk = (n + 3) / 4;
    if (chunk < (std::size_t(1) << 14)) chunk = std::size_t(1) << 14;
    if (chunk > (std::size_t(1) << 17)) chunk = std::size_t(1) << 17;
  }
  return chunk < n ? chunk : n;
}

// One pipeline stage: a stream and its staging buffers. Within a chunk of m rows the columns are
// packed with stride m (the inputs the law reads, then packed_batch_out), so each direction is one
// contiguous copy.
template <class R>
struct Stage {
  void* host = nullptr;
  void* dev = nullptr;
  std::size_t host_bytes = 0, dev_bytes = 0;
  typename R::Order order{};
  typename R::Stream stream{};
  bool has_stream = false;
  std::size_t first = 0, rows = 0;  // the chunk in flight
  bool pending = false;
};

// The stages of one device and host thread, kept across calls (module comment). Freed, each stream
// waited on first, when the pool goes (at the host thread's exit).
template <class R>
class StagePool {
 public:
  StagePool() = default;
  StagePool(const StagePool&) = delete;
  StagePool& operator=(const StagePool&) = delete;
  ~StagePool() {
    for (auto& st : stages_) {
      if (st->has_stream) {
        R::stream_sync_quiet(st->stream);
        R::stream_destroy(st->stream);
      }
      if (st->host) R::host_free(st->host);
      if (st->dev) R::device_free(st->dev);
    }
  }
  // Stage k, with room for `bytes` of staging each way and a regime sort of `order_rows` rows
  // (0: none), allocating only what it has not got yet.
  Stage<R>& stage(R& rt, int k, std::size_t bytes, std::size_t order_rows) {
    while (static_cast<int>(stages_.size()) <= k) stages_.emplace_back(new Stage<R>());
    Stage<R>& st = *stages_[k];
    if (!st.has_stream) {
      st.stream = rt.stream_create();
      st.has_stream = true;
    }
    // one staging buffer grown to `bytes`: the old block freed first, and an allocation that throws
    // leaves the stage empty, not its old size on no memory
    const auto grow = [&](void*& p, std::size_t& have, void (*release)(void*), auto alloc) {
      if (have >= bytes) return;
      if (p) release(p);
      p = nullptr;
      have = 0;
      p = alloc();
      have = bytes;
    };
    grow(st.host, st.host_bytes, &R::host_free, [&] { return rt.host_alloc(bytes); });
    grow(st.dev, st.dev_bytes, &R::device_free, [&] { return rt.device_alloc(bytes); });
    if (order_rows > 0) rt.order_reserve(st.order, order_rows);
    return st;
  }
  // Waits on every stage's stream and forgets the chunks in flight (a call that throws).
  void abandon() {
    for (auto& st : stages_) {
      if (st->has_stream) R::stream_sync_quiet(st->stream);
      st->pending = false;
    }
  }

 private:
  std::vector<std::unique_ptr<Stage<R>>> stages_;
};

namespace detail {

// Copies the outputs of stage st's finished chunk into the caller's arrays.
template <class R, class T>
void drain(R& rt, Stage<R>& st, int nin, const BatchOut<T>& out) {
  if (!st.pending) return;
  rt.stream_sync(st.stream);
  const std::size_t m = st.rows, f = st.first;
  const BatchOut<T> h = packed_batch_out<T>(static_cast<char*>(st.host) + std::size_t(nin) * m * sizeof(T), m);
  CopySpan sp[kNumRealOutputs + 3];
  int c = 0;
  for (int k = 0; k < kNumRealOutputs; ++k) sp[c++] = {out.real[k] + f, h.real[k], m * sizeof(T)};
  sp[c++] = {out.modes + f, h.modes, m * sizeof(std::uint32_t)};
  sp[c++] = {out.steps + f, h.steps, m * sizeof(std::int32_t)};
  sp[c++] = {out.status + f, h.status, m};
  copy_spans(sp, c);  // over the host's threads (kernels/cuda/host_copy.hpp)
  st.pending = false;
}

// Packs rows [first, first + m) of the columns the law reads into st's host block (stride m),
// uploads it, runs the law and downloads the outputs, all on st's stream.
template <class R, class Law, class T>
void issue(R& rt, Stage<R>& st, const BatchIn<T>& in, std::size_t first, std::size_t m, int nin, bool sorted,
           const LawOptions& opt) {
  T* hin = static_cast<T*>(st.host);
  T* din_base = static_cast<T*>(st.dev);
  const T* dcol[kNumInputs];
  CopySpan sp[kNumInputs];
  int j = 0;
  for (int c = 0; c < kNumInputs; ++c) {
    if (!in.col[c]) {
      dcol[c] = nullptr;
      continue;
    }
    sp[j] = {hin + j * m, in.col[c] + first, m * sizeof(T)};
    dcol[c] = din_base + j * m;
    ++j;
  }
  copy_spans(sp, j);
  const BatchIn<T> din = batch_in_of<T>(dcol, m);
  const std::size_t ib = std::size_t(nin) * m * sizeof(T), ob = m * output_row_bytes<T>();
  const BatchOut<T> dout = packed_batch_out<T>(static_cast<char*>(st.dev) + ib, m);
  rt.upload(st.dev, st.host, ib, st.stream);
  const bool sort_chunk = sorted && batch_keys_vary<Law, T>(in, first, m);  // else the plain order
  rt.template launch_law<Law, T>(din, dout, opt, m, sort_chunk ? &st.order : nullptr, st.stream);
  rt.download(static_cast<char*>(st.host) + ib, static_cast<char*>(st.dev) + ib, ob, st.stream);
  st.first = first;
  st.rows = m;
  st.pending = true;
}

}  // namespace detail

// Evaluates the batch `in` into `out` (both in host memory) through the stages of `pool` on `rt`.
template <class R, class Law, class T>
void run_streamed(R& rt, StagePool<R>& pool, const BatchIn<T>& in, const BatchOut<T>& out, const LawOptions& opt,
                  const StreamOptions& so) {
  const std::size_t n = in.count;
  if (n == 0) return;
  if (so.streams < 2) throw std::invalid_argument("CUDA streaming needs at least 2 streams");
  const std::size_t chunk = chunk_rows_for(n, so);
  int nin = 0;  // the input columns the law reads (a null column stays null on the device)
  for (const T* c : in.col) nin += c != nullptr;
  const std::size_t chunks = (n + chunk - 1) / chunk;
  // no more stages than chunks: a one-chunk batch holds one stage and one stream
  const int S = chunks < static_cast<std::size_t>(so.streams) ? static_cast<int>(chunks) : so.streams;
  const bool sorted = HasRegimeKey<Law>::value && so.sort;
  const std::size_t bytes = std::size_t(nin) * chunk * sizeof(T) + chunk * output_row_bytes<T>();
  try {
    std::vector<Stage<R>*> st(S);
    for (int k = 0; k < S; ++k) st[k] = &pool.stage(rt, k, bytes, sorted ? chunk : 0);
    std::size_t k = 0;
    for (std::size_t first = 0; first < n; first += chunk, ++k) {
      Stage<R>& s = *st[k % S];
      detail::drain(rt, s, nin, out);  // the chunk this stage carried S chunks ago
      detail::issue<R, Law, T>(rt, s, in, first, n - first < chunk ? n - first : chunk, nin, sorted, opt);
    }
    for (int r = 0; r < S; ++r) detail::drain(rt, *st[(k + r) % S], nin, out);  // the last S chunks, in order
  } catch (...) {
    pool.abandon();
    throw;
  }
}

}  // namespace impact::cuda
