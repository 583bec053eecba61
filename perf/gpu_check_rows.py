#!/usr/bin/env python3
"""The rows perf/gpu_check.sh writes into its report from the files its steps leave behind: the
rate of an `impact reduce --out F.json`, a Nsight Compute row (the `--page raw --csv` export and the
`--page details` text of one kernel), a throughput row against a baseline and a goal, a
calibration row from `impact calibrate`'s metadata.json, and the cells of the goals table
(`gpu_check.sh --goals`): one row's value from its files, and whether it meets its goal.

Usage (each prints one line; the row commands exit 1 when their input held nothing to show):
  gpu_check_rows.py rate F.json
  gpu_check_rows.py ncu-row LABEL NCU.csv NCU.txt
  gpu_check_rows.py throughput-row LABEL F.json BASELINE GOAL      (BASELINE, GOAL: a number or -)
  gpu_check_rows.py calibrate-row metadata.json
  gpu_check_rows.py goal-value KIND FILE...   prints VALUE, a tab and the cell's text; KIND one of
      rate F.json                        instances_per_second of `impact reduce --out`
      eval-share BENCH.json              the cuda row's bytes/s over the pinned memcpy rate to the
                                         device (`impact bench --json`: gbytes_per_second over
                                         machine.cuda.link_h2d_gbs), in %
      device-ratio PY.json               the least evaluate/JAX-peer ratio over the laws and precisions
                                         that have a peer (`python_bench.py --device --json`)
      study-ratio metadata.json          timings.total_s over timings.laws_s of `impact study`
      calibrate-ratio CUDA.json OMP.json  total_s of the cuda run over the omp run's (metadata.json)
  gpu_check_rows.py goal-met VALUE OP GOAL   (OP >= or <=) prints "yes" or "no (R of it)", "-" without VALUE
"""
import csv
import json
import math
import re
import sys


def num(s):
    if s is None:
        return None
    s = str(s).strip().replace(",", "")
    try:
        v = float(s)
    except ValueError:
        return None
    return v if math.isfinite(v) else None


def rate(path):
    d = json.load(open(path))
    v = d.get("instances_per_second")
    print("%.6g" % v if isinstance(v, (int, float)) else "")


def ncu_csv(path):
    """{metric: value} of the first kernel row of `ncu --page raw --csv --print-units base`."""
    try:
        lines = open(path, encoding="utf-8", errors="replace").read().splitlines()
    except OSError:
        return {}
    start = next((i for i, line in enumerate(lines) if line.startswith('"ID"')), None)
    if start is None:
        return {}
    rows = list(csv.reader(lines[start:]))
    head = rows[0]
    for r in rows[1:]:
        if r and r[0].strip().isdigit():
            return dict(zip(head, r))
    return {}


def ncu_text(path):
    try:
        t = open(path, encoding="utf-8", errors="replace").read()
    except OSError:
        return {}, ""
    vals = {}
    for key in ("Registers Per Thread", "Theoretical Occupancy", "Achieved Occupancy", "Avg. Active Threads Per Warp",
                "Executed Ipc Active", "Local Memory Spilling Requests", "Warp Cycles Per Issued Instruction"):
        m = re.search(r"^\s*" + re.escape(key) + r"\s+(?:\S+\s+)??([-\d.,]+)\s*$", t, re.M)
        if m:
            vals[key] = num(m.group(1))
    flat = re.sub(r"\s+", " ", t)
    best = None
    for m in re.finditer(r"spends ([\d.]+) cycles being stalled ([^.]+)\..*?"
                         r"This stall type represents about ([\d.]+)% of the total average of ([\d.]+) cycles", flat):
        if best is None or float(m.group(3)) > best[2]:
            best = (m.group(2), float(m.group(1)), float(m.group(3)), float(m.group(4)))
    stall = ""
    if best:
        stall = "%s: %.1f of %.1f cycles (%.0f%%) [text]" % (best[0][:100], best[1], best[3], best[2])
    return vals, stall


