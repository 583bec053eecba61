// The statistical model of a calibration (docs/calibration.md): experiments, each an impact whose
// conditions set some of the scenario's parameters and whose outputs were observed; a law with
// free parameters under priors; a Gaussian measurement error, whose sd s_ij is given per experiment
// or per output, or is a free noise parameter "sigma_<output>" (the same for every experiment).
//
//   log p(theta | data) = sum_k log prior_k(theta_k)
//                       + sum_i sum_j [ -1/2 ((y_ij - m_ij(theta)) / s_ij)^2 - log s_ij - log sqrt(2 pi) ]
//
// m_ij(theta) is output j of the law on experiment i's row: the scenario's defaults, the fixed
// values, experiment i's conditions, then theta (study::RowEvaluator: the study's own evaluation).
// A batch of points is (points x experiments) rows, evaluated on the backend in pieces of rows in
// their order: a piece's memory is bounded whatever the batch (pieces of at most kMaxPieceRows, and
// of what memory allows), and after each piece the batch checks io::check_cancelled() (Python's
// Ctrl-C: one process's pieces are sized to take about kPieceSeconds each, and on the host the
// integrators end their instances at the stop, engine::stoppable, the piece dropped with the call). A row's outputs do not
// depend on the piece it is in, and each point's log likelihood is summed over its experiments in
// their order across pieces: the same bits for any pieces.
//
// Where the model has no value: a row the scenario or the law refuses as outside its domain
// (no_approach, W_not_spd, bad_normal, param_out_of_range, not_planar) has likelihood 0 (-inf: such a theta
// is as impossible as one outside the prior); a row that failed numerically (step_limit,
// non_finite, stalled, inconsistent, inadmissible) makes the point's log density NaN, which the
// sampler rejects and counts (EnsembleChain::failed_proposals).
//
// Over several processes (set_group: `impact calibrate` under mpirun, docs/distributed.md) every
// process holds the same model and calls it with the same points; each evaluates its contiguous share
// of a batch's rows, and the rows' statuses and observed outputs meet on every process (an
// allgather). A row's outputs do not depend on the batch it is in, so every process computes the same
// log densities, bit for bit, as one process would: the chain is the same for any process count.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "design/design.hpp"
#include "engine/options.hpp"
#include "resume/process_group.hpp"
#include "study/rows.hpp"

namespace impact::calibrate {

struct Experiments {
  std::vector<std::string> conditions;  // scenario parameters set per experiment
  std::vector<std::string> observed;    // output columns observed (study/columns.hpp names)
  std::size_t n = 0;                    // experiments
  std::vector<double> cond;             // n x conditions
  std::vector<double> obs;              // n x observed
  std::vector<double> sigma;            // n x observed: the measurement's standard deviation, > 0
};

// Pieces of a batch (see above). Over several processes every process uses kGroupPieceRows, so that
// the processes' collectives meet; on the GPU a piece is about kGpuPieceSeconds and at least
// kFirstGpuPieceRows (its rate needs large batches, and its integrators do not poll the stop).
constexpr std::size_t kMaxPieceRows = std::size_t(1) << 18, kFirstPieceRows = 256, kFirstGpuPieceRows = 4096,
                      kGroupPieceRows = std::size_t(1) << 16;
constexpr double kPieceSeconds = 0.04, kGpuPieceSeconds = 0.12;

class Model {
 public:
  // `fixed`: (name, value) of scenario parameters set for every experiment; `free`: the free
  // parameters with their priors (ParamSpec::name a scenario parameter, or sigma_<output> for an
  // observed output's noise sd, whose data sigma is then NaN). Throws
  // std::invalid_argument naming what is wrong: an unknown parameter or output, a parameter both
  // free and a condition, a prior without a density (fixed, linspace), a sigma that is not > 0.
  Model(const systems::ScenarioInfo& sc, const engine::LawInfo& law, engine::Backend backend, engine::Precision precision,
        const LawOptions& opt, const std::vector<std::pair<std::string, double>>& fixed, std::vector<design::ParamSpec> free,
        Experiments data);

  std::size_t dim() const { return free_.size(); }
  const std::vector<design::ParamSpec>& free() const { return free_; }
  const Experiments& data() const { return data_; }

