#!/usr/bin/env bash
# The whole benchmark matrix in one command (docs/bench.md):
#   1. builds ./build/impact with scripts/build.sh when it is missing, has no `bench`, or lacks the
#      CUDA backend on a machine with an NVIDIA GPU;
#   2. `impact bench`: every law x backend (serial, omp, cuda when usable) x precision x steps in ONE
#      run -> OUT/bench.json, OUT/bench.md;
#   3. the NumPy/JAX peers when benches/peers/run_peers.sh exists (skipped, with a note, when it is
#      absent or fails) -> OUT/peers/peers.json;
#   4. benches/RESULTS.md: machine, device, driver, versions, date, the tables, the peer table with
#      ours/peer ratios, and on a GPU the GPU/CPU (cuda/omp) ratios for jia and chatterjee-ruina.
#
# Usage: benches/run_matrix.sh [--quick] [--no-peers] [--no-build] [--out DIR] [--results FILE]
#                              [-- EXTRA impact bench OPTIONS]
# Env: IMPACT (binary; default ./build/impact), MIN_TIME (0.5), REPS (5), WARMUP (1), STEPS (250,1000),
#      PEERS_ARGS (extra run_peers.sh options; default with a GPU "--steps STEPS", without one
#      "--n 4000 --steps FIRST_STEP"), PEERS_TIMEOUT (seconds, 1800).
# About 2 minutes for `impact bench` with the defaults on a CPU (32 configurations x ~7 x MIN_TIME;
# 48 with CUDA), plus the peers (3 minutes on 2 cores: 5 minutes in all); --quick: MIN_TIME 0.1, REPS 3.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
args="$*"

out=out/bench
results=benches/RESULTS.md
peers=1
build=1
extra=()
MIN_TIME=${MIN_TIME:-0.5}
REPS=${REPS:-5}
WARMUP=${WARMUP:-1}
STEPS=${STEPS:-250,1000}
PEERS_TIMEOUT=${PEERS_TIMEOUT:-1800}
while [ $# -gt 0 ]; do
  case $1 in
    --quick) MIN_TIME=0.1; REPS=3; shift ;;
    --no-peers) peers=0; shift ;;
    --no-build) build=0; shift ;;
    --out) out=$2; shift 2 ;;
    --results) results=$2; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    -h | --help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run_matrix.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
log() { echo "run_matrix: $*" >&2; }

# ---- 1. the binary ----------------------------------------------------------------------------------
have_gpu=0
if command -v nvidia-smi > /dev/null 2>&1 && nvidia-smi -L > /dev/null 2>&1; then have_gpu=1; fi
if [ -n "${IMPACT:-}" ]; then
  build=0
else
  IMPACT=$root/build/impact
fi
if [ $build = 1 ]; then
  if [ ! -x "$IMPACT" ] || ! "$IMPACT" bench --help > /dev/null 2>&1; then
    log "building $IMPACT (scripts/build.sh)"
    bash scripts/build.sh
  elif [ $have_gpu = 1 ] && ! "$IMPACT" reduce --law newton --n 1 --backend cuda -q > /dev/null 2>&1; then
    log "an NVIDIA GPU is present but $IMPACT has no usable CUDA backend: rebuilding with -DIMPACT_CUDA=ON"
    bash scripts/build.sh -DIMPACT_CUDA=ON
  fi
fi
[ -x "$IMPACT" ] || { log "no impact binary at $IMPACT"; exit 1; }
IMPACT=$(cd "$(dirname "$IMPACT")" && pwd)/$(basename "$IMPACT")

# ---- 2. impact bench --------------------------------------------------------------------------------
mkdir -p "$out"
# with a GPU, larger batches amortize each call's pinned-buffer setup (memory allowing: impact bench
# caps the pool at 30% of MemAvailable)
maxn=()
if [ $have_gpu = 1 ]; then maxn=(--max-n 16777216); fi
cmd=("$IMPACT" bench --min-time "$MIN_TIME" --reps "$REPS" --warmup "$WARMUP" --steps "$STEPS" "${maxn[@]}"
     --json "$out/bench.json" --markdown "$out/bench.md" "${extra[@]}")
log "${cmd[*]}"
start=$(date +%s)
# progress lines on stderr, the table in the file (printed at the end)
"${cmd[@]}" > /dev/null
log "impact bench: $(($(date +%s) - start)) s"

# ---- 3. peers ---------------------------------------------------------------------------------------
peers_note=""
peers_json=""
if [ $peers = 0 ]; then
  peers_note="peers not run (--no-peers)"
elif [ ! -f benches/peers/run_peers.sh ]; then
  peers_note="peers not run: benches/peers/run_peers.sh is absent"
