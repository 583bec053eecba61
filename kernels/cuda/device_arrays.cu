// Arrays owned by the caller on the device (DLPack / __cuda_array_interface__ from CuPy, PyTorch,
// JAX): a gather kernel reads them, with their strides and dtype, into the law's input columns; the
// law runs on the device (evaluate_on_device); a scatter kernel writes its columns into the caller's
// result arrays. Chunks of kDeviceChunk rows bound the scratch memory. Nothing crosses to the host
// but the W-symmetry flag.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "kernels/cuda/cuda.hpp"
#include "kernels/cuda/util.cuh"

namespace impact::cuda {

namespace {

constexpr int kBlock = 256;

__device__ double read_view(const DeviceView& v, std::size_t row, int a, int b) {
  if (!v.data) return v.value;
  const std::int64_t k = static_cast<std::int64_t>(row) * v.stride[0] + a * v.stride[1] + b * v.stride[2];
  return v.f64 ? static_cast<const double*>(v.data)[k] : static_cast<double>(static_cast<const float*>(v.data)[k]);
}

// Rows [first, first + m) of the caller's arrays into the input columns cols[c * m + i] (InputColumn
// order; W's upper triangle); the first row whose W is not symmetric to 1e-12 of max |W| (the host
// path's rule) into *asym (atomicMin).
template <class T>
__global__ void gather_kernel(const DeviceInputs in, std::size_t first, std::size_t m, T* cols, unsigned long long* asym) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= m) return;
  const std::size_t r = first + i;
  const double xx = read_view(in.W, r, 0, 0), xy = read_view(in.W, r, 0, 1), xz = read_view(in.W, r, 0, 2);
  const double yy = read_view(in.W, r, 1, 1), yz = read_view(in.W, r, 1, 2), zz = read_view(in.W, r, 2, 2);
  const double d =
      fmax(fabs(xy - read_view(in.W, r, 1, 0)), fmax(fabs(xz - read_view(in.W, r, 2, 0)), fabs(yz - read_view(in.W, r, 2, 1))));
  const double s = fmax(fmax(fmax(fabs(xx), fabs(xy)), fmax(fabs(xz), fabs(yy))), fmax(fabs(yz), fabs(zz)));
  if (!(d <= 1e-12 * s) && isfinite(s)) atomicMin(asym, static_cast<unsigned long long>(r));
  const double w[6] = {xx, xy, xz, yy, yz, zz};
  for (int c = 0; c < 6; ++c) cols[c * m + i] = static_cast<T>(w[c]);
  for (int k = 0; k < 3; ++k) {
    cols[(in_n_x + k) * m + i] = static_cast<T>(read_view(in.n, r, k, 0));
    cols[(in_v_x + k) * m + i] = static_cast<T>(read_view(in.v, r, k, 0));
  }
  for (int p = 0; p < 4; ++p)
    if (in.has[p]) cols[(in_mu + p) * m + i] = static_cast<T>(read_view(in.param[p], r, 0, 0));
}

// The law's columns of rows [first, first + m) into the caller's result arrays.
template <class T>
__global__ void scatter_kernel(const BatchOut<T> src, std::size_t first, std::size_t m, const DeviceOutputs<T> out) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= m) return;
  const std::size_t r = first + i;
  for (int k = 0; k < 3; ++k) {
    if (out.P) out.P[3 * r + k] = src.real[out_P_x + k][i];
    if (out.vf) out.vf[3 * r + k] = src.real[out_vf_x + k][i];
  }
  for (int k = out_dE; k < kNumRealOutputs; ++k)
    if (out.real[k]) out.real[k][r] = src.real[k][i];
  if (out.modes) out.modes[r] = src.modes[i];
  if (out.steps) out.steps[r] = src.steps[i];
  if (out.status) out.status[r] = src.status[i];
}

