// The machinery of Jia's law (laws/jia.hpp holds its public face: name, parameters, extras, cost,
// eval): the integration in impulse space, its state machine and its events.
//
// Jia (2013): 3D impact with tangential compliance, integrated in impulse space (law `jia`).
//
// Model (eqs. 63-69). Springs n (normal, stiffness k = k0, then k0/e^2 after compression) and u, w
// (tangential, k_perp), eta = sqrt(k / k_perp) (eta0 in compression, eta0/e in restitution).
// The state of eqs. (70) is (I_u, I_w, G_u, G_w, E_n) over the normal impulse I_n, with
// E_u = G_u^2/(4 eta0^2), E_w = G_w^2/(4 eta0^2) (66) and
//   I'_t = -G/(2 eta eta0 sqrt(E_n)) (64, with the sign variables folded into G, see NOTES),
//   E_n' = -v_n (65),   G' = (e_phase) r_dot / sqrt(E_n) (67),
//   r_dot = v_perp in stick (68, 69), and in slip the solution of (35) and (47).
// Regularisation. The right-hand side carries 1/sqrt(E_n), singular at both ends of the impact.
// We integrate in the scaled time tau with dI_n = sqrt(E_n) dtau (tau is proportional to time in
// each phase: dt = dtau / sqrt(2k)). With s = sqrt(E_n) the system becomes
//   dI_n/dtau = s,   ds/dtau = -v_n / 2,   dI_t/dtau = -G / (2 eta eta0),
//   stick: dG/dtau = e_ph v_perp;
//   slip:  |G| = L := 2 mu eta eta0 s (eq. 46 carried exactly), dI_t/dtau = -mu s d (d = G/|G|, so
//          |dI_t/dI_n| = mu exactly), dG/dtau = e_ph (v_perp - (v_perp.d) d) + (dL/dtau) d, i.e.
//          the spring direction turns with the perpendicular tangential velocity (35) while its
//          length follows the cone (47);
// with e_ph = 1 in compression and e in restitution. Everything is bounded and smooth inside a
// mode: the sqrt(I_n) start-up of Appendix B (73) is s ~ tau, exactly linear. The end of
// compression is v_n = 0 (then s <- e s, eta <- eta0/e, so mu^2 eta^2 E_n and |G| are continuous)
// and restitution ends at s = 0 (E_n = 0).
// Modes. Initial stick iff |v0_perp| < mu eta0^2 |v0_n| (Proposition 1). Stick -> slip when
// |G| reaches L (eq. 52); slip -> stick when the sliding velocity along d,
// v_perp.d + mu eta eta0 v_n / e_ph, reaches zero (it stops pointing along the spring deflection).
// Steps. Fixed step in tau per instance, h = 2 tau_c / steps with tau_c = pi / (2 sqrt(nWn/2)) the
// frictionless compression time in tau (scale free: tau does not change when v0 is scaled, which
// makes Theorem 3 exact), so `steps` is about the number of steps of the whole impact. Integrators:
// RK4 (default) and explicit Euler. Every event (mode switch, end of compression, end of impact) is
// located inside its step by a bounded Illinois iteration on sub-steps from the step start. Close
// to the end in slip, and throughout a 3D slip with small mu, the spring direction relaxes stiffly
// (rate ~ |v_perp| / |G|, |G| -> 0); where h |v_perp| / |G| > 1 a step treats the direction's
// offset from v_perp exponentially, with the slaved lag (slaved_step), stable for any h.
// Both ends of a 3D slip that touch s = 0 (an initial slip, the final restitution slip) have
// kappa = p / (tau - tau_0): there the slip runs in sigma = +-ln(s) (rhs_sig/sig_step; head and
// tail, docs/jia-3d-convergence.md), where it is smooth, unless p h is large (then slaved_step).
// Planar instances (Theorem 2) keep the w-subspace exactly zero and are never stiff.
// Known limit (rows end with status step_limit, never a wrong number): restitution that creeps
// with v_n ~ 0 in stick for very small e (the tangential dynamics run ~1/e slower in tau).
// Stiff tangential springs (eta0 << 1): the step also resolves the stick oscillation, omega_t h <=
// kStickStep, with up to N' = kMaxRefine N steps; stiffer instances end at once with step_limit.
// Bounds: at most (8 + min(64, 4/e)) N' + 64 steps total and kMaxSwitch mode switches, else
// step_limit; kRootIter iterations per located event. Outputs: In_c (normal impulse at end of compression), modes, steps.
#pragma once
#include <cstdint>

#include "impact/admissible.hpp"
#include "impact/illinois.hpp"
#include "impact/math.hpp"
#include "impact/probe.hpp"
#include "impact/problem.hpp"
#include "impact/rk4.hpp"
#include "impact/scale.hpp"

