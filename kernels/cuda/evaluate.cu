// CUDA backend: one thread per impact instance; structure-of-arrays in device memory, streamed
// through in chunks (evaluate_streamed: the schedule of kernels/cuda/stream_plan.hpp on CudaRuntime).
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <link.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "impact/laws/all.hpp"
#include "impact/rng.hpp"
#include "kernels/cuda/cuda.hpp"
#include "kernels/cuda/host_copy.hpp"
#include "kernels/cuda/stream_plan.hpp"
#include "kernels/cuda/util.cuh"
#include "kernels/sampled.hpp"

namespace impact::cuda {

namespace {

template <class Law, class T>
__global__ void __launch_bounds__(kEvalBlock, kEvalMinBlocks)
    eval_kernel(__grid_constant__ const EvalFunctor<Law, T> f, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) f(i);
}

// Thread j evaluates row order[j] (the rows sorted by regime key).
template <class Law, class T>
__global__ void __launch_bounds__(kEvalBlock, kEvalMinBlocks)
    eval_ordered_kernel(__grid_constant__ const EvalFunctor<Law, T> f, const std::uint32_t* order, std::size_t n) {
  const std::size_t j = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j < n) f(order[j]);
}

template <class Law, class T>
__global__ void key_kernel(__grid_constant__ const KeyFunctor<Law, T> f, std::size_t n, std::uint32_t* key,
                           std::uint32_t* index) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  key[i] = f(i);
  index[i] = static_cast<std::uint32_t>(i);
}

// "13.0" from 13000 (cudaDriverGetVersion's encoding).
std::string version_text(int v) { return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10); }

// Why cudaGetDeviceCount found no device, in words that say what is true. The runtime answers
// cudaErrorInsufficientDriver ("CUDA driver version is insufficient for CUDA runtime version")
// also when there is no driver at all: cudaDriverGetVersion tells them apart (0 without a driver,
// libcuda.so.1 not loadable), and the loader says why it could not load the library.
std::string no_device_reason(cudaError_t e) {
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  if (driver == 0 || e == cudaErrorStubLibrary) {
    std::string loader = "libcuda.so.1 loads, yet the runtime finds no driver";
    if (void* h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL)) {
      link_map* lm = nullptr;
      const std::string path = dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name ? lm->l_name : "libcuda.so.1";
      if (e == cudaErrorStubLibrary)  // the toolkit's stubs/libcuda.so, for linking only
        loader = "the libcuda.so.1 that loads, " + path + ", is the CUDA toolkit's stub library, not a driver";
      dlclose(h);
    } else {
      const char* d = dlerror();
      loader = std::string("libcuda.so.1 cannot be loaded") + (d ? std::string(": ") + d : std::string());
    }
    return "no NVIDIA driver found (" + loader + ")";
  }
  if (driver < runtime)
    return "the NVIDIA driver is too old: it supports CUDA up to " + version_text(driver) + ", this build's runtime is CUDA " +
           version_text(runtime) + " (update the driver)";
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  const std::string vis = visible ? std::string(" with CUDA_VISIBLE_DEVICES=\"") + visible + "\"" : std::string();
  if (e == cudaSuccess || e == cudaErrorNoDevice)
    return "an NVIDIA driver (CUDA " + version_text(driver) + ") but no CUDA device" + vis;
  return std::string("CUDA could not start (") + cudaGetErrorName(e) + ": " + cudaGetErrorString(e) + "; driver CUDA " +
         version_text(driver) + ", runtime CUDA " + version_text(runtime) + vis + ")";
}

}  // namespace

bool device_available(std::string* why) {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess || n == 0) {
    if (why) *why = no_device_reason(e);
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

bool device_info(DeviceInfo& d, std::string* why) {
  if (!device_available(why)) return false;
  d = DeviceInfo{};
  check(cudaGetDevice(&d.ordinal), "cudaGetDevice");
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, d.ordinal), "cudaGetDeviceProperties");
  d.name = prop.name;
  d.cc_major = prop.major;
  d.cc_minor = prop.minor;
  d.total_mem_bytes = prop.totalGlobalMem;
  // CUDA 13 removed cudaDeviceProp::clockRate / memoryClockRate: the attributes remain
  check(cudaDeviceGetAttribute(&d.sm_count, cudaDevAttrMultiProcessorCount, d.ordinal), "cudaDeviceGetAttribute");
  check(cudaDeviceGetAttribute(&d.clock_khz, cudaDevAttrClockRate, d.ordinal), "cudaDeviceGetAttribute");
  check(cudaDeviceGetAttribute(&d.mem_clock_khz, cudaDevAttrMemoryClockRate, d.ordinal), "cudaDeviceGetAttribute");
  check(cudaDeviceGetAttribute(&d.bus_width_bits, cudaDevAttrGlobalMemoryBusWidth, d.ordinal), "cudaDeviceGetAttribute");
  check(cudaDriverGetVersion(&d.driver_version), "cudaDriverGetVersion");
  check(cudaRuntimeGetVersion(&d.runtime_version), "cudaRuntimeGetVersion");
  return true;
}

