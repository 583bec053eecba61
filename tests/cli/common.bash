# Shared by the CLI test scripts (sourced; not a test itself: ctest runs tests/cli/*.sh).
# Sets IMPACT (the binary, $1) and a temporary directory T removed at exit; check NAME CONDITION
# counts a pass or prints the failure; finish prints the counts and sets the exit status.
IMPACT=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
pass=0
check() {  # name, condition
  if eval "$2"; then pass=$((pass + 1)); else echo "FAIL: $1" >&2; fail=$((fail + 1)); fi
}
need_simt() {  # sets SIMT to impact-simt beside $IMPACT (perf/), or skips (77) a build without it
  SIMT="$(dirname "$IMPACT")/impact-simt"
  [ -x "$SIMT" ] || { echo "skipped: no impact-simt beside $IMPACT (IMPACT_PERF=OFF)"; exit 77; }
}
finish() {
  echo "$pass passed, $fail failed"
  [ $fail -eq 0 ]
}

same_summary() {  # same_summary A.json B.json: `impact reduce` summaries equal but for timings, the
  # processes' shares and the checkpoint's counts (needs $PY, a Python)
  "$PY" - "$1" "$2" <<'PYEOF'
import json, sys
drop = {"wall_seconds", "study_seconds", "cpu_seconds", "peak_rss_kb", "instances_per_second", "processes",
        "busy_max_over_mean", "checkpoint"}
a, b = (json.load(open(f)) for f in sys.argv[1:3])
strip = lambda d: {k: v for k, v in d.items() if k not in drop}
sys.exit(0 if strip(a) == strip(b) else 1)
PYEOF
}
same_tree() {  # same_tree A B: the same files (but metadata.json and plots), byte for byte
  (cd "$1" && find . -type f ! -name metadata.json ! -name '*.png' | sort) > "$T/tree1"
  (cd "$2" && find . -type f ! -name metadata.json ! -name '*.png' | sort) > "$T/tree2"
  cmp -s "$T/tree1" "$T/tree2" && [ -s "$T/tree1" ] || return 1
  while read -r f; do cmp -s "$1/$f" "$2/$f" || { echo "differs: $f" >&2; return 1; }; done < "$T/tree1"
}
