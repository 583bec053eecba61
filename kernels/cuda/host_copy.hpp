// Host-side copies of the CUDA eval path (compiled by g++ with OpenMP in kernels/cuda/host_copy.cpp):
// packing a chunk's input columns into pinned staging memory and unpacking its outputs are
// memcpy's of tens of MB per chunk, which one host thread moves at about a fifth of what PCIe
// carries (on an H100 host: chatterjee-ruina through CUDA at 5 GB/s). The spans are cut
// into pieces and copied by the host's OpenMP threads.
#pragma once
#include <cstddef>

namespace impact::cuda {

struct CopySpan {
  void* dst;
  const void* src;
  std::size_t bytes;
};

// Copies every span (dst and src must not overlap); pieces of at least kCopyPiece bytes are spread
// over the OpenMP threads, a total under kCopyParallelMin is copied by the calling thread alone.
constexpr std::size_t kCopyPiece = std::size_t(1) << 18;
constexpr std::size_t kCopyParallelMin = std::size_t(1) << 21;
void copy_spans(const CopySpan* spans, int count);

}  // namespace impact::cuda
