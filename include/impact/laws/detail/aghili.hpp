// The machinery of Aghili's law (laws/aghili.hpp holds its public face: name, parameters, extras,
// cost, eval): the bounds, the slip-direction solve and the law on an instance of unit magnitudes.
//
// Aghili: Newton-restitution frictional impact with a stick/slip discriminator, written in
// contact space (A M^-1 A^T = W, G = W^-1, restitution matrix E = diag(e, e_t, e_t) in (n, t)).
//
// Stick (eq. 11a):  i = -G (I + E) v-,  v+ = -E v-.
// Discriminator (eqs. 12-14): sigma = i^T U i = mu^2 i_n^2 - |i_t|^2. The paper's (14) writes
//   Q = A^T G (I+E) U (I+E) G A, which is i^T U i only when G and E commute; we use the impulse
//   of (11a) itself, so sigma >= 0 means exactly "the sticking impulse lies in the friction cone".
//   Sticking additionally needs i_n >= 0 (4d). A row whose sticking impulse is not finite
//   (overflow) gets `non_finite` before the stick/slip decision.
// Critical CoF (eqs. 21-23): mu_cr = |i_t| / i_n (= a (1+e_t)/(1+e) with a = |xi_t|/|xi_n| when G
//   commutes with E; with e_t = 0 that is the paper's a/(e+1)); +inf when i_n <= 0.
// Slip (eqs. 15-18): i_n = -(1+e) g v_n-, g = 1/(n^T W n - mu n^T W u), P = i_n (n - mu u), where
//   u is the unit direction of the average tangential velocity vbar_t = (v0 + W P / 2)_t (eq. 16).
//   In a tangent basis (t1, t2) with u = (cos th, sin th), vbar_t / g =: Z(u) =
//   (W_nn - mu w.u) V + k (w - mu T u) (V = v0_t, w = (W n)_t, T the tangential block of W,
//   k = (1+e)|v_n|/2), and self-consistency u x Z(u) = 0 is the trigonometric polynomial
//   H(th) = a0 + a1 cos th + b1 sin th + a2 cos 2th + b2 sin 2th: at most four roots. They are
//   isolated by a sign scan of H on kScan cells (an exact zero at a grid point is a root; a cell
//   whose ends have the same sign but where H turns back towards zero inside is split at the
//   extremum of H, found from H', so a pair of close roots inside one cell is not missed) and
//   solved by a bracketed Newton/bisection iteration. A root is a solution when g > 0 (eq. 20) and
//   u . vbar_t > 0. No solution: status `inconsistent` (full friction reverses the average slip
//   whatever its direction). Several (rare: the curve vbar_t(u) loops near the origin): the one
//   continued in mu from the frictionless direction in kContinue steps (mu = 0 has the single
//   solution u = dir(vbar_t) of the frictionless impact), each step a Newton polish from the
//   previous direction, or the nearest solution at that mu when the polish fails or jumps.
//   This is the selection rule of the CPU reference (host/reference/aghili.cpp).
// Energetic-consistency bounds:
//   mu* = n^T W n / |(W n)_t|                                           (38)
//   e*  = upper root of v-^T (G - E G E) v- = 0 in e (velocity specific) (30); -1 if none
//   e*_global = largest e in [0, 1] with G - E G E positive semidefinite (32); -1 if none.
//     Closed form: with c = sqrt(G_nn W_nn) >= 1 the admissible e form the interval
//     [(c e_t - 1)/(c - e_t), (1 + c e_t)/(c + e_t)] around e_t (see docs/laws.md), so e*_global
//     is its upper end clipped to 1, or -1 when that end is negative (e_t < -1/c).
// Admissible region (41): {mu >= mu_cr and e <= e*} or {mu < min(mu_cr, mu*)}.
// aux: [0] sigma, [1] mu_cr, [2] mu*, [3] e*, [4] e*_global. steps: root-finding iterations
// (bracketed solves, Newton polishes, continuation).
#pragma once
#include <cstdint>

#include "impact/admissible.hpp"
#include "impact/math.hpp"
#include "impact/problem.hpp"
#include "impact/scale.hpp"

