// Rows of arrays owned by the caller on the device (DLPack, __cuda_array_interface__: CuPy, PyTorch,
// JAX), read and written in place by the per-row functor of the device-array path: the row's inputs
// gathered from the caller's arrays (their strides and dtype), the law evaluated, its outputs
// scattered into the caller's result arrays, in one thread and one kernel (kernels/cuda/
// device_arrays.cu), with no column in between. The values are those of the batch path to the bit:
// each input is converted to T as a batch column would hold it and the instance built by
// from_columns, the outputs are store_result's. Host and device code (g++ runs the same functors in
// tests/kernels/test_device_rows.cpp).
#pragma once
#include <cstddef>
#include <cstdint>

#include "impact/columns.hpp"
#include "impact/problem.hpp"
#include "kernels/launch_traits.hpp"

namespace impact::cuda {

// A float32 or float64 array on the device with element strides (the batch index first, then the
// array's own indices; a stride 0 broadcasts), or a constant for every row (data null).
struct DeviceView {
  const void* data = nullptr;
  bool f64 = true;
  std::int64_t stride[3] = {0, 0, 0};
  double value = 0;
};
// evaluate()'s arguments: W (N, 3, 3), n and v (N, 3), the parameters mu, e, e_t, eta0 (N,);
// has[k] false: the law does not read parameter k.
struct DeviceInputs {
  DeviceView W, n, v, param[4];
  bool has[4] = {true, true, true, true};
};
// The results, C-contiguous device arrays of N rows: P and vf (N, 3), the real columns (N,) by
// OutputColumn (out_dE, out_In_c, out_aux0 + k: null where not wanted), modes, steps, status (N,).
template <class T>
struct DeviceOutputs {
  T* P = nullptr;
  T* vf = nullptr;
  T* real[kNumRealOutputs] = {};
  std::uint32_t* modes = nullptr;
  std::int32_t* steps = nullptr;
  std::uint8_t* status = nullptr;
};

// The view from row `first` on (row 0 of the result is row `first` of v); a constant stays.
IMPACT_HDI DeviceView from_row(const DeviceView& v, std::size_t first) {
  DeviceView o = v;
  if (v.data) o.data = static_cast<const char*>(v.data) + static_cast<std::int64_t>(first) * v.stride[0] * (v.f64 ? 8 : 4);
  return o;
}
IMPACT_HDI DeviceInputs from_row(const DeviceInputs& in, std::size_t first) {
  DeviceInputs o = in;
  o.W = from_row(in.W, first), o.n = from_row(in.n, first), o.v = from_row(in.v, first);
  for (int p = 0; p < 4; ++p) o.param[p] = from_row(in.param[p], first);
  return o;
}

IMPACT_HDI double read_view(const DeviceView& v, std::size_t row, int a, int b) {
  if (!v.data) return v.value;
  const std::int64_t k = static_cast<std::int64_t>(row) * v.stride[0] + a * v.stride[1] + b * v.stride[2];
  return v.f64 ? static_cast<const double*>(v.data)[k] : static_cast<double>(static_cast<const float*>(v.data)[k]);
}

// numpy.maximum's rule, which the host path's check uses: a NaN argument gives NaN
IMPACT_HDI double max_nan(double a, double b) {
  if (a != a || b != b) return a + b;
  return a < b ? b : a;
}

// Whether row r's W passes the host path's symmetry check (python/impactbatch/_evaluate.py): max
// |W_ij - W_ji| over the three pairs <= 1e-12 max |W| over the upper triangle, or that scale not
// finite (the law then reports the row non_finite). A NaN below the diagonal fails it.
IMPACT_HDI bool row_w_symmetric(const DeviceInputs& in, std::size_t r) {
  const double xx = read_view(in.W, r, 0, 0), xy = read_view(in.W, r, 0, 1), xz = read_view(in.W, r, 0, 2);
  const double yy = read_view(in.W, r, 1, 1), yz = read_view(in.W, r, 1, 2), zz = read_view(in.W, r, 2, 2);
  const double d = max_nan(tabs(xy - read_view(in.W, r, 1, 0)),
                           max_nan(tabs(xz - read_view(in.W, r, 2, 0)), tabs(yz - read_view(in.W, r, 2, 1))));
  const double s = max_nan(max_nan(max_nan(tabs(xx), tabs(xy)), max_nan(tabs(xz), tabs(yy))), max_nan(tabs(yz), tabs(zz)));
  const bool finite_scale = s - s == 0.0;
  return d <= 1e-12 * s || !finite_scale;
}

// Row r of the caller's arrays as the law's instance: each value converted to T as a batch column
// holds it (W's upper triangle), a parameter the law does not read at its input_default.
template <class T>
IMPACT_HDI ContactProblem<T> gather_row(const DeviceInputs& in, std::size_t r) {
  T v[kNumInputs];
  const int w[6][2] = {{0, 0}, {0, 1}, {0, 2}, {1, 1}, {1, 2}, {2, 2}};
  for (int c = 0; c < 6; ++c) v[in_W_xx + c] = static_cast<T>(read_view(in.W, r, w[c][0], w[c][1]));
  for (int k = 0; k < 3; ++k) {
    v[in_n_x + k] = static_cast<T>(read_view(in.n, r, k, 0));
    v[in_v_x + k] = static_cast<T>(read_view(in.v, r, k, 0));
  }
  for (int p = 0; p < 4; ++p)
    v[in_mu + p] = in.has[p] ? static_cast<T>(read_view(in.param[p], r, 0, 0)) : input_default<T>(in_mu + p);
  return from_columns(v);
}

// The outcome of row r into the caller's result arrays (a null array is not wanted).
template <class T>
IMPACT_HDI void scatter_row(const DeviceOutputs<T>& out, std::size_t r, const Result<T>& res) {
  T v[kNumRealOutputs];
  real_outputs(res, v);
  for (int k = 0; k < 3; ++k) {
    if (out.P) out.P[3 * r + k] = v[out_P_x + k];
    if (out.vf) out.vf[3 * r + k] = v[out_vf_x + k];
  }
  for (int k = out_dE; k < kNumRealOutputs; ++k)
    if (out.real[k]) out.real[k][r] = v[k];
  if (out.modes) out.modes[r] = res.modes.bits;
  if (out.steps) out.steps[r] = res.steps;
  if (out.status) out.status[r] = static_cast<std::uint8_t>(res.status);
}

// The results from row `first` on.
template <class T>
IMPACT_HDI DeviceOutputs<T> from_row(const DeviceOutputs<T>& out, std::size_t first) {
  DeviceOutputs<T> o = out;
  const auto at = [first](auto* p, std::size_t per) { return p ? p + first * per : p; };
  o.P = at(out.P, 3);
  o.vf = at(out.vf, 3);
  for (T*& r : o.real) r = at(r, 1);
  o.modes = at(out.modes, 1);
  o.steps = at(out.steps, 1);
  o.status = at(out.status, 1);
  return o;
}

// One row of the device-array path: gather, law, scatter.
template <class Law, class T>
struct ArrayRowFunctor {
  DeviceInputs in;
  DeviceOutputs<T> out;
  LawOptions opt;
  IMPACT_HDI void operator()(std::size_t r) const { scatter_row(out, r, Law::template eval<T>(gather_row<T>(in, r), opt)); }
};

// Row r's regime key (a law with one: LaunchTraits<Law>::regime_key), read from the caller's arrays.
template <class Law, class T>
struct ArrayKeyFunctor {
  DeviceInputs in;
  IMPACT_HDI std::uint32_t operator()(std::size_t r) const { return LaunchTraits<Law>::regime_key(gather_row<T>(in, r)); }
};

}  // namespace impact::cuda