  // Log prior of one point (-inf outside the support).
  double log_prior(const double* theta) const;
  // Log posterior (up to the evidence) of n points (n x dim): the sampler's LogDensity. A point
  // outside the prior's support is -inf without an evaluation.
  void log_posterior(const double* theta, std::size_t n, double* out);
  // Log likelihood of n points (n x dim), the prior left out: every point is evaluated, whatever its
  // prior (for a sampler that brings its own, e.g. emcee through impactbatch.log_likelihood).
  void log_likelihood(const double* theta, std::size_t n, double* out);
  // The model's outputs at n points (n x dim) on experiments [first, last) (default: all):
  // n x (last - first) x observed (NaN where a row is not ok), with each row's status
  // (n x (last - first)); one batch.
  void predict(const double* theta, std::size_t n, std::vector<double>& out, std::vector<std::uint8_t>& status,
               std::size_t first = 0, std::size_t last = std::size_t(-1));
  void predict(const double* theta, std::vector<double>& out, std::vector<std::uint8_t>& status) {
    predict(theta, 1, out, status);
  }
  // Why the log likelihood at theta (one point) is not finite, in words: the law's statuses on the
  // data that are not ok (counted by name), or, every row ok, the experiment and output farthest
  // from the model in standard deviations (a datum whose square overflows, a typo, gives -inf).
  std::string why_not_finite(const double* theta);
  // An estimate of the memory one row of a piece takes (the model's buffers and the backend's), and
  // the most rows a piece takes (kMaxPieceRows, or what half of `budget` bytes holds).
  double row_bytes() const;
  std::size_t piece_rows_limit(double budget) const;

  std::uint64_t rows_evaluated() const { return rows_; }
  // Whether the experiments' instances are built once and only their law parameters set per point
  // (every free parameter one of mu, e, e_t, eta0, which a scenario's build() only copies): the
  // same bits as building every row, without the scenario's geometry per row. On by default where
  // it applies; off builds every row (tests, benchmarks).
  bool reuses_instances() const { return reuse_; }
  void set_reuse_instances(bool on) { reuse_ = on && law_only_; }
  double law_seconds() const { return law_s_; }
  void reset_counters() { rows_ = 0, law_s_ = 0; }         // rows_evaluated and law_seconds from zero
  void restore_rows(std::uint64_t rows) { rows_ = rows; }  // a checkpoint's count, where a run goes on
  engine::Backend backend() const { return backend_; }
  // Shares every batch among the processes of g (null or one process: all rows here). Every process
  // must then make the same calls in the same order (they are collectives).
  void set_group(resume::ProcessGroup* g) { group_ = g; }
  // The free parameter that is observed output j's noise sd, or -1 (its sd is the data's).
  int noise_param(std::size_t j) const { return noise_of_[j]; }

 private:
  // The rows of points [0, n) on experiments [e0, e1), point-major, in pieces: each piece's rows
  // [lo, hi) of the batch evaluated (this process's share into rows_out_), their statuses and
  // observed outputs into row_status_ and row_obs_ (from index 0), then take(lo, hi).
  template <class Take>
  void evaluate(const double* theta, std::size_t n, std::size_t e0, std::size_t e1, Take&& take);
  // rows [lo, hi) of the batch into values_ (and probs_, status_ when reused), evaluated and shared
  void evaluate_piece(const double* theta, std::size_t lo, std::size_t hi, std::size_t e0, std::size_t e1);
  // rows [lo, hi) of values_ (and probs_, status_ when reused) into rows_out_
  void evaluate_rows(std::size_t lo, std::size_t hi);
  // The log likelihood of n points (-inf: a row outside the model's domain, or a noise parameter
  // <= 0; NaN: a row that failed), each summed over its experiments in order, piece after piece.
  void likelihoods(const double* theta, std::size_t n, double* out);
  // Experiment i's row before theta: the defaults, the fixed values, its conditions.
  void experiment_row(std::size_t i, double* v) const;
  const systems::ScenarioInfo& sc_;
  engine::Backend backend_;
  study::RowEvaluator eval_;
  std::vector<design::ParamSpec> free_;
  Experiments data_;
  std::vector<double> base_;                        // every parameter's value before conditions and theta
  std::vector<int> cond_idx_, free_idx_, obs_col_;  // free_idx_: -1 for a noise parameter
  std::vector<int> noise_of_;                       // per observed output: the free parameter that is its sd, or -1
  std::vector<double> values_;
  study::LawRows rows_out_;               // this process's rows of the last batch
  std::vector<std::uint8_t> row_status_;  // every row of the last batch: its status
  std::vector<double> row_obs_;           // and its observed outputs (rows x observed)
  resume::ProcessGroup* group_ = nullptr;
  bool law_only_ = false, reuse_ = false;
  std::vector<ContactProblem<double>> exp_probs_;  // per experiment, at the base law parameters
  std::vector<std::uint8_t> exp_status_;
  std::vector<ContactProblem<double>> probs_;  // per row of a batch
  std::vector<std::uint8_t> status_;
  double log_norm_ = 0;  // sum over the data of -log s_ij - log sqrt(2 pi)
  std::uint64_t rows_ = 0;
  double law_s_ = 0;
  std::size_t piece_;  // one process: the next piece's rows (sized by the last's time)
};

// An observed output's noise sd is named "sigma_<output>", as a column of the data (its sd per
// experiment) and as a free parameter (data.sigma's distribution): noise_name("Vx") is "sigma_Vx",
// noise_output("sigma_Vx") is "Vx", and "" for a name that is no noise's.
std::string noise_name(const std::string& output);
std::string noise_output(const std::string& name);

// Whether a status means "outside the model's domain" (likelihood 0) rather than a failure.
bool outside_domain(Status s);

}  // namespace impact::calibrate