namespace impact::detail {

template <class T>
struct JiaY {
  T In, Iu, Iw, s, Gu, Gw;
  // op applied field by field (impact/rk4.hpp)
  template <class Op, class... Ys>
  IMPACT_HDI static JiaY zip(Op op, const Ys&... y) {
    return JiaY{op(y.In...), op(y.Iu...), op(y.Iw...), op(y.s...), op(y.Gu...), op(y.Gw...)};
  }
};

// Optional record of the events of one integration (tests and diagnostics; host or device).
template <class T>
struct JiaTrace {
  static constexpr int kMax = 16;
  int count = 0;
  int event[kMax];         // 0 end of compression, 1 end of restitution, 2 stick->slip, 3 slip->stick
  T In[kMax];              // normal impulse at the event
  T v_u[kMax], v_w[kMax];  // tangential contact velocity (u, w) at the event
  T rdot_u0;               // initial rate of the u-spring length, u_dot(0) (eq. 59)
};

// The integrator of JiaLaw: static functions of the contact-frame system and the state machine Run.
struct Jia {
  static constexpr int kMaxSwitch = 24;
  static constexpr double kStickStep = 0.5;  // omega_t h at most (stiff tangential springs)
  static constexpr int kMaxRefine = 16;      // steps at most kMaxRefine x N for them
  static constexpr int kRootIter = 60;

  // Code blocks for path probes (impact/probe.hpp): every iteration of the main loop runs one advance
  // (a step, one Illinois iteration of an event search, or the landing on the event), reported as
  // the common RK part plus the branch its mode takes (and the sigma scale), or as a whole slaved
  // step. Their names and costs for the SIMT model are SimtCosts<JiaLaw> (perf/simt/simt_costs.hpp).
  enum Seg : int {
    kSegSetup,
    kSegHead,
    kSegCtl,
    kSegStiffTest,
    kSegSigCtl,
    kSegSigClose,
    kSegRootStep,
    kSegStep,
    kSegStepStick,
    kSegStepSlip,
    kSegStepSig,
    kSegStepSlaved,
    kSegEvent,
    kSegRootCtl,
    kSegProject,
    kSegSwitch,
    kSegFinish,
    kSegments
  };

  template <class Probe>
  IMPACT_HDI static void probe_advance(Probe& probe, bool stick, bool slip, bool stiff, bool sig) {
    if (stiff && !sig) {
      probe.seg(kSegStepSlaved);
      return;
    }
    probe.seg(kSegStep);
    if (stick && !sig) probe.seg(kSegStepStick);
    else if (slip || sig) probe.seg(kSegStepSlip);
    if (sig) probe.seg(kSegStepSig);
  }

  // The phase of the impact, and the events that end a phase or a contact mode (in JiaTrace: their
  // integer values).
  enum class Phase : int { compression, restitution };
  enum class Event : int { none = -1, compression_end = 0, restitution_end = 1, stick_to_slip = 2, slip_to_stick = 3 };
  // The stage of an iteration of the main loop: a step, one trial point of the search for an event
  // inside it (re-integrated from the step's start), or the landing on the earliest event found.
  enum class Stage : int { step, search, land };
  // What the loop does after an iteration's control: advance, leave the loop (the impact is over),
  // or return the result as it stands (a status).
  enum class Next : int { advance, again, settle, out, stop };

  // Contact-frame data of one instance.
  template <class T>
  struct Sys {
    T wnn, wnu, wnw, wuu, wuw, www;  // W in (n, u, w)
    T v0n, v0u, v0w;
    T mu, e, eta0;
  };

  template <class T>
  IMPACT_HDI static void velocity(const Sys<T>& S, const JiaY<T>& y, T& vn, T& vu, T& vw) {
    vn = S.v0n + S.wnn * y.In + S.wnu * y.Iu + S.wnw * y.Iw;
    vu = S.v0u + S.wnu * y.In + S.wuu * y.Iu + S.wuw * y.Iw;
    vw = S.v0w + S.wnw * y.In + S.wuw * y.Iu + S.www * y.Iw;
  }

  // Unit spring direction in slip; at |G| = 0 the limit direction is that of v_perp.
  // 1 / |G| (or 1 / |v_t|) once for both components: a division after a square root on the host,
  // one rsqrt on the device (math::inv_sqrt; a rounding apart, as the device's fused products).
  template <class T>
  IMPACT_HDI static void slip_dir(const JiaY<T>& y, T vu, T vw, T& du, T& dw) {
    const T gg = y.Gu * y.Gu + y.Gw * y.Gw;
    if (gg > T(0)) {  // sqrt(gg) > 0
      const T inv = math::inv_sqrt(gg);
      du = y.Gu * inv;
      dw = y.Gw * inv;
      return;
    }
    const T vv = vu * vu + vw * vw;
    if (vv > T(0)) {
      const T inv = math::inv_sqrt(vv);
      du = vu * inv;
      dw = vw * inv;
    } else {
      du = T(1);
      dw = T(0);
    }
  }

