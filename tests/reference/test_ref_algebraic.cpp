// The CPU reference of the algebraic laws (reference/{newton,chatterjee_ruina,aghili}.cpp) against the fast path
// (include/impact/laws/{newton,chatterjee_ruina,aghili}.hpp) and against independent checks.
//
// Agreement tolerances, per row (kTol = 1e-10):
//   P                 |P_ref - P_fast| <= kTol |P_ref|
//   kappa (CR)        |d kappa| <= kTol |kappa|
//   sigma             |d sigma| <= kTol ((mu i_n)^2 + |i_t|^2): the size of the two terms that cancel
//   mu_cr             |d mu_cr| <= kTol (1 + mu_cr) |i| / i_n: what a kTol relative change of the
//                     sticking impulse i can do to |i_t| / i_n (both +inf when i_n <= 0)
//   mu*               |d mu*| <= kTol (1 + mu*) |W n| / |(W n)_t|, likewise for W_nn / |(W n)_t|
//   e*                |d e*| <= kTol (A e*^2 + |B e*| + |C|) / sqrt(disc): the root's condition number
//                     for the quadratic A e^2 + B e + C of eq. (30) (both -1 when it has no root)
//   e*_global         |d e*_global| <= kTol (the value lies in [0, 1], or is -1)
// Status and the mode sequence must be identical; `steps` is not compared (the reference counts
// its own iterations). Every comparison is strict: any row whose status, modes, P or aux column
// disagrees fails the test. Independently of the fast path, the reference's slip impulses are
// checked to be self-consistent (eq. 16) and its `inconsistent` rows to have no self-consistent
// slip direction at all (dense scan); the fast path's slip impulses are checked likewise.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <limits>
#include <vector>

#include "systems/bodies.hpp"
#include "impact/columns.hpp"
#include "impact/laws/aghili.hpp"
#include "impact/laws/chatterjee_ruina.hpp"
#include "impact/laws/newton.hpp"
#include "permissible.hpp"
#include "random_instances.hpp"
#include "reference/reference.hpp"

using namespace impact;
namespace ri = impact::randinst;
using Eigen::Matrix3d;
using Eigen::Vector3d;

