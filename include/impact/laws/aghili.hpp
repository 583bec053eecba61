// Aghili: Newton-restitution frictional impact with a stick/slip discriminator, written in
// contact space (A M^-1 A^T = W, G = W^-1, restitution matrix E = diag(e, e_t, e_t) in (n, t)).
//
// Stick (eq. 11a):  i = -G (I + E) v-,  v+ = -E v-.
// Discriminator (eqs. 12-14): sigma = i^T U i = mu^2 i_n^2 - |i_t|^2. The paper's (14) writes
//   Q = A^T G (I+E) U (I+E) G A, which is i^T U i only when G and E commute; we use the impulse
//   of (11a) itself, so sigma >= 0 means exactly "the sticking impulse lies in the friction cone".
//   Sticking additionally needs i_n >= 0 (4d).
// Critical CoF (eqs. 21-23): mu_cr = |i_t| / i_n (= a (1+e_t)/(1+e) with a = |xi_t|/|xi_n| when G
//   commutes with E; with e_t = 0 that is the paper's a/(e+1)); +inf when i_n <= 0.
// Slip (eqs. 15-18): i_n = -(1+e) g v_n-, g = 1/(n^T W n - mu n^T W u), i_t = -mu u i_n, where u
//   is the unit direction of the average tangential velocity (v-_t + v+_t)/2 (eq. 16, b-bar),
//   solved to a fixed point by bounded secant iterations on the slip angle, safeguarded by plain
//   fixed-point steps (then a bounded scan + bisection on the angle
//   if the iteration does not settle). g <= 0 (eq. 20 violated) gives status `inconsistent`, and so
//   does an instance where no slip direction is self-consistent (the scan finds no root: full
//   friction reverses the average slip whatever its direction).
// Energetic-consistency bounds:
//   mu* = n^T W n / |(W n)_t|                                           (38)
//   e*  = upper root of v-^T (G - E G E) v- = 0 in e (velocity specific) (30); -1 if none
//   e*_global = largest e in [0, 1] with G - E G E positive semidefinite (32), by bisection with a
//   shifted Cholesky test; -1 if none
// Admissible region (41): {mu >= mu_cr and e <= e*} or {mu < min(mu_cr, mu*)}.
// aux: [0] sigma, [1] mu_cr, [2] mu*, [3] e*, [4] e*_global. steps: fixed-point iterations.
#pragma once
#include "impact/problem.hpp"

