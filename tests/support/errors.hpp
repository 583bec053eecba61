// The message of the std::invalid_argument a call throws, or "no error": tests compare what a
// refusal says.
#pragma once
#include <stdexcept>
#include <string>

namespace impact::test {

template <class F>
std::string invalid_argument_of(F&& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) { return e.what(); }
  return "no error";
}

}  // namespace impact::test