namespace {

constexpr double kTol = 1e-10;
constexpr int kRows = 20000;
const double kInf = std::numeric_limits<double>::infinity();

Vector3d E3(const Vec3<double>& v) { return ref::to_eigen(v); }

// Mixed stream of realizable rows: two-body contacts (e_t in [-1, 1], or e_t = 0 as in the
// paper's E = diag(e, 0, 0)), planar rows and planar head-on rows; mu in [0, 2].
ContactProblem<double> mixed_row(ri::Rng& rng, int k) {
  switch (k % 8) {
    case 5: return ri::random_contact_problem(rng, {0.0, 2.0}, {0.0, 1.0}, {0.0, 0.0});
    case 6: return ri::random_planar_problem(rng, {0.0, 2.0}, {0.0, 1.0}, {-1.0, 1.0});
    case 7: return ri::random_planar_problem_head_on(rng, {0.0, 2.0}, {0.0, 1.0}, {-1.0, 1.0});
    default: return ri::random_contact_problem(rng, {0.0, 2.0}, {0.0, 1.0}, {-1.0, 1.0});
  }
}

// A random mechanism (generalized coordinates) with its contact normal: strongly coupled W.
ContactProblem<double> mechanism_row(ri::Rng& rng, double mu_max) {
  const int n = 3 + static_cast<int>(ri::uniform(rng, 0, 4.999));
  Eigen::MatrixXd A(n, n), J(3, n);
  for (int i = 0; i < n * n; ++i) A.data()[i] = ri::normal(rng);
  for (int i = 0; i < 3 * n; ++i) J.data()[i] = ri::normal(rng);
  systems::Mechanism m;
  m.M = A * A.transpose() + 0.2 * Eigen::MatrixXd::Identity(n, n);
  m.J = J;
  m.qdot = Eigen::VectorXd(n);
  for (int i = 0; i < n; ++i) m.qdot(i) = ri::normal(rng);
  Vector3d normal = ri::unit_vec3(rng);
  if ((J * m.qdot).dot(normal) > 0) normal = -normal;
  const systems::ContactSpace cs = systems::contact_space(m, normal);
  const double mu = ri::uniform(rng, 0, mu_max), e = ri::uniform(rng, 0, 1), et = ri::uniform(rng, -1, 1);
  return systems::make_problem(cs, mu, e, et, 1);
}

ContactProblem<double> validated(ContactProblem<double> p, ParamUse use) {
  EXPECT_EQ(validate(p, use), Status::ok);
  return p;
}

double rel_vec(const Vec3<double>& a, const Vec3<double>& ref_v) {
  const double s = norm(ref_v);
  return s > 0 ? norm(a - ref_v) / s : norm(a);
}

// Error of a against b in units of `scale` (0 when equal, including equal infinities).
double scaled(double a, double b, double scale) {
  if (a == b) return 0;
  if (!std::isfinite(a) || !std::isfinite(b)) return kInf;
  return std::abs(a - b) / scale;
}

struct MaxErr {
  double v = 0;
  void add(double x) { v = std::max(v, x); }
};

// Independent check that P is a solution of Aghili's slip model (eqs. 15-18) for row p
// (validated): P_n > 0, |P_t| = mu P_n, normal restitution v+_n = -e v-_n, g > 0, and the friction
// impulse opposes the average tangential velocity (eq. 16): cos(u, vbar_t) = 1 with u = -P_t/|P_t|.
bool slip_consistent(const ContactProblem<double>& p, const Vec3<double>& PP, double cos_tol = 1e-9) {
  const Matrix3d W = ref::to_eigen(p.W);
  const Vector3d n = E3(p.n), v0 = E3(p.v0), P = E3(PP);
  const double Pn = n.dot(P);
  const Vector3d Pt = P - Pn * n;
  const Vector3d vf = v0 + W * P;
  if (!(Pn > 0)) return false;
  if (std::abs(Pt.norm() - p.mu * Pn) > 1e-12 * P.norm()) return false;
  if (std::abs(n.dot(vf) + p.e * n.dot(v0)) > 1e-10 * v0.norm()) return false;
  if (p.mu == 0) return true;
  const Vector3d u = -Pt.normalized();
  if (!(n.dot(W * n) - p.mu * n.dot(W * u) > 0)) return false;
  const Vector3d vb = 0.5 * (v0 + vf);
  const Vector3d vbt = vb - n.dot(vb) * n;
  return u.dot(vbt) >= (1 - cos_tol) * vbt.norm();
}

// Number of self-consistent slip directions of row p (validated), by a dense scan of the angle:
// sign changes of u x vbar_t(u) between neighbouring angles where g > 0 and u . vbar_t > 0.
int count_slip_directions(const ContactProblem<double>& p, int M) {
  const Matrix3d W = ref::to_eigen(p.W);
  const Vector3d n = E3(p.n), v0 = E3(p.v0);
  const Vector3d t1 = n.unitOrthogonal(), t2 = n.cross(t1);
  int roots = 0;
  double prev_h = 0;
  bool prev_ok = false;
  for (int j = 0; j <= M; ++j) {
    const double th = 2 * M_PI * j / M;
    const Vector3d u = std::cos(th) * t1 + std::sin(th) * t2;
    const double gi = n.dot(W * n) - p.mu * n.dot(W * u);
    const Vector3d P = (-(1 + p.e) * n.dot(v0) / gi) * (n - p.mu * u);
    const Vector3d vb = v0 + 0.5 * W * P;
    const double h = u.cross(vb).dot(n);
    const bool ok = gi > 0 && u.dot(vb - n.dot(vb) * n) > 0;
    if (j > 0 && ok && prev_ok && ((h < 0) != (prev_h < 0))) ++roots;
    prev_h = h;
    prev_ok = ok;
  }
  return roots;
}

// Aghili quantities recomputed in the test (Eigen) for the error scales.
struct AghiliScales {
  double sigma, mu_cr, mu_star, e_star;
  double c;  // sqrt(G_nn W_nn)
};
AghiliScales aghili_scales(const ContactProblem<double>& p, double e_star) {
  const Matrix3d W = ref::to_eigen(p.W);
  const Vector3d n = E3(p.n), v = E3(p.v0);
  const Matrix3d G = W.inverse();
  const Matrix3d E = p.e_t * Matrix3d::Identity() + (p.e - p.e_t) * n * n.transpose();
  const Vector3d i = -G * (Matrix3d::Identity() + E) * v;
  const double in = n.dot(i), it = (i - in * n).norm();
  AghiliScales s;
  s.sigma = (p.mu * in) * (p.mu * in) + it * it;
  const double mu_cr = in > 0 ? it / in : kInf;
  s.mu_cr = (1 + mu_cr) * i.norm() / std::abs(in);
  const Vector3d Wn = W * n;
  const double wt = (Wn - n.dot(Wn) * n).norm();
  s.mu_star = (1 + n.dot(Wn) / wt) * Wn.norm() / wt;
  const double vn = n.dot(v);
  const Vector3d vt = v - vn * n;
  const double A = vn * vn * n.dot(G * n), B = 2 * p.e_t * vn * n.dot(G * vt);
  const double C = p.e_t * p.e_t * vt.dot(G * vt) - v.dot(G * v);
  const double disc = B * B - 4 * A * C;
  s.e_star = disc > 0 ? (A * e_star * e_star + std::abs(B * e_star) + std::abs(C)) / std::sqrt(disc) : kInf;
  s.c = std::sqrt(n.dot(G * n) * n.dot(Wn));
  return s;
}

double cond_W(const ContactProblem<double>& p) {
  const Eigen::Vector3d ev = Eigen::SelfAdjointEigenSolver<Matrix3d>(ref::to_eigen(p.W), Eigen::EigenvaluesOnly).eigenvalues();
  return ev(2) / ev(0);
}

double lambda_min_G_EGE(const ContactProblem<double>& p, double e) {
  const Matrix3d W = ref::to_eigen(p.W);
  const Vector3d n = E3(p.n);
  const Matrix3d G = W.ldlt().solve(Matrix3d::Identity());
  const Matrix3d E = p.e_t * Matrix3d::Identity() + (e - p.e_t) * n * n.transpose();
  Matrix3d M = G - E * G * E;
  M = (0.5 * (M + M.transpose())).eval();
  return Eigen::SelfAdjointEigenSolver<Matrix3d>(M, Eigen::EigenvaluesOnly).eigenvalues()(0) / G.trace();
}

// The reference r and the fast path f both ok, with the same modes.
::testing::AssertionResult ok_alike(const Result<double>& r, const Result<double>& f) {
  if (r.status != f.status)
    return ::testing::AssertionFailure() << "status " << status_name(r.status) << " (reference) != " << status_name(f.status);
  if (r.status != Status::ok) return ::testing::AssertionFailure() << "status " << status_name(r.status);
  if (r.modes.bits != f.modes.bits) return ::testing::AssertionFailure() << "modes " << r.modes.bits << " != " << f.modes.bits;
  return ::testing::AssertionSuccess();
}

}  // namespace

