// The machinery of Stronge's law (laws/stronge.hpp holds its public face: name, parameters, extras,
// cost, eval): the integration in normal-impulse space, its state machine and its events.
//
// Stronge: 3D rigid frictional impact in normal-impulse space (Rodriguez & Bowling; Morgan 2011
// ch. 4) with Coulomb friction, no tangential compliance and Stronge's energetic restitution.
// Integrated with a FIXED step in the normal impulse per instance, as one GPU thread runs it.
//
// Contact frame (n, t1, t2), t1 along v0's tangential part. With a = n^T W n, b = (t_i^T W n),
// D = (t_i^T W t_j) (2x2 SPD), tangential impulse P_t and v_t = v0_t + b p + D P_t:
//   slip:  dP_t/dp = -mu u, u = v_t/|v_t|;   dv_t/dp = F(u) = b - mu D u;   dv_n/dp = a - mu b.u
//   stick: dP_t/dp = tau = -D^-1 b (v_t stays 0), admissible when |tau| <= mu; it persists to
//          the end (W is constant, so tau is constant)
//   work:  dE/dp = v_n. Compression ends at v_n = 0 (E_c, In_c); the impact ends when
//          E = (1 - e^2) E_c (e = 0: at the end of compression). v_n returning below 0 in
//          restitution before that gives `stalled`.
// State y = (p, P_t, v_n, v_t, E): 7 scalars; v is carried alongside P (Runge-Kutta methods keep
// the linear relation v = v0 + W P exactly) so that v_t keeps its relative precision near 0.
// With g(u) = u.F(u) = d|v_t|/dp and k(u) = u_perp.F(u) = |v_t| dtheta/dp.
//
// Stepping. h = p_c / opt.steps, p_c = |v0.n| / a (the frictionless compression impulse);
// opt.integrator selects classical RK4 or explicit Euler. Three kinds of advance:
//  * p-steps (dy/dp, length h) while |v_t| >= rho_sw = R p_c max(1/16, 2/steps), where
//    R = |b| + mu |D|_F bounds |F|. rho_sw does not shrink with h, so the p-steps never meet the
//    singularity of u at a distance that scales with h, and it is >= 2 h R, so no RK stage of a
//    p-step comes near v_t = 0.
//  * tau-steps for |v_t| < rho_sw, where the slip direction turns at the unbounded rate
//    k/|v_t| (the ODE is singular at v_t = 0, yet v_t reaches 0 at a finite impulse, and with
//    the direction still turning: theta - theta* ~ |v_t|^lambda). The law integrates there in
//    tau with dp = |v_t| dtau (a Sundman transform): dv_t/dtau = |v_t| b - mu D v_t,
//    dP_t/dtau = -mu v_t, dv_n/dtau = |v_t| a - mu b.v_t, dp/dtau = |v_t|, dE/dtau = |v_t| v_n:
//    Lipschitz and homogeneous of degree one in v_t, the angle follows the bounded autonomous
//    ODE dtheta/dtau = k(theta), log|v_t| changes at the bounded rate g, and v_t -> 0 is reached
//    exponentially in tau with every integrand decaying like |v_t|. Step
//    dtau = (h / rho_sw) (rho_sw / |v_t|)^(1/6), at most 0.5 / R: it continues the p-step at
//    rho_sw (dp = h) and grows slowly as |v_t| falls. The error of a tau-step scales like |v_t|,
//    the number of steps per e-fold of |v_t| like |v_t|^(1/6), so the descent to v_t = 0 costs
//    about 6 steps (R / |g|) / 16 extra steps and keeps the global error O(h^4) for RK4 (O(h) for
//    Euler): the accuracy does not collapse at the tangential event.
//  * closed-form straight segments on invariant rays. Where F(u) is parallel to u (k = 0) the
//    slip is a straight line in velocity space: v linear and E quadratic in p, advanced exactly,
//    with its events solved in closed form as in Morgan's planar law (impact/laws/morgan.hpp).
//    Used for: stick; every planar instance (its slip is on a ray from the start); the final
//    approach of a 3D trajectory once the tau-integration has aligned it with its ray
//    (|k| <= 8 eps (tr W (1 + mu) + R), the round-off of k; before anything has been integrated
//    the round-off of the projected v0, eps |v0| / |v_t| in direction, is allowed too); and the
//    slip that leaves v_t = 0, which follows the unique outgoing ray to the end.
// Events are located inside the step, not at step ends: v_n = 0 in compression, E = target and
// v_n < 0 (stall) in restitution, each by Illinois regula falsi on the sub-step length
// (impact/illinois.hpp) with every trial point re-integrated from the step start (<= 60
// iterations, to 4 eps of the step).
// Structure (for the GPU: one instance per thread). The solver is a small state machine
// (Stronge::Run): each iteration of its loop is a straight segment (Kind::line,
// Kind::approach) or a step of the slip with the search for its events (Kind::slip). p- and
// tau-steps share one Runge-Kutta body (the mode only selects two factors of the rate), so lanes
// of a warp in different modes issue the same instructions. The event search stays inside its
// step, with its state local to the step: as separate iterations of the loop (one Runge-Kutta body
// for steps and trial points, as jia runs) its state was carried around the loop, and on an H100
// at 128 registers the kernel issued 17% more instructions and ran 1.5x slower (docs/bench.md).
// On the device a lane whose step finds an event waits, with its state as before the step, until
// the warp's vote lets it redo the step and search, so that lanes search together
// (impact/search_vote.hpp; no result depends on when).
//
// v_t = 0. A tau-integration ends when |v_t| <= rho_0 = 64 eps (|v0| + R_1 p_c), R_1 = R at
// min(mu, 64) (mu D only contracts v_t, so a larger mu adds no round-off) (the remaining
// tail, if approaching, closed by a straight segment) or when it reaches its ray; a ray segment
// ends exactly at 0. There the law sticks when |tau| <= mu. Otherwise slip resumes
// (Mode::reverse) in the direction s the dynamics admit: F(s) = lambda s with lambda > 0
// (moving away from 0), i.e. s = (lambda I + mu D)^-1 b with |s| = 1. |(lambda I + mu D)^-1 b|
// falls strictly from |tau|/mu > 1 at lambda = 0 to <= 1 at lambda = |b|, so this outgoing ray
// exists and is unique (a ray with g > 0 is always this one), and bisection on lambda finds it
// (<= 200 halvings). The ray is invariant and attracting for growing |v_t|, so the rest of the
// impact is one straight segment (Morgan's reversal in the planar case). v_t = 0 at the start
// (|v0_t| <= rho_0) is handled the same way, with Mode::slip instead of Mode::reverse. A 3D
// trajectory that passes v_t = 0 at a distance below rho_0 counts as reaching it.
// `inconsistent`: a straight segment in compression along which v_n never grows (a guard: with
// W SPD the kinetic energy, bounded below, falls at the rate |v_n| + mu |v_t|, so compression
// always ends). mu = 0 is one straight segment (the rates do not depend on u).
//
// Bounds: at most 64 opt.steps + 512 steps and segments (`step_limit`; e.g. grazing impacts whose
// slip lasts more than ~64 p_c), 32 events, 60 root-finder iterations per event, 200 bisections
// for the outgoing ray; mu above 2^64 is evaluated as 2^64, the unbounded-friction limit to the
// type's precision (kMuUnbounded). Result: steps = integration steps plus closed-form segments; In_c =
// normal impulse at the end of compression; modes: slip, stick, reverse.
#pragma once
#include <cstdint>

