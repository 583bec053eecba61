#include "infer/fit.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <stdexcept>

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <nlopt.h>

namespace impact::infer {

namespace {

struct Algorithm {
  const char* name;
  nlopt_algorithm id;
};
// local and derivative-free, with bounds, deterministic, and no libm transcendental (fit.hpp)
constexpr Algorithm kAlgorithms[] = {
    {"bobyqa", NLOPT_LN_BOBYQA}, {"neldermead", NLOPT_LN_NELDERMEAD}, {"sbplx", NLOPT_LN_SBPLX}, {"cobyla", NLOPT_LN_COBYLA}};

nlopt_algorithm algorithm_id(const std::string& name) {
  for (const Algorithm& a : kAlgorithms)
    if (name == a.name) return a.id;
  throw std::invalid_argument("fit.algorithm: unknown algorithm '" + name + "' (known: " + fit_algorithm_list() + ")");
}

const char* result_name(nlopt_result r) {
  switch (r) {
    case NLOPT_SUCCESS: return "success";
    case NLOPT_STOPVAL_REACHED: return "stopval";
    case NLOPT_FTOL_REACHED: return "ftol";
    case NLOPT_XTOL_REACHED: return "xtol";
    case NLOPT_MAXEVAL_REACHED: return "max_evals";
    case NLOPT_MAXTIME_REACHED: return "max_time";
    case NLOPT_ROUNDOFF_LIMITED: return "roundoff";
    case NLOPT_FORCED_STOP: return "forced_stop";
    case NLOPT_INVALID_ARGS: return "invalid_args";
    case NLOPT_OUT_OF_MEMORY: return "out_of_memory";
    default: return "failure";
  }
}

// What NLopt minimises: -log p of one point, kNoValue where log p has none; the best point met is
// kept (an optimiser stopped by max_evals or a failure may return another).
struct Objective {
  const LogDensity* f = nullptr;
  std::uint64_t evaluations = 0, failed = 0;
  double best = HUGE_VAL;  // of -log p
  std::vector<double> best_x;
  nlopt_opt opt = nullptr;
  std::exception_ptr error;  // an exception of f (a Ctrl-C from Python, a process group's failure)
};

double objective(unsigned n, const double* x, double* grad, void* data) {
  (void)grad;  // derivative-free algorithms only: NLopt passes none
  Objective& o = *static_cast<Objective*>(data);
  double lp = 0;
  try {  // no exception may cross NLopt's C frames: it is kept, NLopt stopped, and it is rethrown after
    (*o.f)(x, 1, &lp);
  } catch (...) {
    o.error = std::current_exception();
    nlopt_force_stop(o.opt);
    return kNoValue;
  }
  ++o.evaluations;
  if (!std::isfinite(lp)) {
    ++o.failed;
    return kNoValue;
  }
  if (-lp < o.best) o.best = -lp, o.best_x.assign(x, x + n);
  return -lp;
}

FitStart run_start(const LogDensity& f, std::size_t D, const double* from, const std::vector<double>& lo,
                   const std::vector<double>& hi, const std::vector<double>& scale, const FitOptions& o, std::uint64_t& failed) {
  FitStart s;
  s.from.assign(from, from + D);
  nlopt_opt opt = nlopt_create(algorithm_id(o.algorithm), static_cast<unsigned>(D));
  if (!opt) throw std::runtime_error("fit: NLopt could not create its optimiser");
  Objective obj;
  obj.f = &f;
  obj.opt = opt;
  std::vector<double> step(D);
  for (std::size_t k = 0; k < D; ++k) step[k] = std::min(0.1 * scale[k], 0.25 * (hi[k] - lo[k]));
  const std::uint64_t evals = o.max_evals ? o.max_evals : 400 * (D + 1) * (D + 1);
  nlopt_set_min_objective(opt, objective, &obj);
  nlopt_set_lower_bounds(opt, lo.data());
  nlopt_set_upper_bounds(opt, hi.data());
  nlopt_set_initial_step(opt, step.data());
  nlopt_set_xtol_rel(opt, o.xtol);
  nlopt_set_ftol_abs(opt, o.ftol);
  nlopt_set_maxeval(opt, static_cast<int>(std::min<std::uint64_t>(evals, 1u << 30)));
  std::vector<double> x = s.from;
  // the start itself first: an end is never below its start (BOBYQA moves a start that lies within
  // its first step of a bound onto the bound before it evaluates anything)
  double fx = objective(static_cast<unsigned>(D), x.data(), nullptr, &obj);
  const nlopt_result r = obj.error ? NLOPT_FORCED_STOP : nlopt_optimize(opt, x.data(), &fx);
  nlopt_destroy(opt);
  if (obj.error) std::rethrow_exception(obj.error);
  s.result = result_name(r);
  s.evaluations = obj.evaluations;
  failed += obj.failed;
  if (obj.best_x.empty()) {  // no point with a value: the start's own (it had one: start_from_prior)
    s.to = s.from;
    s.logp = -HUGE_VAL;
  } else {
    s.to = obj.best_x;
    s.logp = -obj.best;
  }
  return s;
}

// The Hessian of f at x by central differences with steps h, from one batch; false when a point has
// no value. r.evaluations and r.failed_evaluations count the points.
bool hessian(const LogDensity& f, const std::vector<double>& x, const std::vector<double>& h, Eigen::MatrixXd& H, FitResult& r) {
  const std::size_t D = x.size();
  std::vector<double> pts;
  auto add = [&](std::size_t k, double sk, std::size_t l, double sl) {
    const std::size_t at = pts.size();
    pts.insert(pts.end(), x.begin(), x.end());
    if (k < D) pts[at + k] += sk * h[k];
    if (l < D) pts[at + l] += sl * h[l];
  };
  add(D, 0, D, 0);
  for (std::size_t k = 0; k < D; ++k) add(k, 1, D, 0), add(k, -1, D, 0);
  for (std::size_t k = 0; k < D; ++k)
    for (std::size_t l = k + 1; l < D; ++l) add(k, 1, l, 1), add(k, 1, l, -1), add(k, -1, l, 1), add(k, -1, l, -1);
  const std::size_t n = pts.size() / D;
  std::vector<double> v(n);
  f(pts.data(), n, v.data());
  std::uint64_t nf = 0;
  for (double e : v) nf += !std::isfinite(e);
  r.evaluations += n;
  r.failed_evaluations += nf;
  if (nf) return false;
  H.resize(static_cast<Eigen::Index>(D), static_cast<Eigen::Index>(D));
  std::size_t i = 1;
  for (std::size_t k = 0; k < D; ++k, i += 2) H(k, k) = (v[i] - 2 * v[0] + v[i + 1]) / (h[k] * h[k]);
  for (std::size_t k = 0; k < D; ++k)
    for (std::size_t l = k + 1; l < D; ++l, i += 4)
      H(k, l) = H(l, k) = (v[i] - v[i + 1] - v[i + 2] + v[i + 3]) / (4 * h[k] * h[l]);
  return true;
}

}  // namespace

const std::vector<std::string>& fit_algorithms() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const Algorithm& a : kAlgorithms) v.emplace_back(a.name);
    return v;
  }();
  return names;
}