// ---------------------------------------------------------------------------------------------
TEST(RefAlgebraic, NewtonAgreesWithFastPath) {
  ri::Rng rng(7001);
  MaxErr eP, evf, edE;
  for (int k = 0; k < kRows; ++k) {
    const ContactProblem<double> p = mixed_row(rng, k);
    const Result<double> f = NewtonLaw::eval(p);
    const Result<double> r = ref::newton(p);
    ASSERT_TRUE(ok_alike(r, f)) << k;
    eP.add(rel_vec(f.P, r.P));
    evf.add(rel_vec(f.vf, r.vf) * norm(r.vf) / norm(p.v0));
    const ContactProblem<double> pv = validated(p, NewtonLaw::use());
    edE.add(std::abs(f.dE - r.dE) / (0.5 * dot(p.v0, p.v0) / quad(pv.W, pv.n)));
    // frictionless: the impulse is along n and the normal velocity reverses with e
    EXPECT_LT(norm(tangential(r.P, pv.n)), 1e-14 * norm(r.P)) << k;
    EXPECT_NEAR(dot(r.vf, pv.n), -p.e * dot(p.v0, pv.n), 1e-12 * norm(p.v0)) << k;
  }
  EXPECT_LE(eP.v, kTol);
  EXPECT_LE(evf.v, kTol);
  EXPECT_LE(edE.v, kTol);
  std::printf("newton: max rel dP %.3g, dvf %.3g, ddE %.3g over %d rows\n", eP.v, evf.v, edE.v, kRows);
}

TEST(RefAlgebraic, ChatterjeeRuinaAgreesWithFastPath) {
  ri::Rng rng(7002);
  MaxErr eP, ek;
  int stick = 0, slip = 0;
  for (int k = 0; k < kRows; ++k) {
    const ContactProblem<double> p = mixed_row(rng, k);
    const Result<double> f = ChatterjeeRuinaLaw::eval(p);
    const Result<double> r = ref::chatterjee_ruina(p);
    ASSERT_TRUE(ok_alike(r, f)) << k;
    ASSERT_EQ(r.modes.size(), 1) << k;
    (r.modes.at(0) == Mode::stick ? stick : slip)++;
    eP.add(rel_vec(f.P, r.P));
    ek.add(scaled(f.aux[0], r.aux[0], std::abs(r.aux[0])));
    for (int j = 1; j < kAux; ++j) EXPECT_EQ(r.aux[j], 0.0);
    if (r.modes.at(0) == Mode::stick) { EXPECT_EQ(r.aux[0], 1 + p.e_t) << k; }
  }
  EXPECT_LE(eP.v, kTol);
  EXPECT_LE(ek.v, kTol);
  // both branches of eqs. (12)-(14), each at least a fifth of the rows
  EXPECT_GT(stick, kRows / 5);
  EXPECT_GT(slip, kRows / 5);
  std::printf("chatterjee-ruina: stick %d, slip %d; max rel dP %.3g, dkappa %.3g\n", stick, slip, eP.v, ek.v);
}

