#!/usr/bin/env bash
# Fuzzes the harnesses of tests/fuzz with libFuzzer (clang, ASan + UBSan), SECONDS each, one after
# the other, each on a fresh copy of its seed corpus (the tree's corpus is never written), and prints
# a table: executions, new inputs, peak memory, findings. Exits 1 when any harness found something
# (a crash, a sanitizer report, a broken invariant, a hang over 10 s, a leak, over 2 GB): the
# reproducer is copied to build-fuzz/findings/<harness>/ and named in the message.
#
#   bash scripts/fuzz.sh                 # 60 s per harness (the CI run of .ci/run)
#   bash scripts/fuzz.sh 3600            # the longer run (docs/testing.md)
#   bash scripts/fuzz.sh 300 fuzz_law_jia fuzz_law_stronge
#
# Environment: FUZZ_SEED (libFuzzer's -seed: a reproducible run, as .ci/run's; unset: a fresh
# random seed per harness), FUZZ_JOBS (build jobs, default nproc), FUZZ_KEEP=1 (keep the grown corpora and logs,
# printed at the end), FUZZ_GOING=1 (keep going after a finding: libFuzzer's -fork=1 with crashes,
# timeouts and OOMs ignored, every reproducer kept, executions read from its last status line; by
# default a harness stops at its first finding and its executions come from -print_final_stats). Builds into build-fuzz/ (cmake -DIMPACT_FUZZ=ON with clang++, no CUDA).
# Reproducing a finding: build-fuzz/tests/fuzz/<harness> FILE (or, without clang, the replay program
# of the ordinary build: build/tests/fuzz/<harness> FILE); once fixed, save FILE under
# tests/fuzz/findings/<harness>/, where ctest replays it (fuzz.replay.<harness>).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

secs=${1:-60}
if [ $# -gt 0 ]; then shift; fi
case "$secs" in '' | *[!0-9]*) echo "usage: scripts/fuzz.sh [SECONDS] [HARNESS...]" >&2; exit 2 ;; esac
ALL=(fuzz_csv fuzz_config_toml fuzz_config_json fuzz_calibrate_toml fuzz_design fuzz_folder
     fuzz_law_newton fuzz_law_chatterjee_ruina fuzz_law_aghili fuzz_law_morgan fuzz_law_stronge fuzz_law_jia)
if [ $# -gt 0 ]; then harnesses=("$@"); else harnesses=("${ALL[@]}"); fi
for h in "${harnesses[@]}"; do
  if [ ! -d "tests/fuzz/corpus/$h" ]; then echo "fuzz: unknown harness '$h' (known: ${ALL[*]})" >&2; exit 2; fi
done

bash scripts/bootstrap.sh fuzz
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)}
t0=$(date +%s)
cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ -DIMPACT_FUZZ=ON >/dev/null
cmake --build build-fuzz -j "$jobs" --target "${harnesses[@]}"
echo "fuzz: built ${#harnesses[@]} harness(es) in $(($(date +%s) - t0)) s" >&2

work=$(mktemp -d "${TMPDIR:-/tmp}/impact-fuzz.XXXXXX")
if [ "${FUZZ_KEEP:-0}" != 1 ]; then trap 'rm -rf "$work"' EXIT; fi
dict_of() {
  case "$1" in
    fuzz_csv) echo tests/fuzz/dict/csv.dict ;;
    fuzz_config_toml | fuzz_calibrate_toml) echo tests/fuzz/dict/config_toml.dict ;;
    fuzz_config_json) echo tests/fuzz/dict/config_json.dict ;;
  esac
}
stat_of() { sed -n "s/^stat::$1: *\([0-9]*\).*/\1/p" "$2" | tail -1; }

