// Arrays owned by the caller on the device (DLPack / __cuda_array_interface__ from CuPy, PyTorch,
// JAX): one kernel per law reads each row from them (their strides and dtype), evaluates it and
// writes its outcome into the caller's result arrays (kernels/device_rows.hpp: ArrayRowFunctor), with
// a law that has a regime key sorted first (its key kernel and CUB's sort, in pieces of
// kDeviceChunk rows, which bound the sort's memory). Per call: a reset of the W-symmetry flag, the
// launches, the flag's copy back and one wait on the stream; nothing is allocated after the first
// call of a shape (the flag and the sort's buffers are kept per host thread and device), and
// nothing crosses to the host but the flag.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>

#include "impact/laws/all.hpp"
#include "kernels/cuda/cuda.hpp"
#include "kernels/cuda/util.cuh"
#include "kernels/device_rows.hpp"

namespace impact::cuda {

namespace {

// A block's rows of a dense view copied into shared memory (`width` elements of U per row, the
// block's threads reading one run of memory together: whole sectors, where a thread reading its own
// row at a 72-byte stride would take a sector per element), and the view pointed there; any other
// view from the block's first row on.
template <class U>
__device__ void stage_rows(DeviceView& v, int width, std::size_t first, unsigned m, U* smem) {
  const U* src = static_cast<const U*>(v.data) + first * width;
  for (unsigned k = threadIdx.x; k < m * width; k += blockDim.x) smem[k] = src[k];
  v.data = smem;
}
__device__ void stage_view(DeviceView& v, int width, std::size_t first, unsigned m, double* smem) {
  if (!dense_rows(v, width)) {
    v = from_row(v, first);
    return;
  }
  if (v.f64) stage_rows(v, width, first, m, smem);
  else stage_rows(v, width, first, m, reinterpret_cast<float*>(smem));
}

// Row first + i of the caller's arrays, i < m, for the block at `first`: W, n and v staged through
// shared memory where dense, P and vf written there and copied out in whole runs (the rows' other
// outputs are one value each, already whole runs); the first row whose W is not symmetric into
// *asym (atomicMin: the caller keeps no result of a call that has one, so the rows are evaluated
// regardless). The values read and written are the unstaged ones, to the bit.
template <class Law, class T>
__global__ void __launch_bounds__(kEvalBlock, kEvalMinBlocks)
    array_kernel(__grid_constant__ const ArrayRowFunctor<Law, T> f, std::size_t n, unsigned long long* asym) {
  __shared__ double s_w[kEvalBlock * 9], s_n[kEvalBlock * 3], s_v[kEvalBlock * 3];
  __shared__ T s_p[kEvalBlock * 3], s_vf[kEvalBlock * 3];
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * kEvalBlock;
  const unsigned m = static_cast<unsigned>(n - first < kEvalBlock ? n - first : kEvalBlock);
  ArrayRowFunctor<Law, T> g{from_row(f.in, first), from_row(f.out, first), f.opt};
  g.in.W = f.in.W, g.in.n = f.in.n, g.in.v = f.in.v;
  stage_view(g.in.W, 9, first, m, s_w);
  stage_view(g.in.n, 3, first, m, s_n);
  stage_view(g.in.v, 3, first, m, s_v);
  if (g.out.P) g.out.P = s_p;
  if (g.out.vf) g.out.vf = s_vf;
  __syncthreads();
  const unsigned i = threadIdx.x;
  if (i < m) {
    if (!row_w_symmetric(g.in, i)) atomicMin(asym, static_cast<unsigned long long>(first + i));
    g(i);
  }
  __syncthreads();
  for (unsigned k = threadIdx.x; k < 3 * m; k += blockDim.x) {
    if (f.out.P) f.out.P[3 * first + k] = s_p[k];
    if (f.out.vf) f.out.vf[3 * first + k] = s_vf[k];
  }
}

// Thread j evaluates row first + order[j] (the piece's rows sorted by regime key).
template <class Law, class T>
__global__ void __launch_bounds__(kEvalBlock, kEvalMinBlocks)
    array_ordered_kernel(__grid_constant__ const ArrayRowFunctor<Law, T> f, std::size_t first, const std::uint32_t* order,
                         std::size_t m, unsigned long long* asym) {
  const std::size_t j = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= m) return;
  const std::size_t r = first + order[j];
  if (!row_w_symmetric(f.in, r)) atomicMin(asym, static_cast<unsigned long long>(r));
  f(r);
}

template <class Law, class T>
__global__ void array_key_kernel(__grid_constant__ const ArrayKeyFunctor<Law, T> f, std::size_t first, std::size_t m,
                                 std::uint32_t* key, std::uint32_t* index) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= m) return;
  key[i] = f(first + i);
  index[i] = static_cast<std::uint32_t>(i);
}

// What the path keeps per host thread and device across calls.
struct ArrayScratch {
  DeviceBuffer flag;
  PinnedBuffer flag_host;
  KeyOrder order;
};

}  // namespace

std::uint64_t device_allocations() { return device_allocation_counter().load(); }

