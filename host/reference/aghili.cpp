// CPU reference of aghili (and the conventions of the algebraic references: newton.cpp,
// chatterjee_ruina.cpp): host only, double precision, Eigen, written from the papers' equations
// without any code of include/impact/laws/.
// Shared with the fast path: validate() (the same ParamUse as each law's use(), so invalid rows get
// the same status), make_result/ModeSeq/Status, and ref::finish() for vf and dE.
//
// Every inverse of W is an Eigen LDLT solve. The output conventions are those of the fast path
// (docs/laws.md): P is the impulse on body 1 in the world frame; chatterjee-ruina aux[0] = kappa,
// modes {stick} or {slip}; aghili aux = {sigma, mu_cr, mu*, e*, e*_global}, modes {stick} or
// {slip}, status `inconsistent` when no self-consistent slip direction with g > 0 exists.
//
// aghili: in contact space G = W^-1, E = e_t I + (e - e_t) n n^T (diag(e, e_t, e_t) in (n, t)).
//   Stick (11a): i = -G (I + E) v0 by LDLT; sigma = (mu i_n)^2 - |i_t|^2 from that impulse (the
//   documented departure from eq. 14); stick iff sigma >= 0 and i_n >= 0.
//   mu_cr = |i_t| / i_n (+inf for i_n <= 0); mu* = W_nn / |(W n)_t| (38).
//   e* (30): v^T (G - E G E) v = 0 is the quadratic A e^2 + B e + C = 0 with E v = e v_n n + e_t v_t:
//     A = v_n^2 G_nn, B = 2 e_t v_n n.G v_t, C = (e_t^2 - 1) v_t.G v_t - 2 v_n n.G v_t - v_n^2 G_nn;
//     its upper root by the cancellation-free pair of formulas, -1 without a real root.
//   e*_global (32): with W = R R^T (any factor), x^T (G - E G E) x >= 0 for all x iff
//     || R^-1 E R ||_2 <= 1, and R^-1 E R = e_t I + (e - e_t) a b^T with a = R^-1 n, b = R^T n,
//     a.b = 1, |a| |b| = c := sqrt(G_nn W_nn) >= 1. Its singular values are |e_t| (off span{a, b})
//     and those of its 2x2 block on span{a, b}, whose determinant is e_t e and squared Frobenius
//     norm 2 e_t e + c^2 (e - e_t)^2; both are <= 1 iff 1 - F^2 + det^2 >= 0 on the interval
//     containing e_t, i.e. (1 - e_t e)^2 >= c^2 (e - e_t)^2, i.e.
//     e in [(c e_t - 1)/(c - e_t), (1 + c e_t)/(c + e_t)]: an interval around e_t. e*_global is
//     its upper end clipped to 1, or -1 when that end is below 0 (no e in [0, 1] qualifies).
//     (The tests check this closed form against Eigen eigenvalues of G - E G E.)
//   Slip (15)-(18): for a unit tangential direction u, g = 1/(W_nn - mu n.W u), i_n = -(1+e) g v_n,
//     P = i_n (n - mu u), and u must point along the average tangential velocity
//     vbar_t = (v0 + W P / 2)_t (eq. 16). In a tangent basis (t1, t2), with u = (cos th, sin th),
//     multiplying vbar_t by 1/g > 0 gives Z(u) = (W_nn - mu w.u) V + k (w - mu T u) (V = v0_t,
//     w = (W n)_t, T the tangential block of W, k = (1+e)|v_n|/2), and the condition u x Z(u) = 0
//     is a trigonometric polynomial of degree 2 in th: at most four roots. They are found as the
//     unit-circle eigenvalues of the 4x4 companion matrix of z^2 H(th) (z = e^{i th}; Eigen's
//     ComplexEigenSolver), cross-checked by a 256-point sign scan with bisection, and polished by
//     Newton on th. A root is a solution when g > 0 and u.vbar_t > 0. None: `inconsistent`.
//     Several (rare: the curve vbar_t(u) loops near the origin): the one reached by continuation
//     in mu from the frictionless direction (mu = 0 has the single solution u = dir(vbar_t) of the
//     frictionless impact), which is the branch the fast path's iteration starts from.
//     steps = bisection and Newton iterations of the root finding.
//   The law runs on the instance in its own units, as the fast path's (aghili() over aghili_unit()).
//   A row whose sticking impulse overflows there, or whose sigma, an impulse squared, overflows once
//   scaled back, gets `non_finite` (docs/INTERFACE.md: "the result would not be finite").
#include <Eigen/Dense>
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <vector>