#include "impact/admissible.hpp"
#include "impact/illinois.hpp"
#include "impact/math.hpp"
#include "impact/scale.hpp"
#include "impact/probe.hpp"
#include "impact/problem.hpp"
#include "impact/rk4.hpp"
#include "impact/search_vote.hpp"

namespace impact::detail {
namespace stronge {

// State: normal impulse p, tangential impulse (q1, q2), normal velocity vn, tangential velocity
// (w1, w2) in the contact frame, normal work E.
template <class T>
struct State {
  T p, q1, q2, vn, w1, w2, E;
  // op applied field by field (impact/rk4.hpp)
  template <class Op, class... Ys>
  IMPACT_HDI static State zip(Op op, const Ys&... y) {
    return State{op(y.p...), op(y.q1...), op(y.q2...), op(y.vn...), op(y.w1...), op(y.w2...), op(y.E...)};
  }
};

// |v_t| as the slip's rate and its tests take it: rr = |v_t|^2, and one root of it. On the device
// that is 1 / |v_t| from one rsqrt (math::inv_sqrt: one dependency chain, where a square root and a
// division are two), and |v_t| = rr (1 / |v_t|); on the host |v_t| = sqrt(rr), and 1 / |v_t| one
// division (the host's bits as ever). rho() and inv() only where rr > 0.
template <class T>
struct Speed {
  T rr;
  IMPACT_HDI static Speed of(T w1, T w2) {
    const T rr = w1 * w1 + w2 * w2;
#if defined(__CUDA_ARCH__)
    return Speed{rr, math::inv_sqrt(rr)};
#else
    return Speed{rr, sqrt(rr)};
#endif
  }
#if defined(__CUDA_ARCH__)
  IMPACT_HDI T inv() const { return root; }
  IMPACT_HDI T rho() const { return rr * root; }
#else
  IMPACT_HDI T inv() const { return T(1) / root; }
  IMPACT_HDI T rho() const { return root; }
#endif
  T root;  // the one root computed: 1 / |v_t| on the device, |v_t| on the host
};

// The contact-frame system: a = n^T W n, b = (t_i^T W n), D = (t_i^T W t_j), friction mu.
template <class T>
struct System {
  T a, b1, b2, d11, d12, d22, mu;

