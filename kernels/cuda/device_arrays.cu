// Arrays owned by the caller on the device (DLPack / __cuda_array_interface__ from CuPy, PyTorch,
// JAX): one kernel per law reads each row from them (their strides and dtype), evaluates it and
// writes its outcome into the caller's result arrays (kernels/device_rows.hpp: ArrayRowFunctor), with
// a law that has a regime key sorted first (its key kernel and CUB's sort, in pieces of
// kDeviceChunk rows, which bound the sort's memory). Per call: a reset of the W-symmetry flag, the
// launches, the flag's copy back and one wait on the stream; nothing is allocated after the first
// call of a shape (the flag and the sort's buffers are kept per host thread and device), and
// nothing crosses to the host but the flag. A result block of the core's pool waits for the whole
// device once, when it is freed (device_free: counted as a device_sync of the freeing thread).
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>

#include "impact/laws/all.hpp"
#include "kernels/cuda/cuda.hpp"
#include "kernels/cuda/util.cuh"
#include "kernels/device_rows.hpp"

namespace impact::cuda {

namespace {

// Makes `device` the thread's current device for a scope and restores the one before (CuPy's
// current device follows the runtime's).
class CurrentDevice {
 public:
  explicit CurrentDevice(int device) {
    check(cudaGetDevice(&saved_), "cudaGetDevice");
    check(cudaSetDevice(device), "cudaSetDevice");
  }
  CurrentDevice(const CurrentDevice&) = delete;
  CurrentDevice& operator=(const CurrentDevice&) = delete;
  ~CurrentDevice() { cudaSetDevice(saved_); }

 private:
  int saved_ = 0;
};

// Row i of the caller's arrays; the first row whose W is not symmetric into *asym (atomicMin: the
// caller keeps no result of a call that has one, so the rows are evaluated regardless).
template <class Law, class T>
__global__ void __launch_bounds__(kEvalBlock, kEvalMinBlocks)
    array_kernel(__grid_constant__ const ArrayRowFunctor<Law, T> f, std::size_t first, std::size_t m, unsigned long long* asym) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= m) return;
  const std::size_t r = first + i;
  if (!row_w_symmetric(f.in, r)) atomicMin(asym, static_cast<unsigned long long>(r));
  f(r);
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
  const CurrentDevice on(device);
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
    array_kernel<Law, T><<<blocks_for(n, kEvalBlock), kEvalBlock, 0, s>>>(f, 0, n, asym);
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

// The pool the results come from, one per device, the core's own (not the device's default pool,
// which CuPy's and PyTorch's asynchronous allocators share): it keeps what is freed into it
// (release threshold: no limit), so that a block freed after use is the next call's without a
// cudaMalloc, and a call of a shape seen before reserves nothing new. A device without memory pools
// takes cudaMalloc and cudaFree.
struct ResultPool {
  cudaMemPool_t pool = nullptr;
  std::atomic<std::uint64_t> blocks{0};  // blocks handed out so far
};
ResultPool& result_pool(int device) {
  static std::mutex m;
  static std::map<int, ResultPool> pools;
  const std::lock_guard<std::mutex> lock(m);
  auto it = pools.find(device);
  if (it != pools.end()) return it->second;
  ResultPool& r = pools[device];
  int supported = 0;
  check(cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, device), "cudaDeviceGetAttribute");
  if (supported) {
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    check(cudaMemPoolCreate(&r.pool, &props), "cudaMemPoolCreate");
    std::uint64_t keep = ~std::uint64_t(0);
    check(cudaMemPoolSetAttribute(r.pool, cudaMemPoolAttrReleaseThreshold, &keep), "cudaMemPoolSetAttribute");
  }
  return r;
}

}  // namespace

void* device_alloc(int device, std::size_t bytes) {
  const CurrentDevice on(device);
  ResultPool& rp = result_pool(device);
  void* p = nullptr;
  // stream-ordered on the legacy default stream, which the device-array kernels run on
  if (rp.pool) check(cudaMallocFromPoolAsync(&p, bytes > 0 ? bytes : 1, rp.pool, nullptr), "cudaMallocFromPoolAsync");
  else check(cudaMalloc(&p, bytes > 0 ? bytes : 1), "cudaMalloc");
  ++rp.blocks;
  return p;
}

void device_free(int device, void* p) {
  if (!p) return;
  int current = 0;
  // no CUDA error escapes a deleter, nor stays behind as the thread's last error for another
  // library's next check to report as its own
  if (cudaGetDevice(&current) != cudaSuccess || cudaSetDevice(device) != cudaSuccess) {
    cudaGetLastError();
    return;
  }
  const bool pooled = result_pool(device).pool != nullptr;
  // The block goes back to the pool only once every consumer's work on it has finished: a DLPack
  // consumer (JAX) may free it with kernels still queued on its own non-blocking streams, which
  // the legacy stream's order does not cover. cudaFree waited so too.
  const cudaError_t e = cudaDeviceSynchronize();
  ++thread_call_counts()[Call::device_sync];  // the one device-wide wait of the device-array path
  if (e == cudaSuccess && pooled) cudaFreeAsync(p, nullptr);
  else if (e == cudaSuccess) cudaFree(p);
  cudaGetLastError();
  cudaSetDevice(current);
}

ResultMemory result_memory(int device) {
  ResultMemory r;
  ResultPool& rp = result_pool(device);
  r.blocks = rp.blocks.load();
  if (!rp.pool) return r;
  check(cudaMemPoolGetAttribute(rp.pool, cudaMemPoolAttrReservedMemCurrent, &r.reserved), "cudaMemPoolGetAttribute");
  check(cudaMemPoolGetAttribute(rp.pool, cudaMemPoolAttrUsedMemCurrent, &r.used), "cudaMemPoolGetAttribute");
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