std::string fit_algorithm_list() {
  std::string known;
  for (const std::string& n : fit_algorithms()) known += (known.empty() ? "" : ", ") + n;
  return known;
}

void laplace(const LogDensity& f, const std::vector<double>& x, const std::vector<double>& lo, const std::vector<double>& hi,
             const std::vector<double>& scale, FitResult& r) {
  const std::size_t D = x.size();
  const auto fail = [&](const std::string& why) {  // no approximation: nothing of a pass stays
    r.laplace_note = why;
    r.cov.clear();
    r.sd.assign(D, std::nan(""));
  };
  r.cov.clear();
  r.sd.assign(D, std::nan(""));
  r.step.assign(D, 0);
  std::vector<double> want(D);
  for (std::size_t k = 0; k < D; ++k) want[k] = 1e-4 * scale[k];
  for (int pass = 0; pass < 2; ++pass) {
    for (std::size_t k = 0; k < D; ++k) {
      const double room = std::min(x[k] - lo[k], hi[k] - x[k]);  // both points of a step stay in the box
      if (!(room > 1e-9 * scale[k]))
        return fail("the estimate of parameter " + std::to_string(k + 1) +
                    " is at the bound of its prior: no normal approximation there");
      r.step[k] = std::min(want[k], 0.5 * room);
      if (!(x[k] + r.step[k] != x[k]))
        return fail("the posterior of parameter " + std::to_string(k + 1) +
                    " is narrower than double precision resolves at its estimate");
    }
    Eigen::MatrixXd H;
    if (!hessian(f, x, r.step, H, r))
      return fail(
          "the log posterior has no value at some point of the Hessian's differences (a row the law "
          "refused or failed next to the estimate)");
    const Eigen::LLT<Eigen::MatrixXd> llt(-H);
    if (llt.info() != Eigen::Success)
      return fail(
          "minus the Hessian of the log posterior is not positive definite at the estimate: not a "
          "strict maximum (a flat direction, a ridge, or a kink of the law's outputs)");
    const Eigen::MatrixXd S = llt.solve(Eigen::MatrixXd::Identity(static_cast<Eigen::Index>(D), static_cast<Eigen::Index>(D)));
    r.cov.assign(D * D, 0);
    for (std::size_t k = 0; k < D; ++k)
      for (std::size_t l = 0; l < D; ++l) r.cov[k * D + l] = 0.5 * (S(k, l) + S(l, k));
    for (std::size_t k = 0; k < D; ++k) r.sd[k] = std::sqrt(r.cov[k * D + k]), want[k] = 0.1 * r.sd[k];
  }
  r.laplace_note.clear();
}

