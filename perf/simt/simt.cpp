#include "perf/simt/simt.hpp"

#include <algorithm>
#include <stdexcept>
#include <type_traits>

#include "perf/simt/simt_costs.hpp"
#include "impact/laws/all.hpp"
#include "impact/probe.hpp"
#include "impact/search_vote.hpp"
#include "kernels/cuda/cuda.hpp"
#include "kernels/launch_traits.hpp"

namespace impact::perf {

namespace {

constexpr int kWarp = 32;

// The probe that records the blocks of one instance into a PathTrace.
struct Recorder {
  PathTrace* t;
  bool post = false;
  void close() {
    t->unit_end.push_back(static_cast<std::uint32_t>(t->seg.size()));
    t->sub.push_back(0);
  }
  void iter() { close(); }
  void sub() { t->sub.back() = 1; }  // iter() has closed the unit before: flag the one it opened
  void seg(int id) { t->seg.push_back(static_cast<std::uint8_t>(id)); }
  void done() {
    close();
    post = true;
  }
  // the kernel's part after the law (the reduction of an ok row) joins the finish; a law that
  // returned without done() gets a finish of its own
  void finish_instance(bool ok, int reduce_block) {
    if (!post) close();
    if (ok) seg(reduce_block);
    close();
    t->unit_begin.push_back(static_cast<std::uint32_t>(t->unit_end.size()));
    t->ok.push_back(ok ? 1 : 0);
  }
};

template <class Law, class = void>
struct HasProbe : std::false_type {};
template <class Law>
struct HasProbe<Law, std::void_t<decltype(SimtCosts<Law>::kSegments)>> : std::true_type {};
template <class Law, class = void>
struct HasSearchBlock : std::false_type {};
template <class Law>
struct HasSearchBlock<Law, std::void_t<decltype(SimtCosts<Law>::search)>> : std::true_type {};

template <class Law, class T>
void trace_law(PathTrace& out, const SampleSpec& spec, std::uint64_t seed, const LawOptions& opt, const SimtGeometry& geom) {
  const int sample_block = SimtCosts<Law>::kSegments, reduce_block = SimtCosts<Law>::kSegments + 1;
  for (int w = 0; w < geom.warps; ++w)
    for (int r = 0; r < geom.rounds; ++r)
      for (int l = 0; l < kWarp; ++l) {
        Recorder rec{&out};
        rec.seg(sample_block);
        const ContactProblem<T> p = make_instance<T>(spec, seed, simt_instance(geom, w, r, l));
        const Result<T> res = Law::template eval<T>(p, opt, rec);
        out.key.push_back(LaunchTraits<Law>::regime_key(p));
        rec.finish_instance(res.status == Status::ok, reduce_block);
      }
}

// Applies f(LawType tag) for the law named `law` if it carries probes; false otherwise.
template <class F>
bool with_probed_law(const std::string& law, F&& f) {
  bool found = false;
  auto visit = [&](auto tag) {
    using Law = typename decltype(tag)::type;
    if constexpr (HasProbe<Law>::value) {
      if (!found && law == Law::name) {
        f(tag);
        found = true;
      }
    }
  };
#define IMPACT_VISIT(LAW) visit(std::common_type<LAW>{});
  IMPACT_FOR_EACH_LAW(IMPACT_VISIT)
#undef IMPACT_VISIT
  return found;
}

// The issue of one aligned unit of a warp: per block the largest count any lane runs. Slots
// count..2 count-1 are the blocks as run at a second code site (sub-steps in the nested replay).
struct Issue {
  std::vector<int> lane_count, warp_count;
  std::vector<double> lane_sum, warp_sum;  // per slot, instructions over the whole run
  std::vector<double> warp_total;          // per warp of the geometry, its issue over the whole run
  int warp = 0;                            // the warp being replayed
  const SimtBlocks* b;
  int n;
  Issue(const SimtBlocks& blocks, int warps)
      : lane_count(2 * blocks.count()),
        warp_count(2 * blocks.count()),
        lane_sum(2 * blocks.count()),
        warp_sum(2 * blocks.count()),
        warp_total(warps, 0.0),
        b(&blocks),
        n(blocks.count()) {}
  double cost(int slot) const { return b->cost[slot % n]; }
  // adds the blocks seg[a .. e) of the trace as one lane's part of the current warp unit
  void lane_blocks(const PathTrace& t, std::uint32_t a, std::uint32_t e, int offset = 0) {
    for (std::uint32_t k = a; k < e; ++k) ++lane_count[t.seg[k] + offset];
  }
  // the same for the blocks of unit u
  void lane(const PathTrace& t, std::uint32_t u, int offset = 0) { lane_blocks(t, t.unit_start(u), t.unit_end[u], offset); }
  // one warp unit of every lane's own unit unit_of(l): the batch's set-ups, or its finishes
  template <class F>
  void each_lane(const PathTrace& t, F unit_of) {
    for (int l = 0; l < kWarp; ++l) {
      lane(t, unit_of(l));
      end_lane();
    }
    end_unit();
  }
  void end_lane() {
    for (int s = 0; s < 2 * n; ++s) {
      if (!lane_count[s]) continue;
      lane_sum[s] += lane_count[s] * cost(s);
      warp_count[s] = std::max(warp_count[s], lane_count[s]);
      lane_count[s] = 0;
    }
  }
  void end_unit() {
    for (int s = 0; s < 2 * n; ++s) {
      const double c = warp_count[s] * cost(s);
      warp_sum[s] += c;
      warp_total[warp] += c;
      warp_count[s] = 0;
    }
  }
};

std::size_t index_of(const SimtGeometry& g, int w, int r, int l) {
  return (static_cast<std::size_t>(w) * g.rounds + r) * kWarp + l;
}

// One warp's batch of kWarp instances, trace indices first .. first + kWarp - 1, run the grid-stride
// way: set-up, iterations aligned by index, finish. nested: an iteration takes the sub-steps after
// it along (at their own code site), as the calibration's kernels ran them.
void run_batch(const PathTrace& t, std::size_t first, Issue& is, bool nested) {
  std::vector<std::uint32_t> group[kWarp];  // per lane: first unit of each aligned iteration, then the finish
  std::size_t most = 0;
  for (int l = 0; l < kWarp; ++l) {
    const std::size_t i = first + l;
    const std::uint32_t u0 = t.unit_begin[i], fin = t.unit_begin[i + 1] - 1;
    for (std::uint32_t u = u0 + 1; u < fin; ++u)
      if (!nested || !t.sub[u] || group[l].empty()) group[l].push_back(u);
    group[l].push_back(fin);
    most = std::max(most, group[l].size() - 1);
  }
  is.each_lane(t, [&](int l) { return t.unit_begin[first + l]; });  // set-ups
  for (std::size_t k = 0; k < most; ++k) {                          // iterations
    for (int l = 0; l < kWarp; ++l) {
      if (k + 1 >= group[l].size()) continue;
      for (std::uint32_t u = group[l][k]; u < group[l][k + 1]; ++u) is.lane(t, u, u == group[l][k] ? 0 : is.n);
      is.end_lane();
    }
    is.end_unit();
  }
  is.each_lane(t, [&](int l) { return group[l].back(); });  // finishes
}

// A batch run with deferred event searches (Schedule::deferred, impact/search_vote.hpp): a lane
// whose step finds an event (its iteration holds b.search_block) runs that step (the blocks before
// the search), then waits, pending, issuing only the loop's top, until deferred_search_due() says
// so with the counts at the top of the iteration; it then runs the whole iteration (the step again
// and its search) beside the lanes released with it and the lanes that step on. The iteration that
// ends a lane's path is the one whose event ends the impact (`last`).
void run_batch_deferred(const PathTrace& t, std::size_t first, Issue& is) {
  const int search = is.b->search_block;
  std::uint32_t pos[kWarp], fin[kWarp];
  bool pending[kWarp] = {};
  int waited[kWarp] = {};
  for (int l = 0; l < kWarp; ++l) {
    pos[l] = t.unit_begin[first + l] + 1;
    fin[l] = t.unit_begin[first + l + 1] - 1;
  }
  is.each_lane(t, [&](int l) { return pos[l] - 1; });  // set-ups
  for (;;) {
    int active = 0, pend = 0;
    for (int l = 0; l < kWarp; ++l)
      if (pos[l] < fin[l]) {
        ++active;
        pend += pending[l];
      }
    if (!active) break;
    for (int l = 0; l < kWarp; ++l) {
      if (pos[l] >= fin[l]) continue;
      const std::uint32_t u = pos[l], a = t.unit_start(u), e = t.unit_end[u];
      if (pending[l]) {
        if (!deferred_search_due(pend, active, u + 1 == fin[l], waited[l])) {
          ++waited[l];
          is.lane_blocks(t, a, a + 1);  // the loop's top and the vote
          is.end_lane();
          continue;
        }
        pending[l] = false;
      } else if (search >= 0) {
        std::uint32_t k = a;
        while (k < e && t.seg[k] != search) ++k;
        if (k < e) {  // the step finds an event: it waits
          is.lane_blocks(t, a, k);
          is.end_lane();
          pending[l] = true;
          waited[l] = 0;
          continue;
        }
      }
      is.lane(t, u);
      is.end_lane();
      ++pos[l];
    }
    is.end_unit();
  }
  is.each_lane(t, [&](int l) { return fin[l]; });  // finishes
}

// Grid-stride rounds: warp w takes its round r's batch.
void run_grid_stride(const PathTrace& t, const SimtGeometry& g, Issue& is, bool nested) {
  for (int w = 0; w < g.warps; ++w)
    for (int r = 0; r < g.rounds; ++r) {
      is.warp = w;
      run_batch(t, index_of(g, w, r, 0), is, nested);
    }
}

// Persistent lanes: the batches (kWarp consecutive instances of the sorted order each), from the last
// one down as the kernel's counter deals them (the dearest keys first), go one by one to the warp
// that is free first, the one that has issued least so far (the lowest index on a tie): what a
// warp-wide atomic work counter does when the warps run side by side. Dealt from the first one up,
// the cheap batches came first and the dear ones last, and the model's block wait hardly moved; from
// the last one down it is 1.02 for jia (sorted, grid-stride: 1.07).
void run_persistent(const PathTrace& t, const SimtGeometry& g, Issue& is, bool defer) {
  const std::size_t batches = static_cast<std::size_t>(g.warps) * g.rounds;
  for (std::size_t b = 0; b < batches; ++b) {
    is.warp = static_cast<int>(std::min_element(is.warp_total.begin(), is.warp_total.begin() + g.warps) - is.warp_total.begin());
    if (defer && is.b->search_block >= 0) run_batch_deferred(t, (batches - 1 - b) * kWarp, is);
    else run_batch(t, (batches - 1 - b) * kWarp, is, false);
  }
}

void run_refill(const PathTrace& t, const SimtGeometry& g, Issue& is) {
  for (int w = 0; w < g.warps; ++w) {
    is.warp = w;
    // the warp's instances in kernel order; a free lane takes the next one
    std::size_t next = index_of(g, w, 0, 0);
    const std::size_t stop = index_of(g, w, g.rounds, 0);
    std::size_t cur[kWarp];
    std::uint32_t k[kWarp];  // next iteration unit of the lane's instance (1-based)
    bool busy[kWarp];
    int active = 0;
    for (int l = 0; l < kWarp; ++l) {
      busy[l] = next < stop;
      if (busy[l]) {
        cur[l] = next++;
        k[l] = 0;
        ++active;
      }
    }
    while (active) {
      // one warp step: each busy lane runs its set-up if starting, one iteration, and its finish
      // if that was the last (instances without iterations: set-up and finish at once)
      for (int l = 0; l < kWarp; ++l) {
        if (!busy[l]) continue;
        const std::uint32_t f = t.unit_begin[cur[l]], iters = t.unit_begin[cur[l] + 1] - f - 2;
        if (k[l] == 0) {
          is.lane(t, f);
          k[l] = 1;
        }
        if (k[l] <= iters) is.lane(t, f + k[l]);
        ++k[l];
        if (k[l] > iters) {
          is.lane(t, f + iters + 1);
          if (next < stop) {
            cur[l] = next++;
            k[l] = 0;
          } else {
            busy[l] = false;
            --active;
          }
        }
        is.end_lane();
      }
      is.end_unit();
    }
  }
}

std::string code_of(const SimtBlocks& b, int id) { return id < static_cast<int>(b.code.size()) ? b.code[id] : std::string(); }

// The trace with its instances in the order perm.
PathTrace permuted(const PathTrace& t, const std::vector<std::size_t>& perm) {
  PathTrace o;
  o.seg.reserve(t.seg.size());
  o.unit_end.reserve(t.unit_end.size());
  for (std::size_t i : perm) {
    for (std::uint32_t u = t.unit_begin[i]; u < t.unit_begin[i + 1]; ++u) {
      const std::uint32_t a = t.unit_start(u);
      o.seg.insert(o.seg.end(), t.seg.begin() + a, t.seg.begin() + t.unit_end[u]);
      o.unit_end.push_back(static_cast<std::uint32_t>(o.seg.size()));
      o.sub.push_back(t.sub[u]);
    }
    o.unit_begin.push_back(static_cast<std::uint32_t>(o.unit_end.size()));
    o.ok.push_back(t.ok[i]);
    o.key.push_back(t.key[i]);
  }
  return o;
}

}  // namespace

std::uint64_t simt_instance(const SimtGeometry& geom, int warp, int round, int lane) {
  const std::uint64_t stride =
      geom.stride ? geom.stride : static_cast<std::uint64_t>(cuda::kCudaReduceBlocks) * cuda::kCudaReduceBlock;
  return geom.begin + static_cast<std::uint64_t>(warp) * kWarp + static_cast<std::uint64_t>(lane) +
         static_cast<std::uint64_t>(round) * stride;
}

// GpuTiming's law latency is jia's fit, the one a law without its own would take: one number.
static_assert(GpuTiming{}.law_latency == SimtCosts<JiaLaw>::latency, "GpuTiming::law_latency is jia's SimtCosts latency");

bool simt_supported(const std::string& law) {
  return with_probed_law(law, [](auto) {});
}

namespace {
SimtBlocks law_blocks(const std::string& law) {
  SimtBlocks b;
  if (!with_probed_law(law, [&](auto tag) {
        using Law = typename decltype(tag)::type;
        using C = SimtCosts<Law>;
        b.law_blocks = C::kSegments;
        b.law_latency = C::latency;
        if constexpr (HasSearchBlock<Law>::value) b.search_block = C::search;
        for (int s = 0; s < C::kSegments; ++s) {
          b.name.push_back(C::name[s]);
          b.code.push_back(C::code[s]);
          b.cost.push_back(C::cost[s]);
        }
        b.name.push_back("kernel: sample instance");
        b.code.push_back("make_instance_double");
        b.cost.push_back(kSimtSampleCost);
        b.name.push_back("kernel: reduce row");
        b.code.push_back("sampled_reduce_kernel");
        b.cost.push_back(kSimtReduceCost);
      }))
    throw std::invalid_argument("law '" + law + "' has no path probes (the SIMT model covers jia and stronge)");
  return b;
}
}  // namespace

SimtBlocks simt_blocks(const std::string& law) { return law_blocks(law); }

PathTrace trace_paths(const std::string& law, engine::Precision precision, const SampleSpec& spec, std::uint64_t seed,
                      const LawOptions& opt, const SimtGeometry& geom) {
  PathTrace t;
  const std::size_t n = static_cast<std::size_t>(geom.warps) * geom.rounds * kWarp;
  t.unit_begin.reserve(n + 1);
  t.ok.reserve(n);
  if (!with_probed_law(law, [&](auto tag) {
        using Law = typename decltype(tag)::type;
        if (precision == engine::Precision::f32) trace_law<Law, float>(t, spec, seed, opt, geom);
        else trace_law<Law, double>(t, spec, seed, opt, geom);
      }))
    throw std::invalid_argument("law '" + law + "' has no path probes (the SIMT model covers jia and stronge)");
  return t;
}

SimtResult simt_model(const PathTrace& t0, const SimtBlocks& b, const SimtGeometry& g, Schedule schedule) {
  const std::size_t n = static_cast<std::size_t>(g.warps) * g.rounds * kWarp;
  if (t0.instances() != n || t0.key.size() != n) throw std::invalid_argument("simt_model: the trace does not match the geometry");
  PathTrace sorted;
  const bool by_key = schedule == Schedule::sorted || schedule == Schedule::persistent || schedule == Schedule::deferred;
  if (by_key) {
    std::vector<std::size_t> perm(n);
    for (std::size_t i = 0; i < n; ++i) perm[i] = i;
    std::stable_sort(perm.begin(), perm.end(), [&](std::size_t x, std::size_t y) { return t0.key[x] < t0.key[y]; });
    if (schedule == Schedule::sorted) {
      // grid-stride deals sorted batch r W + w to warp w in round r (W warps): trace position
      // (w, r) (index_of) gets that batch. Dealing consecutive batches to one warp instead gives the
      // same active threads and issue but another block wait (jia 1.133 against 1.071): the model
      // deals as the kernel does.
      std::vector<std::size_t> dealt(n);
      for (int w = 0; w < g.warps; ++w)
        for (int r = 0; r < g.rounds; ++r)
          for (int l = 0; l < kWarp; ++l)
            dealt[index_of(g, w, r, l)] = perm[(static_cast<std::size_t>(r) * g.warps + w) * kWarp + l];
      perm.swap(dealt);
    }
    sorted = permuted(t0, perm);
  }
  const PathTrace& t = by_key ? sorted : t0;
  Issue is(b, g.warps);
  if (schedule == Schedule::refill) run_refill(t, g, is);
  else if (schedule == Schedule::persistent || schedule == Schedule::deferred)
    run_persistent(t, g, is, schedule == Schedule::deferred);
  else run_grid_stride(t, g, is, schedule == Schedule::nested_search);
  SimtResult r;
  r.instances = n;
  double lane = 0, warp = 0, kernel = 0;
  for (int s = 0; s < 2 * b.count(); ++s) {
    lane += is.lane_sum[s];
    warp += is.warp_sum[s];
    if (s % b.count() == b.sample() || s % b.count() == b.reduce()) kernel += is.warp_sum[s];
    if (is.warp_sum[s] > 0)
      r.blocks.push_back({b.name[s % b.count()] + (s < b.count() ? "" : " (in event search)"), code_of(b, s % b.count()),
                          static_cast<double>(b.cost[s % b.count()]), is.lane_sum[s] / n, is.warp_sum[s] / n});
  }
  std::sort(r.blocks.begin(), r.blocks.end(),
            [](const SimtBlockUse& x, const SimtBlockUse& y) { return x.warp_issue > y.warp_issue; });
  r.active_threads = warp > 0 ? lane / warp : 0;
  r.warp_issue = warp / n;
  r.kernel_issue = kernel / n;
  double block = 0;  // blocks of kSimtBlockWarps consecutive warps (the last one may be partial)
  for (int w0 = 0; w0 < g.warps; w0 += kSimtBlockWarps) {
    const int w1 = std::min(g.warps, w0 + kSimtBlockWarps);
    block += (w1 - w0) * *std::max_element(is.warp_total.begin() + w0, is.warp_total.begin() + w1);
  }
  r.block_issue = block / n;
  r.lane_work = lane / n;
  r.law_latency = b.law_latency;
  r.mean_iterations = static_cast<double>(t.unit_end.size() - 2 * n) / n;
  return r;
}

double theoretical_occupancy(int registers, int block_threads, const GpuTiming& g) {
  if (registers < 1 || block_threads < 1)
    throw std::invalid_argument("theoretical_occupancy: registers and block size must be >= 1");
  const int regs = (registers + 7) / 8 * 8;  // allocation unit: 8 registers per thread (256 per warp)
  const int warps_per_block = (block_threads + kWarp - 1) / kWarp;
  const int by_regs = g.registers_per_sm / (regs * kWarp * warps_per_block);
  const int by_slots = g.max_warps_per_sm / warps_per_block;
  const int blocks = std::min(by_regs, by_slots);
  return blocks < 1 ? 0.0 : occupancy_of_blocks(blocks, block_threads, g);
}

double warps_per_scheduler(double occupancy, const GpuTiming& g) { return occupancy * g.max_warps_per_sm / g.schedulers_per_sm; }

double predicted_seconds(double law_issue, double kernel_issue, double local_loads, double local_stores, double block_factor,
                         double instances, double occupancy, const GpuTiming& g) {
  const double warps = warps_per_scheduler(occupancy, g);
  if (!(warps > 0)) throw std::invalid_argument("predicted_seconds: occupancy must be > 0");
  if (!(local_loads >= 0 && local_stores >= 0)) throw std::invalid_argument("predicted_seconds: local traffic must be >= 0");
  const double issue = block_factor * (law_issue + kernel_issue + local_loads + local_stores);
  const double waits = block_factor *
                       (law_issue * g.law_latency + kernel_issue * g.kernel_latency + local_loads * g.local_load_latency +
                        local_stores * g.local_store_latency) /
                       warps;
  const double cycles = std::max(issue, waits) * instances;  // per scheduler, over all of them
  return cycles / (static_cast<double>(g.sms) * g.schedulers_per_sm * g.clock_hz);
}

double predicted_seconds(double law_issue, double kernel_issue, double block_factor, double instances, double occupancy,
                         const GpuTiming& g) {
  return predicted_seconds(law_issue, kernel_issue, 0, 0, block_factor, instances, occupancy, g);
}

double predicted_seconds(const SimtResult& r, const LocalTraffic& local, double instances, double occupancy, const GpuTiming& g) {
  const double factor = r.warp_issue > 0 ? r.block_issue / r.warp_issue : 1.0;
  GpuTiming own = g;
  if (r.law_latency > 0) own.law_latency = r.law_latency;
  const double lanes = r.active_threads > 0 ? r.active_threads : static_cast<double>(kWarp);
  return predicted_seconds(r.warp_issue - r.kernel_issue, r.kernel_issue, local.loads / lanes, local.stores / lanes, factor,
                           instances, occupancy, own);
}

double predicted_seconds(const SimtResult& r, double instances, double occupancy, const GpuTiming& g) {
  return predicted_seconds(r, LocalTraffic{}, instances, occupancy, g);
}

double occupancy_of_blocks(int blocks, int block_threads, const GpuTiming& g) {
  if (blocks < 1 || block_threads < 1) throw std::invalid_argument("occupancy_of_blocks: blocks and block size must be >= 1");
  const int warps = blocks * ((block_threads + kWarp - 1) / kWarp);
  return std::min(1.0, static_cast<double>(warps) / g.max_warps_per_sm);
}

}  // namespace impact::perf
