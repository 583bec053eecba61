#!/usr/bin/env bash
# clang-tidy (the checks of .clang-tidy at the root) over the C++ files of host/, kernels/ and perf/simt/
# (the SIMT model and its command; not its tests) in a
# build's compile_commands.json, in parallel; the headers of include/impact, host/ and kernels/ are
# checked through the files that include them (HeaderFilterRegex). The .cu files are left out: their
# entries are nvcc command lines, and clang-tidy 14's CUDA front end knows neither those flags nor
# CUDA 13; the headers they share with the host (include/impact, kernels/) are checked from the .cpp
# files. Fails on any finding, each printed once (a header's finding comes from every file that
# includes it). ctest runs it as lint.clang_tidy; exit 77 (a skip) when clang-tidy is not installed
# (scripts/bootstrap.sh installs it).
#   bash scripts/clang_tidy.sh BUILD [JOBS] [REGEX]   # REGEX: only the files whose path matches it
set -euo pipefail
build=$(cd "${1:?usage: clang_tidy.sh BUILD [JOBS] [REGEX]}" && pwd)
jobs=${2:-$(nproc 2> /dev/null || echo 2)}
only=${3:-}
root=$(cd "$(dirname "$0")/.." && pwd)
tidy=$(command -v clang-tidy || command -v clang-tidy-14 || true)
if [ -z "$tidy" ]; then
  echo "lint.clang_tidy: skipped, clang-tidy is not installed (scripts/bootstrap.sh installs it)"
  exit 77
fi
if [ ! -f "$build/compile_commands.json" ]; then
  echo "lint.clang_tidy: $build/compile_commands.json is missing (CMAKE_EXPORT_COMPILE_COMMANDS)" >&2
  exit 1
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
python3 - "$build/compile_commands.json" "$root" "$only" > "$out/files" << 'EOF'
import json, re, sys
db, root, only = sys.argv[1], sys.argv[2].rstrip("/") + "/", sys.argv[3]
files = sorted({e["file"] for e in json.load(open(db))})
for f in files:
    rel = f[len(root):] if f.startswith(root) else None
    tool = rel and rel.startswith("perf/simt/") and not rel.endswith("test_simt.cpp")  # the SIMT model, its command
    if rel and (rel.startswith(("host/", "kernels/")) or tool) and rel.endswith(".cpp") and re.search(only, rel):
        print(f)
EOF
n=$(wc -l < "$out/files")
if [ "$n" = 0 ]; then
  echo "lint.clang_tidy: no host/ or kernels/ file in $build/compile_commands.json" >&2
  exit 1
fi
echo "lint.clang_tidy: $("$tidy" --version | grep -o 'version [0-9.]*'), $n files, $jobs jobs"
start=$SECONDS
# -Wno-error: the build's -Werror (IMPACT_WERROR) would make clang's own warnings errors, which
# clang-tidy reports whatever the checks; g++ is the compiler whose warnings the build checks
export tidy build out
tr '\n' '\0' < "$out/files" | xargs -0 -P "$jobs" -n 1 bash -c \
  'log=$out/$(echo "$1" | tr / _).log
   t0=$(date +%s%N)
   "$tidy" -p "$build" --quiet --extra-arg=-Wno-error --extra-arg=-Wno-unknown-warning-option "$1" > "$log" 2>&1
   rc=$?
   echo "seconds=$((($(date +%s%N) - t0) / 1000000000)) $1" >> "$log"
   echo "rc=$rc" >> "$log"' _
# a finding: "path:line:col: warning|error: message [check]"; a file that does not compile also
# fails (clang-diagnostic-error), and so does a clang-tidy that stopped another way
grep -hE '^[^ ]+:[0-9]+:[0-9]+: (warning|error): .*\[[a-zA-Z0-9.,-]+\]$' "$out"/*.log | sort -u > "$out/findings" || true
nf=$(wc -l < "$out/findings")
echo "lint.clang_tidy: $nf findings in $((SECONDS - start)) s; the slowest files (s):"
grep -h '^seconds=' "$out"/*.log | sed 's/^seconds=//' | sort -rn | head -n 5 | sed "s|$root/|  |"
if [ "$nf" != 0 ]; then
  cat "$out/findings"
  echo "per check:"
  sed -E 's/.*\[([^]]+)\]$/\1/' "$out/findings" | sort | uniq -c | sort -rn
fi
for log in "$out"/*.log; do
  if [ "$(tail -n 1 "$log")" != rc=0 ] && ! grep -qE ': (warning|error): ' "$log"; then
    echo "lint.clang_tidy: clang-tidy failed without a finding:" >&2
    cat "$log" >&2
    nf=$((nf + 1))
  fi
done
[ "$nf" = 0 ]