  template <class T>
  IMPACT_HDI static JiaY<T> rhs(const Sys<T>& S, const JiaY<T>& y, bool stick, Phase phase) {
    T vn, vu, vw;
    velocity(S, y, vn, vu, vw);
    const T eph = phase == Phase::compression ? T(1) : S.e;
    const T eta = phase == Phase::compression ? S.eta0 : S.eta0 / S.e;
    JiaY<T> k;
    k.In = y.s;
    k.s = T(-0.5) * vn;
    if (S.mu == T(0)) {
      k.Iu = k.Iw = k.Gu = k.Gw = T(0);
    } else if (stick) {
      k.Gu = eph * vu;
      k.Gw = eph * vw;
      const T c = T(-1) / (T(2) * eta * S.eta0);
      k.Iu = c * y.Gu;
      k.Iw = c * y.Gw;
    } else {
      T du, dw;
      slip_dir(y, vu, vw, du, dw);
      const T vd = vu * du + vw * dw;
      const T dL = -S.mu * eta * S.eta0 * vn;
      k.Gu = eph * (vu - vd * du) + dL * du;
      k.Gw = eph * (vw - vd * dw) + dL * dw;
      k.Iu = -S.mu * y.s * du;
      k.Iw = -S.mu * y.s * dw;
    }
    return k;
  }

  // Stiff slip (3D): the spring direction phi = psi + D relaxes toward the direction psi of v_perp,
  //   dD/dtau = -kappa sin D - psi_dot,   kappa = e_ph |v_perp| / |G|,
  // where kappa grows without bound as |G| -> 0 (end of a slip; all of a slip when mu is small).
  // Where kappa h > 1 the step treats D exponentially: D(t) = D_qs(t) + 2 atan(tan((D0 - D_qs0)/2)
  // e^{-kappa0 t}) with the slaved lag D_qs = -psi_dot / kappa (exact for frozen coefficients and
  // sin D ~ D near the slaved state), while psi follows v_perp at every stage and the slow
  // variables (I_n, s, I_t) take the RK4 (or Euler) combination. Stable for any h.
  // S and y by value: out of line on the device, a reference would hand it the address of the Run's
  // members, and a struct whose address escapes stays in local memory as a whole (LLVM splits no
  // escaped alloca into registers), so that every write of the state, the step's end or the search
  // was a store: 122 STL in jia double's law loop, 37 without (sm_90; docs/perf-log.md).
  template <class T>
  IMPACT_HD_RARE static void slaved_dir(Sys<T> S, JiaY<T> y, Phase phase, T t, T D0free, T kappa0, T& du, T& dw) {
    T vn, vu, vw;
    velocity(S, y, vn, vu, vw);
    const T vp = sqrt(vu * vu + vw * vw);
    if (!(vp > T(0))) return;  // keep the previous direction
    const T eph = phase == Phase::compression ? T(1) : S.e;
    const T eta = phase == Phase::compression ? S.eta0 : S.eta0 / S.e;
    const T L = T(2) * S.mu * eta * S.eta0 * tmax(y.s, T(0));
    const T ivp = T(1) / vp;  // one division for the direction and psi_dot
    const T cu = vu * ivp, cw = vw * ivp;
    // homogeneous relaxation of the free part
    const T decay = t > T(0) ? math::exp(-kappa0 * t) : T(1);  // kappa0 may be +inf at |G| = 0
    const T Dh = T(2) * math::atan(math::tan(T(0.5) * D0free) * decay);
    // lag: psi_dot from dv_perp/dtau with the direction rotated by Dh
    T sh, ch;
    math::sin_cos(Dh, sh, ch);
    T ru = cu * ch - cw * sh;
    T rw = cw * ch + cu * sh;
    const T au = S.wnu * y.s - S.mu * y.s * (S.wuu * ru + S.wuw * rw);
    const T aw = S.wnw * y.s - S.mu * y.s * (S.wuw * ru + S.www * rw);
    const T psidot = (cu * aw - cw * au) * ivp;
    // slaved lag of dD/dtau = -kappa D - psi_dot with kappa = e_ph v_perp / L and L'/L included:
    // D = -psi_dot / (kappa + L'/L), exact where L is linear in tau (start of a slip from s = 0:
    // D = -psi_dot tau / (p + 1)); the denominator is kept >= kappa / 2 (shrinking L, p < 2).
    const T dL = -S.mu * eta * S.eta0 * vn;
    const T den = tmax(eph * vp + dL, T(0.5) * eph * vp);
    T lag = L > T(0) ? -psidot * L / den : T(0);
    if (!std::isfinite(lag)) lag = T(0);
    const T D = Dh + lag;
    T sd, cd;
    math::sin_cos(D, sd, cd);
    du = cu * cd - cw * sd;
    dw = cw * cd + cu * sd;
  }

