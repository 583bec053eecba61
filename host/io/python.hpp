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

// The plotting scripts the product runs (plot_study.py, plot_calibration.py; plot_common.py beside
// them), found from the program, so that an installed `impact` needs no source tree: the first folder
// holding `name` of $IMPACT_PLOT_DIR when set (alone: a user's own scripts); else
// <program>/../share/impactbatch/plot (/proc/self/exe: PREFIX/bin/impact), share/impactbatch/plot in
// the four folders above the Python module holding this code (PREFIX/lib/python3/dist-packages/
// impactbatch/_core*.so), and the source tree's scripts/ for a program or module in the build tree it
// was built in, which has no installed copy. `cmake --install` and `pip install .` put them in
// PREFIX/share/impactbatch/plot. `path` is empty when no folder holds the script.
struct PlotScriptFound {
  std::string path;
  std::string tried;  // the folders looked in, for the warning when none holds it
};
PlotScriptFound find_plot_script(const std::string& name);

}  // namespace impact::io
