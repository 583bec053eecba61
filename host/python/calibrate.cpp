#include "python/calibrate.hpp"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "comparison/comparison.hpp"
#include "calibrate/config.hpp"
#include "calibrate/model.hpp"
#include "calibrate/run.hpp"
#include "engine/options.hpp"
#include "io/config_tree.hpp"
#include "io/csv.hpp"
#include "python/interrupt.hpp"

namespace py = pybind11;

namespace impact::python {

namespace {

using calibrate::CalibrateConfig;
using calibrate::CalibrateRequest;

// The request's config; its faults (located) and the data's as ValueError.
CalibrateConfig load(const CalibrateRequest& q) {
  try {
    return calibrate::load_calibrate_config(q);
  } catch (const io::ConfigError& e) { throw py::value_error(e.what()); }
}

CalibrateRequest model_request(CalibrateRequest q) {
  q.judge_sets = false;
  return q;
}

// A JSON value as the Python object json.loads makes of its text, but for NaN and the infinities,
// which stay floats (JSON text has none): None, bool, int, float, str, list, dict (keys in order).
py::object to_python(const nlohmann::ordered_json& v) {
  using T = nlohmann::ordered_json::value_t;
  switch (v.type()) {
    case T::null: return py::none();
    case T::boolean: return py::bool_(v.get<bool>());
    case T::number_integer: return py::int_(v.get<std::int64_t>());
    case T::number_unsigned: return py::int_(v.get<std::uint64_t>());
    case T::number_float: return py::float_(v.get<double>());
    case T::string: return py::str(v.get_ref<const std::string&>());
    case T::array: {
      py::list l;
      for (const nlohmann::ordered_json& x : v) l.append(to_python(x));
      return l;
    }
    case T::object: {
      py::dict d;
      for (auto it = v.begin(); it != v.end(); ++it) d[py::str(it.key())] = to_python(it.value());
      return d;
    }
    default: throw std::invalid_argument("a JSON value with no Python counterpart (binary)");
  }
}

// What the package needs to load a run's outputs: the run's one serialisation (calibrate::outcome_json).
py::dict outcome_dict(const CalibrateConfig& c, const calibrate::CalibrationOutcome& o) {
  return to_python(calibrate::outcome_json(c, o)).cast<py::dict>();
}

// `impact calibrate`: returns what the package needs to load the outputs.
py::dict run(const CalibrateRequest& q, bool force, bool quiet) {
  const CalibrateConfig c = load(q);
  calibrate::CalibrationOutcome o;
  run_interruptible([&] {
    try {
      o = calibrate::run_calibration(c, force, quiet ? nullptr : stderr);
    } catch (const io::InputError& e) { throw std::invalid_argument(e.what()); }
  });
  return outcome_dict(c, o);
}

// `impact calibrate --laws`: the comparison's folder and best law, and every law's run as run()'s.
py::dict compare(const CalibrateRequest& q, bool force, bool quiet) {
  const CalibrateConfig c = load(q);
  if (c.laws.empty()) throw py::value_error("laws: expected two laws or more to compare");
  comparison::Comparison k;
  run_interruptible([&] {
    try {
      k = comparison::run_comparison(q, c, force, quiet ? nullptr : stderr);
    } catch (const io::InputError& e) { throw std::invalid_argument(e.what()); }
  });
  py::dict d, runs;
  d["out_dir"] = k.out_dir;
  d["best"] = k.laws[k.best].law;
  d["files"] = k.files;
  d["table"] = k.table;
  d["plot_note"] = k.plot_note;
  for (const comparison::LawRun& l : k.laws) {
    CalibrateConfig one = c;
    one.out_dir = l.dir, one.name = c.name, one.method = "smc";
    runs[py::str(l.law)] = outcome_dict(one, l.o);
  }
  d["runs"] = runs;
  return d;
}

using Points = py::array_t<double, py::array::c_style | py::array::forcecast>;

// A calibration's model, built once from its config (the data read, the law set up on its backend),
// evaluated on the points the caller gives: n x dim, or one point of dim numbers. Every call that
// evaluates rows (the set-up's backend trial included) runs interruptibly (run_interruptible: the GIL
// released, Ctrl-C raising KeyboardInterrupt between the model's pieces of rows, which take about
// calibrate::kPieceSeconds each), and the model's buffers are one per model: a mutex makes the calls of
// several Python threads on one model take turns.
class PyModel {
 public:
  explicit PyModel(const CalibrateRequest& q) : config_(load(model_request(q))) {
    try {
      run_interruptible([&] { model_ = calibrate::make_model(config_); });
    } catch (const io::InputError& e) { throw py::value_error(e.what()); }
  }
  std::vector<std::string> names() const {
    std::vector<std::string> v;
    for (const design::ParamSpec& p : model_->free()) v.push_back(p.name);
    return v;
  }
  std::string backend() const { return engine::backend_name(model_->backend()); }
  const CalibrateConfig& config() const { return config_; }
  std::size_t experiments() const { return model_->data().n; }
  std::uint64_t rows() {
    const std::lock_guard<std::mutex> lock(mu_);
    return model_->rows_evaluated();
  }