  template <class T>
  IMPACT_HDI static JiaY<T> slaved_step(const Sys<T>& S, const JiaY<T>& y, T h, Phase phase, Integrator integ) {
    const T pi = T(3.14159265358979323846);
    const T eph = phase == Phase::compression ? T(1) : S.e;
    const T eta = phase == Phase::compression ? S.eta0 : S.eta0 / S.e;
    T vn, vu, vw;
    velocity(S, y, vn, vu, vw);
    const T vp = sqrt(vu * vu + vw * vw);
    const T L0 = T(2) * S.mu * eta * S.eta0 * tmax(y.s, T(0));
    T du, dw;
    slip_dir(y, vu, vw, du, dw);
    // current offset from v_perp, and its free (non-slaved) part
    T D0 = T(0), D0free = T(0), kappa0 = T(0);
    if (vp > T(0)) {
      D0 = math::atan2(dw, du) - math::atan2(vw, vu);
      if (D0 > pi) D0 -= T(2) * pi;
      if (D0 < -pi) D0 += T(2) * pi;
      kappa0 = L0 > T(0) ? eph * vp / L0 : T(1) / T(0);
      T su = du, sw = dw;
      slaved_dir(S, y, phase, T(0), T(0), T(0), su, sw);  // lag only
      T lag0 = math::atan2(sw, su) - math::atan2(vw, vu);
      if (lag0 > pi) lag0 -= T(2) * pi;
      if (lag0 < -pi) lag0 += T(2) * pi;
      D0free = D0 - lag0;
    }
    // the stage direction follows v_perp (slaved_dir); G is set from the end state below
    JiaY<T> out = rk_step_one_site(y, h, integ, [&](const JiaY<T>& z, T t) {
      T pu = du, pw = dw;
      slaved_dir(S, z, phase, t, D0free, kappa0, pu, pw);
      return rhs_frozen(S, z, pu, pw);
    });
    T eu = du, ew = dw;
    slaved_dir(S, out, phase, h, D0free, kappa0, eu, ew);
    const T L = T(2) * S.mu * eta * S.eta0 * tmax(out.s, T(0));
    out.Gu = L * eu;
    out.Gw = L * ew;
    return out;
  }

  template <class T>
  IMPACT_HDI static JiaY<T> rhs_frozen(const Sys<T>& S, const JiaY<T>& y, T du, T dw) {
    T vn, vu, vw;
    velocity(S, y, vn, vu, vw);
    JiaY<T> k;
    k.In = y.s;
    k.s = T(-0.5) * vn;
    k.Iu = -S.mu * y.s * du;
    k.Iw = -S.mu * y.s * dw;
    k.Gu = k.Gw = T(0);
    return k;
  }

  // Final approach of a 3D restitution slip in sigma = ln(s0 / s): dtau/dsigma = 2 s / v_n, where
  // the direction relaxation e^(-p sigma) (p = e_ph |v_perp| / (mu eta eta0 v_n)) is smooth; in tau it
  // is (tau_end - tau)^p, which costs fixed-step RK4 its order near the end.
  // The sigma right-hand side is the slip one times dtau/dsigma = 2 s / |v_n| (restitution tail:
  // v_n > 0; compression head: v_n < 0).
  template <class T>
  IMPACT_HDI static JiaY<T> sig_scale(const Sys<T>& S, const JiaY<T>& y, const JiaY<T>& k) {
    T vn, vu, vw;
    velocity(S, y, vn, vu, vw);
    const T avn = vn > T(0) ? vn : -vn;
    const T f = avn > T(0) ? T(2) * y.s / avn : T(0);
    return JiaY<T>{f * k.In, f * k.Iu, f * k.Iw, f * k.s, f * k.Gu, f * k.Gw};
  }

  // One step of length h from y: the stiff-slip step, or one Runge-Kutta body for stick, slip and
  // sigma steps alike (the mode only selects the right-hand side's branch and the sigma scale),
  // so that lanes of a warp in different modes share the step.
  template <class T>
  IMPACT_HDI static JiaY<T> advance(const Sys<T>& S, const JiaY<T>& y, T h, bool stick, Phase phase, Integrator integ, bool stiff,
                                    bool sig = false) {
    if (stiff && !sig) return slaved_step(S, y, h, phase, integ);
    return rk_step_one_site(y, h, integ, [&](const JiaY<T>& z, T) {
      const JiaY<T> k = rhs(S, z, stick && !sig, phase);
      return sig ? sig_scale(S, z, k) : k;
    });
  }

  // Slip constraint |G| = L = 2 mu eta eta0 s, restored after every slip step.
  template <class T>
  IMPACT_HDI static void project_slip(const Sys<T>& S, JiaY<T>& y, Phase phase) {
    const T eta = phase == Phase::compression ? S.eta0 : S.eta0 / S.e;
    const T L = T(2) * S.mu * eta * S.eta0 * tmax(y.s, T(0));
    T vn, vu, vw;
    velocity(S, y, vn, vu, vw);
    T du, dw;
    slip_dir(y, vu, vw, du, dw);
    y.Gu = L * du;
    y.Gw = L * dw;
  }