TEST(RefAlgebraic, ChatterjeeRuinaOutcomeIsPermissible) {
  // Section 3.2: energy not increased, no penetration, compressive, inside the friction cone.
  ri::Rng rng(7003);
  double worst = kInf;
  for (int k = 0; k < kRows; ++k) {
    const ContactProblem<double> p = mixed_row(rng, k);
    const Result<double> r = ref::chatterjee_ruina(p);
    ASSERT_EQ(r.status, Status::ok) << k;
    const ContactProblem<double> pv = validated(p, ChatterjeeRuinaLaw::use());
    const Permissible<double> q = check_permissible(pv, r.P, 1e-10);
    ASSERT_TRUE(q.inside()) << k << " bits " << q.violated << " energy " << q.energy_margin << " sep " << q.separation
                            << " normal " << q.normal_impulse << " cone " << q.cone_margin;
    worst = std::min({worst, q.energy_margin, q.separation, q.normal_impulse, q.cone_margin});
    // a slipping outcome lies on the cone
    if (r.modes.at(0) == Mode::slip && r.aux[0] < 1 + p.e_t) { EXPECT_NEAR(q.cone_margin, 0.0, 1e-12) << k; }
  }
  std::printf("chatterjee-ruina permissible: worst margin %.3g over %d rows\n", worst, kRows);
}

// ---------------------------------------------------------------------------------------------
namespace {
struct AghiliCompare {
  // per-row tolerance max(kTol, cond_factor * cond(W)): 0 keeps kTol; ill-conditioned rows
  // (random mechanisms reach cond(W) ~ 1e10) agree only to O(eps cond(W)) whatever the method
  double cond_factor = 0;
  int rows = 0, stick = 0, slip = 0, inconsistent = 0, mismatch = 0;
  int eglob_above_e0 = 0;  // rows with e*_global > 0 although e = 0 is inadmissible (e_t c > 1)
  MaxErr eP, eaux[kAux];

  void fail(const char* what, int k, const ContactProblem<double>& pv) {
    ADD_FAILURE() << "row " << k << ": " << what << " (cond(W) " << cond_W(pv) << ")";
    ++mismatch;
  }

  void row(const ContactProblem<double>& p, int k) {
    ++rows;
    const Result<double> f = AghiliLaw::eval(p);
    const Result<double> r = ref::aghili(p);
    if (r.status != Status::ok && r.status != Status::inconsistent) {
      ADD_FAILURE() << "row " << k << " reference status " << status_name(r.status);
      ++mismatch;
      return;
    }
    const ContactProblem<double> pv = validated(p, AghiliLaw::use());
    const double tol = cond_factor > 0 ? std::max(kTol, cond_factor * cond_W(pv)) : kTol;
    // status and modes: {stick} or {slip}, the same in both
    EXPECT_EQ(r.modes.size(), 1) << k;
    if (f.status != r.status) {
      ADD_FAILURE() << "row " << k << " status fast " << status_name(f.status) << " ref " << status_name(r.status);
      ++mismatch;
      return;
    }
    if (r.modes.bits != f.modes.bits) return fail("modes differ", k, pv);
    const bool sticks = r.modes.at(0) == Mode::stick;
    if (r.status == Status::inconsistent) ++inconsistent;
    else (sticks ? stick : slip)++;

    // impulse
    if (r.status == Status::ok) {
      const double dP = rel_vec(f.P, r.P);
      if (!(dP <= tol)) {
        ADD_FAILURE() << "row " << k << " dP " << dP << " tol " << tol;
        ++mismatch;
      }
      eP.add(dP * kTol / tol);
      if (!sticks) {
        EXPECT_TRUE(slip_consistent(pv, r.P)) << "reference slip not self-consistent, row " << k;
        EXPECT_TRUE(slip_consistent(pv, f.P)) << "fast slip not self-consistent, row " << k;
      }
    } else {
      // no self-consistent direction at all (dense scan)
      EXPECT_EQ(count_slip_directions(pv, 4096), 0) << k;
    }

    // aux columns, computed before the stick/slip decision: compared on every row
    const AghiliScales s = aghili_scales(pv, r.aux[3]);
    const double err[kAux] = {scaled(f.aux[0], r.aux[0], s.sigma), scaled(f.aux[1], r.aux[1], s.mu_cr),
                              scaled(f.aux[2], r.aux[2], s.mu_star), scaled(f.aux[3], r.aux[3], s.e_star),
                              scaled(f.aux[4], r.aux[4], 1.0)};
    if (p.e_t * s.c > 1 && r.aux[4] > 0) ++eglob_above_e0;
    for (int j = 0; j < kAux; ++j) {
      if (!(err[j] <= tol)) {
        ADD_FAILURE() << "row " << k << " aux[" << j << "] fast " << f.aux[j] << " ref " << r.aux[j] << " err " << err[j]
                      << " cond " << cond_W(pv);
        ++mismatch;
      }
      eaux[j].add(err[j] * kTol / tol);
    }
    // the stick decision is the reference's own sigma and i_n
    if (r.status == Status::ok) { EXPECT_EQ(sticks, r.aux[0] >= 0 && r.aux[1] < kInf) << k; }
  }

  void print(const char* what) const {
    std::printf(
        "aghili %s: %d rows: stick %d, slip %d, inconsistent %d; e*_global > 0 with e = 0 inadmissible %d; mismatch %d\n"
        "  max err (in units of the row's tolerance x 1e-10): P %.3g, sigma %.3g, mu_cr %.3g, mu* %.3g, e* %.3g, e*_global "
        "%.3g\n",
        what, rows, stick, slip, inconsistent, eglob_above_e0, mismatch, eP.v, eaux[0].v, eaux[1].v, eaux[2].v, eaux[3].v,
        eaux[4].v);
  }

