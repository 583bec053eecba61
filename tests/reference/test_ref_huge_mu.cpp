// Friction near the top of double's range in the CPU reference, and what `impact compare` makes of
// rows the reference cannot resolve: the reference's R = |b| + mu |D| overflows at mu >= 5e307,
// where a row would be non_finite in the reference and ok with a wrong impulse in the fast path, and
// a compare that skipped the unresolved rows would say PASS.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>

#include "engine/registry.hpp"
#include "impact/laws/stronge.hpp"
#include "impact/problem.hpp"
#include "io/csv.hpp"
#include "random_instances.hpp"
#include "reference/compare.hpp"
#include "reference/reference.hpp"

namespace {

using impact::ContactProblem;
using impact::Result;
using impact::Status;

ContactProblem<double> edge163(double mu) {
  ContactProblem<double> p{};
  p.W = {4.1567391141344645, -1.5041644865004518, -0.9885018629609597, 1.096342169422313, 0.2057286572519733, 3.967354466568394};
  p.n = {-0.3830182969496585, 0.2567466760187151, 0.8873432980279528};
  p.v0 = {1.4358567394634605, 1.4794798822996738, -0.8927611825548868};
  p.mu = mu;
  p.e = 0.9909251799832077;
  p.e_t = -0.9183953417814603;
  p.eta0 = 0.5293867806732417;
  return p;
}

double norm3(const impact::Vec3<double>& a) { return std::sqrt(a.x * a.x + a.y * a.y + a.z * a.z); }
double rel(const Result<double>& a, const Result<double>& b, double v0) {
  const impact::Vec3<double> dP{a.P.x - b.P.x, a.P.y - b.P.y, a.P.z - b.P.z};
  const impact::Vec3<double> dv{a.vf.x - b.vf.x, a.vf.y - b.vf.y, a.vf.z - b.vf.z};
  return std::max(norm3(dP) / norm3(b.P), norm3(dv) / v0);
}

}  // namespace

// The reproducer's row: the reference resolves every mu up to DBL_MAX, with the answer of
// mu = 1e300, and the fast law agrees with it to the compare tolerance.
TEST(RefHugeMu, ReproducerRowResolvedUpToDblMax) {
  const double v0 = norm3(edge163(1.0).v0);
  const Result<double> lim = impact::ref::stronge(edge163(1e300));
  ASSERT_EQ(lim.status, Status::ok);
  for (double mu : {1e20, 1e100, 1e307, 5e307, 8e307, 1e308, 1.5e308, DBL_MAX}) {
    const Result<double> r = impact::ref::stronge(edge163(mu));
    ASSERT_EQ(r.status, Status::ok) << "mu " << mu;
    EXPECT_LE(rel(r, lim, v0), 1e-11) << "mu " << mu;
    const Result<double> fast = impact::StrongeLaw::eval(edge163(mu));
    ASSERT_EQ(fast.status, Status::ok) << "mu " << mu;
    EXPECT_LE(rel(fast, r, v0), 1e-5) << "mu " << mu;
  }
}

// Random 3D and planar rows (stronge, and morgan's planar reference through the same
// integration): at mu = 5e307 and DBL_MAX the status and outcome of mu = 1e20.
TEST(RefHugeMu, RandomRowsAgreeWithTheLimit) {
  impact::randinst::Rng rng(77);
  int ok = 0;
  for (int i = 0; i < 60; ++i) {
    const bool planar = i % 3 == 2;
    ContactProblem<double> p =
        planar ? impact::randinst::random_planar_problem(rng) : impact::randinst::random_contact_problem(rng);
    const double v0 = norm3(p.v0);
    auto ref = [&](double mu) {
      p.mu = mu;
      return planar ? impact::ref::morgan(p) : impact::ref::stronge(p);
    };
    const Result<double> lim = ref(1e20);
    ok += lim.status == Status::ok;
    for (double mu : {5e307, DBL_MAX}) {
      const Result<double> r = ref(mu);
      EXPECT_EQ(r.status, lim.status) << "row " << i << " mu " << mu;
      if (r.status == Status::ok && lim.status == Status::ok) { EXPECT_LE(rel(r, lim, v0), 1e-9) << "row " << i; }
    }
  }
  EXPECT_GE(ok, 50);
}

