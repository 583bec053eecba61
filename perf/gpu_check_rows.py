#!/usr/bin/env python3
"""The rows perf/gpu_check.sh writes into its report from the files its steps leave behind: the
rate of an `impact reduce --out F.json`, a Nsight Compute row (the `--page raw --csv` export and the
`--page details` text of one kernel), a throughput row against a baseline and a goal, and a
calibration row from `impact calibrate`'s metadata.json.

Usage (each prints one line; the row commands exit 1 when their input held nothing to show):
  gpu_check_rows.py rate F.json
  gpu_check_rows.py ncu-row LABEL NCU.csv NCU.txt
  gpu_check_rows.py throughput-row LABEL F.json BASELINE GOAL      (BASELINE, GOAL: a number or -)
  gpu_check_rows.py calibrate-row metadata.json
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
