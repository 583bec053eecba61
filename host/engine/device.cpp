#include "engine/device.hpp"

#include "engine/options.hpp"
#ifdef IMPACT_WITH_CUDA
#include "kernels/cuda/cuda.hpp"
#endif

namespace impact::engine {

namespace {

constexpr SmRate kSmRates[] = {
    {5, 0, 128, 4}, {5, 2, 128, 4},  {5, 3, 128, 4},   {6, 0, 64, 32},  {6, 1, 128, 4}, {6, 2, 128, 4},
    {7, 0, 64, 32}, {7, 2, 64, 32},  {7, 5, 64, 2},    {8, 0, 64, 32},  {8, 6, 128, 2}, {8, 7, 128, 2},
    {8, 9, 128, 2}, {9, 0, 128, 64}, {10, 0, 128, 64}, {12, 0, 128, 2},
};

}  // namespace

const SmRate* sm_rate(int major, int minor) {
  for (const SmRate& r : kSmRates)
    if (r.major == major && r.minor == minor) return &r;
  return nullptr;
}

std::string Device::compute_capability() const { return std::to_string(cc_major) + "." + std::to_string(cc_minor); }

std::string cuda_version_string(int v) { return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10); }

Device query_device() {
  Device d;
  d.built = cuda_built();
  d.usable = cuda_usable(&d.why_not);
  if (!d.usable) return d;
  d.why_not.clear();  // cuda_usable names the device when it is usable
#ifdef IMPACT_WITH_CUDA
  cuda::DeviceInfo di;
  if (!cuda::device_info(di, &d.why_not)) {
    d.usable = false;
    return d;
  }
  d.why_not.clear();
  d.name = di.name;
  d.ordinal = di.ordinal;
  d.cc_major = di.cc_major;
  d.cc_minor = di.cc_minor;
  d.sm_count = di.sm_count;
  d.clock_khz = di.clock_khz;
  d.mem_clock_khz = di.mem_clock_khz;
  d.bus_width_bits = di.bus_width_bits;
  d.total_mem_bytes = di.total_mem_bytes;
  d.driver_version = di.driver_version;
  d.runtime_version = di.runtime_version;
  d.rate = sm_rate(di.cc_major, di.cc_minor);
  const double clk = di.clock_khz * 1e3;
  if (d.rate) {
    d.peak_fp32 = 2.0 * d.rate->fp32 * di.sm_count * clk;
    d.peak_fp64 = 2.0 * d.rate->fp64 * di.sm_count * clk;
  }
  d.peak_bandwidth = 2.0 * di.mem_clock_khz * 1e3 * di.bus_width_bits / 8.0;
#endif
  return d;
}

void measure_link(Device& d) {
#ifdef IMPACT_WITH_CUDA
  if (!d.usable) return;
  const cuda::LinkRate r = cuda::link_rate(std::size_t(256) << 20);
  d.link_h2d = r.h2d;
  d.link_d2h = r.d2h;
#else
  (void)d;
#endif
}

void warm_up_device() {
#ifdef IMPACT_WITH_CUDA
  cuda::warm_up();
#endif
}

int bind_device_to_rank(int local_rank) {
#ifdef IMPACT_WITH_CUDA
  if (!cuda_usable()) return -1;
  return cuda::select_device(local_rank);
#else
  (void)local_rank;
  return -1;
#endif
}

}  // namespace impact::engine