rows=()
failed=()
for h in "${harnesses[@]}"; do
  d="$work/$h"
  mkdir -p "$d/corpus" "$d/artifacts"
  cp tests/fuzz/corpus/"$h"/* "$d/corpus/"
  seeds=$(ls "$d/corpus" | wc -l)
  args=(-max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
        -artifact_prefix="$d/artifacts/")
  if [ "${FUZZ_GOING:-0}" = 1 ]; then args+=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1); fi
  if [ -n "${FUZZ_SEED:-}" ]; then args+=(-seed="$FUZZ_SEED"); fi
  dict=$(dict_of "$h")
  if [ -n "$dict" ]; then args+=(-dict="$dict"); fi
  echo "fuzz: $h for $secs s ($seeds seeds)" >&2
  set +e
  t1=$(date +%s)
  build-fuzz/tests/fuzz/"$h" "${args[@]}" "$d/corpus" >"$d/log" 2>&1
  rc=$?
  ran=$(($(date +%s) - t1))
  set -e
  execs=$(stat_of number_of_executed_units "$d/log")
  rate=$(stat_of average_exec_per_sec "$d/log")
  added=$(stat_of new_units_added "$d/log")
  rss=$(stat_of peak_rss_mb "$d/log")
  if [ -z "$execs" ]; then  # fork mode: "#539204: cov: 2480 ft: 3410 corp: 558 exec/s 5582 ... time: 71s"
    last=$(grep -E '^#[0-9]+: cov:' "$d/log" | tail -1)
    execs=$(echo "$last" | sed -n 's/^#\([0-9]*\):.*/\1/p')
    t=$(echo "$last" | sed -n 's/.* time: \([0-9]*\)s.*/\1/p')
    if [ -n "$execs" ] && [ "${t:-0}" -gt 0 ]; then rate=$((execs / t)); fi
    added=$(( $(ls "$d/corpus" | wc -l) - seeds ))
  fi
  found=$(find "$d/artifacts" -type f | sort)
  result="none"
  if [ -n "$found" ] || [ "$rc" != 0 ]; then
    keep="$root/build-fuzz/findings/$h"
    mkdir -p "$keep"
    cp "$d/log" "$keep/log.txt"
    saved=()
    for f in $found; do cp "$f" "$keep/"; saved+=("$keep/$(basename "$f")"); done
    kinds=$(for f in $found; do basename "$f" | cut -d- -f1; done | sort | uniq -c | awk '{printf "%s%s x%s", (NR > 1 ? ", " : ""), $2, $1}')
    result="${kinds:-exit $rc}"
    failed+=("$h: ${kinds:-exit $rc} (${saved[*]:-no reproducer}; log $keep/log.txt)")
    # the whole report, not its first line: a finding of a fuzz_law_* harness names the instance
    # (its row of an `impact eval` table) and the outcome on the lines after its first
    awk '/==== fuzz finding|ERROR: (AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|libFuzzer)|runtime error/ {on = 1}
         on && n < 12 {print; n++}' "$d/log" >&2 || true
    # and each reproducer itself, for a CI log that is all there is left of the machine that found
    # it: base64 -d into a file and replay it (docs/testing.md)
    for f in $found; do
      if [ "$(stat -c %s "$f")" -le 4096 ]; then
        echo "fuzz: reproducer $(basename "$f") (base64): $(base64 -w0 "$f")" >&2
      fi
    done
  fi
  rows+=("$(printf '%-28s %6s %12s %9s %6s %7s %7s  %s' "$h" "$ran" "${execs:-?}" "${rate:-?}" "$seeds" "${added:-?}" "${rss:-?}" "$result")")
done

echo
printf '%-28s %6s %12s %9s %6s %7s %7s  %s\n' harness seconds executions exec/s seeds new rss_mb findings
for r in "${rows[@]}"; do echo "$r"; done
if [ "${FUZZ_KEEP:-0}" = 1 ]; then echo "fuzz: corpora and logs kept in $work"; fi
if ((${#failed[@]})); then
  echo
  echo "fuzz: FINDINGS in ${#failed[@]} harness(es):" >&2
  for f in "${failed[@]}"; do echo "  $f" >&2; done
  exit 1
fi
echo "fuzz: no findings"
