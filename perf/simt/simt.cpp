#include "perf/simt/simt.hpp"

#include <algorithm>
#include <cmath>
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
template <class Law, class = void>
struct HasDescentBlock : std::false_type {};
template <class Law>
struct HasDescentBlock<Law, std::void_t<decltype(SimtCosts<Law>::descent)>> : std::true_type {};

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
// j count..(j+1) count-1 are the blocks as run at code site j: the sub-steps in the nested replay
// (site 1), a lane's instance j with several instances per thread (`streams` sites).
struct Issue {
  std::vector<int> lane_count, warp_count;
  std::vector<double> lane_sum, warp_sum;  // per slot, instructions over the whole run
  std::vector<double> overlap;             // per block, issue with another site running it in the same unit
  std::vector<double> warp_total;          // per warp of the geometry, its issue over the whole run
  int warp = 0;                            // the warp being replayed
  const SimtBlocks* b;
  int n;
  int streams;  // instances per lane: sites 0..streams-1 (1: sites 0 and 1 for the nested replay)
  Issue(const SimtBlocks& blocks, int warps, int per_lane = 1)
      : lane_count(static_cast<std::size_t>(std::max(2, per_lane)) * blocks.count()),
        warp_count(lane_count.size()),
        lane_sum(lane_count.size()),
        warp_sum(lane_count.size()),
        overlap(blocks.count()),
        warp_total(warps, 0.0),
        b(&blocks),
        n(blocks.count()),
        streams(per_lane) {}
  int slots() const { return static_cast<int>(lane_count.size()); }
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
    for (int s = 0; s < slots(); ++s) {
      if (!lane_count[s]) continue;
      lane_sum[s] += lane_count[s] * cost(s);
      warp_count[s] = std::max(warp_count[s], lane_count[s]);
      lane_count[s] = 0;
    }
  }
  void end_unit() {
    // a block that sites run in the same unit: all but the excess of its largest count over the
    // next largest is issued with a partner's independent instructions beside it
    for (int s = 0; streams > 1 && s < n; ++s) {
      int sum = 0, top = 0, next = 0;
      for (int j = 0; j < streams; ++j) {
        const int c = warp_count[s + j * n];
        sum += c;
        if (c > top) {
          next = top;
          top = c;
        } else if (c > next) next = c;
      }
      overlap[s] += (sum - (top - next)) * cost(s);
    }
    for (int s = 0; s < slots(); ++s) {
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
    for (const std::vector<std::uint32_t>& g : group) {
      if (k + 1 >= g.size()) continue;
      for (std::uint32_t u = g[k]; u < g[k + 1]; ++u) is.lane(t, u, u == g[k] ? 0 : is.n);
      is.end_lane();
    }
    is.end_unit();
  }
  is.each_lane(t, [&](int l) { return group[l].back(); });  // finishes
}

// A batch of `per_lane` x kWarp instances from trace index `first`, instance s of it at lane s % kWarp
// and code site s / kWarp (one instance per lane: the batch as run_batch runs it). Each instance
// aligns by iteration index; with `defer`, its event searches are deferred (Schedule::deferred,
// impact/search_vote.hpp): an instance whose step finds an event (its iteration holds
// b.search_block) runs that step (the blocks before the search), then waits, pending, issuing only
// the loop's top, until deferred_search_due() says so with the counts of instances at the top of the
// iteration; it then runs the whole iteration (the step again and its search) beside the instances
// released with it and those that step on. The iteration that ends an instance's path is the one
// whose event ends the impact (`last`).
void run_streams(const PathTrace& t, std::size_t first, Issue& is, int per_lane, bool defer) {
  const int search = defer ? is.b->search_block : -1, m = per_lane * kWarp;
  std::vector<std::uint32_t> pos(m), fin(m);
  std::vector<char> pending(m, 0);
  std::vector<int> waited(m, 0);
  for (int i = 0; i < m; ++i) {
    pos[i] = t.unit_begin[first + i] + 1;
    fin[i] = t.unit_begin[first + i + 1] - 1;
  }
  auto each = [&](auto unit_of) {  // one warp unit of every instance's unit unit_of(i)
    for (int l = 0; l < kWarp; ++l) {
      for (int j = 0; j < per_lane; ++j) is.lane(t, unit_of(l + j * kWarp), j * is.n);
      is.end_lane();
    }
    is.end_unit();
  };
  each([&](int i) { return pos[i] - 1; });  // set-ups
  for (;;) {
    int active = 0, pend = 0;
    for (int i = 0; i < m; ++i)
      if (pos[i] < fin[i]) {
        ++active;
        pend += pending[i];
      }
    if (!active) break;
    for (int l = 0; l < kWarp; ++l) {
      for (int j = 0; j < per_lane; ++j) {
        const int i = l + j * kWarp, site = j * is.n;
        if (pos[i] >= fin[i]) continue;
        const std::uint32_t u = pos[i], a = t.unit_start(u), e = t.unit_end[u];
        if (pending[i]) {
          if (!deferred_search_due(pend, active, u + 1 == fin[i], waited[i])) {
            ++waited[i];
            is.lane_blocks(t, a, a + 1, site);  // the loop's top and the vote
            continue;
          }
          pending[i] = 0;
        } else if (search >= 0) {
          std::uint32_t k = a;
          while (k < e && t.seg[k] != search) ++k;
          if (k < e) {  // the step finds an event: it waits
            is.lane_blocks(t, a, k, site);
            pending[i] = 1;
            waited[i] = 0;
            continue;
          }
        }
        is.lane(t, u, site);
        ++pos[i];
      }
      is.end_lane();
    }
    is.end_unit();
  }
  each([&](int i) { return fin[i]; });  // finishes
}

