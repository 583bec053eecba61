#include "laws.hpp"

#include "impact/laws/aghili.hpp"
#include "impact/laws/chatterjee_ruina.hpp"
#include "impact/laws/jia.hpp"
#include "impact/laws/morgan.hpp"
#include "impact/laws/newton.hpp"
#include "impact/laws/stronge.hpp"
#include "kernels/omp_backend.hpp"
#include "reference.hpp"
#ifdef IMPACT_WITH_CUDA
#include "kernels/cuda_backend.hpp"
#endif

namespace impact::host {

namespace {
template <class Law>
LawInfo make(std::string summary, bool uses_mu, std::vector<ExtraColumn> extras) {
  const ParamUse u = Law::use();
#ifdef IMPACT_WITH_CUDA
  BatchFn<double> cd = &cuda::evaluate<Law, double>;
  BatchFn<float> cf = &cuda::evaluate<Law, float>;
  SampledFn<double> scd = &cuda::reduce_sampled<Law, double>;
  SampledFn<float> scf = &cuda::reduce_sampled<Law, float>;
#else
  BatchFn<double> cd = nullptr;
  BatchFn<float> cf = nullptr;
  SampledFn<double> scd = nullptr;
  SampledFn<float> scf = nullptr;
#endif
  return LawInfo{Law::name, std::move(summary), uses_mu, u.e, u.e_t, u.eta0, std::move(extras),
                 &evaluate_serial<Law, double>, &evaluate_serial<Law, float>,
                 &evaluate_omp<Law, double>,    &evaluate_omp<Law, float>,    cd, cf,
                 &ref::evaluate_batch<Law>,
                 &reduce_sampled_serial<Law, double>, &reduce_sampled_serial<Law, float>,
                 &reduce_sampled_omp<Law, double>,    &reduce_sampled_omp<Law, float>,    scd, scf};
}
}  // namespace

const std::vector<LawInfo>& all_laws() {
  static const std::vector<LawInfo> laws = {
      make<NewtonLaw>("frictionless, kinematic restitution e", false, {}),
      make<ChatterjeeRuinaLaw>("algebraic (e, e_t, mu) law, Chatterjee & Ruina 1998", true,
                               {{"kappa", Extra::Aux0}, {"modes", Extra::Modes}}),
      make<AghiliLaw>("Newton restitution with stick/slip discriminator, Aghili", true,
                      {{"sigma", Extra::Aux0},
                       {"mu_cr", Extra::Aux1},
                       {"mu_star", Extra::Aux2},
                       {"e_star", Extra::Aux3},
                       {"e_star_global", Extra::Aux4},
                       {"modes", Extra::Modes},
                       {"steps", Extra::Steps}}),
      make<MorganLaw>("planar closed form, energetic restitution, Morgan 2011", true,
                      {{"In_c", Extra::In_c}, {"modes", Extra::Modes}, {"steps", Extra::Steps}}),
      make<StrongeLaw>("3D rigid, Coulomb slip/stick, Stronge's energetic restitution (fixed-step)", true,
                       {{"In_c", Extra::In_c}, {"modes", Extra::Modes}, {"steps", Extra::Steps}}),
      make<JiaLaw>("3D tangential compliance, energetic restitution, Jia 2013 (fixed-step integration)", true,
                   {{"In_c", Extra::In_c}, {"modes", Extra::Modes}, {"steps", Extra::Steps}}),
  };
  return laws;
}

const LawInfo* find_law(std::string_view name) {
  for (const LawInfo& l : all_laws())
    if (l.name == name) return &l;
  return nullptr;
}

std::string law_names() {
  std::string s;
  for (const LawInfo& l : all_laws()) {
    if (!s.empty()) s += ", ";
    s += l.name;
  }
  return s;
}

const char* backend_name(Backend b) {
  return b == Backend::reference ? "reference" : b == Backend::cuda ? "cuda" : b == Backend::omp ? "omp" : "serial";
}

bool cuda_built() {
#ifdef IMPACT_WITH_CUDA
  return true;
#else
  return false;
#endif
}

bool cuda_usable(std::string* why) {
#ifdef IMPACT_WITH_CUDA
  return cuda::device_available(why);
#else
  if (why) *why = "this build has no CUDA backend (configure with -DIMPACT_CUDA=ON where nvcc exists)";
  return false;
#endif
}

std::string modes_string(std::uint32_t bits) {
  const ModeSeq m{bits};
  const int k = m.size();
  if (k == 0) return "none";
  std::string s;
  for (int i = 0; i < k; ++i) {
    if (i) s += '>';
    s += mode_name(m.at(i));
  }
  return s;
}

}  // namespace impact::host