// The gather/result/flag buffers of this host thread on one device, kept across calls: a repeated
// call of the same shape allocates nothing (device_allocations() counts).
struct ArrayScratch {
  DeviceBuffer cols, res, flag;
};
ArrayScratch& array_scratch(int device) { return per_thread_device<ArrayScratch>(device); }

}  // namespace

std::uint64_t device_allocations() { return device_allocation_counter().load(); }

template <class T>
std::int64_t evaluate_device_arrays(DeviceLawFn<T> law, int device, const DeviceInputs& in, std::size_t n,
                                    const DeviceOutputs<T>& out, const LawOptions& opt) {
  if (n == 0) return -1;
  check(cudaSetDevice(device), "cudaSetDevice");
  const std::size_t chunk = std::min(n, kDeviceChunk);
  ArrayScratch& sc = array_scratch(device);
  sc.cols.reserve(std::size_t(kNumInputs) * chunk * sizeof(T));
  sc.res.reserve(chunk * output_row_bytes<T>());
  sc.flag.reserve(sizeof(unsigned long long));
  const DeviceBuffer &cols = sc.cols, &res = sc.res, &flag = sc.flag;
  // the symmetry of every W first: an asymmetric W is an error before anything is evaluated
  const unsigned long long none = ~0ull;
  check(cudaMemcpy(flag.get(), &none, sizeof none, cudaMemcpyHostToDevice), "cudaMemcpy (flag)");
  for (std::size_t first = 0; first < n; first += chunk) {
    const std::size_t m = std::min(chunk, n - first);
    gather_kernel<T><<<blocks_for(m, kBlock), kBlock>>>(in, first, m, cols.as<T>(), flag.as<unsigned long long>());
    check(cudaGetLastError(), "gather kernel launch");
  }
  unsigned long long asym = none;
  check(cudaMemcpy(&asym, flag.get(), sizeof asym, cudaMemcpyDeviceToHost), "cudaMemcpy (flag)");
  if (asym != none) return static_cast<std::int64_t>(asym);
  for (std::size_t first = 0; first < n; first += chunk) {
    const std::size_t m = std::min(chunk, n - first);
    if (n > chunk) {  // one chunk: its columns are there from the symmetry pass
      gather_kernel<T><<<blocks_for(m, kBlock), kBlock>>>(in, first, m, cols.as<T>(), flag.as<unsigned long long>());
      check(cudaGetLastError(), "gather kernel launch");
    }
    const T* c[kNumInputs];
    for (int k = 0; k < kNumInputs; ++k) c[k] = cols.as<T>() + std::size_t(k) * m;
    for (int p = 0; p < 4; ++p)
      if (!in.has[p]) c[in_mu + p] = nullptr;
    const BatchOut<T> o = packed_batch_out<T>(res.get(), m);
    law(batch_in_of<T>(c, m), o, opt);  // synchronizes the default stream
    scatter_kernel<T><<<blocks_for(m, kBlock), kBlock>>>(o, first, m, out);
    check(cudaGetLastError(), "scatter kernel launch");
  }
  check(cudaDeviceSynchronize(), "device arrays (gather, law, scatter)");
  return -1;
}

template std::int64_t evaluate_device_arrays<double>(DeviceLawFn<double>, int, const DeviceInputs&, std::size_t,
                                                     const DeviceOutputs<double>&, const LawOptions&);
template std::int64_t evaluate_device_arrays<float>(DeviceLawFn<float>, int, const DeviceInputs&, std::size_t,
                                                    const DeviceOutputs<float>&, const LawOptions&);

void* device_alloc(int device, std::size_t bytes) {
  check(cudaSetDevice(device), "cudaSetDevice");
  void* p = nullptr;
  check(cudaMalloc(&p, bytes > 0 ? bytes : 1), "cudaMalloc");
  return p;
}

void device_free(void* p) {
  if (p) cudaFree(p);
}

int select_device(int local_rank) {
  int count = 0;
  check(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
  const int d = count > 0 ? local_rank % count : 0;
  check(cudaSetDevice(d), "cudaSetDevice");
  return d;
}

}  // namespace impact::cuda