namespace impact {

template <class T>
struct AghiliBounds {
  T sigma, mu_cr, mu_star, e_star, e_star_global;
  T i_n;      // normal component of the sticking impulse
  Vec3<T> i;  // the sticking impulse (11a)
};

template <class T>
IMPACT_HDI T infinity_of() {
  return T(1) / T(0);
}

template <class T>
IMPACT_HD AghiliBounds<T> aghili_bounds(const ContactProblem<T>& p, const Chol3<T>& c) {
  AghiliBounds<T> b{};
  const Vec3<T> n = p.n;
  const T vn = dot(p.v0, n);
  const Vec3<T> vt = tangential(p.v0, n);
  // sticking impulse and discriminator
  b.i = -chol_solve(c, (T(1) + p.e) * vn * n + (T(1) + p.e_t) * vt);
  b.i_n = dot(b.i, n);
  const T it = norm(tangential(b.i, n));
  b.sigma = sq(p.mu * b.i_n) - sq(it);
  b.mu_cr = b.i_n > T(0) ? it / b.i_n : infinity_of<T>();
  // mu* (38)
  const Vec3<T> Wn = p.W * n;
  const T wnt = norm(tangential(Wn, n));
  b.mu_star = wnt > T(0) ? dot(n, Wn) / wnt : infinity_of<T>();
  // e* (30): a e^2 + bb e + cc = 0
  const Vec3<T> Gn = chol_solve(c, n);
  const Vec3<T> Gvt = chol_solve(c, vt);
  const Vec3<T> Gv = chol_solve(c, p.v0);
  const T a = dot(n, Gn) * vn * vn;
  const T bb = T(2) * p.e_t * vn * dot(n, Gvt);
  const T cc = sq(p.e_t) * dot(vt, Gvt) - dot(p.v0, Gv);
  const T disc = bb * bb - T(4) * a * cc;
  if (disc >= T(0) && a > T(0)) {
    const T sd = sqrt(disc);
    const T q = bb >= T(0) ? T(-0.5) * (bb + sd) : T(-0.5) * (bb - sd);
    T r1 = q / a;
    T r2 = q != T(0) ? cc / q : r1;
    b.e_star = tmax(r1, r2);
  } else {
    b.e_star = T(-1);
  }
  // e*_global (32). With W = R R^T, x^T (G - EGE) x >= 0 for all x iff ||R^-1 E R||_2 <= 1, and
  // R^-1 E R = e_t I + (e - e_t) a b^T (a = R^-1 n, b = R^T n, a.b = 1, |a||b| = c). Its singular
  // values are |e_t| and those of a 2x2 block with determinant e_t e and squared Frobenius norm
  // 2 e_t e + c^2 (e - e_t)^2; both are <= 1 iff c |e - e_t| <= 1 - e_t e.
  const T cn = tmax(T(1), sqrt(dot(n, Gn) * dot(n, Wn)));
  if (T(1) + cn * p.e_t >= cn + p.e_t) {
    b.e_star_global = T(1);  // c = 1 or e_t = 1: every e in [0, 1]
  } else {
    b.e_star_global = (T(1) + cn * p.e_t) / (cn + p.e_t);  // here cn + e_t > max(0, 1 + cn e_t)
    if (b.e_star_global < T(0)) b.e_star_global = T(-1);
  }
  return b;
}

// Is (mu, e) inside Aghili's admissible region (41)?
template <class T>
IMPACT_HDI bool aghili_admissible(const AghiliBounds<T>& b, T mu, T e) {
  return (mu >= b.mu_cr && e <= b.e_star) || (mu < tmin(b.mu_cr, b.mu_star));
}

namespace detail::aghili {

constexpr double kPi = 3.14159265358979323846;
constexpr int kScan = 64;                       // cells of the sign scan on the circle
constexpr double kOffset = 0.3819660112501051;  // grid offset in cells (no structural zeros on it)
constexpr int kSolve = 64;                      // iteration bound of one bracketed solve
constexpr int kPolish = 60;                     // iteration bound of one Newton polish
constexpr int kContinue = 64;                   // continuation steps in mu
constexpr int kRootCap = 8;                     // at most 4 roots; room for numerically split ones

// Angle wrapped to (-pi, pi].
template <class T>
IMPACT_HDI T wrap_angle(T a) {
  const T two_pi = T(2 * kPi);
  a = std::fmod(a, two_pi);
  if (a > T(kPi)) a -= two_pi;
  if (a <= -T(kPi)) a += two_pi;
  return a;
}

// H(th) = a0 + a1 cos th + b1 sin th + a2 cos 2th + b2 sin 2th, evaluated from (cos th, sin th).
template <class T>
struct Trig2 {
  T a0, a1, b1, a2, b2;
  IMPACT_HDI T f(T c, T s) const { return a0 + a1 * c + b1 * s + a2 * ((c - s) * (c + s)) + b2 * (T(2) * c * s); }
  IMPACT_HDI T df(T c, T s) const { return b1 * c - a1 * s + T(2) * (b2 * ((c - s) * (c + s)) - a2 * (T(2) * c * s)); }
  IMPACT_HDI T ddf(T c, T s) const { return -(a1 * c + b1 * s) - T(4) * (a2 * ((c - s) * (c + s)) + b2 * (T(2) * c * s)); }
  IMPACT_HDI T scale() const { return tabs(a0) + tabs(a1) + tabs(b1) + tabs(a2) + tabs(b2); }
};

// The slip model of one validated row, for any friction coefficient (the continuation varies mu).
template <class T>
struct SlipModel {
  Vec3<T> n, t1, t2, v0;
  Sym3<T> W;
  T vn, e, Wnn, k;
  T V1, V2, w1, w2, T11, T12, T22;

