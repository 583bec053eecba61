#include "io/python.hpp"

#include <unistd.h>

#include <cstdlib>
#include <sys/wait.h>

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

}  // namespace

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
  candidates.push_back("/usr/bin/python3");
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
