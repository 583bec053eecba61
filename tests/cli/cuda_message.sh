#!/usr/bin/env bash
# `--backend cuda` where no CUDA device is usable says what is true and what `--backend auto` would
# run on instead: cudart's own words for cudaErrorInsufficientDriver ("CUDA driver version is
# insufficient for CUDA runtime version") are what it returns when there is no driver at all, and
# would send a user without one to update it. The cause is checked against the machine: no CUDA in
# this build (no libimpact_cuda.a beside the binary), no driver (libcuda.so.1 not loadable, or the
# toolkit's stub library), or a driver without a device / too old. Skipped (77) where a device is
# usable. (LD_LIBRARY_PATH=/usr/local/cuda/lib64/stubs-like folders holding a libcuda.so.1 link
# to the stub exercise the stub case on a machine without a driver.)
set -u
source "$(dirname "$0")/common.bash"
BUILD=$(dirname "$(readlink -f "$IMPACT")")

printf 'W_xx,W_xy,W_xz,W_yy,W_yz,W_zz,n_x,n_y,n_z,v_x,v_y,v_z,mu,e\n3.5,0,0,3.5,0,1,0,0,1,-3,0,-5,0.4,0.5\n' > "$T/c.csv"
"$IMPACT" eval --law newton --in "$T/c.csv" --out "$T/o.csv" --backend cuda -q 2> "$T/err"; rc=$?
if [ $rc -eq 0 ]; then
  echo "a CUDA device is usable here: nothing to check (skipped)"
  exit 77
fi

libcuda() {  # the libcuda.so.1 the dynamic loader finds (LD_LIBRARY_PATH, then ldconfig's cache)
  local d
  for d in ${LD_LIBRARY_PATH:+${LD_LIBRARY_PATH//:/ }}; do
    [ -e "$d/libcuda.so.1" ] && { readlink -f "$d/libcuda.so.1"; return 0; }
  done
  d=$(ldconfig -p 2> /dev/null | awk '$1 == "libcuda.so.1" {print $NF; exit}')
  [ -n "$d" ] && readlink -f "$d"
}
LIBCUDA=$(libcuda)
if [ ! -e "$BUILD/libimpact_cuda.a" ]; then  # the cause, as an extended regular expression
  cause="this build has no CUDA backend"
elif [ -z "$LIBCUDA" ]; then
  cause="no NVIDIA driver found \(libcuda\.so\.1 cannot be loaded"
elif [[ "$LIBCUDA" == */stubs/* ]]; then  # the toolkit's stub for linking, no driver
  cause="no NVIDIA driver found \(the libcuda\.so\.1 that loads, .*, is the CUDA toolkit's stub library, not a driver\)"
else
  cause="(an NVIDIA driver \(CUDA [0-9.]+\) but no CUDA device|the NVIDIA driver is too old: it supports CUDA up to [0-9.]+, this build's runtime is CUDA [0-9.]+)"
fi
echo "expected cause: $cause"
cat "$T/err"

check "--backend cuda: a usage error (exit 2), no output" '[ $rc -eq 2 ] && [ ! -e "$T/o.csv" ]'
check "it names the true cause" 'grep -Eq "backend .cuda. is not usable: $cause" "$T/err"'
check "not cudart's words for a missing driver" '! grep -q "driver version is insufficient" "$T/err"'
check "it says what auto would run on" 'grep -Eq "; --backend auto would run on the CPU here \(omp, [0-9]+ threads?\)$" "$T/err"'

# --backend auto runs, on omp, and its summary says why not CUDA, in the same words
"$IMPACT" eval --law newton --in "$T/c.csv" --out "$T/o.csv" --backend auto 2> "$T/sum"; rc=$?
check "--backend auto: exit 0 on omp" '[ $rc -eq 0 ] && grep -q "backend omp (auto: " "$T/sum" && [ "$(sed -n 2p "$T/o.csv" | awk -F, "{print \$NF}")" = ok ]'
if [ -e "$BUILD/libimpact_cuda.a" ]; then
  check "--backend auto: the summary gives the cause" 'grep -q "(auto: CUDA not usable: " "$T/sum" && ! grep -q "driver version is insufficient" "$T/sum"'
else
  check "--backend auto: the summary says the build has no CUDA" 'grep -q "(auto: built without CUDA)" "$T/sum"'
fi
finish
