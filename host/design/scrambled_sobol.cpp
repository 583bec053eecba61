#include "design/scrambled_sobol.hpp"

#include <stdexcept>
#include <string>

#include <boost/random/sobol.hpp>

#include "impact/rng.hpp"

namespace impact::design {

namespace {

// Philox streams of the scramble (distinct from every other user of a seed in the design layer).
constexpr std::uint32_t kMatrixStream = 31, kShiftStream = 32;

int parity(std::uint64_t v) { return __builtin_parityll(v); }

// Bit i of an index counts from the most significant (weight 2^-(i+1) of the fraction).
constexpr std::uint64_t msb(int i) { return std::uint64_t{1} << (63 - i); }

struct Scramble {
  std::uint64_t row[64];  // row[j]: the input bits output bit j reads (bits 0..j; bit j always)
  std::uint64_t shift;

  Scramble(const Philox& rng, std::size_t dim_index) {
    for (int j = 0; j < 64; ++j) {
      const auto w = rng.words(dim_index, kMatrixStream, static_cast<std::uint32_t>(j));
      const std::uint64_t bits = (static_cast<std::uint64_t>(w[0]) << 32) | w[1];
      // output bit j reads input bits 0..j-1 at random and bit j always: lower-triangular with a
      // unit diagonal, a bijection of each level's cells, so the net stays a net
      const std::uint64_t upto = ~(msb(j) - 1);  // bits 0..j
      row[j] = (bits & upto & ~msb(j)) | msb(j);
    }
    const auto s = rng.words(dim_index, kShiftStream);
    shift = (static_cast<std::uint64_t>(s[0]) << 32) | s[1];
  }

  std::uint64_t operator()(std::uint64_t x) const {
    std::uint64_t y = 0;
    for (int j = 0; j < 64; ++j)
      if (parity(row[j] & x)) y |= msb(j);
    return y ^ shift;
  }
};

}  // namespace

std::vector<double> scrambled_sobol(std::size_t dim, std::size_t n, std::uint64_t seed) {
  const std::size_t max_dim = boost::random::default_sobol_table::max_dimension;
  if (dim == 0 || dim > max_dim)
    throw std::invalid_argument("a Sobol' design needs 1 to " + std::to_string(max_dim) + " dimensions, not " +
                                std::to_string(dim));
  const Philox rng{seed};
  std::vector<Scramble> scramble;
  scramble.reserve(dim);
  for (std::size_t k = 0; k < dim; ++k) scramble.emplace_back(rng, k);
  std::vector<double> u(n * dim);
  boost::random::sobol eng(dim);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < dim; ++k) {
      const std::uint64_t x = i == 0 ? 0 : static_cast<std::uint64_t>(eng());  // point 0: the origin
      u[i * dim + k] = (static_cast<double>(scramble[k](x) >> 11) + 0.5) * 0x1p-53;
    }
  return u;
}

}  // namespace impact::design
