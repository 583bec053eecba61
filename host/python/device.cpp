// impactbatch._core on device arrays: evaluate() reads CuPy / PyTorch / JAX arrays where they live
// (their pointers and strides, from __cuda_array_interface__ or DLPack) and writes its results into
// arrays the caller's library made (their addresses), or into device memory from its own pool that
// it hands out as DeviceArray objects, which CuPy, PyTorch and JAX take without a copy
// (__dlpack__ / __dlpack_device__, and __cuda_array_interface__ for the others). The law runs
// through the registry's device-array entry point (kernels/cuda: cuda::evaluate_device_arrays, one
// kernel per law reading, evaluating and writing each row in place).
#include "python/device.hpp"

#include <dlpack/dlpack.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "engine/backend_pick.hpp"
#include "engine/columns.hpp"
#include "engine/options.hpp"
#include "engine/registry.hpp"
#ifdef IMPACT_WITH_CUDA
#include "kernels/cuda/cuda.hpp"
#endif

namespace py = pybind11;

namespace impact::python {

namespace {

// Result memory on a CUDA device: a C-contiguous array owned by shared pointers (this object and
// every DLPack capsule handed out keep it alive).
struct DeviceArray {
  std::shared_ptr<void> mem;
  std::vector<std::int64_t> shape;
  DLDataType dtype{};
  int device = 0;

  std::uintptr_t ptr() const { return reinterpret_cast<std::uintptr_t>(mem.get()); }
  std::string typestr() const {
    const char kind = dtype.code == kDLFloat ? 'f' : dtype.code == kDLInt ? 'i' : 'u';
    return std::string("<") + kind + std::to_string(dtype.bits / 8);
  }
};

struct Held {  // a capsule's hold on the memory, with the shape DLTensor points to
  std::shared_ptr<void> mem;
  std::vector<std::int64_t> shape;
};

void capsule_destructor(PyObject* cap) {
  // not consumed (still named "dltensor"): the producer frees it (DLPack's Python protocol)
  if (PyCapsule_IsValid(cap, "dltensor")) {
    auto* t = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap, "dltensor"));
    if (t && t->deleter) t->deleter(t);
  }
}

py::object to_dlpack(const DeviceArray& a) {
  auto* held = new Held{a.mem, a.shape};
  auto* t = new DLManagedTensor{};
  t->dl_tensor.data = a.mem.get();
  t->dl_tensor.device = DLDevice{kDLCUDA, a.device};
  t->dl_tensor.ndim = static_cast<int>(held->shape.size());
  t->dl_tensor.dtype = a.dtype;
  t->dl_tensor.shape = held->shape.data();
  t->dl_tensor.strides = nullptr;  // compact, row-major
  t->dl_tensor.byte_offset = 0;
  t->manager_ctx = held;
  t->deleter = [](DLManagedTensor* self) {
    delete static_cast<Held*>(self->manager_ctx);
    delete self;
  };
  PyObject* cap = PyCapsule_New(t, "dltensor", &capsule_destructor);
  if (!cap) {
    t->deleter(t);
    throw py::error_already_set();
  }
  return py::reinterpret_steal<py::object>(cap);
}

py::dict cuda_array_interface(const DeviceArray& a) {
  py::dict d;
  d["shape"] = py::tuple(py::cast(a.shape));
  d["typestr"] = a.typestr();
  d["data"] = py::make_tuple(a.ptr(), false);
  d["strides"] = py::none();
  d["version"] = 3;
  d["stream"] = py::none();  // written and synchronized before it is handed out
  return d;
}

// What a DLPack capsule describes (not consumed: the caller keeps the capsule alive while the data
// is used, and its producer frees it with the capsule).
py::dict dlpack_view(const py::capsule& cap) {
  if (!PyCapsule_IsValid(cap.ptr(), "dltensor"))
    throw std::invalid_argument("expected an unconsumed DLPack capsule (named 'dltensor')");
  const auto* t = static_cast<const DLManagedTensor*>(PyCapsule_GetPointer(cap.ptr(), "dltensor"));
  const DLTensor& x = t->dl_tensor;
  py::dict d;
  d["ptr"] = reinterpret_cast<std::uintptr_t>(static_cast<const char*>(x.data) + x.byte_offset);
  d["device_type"] = static_cast<int>(x.device.device_type);
  d["device_id"] = x.device.device_id;
  std::string code = x.dtype.code == kDLFloat ? "f" : x.dtype.code == kDLInt ? "i" : x.dtype.code == kDLUInt ? "u" : "?";
  d["typestr"] = "<" + code + std::to_string(x.dtype.bits / 8) + (x.dtype.lanes != 1 ? "x" + std::to_string(x.dtype.lanes) : "");
  std::vector<std::int64_t> shape(x.shape, x.shape + x.ndim), strides;
  if (x.strides) strides.assign(x.strides, x.strides + x.ndim);
  d["shape"] = py::tuple(py::cast(shape));
  d["strides"] = x.strides ? py::object(py::tuple(py::cast(strides))) : py::object(py::none());  // elements
  return d;
}

