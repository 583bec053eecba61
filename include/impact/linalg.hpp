// Small POD vector / symmetric-matrix types for the contact-space laws.
// Templated on the scalar (float, double); usable in CUDA kernels (no Eigen here).
#pragma once
#include <cmath>

#include "impact/config.hpp"
#include "impact/math.hpp"

namespace impact {

using std::sqrt;

template <class T>
struct Vec3 {
  T x, y, z;
};

template <class T>
IMPACT_HDI Vec3<T> vec3(T x, T y, T z) {
  return Vec3<T>{x, y, z};
}
template <class T>
IMPACT_HDI Vec3<T> operator+(Vec3<T> a, Vec3<T> b) {
  return {a.x + b.x, a.y + b.y, a.z + b.z};
}
template <class T>
IMPACT_HDI Vec3<T> operator-(Vec3<T> a, Vec3<T> b) {
  return {a.x - b.x, a.y - b.y, a.z - b.z};
}
template <class T>
IMPACT_HDI Vec3<T> operator-(Vec3<T> a) {
  return {-a.x, -a.y, -a.z};
}
template <class T>
IMPACT_HDI Vec3<T> operator*(T s, Vec3<T> a) {
  return {s * a.x, s * a.y, s * a.z};
}
template <class T>
IMPACT_HDI Vec3<T> operator*(Vec3<T> a, T s) {
  return {s * a.x, s * a.y, s * a.z};
}
template <class T>
IMPACT_HDI T dot(Vec3<T> a, Vec3<T> b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}
template <class T>
IMPACT_HDI Vec3<T> cross(Vec3<T> a, Vec3<T> b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
template <class T>
IMPACT_HDI T norm2(Vec3<T> a) {
  return dot(a, a);
}
template <class T>
IMPACT_HDI T norm(Vec3<T> a) {
  return sqrt(dot(a, a));
}
template <class T>
IMPACT_HDI bool isfinite3(Vec3<T> a) {
  return std::isfinite(a.x) && std::isfinite(a.y) && std::isfinite(a.z);
}
// Tangential part of a with respect to unit normal n.
template <class T>
IMPACT_HDI Vec3<T> tangential(Vec3<T> a, Vec3<T> n) {
  return a - dot(a, n) * n;
}

// Symmetric 3x3 matrix, six stored entries.
template <class T>
struct Sym3 {
  T xx, xy, xz, yy, yz, zz;
};

template <class T>
IMPACT_HDI Vec3<T> operator*(const Sym3<T>& A, Vec3<T> v) {
  return {A.xx * v.x + A.xy * v.y + A.xz * v.z, A.xy * v.x + A.yy * v.y + A.yz * v.z, A.xz * v.x + A.yz * v.y + A.zz * v.z};
}
template <class T>
IMPACT_HDI T quad(const Sym3<T>& A, Vec3<T> a, Vec3<T> b) {
  return dot(a, A * b);
}
template <class T>
IMPACT_HDI T quad(const Sym3<T>& A, Vec3<T> a) {
  return dot(a, A * a);
}
template <class T>
IMPACT_HDI T trace(const Sym3<T>& A) {
  return A.xx + A.yy + A.zz;
}
template <class T>
IMPACT_HDI bool isfinite_sym(const Sym3<T>& A) {
  return std::isfinite(A.xx) && std::isfinite(A.xy) && std::isfinite(A.xz) && std::isfinite(A.yy) && std::isfinite(A.yz) &&
         std::isfinite(A.zz);
}
template <class T>
IMPACT_HDI T max_abs3(Vec3<T> a) {
  return tmax(tabs(a.x), tmax(tabs(a.y), tabs(a.z)));
}
template <class T>
IMPACT_HDI T max_abs(const Sym3<T>& A) {
  T m = tabs(A.xx);
  m = tmax(m, tabs(A.xy));
  m = tmax(m, tabs(A.xz));
  m = tmax(m, tabs(A.yy));
  m = tmax(m, tabs(A.yz));
  m = tmax(m, tabs(A.zz));
  return m;
}

// Cholesky factor L (lower triangular, row-major l00 l10 l11 l20 l21 l22) of a symmetric
// positive definite 3x3 matrix. `ok` is false when the matrix is not numerically SPD:
// a pivot is not positive relative to the matrix scale.
template <class T>
struct Chol3 {
  T l00, l10, l11, l20, l21, l22;
  bool ok;
};

template <class T>
IMPACT_HDI Chol3<T> cholesky(const Sym3<T>& A, T rel_tol = T(0)) {
  Chol3<T> c{};
  const T scale = max_abs(A);
  const T floor = rel_tol * scale;
  c.ok = false;
  if (!(scale > T(0)) || !isfinite_sym(A)) return c;
  T d0 = A.xx;
  if (!(d0 > floor)) return c;
  c.l00 = sqrt(d0);
  c.l10 = A.xy / c.l00;
  c.l20 = A.xz / c.l00;
  T d1 = A.yy - c.l10 * c.l10;
  if (!(d1 > floor)) return c;
  c.l11 = sqrt(d1);
  c.l21 = (A.yz - c.l20 * c.l10) / c.l11;
  T d2 = A.zz - c.l20 * c.l20 - c.l21 * c.l21;
  if (!(d2 > floor)) return c;
  c.l22 = sqrt(d2);
  c.ok = true;
  return c;
}

// Solve A x = b given the Cholesky factor of A.
template <class T>
IMPACT_HDI Vec3<T> chol_solve(const Chol3<T>& c, Vec3<T> b) {
  // forward: L y = b
  T y0 = b.x / c.l00;
  T y1 = (b.y - c.l10 * y0) / c.l11;
  T y2 = (b.z - c.l20 * y0 - c.l21 * y1) / c.l22;
  // backward: L^T x = y
  T x2 = y2 / c.l22;
  T x1 = (y1 - c.l21 * x2) / c.l11;
  T x0 = (y0 - c.l10 * x1 - c.l20 * x2) / c.l00;
  return {x0, x1, x2};
}

// Inverse of an SPD matrix from its Cholesky factor (symmetric result).
template <class T>
IMPACT_HDI Sym3<T> chol_inverse(const Chol3<T>& c) {
  Vec3<T> a = chol_solve(c, Vec3<T>{T(1), T(0), T(0)});
  Vec3<T> b = chol_solve(c, Vec3<T>{T(0), T(1), T(0)});
  Vec3<T> d = chol_solve(c, Vec3<T>{T(0), T(0), T(1)});
  return Sym3<T>{a.x, T(0.5) * (a.y + b.x), T(0.5) * (a.z + d.x), b.y, T(0.5) * (b.z + d.y), d.z};
}

// Orthonormal tangent basis (t1, t2) for unit n, with t1 along `hint`'s tangential part when
// that is not negligible, otherwise a fixed, continuous-enough choice.
template <class T>
IMPACT_HDI void tangent_basis(Vec3<T> n, Vec3<T> hint, Vec3<T>& t1, Vec3<T>& t2) {
  Vec3<T> h = tangential(hint, n);
  T hn = norm(h);
  if (hn > T(0) && hn > T(1e-6) * norm(hint)) {
    t1 = (T(1) / hn) * h;
  } else {
    // pick the axis least aligned with n
    Vec3<T> a = tabs(n.x) < T(0.57735) ? Vec3<T>{T(1), T(0), T(0)}
                                       : (tabs(n.y) < T(0.57735) ? Vec3<T>{T(0), T(1), T(0)} : Vec3<T>{T(0), T(0), T(1)});
    Vec3<T> t = tangential(a, n);
    t1 = (T(1) / norm(t)) * t;
  }
  t2 = cross(n, t1);
}

// Smallest eigenvalue of a symmetric 3x3 matrix (closed form, trigonometric).
template <class T>
IMPACT_HDI T min_eigenvalue(const Sym3<T>& A) {
  const T p1 = A.xy * A.xy + A.xz * A.xz + A.yz * A.yz;
  const T q = trace(A) / T(3);
  const T p2 = sq(A.xx - q) + sq(A.yy - q) + sq(A.zz - q) + T(2) * p1;
  if (!(p2 > T(0))) return q;
  const T p = sqrt(p2 / T(6));
  const T ip = T(1) / p;
  const Sym3<T> B{ip * (A.xx - q), ip * A.xy, ip * A.xz, ip * (A.yy - q), ip * A.yz, ip * (A.zz - q)};
  T r = (B.xx * (B.yy * B.zz - B.yz * B.yz) - B.xy * (B.xy * B.zz - B.yz * B.xz) + B.xz * (B.xy * B.yz - B.yy * B.xz)) / T(2);
  r = tmax(T(-1), tmin(T(1), r));
  const T phi = math::acos(r) / T(3);
  const T two_pi_3 = T(2.0943951023931954923);
  return q + T(2) * p * math::cos(phi + two_pi_3);
}

}  // namespace impact