  IMPACT_HD static SlipModel make(const ContactProblem<T>& p) {
    SlipModel m;
    m.n = p.n;
    m.v0 = p.v0;
    m.W = p.W;
    m.e = p.e;
    const Vec3<T> Wn = p.W * p.n;
    const Vec3<T> hint = norm(tangential(p.v0, p.n)) > T(0) ? p.v0 : Wn;
    tangent_basis(p.n, hint, m.t1, m.t2);
    m.vn = dot(p.v0, p.n);
    m.Wnn = dot(p.n, Wn);
    m.k = T(0.5) * (T(1) + p.e) * -m.vn;
    m.V1 = dot(m.t1, p.v0);
    m.V2 = dot(m.t2, p.v0);
    m.w1 = dot(m.t1, Wn);
    m.w2 = dot(m.t2, Wn);
    const Vec3<T> Wt1 = p.W * m.t1, Wt2 = p.W * m.t2;
    m.T11 = dot(m.t1, Wt1);
    m.T22 = dot(m.t2, Wt2);
    m.T12 = T(0.5) * (dot(m.t1, Wt2) + dot(m.t2, Wt1));
    return m;
  }

  // H(th) = u x Z(u): linear part x (Wnn V2 + k w2) - y (Wnn V1 + k w1), quadratic part
  // qxx x^2 + qxy x y + qyy y^2 (u = (x, y)).
  IMPACT_HDI Trig2<T> trig(T mu) const {
    const T qxx = -mu * (w1 * V2 + k * T12);
    const T qxy = -mu * ((w2 * V2 - w1 * V1) + k * (T22 - T11));
    const T qyy = mu * (w2 * V1 + k * T12);
    Trig2<T> h;
    h.a1 = Wnn * V2 + k * w2;
    h.b1 = -(Wnn * V1 + k * w1);
    h.a0 = T(0.5) * (qxx + qyy);
    h.a2 = T(0.5) * (qxx - qyy);
    h.b2 = T(0.5) * qxy;
    return h;
  }

