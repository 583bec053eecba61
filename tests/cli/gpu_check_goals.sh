#!/usr/bin/env bash
# perf/gpu_check.sh --goals without a GPU: the dry run names the command of each of the seven goal
# rows, for this build and for the --baseline and --last builds, runs none and exits 0; the help
# states every row's time budget, which add up to less than the call's; the repository's own
# Cornell data is used. Then a run against stand-ins (an nvidia-smi and an `impact` that write
# fixed figures, a baseline that fails) fills the table path | measured | baseline | last | goal | met?.
set -u
source "$(dirname "$0")/common.bash"
SRC=$2
GC=("bash" "$SRC/perf/gpu_check.sh")
BUILD=$(dirname "$IMPACT")

"${GC[@]}" --goals --dry-run --build "$BUILD" --baseline "$T/base" --last "$T/last" --out "$T/g.md" > "$T/dry.out" 2> "$T/dry.err"
check "dry run: exit 0" "[ $? = 0 ]"
check "dry run: nothing written" "[ ! -e '$T/g.md' ] && [ ! -e '$T/g' ]"
row() {  # row ROW NAME GOAL PATTERN: the dry run names PATTERN for each of the three builds, and the goal
  local key dir
  for key in this base last; do
    case $key in this) dir=$BUILD ;; base) dir=$T/base ;; last) dir=$T/last ;; esac
    grep -E "^\[goal$1_${key}[]_]" "$T/dry.out" | grep -F -- "$dir/" | grep -qE -- "$4"
    check "dry run, $1 $2, $key build" "[ $? = 0 ]"
  done
  check "dry run, $1 $2: the goal" "grep -qF -- '$3' '$T/dry.out'"
}
row 1 "chatterjee-ruina reduce" ">= 5e9/s" "/impact reduce --law chatterjee-ruina --backend cuda --precision double --n [0-9]+ "
row 2 "identical-ball jia" ">= 4.3e7/s" \
  "/impact reduce --law jia --scenario ball --set V0x=-1 --set V0y=0 --set V0z=-5 --set w0x=0 --set w0y=2 --set mu=0.4 --set e=0.5 --backend cuda"
row 3 "evaluate on device arrays" ">= 1x JAX on every law" \
  "PYTHONPATH=[^ ]+/python [^ ]+ [^ ]*benches/python_bench.py --device --n [0-9]+ --laws newton,chatterjee-ruina,aghili,morgan"
row 4 "eval path share of a pinned memcpy" ">= 50%" "/impact bench --laws chatterjee-ruina --backends cuda --precisions double"
row 5 "10^6-row study" "<= 2" "/impact study [^ ]*examples/studies/pencil-mc.toml --set design.n=1000000 --backend cuda"
row 6 "Cornell fit" "cuda time <= omp time" \
  "/impact calibrate [^ ]*examples/calibration/cornell-jia.toml --set calibrate.method=.*fit.* --backend (cuda|omp)"
for be in cuda omp; do
  check "dry run, 6 Cornell fit on $be, three builds" "[ \$(grep -cE '^\[goal6_[a-z]+_$be\] timeout.* calibrate .*--backend $be ' '$T/dry.out') = 3 ]"
done
row 7 "stronge double reduce" ">= 1e8/s" "/impact reduce --law stronge --backend cuda --precision double --n [0-9]+ "
check "dry run: every command under timeout" \
  "[ \$(grep -c '^\[goal[1-7]_[a-z_]*\] timeout -k [0-9]* [0-9]* ' '$T/dry.out') = 24 ]"
check "dry run: no build" "! grep -qE 'cmake (-S|--build)' '$T/dry.out'"
check "dry run: the data of the repository" "! grep -q 'shared/' '$T/dry.out'"
"${GC[@]}" --goals --dry-run --build "$BUILD" --only 5 > "$T/only.out" 2> /dev/null
check "--only 5: the study alone" "grep -q '\] timeout.* study ' '$T/only.out' && ! grep -q '\] timeout.* reduce ' '$T/only.out'"

"${GC[@]}" --help > "$T/help.out"
budgets=$(sed -n '/^  --goals /,/^  --last /p' "$T/help.out" | sed -nE 's/.*[^ ]  +([0-9]+) s$/\1/p')
total=$(sed -nE 's/.*GOALS_TOTAL_S = ([0-9]+).*/\1/p' "$T/help.out")
check "help: a budget per row" "[ \$(printf '%s\n' \"$budgets\" | grep -c .) = 7 ]"
check "help: the budgets fit the call (under ${total:-?} s, under 8 minutes)" \
  "[ -n '$total' ] && [ \$(( $(printf '%s+' $budgets)0 )) -le $total ] && [ $total -lt 480 ]"