// Grid-stride rounds: warp w takes its round r's batch.
void run_grid_stride(const PathTrace& t, const SimtGeometry& g, Issue& is, bool nested) {
  for (int w = 0; w < g.warps; ++w)
    for (int r = 0; r < g.rounds; ++r) {
      is.warp = w;
      run_batch(t, index_of(g, w, r, 0), is, nested);
    }
}

// Persistent lanes: the batches (kWarp x per_lane consecutive instances of the sorted order each),
// from the last one down as the kernel's counter deals them (the dearest keys first), go one by one
// to the warp that is free first, the one that has issued least so far (the lowest index on a tie):
// what a warp-wide atomic work counter does when the warps run side by side. Dealt from the first one
// up, the cheap batches came first and the dear ones last, and the model's block wait hardly moved;
// from the last one down it is 1.02 for jia (sorted, grid-stride: 1.07). per_lane instances per
// thread: geom.warps / per_lane warps.
void run_persistent(const PathTrace& t, const SimtGeometry& g, Issue& is, bool defer, int per_lane) {
  const std::size_t size = static_cast<std::size_t>(kWarp) * per_lane, batches = t.instances() / size;
  const int warps = std::max(1, g.warps / per_lane);
  for (std::size_t b = 0; b < batches; ++b) {
    is.warp = static_cast<int>(std::min_element(is.warp_total.begin(), is.warp_total.begin() + warps) - is.warp_total.begin());
    if (per_lane > 1 || (defer && is.b->search_block >= 0))
      run_streams(t, (batches - 1 - b) * size, is, per_lane, defer && is.b->search_block >= 0);
    else run_batch(t, (batches - 1 - b) * size, is, false);
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
        if constexpr (HasDescentBlock<Law>::value) b.descent_block = C::descent;
        for (int s = 0; s < C::kSegments; ++s) {
          b.name.push_back(C::name[s]);
          b.code.push_back(C::code[s]);
          b.cost.push_back(C::cost[s]);
        }
        b.name.emplace_back("kernel: sample instance");
        b.code.emplace_back("make_instance_double");
        b.cost.push_back(kSimtSampleCost);
        b.name.emplace_back("kernel: reduce row");
        b.code.emplace_back("sampled_reduce_kernel");
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

namespace {

// The result of a replay: per instance, the blocks' issue (with several instances per lane, each
// block's sites merged), the coherence and the block wait over the warps that ran.
SimtResult result_of(const Issue& is, const SimtBlocks& b, const PathTrace& t, int warps, int per_lane) {
  const std::size_t n = t.instances();
  SimtResult r;
  r.instances = n;
  r.per_lane = per_lane;
  double lane = 0, warp = 0, kernel = 0;
  std::vector<double> lane_of(is.slots(), 0.0), warp_of(is.slots(), 0.0);  // per block as reported
  for (int s = 0; s < is.slots(); ++s) {
    const int id = s % b.count(), at = per_lane > 1 ? id : s;
    lane += is.lane_sum[s];
    warp += is.warp_sum[s];
    lane_of[at] += is.lane_sum[s];
    warp_of[at] += is.warp_sum[s];
    if (id == b.sample() || id == b.reduce()) kernel += is.warp_sum[s];
  }
  for (int s = 0; s < is.slots(); ++s)
    if (warp_of[s] > 0)
      r.blocks.push_back({b.name[s % b.count()] + (s < b.count() ? "" : " (in event search)"), code_of(b, s % b.count()),
                          static_cast<double>(b.cost[s % b.count()]), lane_of[s] / n, warp_of[s] / n});
  std::sort(r.blocks.begin(), r.blocks.end(),
            [](const SimtBlockUse& x, const SimtBlockUse& y) { return x.warp_issue > y.warp_issue; });
  for (int s = 0; s < b.count(); ++s) {
    r.overlapped_issue += is.overlap[s] / n;
    if (s == b.sample() || s == b.reduce()) r.kernel_overlapped_issue += is.overlap[s] / n;
  }
  r.active_threads = warp > 0 ? lane / warp : 0;
  r.warp_issue = warp / n;
  r.kernel_issue = kernel / n;
  double block = 0;  // blocks of kSimtBlockWarps consecutive warps (the last one may be partial)
  for (int w0 = 0; w0 < warps; w0 += kSimtBlockWarps) {
    const int w1 = std::min(warps, w0 + kSimtBlockWarps);
    block += (w1 - w0) * *std::max_element(is.warp_total.begin() + w0, is.warp_total.begin() + w1);
  }
  r.block_issue = block / n;
  r.lane_work = lane / n;
  r.law_latency = b.law_latency;
  r.mean_iterations = static_cast<double>(t.unit_end.size() - 2 * n) / n;
  return r;
}

}  // namespace

SimtResult simt_model(const PathTrace& t0, const SimtBlocks& b, const SimtGeometry& g, Schedule schedule, int per_lane) {
  const std::size_t n = static_cast<std::size_t>(g.warps) * g.rounds * kWarp;
  if (t0.instances() != n || t0.key.size() != n) throw std::invalid_argument("simt_model: the trace does not match the geometry");
  if (per_lane < 1 || per_lane > kSimtMaxPerLane) throw std::invalid_argument("simt_model: per_lane must be 1 to 4");
  if (per_lane > 1 && schedule != Schedule::persistent && schedule != Schedule::deferred)
    throw std::invalid_argument("simt_model: several instances per thread on the persistent and deferred schedules only");
  if (n % (static_cast<std::size_t>(kWarp) * per_lane) != 0)
    throw std::invalid_argument("simt_model: the instances do not fill batches of per_lane x 32");
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
  Issue is(b, g.warps, per_lane);
  if (schedule == Schedule::refill) run_refill(t, g, is);
  else if (schedule == Schedule::persistent || schedule == Schedule::deferred)
    run_persistent(t, g, is, schedule == Schedule::deferred, per_lane);
  else run_grid_stride(t, g, is, schedule == Schedule::nested_search);
  return result_of(is, b, t, std::max(1, g.warps / per_lane), per_lane);
}

std::vector<std::uint32_t> iterations_running(const PathTrace& t, int block) {
  std::vector<std::uint32_t> out(t.instances(), 0);
  for (std::size_t i = 0; i < t.instances(); ++i)
    for (std::uint32_t u = t.unit_begin[i] + 1; u + 1 < t.unit_begin[i + 1]; ++u) {
      bool runs = block < 0;
      for (std::uint32_t k = t.unit_start(u); !runs && k < t.unit_end[u]; ++k) runs = t.seg[k] == block;
      out[i] += runs;
    }
  return out;
}

namespace {

// A standard normal draw for instance i of stream `seed` (splitmix64, Box-Muller): the same on every
// machine for the same arguments.
double normal_draw(std::uint64_t seed, std::uint64_t i) {
  auto mix = [](std::uint64_t z) {
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  };
  const std::uint64_t a = mix(seed * 0x100000001b3ULL + 2 * i), c = mix(a ^ (2 * i + 1));
  const double u1 = (static_cast<double>(a >> 11) + 0.5) * 0x1.0p-53, u2 = static_cast<double>(c >> 11) * 0x1.0p-53;
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

// counts x_i > 0 predicted to log-correlation rho: x exp(sigma z), sigma = sd(log x) sqrt(1 / rho^2 - 1)
std::vector<double> predicted(const std::vector<std::uint32_t>& x, double rho, std::uint64_t seed) {
  if (!(rho > 0 && rho <= 1)) throw std::invalid_argument("a predictor's correlation must be in (0, 1]");
  double sum = 0, sq = 0, m = 0;
  for (std::uint32_t v : x)
    if (v > 0) {
      const double l = std::log(static_cast<double>(v));
      sum += l;
      sq += l * l;
      ++m;
    }
  const double var = m > 1 ? std::max(0.0, (sq - sum * sum / m) / (m - 1)) : 0.0;
  const double sigma = std::sqrt(var) * std::sqrt(1 / (rho * rho) - 1);
  std::vector<double> out(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) out[i] = x[i] > 0 ? x[i] * std::exp(sigma * normal_draw(seed, i)) : 0.0;
  return out;
}

}  // namespace

std::vector<std::uint32_t> count_keys(const std::vector<std::uint32_t>& counts, double correlation, std::uint64_t seed) {
  const std::vector<double> p = predicted(counts, correlation, seed);
  std::vector<std::uint32_t> key(counts.size());
  for (std::size_t i = 0; i < counts.size(); ++i) key[i] = static_cast<std::uint32_t>(std::min(4.0e9, std::round(64 * p[i])));
  return key;
}

PassCounts pass_counts(const PathTrace& t, int block) {
  PassCounts c{std::vector<std::uint32_t>(t.instances(), 0), std::vector<std::uint32_t>(t.instances(), 0)};
  for (std::size_t i = 0; i < t.instances(); ++i)
    for (std::uint32_t u = t.unit_begin[i] + 1; u + 1 < t.unit_begin[i + 1]; ++u) {
      bool runs = c.second[i] > 0;  // from the first iteration that runs the block on, the second pass
      for (std::uint32_t k = t.unit_start(u); !runs && k < t.unit_end[u]; ++k) runs = t.seg[k] == block;
      ++(runs ? c.second[i] : c.first[i]);
    }
  return c;
}

IterationCoherence iteration_coherence(const std::vector<std::uint32_t>& it, const std::vector<std::uint32_t>& key,
                                       const std::vector<std::uint8_t>& in) {
  if (key.size() != it.size() || (!in.empty() && in.size() != it.size()))
    throw std::invalid_argument("iteration_coherence: the counts, keys and pass do not have one entry per instance");
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < it.size(); ++i)
    if (in.empty() || in[i]) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return key[x] < key[y]; });
  IterationCoherence c;
  // dealt from the last (dearest keys) down, as the kernels' persistent lanes deal their batches:
  // a partial warp, if any, holds the first instances
  for (std::size_t e = order.size(); e > 0;) {
    const std::size_t b = e > static_cast<std::size_t>(kWarp) ? e - kWarp : 0;
    std::uint32_t most = 0;
    for (std::size_t l = b; l < e; ++l) {
      c.work += it[order[l]];
      most = std::max(most, it[order[l]]);
    }
    c.slots += static_cast<double>(kWarp) * most;
    e = b;
  }
  return c;
}

