#!/usr/bin/env python3
"""Set the SIMT model's issue per code block beside a per-source-line GPU profile.

The model (`impact-simt --json FILE`) gives, per code block of an integrator, its share of
the warp issue and its active threads per warp; each block names the functions its instructions
come from (SimtCosts<Law>::code, perf/simt/simt_costs.hpp). A per-line profile (the hotspots CSV that
a converter of an Nsight Compute source export writes, kept with the measurements) gives,
per source line, the function the line table charges it to, the warp instructions, the thread
instructions and the stall samples.

Blocks that name a common function are merged into one group (e.g. a step and the event search that
re-runs the step's Runge-Kutta body), and the profile's lines are summed per group by the function
they belong to. The table then reads, per group: the model's share of the issue and active threads
against the measured share of warp instructions, active threads and share of stall samples. A line
of a function no block names (a helper such as dot or axpy, inlined into the law) goes to the
first call site of its inlining chain (the CSV's `inlined_at`, innermost first) whose function,
found in the source tree (--root, as scripts/check_layout.py finds functions), a block names; what
is left is summed in a last row (`other`) with its largest functions.

The profile must be of the same build as the model's trace (the function names must match); the
model covers the sorted schedule the kernels run (`sorted_blocks`) unless --schedule grid_stride.

    impact-simt --laws stronge --precisions double --steps 250 --json simt.json -q
    python3 perf/sass/simt_beside_hotspots.py --simt simt.json --hotspots hotspots_stronge.csv \
        --law stronge --precision double --steps 250
"""
import argparse
import csv
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from simt_inputs import SourceFunctions, model_row


def method_name(function):
    """The unqualified function of a demangled name: detail::Jia::Run<double>::control<NoProbe> -> control;
    a lambda's or operator's enclosing function; '' for none."""
    f = function.replace("(…)", "").replace("(...)", "")
    prev = None
    while prev != f:  # strip template arguments, innermost first
        prev = f
        f = re.sub(r"<[^<>]*>", "", f)
    f = re.sub(r"\([^()]*\)", "", f)
    parts = [p for p in f.split("::") if p and not p.startswith("{") and not p.startswith("operator")]
    return parts[-1].strip() if parts else ""


def groups_of(blocks):
    """Union of the blocks that share a function: [(set of functions, [blocks])]."""
    groups = []
    for b in blocks:
        fns = set(b["code"].split())
        hit = [g for g in groups if g[0] & fns]
        merged = (set(fns), [b])
        for g in hit:
            merged[0].update(g[0])
            merged[1].extend(g[1])
            groups.remove(g)
        groups.append(merged)
    return groups


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--simt", required=True, help="JSON of impact-simt --json")
    ap.add_argument("--hotspots", required=True, help="per-line profile CSV (hotspots_<law>.csv)")
    ap.add_argument("--law", required=True)
    ap.add_argument("--precision", default="double")
    ap.add_argument("--steps", type=int, default=250)
    ap.add_argument("--schedule", choices=("sorted", "grid_stride"), default="sorted")
    ap.add_argument("--root", default=".", help="the source tree of the profiled build (call sites' functions)")
    a = ap.parse_args(argv)

    which = "sorted_blocks" if a.schedule == "sorted" else "blocks"
    blocks = model_row(a.simt, a.law, a.precision, a.steps, which)[which]
    if any(not b.get("code") for b in blocks):
        sys.exit(f"{a.simt}: blocks without code (a trace older than Law::seg_code)")
    total_issue = sum(b["warp_issue"] for b in blocks)

    need = ("function", "warp_insts", "thread_insts", "stall_samples")
    lines, bad = [], 0
    for r in csv.DictReader(open(a.hotspots, newline="")):
        if any(k not in r for k in need):
            sys.exit(f"{a.hotspots}: expected the columns {list(need)}")
        try:
            r["_v"] = tuple(float(r[k]) for k in need[1:])
        except (TypeError, ValueError):
            bad += 1  # a short or damaged row
            continue
        r["function"] = r["function"] or ""
        lines.append(r)
    if not lines:
        sys.exit(f"{a.hotspots}: no rows with numbers")
    if bad:
        print(f"{a.hotspots}: {bad} rows without numbers left out", file=sys.stderr)
    total_warp = sum(r["_v"][0] for r in lines)
    total_stall = sum(r["_v"][2] for r in lines)

    groups = groups_of(blocks)
    meas = [[0.0, 0.0, 0.0] for _ in groups]  # warp insts, thread insts, stall samples
    other, other_fns = [0.0, 0.0, 0.0], {}
    src = SourceFunctions(a.root)

    def function_at(site):
        """The function whose body holds a call site "file:line" of the profiled source tree."""
        path, _, line = site.strip().rpartition(":")
        return src.at(path, int(line))[1] if path and line.isdigit() else ""

    def group_of(r):
        # the line's own function, else (a small helper inlined into the law: dot, axpy, operator*)
        # the first call site of its inlining chain whose function a block names
        for m in [method_name(r["function"])] + [function_at(site) for site in (r.get("inlined_at") or "").split("<-")]:
            k = next((i for i, g in enumerate(groups) if m and m in g[0]), None)
            if k is not None:
                return k
        return None

    for r in lines:
        v = r["_v"]
        k = group_of(r)
        acc = other if k is None else meas[k]
        for j in range(3):
            acc[j] += v[j]
        if k is None:
            other_fns[r["function"] or "(no function)"] = other_fns.get(r["function"] or "(no function)", 0) + v[2]

    def pct(x, t):
        return f"{100 * x / t:.1f}%" if t > 0 else "-"

    def act(w, t):
        return f"{t / w:.1f}" if w > 0 else "-"

    out = [f"Model ({a.schedule} schedule, {a.law} {a.precision}, {a.steps} steps) beside {a.hotspots}\n",
           "| functions | model blocks | model: share of issue | model: active threads | "
           "measured: share of warp insts | measured: active threads | measured: share of stall samples |",
           "| --- | --- | ---: | ---: | ---: | ---: | ---: |"]
    order = sorted(range(len(groups)), key=lambda i: -sum(b["warp_issue"] for b in groups[i][1]))
    for i in order:
        fns, bl = groups[i]
        issue = sum(b["warp_issue"] for b in bl)
        lane = sum(b["lane_work"] for b in bl)
        w, t, s = meas[i]
        out.append(f"| {', '.join(sorted(fns))} | {'; '.join(b['block'] for b in bl)} | {pct(issue, total_issue)} | "
                   f"{act(issue, lane)} | {pct(w, total_warp)} | {act(w, t)} | {pct(s, total_stall)} |")
    top = ", ".join(f"{f} {pct(s, total_stall)}" for f, s in sorted(other_fns.items(), key=lambda x: -x[1])[:3])
    out.append(f"| other: {top} | - | - | - | {pct(other[0], total_warp)} | {act(other[0], other[1])} | "
               f"{pct(other[2], total_stall)} |")
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