  // W in the frame (n, t1, t2).
  IMPACT_HDI static System in_frame(const Sym3<T>& W, const Vec3<T>& n, const Vec3<T>& t1, const Vec3<T>& t2, T mu) {
    const Vec3<T> Wn = W * n;
    return System{dot(n, Wn), dot(t1, Wn), dot(t2, Wn), quad(W, t1), quad(W, t1, t2), quad(W, t2), mu};
  }
  IMPACT_HDI T b_norm() const { return sqrt(b1 * b1 + b2 * b2); }
  IMPACT_HDI T d_norm() const { return sqrt(d11 * d11 + T(2) * d12 * d12 + d22 * d22); }  // Frobenius
  // The slip in the unit direction u: F(u) = b - mu D u = dv_t/dp, and its rates along u,
  // g = u.F(u) = d|v_t|/dp, and across it, k = u_perp.F(u) = |v_t| dtheta/dp.
  IMPACT_HDI void slip_rates(T u1, T u2, T& g, T& k) const {
    const T F1 = b1 - mu * (d11 * u1 + d12 * u2);
    const T F2 = b2 - mu * (d12 * u1 + d22 * u2);
    g = u1 * F1 + u2 * F2;
    k = u1 * F2 - u2 * F1;
  }

  // dy/dp with a constant tangential impulse ratio (r1, r2) = dP_t/dp.
  IMPACT_HDI State<T> line_rate(const State<T>& y, T r1, T r2) const {
    return State<T>{T(1), r1, r2, a + b1 * r1 + b2 * r2, b1 + d11 * r1 + d12 * r2, b2 + d12 * r1 + d22 * r2, y.vn};
  }
  // The slip rate, one body for both variables: dy/dp (tau = false: dP_t/dp = -mu v_t / |v_t|) or
  // dy/dtau = |v_t| dy/dp (tau = true: Lipschitz, homogeneous of degree one in v_t). The mode only
  // selects the factors m = dp/dx and d: (1, |v_t|) or (|v_t|, 1), so that lanes in either mode run
  // the same instructions; a division by 1 and a product with 1 are exact, so both keep the bits
  // of their separate forms (a + b.r with r = -(mu / |v_t|) v_t; |v_t| a + b.f with f = -mu v_t).
  // One division per stage, c = mu / d, shared by both components: a division costs a reciprocal
  // and its Newton iterations (17 issued FP64 instructions on sm_90) where a product costs one.
  // On the device the stage takes 1 / |v_t| from one rsqrt (math::inv_sqrt) instead of a square
  // root and a division: c = -mu / |v_t| becomes -mu (1 / |v_t|) and |v_t| = |v_t|^2 (1 / |v_t|),
  // a rounding or two apart, as the device's fused products already are from the host's.
  // The rate at y from its speed sp = Speed::of(y.w1, y.w2), which the slip tests of an iteration
  // compute at the same state (the step's first stage takes theirs: one rsqrt less per step).
  IMPACT_HDI State<T> rate(const State<T>& y, bool tau) const { return rate(y, tau, Speed<T>::of(y.w1, y.w2)); }
  IMPACT_HDI State<T> rate(const State<T>& y, bool tau, Speed<T> sp) const {
#if defined(__CUDA_ARCH__)
    const T rr = sp.rr, inv = sp.inv();  // inv inf at v_t = 0: c = -inf in p (as -mu / 0), m = 0 in tau
    const T m = tau ? (rr > T(0) ? rr * inv : T(0)) : T(1);
    const T c = tau ? -mu : -mu * inv;
#else
    const T rho = sp.rho();
    const T m = tau ? rho : T(1), d = tau ? T(1) : rho;
    const T c = -mu / d;
#endif
    const T r1 = c * y.w1, r2 = c * y.w2;
    return State<T>{m, r1, r2, m * a + b1 * r1 + b2 * r2, m * b1 + d11 * r1 + d12 * r2, m * b2 + d12 * r1 + d22 * r2, m * y.vn};
  }

