// Tests that need a CUDA device: one rule for skipping them. Without CUDA in the build or without a
// usable device (CI has none), a test skips with the runtime's reason:
//   "no usable CUDA device (REASON): WHAT skipped"
#pragma once
#include <string>

#include <gtest/gtest.h>

#include "engine/options.hpp"

namespace impact::test {

// Whether a device is usable; `why`: the device's description, or why there is none.
inline bool device_usable(std::string& why) { return engine::cuda_usable(&why); }

inline std::string device_skip_message(const std::string& why, const std::string& what) {
  return "no usable CUDA device (" + why + "): " + what + " skipped";
}

}  // namespace impact::test

// At the start of a test body: skips the test (naming `what`) unless a device is usable.
#define IMPACT_REQUIRE_DEVICE(what)                                                                                      \
  do {                                                                                                                   \
    std::string impact_why_;                                                                                             \
    if (!impact::test::device_usable(impact_why_)) GTEST_SKIP() << impact::test::device_skip_message(impact_why_, what); \
  } while (0)