"${GC[@]}" --last "$T/last" > /dev/null 2>&1
check "--last without --goals: usage error 2" "[ $? = 2 ]"

# stand-ins: no GPU is needed to check the table
mkdir -p "$T/bin" "$T/b" "$T/bad"
printf '#!/bin/sh\ncase "$1" in -L) echo "GPU 0: stand-in" ;; --query-gpu*) echo "stand-in, 1.0, 1 MiB" ;; esac\n' > "$T/bin/nvidia-smi"
printf '#!/bin/sh\necho broken >&2\nexit 3\n' > "$T/bad/impact"
cat > "$T/b/impact" << 'EOF'
#!/usr/bin/env bash
cmd=$1 out="" law="" be=""
while [ $# -gt 0 ]; do
  case $1 in --out | --json) out=$2; shift ;; --law | --laws) law=$2; shift ;; --backend | --backends) be=$2; shift ;; esac
  shift
done
rate=3e7 total=1.0
[ "$law" != stronge ] || rate=1.2e8
[ "$be" != cuda ] || total=0.8
case $cmd in
  reduce) [ "$out" = /dev/null ] || printf '{"n": 40000000, "instances_per_second": %s}\n' "$rate" > "$out" ;;
  bench) printf '{"machine": {"cuda": {"link_h2d_gbs": 50}}, "results": [{"backend": "cuda", "gbytes_per_second": 30}]}\n' > "$out" ;;
  study) mkdir -p "$out" && printf '{"timings": {"total_s": 3, "laws_s": 1}}\n' > "$out/metadata.json" ;;
  calibrate) mkdir -p "$out" && printf '{"timings": {"total_s": %s, "law_s": 0.5}}\n' "$total" > "$out/metadata.json" ;;
esac
EOF
chmod +x "$T/bin/nvidia-smi" "$T/b/impact" "$T/bad/impact"
mkdir -p "$T/tmp"
PATH="$T/bin:$PATH" TMPDIR="$T/tmp" "${GC[@]}" --goals --build "$T/b" --baseline "$T/bad" --last "$T/b" --out "$T/r.md" > "$T/r.out" 2> "$T/r.err"
check "stand-ins: exit 0" "[ $? = 0 ]"
check "stand-ins: the header" "grep -qF '| path | measured | baseline ($T/bad) | last measured build ($T/b) | goal | met? |' '$T/r.out'"
check "stand-ins: seven rows" "[ \$(grep -cE '^\| [1-7]\. ' '$T/r.out') = 7 ]"
check "stand-ins: a rate below its goal" "grep -qE '^\| 1\. .*\| 3e\+07/s .*\| >= 5e9/s \| no \(0\.01 of it\) \|$' '$T/r.out'"
check "stand-ins: a rate over its goal" "grep -qE '^\| 7\. .*\| 1\.2e\+08/s .*\| >= 1e8/s \| yes \|$' '$T/r.out'"
check "stand-ins: the eval path's share" "grep -qE '^\| 4\. .*\| 60% .*\| >= 50% \| yes \|$' '$T/r.out'"
check "stand-ins: the study's ratio" "grep -qE '^\| 5\. .*\| 3\.00 .*\| <= 2 \| no \(1\.50 of it\) \|$' '$T/r.out'"
check "stand-ins: cuda over omp" "grep -qE '^\| 6\. .*\| cuda 0\.8 s .*: 0\.80 \|.*\| yes \|$' '$T/r.out'"
check "stand-ins: a failing baseline has no value" "[ \$(grep -cE '^\| [1-7]\. [^|]*\| [^|]*\| no value \(goal[1-7]_base' '$T/r.out') = 7 ]"
check "stand-ins: no Python module, no value, no verdict" "grep -qE '^\| 3\. .*no value \(goal3_this SKIP: no .*\| - \|$' '$T/r.out'"
check "stand-ins: the report holds the table" "grep -q '^## Goals' '$T/r.md' && [ \$(grep -cE '^\| [1-7]\. ' '$T/r.md') = 7 ]"
check "stand-ins: the study's tables removed" "[ -z \"\$(ls -A '$T/tmp')\" ]"
finish