FitResult fit_map(const LogDensity& f, std::size_t D, const std::vector<double>& starts, const std::vector<double>& lo,
                  const std::vector<double>& hi, const std::vector<double>& scale, const FitOptions& o,
                  const std::function<void()>& after_start) {
  (void)algorithm_id(o.algorithm);  // an unknown one throws before anything runs
  if (D == 0 || starts.empty() || starts.size() % D || lo.size() != D || hi.size() != D || scale.size() != D)
    throw std::invalid_argument("fit: the starts, bounds and scales must have dim values per point");
  FitResult r;
  r.dim = D;
  const std::size_t n = starts.size() / D;
  for (std::size_t s = 0; s < n; ++s)
    for (std::size_t k = 0; k < D; ++k)
      if (!(starts[s * D + k] >= lo[k] && starts[s * D + k] <= hi[k]))
        throw std::invalid_argument("fit: start " + std::to_string(s + 1) + " is outside the box of parameter " +
                                    std::to_string(k + 1));
  for (std::size_t s = 0; s < n; ++s) {
    r.starts.push_back(run_start(f, D, &starts[s * D], lo, hi, scale, o, r.failed_evaluations));
    r.evaluations += r.starts.back().evaluations;
    if (r.starts.back().logp > r.starts[r.best].logp) r.best = s;
    if (after_start) after_start();
  }
  r.map = r.starts[r.best].to;
  r.logp = r.starts[r.best].logp;
  if (std::isfinite(r.logp))
    for (const FitStart& s : r.starts) r.agree += s.logp >= r.logp - kAgreeLogp;
  r.lo = lo;
  r.hi = hi;
  if (o.laplace && std::isfinite(r.logp)) {
    laplace(f, r.map, lo, hi, scale, r);
  } else {
    r.sd.assign(D, std::nan(""));
    r.laplace_note = o.laplace ? "no start found a point with a value" : "not asked (fit.laplace = false)";
  }
  return r;
}

}  // namespace impact::infer