  IMPACT_HDI Vec3<T> dir(T c, T s) const { return c * t1 + s * t2; }
  IMPACT_HDI T ginv(T mu, T c, T s) const { return Wnn - mu * (c * w1 + s * w2); }
  // slip impulse (eqs. 18a, 18c)
  IMPACT_HDI Vec3<T> impulse(T mu, T c, T s) const {
    const T in = -(T(1) + e) * vn / ginv(mu, c, s);
    return in * (n - mu * dir(c, s));
  }
  // a solution: g > 0 and the average tangential velocity points along u (not against it)
  IMPACT_HDI bool valid(T mu, T th) const {
    T c, s;
    math::sin_cos(th, s, c);
    if (!(ginv(mu, c, s) > T(0))) return false;
    const Vec3<T> vbar = v0 + T(0.5) * (W * impulse(mu, c, s));
    return dot(dir(c, s), tangential(vbar, n)) > T(0);
  }
};

// Root of f in [lo, hi] (f(lo), f(hi) nonzero, of opposite signs) by Newton steps kept inside
// the bracket, bisection otherwise. fd(x, f, d) gives f and f' at x. `newton` is false when it
// ended without a converged Newton step (bracket collapse, iteration bound).
template <class T, class FD>
IMPACT_HDI T bracket_solve(const FD& fd, T lo, T hi, T flo, T fhi, int& iters, bool& newton) {
  newton = false;
  const T tolx = T(4) * Eps<T>::value;
  T x = lo + (hi - lo) * (flo / (flo - fhi));  // secant start
  if (!(x > lo && x < hi)) x = T(0.5) * (lo + hi);
  T dx_old = hi - lo;
  for (int it = 0; it < kSolve; ++it) {
    ++iters;
    T f, d;
    fd(x, f, d);
    if (f == T(0)) {
      newton = true;
      return x;
    }
    if ((f < T(0)) == (flo < T(0))) {
      lo = x;
      flo = f;
    } else {
      hi = x;
    }
    T xn = x - f / d;
    const bool inside = d != T(0) && xn > lo && xn < hi && tabs(T(2) * f) <= tabs(dx_old * d);
    if (!inside) xn = T(0.5) * (lo + hi);
    const T dx = xn - x;
    dx_old = dx;
    x = xn;
    if (tabs(dx) <= tolx * (T(1) + tabs(x))) {
      newton = inside;
      return x;
    }
    if (hi - lo <= tolx * (T(1) + tabs(x))) return x;
  }
  return x;
}

// Newton polish of a root of H from th (steps clamped to 0.5 rad); ok when |H| <= 64 eps scale
// at the end. Returns the wrapped angle.
template <class T>
IMPACT_HD T polish(const Trig2<T>& H, T th, int& iters, bool& ok) {
  const T tol = T(64) * Eps<T>::value * H.scale();
  for (int it = 0; it < kPolish; ++it) {
    T c, s;
    math::sin_cos(th, s, c);
    const T h = H.f(c, s), d = H.df(c, s);
    ++iters;
    if (!(tabs(d) > T(0))) break;
    const T step = tmax(T(-0.5), tmin(T(0.5), h / d));
    th -= step;
    if (tabs(step) <= T(4.5) * Eps<T>::value * (T(1) + tabs(th))) break;
  }
  ok = tabs(H.f(math::cos(th), math::sin(th))) <= tol && std::isfinite(th);
  return wrap_angle(th);
}

// All real roots of H on (-pi, pi], each once; returns their number (<= kRootCap).
template <class T>
IMPACT_HD int trig_roots(const Trig2<T>& H, T* roots, int& iters) {
  const T scale = H.scale();
  if (!(scale > T(0)) || !std::isfinite(scale)) return 0;
  const T tol = T(64) * Eps<T>::value * scale;
  const T h = T(2 * kPi / kScan);
  const T x0 = T(-kPi + kOffset * 2 * kPi / kScan);
  T ch, sh;
  math::sin_cos(h, sh, ch);
  int nr = 0;
  auto push = [&](T x) {
    x = wrap_angle(x);
    for (int q = 0; q < nr; ++q)
      if (tabs(wrap_angle(roots[q] - x)) < T(1e-9) + T(1024) * Eps<T>::value) return;
    if (nr < kRootCap) roots[nr++] = x;
  };
  auto fdH = [&](T x, T& f, T& d) {
    T c, s;
    math::sin_cos(x, s, c);
    f = H.f(c, s);
    d = H.df(c, s);
  };
  auto fdH1 = [&](T x, T& f, T& d) {
    T c, s;
    math::sin_cos(x, s, c);
    f = H.df(c, s);
    d = H.ddf(c, s);
  };
  // a root of H in [a, b]; when the iteration did not end on a Newton step (the bracket's end
  // values come from the rotation recurrence and may be off by rounding), a few unbracketed
  // Newton steps settle it
  auto solve = [&](T a, T b, T fa, T fb) {
    bool newton = false;
    T x = bracket_solve(fdH, a, b, fa, fb, iters, newton);
    for (int q = 0; q < 8 && !newton; ++q) {
      T f, d;
      fdH(x, f, d);
      ++iters;
      if (!(tabs(d) > T(0))) break;
      const T step = tmax(-h, tmin(h, f / d));
      x -= step;
      newton = tabs(step) <= T(4) * Eps<T>::value * (T(1) + tabs(x));
    }
    return x;
  };
  // grid by rotation recurrence from x0; cell j is [x0 + j h, x0 + (j+1) h]
  T c, s;
  math::sin_cos(x0, s, c);
  T f0 = H.f(c, s), d0 = H.df(c, s);
  const T f_first = f0, d_first = d0;
  for (int j = 0; j < kScan; ++j) {
    const T xa = x0 + T(j) * h, xb = xa + h;
    T f1, d1;
    if (j + 1 < kScan) {
      const T cn = c * ch - s * sh, sn = s * ch + c * sh;
      c = cn;
      s = sn;
      f1 = H.f(c, s);
      d1 = H.df(c, s);
    } else {
      f1 = f_first;
      d1 = d_first;
    }
    if (f0 == T(0)) {
      push(xa);  // an exact zero at a grid point
    } else if (f1 != T(0)) {
      if ((f0 < T(0)) != (f1 < T(0))) {
        push(solve(xa, xb, f0, f1));
      } else {
        // same sign at both ends: H may turn back towards zero inside (two close roots)
        const bool towards_a = d0 != T(0) && ((d0 < T(0)) != (f0 < T(0)));
        const bool towards_b = d1 != T(0) && ((d1 < T(0)) == (f1 < T(0)));
        if (towards_a && towards_b) {
          bool newton = false;
          const T xc = bracket_solve(fdH1, xa, xb, d0, d1, iters, newton);
          const T fc = H.f(math::cos(xc), math::sin(xc));
          if (tabs(fc) <= tol) {
            push(xc);  // a double root
          } else if ((fc < T(0)) != (f0 < T(0))) {
            push(solve(xa, xc, f0, fc));
            push(solve(xc, xb, fc, f1));
          }
        }
      }
    }
    f0 = f1;
    d0 = d1;
  }
  return nr;
}

// Valid slip directions (roots of H with g > 0 and u . vbar_t > 0) at friction mu.
template <class T>
IMPACT_HD int slip_solutions(const SlipModel<T>& m, T mu, T* sols, int& iters) {
  T roots[kRootCap];
  const int nr = trig_roots(m.trig(mu), roots, iters);
  int ns = 0;
  for (int q = 0; q < nr; ++q)
    if (m.valid(mu, roots[q])) sols[ns++] = roots[q];
  return ns;
}

// The solution nearest to th (angular distance); the first one on ties.
template <class T>
IMPACT_HDI T nearest(const T* sols, int ns, T th) {
  T best = sols[0], bd = infinity_of<T>();
  for (int q = 0; q < ns; ++q) {
    const T d = tabs(wrap_angle(sols[q] - th));
    if (d < bd) {
      bd = d;
      best = sols[q];
    }
  }
  return best;
}

// The law on an instance of magnitudes near 1 (eval scales it).
template <class T>
IMPACT_HD Result<T> eval_unit(ContactProblem<T> p, ParamUse use) {
  Status s = validate(p, use);
  if (s != Status::ok) return make_result<T>(s);
  Result<T> r = make_result<T>(Status::ok);
  const Chol3<T> c = cholesky(p.W);
  const AghiliBounds<T> b = aghili_bounds(p, c);
  r.aux[0] = b.sigma;
  r.aux[1] = b.mu_cr;
  r.aux[2] = b.mu_star;
  r.aux[3] = b.e_star;
  r.aux[4] = b.e_star_global;
  if (!isfinite3(b.i)) {
    // the sticking impulse overflows: neither branch has a finite result
    r.status = Status::non_finite;
    return r;
  }
  if (b.sigma >= T(0) && b.i_n >= T(0)) {
    // sticking: v+ = -E v-, i = -G (I+E) v-
    r.P = b.i;
    r.modes.push(Mode::stick);
    finish(p, r);
    admit(p, r, !aghili_admissible(b, p.mu, p.e));
    return r;
  }
  r.modes.push(Mode::slip);
  const SlipModel<T> m = SlipModel<T>::make(p);
  int iters = 0;
  T sols[kRootCap];
  const int ns = slip_solutions(m, p.mu, sols, iters);
  if (ns == 0) {
    // no direction u whose average tangential velocity points along u with g > 0
    r.steps = iters;
    r.status = Status::inconsistent;
    return r;
  }
  T th = sols[0];
  if (ns > 1) {
    // continuation in mu from the frictionless direction
    const Vec3<T> vbar0 = p.v0 + (T(0.5) * (T(1) + p.e) * (-m.vn / m.Wnn)) * (p.W * p.n);
    T t = math::atan2(dot(m.t2, vbar0), dot(m.t1, vbar0));
    for (int j = 1; j <= kContinue; ++j) {
      const T muj = p.mu * T(j) / T(kContinue);
      bool ok = false;
      const T tn = polish(m.trig(muj), t, iters, ok);
      if (ok && m.valid(muj, tn) && tabs(wrap_angle(tn - t)) < T(0.5)) {
        t = tn;
      } else {
        T sj[kRootCap];
        const int nj = slip_solutions(m, muj, sj, iters);
        if (nj == 0) break;
        t = nearest(sj, nj, t);
      }
    }
    th = nearest(sols, ns, t);
  }
  r.steps = iters;
  r.P = m.impulse(p.mu, math::cos(th), math::sin(th));
  finish(p, r);
  admit(p, r, !aghili_admissible(b, p.mu, p.e));
  return r;
}

}  // namespace detail::aghili

}  // namespace impact
