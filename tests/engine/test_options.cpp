// host/engine run options (engine/options.hpp): precision, integrator, steps and backend parsed from
// their names at the command boundary, with the documented messages.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "engine/options.hpp"

using namespace impact;

namespace {

std::string message_of(void (*f)()) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST(EngineOptions, ParseAndNameTheRunOptions) {
  using engine::Backend;
  using engine::Precision;
  EXPECT_EQ(engine::parse_precision("double"), Precision::f64);
  EXPECT_EQ(engine::parse_precision("float"), Precision::f32);
  for (Precision p : {Precision::f64, Precision::f32}) EXPECT_EQ(engine::parse_precision(engine::precision_name(p)), p);
  EXPECT_EQ(message_of([] { engine::parse_precision("half"); }), "precision must be 'double' or 'float', got 'half'");
  EXPECT_EQ(engine::parse_integrator("rk4"), Integrator::rk4);
  EXPECT_EQ(engine::parse_integrator("euler"), Integrator::euler);
  for (Integrator i : {Integrator::rk4, Integrator::euler}) EXPECT_EQ(engine::parse_integrator(engine::integrator_name(i)), i);
  EXPECT_EQ(message_of([] { engine::parse_integrator("RK4"); }), "integrator must be 'rk4' or 'euler', got 'RK4'");
  const LawOptions o = engine::law_options(17, Integrator::euler);
  EXPECT_EQ(o.steps, 17);
  EXPECT_EQ(o.integrator, Integrator::euler);
  EXPECT_EQ(engine::law_options(1, Integrator::rk4).steps, 1);
  EXPECT_EQ(message_of([] { engine::law_options(0, Integrator::rk4); }), "--steps must be >= 1");

  EXPECT_EQ(engine::resolve_backend("serial", Precision::f32, false), Backend::serial);
  EXPECT_EQ(engine::resolve_backend("omp", Precision::f64, true), Backend::omp);
  EXPECT_EQ(engine::resolve_backend("reference", Precision::f64, true), Backend::reference);
  for (Backend b : {Backend::serial, Backend::omp, Backend::reference})
    EXPECT_EQ(engine::resolve_backend(engine::backend_name(b), Precision::f64, true), b);
  const bool cuda = engine::cuda_usable();
  EXPECT_EQ(engine::resolve_backend("auto", Precision::f64, false), cuda ? Backend::cuda : Backend::omp);
  if (!cuda) {
    EXPECT_EQ(message_of([] { engine::resolve_backend("cuda", Precision::f64, false); }).rfind("backend 'cuda' is not usable: ", 0),
              0u);
  }
  EXPECT_EQ(message_of([] { engine::resolve_backend("reference", Precision::f32, true); }),
            "backend 'reference' is double precision only (got --precision float)");
  EXPECT_EQ(message_of([] { engine::resolve_backend("reference", Precision::f64, false); }),
            "unknown backend 'reference' (known: auto, cuda, omp, serial)");
  EXPECT_EQ(message_of([] { engine::resolve_backend("gpu", Precision::f64, true); }),
            "unknown backend 'gpu' (known: auto, cuda, omp, serial, reference)");
}

// What the summaries say about an automatic choice of backend.
TEST(EngineOptions, AutoSaysWhyItChose) {
  EXPECT_EQ(engine::backend_choice("omp", engine::Backend::omp), "");
  EXPECT_EQ(engine::backend_choice("cuda", engine::Backend::cuda), "");
  const engine::Backend chosen = engine::resolve_backend("auto", engine::Precision::f64, false);
  const std::string why = engine::backend_choice("auto", chosen);
  if (!engine::cuda_built()) {
    EXPECT_EQ(why, " (auto: built without CUDA)");
  } else if (chosen == engine::Backend::cuda) {
    EXPECT_EQ(why.rfind(" (auto: CUDA device ", 0), 0u) << why;
  } else {
    std::string reason;
    ASSERT_FALSE(engine::cuda_usable(&reason));
    EXPECT_EQ(why, " (auto: CUDA not usable: " + reason + ")");
  }
}
