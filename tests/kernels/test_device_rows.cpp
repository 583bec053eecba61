// The device-array path's per-row functors (kernels/device_rows.hpp), run on the host over host
// arrays laid out as a caller's device arrays can be (float64 and float32, C and Fortran order, a
// broadcast row, a constant): every law's outcome in both precisions the bits of the batch path on
// the same values (the serial backend), and the W-symmetry check the host path's rule, NaN included.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "batch_buffers.hpp"
#include "impact/laws/all.hpp"
#include "kernels/device_rows.hpp"
#include "kernels/serial/serial.hpp"

using namespace impact;
using cuda::DeviceInputs;
using cuda::DeviceOutputs;
using cuda::DeviceView;
using impact::testing::instances;

namespace {

// The instances as a caller's arrays: W (N, 3, 3) in float32 and Fortran order (strides 1, N, 3N),
// n (N, 3) float64 C order, v (N, 3) float32 C order, mu and e_t (N,) float64, e one value for every
// row (a constant), eta0 one row broadcast (stride 0).
struct CallerArrays {
  std::size_t n;
  std::vector<float> W, v;
  std::vector<double> nrm, mu, e_t;
  double e = 0.35;
  double eta0 = 1.7;
  DeviceInputs in;
  explicit CallerArrays(const std::vector<ContactProblem<double>>& ps) : n(ps.size()) {
    W.resize(9 * n), v.resize(3 * n), nrm.resize(3 * n), mu.resize(n), e_t.resize(n);
    for (std::size_t r = 0; r < n; ++r) {
      const Sym3<double>& w = ps[r].W;
      const double m[3][3] = {{w.xx, w.xy, w.xz}, {w.xy, w.yy, w.yz}, {w.xz, w.yz, w.zz}};
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) W[r + n * (3 * b + a)] = static_cast<float>(m[a][b]);  // W[r][a][b] at r + a N + b 3N
      const double nn[3] = {ps[r].n.x, ps[r].n.y, ps[r].n.z}, vv[3] = {ps[r].v0.x, ps[r].v0.y, ps[r].v0.z};
      for (int k = 0; k < 3; ++k) nrm[3 * r + k] = nn[k], v[3 * r + k] = static_cast<float>(vv[k]);
      mu[r] = ps[r].mu;
      e_t[r] = ps[r].e_t;
    }
    const auto n64 = static_cast<std::int64_t>(n);
    in.W = DeviceView{W.data(), false, {1, n64, 3 * n64}, 0};
    in.n = DeviceView{nrm.data(), true, {3, 1, 0}, 0};
    in.v = DeviceView{v.data(), false, {3, 1, 0}, 0};
    in.param[0] = DeviceView{mu.data(), true, {1, 0, 0}, 0};
    in.param[1] = DeviceView{nullptr, true, {0, 0, 0}, e};
    in.param[2] = DeviceView{e_t.data(), true, {1, 0, 0}, 0};
    in.param[3] = DeviceView{&eta0, true, {0, 0, 0}, 0};
  }
  // the same values as batch columns of T, converted as the functor converts them
  template <class T>
  std::vector<std::vector<T>> columns() const {
    std::vector<std::vector<T>> c(kNumInputs, std::vector<T>(n));
    for (std::size_t r = 0; r < n; ++r) {
      const int up[6][2] = {{0, 0}, {0, 1}, {0, 2}, {1, 1}, {1, 2}, {2, 2}};
      for (int k = 0; k < 6; ++k) c[in_W_xx + k][r] = static_cast<T>(static_cast<double>(W[r + n * (3 * up[k][1] + up[k][0])]));
      for (int k = 0; k < 3; ++k) {
        c[in_n_x + k][r] = static_cast<T>(nrm[3 * r + k]);
        c[in_v_x + k][r] = static_cast<T>(static_cast<double>(v[3 * r + k]));
      }
      c[in_mu][r] = static_cast<T>(mu[r]);
      c[in_e][r] = static_cast<T>(e);
      c[in_e_t][r] = static_cast<T>(e_t[r]);
      c[in_eta0][r] = static_cast<T>(eta0);
    }
    return c;
  }
};

