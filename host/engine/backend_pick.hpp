// `--backend auto`: the backend a run is given, chosen by a modelled rate, and why. The model
// (docs/architecture.md, "Choosing the backend") compares, per instance, the CPU's time over the
// OpenMP threads with the GPU's, from the law's cost model (LawInfo::flops_per_instance,
// bytes_per_instance) and rates measured on the machines named below (docs/perf-log.md):
//   CPU:  max(flops / (threads x kCpuFlopsPerThread), bytes / min(threads x kCpuBytesPerThread, kCpuBytesMax))
//   GPU:  max(flops / (kGpuPeakShare x the device's peak FP rate), bytes / kEvalPathBytes)  + kGpuStartup / rows
// where the bytes term applies when the batch lives in host memory (eval, compare, study tables) and
// not to the on-device sampled reduction. An integrator's instance takes kStepsTaken x `steps` steps.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "engine/options.hpp"
#include "engine/registry.hpp"

namespace impact::engine {

// The nested-search build on a 16-core Xeon (docs/perf-log.md): jia 1.26, stronge 1.54, aghili
// 1.05 GFLOP/s per thread in double; newton moved 17.8 GB/s over 16 threads.
constexpr double kCpuFlopsPerThread = 1.2e9;
constexpr double kCpuBytesPerThread = 1.1e9;
constexpr double kCpuBytesMax = 20e9;
// The nested-search build on an H100: the integrators reached 0.6% (jia) to 2.9% (stronge) of the
// FP64 peak (1% taken: within a factor 3 of both); the eval path moved 5.1 GB/s (chatterjee-ruina,
// one host thread packing); context start-up ~0.3 s. To be raised when a GPU measures more.
constexpr double kGpuPeakShare = 0.01;
constexpr double kGpuPeakFallback = 3e13;  // FP rate when the compute capability is not in the table
constexpr double kEvalPathBytes = 5e9;
constexpr double kGpuStartup = 0.3;
constexpr double kStepsTaken = 1.5;  // mean steps taken / LawOptions::steps (random contact: 381 for 250)

// What a run asks of its backend.
struct Workload {
  std::vector<const LawInfo*> laws;  // all evaluated on the chosen backend
  Precision precision = Precision::f64;
  int steps = 250;            // LawOptions::steps
  double rows = 0;            // instances per law; 0 when unknown (the start-up is then not counted)
  bool host_resident = true;  // the batch lives in host memory (false: sampled on the device)
};

// Modelled seconds per instance of `law` on the CPU over `threads` threads, and on a GPU with peak FP
// rate `peak_fp` (flop/s of the precision).
double cpu_seconds(const LawInfo& law, const Workload& w, int threads);
double gpu_seconds(const LawInfo& law, const Workload& w, double peak_fp);

struct BackendPick {
  Backend backend = Backend::omp;
  std::string why;  // for the summaries: " (auto: ...)", "" when the backend was named
};

// The backend named by `name` (engine::resolve_backend), or for "auto": omp when the build has no
// CUDA or no device is usable, else whichever of cuda and omp the model gives the shorter time, with
// both modelled rates in `why`. "cuda" without a usable device: std::invalid_argument saying why
// (no CUDA in the build, no NVIDIA driver, a driver but no device, a driver too old) and what
// "auto" would run on instead.
BackendPick pick_backend(std::string_view name, const Workload& w, bool allow_reference);

// A batch under this many rows runs on one thread sooner than on a woken OpenMP team of a few: serial
// is a candidate of `auto`'s trial only for such batches (a calibration's are walkers / 2 x
// experiments; an eval's, its --chunk).
constexpr std::size_t kParallelRows = 4096;

// The backends `auto` weighs by a trial (backend_trial.hpp) for batches of `batch_rows` rows, omp
// first: serial when batch_rows < kParallelRows and omp has more than one thread; cuda when the build
// has it and a device is usable, unless w.rows are known and take the CPU less time in the rate model
// than the GPU's start-up alone (kGpuStartup). `no_gpu`: why cuda is not a candidate ("" when it is).
// With one candidate there is nothing to weigh: pick_backend's reason says why.
struct AutoCandidates {
  std::vector<Backend> backends;
  std::string no_gpu;
};
AutoCandidates auto_candidates(const Workload& w, double batch_rows);

}  // namespace impact::engine