  // One explicit step of length x (in p, or in tau) from y; step_from with its first stage's rate
  // k1 = rate(y, tau) given.
  IMPACT_HDI State<T> step(const State<T>& y, T x, bool tau, Integrator integ) const {
    return rk_step(y, x, integ, [&](const State<T>& z, T) { return rate(z, tau); });
  }
  IMPACT_HDI State<T> step_from(const State<T>& y, const State<T>& k1, T x, bool tau, Integrator integ) const {
    return rk_step_from(y, k1, x, integ, [&](const State<T>& z, T) { return rate(z, tau); });
  }

  // Sticking ratio tau = -D^-1 b.
  IMPACT_HDI void stick_ratio(T& t1, T& t2) const {
    const T det = d11 * d22 - d12 * d12;
    t1 = -(d22 * b1 - d12 * b2) / det;
    t2 = -(d11 * b2 - d12 * b1) / det;
  }

  // The outgoing slip direction when sticking is impossible (|tau| > mu): the unit s with
  // b - mu D s = lambda s, lambda > 0, i.e. s = (lambda I + mu D)^-1 b with |s| = 1.
  // |(lambda I + mu D)^-1 b| decreases strictly in lambda, from |tau|/mu > 1 at 0 to <= 1 at |b|
  // (the smallest eigenvalue of lambda I + mu D is >= lambda), so bisection brackets the unique
  // root. Returns false if b = 0 (no such direction).
  IMPACT_HD_RARE bool outgoing(T& s1, T& s2) const {
    const T bn = sqrt(b1 * b1 + b2 * b2);
    if (!(bn > T(0))) return false;
    auto solve = [&](T lam, T& x1, T& x2, T& det) {
      const T m11 = lam + mu * d11, m12 = mu * d12, m22 = lam + mu * d22;
      det = m11 * m22 - m12 * m12;
      x1 = m22 * b1 - m12 * b2;  // adj(M) b = det |M^-1 b|
      x2 = m11 * b2 - m12 * b1;
    };
    T lo = T(0), hi = bn, x1, x2, det;
    for (int i = 0; i < 200; ++i) {
      const T mid = T(0.5) * (lo + hi);
      if (!(mid > lo && mid < hi)) break;
      solve(mid, x1, x2, det);
      if (x1 * x1 + x2 * x2 > det * det) lo = mid;  // |M^-1 b| > 1: lambda too small
      else hi = mid;
    }
    solve(T(0.5) * (lo + hi), x1, x2, det);
    const T xn = sqrt(x1 * x1 + x2 * x2);
    if (!(xn > T(0))) return false;
    s1 = x1 / xn;
    s2 = x2 / xn;
    return true;
  }
};

// What the next iteration of the loop runs: integrate the slip (p- or tau-steps), a straight
// segment with a constant ratio to the end of the impact (stick, or slip on the outgoing ray), or
// the straight slip along the approaching ray to v_t = 0.
enum class Kind : int { slip, line, approach };
// The events located inside a step.
enum class Event : int { none, compression_end, impact_end, stall };
// How a straight segment ends.
enum class SegmentEnd : int { none_ahead, tangential_zero, compression_end, impact_end, stall };
// What the loop does after an iteration: go on with the next one, return the result as it stands
// (a status), or leave the loop (too many events).
enum class Next : int { again, stop, out };

}  // namespace stronge

// The integrator of StrongeLaw: its bounds, the probe blocks, the law on an instance of unit
// magnitudes (eval_unit) and its state machine Run.
struct Stronge {
  // Near-zero region: rho_sw = R p_c max(kSwitch, 2 / steps).
  static constexpr double kSwitch = 1.0 / 16.0;
  // tau-step cap (times 1/R) and growth exponent (dtau ~ |v_t|^-1/6).
  static constexpr double kTauCap = 0.5;
  static constexpr int kMaxRootIter = 60;
  static constexpr double kRayTol = 8.0;
  static constexpr int kMaxEvents = 32;
  // mu beyond which the round-off scale of v_t (rho_0) no longer grows
  static constexpr double kMuRound = 64.0;
  // mu beyond which friction is unbounded: the law evaluates min(mu, 2^64). The outcome converges
  // like 1/mu (the slip that mu ends takes a normal impulse ~ |v_t| / (mu |D|)), so at 2^64 it is
  // the mu -> inf limit to the precision of either type, while every product with mu (R, rho_sw,
  // Kscale, the rates, mu^2 in outgoing()) stays far inside float's range. (Unclamped, mu >= 5e307
  // overflowed R to inf in double: tau_cap = 0, two steps and an "ok" impulse 17% off the limit;
  // tests/physics/test_stronge_huge_mu.cpp.)
  static constexpr double kMuUnbounded = 18446744073709551616.0;

