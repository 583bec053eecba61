// Core types: Cholesky, eigenvalues, mode sequences, validation statuses.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <random>

#include "impact/laws/newton.hpp"
#include "impact/linalg.hpp"
#include "impact/problem.hpp"

using namespace impact;

namespace {
Sym3<double> random_spd(std::mt19937_64& rng) {
  std::normal_distribution<double> g;
  Eigen::Matrix3d A;
  for (int i = 0; i < 9; ++i) A.data()[i] = g(rng);
  Eigen::Matrix3d S = A * A.transpose() + 0.1 * Eigen::Matrix3d::Identity();
  return {S(0, 0), S(0, 1), S(0, 2), S(1, 1), S(1, 2), S(2, 2)};
}
Eigen::Matrix3d to_eigen(const Sym3<double>& s) {
  Eigen::Matrix3d M;
  M << s.xx, s.xy, s.xz, s.xy, s.yy, s.yz, s.xz, s.yz, s.zz;
  return M;
}
}  // namespace

TEST(Core, CholeskySolveAndInverseMatchEigen) {
  std::mt19937_64 rng(1);
  for (int k = 0; k < 1000; ++k) {
    const Sym3<double> S = random_spd(rng);
    const Chol3<double> c = cholesky(S);
    ASSERT_TRUE(c.ok);
    const Vec3<double> b{0.3, -1.2, 2.5};
    const Vec3<double> x = chol_solve(c, b);
    const Eigen::Vector3d xe = to_eigen(S).ldlt().solve(Eigen::Vector3d(b.x, b.y, b.z));
    EXPECT_NEAR(x.x, xe.x(), 1e-9 * xe.norm());
    EXPECT_NEAR(x.y, xe.y(), 1e-9 * xe.norm());
    EXPECT_NEAR(x.z, xe.z(), 1e-9 * xe.norm());
    const Eigen::Matrix3d Ie = to_eigen(chol_inverse(c)) * to_eigen(S);
    EXPECT_LT((Ie - Eigen::Matrix3d::Identity()).norm(), 1e-8);
  }
}

TEST(Core, CholeskyRejectsIndefiniteAndSingular) {
  EXPECT_FALSE(cholesky(Sym3<double>{1, 2, 0, 1, 0, 1}).ok);         // eigenvalue -1
  EXPECT_FALSE(cholesky(Sym3<double>{1, 1, 0, 1, 0, 1}, 1e-14).ok);  // singular
  EXPECT_FALSE(cholesky(Sym3<double>{0, 0, 0, 0, 0, 0}).ok);
  EXPECT_TRUE(cholesky(Sym3<double>{3.5, 0, 0, 3.5, 0, 1}).ok);
}

TEST(Core, MinEigenvalueMatchesEigen) {
  std::mt19937_64 rng(2);
  std::normal_distribution<double> g;
  for (int k = 0; k < 2000; ++k) {
    Sym3<double> S{g(rng), g(rng), g(rng), g(rng), g(rng), g(rng)};
    const double ref = Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(to_eigen(S)).eigenvalues()(0);
    EXPECT_NEAR(min_eigenvalue(S), ref, 1e-10 * (1 + std::fabs(ref)));
  }
  EXPECT_DOUBLE_EQ(min_eigenvalue(Sym3<double>{2, 0, 0, 2, 0, 2}), 2.0);
}

TEST(Core, ModeSequencePacksAndDeduplicates) {
  ModeSeq m = ModeSeq::empty();
  EXPECT_EQ(m.size(), 0);
  m.push(Mode::slip);
  m.push(Mode::slip);
  m.push(Mode::stick);
  m.push(Mode::slip);
  ASSERT_EQ(m.size(), 3);
  EXPECT_EQ(m.at(0), Mode::slip);
  EXPECT_EQ(m.at(1), Mode::stick);
  EXPECT_EQ(m.at(2), Mode::slip);
  for (int i = 0; i < 20; ++i) m.push(i % 2 ? Mode::slip : Mode::stick);
  EXPECT_EQ(m.size(), 8);  // bounded
}

TEST(Core, ValidationStatuses) {
  ContactProblem<double> p{{3.5, 0, 0, 3.5, 0, 1}, {0, 0, 2}, {-1, 0, -5}, 0.4, 0.5, 0, 1};
  {
    auto q = p;
    EXPECT_EQ(validate(q, ParamUse{true, true, true, true}), Status::ok);
    EXPECT_DOUBLE_EQ(q.n.z, 1.0);  // normalised
  }
  {
    auto q = p;
    q.v0.z = 5;
    EXPECT_EQ(validate(q, ParamUse{true, true, false, false}), Status::no_approach);
    q.v0.z = 0;
    EXPECT_EQ(validate(q, ParamUse{true, true, false, false}), Status::no_approach);  // grazing
  }
  {
    auto q = p;
    q.mu = -0.1;
    EXPECT_EQ(validate(q, ParamUse{true, true, false, false}), Status::param_out_of_range);
  }
  {
    auto q = p;
    q.e = 1.5;
    EXPECT_EQ(validate(q, ParamUse{true, true, false, false}), Status::param_out_of_range);
    EXPECT_EQ(validate(q, ParamUse{false, false, false, false}), Status::ok);  // law ignores e
  }
  {
    auto q = p;
    q.eta0 = 0;
    EXPECT_EQ(validate(q, ParamUse{true, true, true, true}), Status::param_out_of_range);
  }
  {
    auto q = p;
    q.W = Sym3<double>{1, 2, 0, 1, 0, 1};
    EXPECT_EQ(validate(q, ParamUse{true, true, false, false}), Status::W_not_spd);
  }
  {
    auto q = p;
    q.n = {0, 0, 0};
    EXPECT_EQ(validate(q, ParamUse{true, true, false, false}), Status::bad_normal);
  }
  {
    auto q = p;
    q.v0.x = NAN;
    EXPECT_EQ(validate(q, ParamUse{true, true, false, false}), Status::non_finite);
  }
  {  // a failed row yields no numbers, only a status
    auto q = p;
    q.v0.z = 1;
    const Result<double> r = NewtonLaw::eval(q);
    EXPECT_EQ(r.status, Status::no_approach);
  }
}

TEST(Core, NewtonBallOnTable) {
  // Jia 8.1 ball: W = diag(3.5, 3.5, 1), v0 = (-1+2, 0, -5): frictionless P = (1+e) 5 n
  ContactProblem<double> p{{3.5, 0, 0, 3.5, 0, 1}, {0, 0, 1}, {1, 0, -5}, 0.4, 0.5, 0, 1};
  const Result<double> r = NewtonLaw::eval(p);
  ASSERT_EQ(r.status, Status::ok);
  EXPECT_DOUBLE_EQ(r.P.z, 7.5);
  EXPECT_DOUBLE_EQ(r.vf.z, 2.5);
  EXPECT_DOUBLE_EQ(r.vf.x, 1.0);
  EXPECT_NEAR(r.dE, 0.5 * 2.5 * 2.5 - 0.5 * 25, 1e-12);
}