  void expect_all_agree() const {
    EXPECT_EQ(mismatch, 0);
    EXPECT_LE(eP.v, kTol);
    for (int j = 0; j < kAux; ++j) EXPECT_LE(eaux[j].v, kTol) << j;
  }
};
}  // namespace

TEST(RefAlgebraic, AghiliAgreesWithFastPath) {
  ri::Rng rng(7004);
  AghiliCompare c;
  for (int k = 0; k < kRows; ++k) c.row(mixed_row(rng, k), k);
  c.print("random realizable");
  c.expect_all_agree();
  EXPECT_GT(c.stick, kRows / 5);
  EXPECT_GT(c.slip, kRows / 5);
  EXPECT_GT(c.inconsistent, 0);
  EXPECT_LT(c.inconsistent, kRows / 100);
  // rows where e = 0 is inadmissible but e*_global > 0 (e_t > 1/sqrt(G_nn W_nn)) are exercised
  EXPECT_GT(c.eglob_above_e0, 100);
  // mu = 0: the slip direction no longer matters and every row is Newton's frictionless impulse
  ri::Rng rng0(7009);
  int slip0 = 0;
  for (int k = 0; k < 2000; ++k) {
    ContactProblem<double> p = mixed_row(rng0, k);
    p.mu = 0;
    const Result<double> r = ref::aghili(p), f = AghiliLaw::eval(p), rn = ref::newton(p);
    ASSERT_EQ(r.status, Status::ok) << k;
    ASSERT_EQ(f.status, Status::ok) << k;
    EXPECT_EQ(r.modes.bits, f.modes.bits) << k;
    slip0 += r.modes.at(0) == Mode::slip;
    EXPECT_LT(rel_vec(r.P, rn.P), 1e-12) << k;
    EXPECT_LT(rel_vec(f.P, r.P), kTol) << k;
  }
  EXPECT_GT(slip0, 1000);
}

TEST(RefAlgebraic, AghiliAgreesOnMechanismsWithSeveralSlipDirections) {
  // Strongly coupled W (random mechanisms) and mu up to 5: some rows admit two or three
  // self-consistent slip directions; both take the one continued from mu = 0 (the reference by
  // companion-matrix roots, the fast path by its sign scan). Tolerance max(1e-10, 1e-15 cond(W)).
  ri::Rng rng(7005);
  AghiliCompare c;
  c.cond_factor = 1e-15;
  int several = 0;
  const int N = 60000;
  for (int k = 0; k < N; ++k) {
    const ContactProblem<double> p = mechanism_row(rng, 5.0);
    const int before = c.mismatch;
    c.row(p, k);
    const Result<double> r = ref::aghili(p);
    if (r.status == Status::ok && r.modes.at(0) == Mode::slip &&
        count_slip_directions(validated(p, AghiliLaw::use()), 1024) > 1) {
      ++several;
      EXPECT_EQ(c.mismatch, before) << "row " << k << " with several slip directions";
    }
  }
  c.print("mechanisms");
  std::printf("  rows with several self-consistent slip directions: %d\n", several);
  c.expect_all_agree();
  EXPECT_GT(several, 0);
  EXPECT_GT(c.inconsistent, 0);
}

TEST(RefAlgebraic, AghiliAgreesOnExampleCases) {
  // examples/cases.csv (random box/ellipsoid pairs): every row agrees. pair_739 and pair_1390
  // (lines 744 and 1395) have a self-consistent slip direction that the earlier fixed-point
  // iteration of the fast path missed (it said `inconsistent`).
  std::ifstream in(std::string(IMPACT_SOURCE_DIR) + "/examples/cases.csv");
  ASSERT_TRUE(in.good());
  std::string line;
  ASSERT_TRUE(static_cast<bool>(std::getline(in, line)));
  std::vector<std::string> head;
  {
    std::stringstream ss(line);
    for (std::string f; std::getline(ss, f, ',');) head.push_back(f);
  }
  int col[kNumInputs];
  for (int j = 0; j < kNumInputs; ++j) {
    col[j] = static_cast<int>(std::find(head.begin(), head.end(), kInputNames[j]) - head.begin());
    ASSERT_LT(col[j], static_cast<int>(head.size())) << kInputNames[j];
  }
  AghiliCompare c;
  int line_no = 1, named = 0;
  while (std::getline(in, line)) {
    ++line_no;
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
    ASSERT_EQ(f.size(), head.size()) << line_no;
    double v[kNumInputs];
    for (int j = 0; j < kNumInputs; ++j) v[j] = std::stod(f[col[j]]);
    const ContactProblem<double> p = from_columns(v);
    c.row(p, line_no);
    if (f[0] == "pair_739" || f[0] == "pair_1390") {
      ++named;
      const Result<double> r = AghiliLaw::eval(p);
      EXPECT_EQ(r.status, Status::ok) << line_no;
      EXPECT_EQ(r.modes.at(0), Mode::slip) << line_no;
    }
  }
  c.print("examples/cases.csv");
  EXPECT_EQ(c.rows, 2000);
  EXPECT_EQ(named, 2);
  c.expect_all_agree();
}