  // Code blocks for path probes (impact/probe.hpp): a step, or one trial point of an event search
  // inside it, is the common RK part plus the rate (the same for p- and tau-steps). Their names and
  // costs for the SIMT model are SimtCosts<StrongeLaw> (perf/simt/simt_costs.hpp).
  enum Seg : int {
    kSegSetup,
    kSegOutgoing,
    kSegCtl,
    kSegLine,
    kSegLineEnd,
    kSegSlipCtl,
    kSegRay,
    kSegTauLen,
    kSegStep,
    kSegRate,
    kSegRoot,
    kSegRootRate,
    kSegRootCtl,
    kSegLocate,
    kSegEvent,
    kSegFinish,
    kSegments
  };

  template <class T>
  struct Run;

  // The law on an instance of magnitudes near 1 (eval scales it): one iteration of the loop per
  // straight segment or step.
  template <class T, class Probe, class Vote>
  IMPACT_HD static Result<T> eval_unit(ContactProblem<T> p, const LawOptions& opt, ParamUse use, Probe& probe, const Vote& vote) {
    using namespace stronge;
    probe.seg(kSegSetup);
    Status st = validate(p, use);
    if (st != Status::ok) return make_result<T>(st);
    p.mu = tmin(p.mu, T(kMuUnbounded));  // validated finite; beyond 2^64: the unbounded limit
    Vec3<T> t1, t2;
    tangent_basis(p.n, p.v0, t1, t2);
    // The Run stays in local memory, unlike jia's (Jia::slaved_dir): System::outgoing and admit()
    // take the addresses of its members, and LLVM keeps a struct whose address escapes in memory as
    // a whole, each write of it a store. Split into registers, at 128 registers in double, the loop
    // reloaded its spilled counters at every branch instead: 12.9k local loads per instance against
    // 5.0k (and 2.3k stores against 5.9k), 0.73x the rate by the SIMT model's local-memory term;
    // float gained 2% (docs/bench.md, "Local memory in the model").
    Run<T> m;
    if (!m.start(p, t1, t2, opt, probe)) return m.r;
    std::uint32_t polls = 0;  // a front end's stop, on the host (stop_requested)
    while (!m.done) {
      if (stop_requested(opt, polls)) return make_result<T>(Status::step_limit);
      probe.iter();
      probe.seg(kSegCtl);
      const Next next = m.control(probe, vote);
      if (next == Next::stop) return m.r;
      if (next == Next::out) break;
    }
    probe.done();
    if (!m.done) {
      m.r.status = Status::step_limit;
      return m.r;
    }
    probe.seg(kSegFinish);
    m.r.P = m.y.p * p.n + m.y.q1 * t1 + m.y.q2 * t2;
    finish(p, m.r);
    admit(p, m.r);
    return m.r;
  }
};
// The state of one evaluation and its transitions.
template <class T>
struct Stronge::Run {
  using State = stronge::State<T>;
  using Kind = stronge::Kind;
  using Event = stronge::Event;
  using SegmentEnd = stronge::SegmentEnd;
  using Next = stronge::Next;

  stronge::System<T> sys;
  Result<T> r;
  Integrator integ;
  T e;
  std::int32_t max_steps;
  T h, R, rho_sw, rho_zero, vabs, Kscale, ray_tol, tau_cap;
  T tau1, tau2;  // the sticking ratio -D^-1 b
  bool can_stick;
  State y;  // the state; during an event search, the start of the step searched
  bool compression = true, done = false;
  T target = T(0);  // the normal work at which restitution ends
  int events = 0, guard = 0;
  int waited = -1;  // >= 0: the iterations this lane has waited with an event search pending
  Kind kind = Kind::slip;
  T lr1 = T(0), lr2 = T(0);              // ratio of a straight segment to the end (Kind::line)
  T ru1 = T(0), ru2 = T(0), rg = T(-1);  // the approaching ray and d|v_t|/dp on it (Kind::approach)

