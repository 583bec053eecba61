// impactbatch._core: the Python package's binding of the library the CLI calls (docs/python.md). A front
// end beside host/cli, one layer above the study: it converts nothing physical and re-implements
// nothing; the package (python/impactbatch) shapes and broadcasts the arrays, this module hands
// contiguous 1-D columns to the same batch entry points `impact eval` uses and returns the output
// columns as NumPy arrays written in place by the backend (no copy of the results).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <limits>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "engine/backend_pick.hpp"
#include "engine/backend_trial.hpp"
#include "engine/columns.hpp"
#include "engine/options.hpp"
#include "engine/registry.hpp"
#include "io/cancel.hpp"
#include "io/version.hpp"
#include "python/calibrate.hpp"
#include "python/device.hpp"
#include "python/interrupt.hpp"
#include "reference/compare.hpp"
#include "reference/reference.hpp"
#include "systems/bodies.hpp"
#include "sampled/reduce.hpp"
#include "systems/scenarios.hpp"
#include "study/session.hpp"

namespace py = pybind11;
using namespace impact;
using impact::python::run_interruptible;

namespace {

// The real output columns' names: P_x .. dE as in every table, In_c, then aux0 .. aux4 (the laws'
// extra columns name their source among these: laws()["extras"][i]["source"]).
std::string real_name(int k) {
  if (k < out_In_c) return kCommonOutputNames[k];
  if (k == out_In_c) return "In_c";
  return "aux" + std::to_string(k - out_aux0);
}

py::list law_list() {
  py::list out;
  for (const engine::LawInfo& l : engine::all_laws()) {
    py::dict d;
    d["name"] = l.name;
    d["summary"] = l.summary;
    d["integrator"] = l.integrator();
    py::list params;
    for (int k = in_mu; k < kNumInputs; ++k)
      if (l.reads(k)) params.append(kInputNames[k]);
    d["params"] = params;
    py::list extras;
    for (const ExtraColumn& x : l.extras) {
      py::dict e;
      e["name"] = x.name;
      e["unit"] = x.unit;
      e["symbol"] = x.symbol;
      e["meaning"] = x.meaning;
      e["source"] = x.what == Extra::Modes   ? std::string("modes")
                    : x.what == Extra::Steps ? std::string("steps")
                                             : real_name(real_column_of(x.what));
      extras.append(e);
    }
    d["extras"] = extras;
    out.append(d);
  }
  return out;
}

py::list status_names() {
  py::list out;
  for (int k = 0; k < static_cast<int>(Status::count_); ++k) out.append(status_name(static_cast<Status>(k)));
  return out;
}

py::list input_names() {
  py::list out;
  for (const char* name : kInputNames) out.append(name);
  return out;
}

py::list output_names() {
  py::list out;
  for (int k = 0; k < kNumRealOutputs; ++k) out.append(real_name(k));
  return out;
}

// ---- evaluate -------------------------------------------------------------------------------------
// The batch goes to the backend in chunks of about kChunkSeconds each (the first of kFirstChunk
// rows, then sized from the rate measured so far, growing at most 8x a chunk), on a thread of its
// own while the caller's waits with the GIL released and runs the signal handlers: Ctrl-C raises
// KeyboardInterrupt within a chunk's time, or sooner where an integrator's instance ends early at
// the stop, instead of at the end of the batch. The instances are independent, so the results are
// the bits of one call, whatever the chunks.
// With `auto` and more than one backend to weigh, the first chunk is the trial's (engine::TrialBatch):
// up to kTrialRows rows, enough for a GPU's rate to show beside its fixed cost.
constexpr double kChunkSeconds = 0.04;
constexpr std::size_t kFirstChunk = 256, kMinChunk = 64, kTrialRows = 65536;

std::size_t next_chunk(std::size_t chunk, std::size_t done, double seconds) {
  const double grown = 8.0 * double(chunk);
  const double fits = seconds > 0 ? double(done) * kChunkSeconds / seconds : grown;
  return static_cast<std::size_t>(std::max(double(kMinChunk), std::min(grown, fits)));
}

// A row without a result (status other than ok) has none: NaN, steps -1, no modes (the tables leave
// these cells empty, the study's .npy holds the same).
template <class T>
void blank_failed_rows(const BatchOut<T>& out, std::size_t lo, std::size_t hi) {
  const T nan = std::numeric_limits<T>::quiet_NaN();
  for (std::size_t i = lo; i < hi; ++i) {
    if (out.status[i] == static_cast<std::uint8_t>(Status::ok)) continue;
    for (int k = 0; k < kNumRealOutputs; ++k) out.real[k][i] = nan;
    out.modes[i] = 0;
    out.steps[i] = -1;
  }
}

// Called with the GIL held: the chunks run on a thread of their own (run_interruptible), the caller's
// waiting with the GIL released and running the signal handlers; a stop (Ctrl-C) also ends the
// integrators' instances early (engine::stoppable), and the chunk they were in is dropped with the
// whole call (io::check_cancelled after each chunk): KeyboardInterrupt propagates as
// py::error_already_set, the partly written outputs dropped with it.
template <class T>
void run_in_chunks(const engine::BatchCall<T>& fn, const BatchIn<T>& in, const BatchOut<T>& out, const LawOptions& opt,
                   std::size_t first_chunk = kFirstChunk) {
  const LawOptions stop = engine::stoppable(opt);
  run_interruptible([&] {
    const std::size_t n = in.count;
    for (std::size_t lo = 0, chunk = first_chunk; lo < n;) {
      const std::size_t m = std::min(chunk, n - lo);
      const auto t0 = std::chrono::steady_clock::now();
      const std::uint64_t epoch = io::stop_epoch();
      fn(slice(in, lo, m), slice(out, lo), stop);
      io::check_cancelled(epoch);
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      blank_failed_rows(out, lo, lo + m);
      lo += m;
      chunk = next_chunk(chunk, m, seconds);
    }
  });
}

// cols: kNumInputs entries, each None (a parameter the law does not read) or a C-contiguous 1-D
// array of T with n elements (the package checks and converts; checked again here). trial: auto's
// candidates (none for a named backend); with two or more, the first chunk chooses among them.
template <class T>
py::dict evaluate_typed(const engine::LawInfo& law, const py::list& cols, std::size_t n, const engine::BackendPick& pick,
                        const LawOptions& opt, const engine::AutoCandidates& trial) {
  const T* c[kNumInputs];
  std::vector<py::array_t<T>> keep;  // the inputs stay referenced while the law runs
  for (int k = 0; k < kNumInputs; ++k) {
    if (cols[k].is_none()) {
      if (law.reads(k)) throw py::value_error(std::string("law '") + law.name + "' needs " + kInputNames[k]);
      c[k] = nullptr;
      continue;
    }
    if (!py::isinstance<py::array_t<T>>(cols[k]))
      throw py::type_error(std::string(kInputNames[k]) + ": expected a NumPy array of " +
                           (sizeof(T) == 8 ? "float64" : "float32"));
    py::array_t<T> a = py::reinterpret_borrow<py::array_t<T>>(cols[k]);
    if (a.ndim() != 1 || static_cast<std::size_t>(a.shape(0)) != n || !(a.flags() & py::array::c_style))
      throw py::value_error(std::string(kInputNames[k]) + ": expected a contiguous 1-D array of " + std::to_string(n) +
                            " values");
    c[k] = law.reads(k) ? a.data() : nullptr;
    keep.push_back(a);
  }
  const engine::BatchFn<T> fn = ref::any_batch_fn<T>(law, pick.backend);
  if (!fn)
    throw py::value_error(std::string("backend ") + engine::backend_name(pick.backend) + " has no " +
                          (sizeof(T) == 8 ? "double" : "float") + " entry point for law '" + law.name + "'");
  std::vector<py::array_t<T>> real;
  BatchOut<T> out;
  for (int k = 0; k < kNumRealOutputs; ++k) {
    real.emplace_back(static_cast<py::ssize_t>(n));
    out.real[k] = real.back().mutable_data();
  }
  py::array_t<std::uint32_t> modes(static_cast<py::ssize_t>(n));
  py::array_t<std::int32_t> steps(static_cast<py::ssize_t>(n));
  py::array_t<std::uint8_t> status(static_cast<py::ssize_t>(n));
  out.modes = modes.mutable_data();
  out.steps = steps.mutable_data();
  out.status = status.mutable_data();
  engine::BackendPick ran = pick;
  if (trial.backends.size() > 1) {
    engine::TrialBatch<T> chooser = engine::TrialBatch<T>::for_law(law, opt, trial, double(n));
    run_in_chunks<T>(std::ref(chooser), batch_in_of<T>(c, n), out, opt, std::min(n, kTrialRows));
    if (chooser.decided()) ran = engine::BackendPick{chooser.backend(), chooser.why()};
  } else {
    run_in_chunks<T>(fn, batch_in_of<T>(c, n), out, opt);
  }
  py::dict d;
  for (int k = 0; k < kNumRealOutputs; ++k) d[real_name(k).c_str()] = real[k];
  d["modes"] = modes;
  d["steps"] = steps;
  d["status"] = status;
  d["backend"] = engine::backend_name(ran.backend);
  d["backend_why"] = ran.why;
  return d;
}

py::dict evaluate(const std::string& law_name, const py::list& cols, std::size_t n, const std::string& backend,
                  const std::string& precision, int steps, const std::string& integrator) {
  if (cols.size() != static_cast<std::size_t>(kNumInputs))
    throw py::value_error("expected " + std::to_string(kNumInputs) + " input columns");
  const engine::LawInfo& law = engine::law_named(law_name);
  const engine::Precision p = engine::parse_precision(precision);
  const LawOptions opt = engine::law_options(steps, engine::parse_integrator(integrator));
  engine::Workload w;
  w.laws = {&law};
  w.precision = p;
  w.steps = steps;
  w.rows = double(n);
  const engine::BackendPick pick = engine::pick_backend(backend, w, true);
  // auto: a trial on the call's first chunk where there is more than one backend to weigh (the
  // lines are kept for the process: a later call of the same law and options chooses from them)
  engine::AutoCandidates trial;
  if (backend == "auto") trial = engine::auto_candidates(w, double(n));
  if (p == engine::Precision::f32) return evaluate_typed<float>(law, cols, n, pick, opt, trial);
  return evaluate_typed<double>(law, cols, n, pick, opt, trial);
}

// ---- bodies ----------------------------------------------------------------------------------------
// Arrays of n rows, C-contiguous float64 (the package broadcasts and converts): `cols` of `width`
// doubles per row.
using Arr = py::array_t<double, py::array::c_style | py::array::forcecast>;

const double* rows_of(const Arr& a, std::size_t n, std::size_t width, const char* name) {
  if (static_cast<std::size_t>(a.size()) != n * width)
    throw py::value_error(std::string(name) + ": expected " + std::to_string(n) + " rows of " + std::to_string(width) +
                          " values");
  return a.data();
}

// body: (mass (n), inertia (n, 9), orientation quaternion w, x, y, z (n, 4), com, V, omega (n, 3))
struct BodyCols {
  const double *m, *I, *q, *com, *V, *w;
};

BodyCols body_cols(const py::tuple& b, std::size_t n, const char* which) {
  if (b.size() != 6) throw py::value_error(std::string(which) + ": expected 6 arrays");
  const std::string w = which;
  return BodyCols{
      rows_of(b[0].cast<Arr>(), n, 1, (w + ".mass").c_str()),        rows_of(b[1].cast<Arr>(), n, 9, (w + ".inertia").c_str()),
      rows_of(b[2].cast<Arr>(), n, 4, (w + ".orientation").c_str()), rows_of(b[3].cast<Arr>(), n, 3, (w + ".com").c_str()),
      rows_of(b[4].cast<Arr>(), n, 3, (w + ".V").c_str()),           rows_of(b[5].cast<Arr>(), n, 3, (w + ".omega").c_str())};
}

systems::RigidBody body_at(const BodyCols& c, std::size_t i) {
  systems::RigidBody b;
  b.mass = c.m[i];
  if (std::isinf(b.mass) && b.mass > 0) {  // fixed: the rest of the row is ignored (at rest)
    b = systems::RigidBody::fixed();
    return b;
  }
  b.inertia_body = Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(c.I + 9 * i);
  b.orientation = Eigen::Quaterniond(c.q[4 * i], c.q[4 * i + 1], c.q[4 * i + 2], c.q[4 * i + 3]);
  b.com = Eigen::Vector3d(c.com + 3 * i);
  b.V = Eigen::Vector3d(c.V + 3 * i);
  b.omega = Eigen::Vector3d(c.w + 3 * i);
  return b;
}

systems::TwoBodyContact contact_at(const BodyCols& b1, const BodyCols& b2, const double* point, const double* normal,
                                   std::size_t i) {
  systems::TwoBodyContact c;
  c.b1 = body_at(b1, i);
  c.b2 = body_at(b2, i);
  c.point = Eigen::Vector3d(point + 3 * i);
  c.normal = Eigen::Vector3d(normal + 3 * i);
  return c;
}

template <class F>
void for_rows(std::size_t n, F f) {
  for (std::size_t i = 0; i < n; ++i) {
    try {
      f(i);
    } catch (const std::invalid_argument& e) { throw py::value_error("instance " + std::to_string(i) + ": " + e.what()); }
  }
}

// The contact space of n two-body contacts (Jia eqs. 1-4): W (n, 3, 3), n (n, 3), v (n, 3).
py::tuple two_bodies(const py::tuple& b1, const py::tuple& b2, const Arr& point, const Arr& normal, std::size_t n) {
  const BodyCols c1 = body_cols(b1, n, "body1"), c2 = body_cols(b2, n, "body2");
  const double* pt = rows_of(point, n, 3, "point");
  const double* nr = rows_of(normal, n, 3, "normal");
  const auto N = static_cast<py::ssize_t>(n);
  py::array_t<double> W({N, py::ssize_t(3), py::ssize_t(3)}), nn({N, py::ssize_t(3)}), v({N, py::ssize_t(3)});
  double *Wd = W.mutable_data(), *nd = nn.mutable_data(), *vd = v.mutable_data();
  for_rows(n, [&](std::size_t i) {
    const systems::ContactSpace cs = systems::contact_space(contact_at(c1, c2, pt, nr, i));
    for (std::size_t r = 0; r < 3; ++r) {
      for (std::size_t c = 0; c < 3; ++c) Wd[9 * i + 3 * r + c] = cs.W(r, c);
      nd[3 * i + r] = cs.n(r);
      vd[3 * i + r] = cs.v0(r);
    }
  });
  return py::make_tuple(W, nn, v);
}

// The bodies after impulse P (n, 3) on body 1 (-P on body 2): V1, omega1, V2, omega2 (n, 3) and
// the kinetic energies before and after (n).
py::dict after_impulse(const py::tuple& b1, const py::tuple& b2, const Arr& point, const Arr& normal, const Arr& P,
                       std::size_t n) {
  const BodyCols c1 = body_cols(b1, n, "body1"), c2 = body_cols(b2, n, "body2");
  const double* pt = rows_of(point, n, 3, "point");
  const double* nr = rows_of(normal, n, 3, "normal");
  const double* Pd = rows_of(P, n, 3, "P");
  const auto N = static_cast<py::ssize_t>(n);
  py::array_t<double> V1({N, py::ssize_t(3)}), w1({N, py::ssize_t(3)}), V2({N, py::ssize_t(3)}), w2({N, py::ssize_t(3)}), K0(N),
      K1(N);
  double* out[4] = {V1.mutable_data(), w1.mutable_data(), V2.mutable_data(), w2.mutable_data()};
  for_rows(n, [&](std::size_t i) {
    const systems::TwoBodyContact c = contact_at(c1, c2, pt, nr, i);
    const Eigen::Vector3d Pi(Pd + 3 * i);
    K0.mutable_data()[i] = systems::kinetic_energy(c);
    if (!Pi.allFinite()) {  // no result for this row: NaN
      for (double* o : out)
        for (int r = 0; r < 3; ++r) o[3 * i + r] = std::numeric_limits<double>::quiet_NaN();
      K1.mutable_data()[i] = std::numeric_limits<double>::quiet_NaN();
      return;
    }
    const systems::TwoBodyVelocities a = systems::apply_impulse(c, Pi);
    const Eigen::Vector3d* vs[4] = {&a.V1, &a.w1, &a.V2, &a.w2};
    for (int k = 0; k < 4; ++k)
      for (int r = 0; r < 3; ++r) out[k][3 * i + r] = (*vs[k])(r);
    K1.mutable_data()[i] = systems::kinetic_energy(c, a);
  });
  py::dict d;
  d["V1"] = V1;
  d["omega1"] = w1;
  d["V2"] = V2;
  d["omega2"] = w2;
  d["K_before"] = K0;
  d["K_after"] = K1;
  return d;
}

// ---- sampled reduction ----------------------------------------------------------------------------
// The reduction of `impact reduce` (sampled::reduce): its JSON summary as text, and how the backend was
// chosen.
py::tuple reduce(const sampled::ReduceRequest& q) {
  std::string why;
  const sampled::ReduceSpec rs = sampled::reduce_spec(q, &why);
  sampled::ReduceResult res;
  {
    py::gil_scoped_release nogil;
    res = sampled::reduce(rs, nullptr);
  }
  return py::make_tuple(sampled::reduce_json(rs, res), why);
}

// ---- study scenarios -------------------------------------------------------------------------------
py::list scenario_list() {
  py::list out;
  for (const systems::ScenarioInfo& s : systems::all_scenarios()) {
    py::dict d;
    d["name"] = s.name;
    d["summary"] = s.summary;
    py::list params;
    for (const systems::ScenarioParam& p : s.params) {
      py::dict e;
      e["name"] = p.name;
      e["default"] = p.value;
      e["unit"] = p.unit;
      e["symbol"] = p.symbol;
      e["help"] = p.help;
      params.append(e);
    }
    d["params"] = params;
    py::list names, outputs;
    for (const engine::ColumnInfo& o : s.body_outputs) {
      names.append(o.name);
      outputs.append(py::dict(py::arg("name") = o.name, py::arg("unit") = o.unit, py::arg("symbol") = o.symbol,
                              py::arg("meaning") = o.meaning));
    }
    d["body_outputs"] = names;
    d["outputs"] = outputs;
    out.append(d);
  }
  return out;
}

const systems::ScenarioInfo& scenario_named(const std::string& name) {
  const systems::ScenarioInfo* s = systems::find_scenario(name);
  if (!s) throw py::value_error("unknown scenario '" + name + "' (known: " + systems::scenario_list() + ")");
  return *s;
}

// The contact-space instances of n samples of a scenario (values: n rows of its parameters, in its
// order): the build status per row and the 16 input columns (NaN where the row was not built).
py::tuple scenario_build(const std::string& name, const Arr& values, std::size_t n) {
  const systems::ScenarioInfo& s = scenario_named(name);
  const std::size_t np = s.params.size();
  const double* v = rows_of(values, n, np, "values");
  py::array_t<std::uint8_t> status(static_cast<py::ssize_t>(n));
  std::vector<py::array_t<double>> cols;
  double* c[kNumInputs];
  for (double*& ck : c) {
    cols.emplace_back(static_cast<py::ssize_t>(n));
    ck = cols.back().mutable_data();
  }
  for (std::size_t i = 0; i < n; ++i) {
    ContactProblem<double> p{};
    const Status st = s.build(v + i * np, &p);
    status.mutable_data()[i] = static_cast<std::uint8_t>(st);
    double row[kNumInputs];
    to_columns(p, row);
    for (int k = 0; k < kNumInputs; ++k) c[k][i] = st == Status::ok ? row[k] : std::numeric_limits<double>::quiet_NaN();
  }
  py::list out;
  for (auto& a : cols) out.append(a);
  return py::make_tuple(status, out);
}

// The scenario's body-level outputs (n, body_outputs) after impulses P (n, 3); NaN rows where P is
// not finite or the row was not built (status != ok).
py::array_t<double> scenario_body(const std::string& name, const Arr& values, const Arr& P,
                                  const py::array_t<std::uint8_t>& built, std::size_t n) {
  const systems::ScenarioInfo& s = scenario_named(name);
  const std::size_t np = s.params.size(), nb = s.body_outputs.size();
  const double* v = rows_of(values, n, np, "values");
  const double* Pd = rows_of(P, n, 3, "P");
  if (static_cast<std::size_t>(built.size()) != n) throw py::value_error("built: expected " + std::to_string(n) + " rows");
  py::array_t<double> out({static_cast<py::ssize_t>(n), static_cast<py::ssize_t>(nb)});
  double* o = out.mutable_data();
  for (std::size_t i = 0; i < n; ++i) {
    const double* Pi = Pd + 3 * i;
    if (built.data()[i] != static_cast<std::uint8_t>(Status::ok) || !std::isfinite(Pi[0]) || !std::isfinite(Pi[1]) ||
        !std::isfinite(Pi[2])) {
      for (std::size_t k = 0; k < nb; ++k) o[i * nb + k] = std::numeric_limits<double>::quiet_NaN();
      continue;
    }
    s.body(v + i * np, Pi, o + i * nb);
  }
  return out;
}

// ---- the fast path against the reference ------------------------------------------------------------
// `impact compare` on n instances given as columns (float64, None where the law does not read one):
// the JSON report, the failures (row, reason, column, relative difference) and the reference's outputs.
py::dict compare(const std::string& law_name, const py::list& cols, std::size_t n, const std::string& backend,
                 const std::string& precision, int steps, const std::string& integrator, double tol) {
  if (cols.size() != static_cast<std::size_t>(kNumInputs))
    throw py::value_error("expected " + std::to_string(kNumInputs) + " input columns");
  const engine::LawInfo& law = engine::law_named(law_name);
  ref::CompareSpec spec;
  spec.law = &law;
  spec.precision = engine::parse_precision(precision);
  spec.opt = engine::law_options(steps, engine::parse_integrator(integrator));
  engine::Workload w;
  w.laws = {&law};
  w.precision = spec.precision;
  w.steps = steps;
  w.rows = double(n);
  spec.backend = engine::pick_backend(backend, w, false).backend;
  if (!(std::isfinite(tol) && tol >= 0)) throw py::value_error("tol: must be a finite number >= 0 (0: the default)");
  spec.tol = tol > 0 ? tol : (spec.precision == engine::Precision::f32 ? ref::kDefaultTolFloat : ref::kDefaultTolDouble);
  ref::CompareRows rows;
  rows.cols.resize(n);
  for (int k = 0; k < kNumInputs; ++k) {
    rows.needed[k] = !cols[k].is_none();
    if (cols[k].is_none()) {
      if (law.reads(k)) throw py::value_error(std::string("law '") + law.name + "' needs " + kInputNames[k]);
      for (std::size_t i = 0; i < n; ++i) rows.cols.col[k][i] = input_default<double>(k);
      continue;
    }
    const double* a = rows_of(cols[k].cast<Arr>(), n, 1, kInputNames[k]);
    std::copy(a, a + n, rows.cols.col[k].begin());
  }
  rows.count = n;
  rows.raw.assign(n, std::string());
  rows.line.resize(n);
  for (std::size_t i = 0; i < n; ++i) rows.line[i] = static_cast<long>(i);
  rows.source = "<arrays>";
  ref::CompareReport rep;
  {
    py::gil_scoped_release nogil;
    rep = ref::compare(spec, rows, nullptr);
  }
  py::dict d;
  d["report"] = ref::report_json(spec, rows, rep, 0, 1);  // every row (no sample; the CLI's default seed)
  py::list failures;
  for (const ref::Failure& f : rep.failures) {
    py::dict e;
    e["row"] = f.row;
    e["reason"] = f.reason;
    e["column"] = f.col >= 0 ? py::object(py::str(rep.columns[static_cast<std::size_t>(f.col)].name)) : py::none();
    e["rel"] = f.rel;
    failures.append(e);
  }
  d["failures"] = failures;
  py::dict refout;
  for (int k = 0; k < kNumRealOutputs; ++k)
    refout[real_name(k).c_str()] = py::array_t<double>(static_cast<py::ssize_t>(n), rep.ref.real[k].data());
  refout["status"] = py::array_t<std::uint8_t>(static_cast<py::ssize_t>(n), rep.ref.status.data());
  refout["modes"] = py::array_t<std::uint32_t>(static_cast<py::ssize_t>(n), rep.ref.modes.data());
  refout["steps"] = py::array_t<std::int32_t>(static_cast<py::ssize_t>(n), rep.ref.steps.data());
  d["reference"] = refout;
  return d;
}

// ---- studies ----------------------------------------------------------------------------------------
// `impact study`: the config (a file, or text), overrides, run and files; returns what the package
// needs to load the outputs. Config errors raise ValueError with their FILE:LINE:COL location.
py::dict run_study(const study::StudyRequest& q) {
  study::LoadedStudy s;
  try {
    s = study::load_study(q);
  } catch (const io::ConfigError& e) { throw py::value_error(e.what()); }
  study::StudyOutcome o;
  run_interruptible([&] { o = study::run_study(s, q, std::chrono::steady_clock::now(), q.quiet ? nullptr : stderr); });
  py::dict d;
  d["out_dir"] = s.config.out_dir;
  d["name"] = s.config.name;
  d["laws"] = s.config.laws;
  d["rows"] = s.design->rows();
  d["files"] = o.report.files;
  d["backend"] = engine::backend_name(o.options.backend);
  d["backend_why"] = o.options.backend_why;
  d["notes"] = o.run.notes;
  return d;
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "impactbatch's compiled core: the batch entry points of the impact laws (see the impactbatch package)";
  io::set_cancel_hook(&python::stop_requested);  // a study stops when the waiting thread asks (run_interruptible)
  // the library's argument errors (unknown law, backend, precision, bad option values) as ValueError
  // NOLINTNEXTLINE(performance-unnecessary-value-param): pybind11's translator is void (*)(std::exception_ptr)
  py::register_exception_translator([](std::exception_ptr e) {
    try {
      if (e) std::rethrow_exception(e);
    } catch (const std::invalid_argument& x) { PyErr_SetString(PyExc_ValueError, x.what()); }
  });
  m.def("laws", &law_list, "The laws: name, summary, integrator, parameters read, extra outputs");
  python::bind_device(m);
  python::bind_calibrate(m);
  m.def("status_names", &status_names, "Status names in code order");
  m.def("input_names", &input_names, "The 16 input columns in the order evaluate() takes them");
  m.def("output_names", &output_names, "The real output columns in order");
  m.def("modes_string", &engine::modes_string, "'slip>stick' from a packed mode sequence");
  m.def("cuda_built", &engine::cuda_built);
  m.def("cuda_usable", []() {
    std::string why;
    const bool ok = engine::cuda_usable(&why);
    return py::make_tuple(ok, why);
  });
  m.def("version", []() { return std::string(io::version()) + " (" + io::git_revision() + ")"; });
  m.def("two_bodies", &two_bodies, py::arg("body1"), py::arg("body2"), py::arg("point"), py::arg("normal"), py::arg("n"),
        "Contact space (W, n, v) of n two-body contacts (bodies as 6-tuples of row arrays)");
  m.def("after_impulse", &after_impulse, py::arg("body1"), py::arg("body2"), py::arg("point"), py::arg("normal"), py::arg("P"),
        py::arg("n"), "Body velocities and kinetic energies after impulses P on body 1");
  py::class_<sampled::ReduceRequest>(m, "ReduceRequest")
      .def(py::init<>())
      .def_readwrite("law", &sampled::ReduceRequest::law)
      .def_readwrite("scenario", &sampled::ReduceRequest::scenario)
      .def_readwrite("n", &sampled::ReduceRequest::n)
      .def_readwrite("first", &sampled::ReduceRequest::first)
      .def_readwrite("seed", &sampled::ReduceRequest::seed)
      .def_readwrite("sets", &sampled::ReduceRequest::sets)
      .def_readwrite("ranges", &sampled::ReduceRequest::ranges)
      .def_readwrite("backend", &sampled::ReduceRequest::backend)
      .def_readwrite("precision", &sampled::ReduceRequest::precision)
      .def_readwrite("steps", &sampled::ReduceRequest::steps)
      .def_readwrite("integrator", &sampled::ReduceRequest::integrator)
      .def_readwrite("chunk", &sampled::ReduceRequest::chunk);
  m.def("reduce", &reduce, "The sampled reduction of `impact reduce`: (JSON summary text, backend choice)");
  m.def("scenarios", &scenario_list, "The study scenarios: name, summary, parameters (default, help), body outputs");
  m.def("scenario_build", &scenario_build, "Build status and the 16 input columns of n samples of a scenario");
  m.def("scenario_body", &scenario_body, "The scenario's body-level outputs after impulses P");
  py::class_<study::StudyRequest>(m, "StudyRequest")
      .def(py::init<>())
      .def_readwrite("config", &study::StudyRequest::config)
      .def_readwrite("text", &study::StudyRequest::text)
      .def_readwrite("toml", &study::StudyRequest::toml)
      .def_readwrite("sets", &study::StudyRequest::sets)
      .def_readwrite("out", &study::StudyRequest::out)
      .def_readwrite("backend", &study::StudyRequest::backend)
      .def_readwrite("plots", &study::StudyRequest::plots)
      .def_readwrite("quiet", &study::StudyRequest::quiet)
      .def_readwrite("force", &study::StudyRequest::force);
  m.def("study", &run_study, "Runs a study (impact study) and writes its files; returns where they are");
  m.def("eta0_from_elastic", &systems::eta0_from_elastic, py::arg("E1"), py::arg("nu1"), py::arg("E2"), py::arg("nu2"),
        "Jia's eta0 from the elastic constants of both bodies (Hertz-Mindlin)");
  m.def("compare", &compare, py::arg("law"), py::arg("cols"), py::arg("n"), py::arg("backend"), py::arg("precision"),
        py::arg("steps"), py::arg("integrator"), py::arg("tol"),
        "impact compare on columns: the JSON report, the failures and the reference's outputs");
  m.def("evaluate", &evaluate, py::arg("law"), py::arg("cols"), py::arg("n"), py::arg("backend"), py::arg("precision"),
        py::arg("steps"), py::arg("integrator"),
        "Evaluates n instances given as 16 input columns (None: a parameter the law does not read)");
}