  // Event functions of the current mode and phase. Each event fires when its function becomes
  // positive. 0: end of compression (v_n), 1: end of restitution (-s), 2: stick -> slip
  // (|G|^2 - L^2), 3: slip -> stick (-(sliding velocity along d)).
  template <class T>
  IMPACT_HDI static T event_fn(const Sys<T>& S, const JiaY<T>& y, Event ev, Phase phase) {
    T vn, vu, vw;
    velocity(S, y, vn, vu, vw);
    const T eta = phase == Phase::compression ? S.eta0 : S.eta0 / S.e;
    const T eph = phase == Phase::compression ? T(1) : S.e;
    switch (ev) {
      case Event::compression_end: return vn;
      case Event::restitution_end: return -y.s;
      case Event::stick_to_slip: {
        const T L = T(2) * S.mu * eta * S.eta0 * y.s;
        return y.Gu * y.Gu + y.Gw * y.Gw - L * L;
      }
      default: {
        T du, dw;
        slip_dir(y, vu, vw, du, dw);
        return -(vu * du + vw * dw + S.mu * eta * S.eta0 * vn / eph);
      }
    }
  }

  template <class T>
  IMPACT_HD static Result<T> solve(ContactProblem<T> p, const LawOptions& opt, ParamUse use, JiaTrace<T>* trace) {
    NoProbe probe;
    return solve<T>(p, opt, use, trace, probe);
  }
  template <class T>
  struct Run;

  // The integration of one instance: a small state machine (Run) whose loop runs one advance of the
  // Runge-Kutta body per iteration: a step, one Illinois trial point of the search for an event in
  // the step (re-integrated from the step's start), or the landing on the earliest event found.
  // Lanes of a warp in different stages run the same advance, so that event searches do not
  // serialize against the other lanes' steps.
  template <class T, class Probe>
  IMPACT_HD static Result<T> solve(ContactProblem<T> p, const LawOptions& opt, ParamUse use, JiaTrace<T>* trace, Probe& probe) {
    probe.seg(kSegSetup);
    Status st = validate(p, use);
    if (st != Status::ok) return make_result<T>(st);
    Run<T> m;
    m.trace = trace;
    if (!m.start(p, opt, probe)) return m.r;
    std::uint32_t polls = 0;  // a front end's stop, on the host (stop_requested)
    while (!m.done) {
      if (stop_requested(opt, polls)) return make_result<T>(Status::step_limit);
      probe.iter();
      if (m.stage != Stage::step) probe.sub();
      probe.seg(kSegCtl);
      T hh;  // this iteration's advance from y
      if (m.stage == Stage::step) {
        const Next next = m.control(probe);
        if (next == Next::stop) return m.r;
        if (next == Next::out) break;
        hh = m.hs;
      } else if (m.stage == Stage::search) {
        probe.seg(kSegRootStep);
        m.rc = m.br.trial();
        hh = m.rc * m.hs;
      } else {
        hh = m.theta_best * m.hs;
      }
      const bool slip = !m.stick && m.S.mu > T(0);
      probe_advance(probe, m.stick, slip, m.stiff, m.sig);
      const JiaY<T> ya = advance(m.S, m.y, hh, m.stick, m.phase, opt.integrator, m.stiff, m.sig);
      const Next next = m.advanced(ya, probe);
      if (next == Next::stop) return m.r;
      if (next == Next::settle) m.settle(probe);  // the one call site: one copy in the kernel's code
    }
    probe.done();
    probe.seg(kSegFinish);
    // copies, so that no address of the Run escapes to the out-of-line conclusion (see slaved_dir)
    Result<T> r = m.r;
    r.steps = m.nsteps;
    const JiaY<T> y = m.y;
    // double: out of line, so that p is read back from memory once instead of held in registers
    // across the loop (the double kernels spilled at 255 registers); float has room, and ptxas caps
    // a float kernel that calls out of line at 128 registers, with spills (tests/cli/kernel_resources.sh)
    if constexpr (sizeof(T) == sizeof(double)) conclude_rare(p, y, r);
    else conclude(p, y, r);
    return r;
  }

  // The impulse in world axes, vf, dE and the admissibility check; the frame is rebuilt from p (the
  // same values, bit for bit) rather than kept across the loop.
  template <class T>
  IMPACT_HD_RARE static void conclude_rare(const ContactProblem<T>& p, const JiaY<T>& y, Result<T>& r) {
    conclude(p, y, r);
  }
  template <class T>
  IMPACT_HDI static void conclude(const ContactProblem<T>& p, const JiaY<T>& y, Result<T>& r) {
    const PlaneFrame<T> fe = plane_frame(p);
    const Vec3<T> ue = -fe.t;
    r.P = y.In * p.n + y.Iu * ue + y.Iw * cross(p.n, ue);
    finish(p, r);
    admit(p, r);
  }
};

// The state of one integration and its transitions (Jia::solve runs the loop).
template <class T>
struct Jia::Run {
  Sys<T> S;
  Result<T> r;
  JiaTrace<T>* trace = nullptr;
  bool planar = false;
  T h = T(0), tau_c = T(0);
  T rho0 = T(0);  // the sigma head and tail begin rho0 away from their end (in tau)
  int max_steps = 0, nsteps = 0, nswitch = 0;
  bool stick = false, done = false;
  Phase phase = Phase::compression;
  JiaY<T> y;         // the state; during a search and the landing, the start of the step
  bool sig = false;  // the step runs in sigma (the head of a 3D initial slip, the tail of a restitution slip)
  T sigma = T(0);
  Event just_switched = Event::none;  // the event that produced the current mode (waits one step)
  // the step in progress
  Stage stage = Stage::step;
  T hs = T(0);          // the step's length (in tau, or in sigma)
  bool stiff = false;   // the step is a stiff-slip (slaved) step
  JiaY<T> y1;           // the step's end
  int nev = 1, q = 0;   // the events that can fire in the step, and the one examined
  T theta_best = T(2);  // the earliest event found, as a fraction of the step
  Event ev_best = Event::none;
  IllinoisBracket<T> br;  // the search, in fractions of the step
  T rc = T(0);            // its trial point