STALL_NOTES = {"no_instruction": "i-fetch / i-cache", "long_scoreboard": "L1TEX/local/global dependency",
               "short_scoreboard": "MIO/shared dependency", "wait": "fixed-latency dependency",
               "math_pipe_throttle": "math pipe busy", "branch_resolving": "branch resolution",
               "barrier": "__syncthreads", "lg_throttle": "local/global queue", "mio_throttle": "MIO queue",
               "not_selected": "eligible, not selected", "dispatch_stall": "dispatch", "membar": "memory barrier"}


def top_stall(m):
    for pat in (r"^smsp__average_warps_issue_stalled_(.+)_per_issue_active\.ratio$",
                r"^smsp__average_warp_latency_issue_stalled_(.+)\.ratio$",
                r"^smsp__pcsamp_warps_issue_stalled_(.+)$"):
        st = {}
        for k, v in m.items():
            g = re.match(pat, k)
            if not g or g.group(1).endswith("not_issued") or g.group(1) == "selected":
                continue
            x = num(v)
            if x is not None:
                st[g.group(1)] = x
        if st:
            total = (num(m.get("smsp__average_warp_latency_per_inst_issued.ratio"))
                     or num(m.get("smsp__average_warps_issue_stalled_selected_per_issue_active.ratio") or 0)
                     + sum(st.values()))
            r = max(st, key=st.get)
            note = STALL_NOTES.get(r, "")
            share = 100 * st[r] / total if total else float("nan")
            if "pcsamp" in pat:
                return "%s%s: %.0f%% of samples" % (r, " (" + note + ")" if note else "", share)
            return "%s%s: %.1f of %.1f cycles (%.0f%%)" % (r, " (" + note + ")" if note else "", st[r], total, share)
    return ""


def ncu_row(label, csv_path, txt_path):
    m = ncu_csv(csv_path)
    tv, tstall = ncu_text(txt_path)

    def pick(metric, text_key):
        v = num(m.get(metric))
        return v if v is not None else tv.get(text_key)

    regs = pick("launch__registers_per_thread", "Registers Per Thread")
    th = pick("sm__maximum_warps_per_active_cycle_pct", "Theoretical Occupancy")
    ach = pick("sm__warps_active.avg.pct_of_peak_sustained_active", "Achieved Occupancy")
    thr = pick("smsp__thread_inst_executed_per_inst_executed.ratio", "Avg. Active Threads Per Warp")
    ipc = pick("sm__inst_executed.avg.per_cycle_active", "Executed Ipc Active")
    ld = num(m.get("l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum"))
    st = num(m.get("l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum"))
    spill_req = tv.get("Local Memory Spilling Requests")
    stall = top_stall(m) or tstall or "-"

    def f(v, fmt):
        return "-" if v is None else fmt % v

    local = "%s / %s" % (f(ld, "%.4g"), f(st, "%.4g")) if (ld is not None or st is not None) else "-"
    if spill_req is not None:
        local += " (spilling requests %.4g)" % spill_req
    print("| %s | %s | %s / %s | %s | %s | %s | %s |" % (
        label, f(regs, "%.0f"), f(th, "%.1f%%"), f(ach, "%.1f%%"), f(thr, "%.2f"), f(ipc, "%.2f"), local, stall))
    return 0 if m or tv else 1


def throughput_row(label, path, base, goal):
    try:
        d = json.load(open(path))
        v = d.get("instances_per_second")
        n = d.get("n")
    except (OSError, ValueError):
        v, n = None, None
    base = num(base)
    goal = num(goal)
    ratio = "%.2f" % (v / base) if v and base else "-"
    g = "-"
    if goal:
        g = "%.3g: %s (%.2f of it)" % (goal, "met" if v and v >= goal else "not met", (v or 0) / goal)
    print("| %s | %s | %s | %s | %s | %s |" % (label, "%.3g" % n if n else "-", "%.3g" % v if v else "-",
                                               "%.3g" % base if base else "-", ratio, g))
    return 0 if v else 1


