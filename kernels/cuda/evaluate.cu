// CUDA backend: one thread per impact instance; structure-of-arrays in device memory, streamed
// through in chunks (evaluate_streamed).
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
#include "kernels/cuda/util.cuh"
#include "kernels/sampled.hpp"

namespace impact::cuda {

namespace {

constexpr int kEvalBlock = 128;
// Blocks per SM ptxas must fit: 4 caps the eval kernels at 128 registers, 25% occupancy, as the
// sampled reduction (sampled.cu, reduce_min_blocks, where the measurements are). On an H200,
// `impact bench` (2^21 rows in host memory, PCIe included; same call, tables byte-identical):
// stronge double 1.35x (13.9 -> 18.8 M/s), jia double 1.04x (9.1 -> 9.3 M/s, within the noise),
// the floats and the algebraic laws unchanged (transfer-bound).
constexpr int kEvalMinBlocks = 4;

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
  // every evaluate call allocates device and pinned staging buffers: the first of each kind here
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

// One pipeline stage: the staging buffers of one stream, sized for one chunk. Within a chunk of m
// rows the columns are packed with stride m (inputs, then packed_batch_out), so each direction is
// one contiguous copy.
template <class T>
struct Stage {
  PinnedBuffer host;
  DeviceBuffer dev;
  KeyOrder order;                   // the regime-key sort of a chunk (laws with a key, StreamOptions::sort)
  Stream stream;                    // declared last: destroyed (synchronized) before the buffers are freed
  std::size_t first = 0, rows = 0;  // the chunk in flight
  bool pending = false;
  static std::size_t in_bytes(int nin, std::size_t m) { return std::size_t(nin) * m * sizeof(T); }
  static std::size_t out_bytes(std::size_t m) { return m * output_row_bytes<T>(); }
};

}  // namespace

template <class Law, class T>
void evaluate_streamed(const BatchIn<T>& in, const BatchOut<T>& out, const LawOptions& opt, const StreamOptions& so) {
  const std::size_t n = in.count;
  if (n == 0) return;
  if (so.streams < 2) throw std::invalid_argument("CUDA streaming needs at least 2 streams");
  std::size_t chunk = so.chunk_rows;
  if (chunk == 0) {
    chunk = (n + 3) / 4;
    if (chunk < (std::size_t(1) << 14)) chunk = std::size_t(1) << 14;
    if (chunk > (std::size_t(1) << 17)) chunk = std::size_t(1) << 17;
  }
  if (chunk > n) chunk = n;
  // the input columns the law reads (a null column stays null on the device)
  int nin = 0;
  for (const T* c : in.col) nin += c != nullptr;

  const int S = so.streams;
  const bool sorted = HasRegimeKey<Law>::value && so.sort;
  std::vector<std::unique_ptr<Stage<T>>> stages;
  for (int k = 0; k < S; ++k) {
    stages.emplace_back(new Stage<T>());
    Stage<T>& st = *stages.back();
    const std::size_t bytes = st.in_bytes(nin, chunk) + st.out_bytes(chunk);
    st.host.alloc(bytes);
    st.dev.alloc(bytes);
    if (sorted) st.order.alloc(chunk);
  }

  // copies the outputs of a finished stage into the caller's arrays
  auto drain = [&](Stage<T>& st) {
    if (!st.pending) return;
    check(cudaStreamSynchronize(st.stream.get()), "chunk (copy in, kernel, copy out)");
    const std::size_t m = st.rows, f = st.first;
    const BatchOut<T> h = packed_batch_out<T>(static_cast<char*>(st.host.get()) + st.in_bytes(nin, m), m);
    CopySpan sp[kNumRealOutputs + 3];
    int c = 0;
    for (int k = 0; k < kNumRealOutputs; ++k) sp[c++] = {out.real[k] + f, h.real[k], m * sizeof(T)};
    sp[c++] = {out.modes + f, h.modes, m * sizeof(std::uint32_t)};
    sp[c++] = {out.steps + f, h.steps, m * sizeof(std::int32_t)};
    sp[c++] = {out.status + f, h.status, m};
    copy_spans(sp, c);  // over the host's threads (kernels/cuda/host_copy.hpp)
    st.pending = false;
  };

  std::size_t k = 0;
  for (std::size_t first = 0; first < n; first += chunk, ++k) {
    Stage<T>& st = *stages[k % S];
    drain(st);  // the chunk this stage carried S chunks ago
    const std::size_t m = n - first < chunk ? n - first : chunk;
    // pack the inputs: the present columns, stride m
    T* hin = static_cast<T*>(st.host.get());
    T* din_base = st.dev.template as<T>();
    const T* dcol[kNumInputs];
    CopySpan sp[kNumInputs];
    int j = 0;
    for (int c = 0; c < kNumInputs; ++c) {
      if (!in.col[c]) {
        dcol[c] = nullptr;
        continue;
      }
      sp[j] = {hin + j * m, in.col[c] + first, m * sizeof(T)};
      dcol[c] = din_base + j * m;
      ++j;
    }
    copy_spans(sp, j);
    const BatchIn<T> din = batch_in_of<T>(dcol, m);
    const std::size_t ib = st.in_bytes(nin, m), ob = st.out_bytes(m);
    const BatchOut<T> dout = packed_batch_out<T>(static_cast<char*>(st.dev.get()) + ib, m);
    check(cudaMemcpyAsync(st.dev.get(), st.host.get(), ib, cudaMemcpyHostToDevice, st.stream.get()), "cudaMemcpyAsync to device");
    const bool sort_chunk = sorted && batch_keys_vary<Law, T>(in, first, m);  // else the plain order
    launch_law<Law, T>(din, dout, opt, m, sort_chunk ? &st.order : nullptr, st.stream.get());
    check(cudaMemcpyAsync(static_cast<char*>(st.host.get()) + ib, static_cast<char*>(st.dev.get()) + ib, ob,
                          cudaMemcpyDeviceToHost, st.stream.get()),
          "cudaMemcpyAsync to host");
    st.first = first;
    st.rows = m;
    st.pending = true;
  }
  // the last S chunks, in order
  for (std::size_t r = 0; r < static_cast<std::size_t>(S); ++r) drain(*stages[(k + r) % S]);
}

template <class Law, class T>
void evaluate(const BatchIn<T>& in, const BatchOut<T>& out, const LawOptions& opt) {
  evaluate_streamed<Law, T>(in, out, opt, StreamOptions{});
}

namespace {
// The regime sort's buffers of this host thread on the current device, kept across calls (a repeated
// call of the same size allocates nothing).
KeyOrder& cached_key_order() {
  int dev = 0;
  check(cudaGetDevice(&dev), "cudaGetDevice");
  return per_thread_device<KeyOrder>(dev);
}
}  // namespace

template <class Law, class T>
void evaluate_on_device(const BatchIn<T>& din, const BatchOut<T>& dout, const LawOptions& opt) {
  const std::size_t m = din.count;
  if (m == 0) return;
  KeyOrder* order = nullptr;
  if (HasRegimeKey<Law>::value) {
    order = &cached_key_order();
    order->reserve(m);
  }
  launch_law<Law, T>(din, dout, opt, m, order, nullptr);
  check(cudaStreamSynchronize(nullptr), "kernel on device arrays");
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

#define IMPACT_INSTANTIATE(LAW)                                                                                      \
  template void evaluate<LAW, double>(const BatchIn<double>&, const BatchOut<double>&, const LawOptions&);           \
  template void evaluate<LAW, float>(const BatchIn<float>&, const BatchOut<float>&, const LawOptions&);              \
  template void evaluate_streamed<LAW, double>(const BatchIn<double>&, const BatchOut<double>&, const LawOptions&,   \
                                               const StreamOptions&);                                                \
  template void evaluate_streamed<LAW, float>(const BatchIn<float>&, const BatchOut<float>&, const LawOptions&,      \
                                              const StreamOptions&);                                                 \
  template void evaluate_on_device<LAW, double>(const BatchIn<double>&, const BatchOut<double>&, const LawOptions&); \
  template void evaluate_on_device<LAW, float>(const BatchIn<float>&, const BatchOut<float>&, const LawOptions&);
IMPACT_FOR_EACH_LAW(IMPACT_INSTANTIATE)
#undef IMPACT_INSTANTIATE

}  // namespace impact::cuda
