// The contact-space impact problem shared by every law (see docs/INTERFACE.md):
// W (symmetric positive definite inverse inertia at the contact, dv = W P), unit normal n
// (from body 2 into body 1), initial relative contact velocity v0 (v0.n < 0), and parameters.
#pragma once
#include <cstdint>
#include <limits>

#include "impact/law_meta.hpp"
#include "impact/linalg.hpp"

namespace impact {

enum class Status : std::uint8_t {
  ok = 0,
  no_approach,         // v0 . n >= 0: the bodies are not approaching
  W_not_spd,           // W is not symmetric positive definite (numerically)
  bad_normal,          // n has zero length
  param_out_of_range,  // mu, e, e_t or eta0 outside its documented range
  not_planar,          // a planar-only law got an instance that is not planar
  step_limit,          // an iteration / step bound was hit before the law converged
  inconsistent,        // the law has no physically consistent solution (e.g. negative normal impulse)
  non_finite,          // an input was NaN/inf, or the result would not be finite
  stalled,             // the separation velocity vanished again during restitution
  inadmissible,        // the law's outcome is not physically admissible (impact/admissible.hpp)
  count_
};

IMPACT_HDI const char* status_name(Status s) {
  switch (s) {
    case Status::ok: return "ok";
    case Status::no_approach: return "no_approach";
    case Status::W_not_spd: return "W_not_spd";
    case Status::bad_normal: return "bad_normal";
    case Status::param_out_of_range: return "param_out_of_range";
    case Status::not_planar: return "not_planar";
    case Status::step_limit: return "step_limit";
    case Status::inconsistent: return "inconsistent";
    case Status::non_finite: return "non_finite";
    case Status::stalled: return "stalled";
    case Status::inadmissible: return "inadmissible";
    default: return "unknown";
  }
}

// Contact modes recorded in a result's mode sequence.
enum class Mode : std::uint8_t { none = 0, slip = 1, stick = 2, reverse = 3 };
IMPACT_HDI const char* mode_name(Mode m) {
  switch (m) {
    case Mode::slip: return "slip";
    case Mode::stick: return "stick";
    case Mode::reverse: return "reverse";
    default: return "none";
  }
}

// Up to 8 modes packed 4 bits each, first mode in the lowest nibble.
struct ModeSeq {
  std::uint32_t bits;
  IMPACT_HDI static ModeSeq empty() { return ModeSeq{0u}; }
  IMPACT_HDI int size() const {
    int k = 0;
    while (k < 8 && ((bits >> (4 * k)) & 0xFu) != 0u) ++k;
    return k;
  }
  IMPACT_HDI Mode at(int k) const { return static_cast<Mode>((bits >> (4 * k)) & 0xFu); }
  IMPACT_HDI Mode last() const {
    int k = size();
    return k ? at(k - 1) : Mode::none;
  }
  // Appends m unless it repeats the last mode; a full sequence keeps its first 7 and the latest.
  IMPACT_HDI void push(Mode m) {
    if (m == Mode::none || last() == m) return;
    int k = size();
    if (k == 8) {
      k = 7;
      bits &= 0x0FFFFFFFu;
    }
    bits |= (static_cast<std::uint32_t>(m) & 0xFu) << (4 * k);
  }
};

// The machine epsilon of T (2^-52 in double, 2^-23 in float), a constant in device code too.
template <class T>
struct Eps {
  static constexpr T value = std::numeric_limits<T>::epsilon();
};

template <class T>
struct ContactProblem {
  Sym3<T> W;   // inverse inertia at the contact, world frame
  Vec3<T> n;   // contact normal (normalised by validate())
  Vec3<T> v0;  // initial relative contact velocity
  T mu;        // Coulomb friction coefficient
  T e;         // restitution (kinematic or energetic, per law)
  T e_t;       // tangential restitution (chatterjee-ruina, aghili)
  T eta0;      // Jia's stiffness ratio sqrt(k_n / k_t)
};

// The same instance in precision T, every value rounded to T (a double instance for a float law).
template <class T, class U>
IMPACT_HD ContactProblem<T> problem_cast(const ContactProblem<U>& d) {
  ContactProblem<T> p;
  p.W = Sym3<T>{T(d.W.xx), T(d.W.xy), T(d.W.xz), T(d.W.yy), T(d.W.yz), T(d.W.zz)};
  p.n = Vec3<T>{T(d.n.x), T(d.n.y), T(d.n.z)};
  p.v0 = Vec3<T>{T(d.v0.x), T(d.v0.y), T(d.v0.z)};
  p.mu = T(d.mu);
  p.e = T(d.e);
  p.e_t = T(d.e_t);
  p.eta0 = T(d.eta0);
  return p;
}

// Number of law-specific auxiliary scalars a result can carry (see each law's header).
constexpr int kAux = 5;

template <class T>
struct Result {
  Vec3<T> P;           // impulse on body 1
  Vec3<T> vf;          // final relative contact velocity
  T dE;                // kinetic energy change (<= 0 when dissipative)
  T In_c;              // normal impulse at the end of compression (laws with phases)
  T aux[kAux];         // law-specific extra outputs
  ModeSeq modes;       // contact-mode sequence
  std::int32_t steps;  // iterations / steps / segments used
  Status status;
};

template <class T>
IMPACT_HDI Result<T> make_result(Status s) {
  Result<T> r{};
  r.P = Vec3<T>{T(0), T(0), T(0)};
  r.vf = r.P;
  r.dE = T(0);
  r.In_c = T(0);
  for (int i = 0; i < kAux; ++i) r.aux[i] = T(0);
  r.modes = ModeSeq::empty();
  r.steps = 0;
  r.status = s;
  return r;
}

// Options every law receives; the impulse-space integrators read them, algebraic laws ignore them.
enum class Integrator : std::int32_t { euler = 0, rk4 = 1 };
struct LawOptions {
  std::int32_t steps = 250;  // steps per instance, relative to its own impulse scale
  Integrator integrator = Integrator::rk4;
  // On the device: whether the lanes of a warp defer their event searches to run them together
  // (impact/search_vote.hpp; StrongeLaw). Scheduling only: no result depends on it, and the host
  // ignores it (the CUDA reduction sets it from ReduceSchedule::defer_searches).
  bool defer_searches = true;
  // On the host: a front end's stop (io::stop_flag, set by engine::stoppable; null: none). An
  // integrator polls it every kStopPoll iterations and, raised, ends its instance with step_limit;
  // the front end then drops the whole batch (io::check_cancelled throws), so no such row is used.
  // The device never reads it.
  const volatile std::int32_t* stop = nullptr;
};

// How often (iterations of an integrator's loop) the host polls LawOptions::stop.
constexpr std::uint32_t kStopPoll = 1024;

// Whether an integrator on the host should end its instance now (`polls` counts its iterations).
IMPACT_HDI bool stop_requested(const LawOptions& opt, std::uint32_t& polls) {
#if defined(__CUDA_ARCH__)
  (void)opt, (void)polls;
  return false;
#else
  return opt.stop && (++polls % kStopPoll) == 0 && *opt.stop != 0;
#endif
}

// Checks the instance and normalises n in place. Order of checks: non-finite input, zero normal,
// parameter ranges, approach velocity, positive definiteness of W.
template <class T>
IMPACT_HDI Status validate(ContactProblem<T>& p, ParamUse use) {
  if (!isfinite_sym(p.W) || !isfinite3(p.n) || !isfinite3(p.v0) || !std::isfinite(p.mu)) return Status::non_finite;
  if ((use.e && !std::isfinite(p.e)) || (use.e_t && !std::isfinite(p.e_t)) || (use.eta0 && !std::isfinite(p.eta0)))
    return Status::non_finite;
  const T nn = norm(p.n);
  if (!(nn > T(0))) return Status::bad_normal;
  p.n = (T(1) / nn) * p.n;
  if (!(p.mu >= T(0))) return Status::param_out_of_range;
  if (use.e && !(p.e >= T(0) && p.e <= T(1))) return Status::param_out_of_range;
  if (use.e_t && !(p.e_t >= T(-1) && p.e_t <= T(1))) return Status::param_out_of_range;
  if (use.eta0 && !(p.eta0 > T(0))) return Status::param_out_of_range;
  if (!(dot(p.v0, p.n) < T(0))) return Status::no_approach;
  if (!cholesky(p.W, T(64) * Eps<T>::value).ok) return Status::W_not_spd;
  return Status::ok;
}

// Fills vf and dE from P. dE = 1/2 (v0+vf)^T P equals 1/2 vf^T W^-1 vf - 1/2 v0^T W^-1 v0
// exactly, because vf - v0 = W P; it needs no inverse of W.
template <class T>
IMPACT_HDI void finish(const ContactProblem<T>& p, Result<T>& r) {
  r.vf = p.v0 + p.W * r.P;
  r.dE = T(0.5) * dot(p.v0 + r.vf, r.P);
  if (r.status == Status::ok && !(isfinite3(r.P) && isfinite3(r.vf) && std::isfinite(r.dE))) r.status = Status::non_finite;
}

// Frictionless perfectly plastic impulse (Chatterjee-Ruina eq. 3): brings v.n to zero.
template <class T>
IMPACT_HDI Vec3<T> impulse_plastic_frictionless(const ContactProblem<T>& p) {
  return (-dot(p.n, p.v0) / quad(p.W, p.n)) * p.n;
}

// In-plane contact frame shared by the laws that work in (n, t, s): t along v0's tangential part,
// or, for normal incidence, along the tangential part of W n (the direction the normal impulse
// pushes the contact), else any tangent; s = n x t. `planar` is true when the instance's dynamics
// stay in the (n, t) plane: v0.s, s^T W n and s^T W t vanish to 1e4 eps relative to |v0| and
// max|W| (Jia's Theorem 2 condition; Morgan's planarity). p must be validated (unit n).
template <class T>
struct PlaneFrame {
  Vec3<T> t, s;
  T vt;  // v0 . t (>= 0; 0 at normal incidence)
  bool planar;
};

template <class T>
IMPACT_HD PlaneFrame<T> plane_frame(const ContactProblem<T>& p) {
  PlaneFrame<T> f;
  const Vec3<T> n = p.n;
  const Vec3<T> Wn = p.W * n;
  const Vec3<T> vt0 = tangential(p.v0, n);
  const Vec3<T> wt = tangential(Wn, n);
  const T vscale = norm(p.v0);
  const T wscale = max_abs(p.W);
  const T tol = T(1e4) * Eps<T>::value;
  if (norm(vt0) > tol * vscale) {
    f.t = (T(1) / norm(vt0)) * vt0;
    f.vt = norm(vt0);
  } else if (norm(wt) > tol * wscale) {
    f.t = (T(1) / norm(wt)) * wt;
    f.vt = T(0);
  } else {
    Vec3<T> t2;
    tangent_basis(n, n, f.t, t2);
    f.vt = T(0);
  }
  f.s = cross(n, f.t);
  f.planar =
      tabs(dot(p.v0, f.s)) <= tol * vscale && tabs(dot(f.s, Wn)) <= tol * wscale && tabs(quad(p.W, f.s, f.t)) <= tol * wscale;
  return f;
}

// Kinetic energy of the relative contact motion, 1/2 v^T W^-1 v, given W's Cholesky factor.
template <class T>
IMPACT_HDI T contact_energy(const Chol3<T>& c, Vec3<T> v) {
  return T(0.5) * dot(v, chol_solve(c, v));
}

}  // namespace impact