TEST(RefAlgebraic, AghiliFloatAgreesWithReference) {
  // The fast path in float on float-rounded rows against the reference in double on the same rows.
  ri::Rng rng(7010);
  std::vector<double> d;
  int differ = 0;
  double deg = 0;  // largest |d e*_global|
  for (int k = 0; k < kRows; ++k) {
    const ContactProblem<double> p0 = mixed_row(rng, k);
    const ContactProblem<float> pf{
        {float(p0.W.xx), float(p0.W.xy), float(p0.W.xz), float(p0.W.yy), float(p0.W.yz), float(p0.W.zz)},
        {float(p0.n.x), float(p0.n.y), float(p0.n.z)},
        {float(p0.v0.x), float(p0.v0.y), float(p0.v0.z)},
        float(p0.mu),
        float(p0.e),
        float(p0.e_t),
        float(p0.eta0)};
    const ContactProblem<double> p{{pf.W.xx, pf.W.xy, pf.W.xz, pf.W.yy, pf.W.yz, pf.W.zz},
                                   {pf.n.x, pf.n.y, pf.n.z},
                                   {pf.v0.x, pf.v0.y, pf.v0.z},
                                   pf.mu,
                                   pf.e,
                                   pf.e_t,
                                   pf.eta0};
    const Result<float> f = AghiliLaw::eval(pf);
    const Result<double> r = ref::aghili(p);
    if (f.status != r.status || f.modes.bits != r.modes.bits) {
      ++differ;  // stick/slip or self-consistency decided differently at a boundary
      continue;
    }
    if (r.status != Status::ok) continue;
    const Vec3<double> P{f.P.x, f.P.y, f.P.z};
    d.push_back(rel_vec(P, r.P));
    deg = std::max(deg, std::abs(f.aux[4] - r.aux[4]));
  }
  std::sort(d.begin(), d.end());
  const double med = d[d.size() / 2], p99 = d[d.size() * 99 / 100], mx = d.back();
  std::printf(
      "aghili float vs reference: %zu rows ok in both, rel dP median %.3g, p99 %.3g, max %.3g; %d rows differ; "
      "max |d e*_global| %.3g\n",
      d.size(), med, p99, mx, differ, deg);
  EXPECT_LE(differ, kRows / 1000);
  EXPECT_LT(med, 1e-6);
  EXPECT_LT(p99, 1e-5);
  EXPECT_LT(mx, 1e-3);
  EXPECT_LT(deg, 1e-3);
}

TEST(RefAlgebraic, AghiliEStarGlobalIsTheLargestAdmissibleRestitution) {
  // e*_global = largest e in [0, 1] with lambda_min(G - E G E) >= 0 (eq. 32), -1 if none, checked
  // with Eigen eigenvalues; with e_t = 0 it is 1/sqrt(G_nn W_nn).
  ri::Rng rng(7006);
  int interior = 0, one = 0, none = 0, e0_inadmissible = 0;
  for (int k = 0; k < 5000; ++k) {
    const ContactProblem<double> p = k % 2 ? mixed_row(rng, k) : mechanism_row(rng, 2.0);
    const Result<double> r = ref::aghili(p);
    const ContactProblem<double> pv = validated(p, AghiliLaw::use());
    const double eg = r.aux[4];
    const double tol = 1e-12;
    if (eg == -1) {
      ++none;
      for (int j = 0; j <= 200; ++j) EXPECT_LT(lambda_min_G_EGE(pv, j / 200.0), tol) << k;
      EXPECT_LT(pv.e_t, 0) << k;  // e = e_t is always admissible
      continue;
    }
    ASSERT_GE(eg, 0) << k;
    ASSERT_LE(eg, 1) << k;
    EXPECT_GE(lambda_min_G_EGE(pv, eg), -tol) << k;
    if (eg < 1) {
      ++interior;
      EXPECT_LT(lambda_min_G_EGE(pv, std::min(1.0, eg + 1e-6)), 0) << k;
    } else {
      ++one;
    }
    if (lambda_min_G_EGE(pv, 0) < -tol) ++e0_inadmissible;
    if (pv.e_t >= 0) { EXPECT_GE(eg, pv.e_t - 1e-12) << k; }
    if (pv.e_t == 0) {
      const Matrix3d W = ref::to_eigen(pv.W);
      const Vector3d n = E3(pv.n);
      EXPECT_NEAR(eg, 1 / std::sqrt(n.dot(W.ldlt().solve(n)) * n.dot(W * n)), 1e-12) << k;
    }
  }
  std::printf("e*_global: interior %d, = 1 %d, none %d; rows where e = 0 is inadmissible %d\n", interior, one, none,
              e0_inadmissible);
  EXPECT_GT(interior, 1000);
  EXPECT_GT(none, 0);
  EXPECT_GT(e0_inadmissible, 0);
}

