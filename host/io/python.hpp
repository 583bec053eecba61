// The Python interpreter for what the product runs in Python (the study's plots), found the way
// users expect, by the same rule as scripts/find_python.sh: $IMPACT_PYTHON when set, else each
// python3 on PATH in PATH order, then /usr/bin/python3 (where scripts/bootstrap.sh installs
// Debian's numpy and matplotlib); the first that imports every module named.
#pragma once
#include <string>
#include <vector>

namespace impact::io {

struct PythonFound {
  std::string path;   // the interpreter; empty when none imports the modules
  std::string tried;  // what was tried, for the message when none does
};

PythonFound find_python(const std::vector<std::string>& modules);

}  // namespace impact::io
