// One law on raw bytes (law_input.hpp), in double and in float: compiled once per law with
// -DIMPACT_FUZZ_LAW=<Law struct> (tests/fuzz/CMakeLists.txt: fuzz_law_<name>).
//
// Invariants of every outcome (a broken one is a finding):
//   - the status is one of Status, the step count is >= 0, the mode sequence is well formed;
//   - status ok: every parameter the law reads and W, n, v0 are finite; P, vf, dE and In_c are
//     finite, no aux scalar is NaN (aghili's mu_star is inf when uncoupled, by design);
//   - status ok: the outcome is admissible, recomputed here on the instance in its given units
//     (the law checked its own rescaled copy, before its outcome was scaled back):
//     admissibility(p, r, may_gain) == 0 with p validated (unit normal), may_gain only for aghili
//     outside its region (41), judged from the bounds it reports (aux 1-3).
// Time per input is bounded by the steps (1..300) and the laws' own iteration bounds; libFuzzer's
// -timeout catches a loop that is not.
#include <cmath>
#include <cstdio>
#include <string>
#include <type_traits>

#include "fuzz_common.hpp"
#include "impact/admissible.hpp"
#include "impact/laws/all.hpp"
#include "law_input.hpp"

#ifndef IMPACT_FUZZ_LAW
#error "compile with -DIMPACT_FUZZ_LAW=<law struct>, e.g. JiaLaw"
#endif

namespace impact::fuzz {
namespace {

using Law = IMPACT_FUZZ_LAW;

template <class T>
bool finite_inputs(const ContactProblem<T>& p, ParamUse use) {
  using std::isfinite;
  return isfinite(p.W.xx) && isfinite(p.W.xy) && isfinite(p.W.xz) && isfinite(p.W.yy) && isfinite(p.W.yz) && isfinite(p.W.zz) &&
         isfinite(p.n.x) && isfinite(p.n.y) && isfinite(p.n.z) && isfinite(p.v0.x) && isfinite(p.v0.y) && isfinite(p.v0.z) &&
         isfinite(p.mu) && (!use.e || isfinite(p.e)) && (!use.e_t || isfinite(p.e_t)) && (!use.eta0 || isfinite(p.eta0));
}

bool modes_well_formed(ModeSeq m) {
  bool ended = false;
  for (int k = 0; k < 8; ++k) {
    const unsigned nib = (m.bits >> (4 * k)) & 0xFu;
    if (nib > 3) return false;
    if (nib == 0) ended = true;
    else if (ended) return false;  // a mode after the end of the sequence
  }
  return true;
}

template <class T>
bool may_gain(const ContactProblem<T>& p, const Result<T>& r) {
  if constexpr (std::is_same_v<Law, AghiliLaw>) {
    AghiliBounds<T> b{};
    b.mu_cr = r.aux[1];
    b.mu_star = r.aux[2];
    b.e_star = r.aux[3];
    return !aghili_admissible(b, p.mu, p.e);
  } else {
    return false;
  }
}

// The instance as a row of an `impact eval` table (docs/INTERFACE.md), for the report of a finding.
template <class T>
std::string instance_row(const ContactProblem<T>& p) {
  const double v[] = {double(p.W.xx), double(p.W.xy), double(p.W.xz), double(p.W.yy), double(p.W.yz), double(p.W.zz),
                      double(p.n.x),  double(p.n.y),  double(p.n.z),  double(p.v0.x), double(p.v0.y), double(p.v0.z),
                      double(p.mu),   double(p.e),    double(p.e_t),  double(p.eta0)};
  std::string row;
  char buf[40];
  for (int k = 0; k < 16; ++k) {
    std::snprintf(buf, sizeof buf, "%s%.17g", k ? "," : "", v[k]);
    row += buf;
  }
  return row;
}

// What is wrong with the outcome r of p ("" when nothing).
template <class T>
std::string broken(const ContactProblem<T>& p, const Result<T>& r) {
  char buf[512];
  const int st = static_cast<int>(r.status);
  if (st < 0 || st >= static_cast<int>(Status::count_)) return "status " + std::to_string(st) + " out of range";
  if (r.steps < 0) return "negative step count " + std::to_string(r.steps);
  if (!modes_well_formed(r.modes)) return "malformed mode sequence " + std::to_string(r.modes.bits);
  if (r.status != Status::ok) return "";
  if (!finite_inputs(p, Law::use())) return "status ok on a non-finite input";
  using std::isfinite;
  const bool finite = isfinite(r.P.x) && isfinite(r.P.y) && isfinite(r.P.z) && isfinite(r.vf.x) && isfinite(r.vf.y) &&
                      isfinite(r.vf.z) && isfinite(r.dE) && isfinite(r.In_c);
  if (!finite) return "status ok with a non-finite output";
  for (int k = 0; k < kAux; ++k)
    if (std::isnan(r.aux[k])) return "status ok with aux[" + std::to_string(k) + "] NaN";
  // admissibility() judges a validated instance (unit normal): n normalised in T as the law did,
  // on n scaled to max|n| in [1, 2) by a power of two first (impact/scale.hpp), so the same bits.
  // On the raw n, the cone test of an instance with mu * eps >> tol (mu ~1e15 in double, ~1e8 in
  // float) flips with the last bit of n; and |n| beyond ~1e154 (1.8e19 in float) overflows n.n,
  // where validate() would leave n = 0 and admissibility() pass every outcome.
  ContactProblem<T> q = p;
  q.n = pow2_scale(q.n, -exponent_of(max_abs3(q.n)));
  if (validate(q, Law::use()) == Status::non_finite) return "status ok on a non-finite input";
  const bool gain = may_gain(q, r);
  const unsigned fail = admissibility(q, r, gain);
  if (fail == kAdmissOk) return "";
  std::snprintf(buf, sizeof buf,
                "status ok but inadmissible (fail bits 0x%x: 1 tensile, 2 cone, 4 approach, 8 energy; "
                "may_gain %d)",
                fail, int(gain));
  return buf;
}

template <class T>
void check(const ContactProblem<T>& p, const LawOptions& opt) {
  const Result<T> r = Law::eval(p, opt);
  const std::string what = broken(p, r);
  if (what.empty()) return;
  fuzz_fail(
      "%s/%s: %s\n--steps %d --integrator %s\n"
      "W_xx,W_xy,W_xz,W_yy,W_yz,W_zz,n_x,n_y,n_z,v_x,v_y,v_z,mu,e,e_t,eta0\n%s\n"
      "status %s P (%.17g %.17g %.17g) vf (%.17g %.17g %.17g) dE %.17g In_c %.17g "
      "aux (%.17g %.17g %.17g %.17g %.17g) steps %d modes 0x%x",
      Law::name, std::is_same_v<T, double> ? "double" : "float", what.c_str(), int(opt.steps),
      opt.integrator == Integrator::euler ? "euler" : "rk4", instance_row(p).c_str(), status_name(r.status), double(r.P.x),
      double(r.P.y), double(r.P.z), double(r.vf.x), double(r.vf.y), double(r.vf.z), double(r.dE), double(r.In_c),
      double(r.aux[0]), double(r.aux[1]), double(r.aux[2]), double(r.aux[3]), double(r.aux[4]), int(r.steps),
      unsigned(r.modes.bits));
}

ContactProblem<float> to_float(const ContactProblem<double>& p) { return problem_cast<float>(p); }

}  // namespace
}  // namespace impact::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace impact::fuzz;
  const LawInput in = decode_law_input(data, size);
  check<double>(in.p, in.opt);
  check<float>(to_float(in.p), in.opt);
  return 0;
}
