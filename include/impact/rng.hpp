// Counter-based random numbers for on-device sampling (Random123 Philox4x32-10): a draw is a pure
// function of (seed, instance index, stream), so the CPU and the GPU produce the same bits and any
// shard of an index range can be recomputed alone. Integer-to-float conversions only (exact), no
// transcendental functions here, so uniforms are bit-identical on every backend.
#pragma once
#include <cstdint>

#include <Random123/philox.h>

#include "impact/config.hpp"

namespace impact {

struct Philox {
  using Gen = r123::Philox4x32_R<10>;
  std::uint64_t seed;

  // Four 32-bit words for (instance index, stream, block): counter = {index lo, index hi, stream,
  // block}, key = {seed lo, seed hi}.
  IMPACT_HDI Gen::ctr_type words(std::uint64_t index, std::uint32_t stream, std::uint32_t block = 0) const {
    Gen g;
    Gen::ctr_type c = {{static_cast<std::uint32_t>(index), static_cast<std::uint32_t>(index >> 32), stream, block}};
    Gen::key_type k = {{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)}};
    return g(c, k);
  }
};

// Uniform in the open interval (0, 1): the midpoints (m + 1/2) 2^-b of a b-bit grid, with b one
// less than the mantissa so that every value, 1 - 2^-(b+1) included, is exact. Float: 23 bits.
IMPACT_HDI float u01_float(std::uint32_t x) { return (static_cast<float>(x >> 9) + 0.5f) * (1.0f / 8388608.0f); }
// Double: 52 bits from 64.
IMPACT_HDI double u01_double(std::uint32_t hi, std::uint32_t lo) {
  const std::uint64_t m = ((static_cast<std::uint64_t>(hi) << 32) | lo) >> 12;
  return (static_cast<double>(m) + 0.5) * (1.0 / 4503599627370496.0);
}

// Two double uniforms in (0, 1) for (index, stream).
IMPACT_HDI void uniforms2(const Philox& rng, std::uint64_t index, std::uint32_t stream, double& a, double& b) {
  const auto w = rng.words(index, stream);
  a = u01_double(w[0], w[1]);
  b = u01_double(w[2], w[3]);
}

}  // namespace impact
