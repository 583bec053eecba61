// kernels/cuda/host_copy.hpp: the CUDA eval path's packing copies, spread over the OpenMP threads,
// deliver every byte of every span to its place (sizes below, at and above the parallel threshold,
// spans not multiples of the piece size, empty spans).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kernels/cuda/host_copy.hpp"

using namespace impact;

TEST(HostCopy, EverySpanArrivesWhole) {
  for (std::size_t total :
       {std::size_t(1000), cuda::kCopyParallelMin - 1, cuda::kCopyParallelMin, 5 * cuda::kCopyParallelMin + 12345}) {
    const std::size_t sizes[] = {total / 2, 0, total / 3 + 7, total - total / 2 - (total / 3 + 7)};
    std::vector<std::vector<std::uint8_t>> src, dst;
    std::vector<cuda::CopySpan> spans;
    std::uint32_t x = 12345;
    for (std::size_t s : sizes) {
      src.emplace_back(s);
      for (auto& b : src.back()) b = static_cast<std::uint8_t>((x = x * 1664525u + 1013904223u) >> 24);
      dst.emplace_back(s, 0);
    }
    for (std::size_t i = 0; i < src.size(); ++i) spans.push_back({dst[i].data(), src[i].data(), src[i].size()});
    cuda::copy_spans(spans.data(), static_cast<int>(spans.size()));
    for (std::size_t i = 0; i < src.size(); ++i) EXPECT_EQ(dst[i], src[i]) << "total " << total << " span " << i;
  }
}
