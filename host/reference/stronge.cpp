// CPU reference for the law `stronge` (and the integration morgan.cpp restricts to the plane):
// Stronge's 3D rigid impact with Coulomb friction and energetic restitution, written from
// Rodriguez & Bowling and Morgan (2011) ch. 4 in a formulation of its own, integrated with the
// adaptive RKF78 event driver of reference/ode.hpp. Host only, double precision, Eigen; nothing here is shared with
// include/impact/laws/ (only validate(), plane_frame(), the result types and ref::finish()).
//
// Physics. Contact frame (n, t1, t2), t1 along the tangential part of v0. In it
// a = n^T W n, b = (t_i^T W n) (2-vector), D = (t_i^T W t_j) (2x2 SPD). With normal impulse p,
// tangential impulse q (2-vector) and v = v0 + W P:
//   slip   dq/dp = -mu u, u = v_t/|v_t|:   dv_t/dp = F(u) = b - mu D u,   dv_n/dp = a - mu b.u
//   stick  dq/dp = tau = -D^-1 b (v_t stays 0), possible when |tau| <= mu; W is constant, so a stick
//          lasts to the end of the impact
//   work   dE/dp = v_n. Compression ends at v_n = 0 (In_c = p, E_c = E); the impact ends when
//          E = (1 - e^2) E_c (e = 0: at the end of compression); v_n falling back to 0 in
//          restitution before that is `stalled`.
//
// Formulation: log-polar Sundman variables. Write v_t = rho (cos th, sin th) and integrate in sigma
// with dp = rho dsigma the state y = (p, lam, th, q1, q2, v_n, E), lam = ln(rho / |v0|):
//   dp/dsig = rho,  dlam/dsig = g(th) = u.F(u),  dth/dsig = k(th) = u_perp.F(u),
//   dq/dsig = -mu rho u,  dv_n/dsig = rho (a - mu b.u),  dE/dsig = rho v_n.
// The direction (lam, th) obeys an autonomous system that does not depend on rho at all, with
// bounded smooth rates, so the regular singular point of dv_t/dp at v_t = 0 (where the slip
// direction turns at the rate k/rho) disappears: as v_t -> 0 along an approaching ray (g < 0) th
// converges to a zero of k and lam falls linearly in sigma, so rho and every rho-weighted rate
// decay exponentially, and the adaptive RKF78 follows the final turning of the slip direction with
// O(1) steps per e-fold of |v_t|. The same variables serve the whole slip (far from v_t = 0 they
// are an ordinary change of the independent variable), and lam carries the relative precision of
// |v_t| (no cancellation in v0_t + b p + D q near v_t = 0). Error scales (tolerance
// atol * scale + rtol |y|, rtol 1e-13, atol 1e-15 from Options): p, q: p_c = |v0.n| / (n^T W n);
// v_n: |v0|; E: |v0| p_c; lam, th: 1. They, lam's reference |v0| and every threshold scale with
// v0, so the integration is invariant under v0 -> c v0 up to round-off.
//
// Chunks. Where th has settled, lam is linear in sigma and every other component is a pure
// quadrature of e^lam. On such stretches the RKF78 error estimate (41/840 (k1 + k11 - k12 - k13) h,
// stages 1, 12 at the step start and 11, 13 at its end) vanishes identically, the controller grows
// the step without bound and the solution loses ~1e-10 (measured against MorganLaw on planar rows).
// The slip is therefore integrated in chunks of sigma at most 0.1 / max(|g|, |k|) (and 8 / |k'|)
// long, over which the 8th-order solution of e^(g sigma) is exact to ~1e-15, and each chunk starts
// with about the step the controller accepted last. (An h_max argument of integrate_until would do
// the same without restarts.)
//
// v_t = 0. An event stops the sigma-integration at rho = rho_z = 64 eps (|v0| + R_1 p_c),
// R = |b| + mu |D|_F (a bound on |F|), R_1 = R at min(mu, 64). The remaining tail, Delta p = rho_z / |g(th)|, is closed
// analytically along the current direction (a straight segment; its error is rho_z times the
// remaining angle offset, below 1e-14 p_c). Stiff approach: where th relaxes onto its ray much
// faster than lam moves (k' = dk/dth = -g - mu u_perp^T D u_perp < 0 and |k'| > 16 |g|, e.g. near
// the cone boundary |tau| ~ mu, where g -> 0), an explicit integration would need ~|k'|/|g| steps
// per e-fold of |v_t|; instead, once |k| <= 16 eps (|k'| + R) between chunks (th within
// ~16 eps (1 + R/|k'|) of an invariant ray) the rest is closed along the ray: a straight segment
// to v_t = 0 (g < 0) or, on the outgoing ray (g >= 0), to the end of the impact. At v_t = 0:
// stick if |tau| <= mu; otherwise slip resumes along the invariant ray s that moves away from 0,
// F(s) = lambda s with lambda > 0: in D's eigenbasis (D = Q diag(d) Q^T, beta = Q^T b)
// s = Q (beta_i / (lambda + mu d_i)) and |s| = 1 is the secular equation
// sum beta_i^2 / (lambda + mu d_i)^2 = 1, strictly decreasing in lambda, positive at 0 (|tau| > mu)
// and <= 0 at lambda = |b|: TOMS 748 (Boost) finds its unique root. That ray is invariant, so the
// rest of the impact is a straight segment (closed form, as stick is). v_t = 0 at the start
// (|v0_t| <= rho_z) is treated the same way.
//
// Closed-form straight segments (stick, outgoing ray, mu = 0, the tail): v_n linear and E
// quadratic in p; the end of restitution is the smaller root of E(p) = target in the cancellation-
// free form 2 dE / (v_n + sqrt(v_n^2 + 2 alpha dE)).
//
// Outputs use the fast path's semantics: P on body 1 (world frame), In_c = normal impulse at the end
// of compression, modes slip / stick / reverse (first mode `slip`, or `stick` when v_t = 0 at the
// start and the cone admits it; then `stick` or `reverse` at v_t = 0), status stalled /
// step_limit (RKF78 attempts over Options::max_steps, each sigma-chunk counting at least one; more
// than 16 phases; a chunk or a step that cannot advance sigma) / inconsistent (a straight
// compression segment along which v_n never grows; no outgoing ray) / non_finite (also: rates
// beyond a double's range, e.g. |W| ~ 1e300, whose chunks would have no length).
// steps = accepted RKF78 steps (closed-form segments count 0). mu above 1e30 is integrated as 1e30,
// the unbounded-friction limit (kMuUnbounded).
//
#include <algorithm>
#include <array>
#include <boost/math/tools/toms748_solve.hpp>
#include <cmath>
#include <cstdint>
#include <limits>