else
  mkdir -p "$out/peers"
  # The peers' step counts are ours, so that their rows have a counterpart. JAX's jia on a CPU
  # takes ~4 ms per instance at 250 steps on 2 cores: without a GPU the peers run on 4000 instances
  # and the first step count only (PEERS_ARGS overrides).
  if [ -z "${PEERS_ARGS+x}" ]; then
    if [ $have_gpu = 1 ]; then PEERS_ARGS="--steps ${STEPS//,/ }"; else PEERS_ARGS="--n 4000 --steps ${STEPS%%,*}"; fi
  fi
  peers_note="peers: run_peers.sh ${PEERS_ARGS}"
  log "peers: benches/peers/run_peers.sh $IMPACT $out/peers $PEERS_ARGS"
  start=$(date +%s)
  set +e
  # shellcheck disable=SC2086
  timeout "$PEERS_TIMEOUT" bash benches/peers/run_peers.sh "$IMPACT" "$out/peers" $PEERS_ARGS 2>&1 |
    tee "$out/peers.log" >&2
  rc=${PIPESTATUS[0]}
  set -e
  log "peers: exit $rc, $(($(date +%s) - start)) s"
  if [ -s "$out/peers/peers.json" ]; then
    peers_json=$out/peers/peers.json
    [ $rc = 0 ] || peers_note="$peers_note; exited with $rc (see $out/peers.log), its peers.json is shown"
  else
    peers_note="peers failed: run_peers.sh exited with $rc and wrote no peers.json (see $out/peers.log)"
  fi
fi

# ---- 4. RESULTS.md ----------------------------------------------------------------------------------
python3 - "$out/bench.json" "$peers_json" "$results" "$peers_note" "benches/run_matrix.sh $args" << 'PY'
import json, math, os, sys

bench_path, peers_path, results_path, peers_note, command = sys.argv[1:6]
b = json.load(open(bench_path))
m = b["machine"]
cu = m.get("cuda", {})


def eng(v):
    if v is None or not isinstance(v, (int, float)) or not math.isfinite(v):
        return "-"
    for s, f in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(v) >= f:
            return "%.3g %s" % (v / f, s)
    return "%.3g" % v


def rat(v):
    return "-" if v is None or not math.isfinite(v) else ("%.2f" % v if v < 10 else "%.1f" % v)


L = []
L.append("# Benchmark results")
L.append("")
L.append("Generated by `%s` (docs/bench.md) on %s. Instances: the sampled `%s` scenario of `impact reduce` "
         "(morgan: planar balls), seed %s, sampled once into SoA columns; every measurement is one `impact eval`-style "
         "batch call (per-row results written to memory)." % (command.strip(), m.get("date"),
                                                                 b["settings"]["scenario"], b["settings"]["seed"]))
L.append("")
L.append("## Machine")
L.append("")
L.append("| | |")
L.append("| --- | --- |")
rows = [("CPU", m.get("cpu")), ("cores", m.get("cores")), ("OMP threads", m.get("omp_threads")),
        ("compiler", m.get("compiler")), ("build", (m.get("build") or {}).get("type")),
        ("impactbatch", "%s (git %s)" % (m.get("version"), m.get("git_rev"))), ("date (UTC)", m.get("date")),
        ("load average (1 min) start / end", "%s / %s" % (m.get("load_average_start"), m.get("load_average_end")))]
if cu.get("usable"):
    rows += [("GPU", "%s (compute capability %s, %s SMs, %s MHz, %.0f GiB)" % (
        cu.get("device"), cu.get("compute_capability"), cu.get("sm_count"), cu.get("clock_mhz"),
        cu.get("memory_gib", 0))), ("CUDA driver / runtime", "%s / %s" % (cu.get("driver"), cu.get("runtime"))),
             ("peak FP64 / FP32 (GFLOP/s)", "%s / %s" % (rat(cu.get("peak_gflops_fp64")),
                                                       rat(cu.get("peak_gflops_fp32")))),
             ("peak DRAM bandwidth (GB/s)", rat(cu.get("peak_bandwidth_gbs")))]
else:
    rows += [("GPU", "none: " + str(cu.get("why_not", "not usable")))]
for k, v in rows:
    L.append("| %s | %s |" % (k, v))
L.append("")
L.append("## impact bench")
L.append("")
L.append(b["markdown"].rstrip())
L.append("")

# GPU / CPU
L.append("## GPU / CPU")
L.append("")
gc = [r for r in b["ratios"] if r["ratio"] == "cuda/omp" and r["law"] in ("jia", "chatterjee-ruina")]
if gc:
    L.append("Throughput ratio cuda / omp (all CPU cores of this machine), medians:")
    L.append("")
    L.append("| law | steps | precision | cuda / omp |")
    L.append("| --- | ---: | --- | ---: |")
    for r in gc:
        L.append("| %s | %s | %s | %s |" % (r["law"], r["steps"] if r["steps"] is not None else "-",
                                          r["precision"], rat(r["value"])))
