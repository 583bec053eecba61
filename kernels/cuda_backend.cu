// CUDA backend: one thread per impact instance; structure-of-arrays in device memory, streamed
// through in chunks (evaluate_streamed).
#include <cuda_runtime.h>

#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/all_laws.hpp"
#include "impact/rng.hpp"
#include "kernels/cuda_backend.hpp"
#include "kernels/sampled.hpp"

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

// Pinned host memory, freed on scope exit.
struct PinnedBuffer {
  void* p = nullptr;
  PinnedBuffer() = default;
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  ~PinnedBuffer() {
    if (p) cudaFreeHost(p);
  }
  void alloc(std::size_t bytes) { check(cudaHostAlloc(&p, bytes, cudaHostAllocDefault), "cudaHostAlloc"); }
};

struct DeviceBuffer {
  void* p = nullptr;
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() {
    if (p) cudaFree(p);
  }
  void alloc(std::size_t bytes) { check(cudaMalloc(&p, bytes), "cudaMalloc"); }
};

struct Stream {
  cudaStream_t s = nullptr;
  Stream() { check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate"); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  ~Stream() {
    cudaStreamSynchronize(s);  // nothing in flight may outlive the buffers (errors: already reported)
    cudaStreamDestroy(s);
  }
};

// Number of T output columns: P (3), vf (3), dE, In_c, aux.
constexpr int kOutT = 8 + kAux;

// One pipeline stage: the staging buffers of one stream, sized for one chunk. Within a chunk of m
// rows the columns are packed with stride m, so each direction is one contiguous copy.
template <class T>
struct Stage {
  PinnedBuffer host;
  DeviceBuffer dev;
  Stream stream;  // declared last: destroyed (synchronized) before the buffers are freed
  std::size_t first = 0, rows = 0;  // the chunk in flight
  bool pending = false;
  std::size_t in_bytes(int nin, std::size_t m) const { return std::size_t(nin) * m * sizeof(T); }
  std::size_t out_bytes(std::size_t m) const {
    return std::size_t(kOutT) * m * sizeof(T) + m * (sizeof(std::uint32_t) + sizeof(std::int32_t) + 1);
  }
};

// Byte offsets of the output block within a stage (after the inputs), for a chunk of m rows.
template <class T>
struct OutLayout {
  T* t;                   // kOutT columns
  std::uint32_t* modes;
  std::int32_t* steps;
  std::uint8_t* status;
  OutLayout(char* base, std::size_t m) {
    t = reinterpret_cast<T*>(base);
    modes = reinterpret_cast<std::uint32_t*>(base + kOutT * m * sizeof(T));
    steps = reinterpret_cast<std::int32_t*>(base + kOutT * m * sizeof(T) + m * sizeof(std::uint32_t));
    status = reinterpret_cast<std::uint8_t*>(base + kOutT * m * sizeof(T) + m * (sizeof(std::uint32_t) + sizeof(std::int32_t)));
  }
  BatchOut<T> view(std::size_t m) const {
    BatchOut<T> o{};
    for (int k = 0; k < 3; ++k) o.P[k] = t + k * m, o.vf[k] = t + (3 + k) * m;
    o.dE = t + 6 * m;
    o.In_c = t + 7 * m;
    for (int k = 0; k < kAux; ++k) o.aux[k] = t + (8 + k) * m;
    o.modes = modes;
    o.steps = steps;
    o.status = status;
    return o;
  }
};

