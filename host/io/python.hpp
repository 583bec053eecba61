// The Python interpreter for what the product runs in Python (the plots), found the way
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

// The plotting scripts the product runs (plot_study.py, plot_calibration.py, and plot_common.py,
// which they import from beside themselves), found relative to the program, so that an installed
// `impact` needs no source tree: the first folder holding `name` of
//   $IMPACT_PLOT_DIR                           when set (used alone: a user's own scripts);
//   <program>/../share/impactbatch/plot        the program from /proc/self/exe: PREFIX/bin/impact;
//   share/impactbatch/plot in the first four folders above the Python module holding this code
//                                              PREFIX/lib/python3/dist-packages/impactbatch/_core*.so;
//   the source tree's scripts/                 only for a program or module inside the build tree
//                                              it was built in (a build tree has no installed copy).
// `cmake --install` puts them in PREFIX/share/impactbatch/plot (CMakeLists.txt); `pip install .`
// in the environment's share/impactbatch/plot. `path` is empty when none holds the script.
struct PlotScriptFound {
  std::string path;
  std::string tried;  // the folders looked in, for the warning when none holds it
};
PlotScriptFound find_plot_script(const std::string& name);

}  // namespace impact::io
