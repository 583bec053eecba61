#!/usr/bin/env bash
# Register budget of the integrators on the GPU: ptxas's resource report of the CUDA build
# (build/ptxas/, scripts/kernel_resources.py) shows no spill stores or loads in any jia or
# stronge kernel or device function, but the sampled reduction and eval kernels, whose launch
# bounds (kernels/cuda/sampled.cu kReduceMinBlocks, evaluate.cu kEvalMinBlocks = 4) cap them at 128
# registers for 25% occupancy and trade spills for it on purpose (measured faster on an H200):
# at most 128 registers and 4096 bytes of spill traffic per law and precision there. A build without CUDA has
# no report: skipped (77).
set -u
BUILD=$(dirname "$(readlink -f "$1")")
python3 "$2/scripts/kernel_resources.py" "$BUILD" --check Jia,Stronge --budget sampled_reduce_kernel=128:4096 \
  --budget eval_kernel=128:4096 --budget eval_ordered_kernel=128:4096