def calibrate_row(path):
    """rows | seconds | rows/s | law share of an `impact calibrate` run's metadata.json."""
    d = json.load(open(path))
    t = d["timings"]
    rows = t["rows_per_s"] * t["total_s"]
    law_share = 100 * t["law_s"] / t["total_s"] if t["total_s"] else 0
    print("%.4g | %.3f | %.3g | %.0f%%" % (rows, t["total_s"], t["rows_per_s"], law_share))


def _load(path):
    try:
        return json.load(open(path))
    except (OSError, ValueError):
        return None


def goal_rate(path):
    d = _load(path) or {}
    v = num(d.get("instances_per_second"))
    return (v, "%.3g/s (n = %.3g)" % (v, d.get("n") or 0)) if v else None


def goal_eval_share(path):
    d = _load(path) or {}
    link = num(((d.get("machine") or {}).get("cuda") or {}).get("link_h2d_gbs"))
    for r in d.get("results") or []:
        gbs = num(r.get("gbytes_per_second"))
        if r.get("backend") == "cuda" and gbs and link:
            rate = num((r.get("instances_per_second") or {}).get("median")) or 0
            share = 100 * gbs / link
            return share, "%.0f%% (%.3g/s, %.1f of %.1f GB/s)" % (share, rate, gbs, link)
    return None


def goal_device_ratio(path):
    rows = (_load(path) or {}).get("device_rows") or []
    pairs = [(r["ratio"], "%s %s" % (r["law"], r["precision"])) for r in rows if num(r.get("ratio"))]
    if not pairs:
        return None
    worst = min(pairs)
    text = "least %.2fx (%s); " % worst + ", ".join("%s %.2fx" % (name, v) for v, name in pairs)
    nopeer = sorted({r["law"] for r in rows if not num(r.get("ratio"))})
    if nopeer:
        text += "; no JAX peer: " + ", ".join(nopeer)
    return worst[0], text


def goal_study_ratio(path):
    t = (_load(path) or {}).get("timings") or {}
    total, laws = num(t.get("total_s")), num(t.get("laws_s"))
    if not total or not laws:
        return None
    return total / laws, "%.2f (total %.2f s, laws %.2f s)" % (total / laws, total, laws)


def goal_calibrate_ratio(cuda_path, omp_path):
    c, o = ((_load(p) or {}).get("timings") or {} for p in (cuda_path, omp_path))
    tc, to = num(c.get("total_s")), num(o.get("total_s"))
    if not tc or not to:
        return None
    return tc / to, "cuda %.3g s (law %.3g), omp %.3g s (law %.3g): %.2f" % (
        tc, num(c.get("law_s")) or 0, to, num(o.get("law_s")) or 0, tc / to)


GOAL_KINDS = {"rate": goal_rate, "eval-share": goal_eval_share, "device-ratio": goal_device_ratio,
              "study-ratio": goal_study_ratio, "calibrate-ratio": goal_calibrate_ratio}


def goal_value(kind, *paths):
    got = GOAL_KINDS[kind](*paths)
    if got is None:
        return 1
    print("%.6g\t%s" % got)
    return 0


def goal_met(value, op, goal):
    v, g = num(value), num(goal)
    if v is None or g is None:
        print("-")
        return
    ok = v >= g if op == ">=" else v <= g
    print("yes" if ok else "no (%.2f of it)" % (v / g))


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "rate":
        rate(sys.argv[2])
    elif cmd == "ncu-row":
        sys.exit(ncu_row(*sys.argv[2:5]))
    elif cmd == "throughput-row":
        sys.exit(throughput_row(*sys.argv[2:6]))
    elif cmd == "calibrate-row":
        calibrate_row(sys.argv[2])
    elif cmd == "goal-value":
        sys.exit(goal_value(*sys.argv[2:]))
    elif cmd == "goal-met":
        goal_met(*sys.argv[2:5])
