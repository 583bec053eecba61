// CUDA backend: one thread per impact instance; structure-of-arrays in device memory.
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "impact/laws/aghili.hpp"
#include "impact/laws/chatterjee_ruina.hpp"
#include "impact/laws/jia.hpp"
#include "impact/laws/morgan.hpp"
#include "impact/laws/newton.hpp"
#include "impact/laws/stronge.hpp"
#include "impact/rng.hpp"
#include "kernels/cuda_backend.hpp"

namespace impact::cuda {

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string("CUDA: ") + what + ": " + cudaGetErrorString(e));
}

template <class Law, class T>
__global__ void eval_kernel(EvalFunctor<Law, T> f, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) f(i);
}

// Device buffers mirroring a host batch; frees on scope exit.
struct DeviceArena {
  std::vector<void*> ptrs;
  ~DeviceArena() {
    for (void* p : ptrs) cudaFree(p);
  }
  template <class U>
  U* alloc(std::size_t n) {
    void* p = nullptr;
    check(cudaMalloc(&p, n * sizeof(U) + 1), "cudaMalloc");
    ptrs.push_back(p);
    return static_cast<U*>(p);
  }
  template <class U>
  const U* upload(const U* host, std::size_t n) {
    if (!host) return nullptr;
    U* d = alloc<U>(n);
    check(cudaMemcpy(d, host, n * sizeof(U), cudaMemcpyHostToDevice), "copy to device");
    return d;
  }
};

template <class U>
void download(U* host, const U* dev, std::size_t n) {
  check(cudaMemcpy(host, dev, n * sizeof(U), cudaMemcpyDeviceToHost), "copy to host");
}

}  // namespace

bool device_available(std::string* why) {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess || n == 0) {
    if (why) *why = e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA device";
    cudaGetLastError();  // clear the sticky error state of a failed query
    return false;
  }
  if (why) {
    cudaDeviceProp prop{};
    cudaGetDeviceProperties(&prop, 0);
    *why = prop.name;
  }
  return true;
}

template <class Law, class T>
void evaluate(const BatchIn<T>& in, const BatchOut<T>& out, const LawOptions& opt) {
  const std::size_t n = in.count;
  if (n == 0) return;
  DeviceArena arena;
  BatchIn<T> din = in;
  for (int k = 0; k < 6; ++k) din.W[k] = arena.upload(in.W[k], n);
  for (int k = 0; k < 3; ++k) din.n[k] = arena.upload(in.n[k], n);
  for (int k = 0; k < 3; ++k) din.v[k] = arena.upload(in.v[k], n);
  din.mu = arena.upload(in.mu, n);
  din.e = arena.upload(in.e, n);
  din.e_t = arena.upload(in.e_t, n);
  din.eta0 = arena.upload(in.eta0, n);
  BatchOut<T> dout{};
  for (int k = 0; k < 3; ++k) dout.P[k] = arena.alloc<T>(n);
  for (int k = 0; k < 3; ++k) dout.vf[k] = arena.alloc<T>(n);
  dout.dE = arena.alloc<T>(n);
  dout.In_c = arena.alloc<T>(n);
  for (int k = 0; k < kAux; ++k) dout.aux[k] = arena.alloc<T>(n);
  dout.modes = arena.alloc<std::uint32_t>(n);
  dout.steps = arena.alloc<std::int32_t>(n);
  dout.status = arena.alloc<std::uint8_t>(n);
  const int block = 128;
  const unsigned grid = static_cast<unsigned>((n + block - 1) / block);
  eval_kernel<Law, T><<<grid, block>>>(EvalFunctor<Law, T>{din, dout, opt}, n);
  check(cudaGetLastError(), "kernel launch");
  check(cudaDeviceSynchronize(), "kernel");
  for (int k = 0; k < 3; ++k) download(out.P[k], dout.P[k], n);
  for (int k = 0; k < 3; ++k) download(out.vf[k], dout.vf[k], n);
  download(out.dE, dout.dE, n);
  download(out.In_c, dout.In_c, n);
  for (int k = 0; k < kAux; ++k) download(out.aux[k], dout.aux[k], n);
  download(out.modes, dout.modes, n);
  download(out.steps, dout.steps, n);
  download(out.status, dout.status, n);
}

namespace {
__global__ void philox_kernel(Philox rng, std::uint32_t stream, std::uint64_t first, std::size_t n, double* out) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) {
    double a, b;
    uniforms2(rng, first + i, stream, a, b);
    out[2 * i] = a;
    out[2 * i + 1] = b;
  }
}
}  // namespace

void philox_uniforms(std::uint64_t seed, std::uint32_t stream, std::uint64_t first, std::size_t count,
                     double* out) {
  if (count == 0) return;
  DeviceArena arena;
  double* d = arena.alloc<double>(2 * count);
  const int block = 256;
  philox_kernel<<<static_cast<unsigned>((count + block - 1) / block), block>>>(Philox{seed}, stream, first,
                                                                                 count, d);
  check(cudaGetLastError(), "kernel launch");
  check(cudaDeviceSynchronize(), "kernel");
  download(out, d, 2 * count);
}

#define IMPACT_INSTANTIATE(LAW)                                                                 \
  template void evaluate<LAW, double>(const BatchIn<double>&, const BatchOut<double>&, const LawOptions&); \
  template void evaluate<LAW, float>(const BatchIn<float>&, const BatchOut<float>&, const LawOptions&);
IMPACT_INSTANTIATE(NewtonLaw)
IMPACT_INSTANTIATE(ChatterjeeRuinaLaw)
IMPACT_INSTANTIATE(AghiliLaw)
IMPACT_INSTANTIATE(MorganLaw)
IMPACT_INSTANTIATE(StrongeLaw)
IMPACT_INSTANTIATE(JiaLaw)
#undef IMPACT_INSTANTIATE

}  // namespace impact::cuda
