#include "calibrate/model.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "impact/rmath.hpp"

namespace impact::calibrate {

namespace {

constexpr double kLogSqrt2Pi = 0.91893853320467274178;

int param_index(const systems::ScenarioInfo& sc, const std::string& name, const std::string& what) {
  const int k = sc.index_of(name);
  if (k < 0) {
    std::string known;
    for (const systems::ScenarioParam& p : sc.params) known += (known.empty() ? "" : ", ") + std::string(p.name);
    throw std::invalid_argument(what + " '" + name + "' is no parameter of scenario " + sc.name + " (known: " + known +
                                ")");
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
  return s == Status::no_approach || s == Status::W_not_spd || s == Status::bad_normal ||
         s == Status::param_out_of_range || s == Status::not_planar;
}

Model::Model(const systems::ScenarioInfo& sc, const engine::LawInfo& law, engine::Backend backend,
             engine::Precision precision, const LawOptions& opt,
             const std::vector<std::pair<std::string, double>>& fixed, std::vector<design::ParamSpec> free,
             Experiments data)
    : sc_(sc), backend_(backend), eval_(sc, law, backend, precision, opt), free_(std::move(free)), data_(std::move(data)) {
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
      throw std::invalid_argument("experiment " + std::to_string(i / no + 1) + ": the uncertainty of " +
                                  data_.observed[i % no] + " must be finite and > 0");
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

void Model::evaluate(const double* theta, std::size_t n) {
  const std::size_t P = base_.size(), E = data_.n, D = free_idx_.size();
  values_.resize(n * E * P);
  for (std::size_t p = 0; p < n; ++p)
    for (std::size_t i = 0; i < E; ++i) {
      double* v = &values_[(p * E + i) * P];
      experiment_row(i, v);
      for (std::size_t d = 0; d < D; ++d)
        if (free_idx_[d] >= 0) v[free_idx_[d]] = theta[p * D + d];
    }
  if (reuse_) {
    probs_.resize(n * E);
    status_.resize(n * E);
    for (std::size_t p = 0; p < n; ++p)
      for (std::size_t i = 0; i < E; ++i) {
        ContactProblem<double>& q = probs_[p * E + i];
        q = exp_probs_[i];
        status_[p * E + i] = exp_status_[i];
        if (exp_status_[i] != 0) continue;  // the placeholder stays
        for (std::size_t d = 0; d < D; ++d)
          if (free_idx_[d] >= 0) q.*law_field(free_[d].name) = theta[p * D + d];
      }
  }
  const std::size_t R = n * E, O = obs_col_.size(), ncol = eval_.columns().size();
  const int ranks = group_ ? group_->size() : 1, me = group_ ? group_->rank() : 0;
  auto share = [&](int r) { return R * static_cast<std::size_t>(r) / static_cast<std::size_t>(ranks); };
  const std::size_t lo = share(me), hi = share(me + 1);
  evaluate_rows(lo, hi);
  rows_ += R;
  row_status_.resize(R);
  row_obs_.resize(R * O);
  for (std::size_t r = lo; r < hi; ++r) {  // this process's rows: their statuses and observed outputs
    row_status_[r] = rows_out_.status[r - lo];
    for (std::size_t j = 0; j < O; ++j) row_obs_[r * O + j] = rows_out_.out[(r - lo) * ncol + static_cast<std::size_t>(obs_col_[j])];
  }
  if (ranks == 1) return;
  // each process's share: its rows' status bytes, then their observed outputs (x86-64 doubles, as
  // every process reads them)
  std::string mine(reinterpret_cast<const char*>(row_status_.data() + lo), hi - lo);
  mine.append(reinterpret_cast<const char*>(row_obs_.data() + lo * O), (hi - lo) * O * sizeof(double));
  const std::vector<std::string> all = group_->allgather(mine, "a calibration batch's rows");
  for (int p = 0; p < ranks; ++p) {
    const std::string& b = all[static_cast<std::size_t>(p)];
    const std::size_t from = share(p), m = share(p + 1) - from;
    if (b.size() != m * (1 + O * sizeof(double))) throw std::runtime_error("calibrate: a process's share of a batch is corrupt");
    std::memcpy(row_status_.data() + from, b.data(), m);
    std::memcpy(row_obs_.data() + from * O, b.data() + m, m * O * sizeof(double));
  }
}

void Model::evaluate_rows(std::size_t lo, std::size_t hi) {
  const std::size_t P = base_.size();
  if (hi == lo) return;  // a process with no row of a small batch
  if (reuse_)
    law_s_ += eval_.evaluate_built(values_.data() + lo * P, probs_.data() + lo, status_.data() + lo, hi - lo, rows_out_);
  else
    law_s_ += eval_.evaluate(values_.data() + lo * P, hi - lo, rows_out_);
}

double Model::point_log_likelihood(std::size_t q, const double* theta) const {
  const std::size_t E = data_.n, O = obs_col_.size();
  double ll = 0, norm = log_norm_;
  for (std::size_t j = 0; j < O; ++j)
    if (noise_of_[j] >= 0) {  // a noise parameter: its normalisation over the experiments
      const double sd = theta[noise_of_[j]];
      if (!(sd > 0)) return -std::numeric_limits<double>::infinity();
      norm -= static_cast<double>(E) * (rmath::log(sd) + kLogSqrt2Pi);
    }
  for (std::size_t i = 0; i < E && !std::isnan(ll); ++i) {
    const std::size_t row = q * E + i;
    const Status s = static_cast<Status>(row_status_[row]);
    if (s != Status::ok) return outside_domain(s) ? -std::numeric_limits<double>::infinity() : std::nan("");
    for (std::size_t j = 0; j < O; ++j) {
      const double m = row_obs_[row * O + j];
      const double sd = noise_of_[j] >= 0 ? theta[noise_of_[j]] : data_.sigma[i * O + j], z = (data_.obs[i * O + j] - m) / sd;
      ll += -0.5 * z * z;
    }
  }
  return ll + norm;
}

void Model::log_likelihood(const double* theta, std::size_t n, double* out) {
  if (n == 0) return;
  evaluate(theta, n);
  for (std::size_t q = 0; q < n; ++q) out[q] = point_log_likelihood(q, theta + q * free_.size());
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
  evaluate(inside.data(), which.size());
  for (std::size_t q = 0; q < which.size(); ++q) out[which[q]] += point_log_likelihood(q, &inside[q * D]);
}

void Model::predict(const double* theta, std::size_t n, std::vector<double>& out, std::vector<std::uint8_t>& status) {
  const std::size_t E = data_.n, O = obs_col_.size();
  out.assign(n * E * O, std::nan(""));
  status.assign(n * E, 0);
  if (n == 0) return;
  evaluate(theta, n);
  status = row_status_;
  for (std::size_t r = 0; r < n * E; ++r)
    if (status[r] == 0)
      for (std::size_t j = 0; j < O; ++j) out[r * O + j] = row_obs_[r * O + j];
}

}  // namespace impact::calibrate
