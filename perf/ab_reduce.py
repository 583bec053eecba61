#!/usr/bin/env python3
"""Throughput of several builds of `impact reduce`, interleaved in one run, with their summaries compared.

The A/B of a lent GPU in one command: every build runs every case right after the others (so drift of
the device's clocks or of a shared host falls on all of them alike), at two or more sizes (the marginal
rate between the smallest and the largest removes every fixed cost of a process: the first launch's
module load, the pilot, the first chunk's allocations), for several rounds; each run's summary (the
status counts and the quantities' moments and histograms) is compared bit for bit with the first
build's. Standard library only (it runs on a bare device image).

  python3 perf/ab_reduce.py --build new=build/impact --build base=/tmp/b3680/impact \\
      --case "jia double" --case "stronge float" --n 4000000,40000000 --rounds 2 --backend cuda \\
      --out-dir /tmp/ab --markdown /tmp/ab/ab.md

Prints the markdown table (and writes it to --markdown): per case and build the median rate at each
size, the marginal rate, the fixed cost per process, the ratio to the first build at the largest size,
and whether every summary had the first build's bits. Exit status: 0; 1 when --require-same and a
summary differs, or a run failed; 2 on a usage error.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", action="append", required=True, metavar="NAME=PATH",
                    help="an `impact` binary and its label (repeatable; the first is the reference)")
    ap.add_argument("--case", action="append", metavar='"LAW PRECISION"',
                    help='e.g. "jia double" (repeatable; default: jia and stronge, double and float)')
    ap.add_argument("--n", default="4000000,40000000", help="instance counts, comma-separated (default 4e6,4e7)")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--steps", type=int, default=250)
    ap.add_argument("--backend", default="cuda")
    ap.add_argument("--timeout", type=float, default=600, help="seconds per run")
    ap.add_argument("--out-dir", required=True, help="every run's JSON (NAME_LAW_PREC_N_ROUND.json)")
    ap.add_argument("--markdown", help="also write the table here")
    ap.add_argument("--require-same", action="store_true", help="exit 1 if a summary differs from the first build's")
    a = ap.parse_args(argv)
    builds = []
    for b in a.build:
        name, sep, path = b.partition("=")
        if not sep or not name or not path:
            ap.error("--build %r: expected NAME=PATH" % b)
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            ap.error("--build %s: %s is not an executable file" % (name, path))
        if any(name == n for n, _ in builds):
            ap.error("--build %s: the name is given twice" % name)
        builds.append((name, path))
    cases = []
    for c in a.case or ["jia double", "jia float", "stronge double", "stronge float"]:
        parts = c.split()
        if len(parts) != 2 or parts[1] not in ("double", "float"):
            ap.error('--case %r: expected "LAW double" or "LAW float"' % c)
        cases.append((parts[0], parts[1]))
    try:
        sizes = sorted({int(float(x)) for x in a.n.split(",") if x.strip()})
    except ValueError:
        ap.error("--n %r: expected counts such as 4000000,4e7" % a.n)
    if not sizes or sizes[0] < 1:
        ap.error("--n: at least one count >= 1")
    if a.rounds < 1 or a.steps < 1:
        ap.error("--rounds and --steps must be >= 1")
    return a, builds, cases, sizes


def summary_bits(d):
    """The run's outcome without its timings: the status counts and every quantity's summary."""
    return json.dumps({k: d.get(k) for k in ("status", "quantities")}, sort_keys=True)


def run_one(a, path, law, prec, n, out):
    cmd = [path, "reduce", "--law", law, "--precision", prec, "--n", str(n), "--steps", str(a.steps),
           "--backend", a.backend, "-q", "--out", out]
    try:
        p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=a.timeout, text=True)
    except subprocess.TimeoutExpired:
        return None, "over %g s" % a.timeout
    if p.returncode != 0:
        last = (p.stderr or "").strip().splitlines()
        return None, "exit %d: %s" % (p.returncode, last[-1] if last else "")
    try:
        return json.load(open(out)), ""
    except (OSError, ValueError) as e:
        return None, "no JSON (%s)" % e


def fmt(v):
    return "-" if v is None else "%.3g" % v


def main(argv=None):
    a, builds, cases, sizes = parse_args(argv)
    os.makedirs(a.out_dir, exist_ok=True)
    runs = {}  # (build, law, prec, n, round) -> json
    failures = []
    for r in range(1, a.rounds + 1):
        for law, prec in cases:
            for n in sizes:
                for name, path in builds:
                    out = os.path.join(a.out_dir, "%s_%s_%s_%d_%d.json" % (name, law, prec, n, r))
                    d, why = run_one(a, path, law, prec, n, out)
                    if d is None:
                        failures.append("%s %s %s n=%d round %d: %s" % (name, law, prec, n, r, why))
                    else:
                        runs[(name, law, prec, n, r)] = d
                    print("ab_reduce: round %d %s %s n=%d %s: %s" % (
                        r, law, prec, n, name, why or "%.4g/s" % d["instances_per_second"]), file=sys.stderr)

    ref = builds[0][0]
    differ = 0
    lines = ["| law, precision | build | " + " | ".join("n = %.3g" % n for n in sizes) +
             (" | marginal rate | fixed cost" if len(sizes) > 1 else "") + " | ratio to %s | summary bits |" % ref,
             "| --- | --- | " + " | ".join("---:" for _ in sizes) + (" | ---: | ---:" if len(sizes) > 1 else "") +
             " | ---: | --- |"]
    for law, prec in cases:
        ref_rate = None
        for name, _ in builds:
            marg, fixed, same = [], [], []
            rates = {n: [runs[k]["instances_per_second"] for k in
                         [(name, law, prec, n, r) for r in range(1, a.rounds + 1)] if k in runs] for n in sizes}
            cells = [", ".join(fmt(x) for x in rates[n]) or "-" for n in sizes]
            for r in range(1, a.rounds + 1):
                lo, hi = runs.get((name, law, prec, sizes[0], r)), runs.get((name, law, prec, sizes[-1], r))
                if len(sizes) > 1 and lo and hi and hi["study_seconds"] > lo["study_seconds"]:
                    m = (sizes[-1] - sizes[0]) / (hi["study_seconds"] - lo["study_seconds"])
                    marg.append(m)
                    fixed.append(lo["study_seconds"] - sizes[0] / m)
                for n in sizes:
                    d, d0 = runs.get((name, law, prec, n, r)), runs.get((ref, law, prec, n, r))
                    if d and d0:
                        same.append(summary_bits(d) == summary_bits(d0))
            top = rates[sizes[-1]]
            med = statistics.median(top) if top else None
            if name == ref:
                ref_rate = med
            ratio = "%.2f" % (med / ref_rate) if med and ref_rate else "-"
            bits = "-" if not same else ("same" if all(same) else "DIFFER (%d of %d)" % (same.count(False), len(same)))
            differ += same.count(False)
            row = "| %s %s | %s | %s" % (law, prec, name, " | ".join(cells))
            if len(sizes) > 1:
                row += " | %s | %s" % (fmt(statistics.median(marg)) if marg else "-",
                                        "%.0f ms" % (1e3 * statistics.median(fixed)) if fixed else "-")
            lines.append(row + " | %s | %s |" % (ratio, bits))
    text = "\n".join(lines) + "\n"
    text += ("\n`impact reduce --steps %d --backend %s`, instances/s per round; marginal rate = (n_max - n_min) / "
             "(t(n_max) - t(n_min)), fixed cost = t(n_min) - n_min / marginal (medians over rounds); summary bits: "
             "status counts and quantity summaries against %s's run of the same case, size and round.\n" % (
                 a.steps, a.backend, ref))
    if failures:
        text += "\nFailed runs:\n" + "".join("- %s\n" % f for f in failures)
    sys.stdout.write(text)
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(text)
    return 1 if failures or (a.require_same and differ) else 0


if __name__ == "__main__":
    sys.exit(main())