  // The frame, the step, the bounds, the initial mode and the sigma head; false: the row ends.
  template <class Probe>
  IMPACT_HDI bool start(const ContactProblem<T>& p, const LawOptions& opt, Probe& probe) {
    r = make_result<T>(Status::ok);
    const Vec3<T> n = p.n;
    const Vec3<T> Wn = p.W * n;
    // contact frame: u opposes v0_perp (eq. 12); at normal incidence u = -(W n)_perp direction (eq. 12
    // takes the opposite sign; the equations are frame-invariant, so only the convention differs)
    const PlaneFrame<T> fr = plane_frame(p);
    const Vec3<T> uh = -fr.t;
    const Vec3<T> wh = cross(n, uh);
    S.wnn = dot(n, Wn);
    S.wnu = dot(uh, Wn);
    S.wnw = dot(wh, Wn);
    const Vec3<T> Wu = p.W * uh;
    S.wuu = dot(uh, Wu);
    S.wuw = dot(wh, Wu);
    S.www = quad(p.W, wh);
    S.v0n = dot(p.v0, n);
    S.v0u = dot(p.v0, uh);
    S.v0w = dot(p.v0, wh);
    S.mu = p.mu;
    S.e = p.e;
    S.eta0 = p.eta0;
    // Planar instance (Theorem 2): nothing couples w to n or u and v0 has no w component. The
    // w-subspace is then invariant; we keep it exactly zero, because near the end of a reverse
    // slip the spring direction is an unstable equilibrium of (35) and would amplify round-off.
    planar = fr.planar;
    if (planar) {
      S.v0w = T(0);
      S.wnw = T(0);
      S.wuw = T(0);
    }
    if (!step_length(opt)) return false;
    // initial mode (Proposition 1)
    const T v0perp = sqrt(S.v0u * S.v0u + S.v0w * S.v0w);
    stick = S.mu > T(0) && v0perp < S.mu * S.eta0 * S.eta0 * (-S.v0n);
    r.modes.push(stick ? Mode::stick : Mode::slip);
    y = JiaY<T>{T(0), T(0), T(0), T(0), T(0), T(0)};
    if (trace) {
      trace->count = 0;
      // u_dot(0) = dG_u/dtau at tau = 0 (e_ph = 1)
      trace->rdot_u0 = rhs(S, y, stick, phase).Gu;
    }
    nev = S.mu > T(0) ? 2 : 1;
    rho0 = T(0.2) * tau_c;
    // sigma head (3D initial slip): from s = 0 the spring direction relaxes at kappa = p / tau,
    // singular at tau = 0, which costs fixed-step RK4 its order exactly as at the end of a
    // restitution slip. The start up to tau_a = rho0 e^-20 is analytic (direction of v0_perp, s
    // linear in tau); from there the slip runs in sigma = ln(s / s_a) until 2 s = rho0 |v_n| (same
    // step rule as the tail).
    if (!stick && !planar && S.mu > T(0) && v0perp > T(0)) {
      const T p0 = v0perp / (S.mu * S.eta0 * S.eta0 * (-S.v0n));
      if (p0 * h < T(0.5) * rho0) {
        probe.seg(kSegHead);
        const T ta = rho0 * math::exp(T(-20));
        y.s = T(-0.5) * S.v0n * ta;
        y.In = T(0.5) * y.s * ta;
        const T du = S.v0u / v0perp, dw = S.v0w / v0perp;
        y.Iu = -S.mu * du * y.In;
        y.Iw = -S.mu * dw * y.In;
        const T L = T(2) * S.mu * S.eta0 * S.eta0 * y.s;
        y.Gu = L * du;
        y.Gw = L * dw;
        sig = true;
      }
    }
    return true;
  }

