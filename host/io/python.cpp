#include "io/python.hpp"

#include <dlfcn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>

#ifndef IMPACT_BUILD_ROOT
#define IMPACT_BUILD_ROOT ""  // no build tree (CMakeLists.txt defines it): no fallback to the source tree
#endif

namespace impact::io {

namespace {

std::string quote(const std::string& s) {
  std::string q = "'";
  for (char ch : s) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return q + "'";
}

bool imports(const std::string& py, const std::string& mods) {
  const std::string cmd = quote(py) + " -c " + quote("import " + mods) + " >/dev/null 2>&1";
  const int rc = std::system(cmd.c_str());
  return rc != -1 && WIFEXITED(rc) && WEXITSTATUS(rc) == 0;
}

std::string real_path(const std::string& p) {
  char buf[PATH_MAX];
  return ::realpath(p.c_str(), buf) ? std::string(buf) : std::string();
}

std::string folder_of(const std::string& p) {  // "" above the root
  const std::size_t k = p.rfind('/');
  return k == std::string::npos ? std::string() : p.substr(0, k);
}

// The shared module this code is linked into (the Python package's _core), or "" in an executable:
// dladdr names the object holding an address of this file, and for the executable itself it gives
// argv[0], no path to rely on, which /proc/self/exe is.
const char kHere = 0;
std::string own_module() {
  Dl_info info{};
  const std::string f = dladdr(&kHere, &info) && info.dli_fname ? real_path(info.dli_fname) : std::string();
  return f.size() > 3 && f.compare(f.size() - 3, 3, ".so") == 0 ? f : std::string();
}

}  // namespace

PlotScriptFound find_plot_script(const std::string& name) {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("IMPACT_PLOT_DIR"); env && *env) {
    dirs.emplace_back(env);
  } else {
    const std::string exe = real_path("/proc/self/exe"), module = own_module(), build = real_path(IMPACT_BUILD_ROOT);
    if (!exe.empty()) dirs.push_back(folder_of(folder_of(exe)) + "/share/impactbatch/plot");
    std::string up = folder_of(module);
    for (int k = 0; k < 4 && !up.empty(); ++k) dirs.push_back((up = folder_of(up)) + "/share/impactbatch/plot");
    const std::string& own = module.empty() ? exe : module;  // in the build tree it was built in
    if (!build.empty() && own.compare(0, build.size() + 1, build + "/") == 0)
      dirs.push_back(std::string(IMPACT_SOURCE_ROOT) + "/scripts");
  }
  PlotScriptFound f;
  for (const std::string& d : dirs) {
    f.tried += (f.tried.empty() ? "" : " ") + d;
    struct stat st;
    if (::stat((d + "/" + name).c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
      f.path = d + "/" + name;
      break;
    }
  }
  return f;
}

PythonFound find_python(const std::vector<std::string>& modules) {
  std::string mods;
  for (const std::string& m : modules) mods += (mods.empty() ? "" : ",") + m;
  if (mods.empty()) mods = "sys";
  PythonFound f;
  if (const char* env = std::getenv("IMPACT_PYTHON"); env && *env) {
    f.tried = std::string("IMPACT_PYTHON=") + env;
    if (imports(env, mods)) f.path = env;
    return f;
  }
  std::vector<std::string> candidates;
  if (const char* path = std::getenv("PATH")) {
    std::string dir;
    for (const char* c = path;; ++c) {
      if (*c == ':' || *c == '\0') {
        candidates.push_back((dir.empty() ? std::string(".") : dir) + "/python3");
        dir.clear();
        if (*c == '\0') break;
      } else {
        dir += *c;
      }
    }
  }
  candidates.emplace_back("/usr/bin/python3");
  std::vector<std::string> seen;
  for (const std::string& py : candidates) {
    if (access(py.c_str(), X_OK) != 0) continue;
    bool dup = false;
    for (const std::string& s : seen) dup = dup || s == py;
    if (dup) continue;
    seen.push_back(py);
    f.tried += (f.tried.empty() ? "" : " ") + py;
    if (imports(py, mods)) {
      f.path = py;
      return f;
    }
  }
  return f;
}

}  // namespace impact::io
