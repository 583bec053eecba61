#!/usr/bin/env bash
# CUDA compiler launcher (CMake CUDA_COMPILER_LAUNCHER): runs the compile command given after LOGDIR
# and keeps ptxas's resource report (-Xptxas=-v: registers, stack, spill stores/loads per function)
# in LOGDIR/<object>.ptxas.log for perf/ptxas/kernel_resources.py; the build output keeps everything
# but the per-function "ptxas info" lines.
set -u
logdir=$1
shift
out=unknown
prev=
for a in "$@"; do
  [ "$prev" = "-o" ] && out=$a
  prev=$a
done
mkdir -p "$logdir"
log="$logdir/$(basename "$out").ptxas.log"
"$@" 2> "$log.tmp"
rc=$?
grep -v '^ptxas info' "$log.tmp" >&2
mv "$log.tmp" "$log"
exit $rc
