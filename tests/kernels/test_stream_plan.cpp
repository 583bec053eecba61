// The CUDA eval path's schedule (kernels/cuda/stream_plan.hpp) on a recording stand-in of the
// runtime, on any machine: the calls a batch makes, counted and in order (no allocation after the
// first call of a shape, one upload, one launch sequence, one download and one stream wait per
// chunk, never a device-wide wait), and the outputs, which the stand-in computes on the host in the
// device's order, against the serial backend bit for bit for every law and both precisions.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "batch_buffers.hpp"
#include "impact/laws/all.hpp"
#include "kernels/cuda/stream_plan.hpp"
#include "kernels/serial/serial.hpp"

using namespace impact;
using cuda::Call;
using cuda::CallCounts;
using impact::testing::Buffers;
using impact::testing::instances;

namespace {

// The stand-in: "device" and pinned memory are host memory, copies are memcpy's, a launch runs the
// law on the host in the order the kernels would (by regime key, stably, when the schedule sorts),
// and every call is counted and appended to a trace. A launch can be made to throw (fail_launch).
struct RecordingRuntime {
  using Stream = int;
  using Order = std::vector<std::uint32_t>;  // its size stands for the sort's device buffers
  CallCounts calls;
  std::vector<Call> trace;
  int streams = 0;
  int fail_launch = -1;     // the index of the launch sequence that throws (-1: none)
  bool fail_alloc = false;  // every allocation throws
  int launched = 0;

  // every call counted and appended to the trace, by the stand-in itself (as CudaRuntime counts)
  void rec(Call c) {
    trace.push_back(c);
    ++calls[c];
  }
  void* device_alloc(std::size_t b) { return note(Call::device_alloc, std::malloc(b)); }
  void* host_alloc(std::size_t b) { return note(Call::host_alloc, std::malloc(b)); }
  static void device_free(void* p) { std::free(p); }
  static void host_free(void* p) { std::free(p); }
  Stream stream_create() {
    rec(Call::stream_create);
    return streams++;
  }
  static void stream_destroy(Stream) {}
  void stream_sync(Stream) { rec(Call::stream_sync); }
  static void stream_sync_quiet(Stream) {}
  // the CUDA KeyOrder's two device buffers (keys and indices, CUB's temporary storage)
  void order_reserve(Order& o, std::size_t rows) {
    if (o.size() >= rows) return;
    o.assign(rows, 0);
    rec(Call::device_alloc);
    rec(Call::device_alloc);
  }
  void upload(void* d, const void* h, std::size_t b, Stream) {
    std::memcpy(d, h, b);
    rec(Call::upload);
  }
  void download(void* h, const void* d, std::size_t b, Stream) {
    std::memcpy(h, d, b);
    rec(Call::download);
  }
  template <class Law, class T>
  void launch_law(const BatchIn<T>& din, const BatchOut<T>& dout, const LawOptions& opt, std::size_t m, Order* order, Stream) {
    if (launched++ == fail_launch) throw std::runtime_error("stand-in: launch failed");
    std::vector<std::uint32_t> rows(m);
    std::iota(rows.begin(), rows.end(), 0u);
    bool sorted = false;
    if constexpr (HasRegimeKey<Law>::value) {
      if (order) {
        std::vector<std::uint32_t> key(m);
        for (std::size_t i = 0; i < m; ++i) key[i] = KeyFunctor<Law, T>{din}(i);
        std::stable_sort(rows.begin(), rows.end(), [&](std::uint32_t a, std::uint32_t b) { return key[a] < key[b]; });
        for (int k = 0; k < 3; ++k) rec(Call::launch);  // keys, sort, ordered kernel
        sorted = true;
      }
    }
    if (!sorted) rec(Call::launch);
    const EvalFunctor<Law, T> f{din, dout, opt};
    for (std::uint32_t i : rows) f(i);
  }

