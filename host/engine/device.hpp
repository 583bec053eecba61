// The CUDA device of this process as the benchmarks describe it: its attributes, the peak rates
// estimated from them (docs/bench.md "Peak rates"), and a warm-up that makes it ready for timed
// calls. A CPU-only build, a machine without a device or a missing driver: not usable, and why.
#pragma once
#include <cmath>
#include <cstddef>
#include <string>

namespace impact::engine {

// Fused multiply-adds per clock per SM of a compute capability (CUDA C++ Programming Guide,
// "Arithmetic Instructions": throughput of 32- and 64-bit floating-point add/multiply/FMA).
struct SmRate {
  int major, minor, fp32, fp64;
};
// The rates of compute capability major.minor; null when the table does not have it.
const SmRate* sm_rate(int major, int minor);

struct Device {
  bool built = false;   // this build has the CUDA backend
  bool usable = false;  // and a device answers
  std::string why_not;  // when not usable
  // The current device, when usable. Clocks in kHz as cudaDeviceGetAttribute gives them (the
  // peak SM and memory clocks); versions as 1000 major + 10 minor.
  std::string name;
  int ordinal = 0, cc_major = 0, cc_minor = 0, sm_count = 0;
  int clock_khz = 0, mem_clock_khz = 0, bus_width_bits = 0;
  std::size_t total_mem_bytes = 0;
  int driver_version = 0, runtime_version = 0;
  const SmRate* rate = nullptr;  // null: the compute capability is not in the table (no FP peaks)
  double peak_fp64 = NAN;        // flop/s: 2 x FMA/clock/SM x SMs x SM clock; NaN when unknown
  double peak_fp32 = NAN;
  double peak_bandwidth = NAN;  // DRAM bytes/s: 2 x memory clock x bus width / 8
  // host <-> device bytes/s of a plain cudaMemcpy from/to pinned memory (measure_link); NaN until
  // measured
  double link_h2d = NAN, link_d2h = NAN;

  std::string compute_capability() const;  // "9.0"
  double peak_fp(bool single) const { return single ? peak_fp32 : peak_fp64; }
};

// "13.0" from 13000 (cudaDriverGetVersion's encoding).
std::string cuda_version_string(int v);

// The current CUDA device and its peak rates (kernels/cuda/cuda.hpp device_info).
Device query_device();

// Makes the CUDA device ready for timed calls: creates the runtime's context and runs a kernel to
// completion (kernels/cuda/cuda.hpp warm_up), so that the first measured call does not pay the
// start-up (tenths of a second). Nothing without CUDA; throws std::runtime_error on a CUDA error.
void warm_up_device();

// Measures the device's link (Device::link_h2d, link_d2h: cudaMemcpy of 256 MB between pinned host
// memory and the device, best of 3; kernels/cuda/cuda.hpp link_rate). Nothing when not usable.
void measure_link(Device& d);

// One GPU per process of a multi-process run: makes device (local_rank mod the device count) the
// current one and returns it; -1 without CUDA or without a device (the process runs on the CPU).
int bind_device_to_rank(int local_rank);

}  // namespace impact::engine
