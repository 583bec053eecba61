#include "engine/registry.hpp"

#include <stdexcept>

#include "impact/laws/all.hpp"
#include "kernels/omp/omp.hpp"
#include "kernels/serial/serial.hpp"
#ifdef IMPACT_WITH_CUDA
#include "kernels/cuda/cuda.hpp"
#endif

namespace impact::engine {

namespace {

static_assert(static_cast<int>(Backend::serial) == 0 && static_cast<int>(Backend::omp) == 1 &&
                  static_cast<int>(Backend::cuda) == 2,
              "EntryPoints are indexed by Backend");

template <class Law, class T>
EntryPoints<T> entry_points_of() {
#ifdef IMPACT_WITH_CUDA
  return EntryPoints<T>{{&serial::evaluate<Law, T>, &omp::evaluate<Law, T>, &cuda::evaluate<Law, T>},
                        {&serial::reduce_sampled<Law, T>, &omp::reduce_sampled<Law, T>, &cuda::reduce_sampled<Law, T>},
                        &cuda::evaluate_device_arrays<Law, T>};
#else
  return EntryPoints<T>{{&serial::evaluate<Law, T>, &omp::evaluate<Law, T>, nullptr},
                        {&serial::reduce_sampled<Law, T>, &omp::reduce_sampled<Law, T>, nullptr},
                        nullptr};
#endif
}

template <class Law>
LawInfo make(int& index) {
  return LawInfo{index++,
                 Law::name,
                 Law::summary,
                 Law::use(),
                 std::vector<ExtraColumn>(Law::extras.begin(), Law::extras.end()),
                 Law::cost,
                 entry_points_of<Law, double>(),
                 entry_points_of<Law, float>()};
}

std::vector<LawInfo> make_all() {
  int index = 0;
#define IMPACT_REGISTER(LAW) make<LAW>(index),
  return std::vector<LawInfo>{IMPACT_FOR_EACH_LAW(IMPACT_REGISTER)};
#undef IMPACT_REGISTER
}

}  // namespace

int LawInfo::input_count() const {
  int n = 0;
  for (int k = 0; k < kNumInputs; ++k) n += reads(k);
  return n;
}

double LawInfo::bytes_per_instance(Precision p) const {
  const std::size_t tsize = p == Precision::f32 ? sizeof(float) : sizeof(double);
  return double(std::size_t(input_count()) * tsize + kNumRealOutputs * tsize + 4 + 4 + 1);
}

double LawInfo::flops_per_instance(double mean_steps) const { return cost.flops_instance + cost.flops_step * mean_steps; }

const std::vector<LawInfo>& all_laws() {
  static const std::vector<LawInfo> laws = make_all();
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

const LawInfo& law_named(std::string_view name) {
  if (const LawInfo* l = find_law(name)) return *l;
  throw std::invalid_argument("unknown law '" + std::string(name) + "' (known: " + law_names() + ")");
}

}  // namespace impact::engine