namespace {
__global__ void empty_kernel() {}
}  // namespace

void warm_up() {
  // the runtime creates the primary context lazily, at the first call that needs it: force it now
  check(cudaFree(nullptr), "cudaFree(0) (context creation)");
  // the first launch and synchronization set up the launch path (each law's own kernel is still
  // loaded at its first launch under lazy module loading: milliseconds, which the calibration's
  // growing tries absorb)
  empty_kernel<<<1, 1>>>();
  check(cudaGetLastError(), "kernel launch");
  check(cudaDeviceSynchronize(), "kernel");
  // the allocators' set-up: the eval path's first call of a shape allocates device and pinned
  // staging buffers (kept for later calls), the first of each kind here
  constexpr std::size_t kBytes = 1 << 16;
  DeviceBuffer d(kBytes);
  PinnedBuffer p;
  p.alloc(kBytes);
}

LinkRate link_rate(std::size_t bytes) {
  PinnedBuffer h;
  h.alloc(bytes);
  std::memset(h.get(), 0, bytes);
  DeviceBuffer d(bytes);
  cudaEvent_t a, b;
  check(cudaEventCreate(&a), "cudaEventCreate");
  check(cudaEventCreate(&b), "cudaEventCreate");
  auto best = [&](bool to_device) {
    float best_ms = 0;
    for (int r = 0; r < 4; ++r) {  // the first copy is a warm-up
      check(cudaEventRecord(a), "cudaEventRecord");
      check(to_device ? cudaMemcpy(d.get(), h.get(), bytes, cudaMemcpyHostToDevice)
                      : cudaMemcpy(h.get(), d.get(), bytes, cudaMemcpyDeviceToHost),
            "cudaMemcpy (link probe)");
      check(cudaEventRecord(b), "cudaEventRecord");
      check(cudaEventSynchronize(b), "cudaEventSynchronize");
      float ms = 0;
      check(cudaEventElapsedTime(&ms, a, b), "cudaEventElapsedTime");
      if (r > 0 && (best_ms == 0 || ms < best_ms)) best_ms = ms;
    }
    return best_ms > 0 ? double(bytes) / (best_ms * 1e-3) : 0.0;
  };
  LinkRate r;
  r.h2d = best(true);
  r.d2h = best(false);
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return r;
}