template <class T>
T* const* out_columns(const BatchOut<T>& out, T* (&cols)[kOutT]) {
  for (int k = 0; k < 3; ++k) cols[k] = out.P[k], cols[3 + k] = out.vf[k];
  cols[6] = out.dE;
  cols[7] = out.In_c;
  for (int k = 0; k < kAux; ++k) cols[8 + k] = out.aux[k];
  return cols;
}

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
  const T* icol[16] = {in.W[0], in.W[1], in.W[2], in.W[3], in.W[4], in.W[5], in.n[0], in.n[1],
                       in.n[2], in.v[0], in.v[1], in.v[2], in.mu,   in.e,    in.e_t, in.eta0};
  int nin = 0;
  for (const T* c : icol) nin += c != nullptr;
  T* ocol[kOutT];
  out_columns(out, ocol);

  const int S = so.streams;
  std::vector<std::unique_ptr<Stage<T>>> stages;
  for (int k = 0; k < S; ++k) {
    stages.emplace_back(new Stage<T>());
    Stage<T>& st = *stages.back();
    const std::size_t bytes = st.in_bytes(nin, chunk) + st.out_bytes(chunk);
    st.host.alloc(bytes);
    st.dev.alloc(bytes);
  }

  // copies the outputs of a finished stage into the caller's arrays
  auto drain = [&](Stage<T>& st) {
    if (!st.pending) return;
    check(cudaStreamSynchronize(st.stream.s), "chunk (copy in, kernel, copy out)");
    const std::size_t m = st.rows, f = st.first;
    const OutLayout<T> h(static_cast<char*>(st.host.p) + st.in_bytes(nin, m), m);
    for (int k = 0; k < kOutT; ++k) std::memcpy(ocol[k] + f, h.t + k * m, m * sizeof(T));
    std::memcpy(out.modes + f, h.modes, m * sizeof(std::uint32_t));
    std::memcpy(out.steps + f, h.steps, m * sizeof(std::int32_t));
    std::memcpy(out.status + f, h.status, m);
    st.pending = false;
  };

  const int block = 128;
  std::size_t k = 0;
  for (std::size_t first = 0; first < n; first += chunk, ++k) {
    Stage<T>& st = *stages[k % S];
    drain(st);  // the chunk this stage carried S chunks ago
    const std::size_t m = n - first < chunk ? n - first : chunk;
    // pack the inputs: the present columns, stride m
    T* hin = static_cast<T*>(st.host.p);
    T* din_base = static_cast<T*>(st.dev.p);
    const T* dcol[16];
    int j = 0;
    for (int c = 0; c < 16; ++c) {
      if (!icol[c]) {
        dcol[c] = nullptr;
        continue;
      }
      std::memcpy(hin + j * m, icol[c] + first, m * sizeof(T));
      dcol[c] = din_base + j * m;
      ++j;
    }
    const BatchIn<T> din = batch_in_of<T>(dcol, m);
    const std::size_t ib = st.in_bytes(nin, m), ob = st.out_bytes(m);
    const OutLayout<T> dout(static_cast<char*>(st.dev.p) + ib, m);
    check(cudaMemcpyAsync(st.dev.p, st.host.p, ib, cudaMemcpyHostToDevice, st.stream.s), "cudaMemcpyAsync to device");
    eval_kernel<Law, T><<<static_cast<unsigned>((m + block - 1) / block), block, 0, st.stream.s>>>(
        EvalFunctor<Law, T>{din, dout.view(m), opt}, m);
    check(cudaGetLastError(), "kernel launch");
    check(cudaMemcpyAsync(static_cast<char*>(st.host.p) + ib, static_cast<char*>(st.dev.p) + ib, ob,
                          cudaMemcpyDeviceToHost, st.stream.s),
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
  template void evaluate<LAW, float>(const BatchIn<float>&, const BatchOut<float>&, const LawOptions&); \
  template void evaluate_streamed<LAW, double>(const BatchIn<double>&, const BatchOut<double>&, const LawOptions&, \
                                               const StreamOptions&);                                        \
  template void evaluate_streamed<LAW, float>(const BatchIn<float>&, const BatchOut<float>&, const LawOptions&, \
                                              const StreamOptions&);
IMPACT_FOR_EACH_LAW(IMPACT_INSTANTIATE)
#undef IMPACT_INSTANTIATE

}  // namespace impact::cuda
