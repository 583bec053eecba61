#include "kernels/cuda/host_copy.hpp"

#include <cstring>
#include <vector>

namespace impact::cuda {

void copy_spans(const CopySpan* spans, int count) {
  std::size_t total = 0;
  for (int i = 0; i < count; ++i) total += spans[i].bytes;
  if (total < kCopyParallelMin) {
    for (int i = 0; i < count; ++i)
      if (spans[i].bytes) std::memcpy(spans[i].dst, spans[i].src, spans[i].bytes);
    return;
  }
  std::vector<CopySpan> pieces;
  pieces.reserve(total / kCopyPiece + count);
  for (int i = 0; i < count; ++i)
    for (std::size_t off = 0; off < spans[i].bytes; off += kCopyPiece) {
      const std::size_t b = spans[i].bytes - off < kCopyPiece ? spans[i].bytes - off : kCopyPiece;
      pieces.push_back({static_cast<char*>(spans[i].dst) + off, static_cast<const char*>(spans[i].src) + off, b});
    }
  const long np = static_cast<long>(pieces.size());
#pragma omp parallel for schedule(static)
  for (long k = 0; k < np; ++k) std::memcpy(pieces[k].dst, pieces[k].src, pieces[k].bytes);
}

}  // namespace impact::cuda
