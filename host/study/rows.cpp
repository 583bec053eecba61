#include "study/rows.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "engine/backend_pick.hpp"
#include "impact/derived.hpp"
#include "io/machine.hpp"
#include "reference/reference.hpp"

namespace impact::study {

template <class T>
std::uint64_t Chunk<T>::build_instances(const systems::ScenarioInfo& sc, std::size_t parallel_from) {
  const std::size_t P = sc.params.size();
#pragma omp parallel for schedule(static) if (m >= parallel_from)
  for (std::ptrdiff_t ii = 0; ii < static_cast<std::ptrdiff_t>(m); ++ii) {
    const std::size_t i = static_cast<std::size_t>(ii);
    ContactProblem<double> p{};
    const Status s = sc.build(&values[i * P], &p);
    if (s != Status::ok) p = systems::placeholder_instance();
    build_status[i] = static_cast<std::uint8_t>(s);
    probs[i] = p;
    in.set(i, p);
  }
  std::uint64_t failed = 0;
  for (std::size_t i = 0; i < m; ++i) failed += build_status[i] != 0;
  return failed;
}

namespace {

// The output columns of an ok row i: the contact-space outputs (in contact_output_names() order),
// the law's extras, then (after the status, which has its own array) the body-level outputs.
template <class T>
void ok_row_outputs(const LawColumns& lc, const systems::ScenarioInfo& sc, const Chunk<T>& ch,
                    const engine::OutputColumns<T>& res, std::size_t i, double* o) {
  const Vec3<T> PT = res.P(i), vfT = res.vf(i);
  const double Pv[3] = {double(PT.x), double(PT.y), double(PT.z)};
  const ContactParts cp = contact_parts(ch.probs[i].n, PT, vfT);
  o[0] = Pv[0];
  o[1] = Pv[1];
  o[2] = Pv[2];
  o[3] = cp.Pn;
  o[4] = cp.Pt;
  o[5] = double(vfT.x);
  o[6] = double(vfT.y);
  o[7] = double(vfT.z);
  o[8] = cp.vfn;
  o[9] = cp.vft;
  o[10] = double(res.real[out_dE][i]);
  std::size_t j = contact_output_names().size();
  for (const ExtraColumn& x : lc.law->extras) o[j++] = res.extra(i, x.what);
  const std::size_t nbody = sc.body_outputs.size();
  if (nbody) sc.body(&ch.values[i * sc.params.size()], Pv, o + lc.cols.size() - nbody);
}

// Never a silent NaN in an ok row: the impulse, velocities, energy and body outputs must be finite
// (a law's diagnostic extras may be inf where documented, e.g. mu_star).
bool outputs_finite(const std::vector<StudyColumn>& cols, const double* o) {
  for (std::size_t k = 0; k < cols.size(); ++k)
    if (cols[k].kind == ColKind::real && cols[k].source != ColSource::extra && !std::isfinite(o[k])) return false;
  return true;
}

}  // namespace

// Each row's outputs and final status: the build status, else the law's, else non_finite where an
// output that must be finite is not.
template <class T>
void law_rows(const LawColumns& lc, const systems::ScenarioInfo& sc, const Chunk<T>& ch, const engine::OutputColumns<T>& res,
              LawRows& rows, std::size_t parallel_from) {
  const std::size_t ncol = lc.cols.size();
  rows.out.resize(ch.m * ncol);
  rows.status.resize(ch.m);
#pragma omp parallel for schedule(static) if (ch.m >= parallel_from)
  for (std::ptrdiff_t ii = 0; ii < static_cast<std::ptrdiff_t>(ch.m); ++ii) {
    const std::size_t i = static_cast<std::size_t>(ii);
    double* o = &rows.out[i * ncol];
    std::fill(o, o + ncol, NAN);
    Status s = static_cast<Status>(ch.build_status[i] ? ch.build_status[i] : res.status[i]);
    if (s == Status::ok) {
      ok_row_outputs(lc, sc, ch, res, i, o);
      if (!outputs_finite(lc.cols, o)) s = Status::non_finite;
    }
    rows.status[i] = static_cast<std::uint8_t>(s);
  }
}

template struct Chunk<float>;
template struct Chunk<double>;
template void law_rows<float>(const LawColumns&, const systems::ScenarioInfo&, const Chunk<float>&,
                              const engine::OutputColumns<float>&, LawRows&, std::size_t);
template void law_rows<double>(const LawColumns&, const systems::ScenarioInfo&, const Chunk<double>&,
                               const engine::OutputColumns<double>&, LawRows&, std::size_t);

RowEvaluator::RowEvaluator(const systems::ScenarioInfo& sc, const engine::LawInfo& law, engine::Backend backend,
                           engine::Precision precision, const LawOptions& opt)
    : sc_(sc), lc_(law_columns(law, sc, {})), backend_(backend), precision_(precision), opt_(opt) {}

int RowEvaluator::column(const std::string& name) const {
  for (std::size_t j = 0; j < lc_.cols.size(); ++j)
    if (lc_.cols[j].name == name) return static_cast<int>(j);
  return -1;
}

double RowEvaluator::evaluate(const double* values, std::size_t m, LawRows& rows) {
  return precision_ == engine::Precision::f32 ? run(chf_, resf_, values, m, rows, nullptr, nullptr)
                                              : run(chd_, resd_, values, m, rows, nullptr, nullptr);
}

double RowEvaluator::evaluate_built(const double* values, const ContactProblem<double>* probs, const std::uint8_t* build_status,
                                    std::size_t m, LawRows& rows) {
  return precision_ == engine::Precision::f32 ? run(chf_, resf_, values, m, rows, probs, build_status)
                                              : run(chd_, resd_, values, m, rows, probs, build_status);
}

template <class T>
double RowEvaluator::run(Chunk<T>& ch, engine::OutputColumns<T>& res, const double* values, std::size_t m, LawRows& rows,
                         const ContactProblem<double>* probs, const std::uint8_t* build_status) {
  const std::size_t P = sc_.params.size();
  if (ch.probs.size() < m) {
    ch.resize(m, 0, P);
    res.resize(m);
  }
  ch.first = 0;
  ch.m = m;
  std::copy(values, values + m * P, ch.values.begin());
  if (probs) {
    for (std::size_t i = 0; i < m; ++i) {
      ch.probs[i] = probs[i];
      ch.build_status[i] = build_status[i];
      ch.in.set(i, probs[i]);
    }
  } else {
    ch.build_instances(sc_, engine::kParallelRows);
  }
  const auto t0 = std::chrono::steady_clock::now();
  ref::any_batch_fn<T>(*lc_.law, backend_)(ch.in.view(nullptr, 0, m), res.view(0), opt_);
  const double secs = io::seconds_since(t0);
  law_rows(lc_, sc_, ch, res, rows, engine::kParallelRows);
  return secs;
}

}  // namespace impact::study
