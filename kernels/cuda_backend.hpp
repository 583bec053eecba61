// CUDA backend entry points (compiled by nvcc in kernels/cuda_backend.cu; declared here for the
// g++-compiled host code). One thread per instance, the law evaluated in registers.
#pragma once
#include <string>

#include "kernels/batch.hpp"

namespace impact::cuda {

// True when the CUDA runtime finds at least one device. `why` says why not, otherwise names it.
bool device_available(std::string* why = nullptr);

// Evaluates a batch whose arrays live in host memory: copies in, runs, copies out.
template <class Law, class T>
void evaluate(const BatchIn<T>& in, const BatchOut<T>& out, const LawOptions& opt);

}  // namespace impact::cuda