template <class Law, class T>
void expect_batch_bits(const CallerArrays& a) {
  const std::size_t n = a.n;
  // the batch path: columns (a parameter the law does not read is a null column), serial backend
  const auto cols = a.columns<T>();
  const T* cp[kNumInputs];
  for (int k = 0; k < kNumInputs; ++k) cp[k] = input_needed(k, Law::use()) ? cols[k].data() : nullptr;
  std::vector<std::vector<T>> real(kNumRealOutputs, std::vector<T>(n));
  std::vector<std::uint32_t> modes(n);
  std::vector<std::int32_t> steps(n);
  std::vector<std::uint8_t> status(n);
  BatchOut<T> bo;
  for (int k = 0; k < kNumRealOutputs; ++k) bo.real[k] = real[k].data();
  bo.modes = modes.data(), bo.steps = steps.data(), bo.status = status.data();
  LawOptions opt;
  opt.steps = 60;
  serial::evaluate<Law, T>(batch_in_of<T>(cp, n), bo, opt);
  // the device-array functor into the caller's result arrays
  DeviceInputs in = a.in;
  for (int p = 0; p < 4; ++p) in.has[p] = input_needed(in_mu + p, Law::use());
  std::vector<T> P(3 * n), vf(3 * n), dE(n), In_c(n), aux0(n);
  std::vector<std::uint32_t> dmodes(n);
  std::vector<std::int32_t> dsteps(n);
  std::vector<std::uint8_t> dstatus(n);
  DeviceOutputs<T> out;
  out.P = P.data(), out.vf = vf.data(), out.real[out_dE] = dE.data(), out.real[out_In_c] = In_c.data();
  out.real[out_aux0] = aux0.data();
  out.modes = dmodes.data(), out.steps = dsteps.data(), out.status = dstatus.data();
  const cuda::ArrayRowFunctor<Law, T> f{in, out, opt};
  for (std::size_t r = 0; r < n; ++r) f(r);
  const char* what = sizeof(T) == 8 ? " double" : " float";
  for (std::size_t r = 0; r < n; ++r) {
    for (int k = 0; k < 3; ++k) {
      ASSERT_EQ(std::memcmp(&P[3 * r + k], &real[out_P_x + k][r], sizeof(T)), 0) << Law::name << what << " P row " << r;
      ASSERT_EQ(std::memcmp(&vf[3 * r + k], &real[out_vf_x + k][r], sizeof(T)), 0) << Law::name << what << " vf row " << r;
    }
    ASSERT_EQ(std::memcmp(&dE[r], &real[out_dE][r], sizeof(T)), 0) << Law::name << what << " dE row " << r;
    ASSERT_EQ(std::memcmp(&In_c[r], &real[out_In_c][r], sizeof(T)), 0) << Law::name << what << " In_c row " << r;
    ASSERT_EQ(std::memcmp(&aux0[r], &real[out_aux0][r], sizeof(T)), 0) << Law::name << what << " aux0 row " << r;
    ASSERT_EQ(dmodes[r], modes[r]);
    ASSERT_EQ(dsteps[r], steps[r]);
    ASSERT_EQ(dstatus[r], status[r]);
  }
  // a law with a regime key reads it from the same values
  if constexpr (HasRegimeKey<Law>::value) {
    const BatchIn<T> b = batch_in_of<T>(cp, n);
    for (std::size_t r = 0; r < n; r += 7)
      ASSERT_EQ((cuda::ArrayKeyFunctor<Law, T>{in}(r)), (KeyFunctor<Law, T>{b}(r))) << Law::name << " key row " << r;
  }
}

DeviceView one_w(const double (&m)[3][3]) { return DeviceView{&m[0][0], true, {9, 3, 1}, 0}; }

bool symmetric(const double (&m)[3][3]) {
  DeviceInputs in;
  in.W = one_w(m);
  return cuda::row_w_symmetric(in, 0);
}

}  // namespace

TEST(DeviceRows, EveryLawBothPrecisionsAsTheBatchPathBitForBit) {
  const CallerArrays a(instances(900));
#define IMPACT_CASE(LAW)             \
  expect_batch_bits<LAW, double>(a); \
  expect_batch_bits<LAW, float>(a);
  IMPACT_FOR_EACH_LAW(IMPACT_CASE)
#undef IMPACT_CASE
}

