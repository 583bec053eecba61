#!/usr/bin/env bash
# Configures and builds impactbatch into ./build (Release), warnings as errors (IMPACT_WERROR; CI
# builds with this script). Extra arguments go to cmake, after ours (-DIMPACT_WERROR=OFF overrides).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DIMPACT_WERROR=ON "$@" >/dev/null
cmake --build build -j "$jobs"
