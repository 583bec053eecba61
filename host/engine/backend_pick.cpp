#include "engine/backend_pick.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "engine/device.hpp"
#include <omp.h>

namespace impact::engine {

namespace {

double flops_of(const LawInfo& law, const Workload& w) {
  return law.flops_per_instance(law.integrator() ? kStepsTaken * w.steps : 0.0);
}

std::string rate_str(double per_s) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2g/s", per_s);
  return b;
}

}  // namespace

double cpu_seconds(const LawInfo& law, const Workload& w, int threads) {
  const double t = std::max(threads, 1);
  const double bw = std::min(t * kCpuBytesPerThread, kCpuBytesMax);
  return std::max(flops_of(law, w) / (t * kCpuFlopsPerThread), law.bytes_per_instance(w.precision) / bw);
}

double gpu_seconds(const LawInfo& law, const Workload& w, double peak_fp) {
  const double fp = std::isfinite(peak_fp) && peak_fp > 0 ? peak_fp : kGpuPeakFallback;
  const double compute = flops_of(law, w) / (kGpuPeakShare * fp);
  const double link = w.host_resident ? law.bytes_per_instance(w.precision) / kEvalPathBytes : 0.0;
  return std::max(compute, link);
}

BackendPick pick_backend(std::string_view name, const Workload& w, bool allow_reference) {
  BackendPick p;
  if (name == "cuda") {
    // what is true (no driver, a driver but no device, a driver too old, no CUDA in the build)
    // and what auto would do instead
    std::string why;
    if (!cuda_usable(&why)) {
      const int threads = omp_get_max_threads();
      throw std::invalid_argument("backend 'cuda' is not usable: " + why + "; --backend auto would run on the CPU here (omp, " +
                                  std::to_string(threads) + " thread" + (threads == 1 ? "" : "s") + ")");
    }
  }
  if (name != "auto") {
    p.backend = resolve_backend(name, w.precision, allow_reference);
    return p;
  }
  p.backend = Backend::omp;
  if (!cuda_built()) {
    p.why = " (auto: built without CUDA)";
    return p;
  }
  const Device d = query_device();
  if (!d.usable) {
    p.why = " (auto: CUDA not usable: " + d.why_not + ")";
    return p;
  }
  const int threads = omp_get_max_threads();
  double cpu = 0, gpu = 0;
  for (const LawInfo* law : w.laws) {
    cpu += cpu_seconds(*law, w, threads);
    gpu += gpu_seconds(*law, w, d.peak_fp(w.precision == Precision::f32));
  }
  const double rows = w.rows > 0 ? w.rows : 0;
  const double t_cpu = cpu * rows, t_gpu = gpu * rows + (rows > 0 ? kGpuStartup : 0.0);
  const bool use_gpu = rows > 0 ? t_gpu < t_cpu : gpu < cpu;
  p.backend = use_gpu ? Backend::cuda : Backend::omp;
  p.why = std::string(" (auto: modelled ") + rate_str(1.0 / gpu) + " on " + d.name + " against " + rate_str(1.0 / cpu) + " on " +
          std::to_string(threads) + " CPU thread" + (threads == 1 ? "" : "s") +
          (w.host_resident ? ", batch in host memory" : ", sampled on the device") +
          (rows > 0 && !use_gpu && gpu < cpu ? ", too few rows for the GPU's start-up" : "") + ")";
  return p;
}

AutoCandidates auto_candidates(const Workload& w, double batch_rows) {
  AutoCandidates c;
  c.backends.push_back(Backend::omp);
  const int threads = omp_get_max_threads();
  if (batch_rows < double(kParallelRows) && threads > 1) c.backends.push_back(Backend::serial);
  std::string& gpu = c.no_gpu;
  std::string why_not;
  // usability only: the device's properties (query_device) are not needed, and a Python session
  // asks this on every call
  if (!cuda_built()) {
    gpu = "built without CUDA";
  } else if (!cuda_usable(&why_not)) {
    gpu = "CUDA not usable: " + why_not;
  } else {
    double cpu = 0;
    for (const LawInfo* law : w.laws) cpu += cpu_seconds(*law, w, threads);
    char b[160];
    if (w.rows > 0 && cpu * w.rows < kGpuStartup) {
      std::snprintf(b, sizeof b, "about %.2g rows take a modelled %.2g s on %d CPU thread%s, less than a GPU's start-up (%.2g s)",
                    w.rows, cpu * w.rows, threads, threads == 1 ? "" : "s", kGpuStartup);
      gpu = b;
    } else {
      c.backends.push_back(Backend::cuda);
    }
  }
  return c;
}

}  // namespace impact::engine