else:
    L.append("Not measured: no usable CUDA device here (%s). On a GPU machine the same command "
             "(`benches/run_matrix.sh`) adds the cuda columns, the device's peak shares and this ratio for jia "
             "and chatterjee-ruina." % cu.get("why_not", "cuda not in --backends"))
L.append("")

# peers
L.append("## Peers (NumPy / JAX)")
L.append("")
ours = {}
for r in b["results"]:
    ours[(r["law"], r["precision"], r["steps"], r["backend"])] = r["instances_per_second"]["median"]


def field(r, *names):
    for n in names:
        if n in r and r[n] is not None:
            return r[n]
    return None


if peers_path and os.path.exists(peers_path):
    try:
        p = json.load(open(peers_path))
    except Exception as e:  # noqa: BLE001
        p = None
        L.append("peers.json could not be read: %s" % e)
    if p is not None:
        recs = p if isinstance(p, list) else (field(p, "results", "peers", "rows", "records") or [])
        meta = {k: v for k, v in p.items() if k not in ("results", "peers", "rows", "records")} \
            if isinstance(p, dict) else {}
        # versions: carried by the records, or by the per-run timing files next to peers.json
        extra = []
        pdir = os.path.dirname(os.path.abspath(peers_path))
        for f in sorted(os.listdir(pdir)):
            if f.endswith(".timing.json"):
                try:
                    extra.append(json.load(open(os.path.join(pdir, f))))
                except Exception:  # noqa: BLE001
                    pass
        for k in ("python", "numpy", "jax", "jaxlib"):
            vals = sorted({str(r[k]) for r in list(recs) + extra if isinstance(r, dict) and r.get(k)})
            if vals and k not in meta:
                meta[k] = ", ".join(vals)
        if meta:
            L.append("Peer environment: " + "; ".join(
                "%s %s" % (k, json.dumps(v) if isinstance(v, (dict, list)) else v) for k, v in meta.items()))
            L.append("")
        L.append("ours/peer: our median instances/s over the peer's, on the same class of device (a CPU peer "
                 "against our omp backend on all cores, a GPU peer against our cuda backend), same law, precision "
                 "and steps.")
        L.append("")
        L.append("| peer | device | law | steps | precision | peer instances/s | ours instances/s (backend) | "
                 "ours/peer | correct |")
        L.append("| --- | --- | --- | ---: | --- | ---: | ---: | ---: | --- |")
        for r in recs:
            if not isinstance(r, dict):
                continue
            peer = field(r, "peer", "name", "impl", "implementation")
            law = field(r, "law")
            prec = field(r, "precision", "dtype")
            steps = field(r, "steps")
            dev = str(field(r, "device", "platform", "backend") or "cpu")
            rate = field(r, "instances_per_second", "rate", "instances_per_s", "throughput")
            if isinstance(rate, dict):
                rate = rate.get("median")
            verdict = field(r, "verdict", "correct", "correctness", "passed", "check", "ok")
            if isinstance(verdict, dict):
                verdict = field(verdict, "verdict", "passed", "ok")
                verdict = "?" if verdict is None else verdict
            if isinstance(verdict, bool):
                verdict = "yes" if verdict else "NO"
            if str(peer).startswith("impact"):  # our own `impact eval`, timed by run_peers.sh
                peer = "%s (ours: `impact eval`, a cross-check)" % peer
            gpu = any(s in dev.lower() for s in ("gpu", "cuda"))
            backend = "cuda" if gpu else "omp"
            st = steps if law in ("jia", "stronge") else None
            o = ours.get((law, prec, st, backend))
            ratio = o / rate if (o and isinstance(rate, (int, float)) and rate > 0) else None
            L.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                peer, dev, law, steps if steps is not None else "-", prec, eng(rate),
                ("%s (%s)" % (eng(o), backend)) if o else "- (%s not measured)" % backend, rat(ratio),
                verdict if verdict is not None else (r.get("status") or "-")))
        if peers_note:
            L.append("")
            L.append(peers_note.replace("peers: ", "Peers run as: benches/peers/", 1) + ".")
else:
    L.append(peers_note or "no peers.json")
L.append("")
L.append("Raw numbers: `%s` (every repetition, quartiles, flop and byte counts, machine); "
         "cost model and method: docs/bench.md." % bench_path)
# the GPU sections written from benches/gpu_check.sh reports ("## H100 ...", "## H200 ...") are kept
if os.path.exists(results_path):
    keep, on = [], False
    for line in open(results_path).read().splitlines():
        if line.startswith("## "):
            on = line.startswith("## H100") or line.startswith("## H200")
        if on:
            keep.append(line)
    if keep:
        L.append("")
        L += keep
open(results_path, "w").write("\n".join(L) + "\n")
print("run_matrix: wrote %s" % results_path, file=sys.stderr)
PY
cat "$out/bench.md"