namespace {

// The law over m rows whose columns are in device memory, on `stream`: with `order` (a law with a
// regime key), the rows' keys, their stable sort and the evaluation in key order; else row i on
// thread i. Every row's result goes to its own place either way.
template <class Law, class T>
void launch_law(const BatchIn<T>& din, const BatchOut<T>& dout, const LawOptions& opt, std::size_t m, KeyOrder* order,
                cudaStream_t stream) {
  const int block = kEvalBlock;
  bool done = false;
  if constexpr (HasRegimeKey<Law>::value) {
    if (order) {
      key_kernel<Law, T>
          <<<blocks_for(m, block), block, 0, stream>>>(KeyFunctor<Law, T>{din}, m, order->key_in(), order->index_in());
      check(cudaGetLastError(), "regime key kernel launch");
      const std::uint32_t* o = order->sort(m, stream);
      eval_ordered_kernel<Law, T><<<blocks_for(m, block), block, 0, stream>>>(EvalFunctor<Law, T>{din, dout, opt}, o, m);
      done = true;
    }
  }
  if (!done) eval_kernel<Law, T><<<blocks_for(m, block), block, 0, stream>>>(EvalFunctor<Law, T>{din, dout, opt}, m);
  check(cudaGetLastError(), "kernel launch");
}

// The CUDA runtime under the eval path's schedule (kernels/cuda/stream_plan.hpp), each call counted
// where it is made, per host thread (call_counts()).
struct CudaRuntime {
  using Stream = cudaStream_t;
  using Order = KeyOrder;
  CallCounts& counts() { return thread_call_counts(); }
  void* device_alloc(std::size_t bytes) {
    void* p = nullptr;
    check(cudaMalloc(&p, bytes), "cudaMalloc");
    ++device_allocation_counter();
    ++counts()[Call::device_alloc];
    return p;
  }
  void* host_alloc(std::size_t bytes) {
    void* p = nullptr;
    check(cudaHostAlloc(&p, bytes, cudaHostAllocDefault), "cudaHostAlloc");
    ++counts()[Call::host_alloc];
    return p;
  }
  // the frees, the stream's destruction and the quiet wait report nothing: they run in destructors
  // and after an error that is already on its way to the caller
  static void device_free(void* p) { cudaFree(p); }
  static void host_free(void* p) { cudaFreeHost(p); }
  static void stream_destroy(Stream s) { cudaStreamDestroy(s); }
  static void stream_sync_quiet(Stream s) { cudaStreamSynchronize(s); }
  Stream stream_create() {
    cudaStream_t s = nullptr;
    check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
    ++counts()[Call::stream_create];
    return s;
  }
  void stream_sync(Stream s) {
    check(cudaStreamSynchronize(s), "chunk (copy in, kernel, copy out)");
    ++counts()[Call::stream_sync];
  }
  void order_reserve(KeyOrder& o, std::size_t rows) { counts()[Call::device_alloc] += o.reserve(rows); }
  void upload(void* dev, const void* host, std::size_t bytes, Stream s) {
    check(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, s), "cudaMemcpyAsync to device");
    ++counts()[Call::upload];
  }
  void download(void* host, const void* dev, std::size_t bytes, Stream s) {
    check(cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, s), "cudaMemcpyAsync to host");
    ++counts()[Call::download];
  }
  // the law's kernel, or with an order the key kernel, CUB's sort and the ordered kernel
  template <class Law, class T>
  void launch_law(const BatchIn<T>& din, const BatchOut<T>& dout, const LawOptions& opt, std::size_t m, KeyOrder* order,
                  Stream s) {
    cuda::launch_law<Law, T>(din, dout, opt, m, order, s);
    counts()[Call::launch] += HasRegimeKey<Law>::value && order ? 3 : 1;
  }
};

}  // namespace

CallCounts call_counts() { return thread_call_counts(); }

template <class Law, class T>
void evaluate_streamed(const BatchIn<T>& in, const BatchOut<T>& out, const LawOptions& opt, const StreamOptions& so) {
  if (in.count == 0) return;
  int dev = 0;
  check(cudaGetDevice(&dev), "cudaGetDevice");
  CudaRuntime rt;
  run_streamed<CudaRuntime, Law, T>(rt, per_thread_device<StagePool<CudaRuntime>>(dev), in, out, opt, so);
}

template <class Law, class T>
void evaluate(const BatchIn<T>& in, const BatchOut<T>& out, const LawOptions& opt) {
  evaluate_streamed<Law, T>(in, out, opt, StreamOptions{});
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

void philox_uniforms(std::uint64_t seed, std::uint32_t stream, std::uint64_t first, std::size_t count, double* out) {
  if (count == 0) return;
  DeviceBuffer d(2 * count * sizeof(double));
  const int block = 256;
  philox_kernel<<<blocks_for(count, block), block>>>(Philox{seed}, stream, first, count, d.as<double>());
  check(cudaGetLastError(), "kernel launch");
  check(cudaDeviceSynchronize(), "kernel");
  check(cudaMemcpy(out, d.get(), 2 * count * sizeof(double), cudaMemcpyDeviceToHost), "copy to host");
}

#define IMPACT_INSTANTIATE(LAW)                                                                                    \
  template void evaluate<LAW, double>(const BatchIn<double>&, const BatchOut<double>&, const LawOptions&);         \
  template void evaluate<LAW, float>(const BatchIn<float>&, const BatchOut<float>&, const LawOptions&);            \
  template void evaluate_streamed<LAW, double>(const BatchIn<double>&, const BatchOut<double>&, const LawOptions&, \
                                               const StreamOptions&);                                              \
  template void evaluate_streamed<LAW, float>(const BatchIn<float>&, const BatchOut<float>&, const LawOptions&,    \
                                              const StreamOptions&);
IMPACT_FOR_EACH_LAW(IMPACT_INSTANTIATE)
#undef IMPACT_INSTANTIATE

}  // namespace impact::cuda
