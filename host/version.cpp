#include "version.hpp"

namespace impact::host {

const char* version() { return IMPACT_VERSION; }
const char* git_revision() { return IMPACT_GIT_REV; }

}  // namespace impact::host