#include "impact/rmath.hpp"
#include "reference/reference.hpp"

namespace impact::ref {

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kInf = std::numeric_limits<double>::infinity();

double wrap_angle(double a) {
  a = std::fmod(a, 2 * kPi);
  if (a > kPi) a -= 2 * kPi;
  if (a <= -kPi) a += 2 * kPi;
  return a;
}

// ---- Aghili's slip direction ------------------------------------------------------------------

// The slip model of one row for a given friction coefficient (the continuation varies mu).
struct SlipModel {
  Vec n, t1, t2, v0;
  Mat W;
  double vn, e, Wnn, k;  // k = (1+e)|v_n|/2
  Eigen::Vector2d V, w;
  Eigen::Matrix2d T;

  explicit SlipModel(const Row& r) : n(r.n), v0(r.v0), W(r.W), e(r.e) {
    t1 = n.unitOrthogonal();
    t2 = n.cross(t1);
    vn = n.dot(v0);
    const Vec Wn = W * n;
    Wnn = n.dot(Wn);
    k = 0.5 * (1 + e) * (-vn);
    V << t1.dot(v0), t2.dot(v0);
    w << t1.dot(Wn), t2.dot(Wn);
    T << t1.dot(W * t1), t1.dot(W * t2), t2.dot(W * t1), t2.dot(W * t2);
    T(0, 1) = T(1, 0) = 0.5 * (T(0, 1) + T(1, 0));
  }

  // Coefficients of H(th) = a0 + a1 cos th + b1 sin th + a2 cos 2th + b2 sin 2th = u x Z(u).
  struct Trig {
    double a0, a1, b1, a2, b2;
    double operator()(double th) const {
      return a0 + a1 * rmath::cos(th) + b1 * rmath::sin(th) + a2 * rmath::cos(2 * th) + b2 * rmath::sin(2 * th);
    }
    double deriv(double th) const {
      return -a1 * rmath::sin(th) + b1 * rmath::cos(th) - 2 * a2 * rmath::sin(2 * th) + 2 * b2 * rmath::cos(2 * th);
    }
    double scale() const { return std::abs(a0) + std::abs(a1) + std::abs(b1) + std::abs(a2) + std::abs(b2); }
  };

  Trig trig(double mu) const {
    // u x Z = Wnn (u x V) - mu (w.u)(u x V) + k (u x w) - mu k (u x T u), u = (x, y):
    //   linear: x (Wnn V2 + k w2) - y (Wnn V1 + k w1)
    //   quadratic: qxx x^2 + qxy x y + qyy y^2
    const double qxx = -mu * (w(0) * V(1) + k * T(0, 1));
    const double qxy = -mu * ((w(1) * V(1) - w(0) * V(0)) + k * (T(1, 1) - T(0, 0)));
    const double qyy = mu * (w(1) * V(0) + k * T(0, 1));
    Trig h;
    h.a1 = Wnn * V(1) + k * w(1);
    h.b1 = -(Wnn * V(0) + k * w(0));
    h.a0 = 0.5 * (qxx + qyy);
    h.a2 = 0.5 * (qxx - qyy);
    h.b2 = 0.5 * qxy;
    return h;
  }

  Vec dir(double th) const { return rmath::cos(th) * t1 + rmath::sin(th) * t2; }