namespace impact {

template <class T>
struct AghiliBounds {
  T sigma, mu_cr, mu_star, e_star, e_star_global;
  T i_n;  // normal component of the sticking impulse
};

template <class T> IMPACT_HDI T infinity_of() { return T(1) / T(0); }

template <class T>
IMPACT_HD AghiliBounds<T> aghili_bounds(const ContactProblem<T>& p, const Chol3<T>& c) {
  AghiliBounds<T> b{};
  const Vec3<T> n = p.n;
  const T vn = dot(p.v0, n);
  const Vec3<T> vt = tangential(p.v0, n);
  // sticking impulse and discriminator
  const Vec3<T> i = -chol_solve(c, (T(1) + p.e) * vn * n + (T(1) + p.e_t) * vt);
  b.i_n = dot(i, n);
  const T it = norm(tangential(i, n));
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
  // e*_global (32): bisection on e in [0, 1] for lambda_min(G - E G E) >= 0
  const Sym3<T> G = chol_inverse(c);
  const T gnn = dot(n, Gn);
  // G - E G E >= 0 tested by a Cholesky factorisation shifted by a tolerance (no eigenvalues):
  // E = e_t I + (e - e_t) n n^T, so E G E = e_t^2 G + e_t (e - e_t)(Gn n^T + n Gn^T) + (e - e_t)^2 G_nn n n^T.
  const T shift = T(16) * Eps<T>::value * trace(G);
  auto psd = [&](T e) {
    const T d = e - p.e_t;
    const T c0 = T(1) - sq(p.e_t);
    const T k1 = p.e_t * d;
    const T k2 = sq(d) * gnn;
    const Sym3<T> M{c0 * G.xx - (k1 * T(2) * Gn.x * n.x + k2 * n.x * n.x) + shift,
                    c0 * G.xy - (k1 * (Gn.x * n.y + n.x * Gn.y) + k2 * n.x * n.y),
                    c0 * G.xz - (k1 * (Gn.x * n.z + n.x * Gn.z) + k2 * n.x * n.z),
                    c0 * G.yy - (k1 * T(2) * Gn.y * n.y + k2 * n.y * n.y) + shift,
                    c0 * G.yz - (k1 * (Gn.y * n.z + n.y * Gn.z) + k2 * n.y * n.z),
                    c0 * G.zz - (k1 * T(2) * Gn.z * n.z + k2 * n.z * n.z) + shift};
    return cholesky(M).ok;
  };
  if (!psd(T(0))) {
    b.e_star_global = T(-1);
  } else if (psd(T(1))) {
    b.e_star_global = T(1);
  } else {
    T lo = T(0), hi = T(1);
    for (int k = 0; k < 64 && hi - lo > T(4) * Eps<T>::value; ++k) {
      const T mid = T(0.5) * (lo + hi);
      if (psd(mid)) lo = mid; else hi = mid;
    }
    b.e_star_global = lo;
  }
  return b;
}

// Is (mu, e) inside Aghili's admissible region (41)?
template <class T> IMPACT_HDI bool aghili_admissible(const AghiliBounds<T>& b, T mu, T e) {
  return (mu >= b.mu_cr && e <= b.e_star) || (mu < tmin(b.mu_cr, b.mu_star));
}

struct AghiliLaw {
  static constexpr const char* name = "aghili";
  IMPACT_HD static constexpr ParamUse use() { return ParamUse{true, true, false}; }
  static constexpr int kMaxFixedPoint = 48;
  static constexpr int kScan = 64;
  static constexpr int kBisect = 80;