// The verdict: rows ok in the fast path that the reference left unresolved make it `unverified`,
// never `pass`; a failure still makes it `fail`, and no row compared `nothing_compared`.
TEST(RefHugeMu, UnverifiedRowsAreNoPass) {
  using impact::ref::Verdict;
  impact::ref::CompareReport rep;
  rep.rows = 3;
  rep.both_ok = 2;
  EXPECT_EQ(impact::ref::verdict(rep), Verdict::pass);
  rep.ref_unresolved = 1;
  rep.unverified.push_back(2);
  EXPECT_EQ(impact::ref::verdict(rep), Verdict::unverified);
  EXPECT_EQ(std::string(impact::ref::verdict_name(Verdict::unverified)), "unverified");
  rep.failures.push_back(impact::ref::Failure{0, "beyond tolerance", 0, 1.0});
  EXPECT_EQ(impact::ref::verdict(rep), Verdict::fail);
  impact::ref::CompareReport none;
  none.rows = 1;
  none.ref_unresolved = 1;
  none.unverified.push_back(0);
  EXPECT_EQ(impact::ref::verdict(none), Verdict::nothing_compared);
}

// Through compare(): results made elsewhere (--given) claim ok for a row the reference cannot
// resolve (W ~ 1e300, v0 ~ 1e-300: morgan_reference_hang.csv, non_finite in the reference) among
// rows it resolves: counted, listed, and the verdict is unverified, not pass.
TEST(RefHugeMu, CompareCountsTheRowsTheReferenceLeftUnresolved) {
  const impact::engine::LawInfo& law = impact::engine::law_named("stronge");
  std::string text = "W_xx,W_xy,W_xz,W_yy,W_yz,W_zz,n_x,n_y,n_z,v_x,v_y,v_z,mu,e\n";
  text += "3.5,0,0,3.5,0,1,0,0,1,-3,0,-5,0.4,0.5\n";
  text +=
      "1.7974496299292392e+300,-1.2716273797884476e+298,4.36872111315028e+298,2.017190380967854e+300,"
      "3.2701172491589404e+299,2.3211745265112616e+300,0,0,1,0,0,-1e-300,1,1e-15\n";
  text += "2,0.1,0,1.5,0,1,0,0,1,1,0.5,-2,0.3,0.7\n";
  impact::io::CsvReader reader = impact::io::CsvReader::from_text(text, "rows.csv");
  impact::ref::CompareRows rows = impact::ref::rows_from_table(reader, law, false, 0, 1);
  impact::ref::CompareSpec spec;
  spec.law = &law;
  spec.backend = impact::engine::Backend::serial;
  const impact::ref::CompareReport fast = impact::ref::compare(spec, rows, nullptr);
  ASSERT_EQ(fast.rows, 3u);
  ASSERT_EQ(fast.ref.status_of(1), Status::non_finite);
  EXPECT_EQ(impact::ref::verdict(fast), impact::ref::Verdict::pass);  // both non_finite: settled
  // the given results: the fast path's, with row 1 claimed ok
  rows.has_given = true;
  rows.given = fast.fast;
  rows.given.status[1] = static_cast<std::uint8_t>(Status::ok);
  for (auto& c : rows.given.real) c[1] = 0.5;
  spec.given = true;
  const impact::ref::CompareReport rep = impact::ref::compare(spec, rows, nullptr);
  EXPECT_EQ(rep.both_ok, 2u);
  EXPECT_EQ(rep.ref_unresolved, 1u);
  ASSERT_EQ(rep.unverified.size(), 1u);
  EXPECT_EQ(rep.unverified[0], 1u);
  EXPECT_TRUE(rep.failures.empty());
  EXPECT_EQ(impact::ref::verdict(rep), impact::ref::Verdict::unverified);
  const std::string json = impact::ref::report_json(spec, rows, rep, 0, 1);
  EXPECT_NE(json.find("\"verdict\": \"unverified\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"ref_unresolved\": 1"), std::string::npos) << json;
}
