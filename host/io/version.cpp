#include "io/version.hpp"

#include "impact_revision.h"  // IMPACT_GIT_REV, written at build time (cmake/revision.cmake)

namespace impact::io {

const char* version() { return IMPACT_VERSION; }
const char* git_revision() { return IMPACT_GIT_REV; }

}  // namespace impact::io