// The arrays a law's call writes, in this order: P and vf (N, 3), dE and status (N,), then the law's
// extras (N,): modes uint32, steps int32, the others real. The caller's allocator makes these, or
// the core makes them in one block from the device's pool.
struct OutputSpec {
  std::string name;
  int width = 1;  // 3: (N, 3); 1: (N,)
  DLDataType dtype{};
};
std::vector<OutputSpec> output_specs(const engine::LawInfo& law, engine::Precision p) {
  const DLDataType real{kDLFloat, static_cast<std::uint8_t>(p == engine::Precision::f32 ? 32 : 64), 1};
  std::vector<OutputSpec> o{{"P", 3, real}, {"vf", 3, real}, {"dE", 1, real}, {"status", 1, DLDataType{kDLUInt, 8, 1}}};
  for (const ExtraColumn& x : law.extras) {
    const DLDataType t = x.what == Extra::Modes   ? DLDataType{kDLUInt, 32, 1}
                         : x.what == Extra::Steps ? DLDataType{kDLInt, 32, 1}
                                                  : real;
    o.push_back({x.name, 1, t});
  }
  return o;
}

#ifdef IMPACT_WITH_CUDA
// Every output of a call in one block from the pool (one allocation and one free per call), each
// array at a 256-byte boundary, sharing the block's ownership.
std::vector<DeviceArray> device_arrays(int device, std::int64_t N, const std::vector<OutputSpec>& specs) {
  constexpr std::size_t kAlign = 256;
  std::vector<std::size_t> at;
  std::size_t bytes = 0;
  for (const OutputSpec& o : specs) {
    at.push_back(bytes);
    bytes += (static_cast<std::size_t>(N) * o.width * o.dtype.bits / 8 + kAlign - 1) / kAlign * kAlign;
  }
  const std::shared_ptr<void> block(cuda::device_alloc(device, bytes), [device](void* p) { cuda::device_free(device, p); });
  std::vector<DeviceArray> out;
  for (std::size_t k = 0; k < specs.size(); ++k) {
    DeviceArray a;
    a.mem = std::shared_ptr<void>(block, static_cast<char*>(block.get()) + at[k]);
    a.shape = specs[k].width == 3 ? std::vector<std::int64_t>{N, 3} : std::vector<std::int64_t>{N};
    a.dtype = specs[k].dtype;
    a.device = device;
    out.push_back(std::move(a));
  }
  return out;
}

// One argument: None (a parameter the law does not read), a number (every row), or the tuple
// (pointer, float64?, stride of the batch index, of the first own index, of the second), in elements.
cuda::DeviceView view_of(const py::handle& h, bool* present = nullptr) {
  cuda::DeviceView v;
  if (present) *present = !h.is_none();
  if (h.is_none()) return v;
  if (py::isinstance<py::tuple>(h)) {
    const auto t = h.cast<py::tuple>();
    if (t.size() != 5) throw std::invalid_argument("a device view is (ptr, f64, s0, s1, s2)");
    // NOLINTNEXTLINE(performance-no-int-to-ptr): Python gives the device array's address as an integer
    v.data = reinterpret_cast<const void*>(t[0].cast<std::uintptr_t>());
    v.f64 = t[1].cast<bool>();
    for (int k = 0; k < 3; ++k) v.stride[k] = t[2 + k].cast<std::int64_t>();
    return v;
  }
  v.value = h.cast<double>();
  return v;
}

