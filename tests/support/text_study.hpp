// A study request for a config written in a test (TOML text), quiet and without plots.
#pragma once
#include <string>

#include "study/session.hpp"

namespace impact::test {

inline study::StudyRequest text_study(const char* toml, const std::string& out) {
  study::StudyRequest q;
  q.config = "test.toml";  // the name in messages
  q.text = toml;
  q.toml = true;
  q.out = out;
  q.plots = false;
  q.quiet = true;
  return q;
}

}  // namespace impact::test