  // The step h = 2 tau_c / N and the bound on steps; false (step_limit): too stiff to resolve.
  IMPACT_HDI bool step_length(const LawOptions& opt) {
    const int N = opt.steps < 1 ? 1 : opt.steps;
    const T omega = sqrt(T(0.5) * S.wnn);
    tau_c = T(1.5707963267948966) / omega;
    h = T(2) * tau_c / T(N);
    // Stiff tangential springs (eta0 << 1 would give ok rows with dE/K0 up to 2e10). In stick
    // the deflection oscillates, d2G/dtau2 = -e_ph W_tt G / (2 eta eta0), fastest in compression at
    // omega_t = sqrt(lambda_max(W_tt) / 2) / eta0, i.e. omega_t / omega = sqrt(lambda_t / W_nn) / eta0
    // times faster than the normal motion. The fixed step resolves it (omega_t h <= kStickStep) at
    // the cost of more steps, up to kMaxRefine x N; an instance stiffer than that ends at once with
    // step_limit. At N = 250 this binds only where eta0 < 0.025 sqrt(lambda_t / W_nn): never on
    // ordinary rows (same steps, same bits).
    int steps_budget = N;
    if (S.mu > T(0)) {
      const T tr = T(0.5) * (S.wuu + S.www), df = T(0.5) * (S.wuu - S.www);
      const T lam_t = tr + sqrt(df * df + S.wuw * S.wuw);
      const T omega_t = sqrt(T(0.5) * lam_t) / S.eta0;
      if (omega_t * h > T(kStickStep)) {
        const T need = T(2) * tau_c * omega_t / T(kStickStep);  // steps of the whole impact
        if (!(need <= T(kMaxRefine) * T(N))) {
          r.status = Status::step_limit;
          return false;
        }
        steps_budget = static_cast<int>(std::ceil(need));
        h = T(2) * tau_c / T(steps_budget);
      }
    }
    // hard bound on steps; restitution that creeps in stick runs ~1/e longer in tau
    const int creep = S.e > T(0) ? static_cast<int>(tmin(T(64), T(4) / S.e)) : 0;
    max_steps = (8 + creep) * steps_budget + 64;
    return true;
  }

  // The control of a step: the bounds, then (3D slip) the stiffness test and the sigma head and
  // tail, which set the step's length hs. Next::out: the sigma tail closed the impact.
  template <class Probe>
  IMPACT_HDI Next control(Probe& probe) {
    if (nsteps >= max_steps || nswitch > kMaxSwitch) {
      r.status = Status::step_limit;
      r.steps = nsteps;
      probe.done();
      return Next::stop;
    }
    hs = h;
    stiff = false;
    if (stick || planar || !(S.mu > T(0))) return Next::advance;  // planar rows keep the direction fixed
    probe.seg(kSegStiffTest);
    T vn, vu, vw;
    velocity(S, y, vn, vu, vw);
    const T eph = phase == Phase::compression ? T(1) : S.e;
    const T G = sqrt(y.Gu * y.Gu + y.Gw * y.Gw);
    const T vp = sqrt(vu * vu + vw * vw);  // |v_perp|
    stiff = eph * vp * hs > G;
    const T eta = phase == Phase::compression ? S.eta0 : S.eta0 / S.e;
    const T pe = vn > T(0) ? eph * vp / (S.mu * eta * S.eta0 * vn) : T(0);
    if (!sig && !stiff && phase == Phase::restitution && vn > T(0) && T(2) * y.s < rho0 * vn && pe * h < T(0.5) * rho0) {
      sig = true;
      sigma = T(0);
    }
    if (!sig) return Next::advance;
    probe.seg(kSegSigCtl);
    if (phase == Phase::compression) {
      const T sr = T(0.5) * rho0 * (vn < T(0) ? -vn : T(0));  // end of the head
      if (!(vn < T(0)) || !(y.s < sr)) {
        sig = false;
        return Next::advance;
      }
      stiff = false;
      hs = (h / rho0) * math::step_pow(sr / y.s, T(0.4));  // a step-size rule: in float on the device
      const T pc = vp / (S.mu * eta * S.eta0 * (-vn));     // rate of D in sigma
      const T hmax = T(0.5) / (pc > T(1) ? pc : T(1));
      if (hs > hmax) hs = hmax;
      return Next::advance;
    }
    stiff = false;
    hs = (h / rho0) * math::step_exp(T(0.4) * sigma);
    const T hmax = T(0.5) / (pe > T(1) ? pe : T(1));  // RK4 stability: ds/dsigma = -s
    if (hs > hmax) hs = hmax;
    if (sigma > T(20) || !(vn > T(0))) {  // close the remaining s^2 / v_n impulse (e^-40 of it)
      probe.seg(kSegSigClose);
      T du, dw;
      slip_dir(y, vu, vw, du, dw);
      const T dIn = vn > T(0) ? y.s * y.s / vn : T(0);
      y.In += dIn;
      y.Iu -= S.mu * du * dIn;
      y.Iw -= S.mu * dw * dIn;
      y.s = T(0);
      record_event(Event::restitution_end);
      return Next::out;
    }
    return Next::advance;
  }

  // The k-th event that can fire in a step of the current phase and mode.
  IMPACT_HDI Event event_q(int k) const {
    if (k == 0) return phase == Phase::compression ? Event::compression_end : Event::restitution_end;
    return stick ? Event::stick_to_slip : Event::slip_to_stick;
  }

