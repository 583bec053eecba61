// What the CUDA translation units share (nvcc only): error checks that throw, and RAII owners of
// device memory, pinned host memory and streams.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>
#include <string>

namespace impact::cuda {

inline void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string("CUDA: ") + what + ": " + cudaGetErrorString(e));
}

// Device memory, freed on scope exit.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes) { alloc(bytes); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() {
    if (p_) cudaFree(p_);
  }
  void alloc(std::size_t bytes) { check(cudaMalloc(&p_, bytes), "cudaMalloc"); }
  void* get() const { return p_; }
  template <class U> U* as() const { return static_cast<U*>(p_); }

 private:
  void* p_ = nullptr;
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

// Blocks of `block` threads covering n items.
inline unsigned blocks_for(std::size_t n, int block) { return static_cast<unsigned>((n + block - 1) / block); }

}  // namespace impact::cuda
