// Scrambled Sobol' points in (0, 1)^dim: the Joe-Kuo sequence (boost::random::sobol, the origin
// included as point 0) under Matousek's random linear matrix scramble and a random digital shift,
// per dimension, drawn from Philox numbers of `seed` (the same bits on every machine). A scramble
// keeps the net's balance (each elementary interval of 2^m points holds its share) and makes every
// point uniform on the cube, so that no point sits on a face or at the centre and two seeds give
// independent designs. Used where a design must cover a prior's box evenly with a random start:
// the fit's global stage (calibrate).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace impact::design {

// n points x dim coordinates (row-major), each in the open interval (0, 1) (53 bits, midpoints of
// their cells). Throws std::invalid_argument when dim is 0 or exceeds the direction numbers' table.
std::vector<double> scrambled_sobol(std::size_t dim, std::size_t n, std::uint64_t seed);

}  // namespace impact::design