#include "impact/rmath.hpp"
#include "reference/ode.hpp"
#include "reference/reference.hpp"

namespace impact::ref {
namespace {

using Vec2 = Eigen::Vector2d;
using Mat2 = Eigen::Matrix2d;

constexpr double kEps = std::numeric_limits<double>::epsilon();
constexpr int kMaxPhases = 16;
// Longest sigma-chunk, in units of 1 / max(|g|, |k|): RKF78's 8th-order solution of the exponential
// e^(g sigma) is then accurate to ~1e-15 per chunk whatever its error estimate says.
constexpr double kChunk = 0.1;
// Stiff approach: the direction is closed along its ray once |k| <= kRayTol eps (|k'| + R) (the
// angle then within ~kRayTol eps (1 + R / |k'|) of the ray) when |k'| > kStiff |g|.
constexpr double kStiff = 16.0;
constexpr double kRayTol = 16.0;
// Friction beyond kMuUnbounded is unbounded: the outcome converges like 1/mu (the slip that mu
// ends takes a normal impulse ~ |v_t| / (mu |D|)), so at 1e30 it is the mu -> inf limit far below
// rtol, and R = |b| + mu |D| stays finite up to |D| ~ 1e278 (at mu >= 5e307 taken as it is, it
// overflows: every such row would be non_finite). The fast law has its own bound
// (detail::Stronge::kMuUnbounded).
constexpr double kMuUnbounded = 1e30;

// Outgoing slip direction at v_t = 0 when sticking is impossible (|tau| > mu > 0): the unit s in
// the tangent plane with b - mu D s = lambda s, lambda > 0. Returns false when none is found.
bool outgoing_ray(const Vec2& b, const Mat2& D, double mu, Vec2& s) {
  const double bn = b.norm();
  if (!(bn > 0) || !(mu > 0)) return false;
  const Eigen::SelfAdjointEigenSolver<Mat2> es(D);
  const Vec2& d = es.eigenvalues();
  const Mat2& Q = es.eigenvectors();
  const Vec2 beta = Q.transpose() * b;
  auto phi = [&](double lam) {
    const double x0 = beta(0) / (lam + mu * d(0)), x1 = beta(1) / (lam + mu * d(1));
    return x0 * x0 + x1 * x1 - 1.0;
  };
  double lam = 0;
  const double f0 = phi(0.0), f1 = phi(bn);
  if (!(f0 > 0)) {
    lam = 0;  // on the cone boundary to round-off: s is the direction of D^-1 b
  } else if (!(f1 < 0)) {
    lam = bn;
  } else {
    boost::uintmax_t it = 200;
    const auto br = boost::math::tools::toms748_solve(phi, 0.0, bn, f0, f1, boost::math::tools::eps_tolerance<double>(52), it);
    lam = 0.5 * (br.first + br.second);
  }
  const Vec2 x(beta(0) / (lam + mu * d(0)), beta(1) / (lam + mu * d(1)));
  const Vec2 sv = Q * x;
  const double sn = sv.norm();
  if (!(sn > 0) || !std::isfinite(sn)) return false;
  s = sv / sn;
  return true;
}

enum class SegEnd { limit, compression, end, stall, none };

// The integration of one validated instance, with v0_dyn as the initial relative velocity of the
// dynamics (the problem's own v0 for `stronge`; its in-plane part for planar `morgan` rows).
// `pr` supplies W, n, mu, e and is used by finish() for vf and dE. One object per instance: the
// contact frame, the state shared by the phases, and the phases as member functions.
class Integration {
 public:
  Integration(const ContactProblem<double>& pr, const Vec& v0, const Options& o) : pr_(pr), o_(o) {
    r = make_result<double>(Status::ok);
    W = to_eigen(pr.W);
    n = to_eigen(pr.n);
    mu = std::min(pr.mu, kMuUnbounded);
    e = pr.e;
    const double vn0 = v0.dot(n);
    // t1 along v0's tangential part (orthogonalised twice: when that part is at round-off level,
    // one projection leaves it far from orthogonal to n), else any unit tangent
    Vec t1 = v0 - vn0 * n;
    t1 -= t1.dot(n) * n;
    t1 = t1.norm() > 0 ? Vec(t1.normalized()) : n.unitOrthogonal();
    const Vec t2 = n.cross(t1).normalized();
    T.col(0) = t1;
    T.col(1) = t2;
    w0 = T.transpose() * v0;  // v0's tangential part in the frame
    rho0 = w0.norm();
    a = n.dot(W * n);
    b = T.transpose() * W * n;
    D = T.transpose() * W * T;
    D = (0.5 * (D + D.transpose())).eval();
    tau = -D.ldlt().solve(b);
    can_stick = tau.norm() <= mu;
    V = v0.norm();
    pc = -vn0 / a;
    R = b.norm() + mu * D.norm();
    // |v_t| grows at most at |b| (mu D only contracts it): mu enters the round-off scale no further
    // than mu = 64, as in the law (with R, mu = 1e14 stuck at once with v_t != 0, dE = +33% K0)
    rho_z = 64.0 * kEps * (V + (b.norm() + std::min(mu, 64.0) * D.norm()) * pc);
    lam_z = rmath::log(rho_z / V);
    vn = vn0;
  }