// ---------------------------------------------------------------------------------------------
TEST(RefAlgebraic, InvalidRowsGetTheFastPathStatus) {
  const Sym3<double> W{3.5, 0, 0, 3.5, 0, 1};
  const ContactProblem<double> good{W, {0, 0, 2}, {1, 0.5, -5}, 0.4, 0.5, 0.2, 1};
  const double nan = std::numeric_limits<double>::quiet_NaN();
  struct Case {
    const char* what;
    ContactProblem<double> p;
    Status newton, algebraic;  // expected: newton; chatterjee-ruina and aghili
  };
  std::vector<Case> cases;
  auto with = [&](auto f) {
    ContactProblem<double> p = good;
    f(p);
    return p;
  };
  cases.push_back(
      {"negative eigenvalue", with([](auto& p) { p.W = Sym3<double>{1, 2, 0, 1, 0, 1}; }), Status::W_not_spd, Status::W_not_spd});
  cases.push_back(
      {"singular W", with([](auto& p) { p.W = Sym3<double>{1, 1, 0, 1, 0, 1}; }), Status::W_not_spd, Status::W_not_spd});
  cases.push_back({"zero W", with([](auto& p) { p.W = Sym3<double>{0, 0, 0, 0, 0, 0}; }), Status::W_not_spd, Status::W_not_spd});
  cases.push_back({"pivot below 64 eps", with([](auto& p) { p.W = Sym3<double>{1, 0, 0, 1, 0, 1e-15}; }), Status::W_not_spd,
                   Status::W_not_spd});
  cases.push_back({"separating", with([](auto& p) { p.v0 = Vec3<double>{1, 0, 5}; }), Status::no_approach, Status::no_approach});
  cases.push_back({"grazing", with([](auto& p) { p.v0 = Vec3<double>{1, 0, 0}; }), Status::no_approach, Status::no_approach});
  cases.push_back({"at rest", with([](auto& p) { p.v0 = Vec3<double>{0, 0, 0}; }), Status::no_approach, Status::no_approach});
  cases.push_back({"mu < 0", with([](auto& p) { p.mu = -0.1; }), Status::param_out_of_range, Status::param_out_of_range});
  cases.push_back({"e < 0", with([](auto& p) { p.e = -0.01; }), Status::param_out_of_range, Status::param_out_of_range});
  cases.push_back({"e > 1", with([](auto& p) { p.e = 1.01; }), Status::param_out_of_range, Status::param_out_of_range});
  cases.push_back(
      {"e_t < -1 (newton ignores e_t)", with([](auto& p) { p.e_t = -1.01; }), Status::ok, Status::param_out_of_range});
  cases.push_back({"e_t > 1 (newton ignores e_t)", with([](auto& p) { p.e_t = 1.5; }), Status::ok, Status::param_out_of_range});
  cases.push_back({"e_t NaN (newton ignores e_t)", with([&](auto& p) { p.e_t = nan; }), Status::ok, Status::non_finite});
  cases.push_back({"eta0 <= 0 (not read)", with([](auto& p) { p.eta0 = -1; }), Status::ok, Status::ok});
  cases.push_back({"zero normal", with([](auto& p) { p.n = Vec3<double>{0, 0, 0}; }), Status::bad_normal, Status::bad_normal});
  cases.push_back({"NaN in W", with([&](auto& p) { p.W.xy = nan; }), Status::non_finite, Status::non_finite});
  cases.push_back({"inf in v0", with([](auto& p) { p.v0.x = std::numeric_limits<double>::infinity(); }), Status::non_finite,
                   Status::non_finite});
  cases.push_back({"NaN mu", with([&](auto& p) { p.mu = nan; }), Status::non_finite, Status::non_finite});
  cases.push_back({"result overflows", with([](auto& p) {
                     p.v0 = Vec3<double>{1e307, 0, -1e307};
                     p.W = Sym3<double>{1e-3, 0, 0, 1e-3, 0, 1e-3};
                   }),
                   Status::non_finite, Status::non_finite});  // the sticking impulse overflows
  cases.push_back({"e = 1, e_t = -1, mu = 0 (limits)", with([](auto& p) {
                     p.e = 1;
                     p.e_t = -1;
                     p.mu = 0;
                   }),
                   Status::ok, Status::ok});
  for (const Case& c : cases) {
    const Result<double> rn = ref::newton(c.p), rc = ref::chatterjee_ruina(c.p), ra = ref::aghili(c.p);
    EXPECT_EQ(rn.status, NewtonLaw::eval(c.p).status) << c.what;
    EXPECT_EQ(rc.status, ChatterjeeRuinaLaw::eval(c.p).status) << c.what;
    EXPECT_EQ(ra.status, AghiliLaw::eval(c.p).status) << c.what;
    EXPECT_EQ(rn.status, c.newton) << c.what << ": " << status_name(rn.status);
    EXPECT_EQ(rc.status, c.algebraic) << c.what << ": " << status_name(rc.status);
    EXPECT_EQ(ra.status, c.algebraic) << c.what << ": " << status_name(ra.status);
  }
  // random rows with one input corrupted at random
  ri::Rng rng(7007);
  int invalid = 0;
  for (int k = 0; k < 4000; ++k) {
    ContactProblem<double> p = mixed_row(rng, k);
    switch (k % 7) {
      case 0: p.mu = -ri::uniform(rng, 0, 1); break;
      case 1: p.e = ri::coin(rng) ? 1 + ri::uniform(rng, 1e-12, 1) : -ri::uniform(rng, 1e-12, 1); break;
      case 2: p.e_t = ri::coin(rng) ? 1 + ri::uniform(rng, 1e-12, 1) : -1 - ri::uniform(rng, 1e-12, 1); break;
      case 3: p.v0 = -1.0 * p.v0; break;
      case 4: {  // W with a negative or vanishing eigenvalue
        Matrix3d Wd = ref::to_eigen(p.W);
        Eigen::SelfAdjointEigenSolver<Matrix3d> es(Wd);
        Vector3d ev = es.eigenvalues();
        ev(0) = ri::coin(rng) ? -ri::uniform(rng, 0, 1) * ev(2) : 0.0;
        Wd = es.eigenvectors() * ev.asDiagonal() * es.eigenvectors().transpose();
        p.W = systems::to_sym3(0.5 * (Wd + Wd.transpose()));
        break;
      }
      case 5: p.n = Vec3<double>{0, 0, 0}; break;
      default: p.W.yz = std::numeric_limits<double>::quiet_NaN(); break;
    }
    const Status sn = ref::newton(p).status, sc = ref::chatterjee_ruina(p).status, sa = ref::aghili(p).status;
    ASSERT_EQ(sn, NewtonLaw::eval(p).status) << k;
    ASSERT_EQ(sc, ChatterjeeRuinaLaw::eval(p).status) << k;
    // aghili: the same status. A corruption of W can leave it numerically singular yet valid
    // (smallest eigenvalue ~1e-16 of the largest, just above the pivot floor): there both paths
    // evaluate rounding noise, so only `ok` or `inconsistent` is required of both; rows with a
    // meaningful W must agree exactly.
    const Status fa = AghiliLaw::eval(p).status;
    const auto evaluated = [](Status st) { return st == Status::ok || st == Status::inconsistent; };
    if (evaluated(sa) || evaluated(fa)) {
      ASSERT_TRUE(evaluated(sa) && evaluated(fa)) << k << " " << status_name(sa) << " " << status_name(fa);
      if (cond_W(validated(p, AghiliLaw::use())) < 1e12) { ASSERT_EQ(sa, fa) << k; }
    } else {
      ASSERT_EQ(sa, fa) << k;
    }
    invalid += sc != Status::ok;
  }
  EXPECT_GT(invalid, 3000);
}