 private:
  void* note(Call c, void* p) {
    if (fail_alloc) std::free(p);
    if (!p || fail_alloc) throw std::bad_alloc();
    rec(c);
    return p;
  }
};
using Pool = cuda::StagePool<RecordingRuntime>;

template <class T>
bool same_bytes(const BatchOut<T>& a, const BatchOut<T>& b, std::size_t n) {
  for (int k = 0; k < kNumRealOutputs; ++k)
    if (std::memcmp(a.real[k], b.real[k], n * sizeof(T)) != 0) return false;
  return std::memcmp(a.modes, b.modes, n * 4) == 0 && std::memcmp(a.steps, b.steps, n * 4) == 0 &&
         std::memcmp(a.status, b.status, n) == 0;
}

// The stand-in's outputs for `n` mixed instances against the serial backend's.
template <class Law, class T>
void expect_serial_bits(std::size_t n, const cuda::StreamOptions& so) {
  const auto ps = instances(n);
  Buffers<T> ref(ps), got(ps);
  const LawOptions opt{};
  serial::evaluate<Law, T>(ref.bin, ref.bout, opt);
  RecordingRuntime rt;
  Pool pool;
  cuda::run_streamed<RecordingRuntime, Law, T>(rt, pool, got.bin, got.bout, opt, so);
  EXPECT_TRUE(same_bytes(ref.bout, got.bout, n)) << Law::name << (sizeof(T) == 8 ? " double" : " float");
}

CallCounts counts_of(const std::vector<Call>& t) {
  CallCounts c;
  for (Call k : t) ++c[k];
  return c;
}

}  // namespace

TEST(StreamPlan, EveryLawBothPrecisionsAsTheSerialBackendBitForBit) {
  cuda::StreamOptions small;  // several chunks over three stages, sorted where the law has a key
  small.chunk_rows = 700;
#define IMPACT_CASE(LAW)                        \
  expect_serial_bits<LAW, double>(3000, small); \
  expect_serial_bits<LAW, float>(3000, small);  \
  expect_serial_bits<LAW, double>(500, {});     \
  expect_serial_bits<LAW, double>(3000, {700, 2, false});
  IMPACT_FOR_EACH_LAW(IMPACT_CASE)
#undef IMPACT_CASE
}

TEST(StreamPlan, ASmallBatchIsOneUploadOneLaunchOneDownloadAndAllocatesOnlyOnItsFirstCall) {
  const auto ps = instances(300);
  Buffers<double> b(ps);
  RecordingRuntime rt;
  Pool pool;
  cuda::run_streamed<RecordingRuntime, NewtonLaw, double>(rt, pool, b.bin, b.bout, LawOptions{}, {});
  // the first call of the shape: one stage (one chunk), its stream and its two staging blocks
  const std::vector<Call> first = {Call::stream_create, Call::host_alloc, Call::device_alloc, Call::upload,
                                   Call::launch,        Call::download,   Call::stream_sync};
  EXPECT_EQ(rt.trace, first);
  std::vector<Call> all = rt.trace;
  for (int call = 0; call < 3; ++call) {  // the same shape again, and a smaller one: no allocation
    rt.trace.clear();
    Buffers<double> c(instances(call == 2 ? 37 : 300));
    cuda::run_streamed<RecordingRuntime, NewtonLaw, double>(rt, pool, c.bin, c.bout, LawOptions{}, {});
    EXPECT_EQ(rt.trace, (std::vector<Call>{Call::upload, Call::launch, Call::download, Call::stream_sync}));
    all.insert(all.end(), rt.trace.begin(), rt.trace.end());
  }
  // over the four calls: one stream and one staging block each way, four of each per-chunk call, and
  // no device-wide wait
  const std::pair<Call, std::uint64_t> want[] = {{Call::stream_create, 1}, {Call::host_alloc, 1}, {Call::device_alloc, 1},
                                                 {Call::upload, 4},        {Call::launch, 4},     {Call::download, 4},
                                                 {Call::stream_sync, 4},   {Call::device_sync, 0}};
  for (const auto& [k, n] : want) EXPECT_EQ(rt.calls[k], n) << cuda::call_name(k);
  EXPECT_EQ(all.size(), 4u * 4 + 3);
}