  template <class T> IMPACT_HD static Result<T> eval(ContactProblem<T> p, const LawOptions& = LawOptions{}) {
    Status s = validate(p, use());
    if (s != Status::ok) return make_result<T>(s);
    Result<T> r = make_result<T>(Status::ok);
    const Chol3<T> c = cholesky(p.W);
    const AghiliBounds<T> b = aghili_bounds(p, c);
    r.aux[0] = b.sigma;
    r.aux[1] = b.mu_cr;
    r.aux[2] = b.mu_star;
    r.aux[3] = b.e_star;
    r.aux[4] = b.e_star_global;
    const Vec3<T> n = p.n;
    const T vn = dot(p.v0, n);
    if (b.sigma >= T(0) && b.i_n >= T(0)) {
      // sticking: v+ = -E v-, i = -G (I+E) v-
      const Vec3<T> vt = tangential(p.v0, n);
      r.P = -chol_solve(c, (T(1) + p.e) * vn * n + (T(1) + p.e_t) * vt);
      r.modes.push(Mode::stick);
      finish(p, r);
      return r;
    }
    r.modes.push(Mode::slip);
    const Vec3<T> Wn = p.W * n;
    const T wnn = dot(n, Wn);
    // tangent basis: t1 along v0_t, else along the frictionless tangential velocity change
    Vec3<T> t1, t2;
    const Vec3<T> hint = norm(tangential(p.v0, n)) > T(0) ? p.v0 : Wn;
    tangent_basis(n, hint, t1, t2);
    // average tangential velocity (t1, t2 components) for slip direction angle th; returns
    // false when the kinematic consistency g > 0 fails.
    struct Slip {
      Vec3<T> P;
      T avg1, avg2;
      bool consistent;
    };
    auto slip = [&](T th) {
      Slip out{};
      const T ct = std::cos(th), st = std::sin(th);
      const Vec3<T> u = ct * t1 + st * t2;
      const T ginv = wnn - p.mu * dot(Wn, u);
      out.consistent = ginv > T(0);
      const T in = -(T(1) + p.e) * vn / ginv;
      out.P = in * (n - p.mu * u);
      const Vec3<T> vbar = p.v0 + T(0.5) * (p.W * out.P);
      out.avg1 = dot(vbar, t1);
      out.avg2 = dot(vbar, t2);
      return out;
    };
    // initial direction: tangential average velocity of the frictionless impact
    T th = T(0);
    {
      const Vec3<T> vbar0 = p.v0 + T(-0.5) * (T(1) + p.e) * vn / wnn * Wn;
      const T a1 = dot(vbar0, t1), a2 = dot(vbar0, t2);
      if (a1 != T(0) || a2 != T(0)) th = std::atan2(a2, a1);
    }
    const T tol = T(8) * Eps<T>::value;
    const T pi = T(3.14159265358979323846);
    auto wrap = [&](T d) {
      if (d > pi) d -= T(2) * pi;
      if (d < -pi) d += T(2) * pi;
      return d;
    };
    // F(th) = angle(avg tangential velocity at th) - th, wrapped; the fixed point is F = 0.
    // Secant iterations on F, safeguarded by the plain fixed-point step th <- angle(avg) when the
    // secant step does not reduce |F|.
    bool converged = false;
    int it = 0;
    T th_prev = th, F_prev = T(0);
    bool have_prev = false;
    for (; it < kMaxFixedPoint; ++it) {
      const Slip sl = slip(th);
      if (!sl.consistent || (sl.avg1 == T(0) && sl.avg2 == T(0))) break;
      const T phi = std::atan2(sl.avg2, sl.avg1);
      const T F = wrap(phi - th);
      if (tabs(F) <= tol) {
        converged = true;
        ++it;
        break;
      }
      T th_next = phi;  // fixed-point step
      if (have_prev && F != F_prev && tabs(F) < tabs(F_prev)) {
        const T step = F * wrap(th - th_prev) / (F - F_prev);
        if (tabs(step) < T(0.5) * pi) th_next = th - step;
      }
      th_prev = th;
      F_prev = F;
      have_prev = true;
      th = wrap(th_next);
    }
    if (!converged) {
      // residual h(th) = sin(angle(avg) - th), valid where cos(angle(avg) - th) > 0
      auto resid = [&](T a, T& h, T& cosd) {
        const Slip sl = slip(a);
        const T ct = std::cos(a), st = std::sin(a);
        const T m = sqrt(sq(sl.avg1) + sq(sl.avg2));
        if (!(m > T(0)) || !sl.consistent) { h = T(0); cosd = T(-1); return; }
        h = (ct * sl.avg2 - st * sl.avg1) / m;
        cosd = (ct * sl.avg1 + st * sl.avg2) / m;
      };
      T a0 = T(0), h0, c0;
      resid(a0, h0, c0);
      for (int k = 1; k <= kScan && !converged; ++k) {
        const T a1 = T(2) * pi * T(k) / T(kScan);
        T h1, c1;
        resid(a1, h1, c1);
        ++it;
        if (c0 > T(0) && c1 > T(0) && ((h0 <= T(0) && h1 >= T(0)) || (h0 >= T(0) && h1 <= T(0)))) {
          T lo = a0, hi = a1, hlo = h0;
          for (int j = 0; j < kBisect; ++j) {
            const T mid = T(0.5) * (lo + hi);
            T hm, cm;
            resid(mid, hm, cm);
            if ((hm <= T(0)) == (hlo <= T(0))) { lo = mid; hlo = hm; } else { hi = mid; }
          }
          th = T(0.5) * (lo + hi);
          converged = true;
        }
        a0 = a1; h0 = h1; c0 = c1;
      }
    }
    r.steps = it;
    const Slip sl = slip(th);
    if (!sl.consistent) {
      r.status = Status::inconsistent;
      return r;
    }
    if (!converged) {
      // The exhaustive scan found no direction u whose average tangential velocity points
      // along u: under full friction the average slip reverses, so the slip model has no
      // self-consistent solution (it happens with strong coupling and e_t != 0).
      r.status = Status::inconsistent;
      return r;
    }
    r.P = sl.P;
    finish(p, r);
    return r;
  }
};

}  // namespace impact