  template <class Probe>
  IMPACT_HDI bool start(const ContactProblem<T>& p, const Vec3<T>& t1, const Vec3<T>& t2, const LawOptions& opt, Probe& probe) {
    r = make_result<T>(Status::ok);
    const T eps = Eps<T>::value;
    const Vec3<T> n = p.n;
    sys = stronge::System<T>::in_frame(p.W, n, t1, t2, p.mu);
    integ = opt.integrator == Integrator::euler ? Integrator::euler : Integrator::rk4;
    e = p.e;
    const std::int32_t N = opt.steps < 1 ? 1 : (opt.steps > (1 << 24) ? (1 << 24) : opt.steps);
    max_steps = 64 * N + 512;
    const T vn0 = dot(p.v0, n);
    const T pc = -vn0 / sys.a;  // frictionless compression impulse
    h = pc / T(N);
    const T normD = sys.d_norm(), bnorm = sys.b_norm();
    R = bnorm + p.mu * normD;  // bounds |F(u)|
    rho_sw = R * pc * tmax(T(kSwitch), T(2) / T(N));
    vabs = norm(p.v0);
    // velocity scale of v_t's round-off: |v_t| grows at most at |b| (mu D only contracts it, D
    // SPD), so mu need not enter at all; it enters up to mu = kMuRound, which keeps the bits of
    // every ordinary row (with R unbounded, mu = 1e14 made rho_zero ~ |v0| and the law stuck at
    // once with v_t != 0: dE = +33% of K0; tests/data/physics_repro/stronge_huge_mu.csv)
    const T V = vabs + (bnorm + tmin(p.mu, T(kMuRound)) * normD) * pc;
    rho_zero = T(64) * eps * V;
    // Ray test |k| <= kRayTol eps K: the round-off of k = u_perp.F(u) is about eps K with
    // K = tr W (1 + mu) + R.
    Kscale = trace(p.W) * (T(1) + p.mu) + R;
    ray_tol = T(kRayTol) * eps;
    tau_cap = T(kTauCap) / R;
    y = State{T(0), T(0), T(0), vn0, dot(p.v0, t1), dot(p.v0, t2), T(0)};
    sys.stick_ratio(tau1, tau2);
    can_stick = sqrt(tau1 * tau1 + tau2 * tau2) <= p.mu;
    const T rho0 = sqrt(y.w1 * y.w1 + y.w2 * y.w2);
    if (p.mu == T(0)) {
      kind = Kind::line;  // no friction: dv/dp = W n whatever the slip direction
      r.modes.push(Mode::slip);
    } else if (rho0 <= rho_zero) {
      if (!tangential_zero(Mode::slip, probe)) {
        r.status = Status::inconsistent;
        return false;
      }
    } else {
      r.modes.push(Mode::slip);
    }
    return true;
  }

  IMPACT_HDI void compression_ends() {
    y.vn = T(0);
    compression = false;
    r.In_c = y.p;
    target = (T(1) - e * e) * y.E;
    if (e == T(0)) done = true;
  }

  // v_t = 0: stick, or slip resumed along the outgoing ray. False: no outgoing ray (b = 0).
  template <class Probe>
  IMPACT_HDI bool tangential_zero(Mode resumed, Probe& probe) {
    y.w1 = T(0);
    y.w2 = T(0);
    kind = Kind::line;
    if (can_stick) {
      lr1 = tau1;
      lr2 = tau2;
      r.modes.push(Mode::stick);
      return true;
    }
    T s1, s2;
    probe.seg(kSegOutgoing);
    if (!sys.outgoing(s1, s2)) return false;
    lr1 = -sys.mu * s1;
    lr2 = -sys.mu * s2;
    r.modes.push(resumed);
    return true;
  }

  // Closed-form straight segment with ratio (c1, c2), at most dt long (the distance to v_t = 0 on
  // an approaching ray, else inf), to its first event.
  template <class Probe>
  IMPACT_HDI SegmentEnd segment(T c1, T c2, T dt, Probe& probe) {
    probe.seg(kSegLine);
    const T inf = T(1) / T(0);
    const State k = sys.line_rate(y, c1, c2);
    const T rn = k.vn;
    T dc = inf, de = inf, dstall = inf;
    if (compression) {
      if (y.vn >= T(0)) dc = T(0);
      else if (rn > T(0)) dc = -y.vn / rn;
    } else {
      const T dE = target - y.E;
      if (dE <= T(0)) {
        de = T(0);
      } else {
        const T disc = y.vn * y.vn + T(2) * rn * dE;
        if (disc >= T(0) && y.vn + sqrt(disc) > T(0)) de = T(2) * dE / (y.vn + sqrt(disc));
        if (rn < T(0)) dstall = -y.vn / rn;
      }
    }
    const T d = tmin(tmin(dt, dc), tmin(de, dstall));
    if (!(d < inf)) return SegmentEnd::none_ahead;
    y.E += y.vn * d + T(0.5) * rn * d * d;
    y.p += d;
    y.q1 += c1 * d;
    y.q2 += c2 * d;
    y.vn += rn * d;
    y.w1 += k.w1 * d;
    y.w2 += k.w2 * d;
    ++r.steps;
    if (d == de) return SegmentEnd::impact_end;
    if (d == dstall) return SegmentEnd::stall;
    if (d == dc) return SegmentEnd::compression_end;
    y.w1 = T(0);
    y.w2 = T(0);
    return SegmentEnd::tangential_zero;
  }