TEST(StreamPlan, AnIntegratorsSortIsThreeLaunchesAndItsBuffersAreKept) {
  Buffers<double> b(instances(400));  // mixed instances: their regime keys differ
  RecordingRuntime rt;
  Pool pool;
  LawOptions opt{};
  opt.steps = 40;
  cuda::run_streamed<RecordingRuntime, JiaLaw, double>(rt, pool, b.bin, b.bout, opt, {});
  CallCounts c = counts_of(rt.trace);
  EXPECT_EQ(c[Call::device_alloc], 3u);  // the staging block and the sort's two
  EXPECT_EQ(c[Call::launch], 3u);
  rt.trace.clear();
  cuda::run_streamed<RecordingRuntime, JiaLaw, double>(rt, pool, b.bin, b.bout, opt, {});
  c = counts_of(rt.trace);
  EXPECT_EQ(c[Call::device_alloc] + c[Call::host_alloc] + c[Call::stream_create], 0u);
  EXPECT_EQ(c[Call::launch], 3u);
  EXPECT_EQ(c[Call::upload], 1u);
  EXPECT_EQ(c[Call::download], 1u);
}

TEST(StreamPlan, ChunksTakeTheirStagesInTurnAndGrowThemOnlyPastTheHighWaterMark) {
  RecordingRuntime rt;
  Pool pool;
  Buffers<float> big(instances(5000));
  cuda::run_streamed<RecordingRuntime, ChatterjeeRuinaLaw, float>(rt, pool, big.bin, big.bout, LawOptions{}, {1000, 3, true});
  CallCounts c = counts_of(rt.trace);
  EXPECT_EQ(c[Call::stream_create], 3u);
  EXPECT_EQ(c[Call::host_alloc], 3u);
  EXPECT_EQ(c[Call::device_alloc], 3u);
  for (Call k : {Call::upload, Call::launch, Call::download, Call::stream_sync}) EXPECT_EQ(c[k], 5u) << cuda::call_name(k);
  // a stage is waited on before it takes its next chunk: 3 chunks go out before the first wait
  const auto first_sync = std::find(rt.trace.begin(), rt.trace.end(), Call::stream_sync);
  EXPECT_EQ(std::count(rt.trace.begin(), first_sync, Call::upload), 3);
  // smaller chunks: nothing new; larger ones: each stage's blocks grow once
  rt.trace.clear();
  cuda::run_streamed<RecordingRuntime, ChatterjeeRuinaLaw, float>(rt, pool, big.bin, big.bout, LawOptions{}, {600, 3, true});
  c = counts_of(rt.trace);
  EXPECT_EQ(c[Call::host_alloc] + c[Call::device_alloc] + c[Call::stream_create], 0u);
  rt.trace.clear();
  cuda::run_streamed<RecordingRuntime, ChatterjeeRuinaLaw, float>(rt, pool, big.bin, big.bout, LawOptions{}, {2000, 3, true});
  c = counts_of(rt.trace);
  EXPECT_EQ(c[Call::host_alloc], 3u);
  EXPECT_EQ(c[Call::device_alloc], 3u);
  EXPECT_EQ(c[Call::stream_create], 0u);
}

TEST(StreamPlan, ACallThatThrowsLeavesNoChunkInFlightAndTheNextCallIsRight) {
  const auto ps = instances(3000);
  Buffers<double> ref(ps), got(ps);
  serial::evaluate<StrongeLaw, double>(ref.bin, ref.bout, LawOptions{});
  RecordingRuntime rt;
  Pool pool;
  rt.fail_launch = 2;  // the third chunk's launch
  EXPECT_THROW(
      (cuda::run_streamed<RecordingRuntime, StrongeLaw, double>(rt, pool, got.bin, got.bout, LawOptions{}, {500, 3, true})),
      std::runtime_error);
  rt.fail_launch = -1;
  got.out.fill_sentinel(ps.size());
  got.bout = got.out.view();
  cuda::run_streamed<RecordingRuntime, StrongeLaw, double>(rt, pool, got.bin, got.bout, LawOptions{}, {500, 3, true});
  EXPECT_TRUE(same_bytes(ref.bout, got.bout, ps.size()));
}

