#!/usr/bin/env bash
# Register budget of the integrators on the GPU: ptxas's resource report of the CUDA build
# (build/ptxas/, scripts/kernel_resources.py) shows no spill stores or loads in any jia or
# stronge kernel or device function. A build without CUDA has no report: skipped (77).
set -u
BUILD=$(dirname "$(readlink -f "$1")")
python3 "$2/scripts/kernel_resources.py" "$BUILD" --check Jia,Stronge