// ---------------------------------------------------------------------------------------------
TEST(RefAlgebraic, CostPerInstance) {
  ri::Rng rng(7008);
  std::vector<ContactProblem<double>> rows;
  for (int k = 0; k < kRows; ++k) rows.push_back(mixed_row(rng, k));
  auto time_us = [&](auto&& eval) {
    double sink = 0;
    int ok = 0;
    const auto t0 = std::chrono::steady_clock::now();
    for (const auto& p : rows) {
      const Result<double> r = eval(p);
      sink += r.P.x;
      ok += r.status == Status::ok;
    }
    const auto t1 = std::chrono::steady_clock::now();
    EXPECT_GT(ok, kRows / 2);
    EXPECT_TRUE(std::isfinite(sink));
    return std::chrono::duration<double, std::micro>(t1 - t0).count() / rows.size();
  };
  const double rn = time_us([](const auto& p) { return ref::newton(p); });
  const double fn = time_us([](const auto& p) { return NewtonLaw::eval(p); });
  const double rc = time_us([](const auto& p) { return ref::chatterjee_ruina(p); });
  const double fc = time_us([](const auto& p) { return ChatterjeeRuinaLaw::eval(p); });
  const double ra = time_us([](const auto& p) { return ref::aghili(p); });
  const double fa = time_us([](const auto& p) { return AghiliLaw::eval(p); });
  std::printf(
      "cost per instance (one core, us): reference newton %.3f, chatterjee-ruina %.3f, aghili %.3f; "
      "fast path (serial, double) %.3f, %.3f, %.3f\n",
      rn, rc, ra, fn, fc, fa);
  RecordProperty("ref_aghili_us", std::to_string(ra));
  // a reference row stays cheap enough for whole input files
  EXPECT_LT(ra, 1000.0);
}