  // An iteration: the vote on a pending event search, the bounds, then a straight segment or the
  // slip (its tests and its step).
  template <class Probe, class Vote>
  IMPACT_HDI Next control(Probe& probe, const Vote& vote) {
    bool search = true;  // whether an event that this iteration's step finds is searched now
    if (vote.holds()) {  // every lane in the loop votes (impact/search_vote.hpp; false on the host)
      const bool pending = waited >= 0;
      const bool due = vote.due(pending, !compression || e == T(0), waited);
      if (pending && !due) {
        ++waited;
        return Next::again;
      }
      search = pending;  // released: its step again, then the search; otherwise a new event waits
      waited = -1;
    }
    if (r.steps >= max_steps || guard > max_steps + 4 * kMaxEvents) {
      r.status = Status::step_limit;
      probe.done();
      return Next::stop;
    }
    ++guard;
    if (kind == Kind::slip) return slip_control(probe, search);
    const bool line = kind == Kind::line;
    const T dist = line ? T(1) / T(0) : tmax(T(0), (y.w1 * ru1 + y.w2 * ru2) / -rg);
    const T c1 = line ? lr1 : -sys.mu * ru1, c2 = line ? lr2 : -sys.mu * ru2;
    const SegmentEnd end = segment(c1, c2, dist, probe);
    probe.seg(kSegLineEnd);
    switch (end) {
      case SegmentEnd::none_ahead:  // compression never ends (a guard: see the header)
        if (!line) return Next::again;
        r.status = Status::inconsistent;
        return Next::stop;
      case SegmentEnd::stall: r.status = Status::stalled; return Next::stop;
      case SegmentEnd::impact_end: done = true; return Next::again;
      case SegmentEnd::compression_end: compression_ends(); return Next::again;
      case SegmentEnd::tangential_zero: return reach_zero(probe);
    }
    return Next::again;
  }

  // v_t = 0 reached in slip (counts as an event).
  template <class Probe>
  IMPACT_HDI Next reach_zero(Probe& probe) {
    if (++events > kMaxEvents) return Next::out;
    if (!tangential_zero(Mode::reverse, probe)) {
      r.status = Status::inconsistent;
      return Next::stop;
    }
    return Next::again;
  }

  // The slip: v_t = 0, a ray, or a step in p (|v_t| >= rho_sw) or in tau (step()).
  template <class Probe>
  IMPACT_HDI Next slip_control(Probe& probe, bool search) {
    probe.seg(kSegSlipCtl);
    const stronge::Speed<T> sp = stronge::Speed<T>::of(y.w1, y.w2);  // the step's first stage's too
    if (!(sp.rr > T(0))) return reach_zero(probe);                   // exactly at v_t = 0
    const T rho = sp.rho(), inv = sp.inv();                          // one inverse for both components (as in rate)
    const T u1 = y.w1 * inv, u2 = y.w2 * inv;
    T g, kk;  // d|v_t|/dp and |v_t| dtheta/dp
    sys.slip_rates(u1, u2, g, kk);
    // Ray test (see ray_tol); the round-off of the initial projection of v0 (eps |v0|, a direction
    // error eps |v0| / |v_t|) is allowed only before anything has been integrated: later the
    // integrated v_t carries its own relative precision.
    const bool initial = r.steps == 0;
    const bool on_ray = tabs(kk) * rho <= ray_tol * (Kscale * rho + (initial ? R * vabs : T(0)));
    if (rho <= rho_zero || on_ray) {
      probe.seg(kSegRay);
      if (g < T(0)) {  // straight to v_t = 0 along the ray u (events on the way in closed form)
        kind = Kind::approach;
        ru1 = u1;
        ru2 = u2;
        rg = g;
        return Next::again;
      }
      if (rho <= rho_zero) return reach_zero(probe);  // at v_t = 0, not approaching along a ray
      // On a ray moving away from v_t = 0. Without sticking that is the unique outgoing ray s
      // (F(s) = lambda s, lambda > 0), which the slip then follows to the end; it is taken from
      // outgoing() rather than from u, since close to v_t = 0 the ray test only resolves u to the
      // round-off of v_t. (With sticking possible no ray moves away from 0, except on the cone's
      // boundary: integrate on.)
      T s1, s2;
      if (!can_stick && sys.outgoing(s1, s2)) {
        kind = Kind::line;
        lr1 = -sys.mu * s1;
        lr2 = -sys.mu * s2;
        return Next::again;
      }
    }
    const bool tau_mode = rho < rho_sw;
    T dx = h;
    if (tau_mode) {
      probe.seg(kSegTauLen);
#if defined(__CUDA_ARCH__)
      const T grow = math::step_sixth_root(rho_sw * inv);  // (rho_sw / rho)^(1/6), in float
#else
      const T grow = math::step_sixth_root(rho_sw / rho);  // sqrt(cbrt(rho_sw / rho))
#endif
      dx = tmin((h / rho_sw) * grow, tau_cap);
    }
    return step(tau_mode, dx, sys.rate(y, tau_mode, sp), search, probe);
  }

