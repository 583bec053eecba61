#!/usr/bin/env bash
# Register budget of the integrators on the GPU: ptxas's resource report of the CUDA build
# (build/ptxas/, perf/ptxas/kernel_resources.py) shows no spill stores or loads in any jia or
# stronge kernel or device function, but the sampled reduction and eval kernels (and the device-array
# path's fused kernels, the same law under the same bounds), whose launch
# bounds (kernels/cuda/sampled.cu reduce_min_blocks, evaluate.cu kEvalMinBlocks = 4) cap them at 128
# registers for 25% occupancy and trade spills for it on purpose (measured faster on an H200):
# at most 128 registers and 4096 bytes of spill traffic per law and precision there; their float
# reductions fit 5 blocks (96 registers; sm_90: jia 212 + 556 bytes, stronge 156 + 300), at
# most 1024 bytes, and jia's double one 3 blocks (168 registers, LaunchTraits<JiaLaw>::reduce_blocks_double:
# 260 + 292 bytes), at most 1024. Jia's stack frames are capped too (the third figure), about 30%
# above the frames of sm_90's build: sampled reduction 456 / 304 bytes (double / float), eval kernels
# 608 / 184. An out-of-line call that takes the address of jia's state would keep the whole state in
# local memory and grow the frame by 300-500 bytes (docs/bench.md, "The integrators' state out of
# local memory"); stronge keeps its state there on purpose (detail::Stronge::eval_unit). The algebraic
# laws' reduction kernels fit 96 registers (5 blocks per SM, 31% occupancy;
# kernels/cuda/sampled.cu reduce_min_blocks) with at most 96 bytes of spills (morgan double: 44 +
# 44, 8 bytes of them the contact scenario's rotation vector rx, ry, rz as keys of `impact reduce`,
# however it is written), but aghili double, the one heavy algebraic law (3069 flops), with at most
# 4096; no other kernel of theirs spills but aghili double's eval kernel and its fused device-array
# kernel. A build without CUDA has
# no report: skipped (77).
set -u
BUILD=$(dirname "$(readlink -f "$1")")
python3 "$2/perf/ptxas/kernel_resources.py" "$BUILD" --check Jia,Stronge --budget sampled_reduce_kernel=128:4096 \
  --budget sampled_reduce_kernel@Jia/float=96:1024:448 --budget sampled_reduce_kernel@Stronge/float=96:1024 \
  --budget sampled_reduce_kernel@Jia/double=168:1024:640 \
  --budget eval_kernel=128:4096 --budget eval_ordered_kernel=128:4096 \
  --budget eval_kernel@Jia/double=128:4096:800 --budget eval_ordered_kernel@Jia/double=128:4096:800 \
  --budget eval_kernel@Jia/float=128:4096:320 --budget eval_ordered_kernel@Jia/float=128:4096:320 \
  --budget array_ordered_kernel=128:4096 --budget array_ordered_kernel@Jia/double=128:4096:800 \
  --budget array_ordered_kernel@Jia/float=128:4096:320 || exit $?
python3 "$2/perf/ptxas/kernel_resources.py" "$BUILD" --check Newton,ChatterjeeRuina,Morgan,Aghili \
  --budget sampled_reduce_kernel=96:96 --budget sampled_reduce_kernel@Aghili/double=96:4096 \
  --budget eval_kernel@Aghili/double=128:4096 --budget array_kernel@Aghili/double=128:4096