  // Examines events q, q+1, ... at the end of the step; true when an Illinois search starts. The
  // event function is written once (its value at the step's end y1, then where that is positive at
  // its start y), so that the kernel holds one copy of it here (code size).
  template <class Probe>
  IMPACT_HDI bool scan(Probe& probe) {
    for (; q < nev; ++q) {
      const Event ev = event_q(q);
      T g1 = T(0), g0 = T(0);
      IMPACT_NO_UNROLL
      for (int at = 0; at < 2; ++at) {
        probe.seg(kSegEvent);
        const JiaY<T> z = at == 0 ? y1 : y;
        const T g = event_fn(S, z, ev, phase);
        if (at == 1) g0 = g;
        else if (!((g1 = g) > T(0))) break;
      }
      if (!(g1 > T(0))) continue;
      if (g0 > T(0) && ev != just_switched) {  // already positive at the step start: fire at once
        theta_best = T(0);
        ev_best = ev;
        q = nev;
        return false;
      }
      if (g0 > T(0)) continue;  // the switching function of the mode just entered; wait
      br.start(T(0), T(1), g0, g1);
      return true;
    }
    return false;
  }

  // After the advance to ya: the landing on the event, a step's end, or a trial point of a search.
  // Next::settle: y is where the step or the landing ended, and settle() runs (in the loop).
  template <class Probe>
  IMPACT_HDI Next advanced(const JiaY<T>& ya, Probe& probe) {
    if (stage == Stage::land) {
      y = ya;
      stage = Stage::step;
      return Next::settle;
    }
    bool searching = false;
    if (stage == Stage::step) {
      y1 = ya;
      ++nsteps;
      theta_best = T(2);
      ev_best = Event::none;
      q = 0;
    } else {
      probe.seg(kSegRootCtl);
      probe.seg(kSegEvent);
      const Event ev = event_q(q);
      const T gc = event_fn(S, ya, ev, phase);
      br.update(rc, gc, gc > T(0));
      searching = br.open(T(4) * Eps<T>::value, kRootIter);
      if (!searching) {
        if (br.hi < theta_best) {
          theta_best = br.hi;
          ev_best = ev;
        }
        ++q;
      }
    }
    if (!searching) searching = scan(probe);  // one call: the events from q on
    if (searching) {
      stage = Stage::search;
      return Next::again;
    }
    return step_known(probe);
  }

  // The step's events are known: take the step, land on its earliest event, or fire it at once.
  template <class Probe>
  IMPACT_HDI Next step_known(Probe& probe) {
    stage = Stage::step;
    just_switched = Event::none;
    if (!(std::isfinite(y1.In) && std::isfinite(y1.s) && std::isfinite(y1.Iu) && std::isfinite(y1.Iw) && std::isfinite(y1.Gu) &&
          std::isfinite(y1.Gw))) {
      r.status = Status::non_finite;
      r.steps = nsteps;
      probe.done();
      return Next::stop;
    }
    if (ev_best == Event::none) {
      y = y1;
      if (sig) sigma += hs;
      return Next::settle;  // the slip projection
    }
    if (theta_best > T(0)) {
      stage = Stage::land;
      return Next::again;
    }
    return Next::settle;  // the event at the step's start
  }

  // Event ev at y into the optional trace.
  IMPACT_HDI void record_event(Event ev) {
    if (!trace || trace->count >= JiaTrace<T>::kMax) return;
    T vn, vu, vw;
    velocity(S, y, vn, vu, vw);
    trace->event[trace->count] = static_cast<int>(ev);
    trace->In[trace->count] = y.In;
    trace->v_u[trace->count] = vu;
    trace->v_w[trace->count] = vw;
    ++trace->count;
  }

  // y is a step's end (ev_best none) or the event ev_best reached: the slip projection (in slip, and
  // on entering it; before the switch, which may change the phase it reads: a projection changes
  // only G, which the trace does not read), then the event's trace and the new mode or phase. One
  // copy of each in the kernel (code size).
  template <class Probe>
  IMPACT_HDI void settle(Probe& probe) {
    if ((!stick && S.mu > T(0)) || ev_best == Event::stick_to_slip) {
      probe.seg(kSegProject);
      project_slip(S, y, phase);
    }
    if (ev_best == Event::none) return;
    probe.seg(kSegSwitch);
    record_event(ev_best);
    switch (ev_best) {
      case Event::compression_end:
        r.In_c = y.In;
        if (S.e == T(0)) {
          done = true;
          break;
        }
        phase = Phase::restitution;
        sig = false;
        y.s *= S.e;
        break;
      case Event::restitution_end:
        y.s = T(0);
        done = true;
        break;
      case Event::stick_to_slip:
        stick = false;
        ++nswitch;
        r.modes.push(Mode::slip);
        just_switched = Event::slip_to_stick;
        break;
      default:
        stick = true;
        sig = false;
        ++nswitch;
        r.modes.push(Mode::stick);
        just_switched = Event::stick_to_slip;
        break;
    }
  }
};

}  // namespace impact::detail
