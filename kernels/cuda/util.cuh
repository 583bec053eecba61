// What the CUDA translation units share (nvcc only): error checks that throw, RAII owners of
// device memory, pinned host memory and streams, and the regime-key ordering of a batch.
#pragma once
#include <cuda_runtime.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <cub/device/device_radix_sort.cuh>
#include <stdexcept>
#include <string>

#include "kernels/batch.hpp"
#include "kernels/cuda/stream_plan.hpp"

namespace impact::cuda {

inline void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string("CUDA: ") + what + ": " + cudaGetErrorString(e));
}

// Every cudaMalloc the library makes through DeviceBuffer, counted (tests: a repeated call of the same
// shape on device arrays allocates nothing; cuda::device_allocations()).
inline std::atomic<std::uint64_t>& device_allocation_counter() {
  static std::atomic<std::uint64_t> count{0};
  return count;
}

// Device memory, freed on scope exit. reserve() keeps what is there when it is large enough (the
// buffers the device-array path caches across calls).
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes) { alloc(bytes); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { release(); }
  void alloc(std::size_t bytes) {
    release();
    check(cudaMalloc(&p_, bytes), "cudaMalloc");
    cap_ = bytes;
    ++device_allocation_counter();
  }
  void reserve(std::size_t bytes) {
    if (!p_ || cap_ < bytes) alloc(bytes);
  }
  void release() {
    if (p_) cudaFree(p_);
    p_ = nullptr;
    cap_ = 0;
  }
  void* get() const { return p_; }
  template <class U>
  U* as() const {
    return static_cast<U*>(p_);
  }

 private:
  void* p_ = nullptr;
  std::size_t cap_ = 0;
};

// Pinned (page-locked) host memory, freed on scope exit.
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  ~PinnedBuffer() {
    if (p_) cudaFreeHost(p_);
  }
  void alloc(std::size_t bytes) { check(cudaHostAlloc(&p_, bytes, cudaHostAllocDefault), "cudaHostAlloc"); }
  void* get() const { return p_; }

 private:
  void* p_ = nullptr;
};

// A non-blocking stream; its destructor waits for the work in flight (so that nothing outlives
// the buffers it uses) before destroying it.
class Stream {
 public:
  Stream() { check(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking), "cudaStreamCreate"); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  ~Stream() {
    cudaStreamSynchronize(s_);  // errors: already reported by the synchronizing caller
    cudaStreamDestroy(s_);
  }
  cudaStream_t get() const { return s_; }

 private:
  cudaStream_t s_ = nullptr;
};

// Device buffers and CUB's temporary storage for ordering up to `capacity` items by a regime key
// (cub::DeviceRadixSort::SortPairs over the key's kRegimeKeyBits bits: stable, so the order is a
// function of the keys alone). Fill key_in() and index_in(), then sort() returns the indices in
// key order (device memory, valid until the next sort).
class KeyOrder {
 public:
  // alloc() unless the buffers hold capacity items already; returns the device allocations made (0 or 2)
  std::size_t reserve(std::size_t capacity) {
    if (cap_ >= capacity && buf_.get()) return 0;
    alloc(capacity);
    return 2;
  }
  void alloc(std::size_t capacity) {
    cap_ = capacity;
    buf_.alloc(4 * capacity * sizeof(std::uint32_t));
    std::size_t tb = 0;
    check(cub::DeviceRadixSort::SortPairs(nullptr, tb, key_in(), key_out(), index_in(), index_out(), static_cast<int>(capacity),
                                          0, kRegimeKeyBits),
          "cub::DeviceRadixSort::SortPairs (temporary storage size)");
    temp_bytes_ = tb;
    temp_.alloc(tb > 0 ? tb : 1);
  }
  std::uint32_t* key_in() const { return buf_.as<std::uint32_t>(); }
  std::uint32_t* index_in() const { return buf_.as<std::uint32_t>() + cap_; }
  const std::uint32_t* sort(std::size_t n, cudaStream_t stream) {
    if (n > cap_) throw std::logic_error("KeyOrder::sort: more items than allocated");
    std::size_t tb = temp_bytes_;
    check(cub::DeviceRadixSort::SortPairs(temp_.get(), tb, key_in(), key_out(), index_in(), index_out(), static_cast<int>(n), 0,
                                          kRegimeKeyBits, stream),
          "cub::DeviceRadixSort::SortPairs");
    return index_out();
  }

 private:
  std::uint32_t* key_out() const { return buf_.as<std::uint32_t>() + 2 * cap_; }
  std::uint32_t* index_out() const { return buf_.as<std::uint32_t>() + 3 * cap_; }
  DeviceBuffer buf_, temp_;
  std::size_t cap_ = 0, temp_bytes_ = 0;
};

// The eval kernels' block, and the blocks per SM ptxas must fit: 4 caps them at 128 registers, 25%
// occupancy, as the sampled reduction (sampled.cu, reduce_min_blocks, where the measurements are). On
// an H200, `impact bench` (2^21 rows in host memory, PCIe included; same call, tables byte-identical):
// stronge double 1.35x (13.9 -> 18.8 M/s), jia double 1.04x (9.1 -> 9.3 M/s, within the noise), the
// floats and the algebraic laws unchanged (transfer-bound). The device-array path's kernels share them.
constexpr int kEvalBlock = 128;
constexpr int kEvalMinBlocks = 4;

// The runtime calls of this host thread's eval paths (stream_plan.hpp's Call; cuda::call_counts()).
inline CallCounts& thread_call_counts() {
  thread_local CallCounts counts;
  return counts;
}

// Blocks of `block` threads covering n items.
inline unsigned blocks_for(std::size_t n, int block) { return static_cast<unsigned>((n + block - 1) / block); }

// One T per host thread and device, kept across calls: the scratch buffers a repeated call of the
// same shape reuses instead of allocating (device_allocations() counts what is allocated).
// A host thread's calls are sequential, so its T is never shared; each device has its own.
template <class T>
T& per_thread_device(int device) {
  thread_local std::map<int, T> held;
  return held[device];
}

}  // namespace impact::cuda