  py::array_t<double> log_prior(const Points& x) const {
    const std::size_t n = count(x);
    py::array_t<double> out(static_cast<py::ssize_t>(n));
    for (std::size_t p = 0; p < n; ++p) out.mutable_data()[p] = model_->log_prior(x.data() + p * model_->dim());
    return out;
  }
  // log likelihood (posterior = false) or log posterior of every point; the GIL released while
  // the law runs.
  py::array_t<double> log_density(const Points& x, bool posterior) {
    const std::size_t n = count(x);
    std::vector<double> out(n);
    run_interruptible([&] {
      const std::lock_guard<std::mutex> lock(mu_);
      if (posterior) model_->log_posterior(x.data(), n, out.data());
      else model_->log_likelihood(x.data(), n, out.data());
    });
    return py::array_t<double>(static_cast<py::ssize_t>(n), out.data());
  }
  // Where the built-in sampler starts its walkers (calibrate::start_from_prior): walkers x dim.
  py::array_t<double> start(std::size_t walkers, std::uint64_t seed) {
    std::vector<double> v;
    run_interruptible([&] {
      const std::lock_guard<std::mutex> lock(mu_);
      v = calibrate::start_from_prior(*model_, walkers, seed);
    });
    py::array_t<double> a({static_cast<py::ssize_t>(walkers), static_cast<py::ssize_t>(model_->dim())});
    std::copy(v.begin(), v.end(), a.mutable_data());
    return a;
  }
  // The model's outputs at one point: experiments x observed (NaN where a row is not ok) and each
  // experiment's status code.
  py::tuple predict(const Points& x) {
    if (count(x) != 1) throw py::value_error("predict: one point of " + std::to_string(model_->dim()) + " numbers");
    std::vector<double> out;
    std::vector<std::uint8_t> status;
    run_interruptible([&] {
      const std::lock_guard<std::mutex> lock(mu_);
      model_->predict(x.data(), out, status);
    });
    const py::ssize_t E = static_cast<py::ssize_t>(model_->data().n),
                      O = static_cast<py::ssize_t>(model_->data().observed.size());
    py::array_t<double> y({E, O});
    std::copy(out.begin(), out.end(), y.mutable_data());
    return py::make_tuple(y, py::array_t<std::uint8_t>(E, status.data()));
  }
  py::dict data() const {
    const calibrate::Experiments& d = model_->data();
    const py::ssize_t E = static_cast<py::ssize_t>(d.n);
    auto matrix = [&](const std::vector<double>& v, std::size_t cols) {
      py::array_t<double> a({E, static_cast<py::ssize_t>(cols)});
      std::copy(v.begin(), v.end(), a.mutable_data());
      return a;
    };
    py::dict r;
    r["conditions"] = d.conditions;
    r["observed"] = d.observed;
    r["cond"] = matrix(d.cond, d.conditions.size());
    r["obs"] = matrix(d.obs, d.observed.size());
    r["sigma"] = matrix(d.sigma, d.observed.size());
    return r;
  }

 private:
  // Points: (n, dim), or (dim,) for one; anything else is a ValueError naming the shapes.
  std::size_t count(const Points& x) const {
    const std::size_t D = model_->dim();
    if (x.ndim() == 1 && static_cast<std::size_t>(x.shape(0)) == D) return 1;
    if (x.ndim() == 2 && static_cast<std::size_t>(x.shape(1)) == D) return static_cast<std::size_t>(x.shape(0));
    std::string shape = "(";
    for (py::ssize_t k = 0; k < x.ndim(); ++k) shape += (k ? ", " : "") + std::to_string(x.shape(k));
    throw py::value_error("theta: expected points of shape (n, " + std::to_string(D) + ") or (" + std::to_string(D) +
                          ",), one number per free parameter, got shape " + shape + ")");
  }
  CalibrateConfig config_;
  std::unique_ptr<calibrate::Model> model_;
  std::mutex mu_;  // one caller at a time on the model's buffers
};

}  // namespace

void bind_calibrate(py::module_& m) {
  py::class_<CalibrateRequest>(m, "CalibrateRequest")
      .def(py::init<>())
      .def_readwrite("config", &CalibrateRequest::config)
      .def_readwrite("text", &CalibrateRequest::text)
      .def_readwrite("toml", &CalibrateRequest::toml)
      .def_readwrite("sets", &CalibrateRequest::sets)
      .def_readwrite("out", &CalibrateRequest::out)
      .def_readwrite("backend", &CalibrateRequest::backend)
      .def_property(
          "checkpoint", [](const CalibrateRequest& q) { return q.checkpoint.dir; },
          [](CalibrateRequest& q, const std::string& d) { q.checkpoint.dir = d; })
      .def_property(
          "resume", [](const CalibrateRequest& q) { return q.checkpoint.resume; },
          [](CalibrateRequest& q, bool r) { q.checkpoint.resume = r; })
      .def_property(
          "checkpoint_every", [](const CalibrateRequest& q) { return q.checkpoint.every_s; },
          [](CalibrateRequest& q, double s) { q.checkpoint.every_s = s; });
  m.def("calibrate", &run, py::arg("request"), py::arg("force"), py::arg("quiet"),
        "Runs a calibration (impact calibrate) and writes its files; returns where they are");
  m.def("compare_laws", &compare, py::arg("request"), py::arg("force"), py::arg("quiet"),
        "Runs a comparison of laws (impact calibrate --laws) and writes its files; returns where they are");
  py::class_<PyModel>(m, "CalibrationModel")
      .def(py::init<const CalibrateRequest&>())
      .def_property_readonly("names", &PyModel::names)
      .def_property_readonly("backend", &PyModel::backend)
      .def_property_readonly("experiments", &PyModel::experiments)
      .def_property_readonly("rows_evaluated", &PyModel::rows)
      .def_property_readonly("config_json", [](const PyModel& p) { return calibrate::to_json(p.config()).dump(); })
      .def("log_prior", &PyModel::log_prior)
      .def("log_density", &PyModel::log_density, py::arg("theta"), py::arg("posterior"))
      .def("predict", &PyModel::predict)
      .def("start", &PyModel::start, py::arg("walkers"), py::arg("seed"))
      .def("data", &PyModel::data);
}

}  // namespace impact::python
