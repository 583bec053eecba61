// Eigen views of contact problems for the tests that build instances from matrices and print
// them: conversions, a one-line description, and mode-sequence helpers.
#pragma once
#include <Eigen/Dense>
#include <sstream>
#include <string>

#include "impact/problem.hpp"

namespace impact::testing {

inline Eigen::Vector3d to_e(const Vec3<double>& a) { return Eigen::Vector3d(a.x, a.y, a.z); }
inline Vec3<double> to_v(const Eigen::Vector3d& a) { return Vec3<double>{a.x(), a.y(), a.z()}; }
inline Eigen::Matrix3d W_of(const ContactProblem<double>& p) {
  Eigen::Matrix3d W;
  W << p.W.xx, p.W.xy, p.W.xz, p.W.xy, p.W.yy, p.W.yz, p.W.xz, p.W.yz, p.W.zz;
  return W;
}
// The upper triangle of W (symmetric by construction in the callers).
inline Sym3<double> to_sym(const Eigen::Matrix3d& W) {
  return Sym3<double>{W(0, 0), W(0, 1), W(0, 2), W(1, 1), W(1, 2), W(2, 2)};
}

// W, n, v0, mu and e of p on one line, to 17 digits (failure messages).
inline std::string describe(const ContactProblem<double>& p) {
  std::ostringstream os;
  os.precision(17);
  const Eigen::Matrix3d W = W_of(p);
  os << "W=[" << W.row(0) << "; " << W.row(1) << "; " << W.row(2) << "] n=[" << to_e(p.n).transpose() << "] v0=["
     << to_e(p.v0).transpose() << "] mu=" << p.mu << " e=" << p.e;
  return os.str();
}

// "slip>stick" and the like.
inline std::string modes_str(ModeSeq m) {
  std::string s;
  for (int k = 0; k < m.size(); ++k) s += (k ? ">" : "") + std::string(mode_name(m.at(k)));
  return s;
}
inline bool has_mode(ModeSeq m, Mode x) {
  for (int k = 0; k < m.size(); ++k)
    if (m.at(k) == x) return true;
  return false;
}

}  // namespace impact::testing