TEST(DeviceRows, TheSymmetryCheckIsTheHostPaths) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  const double sym[3][3] = {{2, 0.5, 0.1}, {0.5, 3, -0.2}, {0.1, -0.2, 4}};
  EXPECT_TRUE(symmetric(sym));
  double near[3][3] = {{2, 0.5, 0.1}, {0.5 + 3e-12, 3, -0.2}, {0.1, -0.2, 4}};  // 3e-12 <= 1e-12 x 4
  EXPECT_TRUE(symmetric(near));
  near[1][0] = 0.5 + 5e-12;  // above 1e-12 x max |W| = 4e-12
  EXPECT_FALSE(symmetric(near));
  double lower_nan[3][3] = {{2, 0.5, 0.1}, {nan, 3, -0.2}, {0.1, -0.2, 4}};
  EXPECT_FALSE(symmetric(lower_nan));  // |W - W^T| is NaN against a finite scale
  double upper_nan[3][3] = {{2, nan, 0.1}, {0.5, 3, -0.2}, {0.1, -0.2, 4}};
  EXPECT_TRUE(symmetric(upper_nan));  // the scale is not finite: the law's non_finite, not an asymmetry
  double upper_inf[3][3] = {{inf, 0.5, 0.1}, {0.5, 3, -0.2}, {0.1, -0.2, 4}};
  EXPECT_TRUE(symmetric(upper_inf));
  double swapped[3][3] = {{2, 0.5, 0.1}, {0.5, 3, -0.2}, {0.1, 0.2, 4}};
  EXPECT_FALSE(symmetric(swapped));
}

// A call on device arrays runs in pieces (host/python/device.cpp): each piece's views and results
// from its first row on (cuda::from_row), read and written at the piece's row index. Row i of that
// is row first + i of the whole, to the bit, for every law and both element sizes: W float32 in
// Fortran order, n float64 and v float32 in C order, parameter columns, a constant and a broadcast
// row (CallerArrays), into every output.
template <class T>
struct AllOutputs {
  std::vector<T> P, vf, dE, In_c, aux0;
  std::vector<std::uint32_t> modes;
  std::vector<std::int32_t> steps;
  std::vector<std::uint8_t> status;
  DeviceOutputs<T> out;
  explicit AllOutputs(std::size_t n) : P(3 * n), vf(3 * n), dE(n), In_c(n), aux0(n), modes(n), steps(n), status(n) {
    out.P = P.data(), out.vf = vf.data(), out.real[out_dE] = dE.data(), out.real[out_In_c] = In_c.data();
    out.real[out_aux0] = aux0.data(), out.modes = modes.data(), out.steps = steps.data(), out.status = status.data();
  }
  bool same_rows(const AllOutputs& o, std::size_t first, std::size_t m) const {
    const auto eq = [&](const auto& a, const auto& b, std::size_t per) {
      return std::memcmp(&a[per * first], &b[per * first], per * m * sizeof(a[0])) == 0;
    };
    return eq(P, o.P, 3) && eq(vf, o.vf, 3) && eq(dE, o.dE, 1) && eq(In_c, o.In_c, 1) && eq(aux0, o.aux0, 1) &&
           eq(modes, o.modes, 1) && eq(steps, o.steps, 1) && eq(status, o.status, 1);
  }
};

template <class Law, class T>
void expect_piece_rows_are_the_rows(const CallerArrays& a) {
  const std::size_t first = 37, m = 50;
  DeviceInputs in = a.in;
  for (int p = 0; p < 4; ++p) in.has[p] = input_needed(in_mu + p, Law::use());
  LawOptions opt;
  opt.steps = 60;
  AllOutputs<T> whole(a.n), piece(a.n);
  const cuda::ArrayRowFunctor<Law, T> f{in, whole.out, opt};
  for (std::size_t r = first; r < first + m; ++r) f(r);
  const DeviceInputs at = cuda::from_row(in, first);
  const cuda::ArrayRowFunctor<Law, T> g{at, cuda::from_row(piece.out, first), opt};
  for (std::size_t i = 0; i < m; ++i) {
    EXPECT_EQ(cuda::row_w_symmetric(at, i), cuda::row_w_symmetric(in, first + i));
    g(i);
  }
  EXPECT_TRUE(whole.same_rows(piece, first, m)) << Law::name << (sizeof(T) == 8 ? " double" : " float");
}

template <class Law>
void expect_pieces_both_precisions(const CallerArrays& a) {
  expect_piece_rows_are_the_rows<Law, double>(a);
  expect_piece_rows_are_the_rows<Law, float>(a);
}

TEST(DeviceRows, APieceFromItsFirstRowIsTheRowsBitForBit) {
  const CallerArrays a(instances(120));
  expect_pieces_both_precisions<NewtonLaw>(a);
  expect_pieces_both_precisions<ChatterjeeRuinaLaw>(a);
  expect_pieces_both_precisions<AghiliLaw>(a);
  expect_pieces_both_precisions<MorganLaw>(a);
  expect_pieces_both_precisions<StrongeLaw>(a);
  expect_pieces_both_precisions<JiaLaw>(a);
}
