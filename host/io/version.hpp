// The version and git revision of this build (for --version and the metadata of studies and
// benchmarks). Only host/io/version.cpp sees the values, so a new commit rebuilds one file.
#pragma once

namespace impact::io {

const char* version();       // e.g. "0.1.0"
const char* git_revision();  // short hash at build time, "-dirty" when tracked files differ, or "unknown"

}  // namespace impact::io