// The batch on the device in pieces of about kDevicePieceSeconds (the first of kMinDevicePiece rows
// (the device's integrators do not poll a stop: a piece is the unit of an interrupt),
// then sized from the rate so far, growing at most 8x a piece), the GIL released while one runs
// and the signal handlers run between them: Ctrl-C raises KeyboardInterrupt within about a piece's
// time. The rows are independent: the bits of one call. Returns the first row whose W is not
// symmetric (-1: none; the pieces after it are not evaluated, and the caller keeps no result).
// The first piece of a call is sized from the rate of the law's last piece in this process (rates
// under the GIL, by entry point), so that a batch that fits kDevicePieceSeconds runs as one piece
// once the law has run here: the pieces' launches and waits are not paid again per call.
constexpr double kDevicePieceSeconds = 0.12;
constexpr std::size_t kMinDevicePiece = 4096;
template <class T>
std::int64_t in_pieces(engine::ArraysFn<T> fn, int device, const cuda::DeviceInputs& in, std::size_t n,
                       const cuda::DeviceOutputs<T>& out, const LawOptions& opt) {
  // by entry point, steps, integrator and device; guarded by the GIL
  static std::map<std::tuple<std::uintptr_t, std::int32_t, int, int>, double> rows_per_second;
  const auto key = std::make_tuple(reinterpret_cast<std::uintptr_t>(fn), opt.steps, static_cast<int>(opt.integrator), device);
  const auto known = rows_per_second.find(key);
  std::size_t piece = kMinDevicePiece;
  if (known != rows_per_second.end())
    piece = static_cast<std::size_t>(std::clamp(known->second * kDevicePieceSeconds, static_cast<double>(kMinDevicePiece), 1e12));
  for (std::size_t lo = 0; lo < n;) {
    const std::size_t m = std::min(piece, n - lo);
    const auto r = static_cast<std::int64_t>(lo);
    const cuda::DeviceInputs at = cuda::from_row(in, lo);
    std::int64_t asym = -1;
    double seconds = 0;
    {
      py::gil_scoped_release nogil;
      const auto t0 = std::chrono::steady_clock::now();
      asym = fn(device, at, m, cuda::from_row(out, lo), opt);
      seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    if (asym >= 0) return r + asym;
    // a piece too small to fill the device understates its rate: only full pieces teach it
    if (m == piece && seconds > 0) rows_per_second[key] = static_cast<double>(m) / seconds;
    lo += m;
    if (lo < n && PyErr_CheckSignals() != 0) throw py::error_already_set();
    if (m == piece) {
      const double fits = seconds > 0 ? static_cast<double>(m) * kDevicePieceSeconds / seconds : 8.0 * static_cast<double>(m);
      piece = static_cast<std::size_t>(
          std::clamp(std::min(fits, 8.0 * static_cast<double>(m)), static_cast<double>(kMinDevicePiece), 1e12));
    }
  }
  return -1;
}

// The results go to `outputs` where the caller gives them (name -> device address of a C-contiguous
// array of output_specs' shape and dtype on `device`, from its own array library's allocator), else
// to DeviceArray objects from the pool.
template <class T>
py::dict evaluate_typed(const engine::LawInfo& law, int device, std::size_t n, const py::dict& views, const py::object& outputs,
                        const LawOptions& opt) {
  cuda::DeviceInputs in;
  in.W = view_of(views["W"]);
  in.n = view_of(views["n"]);
  in.v = view_of(views["v"]);
  const char* params[4] = {"mu", "e", "e_t", "eta0"};
  for (int p = 0; p < 4; ++p) {
    in.param[p] = view_of(views[params[p]], &in.has[p]);
    in.has[p] = in.has[p] && law.reads(in_mu + p);
  }
  const auto N = static_cast<std::int64_t>(n);
  const std::vector<OutputSpec> specs = output_specs(law, sizeof(T) == 4 ? engine::Precision::f32 : engine::Precision::f64);
  std::vector<void*> ptr(specs.size(), nullptr);
  py::dict res;
  if (outputs.is_none()) {
    std::vector<DeviceArray> made = device_arrays(device, N, specs);
    for (std::size_t k = 0; k < specs.size(); ++k) {
      ptr[k] = made[k].mem.get();
      res[specs[k].name.c_str()] = std::move(made[k]);
    }
  } else {
    const auto given = outputs.cast<py::dict>();
    for (std::size_t k = 0; k < specs.size(); ++k) {
      if (!given.contains(specs[k].name)) throw std::invalid_argument("outputs: no array for " + specs[k].name);
      // NOLINTNEXTLINE(performance-no-int-to-ptr): Python gives the device array's address as an integer
      ptr[k] = reinterpret_cast<void*>(given[specs[k].name.c_str()].cast<std::uintptr_t>());
    }
  }
  cuda::DeviceOutputs<T> out;
  out.P = static_cast<T*>(ptr[0]);
  out.vf = static_cast<T*>(ptr[1]);
  out.real[out_dE] = static_cast<T*>(ptr[2]);
  out.status = static_cast<std::uint8_t*>(ptr[3]);
  for (std::size_t k = 0; k < law.extras.size(); ++k) {
    void* p = ptr[4 + k];
    const Extra what = law.extras[k].what;
    if (what == Extra::Modes) out.modes = static_cast<std::uint32_t*>(p);
    else if (what == Extra::Steps) out.steps = static_cast<std::int32_t*>(p);
    else out.real[real_column_of(what)] = static_cast<T*>(p);
  }
  const engine::ArraysFn<T> fn = engine::entry_points<T>(law).device_arrays;
  res["asym_row"] = in_pieces<T>(fn, device, in, n, out, opt);
  return res;
}
#endif

// evaluate() on device arrays (views: W, n, v, mu, e, e_t, eta0 as view_of() takes them): the
// results (P, vf, dE, status, the law's extras) into `outputs` (name -> address) where given, else
// as DeviceArray objects, and asym_row (-1, or the first row whose W is not symmetric: then nothing
// was evaluated).
py::dict evaluate_device(const std::string& law_name, const std::string& precision, int steps, const std::string& integrator,
                         int device, std::size_t n, const py::dict& views, const py::object& outputs) {
  const engine::LawInfo& law = engine::law_named(law_name);
  const engine::Precision p = engine::parse_precision(precision);
  const LawOptions opt = engine::law_options(steps, engine::parse_integrator(integrator));
#ifdef IMPACT_WITH_CUDA
  std::string why;
  if (!engine::cuda_usable(&why)) throw std::runtime_error("device arrays need a usable CUDA device: " + why);
  if (p == engine::Precision::f32) return evaluate_typed<float>(law, device, n, views, outputs, opt);
  return evaluate_typed<double>(law, device, n, views, outputs, opt);
#else
  (void)law, (void)p, (void)opt, (void)device, (void)n, (void)views, (void)outputs;
  throw std::runtime_error(
      "device arrays need the CUDA backend, and this impactbatch was built without CUDA "
      "(build with nvcc present, or -DIMPACT_CUDA=ON)");
#endif
}

}  // namespace

