// CUDA backend entry points (compiled by nvcc in kernels/cuda_backend.cu; declared here for the
// g++-compiled host code). One thread per instance, the law evaluated in registers.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "kernels/batch.hpp"

namespace impact::cuda {

// True when the CUDA runtime finds at least one device. `why` says why not, otherwise names it.
bool device_available(std::string* why = nullptr);

// Evaluates a batch whose arrays live in host memory: copies in, runs, copies out.
template <class Law, class T>
void evaluate(const BatchIn<T>& in, const BatchOut<T>& out, const LawOptions& opt);

// Philox uniforms u01(seed, index, stream) for index in [first, first + count) computed on the
// device (the same function the CPU evaluates: tests compare the bits).
void philox_uniforms(std::uint64_t seed, std::uint32_t stream, std::uint64_t first, std::size_t count,
                     double* out);

}  // namespace impact::cuda
