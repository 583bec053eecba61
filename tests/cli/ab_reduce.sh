#!/usr/bin/env bash
# perf/ab_reduce.py, the interleaved A/B of several builds (a lent GPU's throughput runs): on the
# serial backend, two labels of one binary give the same summary bits (--require-same passes); a
# build that samples other instances (a wrapper adding --seed 2) is reported as differing and fails
# --require-same; a build that fails is listed and fails the run; a malformed case is a usage error.
set -u
source "$(dirname "$0")/common.bash"
SRC=$2
PY=$(bash "$SRC/scripts/find_python.sh" 2> /dev/null || echo python3)
AB=("$PY" "$SRC/perf/ab_reduce.py")
printf '#!/bin/sh\nexec "%s" "$@" --seed 2\n' "$IMPACT" > "$T/other"
printf '#!/bin/sh\necho "broken build" >&2\nexit 3\n' > "$T/broken"
chmod +x "$T/other" "$T/broken"

"${AB[@]}" --build a="$IMPACT" --build b="$IMPACT" --case "stronge double" --n 200,400 --rounds 1 \
  --backend serial --out-dir "$T/s" --markdown "$T/s.md" --require-same > "$T/s.out" 2> "$T/s.err"
check "same binary twice: exit 0 with --require-same" "[ $? = 0 ]"
check "two rows marked same" "[ \$(grep -c '| same |' '$T/s.md') = 2 ]"
check "marginal rate and fixed cost columns" "grep -q 'marginal rate | fixed cost' '$T/s.md'"
check "one JSON per build, size and round" "[ \$(ls '$T/s' | wc -l) = 4 ]"
check "the table is also on stdout" "cmp -s '$T/s.md' '$T/s.out'"

"${AB[@]}" --build a="$IMPACT" --build other="$T/other" --case "newton float" --n 500 --rounds 2 \
  --backend serial --out-dir "$T/d" --require-same > "$T/d.out" 2> /dev/null
check "other instances: exit 1 with --require-same" "[ $? = 1 ]"
check "other instances: reported as differing in both rounds" "grep -q 'DIFFER (2 of 2)' '$T/d.out'"
"${AB[@]}" --build a="$IMPACT" --build other="$T/other" --case "newton float" --n 500 --rounds 1 \
  --backend serial --out-dir "$T/d2" > /dev/null 2>&1
check "without --require-same a difference is reported, exit 0" "[ $? = 0 ]"

"${AB[@]}" --build a="$IMPACT" --build broken="$T/broken" --case "newton double" --n 100 --rounds 1 \
  --backend serial --out-dir "$T/f" > "$T/f.out" 2> /dev/null
check "a failing build: exit 1" "[ $? = 1 ]"
check "a failing build: listed with its message" "grep -q 'broken newton double n=100 round 1: exit 3: broken build' '$T/f.out'"

"${AB[@]}" --build a="$IMPACT" --case "jia quad" --out-dir "$T/u" > /dev/null 2> "$T/u.err"
check "a malformed case: usage error 2" "[ $? = 2 ]"
check "a malformed case: says what was expected" "grep -q 'expected \"LAW double\" or \"LAW float\"' '$T/u.err'"
"${AB[@]}" --build "a=$T/none" --out-dir "$T/u" > /dev/null 2> "$T/u2.err"
check "a missing binary: usage error 2" "[ $? = 2 ]"
finish