std::vector<std::uint32_t> predicted_count_keys(const PathTrace& t, int descent_block, double outside_correlation,
                                                double descent_correlation, std::uint64_t seed) {
  const std::vector<std::uint32_t> all = iterations_running(t, -1);
  std::vector<std::uint32_t> descent(all.size(), 0), outside(all);
  if (descent_block >= 0) descent = iterations_running(t, descent_block);
  for (std::size_t i = 0; i < all.size(); ++i) outside[i] -= descent[i];
  const std::vector<double> p = predicted(outside, outside_correlation, 2 * seed + 1);
  const std::vector<double> d = predicted(descent, descent_correlation, 2 * seed + 2);
  std::vector<std::uint32_t> key(all.size());
  for (std::size_t i = 0; i < all.size(); ++i)
    key[i] = static_cast<std::uint32_t>(std::min(4.0e9, std::round(64 * (p[i] + d[i]))));
  return key;
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
  if (r.per_lane > 1) {  // the overlapped issue waits its dependent share once per r.per_lane instructions
    const double cut = g.dependent_share * (1 - 1.0 / r.per_lane), law = r.warp_issue - r.kernel_issue;
    if (law > 0) own.law_latency *= 1 - cut * (r.overlapped_issue - r.kernel_overlapped_issue) / law;
    if (r.kernel_issue > 0) own.kernel_latency *= 1 - cut * r.kernel_overlapped_issue / r.kernel_issue;
  }
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