  Result<double> run();

 private:
  using Y = State<7>;  // p, lam, th, q1, q2, v_n, E
  // g, k and k' = dk/dth = -g - mu u_perp^T D u_perp at the direction th
  struct Ray {
    double g, k, kp;
  };

  void compression_end();
  SegEnd segment(const Vec2& rr, double Lmax);
  bool take_event(SegEnd se);
  bool at_zero(Mode resumed);
  bool start();
  void rhs(const Y& y, Y& dy) const;
  void events(const Y& y, std::array<double, 4>& g) const;
  Ray ray_rates(double angle) const;
  OdeResult slip_chunks(Y& y, bool& on_ray);
  bool after_slip(const OdeResult& res, bool on_ray);

  const ContactProblem<double>& pr_;
  const Options& o_;
  Result<double> r;
  // the frame and the constant rates
  Mat W;
  Vec n;
  double mu, e;
  Eigen::Matrix<double, 3, 2> T;
  Vec2 w0, b, tau;
  Mat2 D;
  double rho0, a, V, pc, R, rho_z, lam_z;
  bool can_stick;
  // state shared by the phases
  double p = 0, vn = 0, E = 0;
  Vec2 q = Vec2::Zero();
  double lam = 0, th = 0;  // slip direction (log-polar), valid in the slip phase
  bool compression = true, done = false;
  double target = 0;
  long attempts = 0;
  bool slipping = false;  // sigma-integration of the slip, else one straight segment with line_ratio
  Vec2 line_ratio = Vec2::Zero();
};

void Integration::compression_end() {
  compression = false;
  r.In_c = p;
  target = (1.0 - e * e) * E;
  if (e == 0.0) done = true;
}

// Straight segment with the constant tangential impulse ratio rr = dq/dp, at most Lmax long.
SegEnd Integration::segment(const Vec2& rr, double Lmax) {
  const double inf = std::numeric_limits<double>::infinity();
  const double alpha = a + b.dot(rr);  // dv_n/dp
  double dc = inf, de = inf, ds = inf;
  if (compression) {
    if (vn >= 0) dc = 0;
    else if (alpha > 0) dc = -vn / alpha;
  } else {
    const double dE = target - E;
    if (dE <= 0) {
      de = 0;
    } else {
      const double disc = vn * vn + 2.0 * alpha * dE;
      if (disc >= 0) {
        const double den = vn + std::sqrt(disc);
        if (den > 0) de = 2.0 * dE / den;
      }
      if (alpha < 0) ds = vn > 0 ? vn / -alpha : 0.0;
    }
  }
  const double d = std::min(std::min(Lmax, dc), std::min(de, ds));
  if (!(d < inf)) return SegEnd::none;
  E += vn * d + 0.5 * alpha * d * d;
  p += d;
  q += d * rr;
  vn += alpha * d;
  if (d == de) return SegEnd::end;
  if (d == ds) return SegEnd::stall;
  if (d == dc) {
    vn = 0;
    return SegEnd::compression;
  }
  return SegEnd::limit;
}

// The event that ended a straight segment: false (with r.status set) when the impact cannot go on.
bool Integration::take_event(SegEnd se) {
  if (se == SegEnd::compression) {
    compression_end();
  } else if (se == SegEnd::end) {
    done = true;
  } else if (se == SegEnd::stall) {
    r.status = Status::stalled;
    return false;
  } else {
    r.status = Status::inconsistent;  // no event ahead: v_n never turns
    return false;
  }
  return true;
}

// v_t = 0: stick, or slip along the outgoing ray. Sets the ratio of the closing segment.
bool Integration::at_zero(Mode resumed) {
  if (can_stick) {
    line_ratio = tau;
    r.modes.push(Mode::stick);
    return true;
  }
  Vec2 s;
  if (!outgoing_ray(b, D, mu, s)) return false;
  line_ratio = -mu * s;
  r.modes.push(resumed);
  return true;
}

// The first mode; false (status set) when v_t = 0 at the start and no way on exists.
bool Integration::start() {
  if (mu == 0.0) {
    r.modes.push(Mode::slip);
    line_ratio = Vec2::Zero();
  } else if (rho0 <= rho_z) {
    if (!at_zero(Mode::slip)) {
      r.status = Status::inconsistent;
      return false;
    }
  } else {
    r.modes.push(Mode::slip);
    slipping = true;
    lam = rmath::log(rho0 / V);
    th = rmath::atan2(w0(1), w0(0));  // 0 up to round-off: t1 is along v0_t
  }
  return true;
}

// The slip in sigma (log-polar tangential velocity): the rates of the 7 states.
void Integration::rhs(const Y& y, Y& dy) const {
  const double c = rmath::cos(y[2]), s = rmath::sin(y[2]);
  const Vec2 u(c, s), up(-s, c);
  const Vec2 F = b - mu * (D * u);
  const double rho = V * rmath::exp(y[1]);
  dy[0] = rho;
  dy[1] = u.dot(F);
  dy[2] = up.dot(F);
  dy[3] = -mu * rho * c;
  dy[4] = -mu * rho * s;
  dy[5] = rho * (a - mu * b.dot(u));
  dy[6] = rho * y[5];
}

// 0: end of compression (v_n reaches 0); 1: end of restitution (E reaches the target);
// 2: stall (v_n back to 0 in restitution); 3: v_t = 0 reached (rho <= rho_z).
void Integration::events(const Y& y, std::array<double, 4>& g) const {
  g[0] = compression ? y[5] : -1.0;
  g[1] = compression ? -1.0 : y[6] - target;
  g[2] = compression ? 1.0 : y[5];
  g[3] = y[1] - lam_z;
}

Integration::Ray Integration::ray_rates(double angle) const {
  const Vec2 u(rmath::cos(angle), rmath::sin(angle)), up(-u(1), u(0));
  const Vec2 F = b - mu * (D * u);
  const double g = u.dot(F);
  return Ray{g, up.dot(F), -g - mu * up.dot(D * up)};
}

// The slip, in chunks of sigma no longer than kChunk / max(|g|, |k|) (the header explains why)
// and 8 / |k'|. Between chunks: has the direction settled on a stable invariant ray while the
// radial motion is much slower (the stiff case, see the header)? Then on_ray: the rest is closed
// along it.
OdeResult Integration::slip_chunks(Y& y, bool& on_ray) {
  const Y scale{pc, 1.0, 1.0, pc, pc, V, V * pc};
  const double h0 = 1e-3 / (R > 0 ? R : a);
  auto f = [this](double, const Y& z, Y& dz) { rhs(z, dz); };
  auto g = [this](double, const Y& z, std::array<double, 4>& ev) { events(z, ev); };
  OdeResult res;
  on_ray = false;
  double h_next = h0;
  while (true) {
    if (attempts >= o_.max_steps) {
      res.kind = OdeResult::step_limit;
      break;
    }
    const Ray ry = ray_rates(y[2]);
    if (ry.kp < 0 && -ry.kp > kStiff * std::abs(ry.g) && std::abs(ry.k) <= kRayTol * kEps * (-ry.kp + R)) {
      on_ray = true;
      break;
    }
    const double rate = std::max(std::max(std::abs(ry.g), std::abs(ry.k)), 1e-9 * R);
    const double H = std::min(kChunk / rate, 8.0 / std::max(std::abs(ry.kp), 1e-9 * R));
    if (!std::isfinite(rate) || !std::isfinite(R)) {  // the rates overflow: nothing to integrate
      res.kind = OdeResult::non_finite;
      break;
    }
    if (!(H > 0)) {  // a chunk of no length (the rates beyond double's range) would never end
      res.kind = OdeResult::step_limit;
      break;
    }
    res = integrate_until<7, 4>(f, g, 0.0, y, H, std::min(h_next, H), scale, o_.rtol, o_.atol, o_.max_steps - attempts);
    r.steps += static_cast<std::int32_t>(res.steps);
    // every chunk counts as at least one attempt, so that chunks which do not advance sigma (a
    // step below the round-off of sigma) cannot go on without end
    attempts += std::max<long>(res.attempts, 1);
    if (res.kind != OdeResult::reached_end) break;
    if (res.steps == 0) {  // reached the chunk's end without one accepted step: no progress
      res.kind = OdeResult::step_limit;
      break;
    }
    // start the next chunk with about the step the controller last accepted
    h_next = res.steps > 0 ? 2.0 * H / static_cast<double>(res.steps) : H;
  }
  return res;
}

// After a slip phase: the event it ended on, or the approach to v_t = 0 closed as a straight
// segment followed by stick or resumed slip. False (status set) when the impact cannot go on.
bool Integration::after_slip(const OdeResult& res, bool on_ray) {
  const Ray ry = ray_rates(th);
  const Vec2 u(rmath::cos(th), rmath::sin(th));
  if (on_ray && ry.g >= 0) {
    // moving away from v_t = 0 on an invariant ray (only the outgoing one can attract): straight
    // to the end
    slipping = false;
    line_ratio = -mu * u;
    return true;
  }
  if (!on_ray) {
    if (res.kind == OdeResult::non_finite) {
      r.status = Status::non_finite;
      return false;
    }
    if (res.kind != OdeResult::event) {
      r.status = Status::step_limit;
      return false;
    }
    if (res.which == 0) {
      compression_end();
      return true;
    }
    if (res.which == 1) {
      done = true;
      return true;
    }
    if (res.which == 2) {
      r.status = Status::stalled;
      return false;
    }
  }
  // v_t = 0 is ahead along u (rho <= rho_z, or an approaching invariant ray): close the rest of
  // the approach as a straight segment, then stick or resume.
  double rest = ry.g < 0 ? V * rmath::exp(lam) / -ry.g : 0.0;
  for (int k = 0; k < 4 && rest > 0 && !done; ++k) {
    const double p_before = p;
    const SegEnd se = segment(-mu * u, rest);
    rest -= p - p_before;
    if (se == SegEnd::limit) break;
    if (!take_event(se)) return false;
  }
  if (done) return true;
  slipping = false;
  if (!at_zero(Mode::reverse)) {
    r.status = Status::inconsistent;
    return false;
  }
  return true;
}

Result<double> Integration::run() {
  if (!start()) return r;
  for (int phase = 0; !done; ++phase) {
    if (phase >= kMaxPhases) {
      r.status = Status::step_limit;
      return r;
    }
    if (!slipping) {
      if (!take_event(segment(line_ratio, std::numeric_limits<double>::infinity()))) return r;
      continue;
    }
    Y y{p, lam, th, q(0), q(1), vn, E};
    bool on_ray = false;
    const OdeResult res = slip_chunks(y, on_ray);
    p = y[0];
    lam = y[1];
    th = y[2];
    q = Vec2(y[3], y[4]);
    vn = y[5];
    E = y[6];
    if (!after_slip(res, on_ray)) return r;
  }
  r.P = from_eigen(Vec(p * n + T * q));
  finish(pr_, r);
  return r;
}

}  // namespace

Result<double> stronge_integration(const ContactProblem<double>& pr, const Vec& v0, const Options& o) {
  return Integration(pr, v0, o).run();
}

Result<double> stronge(const ContactProblem<double>& p_in, const Options& o) {
  ContactProblem<double> p = p_in;
  const Status st = validate(p, ParamUse{true, true, false, false});
  if (st != Status::ok) return make_result<double>(st);
  return stronge_integration(p, to_eigen(p.v0), o);
}

template <>
Result<double> solve<StrongeLaw>(const ContactProblem<double>& p, const Options& o) {
  return stronge(p, o);
}

}  // namespace impact::ref