  // 1/g at direction th.
  double ginv(double mu, double th) const { return Wnn - mu * (rmath::cos(th) * w(0) + rmath::sin(th) * w(1)); }

  // Slip impulse at direction th (eqs. 18a, 18c).
  Vec impulse(double mu, double th) const {
    const Vec u = dir(th);
    const double in = -(1 + e) * vn / ginv(mu, th);
    return in * (n - mu * u);
  }

  // Is th a solution: g > 0 and the average tangential velocity points along u (not against it)?
  bool valid(double mu, double th) const {
    if (!(ginv(mu, th) > 0)) return false;
    const Vec vbar = v0 + 0.5 * (W * impulse(mu, th));
    const Vec u = dir(th);
    const Vec vbt = vbar - n * n.dot(vbar);
    return u.dot(vbt) > 0;
  }
};

// Newton polish of a root of H from th; returns the polished angle, adds iterations to `iters`;
// ok is false when it does not converge to |H| <= tol.
double polish(const SlipModel::Trig& H, double th, int& iters, bool& ok) {
  const double tol = 64 * 2.220446049250313e-16 * H.scale();
  for (int it = 0; it < 60; ++it) {
    const double h = H(th), d = H.deriv(th);
    ++iters;
    if (!(std::abs(d) > 0)) break;
    double step = h / d;
    step = std::max(-0.5, std::min(0.5, step));
    th -= step;
    if (std::abs(step) <= 1e-15 * (1 + std::abs(th))) break;
  }
  ok = std::abs(H(th)) <= tol && std::isfinite(th);
  return wrap_angle(th);
}

// Angles of the sign scan and their cosines/sines (computed once).
constexpr int kScan = 256;
struct ScanTable {
  double th[kScan + 1], c1[kScan + 1], s1[kScan + 1], c2[kScan + 1], s2[kScan + 1];
  ScanTable() {
    for (int j = 0; j <= kScan; ++j) {
      th[j] = -kPi + 2 * kPi * j / kScan;
      c1[j] = rmath::cos(th[j]);
      s1[j] = rmath::sin(th[j]);
      c2[j] = rmath::cos(2 * th[j]);
      s2[j] = rmath::sin(2 * th[j]);
    }
  }
};
const ScanTable& scan_table() {
  static const ScanTable t;
  return t;
}

// All real roots of the trigonometric polynomial H on (-pi, pi], each once.
std::vector<double> trig_roots(const SlipModel::Trig& H, int& iters) {
  std::vector<double> seeds;
  const double s = H.scale();
  if (!(s > 0)) return {};
  // companion matrix of z^2 H = c0 + c1 z + c2 z^2 + c3 z^3 + c4 z^4, z = e^{i th}, whose
  // coefficients are c0 = conj(h2), c1 = conj(h1), c2 = a0, c3 = h1, c4 = h2, h_k = (a_k - i b_k)/2
  using C = std::complex<double>;
  using CMat = Eigen::Matrix<C, Eigen::Dynamic, Eigen::Dynamic, 0, 4, 4>;
  const C h1(0.5 * H.a1, -0.5 * H.b1), h2(0.5 * H.a2, -0.5 * H.b2);
  C c[5];
  int deg = 0;
  if (std::abs(h2) > 1e-13 * s) {
    c[0] = std::conj(h2);
    c[1] = std::conj(h1);
    c[2] = C(H.a0);
    c[3] = h1;
    c[4] = h2;
    deg = 4;
  } else if (std::abs(h1) > 1e-13 * s) {
    c[0] = std::conj(h1);
    c[1] = C(H.a0);
    c[2] = h1;  // (z^2 H without the h2 terms) / z
    deg = 2;
  }
  if (deg >= 1) {
    CMat M = CMat::Zero(deg, deg);
    for (int i = 1; i < deg; ++i) M(i, i - 1) = 1;
    for (int i = 0; i < deg; ++i) M(i, deg - 1) = -c[i] / c[deg];
    Eigen::ComplexEigenSolver<CMat> es(M, false);
    if (es.info() == Eigen::Success)
      for (int i = 0; i < deg; ++i) {
        const C z = es.eigenvalues()(i);
        const double r = rmath::hypot(z.real(), z.imag());
        if (r > 0 && std::abs(rmath::log(r)) < 1e-3) seeds.push_back(rmath::atan2(z.imag(), z.real()));
      }
  }
  // sign scan with bisection (catches a root the eigenvalues placed too far off the circle)
  const ScanTable& t = scan_table();
  auto Hj = [&](int j) { return H.a0 + H.a1 * t.c1[j] + H.b1 * t.s1[j] + H.a2 * t.c2[j] + H.b2 * t.s2[j]; };
  double ha = Hj(0);
  for (int j = 1; j <= kScan; ++j) {
    const double hb = Hj(j);
    if ((ha < 0) != (hb < 0)) {
      double lo = t.th[j - 1], hi = t.th[j];
      const bool neg_lo = ha < 0;
      for (int q = 0; q < 16; ++q) {  // to ~4e-7 rad; Newton below does the rest
        const double mid = 0.5 * (lo + hi);
        ++iters;
        if ((H(mid) < 0) == neg_lo) lo = mid;
        else hi = mid;
      }
      seeds.push_back(0.5 * (lo + hi));
    }
    ha = hb;
  }
  std::vector<double> roots;
  for (double th0 : seeds) {
    bool ok = false;
    const double th = polish(H, th0, iters, ok);
    if (!ok) continue;
    bool dup = false;
    for (double r : roots)
      if (std::abs(wrap_angle(r - th)) < 1e-9) dup = true;
    if (!dup) roots.push_back(th);
  }
  return roots;
}

// Valid slip directions at friction mu.
std::vector<double> slip_solutions(const SlipModel& m, double mu, int& iters) {
  std::vector<double> out;
  for (double th : trig_roots(m.trig(mu), iters))
    if (m.valid(mu, th)) out.push_back(th);
  return out;
}

// The solution nearest to th (angular distance).
double nearest(const std::vector<double>& sols, double th) {
  double best = sols.front(), bd = kInf;
  for (double s : sols) {
    const double d = std::abs(wrap_angle(s - th));
    if (d < bd) {
      bd = d;
      best = s;
    }
  }
  return best;
}

// ---- aghili ----------------------------------------------------------------------------------------
// The law on an instance in its own units (aghili() below scales it there and back).
Result<double> aghili_unit(const ContactProblem<double>& in) {
  ContactProblem<double> p = in;
  const Status s = validate(p, ParamUse{true, true, true, false});
  if (s != Status::ok) return make_result<double>(s);
  const Row r = to_row(p);
  const Mat I = Mat::Identity();
  const Eigen::LDLT<Mat> ldlt(r.W);
  const Vec& n = r.n;
  const double vn = n.dot(r.v0);
  const Vec vt = r.v0 - vn * n;
  const Mat E = r.e_t * I + (r.e - r.e_t) * n * n.transpose();

  // stick impulse (11a) and discriminator
  const Vec i_stick = -ldlt.solve((I + E) * r.v0);
  const double i_n = n.dot(i_stick);
  const double i_t = (i_stick - i_n * n).norm();
  const double sigma = (r.mu * i_n) * (r.mu * i_n) - i_t * i_t;
  const double mu_cr = i_n > 0 ? i_t / i_n : kInf;

  // mu* (38)
  const Vec Wn = r.W * n;
  const double Wnn = n.dot(Wn);
  const double wt = (Wn - Wnn * n).norm();
  const double mu_star = wt > 0 ? Wnn / wt : kInf;

  // e* (30)
  Eigen::Matrix<double, 3, 2> rhs;
  rhs.col(0) = n;
  rhs.col(1) = vt;
  const Eigen::Matrix<double, 3, 2> Gx = ldlt.solve(rhs);
  const double Gnn = n.dot(Gx.col(0)), Gnt = n.dot(Gx.col(1)), Gtt = vt.dot(Gx.col(1));
  const double A = vn * vn * Gnn;
  const double B = 2 * r.e_t * vn * Gnt;
  const double C = (r.e_t * r.e_t - 1) * Gtt - 2 * vn * Gnt - vn * vn * Gnn;
  const double disc = B * B - 4 * A * C;
  double e_star = -1;
  if (disc >= 0 && A > 0) {
    const double sd = std::sqrt(disc);
    e_star = B <= 0 ? (-B + sd) / (2 * A) : -2 * C / (B + sd);
  }

  // e*_global (32): upper end of {e : c |e - e_t| <= 1 - e_t e}, c = sqrt(G_nn W_nn) >= 1
  const double c = std::max(1.0, std::sqrt(Gnn * Wnn));
  double e_glob;
  if (1 + c * r.e_t >= c + r.e_t) {
    e_glob = 1;  // c = 1 or e_t = 1: every e in [0, 1]
  } else {
    e_glob = (1 + c * r.e_t) / (c + r.e_t);  // here c + e_t > max(0, 1 + c e_t)
    if (e_glob < 0) e_glob = -1;
  }

  Result<double> res = make_result<double>(Status::ok);
  res.aux[0] = sigma;
  res.aux[1] = mu_cr;
  res.aux[2] = mu_star;
  res.aux[3] = e_star;
  res.aux[4] = e_glob;

  if (!i_stick.allFinite()) {
    // the sticking impulse overflows: neither branch has a finite result
    res.status = Status::non_finite;
    return res;
  }
  if (sigma >= 0 && i_n >= 0) {
    res.modes.push(Mode::stick);
    res.P = from_eigen(i_stick);
    finish(p, res);
    return res;
  }
  res.modes.push(Mode::slip);

  const SlipModel m(r);
  int iters = 0;
  std::vector<double> sols = slip_solutions(m, r.mu, iters);
  if (sols.empty()) {
    res.steps = iters;
    res.status = Status::inconsistent;
    return res;
  }
  double th;
  if (sols.size() == 1) {
    th = sols.front();
  } else {
    // continuation in mu from the frictionless direction
    const Vec vbar0 = r.v0 + 0.5 * (1 + r.e) * (-vn / Wnn) * Wn;
    th = rmath::atan2(m.t2.dot(vbar0), m.t1.dot(vbar0));
    const int K = 64;
    for (int j = 1; j <= K; ++j) {
      const double muj = r.mu * j / K;
      const SlipModel::Trig H = m.trig(muj);
      bool ok = false;
      const double t = polish(H, th, iters, ok);
      if (ok && m.valid(muj, t) && std::abs(wrap_angle(t - th)) < 0.5) {
        th = t;
      } else {
        const std::vector<double> sj = slip_solutions(m, muj, iters);
        if (sj.empty()) break;
        th = nearest(sj, th);
      }
    }
    th = nearest(sols, th);
  }
  res.steps = iters;
  res.P = from_eigen(m.impulse(r.mu, th));
  finish(p, res);
  return res;
}

}  // namespace

// In the instance's own units, by the fast path's scaling (AghiliLaw::in_own_units): the squares of
// impulses, of |i_t| and of the e* quadratic's coefficients stay in range at any scale, an ordinary
// instance gets the bits it would get unscaled, and sigma beyond the range once scaled back is
// non_finite on both paths alike.
Result<double> aghili(const ContactProblem<double>& p) { return AghiliLaw::in_own_units(p, aghili_unit); }

template <>
Result<double> solve<AghiliLaw>(const ContactProblem<double>& p, const Options&) {
  return aghili(p);
}

}  // namespace impact::ref