template <class Law, class T>
std::int64_t evaluate_device_arrays(int device, const DeviceInputs& in, std::size_t n, const DeviceOutputs<T>& out,
                                    const LawOptions& opt) {
  if (n == 0) return -1;
  check(cudaSetDevice(device), "cudaSetDevice");
  CallCounts& calls = thread_call_counts();
  ArrayScratch& sc = per_thread_device<ArrayScratch>(device);
  if (!sc.flag.get()) {
    sc.flag.reserve(sizeof(unsigned long long));
    sc.flag_host.alloc(sizeof(unsigned long long));
    ++calls[Call::device_alloc];
    ++calls[Call::host_alloc];
  }
  // the legacy default stream: ordered after the work of CuPy's and PyTorch's default streams
  const cudaStream_t s = nullptr;
  auto* asym = sc.flag.as<unsigned long long>();
  check(cudaMemsetAsync(asym, 0xff, sizeof(unsigned long long), s), "cudaMemsetAsync (flag)");
  ++calls[Call::launch];
  const ArrayRowFunctor<Law, T> f{in, out, opt};
  if constexpr (HasRegimeKey<Law>::value) {
    for (std::size_t first = 0; first < n; first += kDeviceChunk) {
      const std::size_t m = std::min(kDeviceChunk, n - first);
      calls[Call::device_alloc] += sc.order.reserve(m);
      array_key_kernel<Law, T><<<blocks_for(m, kEvalBlock), kEvalBlock, 0, s>>>(ArrayKeyFunctor<Law, T>{in}, first, m,
                                                                                sc.order.key_in(), sc.order.index_in());
      check(cudaGetLastError(), "regime key kernel launch");
      const std::uint32_t* o = sc.order.sort(m, s);
      array_ordered_kernel<Law, T><<<blocks_for(m, kEvalBlock), kEvalBlock, 0, s>>>(f, first, o, m, asym);
      check(cudaGetLastError(), "kernel launch");
      calls[Call::launch] += 3;
    }
  } else {
    array_kernel<Law, T><<<blocks_for(n, kEvalBlock), kEvalBlock, 0, s>>>(f, n, asym);
    check(cudaGetLastError(), "kernel launch");
    ++calls[Call::launch];
  }
  check(cudaMemcpyAsync(sc.flag_host.get(), asym, sizeof(unsigned long long), cudaMemcpyDeviceToHost, s),
        "cudaMemcpyAsync (flag)");
  ++calls[Call::download];
  check(cudaStreamSynchronize(s), "device arrays (the law's kernels)");
  ++calls[Call::stream_sync];
  const unsigned long long first_asym = *static_cast<const unsigned long long*>(sc.flag_host.get());
  return first_asym == ~0ull ? -1 : static_cast<std::int64_t>(first_asym);
}

#define IMPACT_INSTANTIATE(LAW)                                                                                                  \
  template std::int64_t evaluate_device_arrays<LAW, double>(int, const DeviceInputs&, std::size_t, const DeviceOutputs<double>&, \
                                                            const LawOptions&);                                                  \
  template std::int64_t evaluate_device_arrays<LAW, float>(int, const DeviceInputs&, std::size_t, const DeviceOutputs<float>&,   \
                                                           const LawOptions&);
IMPACT_FOR_EACH_LAW(IMPACT_INSTANTIATE)
#undef IMPACT_INSTANTIATE

namespace {

// The device's default memory pool, set once per device to keep what is freed into it (release
// threshold: no limit), so that a result block freed after use is the next call's without a
// cudaMalloc: a call of a shape seen before reserves nothing new.
cudaMemPool_t result_pool(int device) {
  static std::mutex m;
  static std::map<int, cudaMemPool_t> pools;
  const std::lock_guard<std::mutex> lock(m);
  auto it = pools.find(device);
  if (it != pools.end()) return it->second;
  cudaMemPool_t pool = nullptr;
  check(cudaDeviceGetDefaultMemPool(&pool, device), "cudaDeviceGetDefaultMemPool");
  std::uint64_t keep = ~std::uint64_t(0);
  check(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep), "cudaMemPoolSetAttribute");
  pools.emplace(device, pool);
  return pool;
}

}  // namespace

void* device_alloc(int device, std::size_t bytes) {
  check(cudaSetDevice(device), "cudaSetDevice");
  (void)result_pool(device);
  void* p = nullptr;
  // stream-ordered on the legacy default stream, which the device-array kernels run on
  check(cudaMallocAsync(&p, bytes > 0 ? bytes : 1, nullptr), "cudaMallocAsync");
  return p;
}

void device_free(int device, void* p) {
  if (!p) return;
  int current = 0;
  if (cudaGetDevice(&current) != cudaSuccess) return;  // no CUDA error escapes a deleter
  if (cudaSetDevice(device) != cudaSuccess) return;
  // The block goes back to the pool only once every consumer's work on it has finished: a DLPack
  // consumer (JAX) may free it with kernels still queued on its own non-blocking streams, which
  // the legacy stream's order does not cover. cudaFree waited so too.
  if (cudaDeviceSynchronize() == cudaSuccess) cudaFreeAsync(p, nullptr);
  cudaSetDevice(current);
}

ResultMemory result_memory(int device) {
  ResultMemory r;
  cudaMemPool_t pool = result_pool(device);
  check(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &r.reserved), "cudaMemPoolGetAttribute");
  check(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &r.used), "cudaMemPoolGetAttribute");
  return r;
}

int select_device(int local_rank) {
  int count = 0;
  check(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
  const int d = count > 0 ? local_rank % count : 0;
  check(cudaSetDevice(d), "cudaSetDevice");
  return d;
}

}  // namespace impact::cuda
