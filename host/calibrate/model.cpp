#include "calibrate/model.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "impact/rmath.hpp"
#include "io/cancel.hpp"
#include "io/csv.hpp"

namespace impact::calibrate {

namespace {

constexpr double kLogSqrt2Pi = 0.91893853320467274178;

int param_index(const systems::ScenarioInfo& sc, const std::string& name, const std::string& what) {
  const int k = sc.index_of(name);
  if (k < 0) {
    std::string known;
    for (const systems::ScenarioParam& p : sc.params) known += (known.empty() ? "" : ", ") + std::string(p.name);
    throw std::invalid_argument(what + " '" + name + "' is no parameter of scenario " + sc.name + " (known: " + known + ")");
  }
  return k;
}

// The field of a contact-space instance that a law parameter is copied to; null for the others.
double ContactProblem<double>::*law_field(const std::string& name) {
  if (name == "mu") return &ContactProblem<double>::mu;
  if (name == "e") return &ContactProblem<double>::e;
  if (name == "e_t") return &ContactProblem<double>::e_t;
  if (name == "eta0") return &ContactProblem<double>::eta0;
  return nullptr;
}

}  // namespace

std::string noise_name(const std::string& output) { return "sigma_" + output; }
std::string noise_output(const std::string& name) { return name.rfind("sigma_", 0) == 0 ? name.substr(6) : ""; }

bool outside_domain(Status s) {
  return s == Status::no_approach || s == Status::W_not_spd || s == Status::bad_normal || s == Status::param_out_of_range ||
         s == Status::not_planar;
}

Model::Model(const systems::ScenarioInfo& sc, const engine::LawInfo& law, engine::Backend backend, engine::Precision precision,
             const LawOptions& opt, const std::vector<std::pair<std::string, double>>& fixed, std::vector<design::ParamSpec> free,
             Experiments data)
    : sc_(sc),
      backend_(backend),
      eval_(sc, law, backend, precision, engine::stoppable(opt)),
      free_(std::move(free)),
      data_(std::move(data)),
      piece_(backend == engine::Backend::cuda ? kFirstGpuPieceRows : kFirstPieceRows) {
  base_.resize(sc.params.size());
  for (std::size_t k = 0; k < base_.size(); ++k) base_[k] = sc.params[k].value;
  for (const auto& [name, v] : fixed) base_[static_cast<std::size_t>(param_index(sc, name, "fixed parameter"))] = v;
  if (free_.empty()) throw std::invalid_argument("a calibration needs at least one free parameter");
  for (const design::ParamSpec& p : free_) {
    if (p.kind == design::ParamKind::fixed || p.kind == design::ParamKind::linspace)
      throw std::invalid_argument("params." + p.name + ": a free parameter's prior is a distribution (" +
                                  design::param_kind_name(p.kind) + " has no density)");
    const std::string of = noise_output(p.name);
    const bool noise = !of.empty() && std::find(data_.observed.begin(), data_.observed.end(), of) != data_.observed.end();
    free_idx_.push_back(noise ? -1 : param_index(sc, p.name, "free parameter"));
  }
  noise_of_.assign(data_.observed.size(), -1);
  for (std::size_t d = 0; d < free_.size(); ++d)
    if (free_idx_[d] < 0)
      noise_of_[static_cast<std::size_t>(std::find(data_.observed.begin(), data_.observed.end(), noise_output(free_[d].name)) -
                                         data_.observed.begin())] = static_cast<int>(d);
  for (const std::string& c : data_.conditions) {
    cond_idx_.push_back(param_index(sc, c, "condition"));
    for (const design::ParamSpec& p : free_)
      if (p.name == c) throw std::invalid_argument("'" + c + "' is both a free parameter and a condition of the data");
  }
  for (const std::string& o : data_.observed) {
    const int j = eval_.column(o);
    if (j < 0 || eval_.columns()[static_cast<std::size_t>(j)].kind != study::ColKind::real) {
      std::string known;
      for (const study::StudyColumn& col : eval_.columns())
        if (col.kind == study::ColKind::real) known += (known.empty() ? "" : ", ") + col.name;
      throw std::invalid_argument("observed '" + o + "' is no output of " + law.name + " in scenario " + sc.name +
                                  " (known: " + known + ")");
    }
    obs_col_.push_back(j);
  }
  if (data_.observed.empty()) throw std::invalid_argument("the data observe no output");
  if (data_.n == 0) throw std::invalid_argument("the data hold no experiment");
  const std::size_t no = data_.observed.size();
  if (data_.cond.size() != data_.n * data_.conditions.size() || data_.obs.size() != data_.n * no ||
      data_.sigma.size() != data_.n * no)
    throw std::invalid_argument("the data's tables do not match its experiments");
  for (std::size_t i = 0; i < data_.sigma.size(); ++i) {
    if (noise_of_[i % no] >= 0) continue;  // the point's
    if (!(data_.sigma[i] > 0) || !std::isfinite(data_.sigma[i]))
      throw std::invalid_argument("experiment " + std::to_string(i / no + 1) + ": the uncertainty of " + data_.observed[i % no] +
                                  " must be finite and > 0");
    log_norm_ -= rmath::log(data_.sigma[i]) + kLogSqrt2Pi;
  }
  law_only_ = true;
  for (std::size_t d = 0; d < free_.size(); ++d) law_only_ = law_only_ && (free_idx_[d] < 0 || law_field(free_[d].name));
  reuse_ = law_only_;
  if (law_only_) {  // each experiment's instance, once (the free parameters at their defaults)
    study::Chunk<double> ch;
    ch.resize(data_.n, 0, base_.size());
    ch.m = data_.n;
    for (std::size_t i = 0; i < data_.n; ++i) experiment_row(i, &ch.values[i * base_.size()]);
    ch.build_instances(sc_);
    exp_probs_ = ch.probs;
    exp_status_ = ch.build_status;
  }
}

double Model::log_prior(const double* theta) const {
  double lp = 0;
  for (std::size_t k = 0; k < free_.size(); ++k) lp += free_[k].log_pdf(theta[k]);
  return lp;
}

void Model::experiment_row(std::size_t i, double* v) const {
  const std::size_t C = cond_idx_.size();
  std::copy(base_.begin(), base_.end(), v);
  for (std::size_t c = 0; c < C; ++c) v[cond_idx_[c]] = data_.cond[i * C + c];
}

std::string Model::why_not_finite(const double* theta) {
  std::vector<double> out;
  std::vector<std::uint8_t> status;
  predict(theta, 1, out, status);
  const std::size_t E = data_.n, O = obs_col_.size();
  std::vector<std::size_t> count(static_cast<std::size_t>(Status::count_), 0);
  for (std::uint8_t s : status) ++count[s];
  std::string said;
  for (std::size_t k = 1; k < count.size(); ++k)
    if (count[k]) said += (said.empty() ? "" : ", ") + std::to_string(count[k]) + " " + status_name(static_cast<Status>(k));
  if (!said.empty())
    return "the law's statuses on the " + std::to_string(E) + " experiments: " + said + " (ok: " + std::to_string(count[0]) + ")";
  for (std::size_t j = 0; j < O; ++j)
    if (noise_of_[j] >= 0 && !(theta[static_cast<std::size_t>(noise_of_[j])] > 0))
      return "the noise sd " + free_[static_cast<std::size_t>(noise_of_[j])].name + " is not > 0";
  double worst = -1;
  std::size_t wi = 0, wj = 0;
  for (std::size_t i = 0; i < E; ++i)
    for (std::size_t j = 0; j < O; ++j) {
      const double sd = noise_of_[j] >= 0 ? theta[static_cast<std::size_t>(noise_of_[j])] : data_.sigma[i * O + j];
      const double z = std::fabs(data_.obs[i * O + j] - out[i * O + j]) / sd;
      if (!(z <= worst)) worst = z, wi = i, wj = j;  // NaN or inf first
      if (std::isnan(z)) break;
    }
  std::string s =
      "every experiment is evaluated (ok), but experiment " + std::to_string(wi + 1) + "'s " + data_.observed[wj] + " = ";
  io::append_number(s, data_.obs[wi * O + wj]);
  if (std::isfinite(worst)) {
    s += " lies ";
    io::append_number(s, worst);
  } else {
    s += " lies beyond 1.8e308";
  }
  s += " standard deviations from the model's ";
  io::append_number(s, out[wi * O + wj]);
  return s +
         (std::isfinite(0.5 * worst * worst) ? "" : ": its square overflows, the log likelihood is -inf (a typo in the data?)");
}

double Model::row_bytes() const {
  // values and instances (the model's and the backend's chunk), outputs (the evaluator's rows and
  // the backend's columns), statuses, the observed outputs kept
  const double P = static_cast<double>(base_.size()), C = static_cast<double>(eval_.columns().size());
  return 2 * P * sizeof(double) + 2 * sizeof(ContactProblem<double>) + 2 * C * sizeof(double) +
         static_cast<double>(obs_col_.size()) * sizeof(double) + 4;
}

std::size_t Model::piece_rows_limit(double budget) const {
  const double fits = budget / 2 / row_bytes();
  return static_cast<std::size_t>(std::max(1.0, std::min(static_cast<double>(kMaxPieceRows), fits)));
}

template <class Take>
void Model::evaluate(const double* theta, std::size_t n, std::size_t e0, std::size_t e1, Take&& take) {
  const std::size_t R = n * (e1 - e0);
  const bool group = group_ && group_->size() > 1;
  const std::size_t limit = group ? kGroupPieceRows : piece_rows_limit(design::memory_budget_bytes());
  for (std::size_t lo = 0; lo < R;) {
    const std::size_t m = std::min({R - lo, group ? kGroupPieceRows : piece_, limit});
    const auto t0 = std::chrono::steady_clock::now();
    const std::uint64_t epoch = io::stop_epoch();
    evaluate_piece(theta, lo, lo + m, e0, e1);
    io::check_cancelled(epoch);  // a stop during the piece may have ended its instances early (engine::stoppable)
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    take(lo, lo + m);
    lo += m;
    if (!group && m == piece_) {  // the next piece about kPieceSeconds long, growing at most 8x a piece
      const bool gpu = backend_ == engine::Backend::cuda;
      const double target = gpu ? kGpuPieceSeconds : kPieceSeconds;
      const double fits = seconds > 0 ? static_cast<double>(m) * target / seconds : 8.0 * static_cast<double>(m);
      piece_ = static_cast<std::size_t>(std::clamp(std::min(fits, 8.0 * static_cast<double>(m)),
                                                   gpu ? static_cast<double>(kFirstGpuPieceRows) : 64.0,
                                                   static_cast<double>(kMaxPieceRows)));
    }
  }
}

void Model::evaluate_piece(const double* theta, std::size_t lo, std::size_t hi, std::size_t e0, std::size_t e1) {
  const std::size_t P = base_.size(), Ew = e1 - e0, D = free_idx_.size(), m = hi - lo;
  values_.resize(m * P);
  for (std::size_t r = 0; r < m; ++r) {
    const std::size_t p = (lo + r) / Ew, i = e0 + (lo + r) % Ew;
    double* v = &values_[r * P];
    experiment_row(i, v);
    for (std::size_t d = 0; d < D; ++d)
      if (free_idx_[d] >= 0) v[free_idx_[d]] = theta[p * D + d];
  }
  if (reuse_) {
    probs_.resize(m);
    status_.resize(m);
    for (std::size_t r = 0; r < m; ++r) {
      const std::size_t p = (lo + r) / Ew, i = e0 + (lo + r) % Ew;
      ContactProblem<double>& q = probs_[r];
      q = exp_probs_[i];
      status_[r] = exp_status_[i];
      if (exp_status_[i] != 0) continue;  // the placeholder stays
      for (std::size_t d = 0; d < D; ++d)
        if (free_idx_[d] >= 0) q.*law_field(free_[d].name) = theta[p * D + d];
    }
  }
  const std::size_t O = obs_col_.size(), ncol = eval_.columns().size();
  const int ranks = group_ ? group_->size() : 1, me = group_ ? group_->rank() : 0;
  auto share = [&](int r) { return m * static_cast<std::size_t>(r) / static_cast<std::size_t>(ranks); };
  const std::size_t a = share(me), b = share(me + 1);
  evaluate_rows(a, b);
  rows_ += m;
  row_status_.resize(m);
  row_obs_.resize(m * O);
  for (std::size_t r = a; r < b; ++r) {  // this process's rows: their statuses and observed outputs
    row_status_[r] = rows_out_.status[r - a];
    for (std::size_t j = 0; j < O; ++j)
      row_obs_[r * O + j] = rows_out_.out[(r - a) * ncol + static_cast<std::size_t>(obs_col_[j])];
  }
  if (ranks == 1) return;
  // each process's share: its rows' status bytes, then their observed outputs (x86-64 doubles, as
  // every process reads them)
  std::string mine(reinterpret_cast<const char*>(row_status_.data() + a), b - a);
  mine.append(reinterpret_cast<const char*>(row_obs_.data() + a * O), (b - a) * O * sizeof(double));
  const std::vector<std::string> all = group_->allgather(mine, "a calibration batch's rows");
  for (int p = 0; p < ranks; ++p) {
    const std::string& bytes = all[static_cast<std::size_t>(p)];
    const std::size_t from = share(p), k = share(p + 1) - from;
    if (bytes.size() != k * (1 + O * sizeof(double)))
      throw std::runtime_error("calibrate: a process's share of a batch is corrupt");
    std::memcpy(row_status_.data() + from, bytes.data(), k);
    std::memcpy(row_obs_.data() + from * O, bytes.data() + k, k * O * sizeof(double));
  }
}

void Model::evaluate_rows(std::size_t lo, std::size_t hi) {
  const std::size_t P = base_.size();
  if (hi == lo) return;  // a process with no row of a small piece
  if (reuse_)
    law_s_ += eval_.evaluate_built(values_.data() + lo * P, probs_.data() + lo, status_.data() + lo, hi - lo, rows_out_);
  else law_s_ += eval_.evaluate(values_.data() + lo * P, hi - lo, rows_out_);
}

void Model::likelihoods(const double* theta, std::size_t n, double* out) {
  const std::size_t E = data_.n, O = obs_col_.size(), D = free_.size();
  constexpr double kNoValue = -std::numeric_limits<double>::infinity();
  // per point: the sum so far, its normalisation, and whether it is decided (-inf or NaN) before the end
  std::vector<double> ll(n, 0.0), norm(n, log_norm_);
  std::vector<std::uint8_t> decided(n, 0);
  for (std::size_t q = 0; q < n; ++q)
    for (std::size_t j = 0; j < O; ++j)
      if (noise_of_[j] >= 0) {  // a noise parameter: its normalisation over the experiments
        const double sd = theta[q * D + static_cast<std::size_t>(noise_of_[j])];
        if (!(sd > 0)) {
          out[q] = kNoValue;
          decided[q] = 1;
          break;
        }
        norm[q] -= static_cast<double>(E) * (rmath::log(sd) + kLogSqrt2Pi);
      }
  evaluate(theta, n, 0, E, [&](std::size_t lo, std::size_t hi) {
    for (std::size_t row = lo; row < hi; ++row) {
      const std::size_t q = row / E, i = row % E;
      if (decided[q]) continue;
      const Status s = static_cast<Status>(row_status_[row - lo]);
      if (s != Status::ok) {
        out[q] = outside_domain(s) ? kNoValue : std::nan("");
        decided[q] = 1;
        continue;
      }
      for (std::size_t j = 0; j < O; ++j) {
        const double m = row_obs_[(row - lo) * O + j];
        const double sd = noise_of_[j] >= 0 ? theta[q * D + static_cast<std::size_t>(noise_of_[j])] : data_.sigma[i * O + j];
        const double z = (data_.obs[i * O + j] - m) / sd;
        ll[q] += -0.5 * z * z;
      }
      if (std::isnan(ll[q])) {  // no later experiment changes a NaN
        out[q] = ll[q] + norm[q];
        decided[q] = 1;
      }
    }
  });
  for (std::size_t q = 0; q < n; ++q)
    if (!decided[q]) out[q] = ll[q] + norm[q];
}

void Model::log_likelihood(const double* theta, std::size_t n, double* out) {
  if (n == 0) return;
  likelihoods(theta, n, out);
}

void Model::log_posterior(const double* theta, std::size_t n, double* out) {
  const std::size_t D = free_.size();
  // only the points inside the prior's support go to the law
  std::vector<double> inside;
  std::vector<std::size_t> which;
  for (std::size_t p = 0; p < n; ++p) {
    out[p] = log_prior(theta + p * D);
    if (out[p] > -std::numeric_limits<double>::infinity()) {
      inside.insert(inside.end(), theta + p * D, theta + (p + 1) * D);
      which.push_back(p);
    }
  }
  if (which.empty()) return;
  std::vector<double> ll(which.size());
  likelihoods(inside.data(), which.size(), ll.data());
  for (std::size_t q = 0; q < which.size(); ++q) out[which[q]] += ll[q];
}

void Model::predict(const double* theta, std::size_t n, std::vector<double>& out, std::vector<std::uint8_t>& status,
                    std::size_t first, std::size_t last) {
  last = std::min(last, data_.n);
  if (first > last)
    throw std::invalid_argument("predict: experiments [" + std::to_string(first) + ", " + std::to_string(last) +
                                ") are no range of the data");
  const std::size_t O = obs_col_.size(), R = n * (last - first);
  out.assign(R * O, std::nan(""));
  status.assign(R, 0);
  if (R == 0) return;
  evaluate(theta, n, first, last, [&](std::size_t lo, std::size_t hi) {
    for (std::size_t r = lo; r < hi; ++r) {
      status[r] = row_status_[r - lo];
      if (status[r] == 0)
        for (std::size_t j = 0; j < O; ++j) out[r * O + j] = row_obs_[(r - lo) * O + j];
    }
  });
}

}  // namespace impact::calibrate