TEST(StreamPlan, AnAllocationThatThrowsLeavesNoStageClaimingMemoryItHasNot) {
  const auto ps = instances(2000);
  Buffers<double> ref(ps), got(ps);
  serial::evaluate<NewtonLaw, double>(ref.bin, ref.bout, LawOptions{});
  RecordingRuntime rt;
  Pool pool;
  cuda::run_streamed<RecordingRuntime, NewtonLaw, double>(rt, pool, got.bin, got.bout, LawOptions{}, {500, 2, true});
  rt.fail_alloc = true;  // a larger chunk must grow the stages, and cannot
  EXPECT_THROW(
      (cuda::run_streamed<RecordingRuntime, NewtonLaw, double>(rt, pool, got.bin, got.bout, LawOptions{}, {1000, 2, true})),
      std::bad_alloc);
  rt.fail_alloc = false;  // the first size again: the stage allocates anew rather than use the block it freed
  got.out.fill_sentinel(ps.size());
  got.bout = got.out.view();
  cuda::run_streamed<RecordingRuntime, NewtonLaw, double>(rt, pool, got.bin, got.bout, LawOptions{}, {500, 2, true});
  EXPECT_GE(rt.calls[Call::host_alloc], 3u);
  EXPECT_TRUE(same_bytes(ref.bout, got.bout, ps.size()));
}

TEST(StreamPlan, FewerThanTwoStreamsIsRefused) {
  Buffers<double> b(instances(10));
  RecordingRuntime rt;
  Pool pool;
  EXPECT_THROW((cuda::run_streamed<RecordingRuntime, NewtonLaw, double>(rt, pool, b.bin, b.bout, LawOptions{}, {0, 1, true})),
               std::invalid_argument);
  EXPECT_TRUE(rt.trace.empty());
}

#ifdef IMPACT_WITH_CUDA
#include "device.hpp"
#include "kernels/cuda/cuda.hpp"

// On a device: the CUDA runtime under the same schedule makes the calls the stand-in makes, as the
// runtime's own calls count them (and no cudaMalloc of the process); the second call's outputs are
// the first's bits, and the serial backend's statuses with impulses within rounding (the device
// contracts a * b + c into one FMA, so its bits are its own: the CUDA gtests' tolerance).
TEST(StreamPlan, OnTheDeviceASecondCallOfAShapeMakesTheStandInsCalls) {
  IMPACT_REQUIRE_DEVICE("the CUDA eval path's call counts");
  const auto ps = instances(300);
  Buffers<double> ref(ps), first(ps), got(ps);
  serial::evaluate<NewtonLaw, double>(ref.bin, ref.bout, LawOptions{});
  cuda::evaluate<NewtonLaw, double>(first.bin, first.bout, LawOptions{});  // the shape's first call
  const CallCounts before = cuda::call_counts();
  const std::uint64_t allocations = cuda::device_allocations();  // every cudaMalloc of the process
  cuda::evaluate<NewtonLaw, double>(got.bin, got.bout, LawOptions{});
  const CallCounts c = cuda::call_counts().since(before);  // counted by the CUDA runtime's calls themselves
  EXPECT_EQ(cuda::device_allocations(), allocations);
  for (Call k : {Call::device_alloc, Call::host_alloc, Call::stream_create, Call::device_sync})
    EXPECT_EQ(c[k], 0u) << cuda::call_name(k);
  for (Call k : {Call::upload, Call::launch, Call::download, Call::stream_sync}) EXPECT_EQ(c[k], 1u) << cuda::call_name(k);
  EXPECT_TRUE(same_bytes(first.bout, got.bout, ps.size()));
  for (std::size_t i = 0; i < ps.size(); ++i) {
    ASSERT_EQ(got.out.status[i], ref.out.status[i]) << "row " << i;
    const double s = std::hypot(ref.out.real[out_P_x][i], ref.out.real[out_P_y][i], ref.out.real[out_P_z][i]);
    for (int k = out_P_x; k <= out_P_z; ++k)
      EXPECT_LE(std::fabs(got.out.real[k][i] - ref.out.real[k][i]), 1e-12 * s) << "row " << i << " component " << k - out_P_x;
  }
}
#endif