  // The value whose sign tells an event inside a step (in compression its end, v_n >= 0; in
  // restitution the end of the impact, E >= target, or a stall, v_n < 0), and whether it has
  // happened there.
  IMPACT_HDI T value(const State& z, Event which) const {
    return which == Event::compression_end ? z.vn : (which == Event::impact_end ? z.E - target : -z.vn);
  }
  IMPACT_HDI static bool happened(Event which, T v) { return which == Event::stall ? v > T(0) : v >= T(0); }

  // The step from y (in tau, else in p, of length dx; k1 its first stage's rate) and its earliest
  // event: y goes to the step's end or to the event. Without `search`, a step that finds an event
  // leaves y, the step count and the guard as they were and makes its search pending
  // (impact/search_vote.hpp): the iteration runs again, bit for bit, when the vote releases it.
  template <class Probe>
  IMPACT_HDI Next step(bool tau_mode, T dx, const State& k1, bool search, Probe& probe) {
    probe.seg(kSegStep);
    probe.seg(kSegRate);
    const State y1 = sys.step_from(y, k1, dx, tau_mode, integ);
    // the tests of the searches below, once more: as three booleans shared with them, ptxas spilled
    // 990 / 1380 B in double against 682 / 1092 (docs/bench.md, "Deferred event searches")
    if (!search && (compression ? y1.vn >= T(0) : (y1.E - target >= T(0) || y1.vn < T(0)))) {
      waited = 0;
      --guard;
      return Next::again;
    }
    ++r.steps;
    Event ev = Event::none;
    T xe = dx;
    State ye = y1;
    if (compression) {
      if (y1.vn >= T(0)) locate(Event::compression_end, tau_mode, dx, y1, ev, xe, ye, probe);
    } else {
      if (y1.E - target >= T(0)) locate(Event::impact_end, tau_mode, dx, y1, ev, xe, ye, probe);
      if (y1.vn < T(0)) locate(Event::stall, tau_mode, dx, y1, ev, xe, ye, probe);
    }
    y = ye;
    if (ev == Event::none) return Next::again;
    return on_event(ev, probe);
  }

  // The event `which`, which has happened at the step's end y1: its earliest point in the step, by
  // Illinois regula falsi with each trial point re-integrated from the step's start y; it becomes
  // (ev, xe, ye) when it is the first event found or earlier than that.
  template <class Probe>
  IMPACT_HDI void locate(Event which, bool tau_mode, T dx, const State& y1, Event& ev, T& xe, State& ye, Probe& probe) const {
    probe.seg(kSegLocate);
    IllinoisBracket<T> br;
    br.start(T(0), dx, value(y, which), value(y1, which));
    const T tol = T(4) * Eps<T>::value * dx;
    State yhi = y1;
    while (br.open(tol, kMaxRootIter)) {
      const T x = br.trial();
      probe.seg(kSegRoot);
      probe.seg(kSegRootRate);
      probe.seg(kSegRootCtl);
      const State yx = sys.step(y, x, tau_mode, integ);
      const T fx = value(yx, which);
      const bool past = happened(which, fx);
      br.update(x, fx, past);
      if (past) {
        yhi = yx;
        if (fx == T(0)) break;
      }
    }
    if (br.hi < xe || ev == Event::none) {
      xe = br.hi;
      ye = yhi;
      ev = which;
    }
  }

  // The event ev reached (y is there).
  template <class Probe>
  IMPACT_HDI Next on_event(Event ev, Probe& probe) {
    probe.seg(kSegEvent);
    if (ev == Event::stall) {
      r.status = Status::stalled;
      return Next::stop;
    }
    if (ev == Event::compression_end) compression_ends();
    else done = true;
    return ++events > kMaxEvents ? Next::out : Next::again;
  }
};

}  // namespace impact::detail
