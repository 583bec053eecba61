// The one definition of the contact-space columns (docs/INTERFACE.md), for host and device:
//   inputs:  W_xx W_xy W_xz W_yy W_yz W_zz  n_x n_y n_z  v_x v_y v_z  mu e e_t eta0
//   outputs: P_x P_y P_z vf_x vf_y vf_z dE In_c aux0..aux4 (reals), modes, steps, status
// and the maps between them and a ContactProblem / a Result. Batches (kernels/batch.hpp), tables
// (host/engine/columns.hpp), sampled instances (impact/sampling.hpp) and the CUDA staging buffers
// all index columns through these.
#pragma once
#include <cstdint>

#include "impact/problem.hpp"

namespace impact {

// ---- inputs ----------------------------------------------------------------------------------------
enum InputColumn : int {
  in_W_xx,
  in_W_xy,
  in_W_xz,
  in_W_yy,
  in_W_yz,
  in_W_zz,
  in_n_x,
  in_n_y,
  in_n_z,
  in_v_x,
  in_v_y,
  in_v_z,
  in_mu,
  in_e,
  in_e_t,
  in_eta0,
  kNumInputs
};

inline constexpr const char* kInputNames[kNumInputs] = {"W_xx", "W_xy", "W_xz", "W_yy", "W_yz", "W_zz", "n_x", "n_y",
                                                        "n_z",  "v_x",  "v_y",  "v_z",  "mu",   "e",    "e_t", "eta0"};

// The value a law sees for a parameter column it does not read (a null column in a batch).
template <class T>
IMPACT_HDI T input_default(int k) {
  return k == in_eta0 ? T(1) : T(0);
}

// Whether a law reading `use` needs input column k (geometry always).
IMPACT_HDI constexpr bool input_needed(int k, ParamUse use) {
  return k < in_mu || (k == in_mu && use.mu) || (k == in_e && use.e) || (k == in_e_t && use.e_t) || (k == in_eta0 && use.eta0);
}

template <class T>
IMPACT_HDI void to_columns(const ContactProblem<T>& p, T v[kNumInputs]) {
  v[in_W_xx] = p.W.xx;
  v[in_W_xy] = p.W.xy;
  v[in_W_xz] = p.W.xz;
  v[in_W_yy] = p.W.yy;
  v[in_W_yz] = p.W.yz;
  v[in_W_zz] = p.W.zz;
  v[in_n_x] = p.n.x;
  v[in_n_y] = p.n.y;
  v[in_n_z] = p.n.z;
  v[in_v_x] = p.v0.x;
  v[in_v_y] = p.v0.y;
  v[in_v_z] = p.v0.z;
  v[in_mu] = p.mu;
  v[in_e] = p.e;
  v[in_e_t] = p.e_t;
  v[in_eta0] = p.eta0;
}

template <class T>
IMPACT_HDI ContactProblem<T> from_columns(const T v[kNumInputs]) {
  ContactProblem<T> p;
  p.W = Sym3<T>{v[in_W_xx], v[in_W_xy], v[in_W_xz], v[in_W_yy], v[in_W_yz], v[in_W_zz]};
  p.n = Vec3<T>{v[in_n_x], v[in_n_y], v[in_n_z]};
  p.v0 = Vec3<T>{v[in_v_x], v[in_v_y], v[in_v_z]};
  p.mu = v[in_mu];
  p.e = v[in_e];
  p.e_t = v[in_e_t];
  p.eta0 = v[in_eta0];
  return p;
}

// ---- outputs ---------------------------------------------------------------------------------------
// Real-valued result columns, in storage order. The first seven are every law's table columns; In_c
// and aux are written only where a law declares them (ExtraColumns).
enum OutputColumn : int {
  out_P_x,
  out_P_y,
  out_P_z,
  out_vf_x,
  out_vf_y,
  out_vf_z,
  out_dE,
  out_In_c,
  out_aux0,
  kNumRealOutputs = out_aux0 + kAux
};

// The columns every law writes to a table, in order: the seven reals, then status; a law's extra
// columns follow.
constexpr int kNumCommonOutputs = 8;
inline constexpr const char* kCommonOutputNames[kNumCommonOutputs] = {"P_x",  "P_y",  "P_z", "vf_x",
                                                                      "vf_y", "vf_z", "dE",  "status"};

template <class T>
IMPACT_HDI void real_outputs(const Result<T>& r, T v[kNumRealOutputs]) {
  v[out_P_x] = r.P.x;
  v[out_P_y] = r.P.y;
  v[out_P_z] = r.P.z;
  v[out_vf_x] = r.vf.x;
  v[out_vf_y] = r.vf.y;
  v[out_vf_z] = r.vf.z;
  v[out_dE] = r.dE;
  v[out_In_c] = r.In_c;
  for (int k = 0; k < kAux; ++k) v[out_aux0 + k] = r.aux[k];
}

template <class T>
IMPACT_HDI Result<T> from_outputs(const T v[kNumRealOutputs], std::uint32_t modes, std::int32_t steps, std::uint8_t status) {
  Result<T> r;
  r.P = Vec3<T>{v[out_P_x], v[out_P_y], v[out_P_z]};
  r.vf = Vec3<T>{v[out_vf_x], v[out_vf_y], v[out_vf_z]};
  r.dE = v[out_dE];
  r.In_c = v[out_In_c];
  for (int k = 0; k < kAux; ++k) r.aux[k] = v[out_aux0 + k];
  r.modes = ModeSeq{modes};
  r.steps = steps;
  r.status = static_cast<Status>(status);
  return r;
}

// The real column an extra column reads (-1 for modes and steps, which have their own arrays).
IMPACT_HDI constexpr int real_column_of(Extra x) {
  return x == Extra::In_c                         ? out_In_c
         : x == Extra::Modes || x == Extra::Steps ? -1
                                                  : out_aux0 + (static_cast<int>(x) - static_cast<int>(Extra::Aux0));
}

}  // namespace impact