void bind_device(py::module_& m) {
  py::class_<DeviceArray>(m, "DeviceArray", "Result memory on a CUDA device (DLPack and __cuda_array_interface__)")
      .def_property_readonly("shape", [](const DeviceArray& a) { return py::tuple(py::cast(a.shape)); })
      .def_property_readonly("typestr", &DeviceArray::typestr)
      .def_property_readonly("device", [](const DeviceArray& a) { return a.device; })
      .def_property_readonly("ptr", &DeviceArray::ptr)
      .def_property_readonly("__cuda_array_interface__", &cuda_array_interface)
      .def("__dlpack__", [](const DeviceArray& a, const py::kwargs&) { return to_dlpack(a); })
      .def("__dlpack__", [](const DeviceArray& a, const py::object&, const py::kwargs&) { return to_dlpack(a); })
      .def("__dlpack_device__", [](const DeviceArray& a) { return py::make_tuple(static_cast<int>(kDLCUDA), a.device); });
  m.def("dlpack_view", &dlpack_view, "Pointer, dtype, shape, strides and device of a DLPack capsule (not consumed)");
  m.def("evaluate_device", &evaluate_device,
        "evaluate() on device arrays (views); results into outputs (name -> address) or as DeviceArray", py::arg("law"),
        py::arg("precision"), py::arg("steps"), py::arg("integrator"), py::arg("device"), py::arg("n"), py::arg("views"),
        py::arg("outputs") = py::none());
  m.def(
      "device_outputs",
      [](const std::string& law, const std::string& precision) {
        py::list l;
        for (const OutputSpec& o : output_specs(engine::law_named(law), engine::parse_precision(precision))) {
          const char kind = o.dtype.code == kDLFloat ? 'f' : o.dtype.code == kDLInt ? 'i' : 'u';
          l.append(py::make_tuple(o.name, o.width, std::string("<") + kind + std::to_string(o.dtype.bits / 8)));
        }
        return l;
      },
      "The arrays evaluate_device writes for a law and precision: (name, 3 for (N, 3) or 1 for (N,), typestr)");
  m.def(
      "result_memory",
      [](int device) {
        py::dict d;
#ifdef IMPACT_WITH_CUDA
        const cuda::ResultMemory r = cuda::result_memory(device);
        d["reserved"] = r.reserved;
        d["used"] = r.used;
        d["blocks"] = r.blocks;
#else
        (void)device;
#endif
        return d;
      },
      py::arg("device") = 0,
      "The core's own device pool its result arrays come from: bytes reserved from the device, bytes in use, blocks handed "
      "out so far (empty without CUDA)");
  m.def(
      "device_allocations",
      []() -> std::uint64_t {
#ifdef IMPACT_WITH_CUDA
        return cuda::device_allocations();
#else
        return 0;
#endif
      },
      "Device buffers the core has allocated for its own scratch so far (not the results it hands out)");
  m.def(
      "cuda_calls",
      []() {
        py::dict d;
#ifdef IMPACT_WITH_CUDA
        const cuda::CallCounts c = cuda::call_counts();
        for (int k = 0; k < cuda::kCallKinds; ++k) d[cuda::call_name(static_cast<cuda::Call>(k))] = c.n[k];
#endif
        return d;
      },
      "The CUDA runtime calls this thread's evaluations have made so far, by kind (allocations, stream creations, uploads, "
      "launches, downloads, stream and device waits; empty without CUDA)");
  m.def("has_cuda_build", []() {
#ifdef IMPACT_WITH_CUDA
    return true;
#else
    return false;
#endif
  });
}

}  // namespace impact::python
