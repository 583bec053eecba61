#!/usr/bin/env python3
"""Registers, stack and spills of every CUDA kernel, from ptxas's own resource report.

The CUDA build keeps ptxas's -v output per object in BUILD/ptxas/*.ptxas.log (CMake compiler
launcher perf/ptxas/nvcc_resources.sh). This script reads those logs and prints, per kernel (and per
non-inlined device function it calls), the registers per thread, the stack frame and the spill
stores/loads, as a markdown table.

Usage: kernel_resources.py BUILD_DIR [--check LAW,LAW] [--budget KIND[@LAW[/PRECISION]]=REGS:BYTES[:STACK] ...]
                           [--json FILE]
  --check: exit 1 when a kernel or device function of these laws spills (default: none checked),
           but where --budget allows it
  --budget: a kernel KIND (e.g. sampled_reduce_kernel) of the checked laws may use at most REGS
           registers and spill at most BYTES (stores and loads together), and the device functions
           compiled in its object at most BYTES: where a launch bound trades spills for occupancy
           on purpose (kernels/cuda/sampled.cu, reduce_min_blocks); more registers, or more spill
           bytes, is a failure (repeatable). KIND@LAW and KIND@LAW/PRECISION (e.g.
           sampled_reduce_kernel@Aghili/double) set one law's or one instantiation's budget; the
           most specific one given applies. STACK, where given, caps the kernel's stack frame in
           bytes: jia's state stays out of local memory only while no address of it escapes to an
           out-of-line call (docs/bench.md, "The integrators' state out of local memory"), and an
           escape shows as a frame some 300-500 bytes larger
Exit 77 when the build has no ptxas logs (a build without CUDA).
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys

LAWS = ["NewtonLaw", "ChatterjeeRuinaLaw", "AghiliLaw", "MorganLaw", "StrongeLaw", "JiaLaw"]


def demangle(names):
    tool = shutil.which("c++filt")
    if not tool or not names:
        return {n: n for n in names}
    out = subprocess.run([tool], input="\n".join(names), capture_output=True, text=True).stdout.splitlines()
    return dict(zip(names, out)) if len(out) == len(names) else {n: n for n in names}


def parse(path):
    """{mangled name: {entry, registers, stack, spill_stores, spill_loads}} of one log."""
    funcs = {}
    current_props = None
    current_entry = None
    for line in open(path, encoding="utf-8", errors="replace"):
        m = re.search(r"Compiling entry function '([^']+)'", line)
        if m:
            current_entry = m.group(1)
            funcs.setdefault(current_entry, {"entry": True})
            continue
        m = re.search(r"Function properties for (\S+)", line)
        if m:
            current_props = m.group(1)
            funcs.setdefault(current_props, {"entry": current_props == current_entry})
            continue
        m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m and current_props:
            f = funcs[current_props]
            f["stack"], f["spill_stores"], f["spill_loads"] = (int(x) for x in m.groups())
            current_props = None
            continue
        m = re.search(r"Used (\d+) registers", line)
        if m and current_entry:
            funcs[current_entry]["registers"] = int(m.group(1))
    return funcs


def describe(name):
    """(kind, law, precision) of a demangled function name."""
    law = next((w for w in LAWS if "impact::" + w in name or w + "," in name or w + ">" in name), "")
    prec = "float" if re.search(r"\bfloat\b", name) else "double" if re.search(r"\bdouble\b", name) else ""
    kind = name.replace("(anonymous namespace)", "").split("(")[0].split("<")[0].split("::")[-1].split(" ")[-1]
    return kind, law.replace("Law", ""), prec


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build")
    ap.add_argument("--check", default="")
    ap.add_argument("--budget", action="append", default=[])
    ap.add_argument("--json")
    a = ap.parse_args()
    logs = sorted(glob.glob(os.path.join(a.build, "ptxas", "*.ptxas.log")))
    if not logs:
        print(f"kernel_resources: no ptxas logs in {a.build}/ptxas (a build without CUDA): nothing to report")
        return 77
    funcs = {}
    for p in logs:
        for name, f in parse(p).items():
            f["object"] = os.path.basename(p).replace(".ptxas.log", "")
            funcs[name] = f
    names = demangle(list(funcs))
    rows = []
    for mangled, f in funcs.items():
        kind, law, prec = describe(names[mangled])
        rows.append(dict(f, name=names[mangled], kind=kind, law=law, precision=prec))
    rows.sort(key=lambda r: (not r.get("entry"), r["object"], r["kind"], r["law"], r["precision"]))
    print("| object | function | law | precision | registers | stack (B) | spill stores (B) | spill loads (B) |")
    print("| --- | --- | --- | --- | ---: | ---: | ---: | ---: |")
    for r in rows:
        if not r.get("entry") and not r.get("spill_stores") and not r.get("stack"):
            continue  # inlined helpers without a frame of their own
        print(f"| {r['object']} | {r['kind']}{'' if r.get('entry') else ' (device fn)'} | {r['law'] or '-'} | "
              f"{r['precision'] or '-'} | {r.get('registers', '-')} | {r.get('stack', 0)} | "
              f"{r.get('spill_stores', 0)} | {r.get('spill_loads', 0)} |")
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(rows, fh, indent=1)
    checked = [w.strip() for w in a.check.split(",") if w.strip()]
    budgets = {}
    for b in a.budget:
        m = re.fullmatch(r"(\w+)(?:@(\w+)(?:/(float|double))?)?=(\d+):(\d+)(?::(\d+))?", b)
        if not m:
            print(f"kernel_resources: --budget {b}: expected KIND[@LAW[/PRECISION]]=REGS:BYTES[:STACK]",
                  file=sys.stderr)
            return 2
        budgets[(m.group(1), m.group(2), m.group(3))] = (int(m.group(4)), int(m.group(5)),
                                                          int(m.group(6)) if m.group(6) else None)

    def budget(kind, law, prec):
        for key in ((kind, law, prec), (kind, law, None), (kind, None, None)):
            if key in budgets:
                return budgets[key]
        return None

    # the non-inlined device functions of a budgeted kernel's object are compiled under its cap too:
    # the same spill budget (their registers are the caller's): the largest of the object's budgets
    # for the function's law and precision (or of all its budgets, for a function of no one law)
    budget_of_object = {}
    for r in rows:
        bud = budget(r["kind"], r["law"], r["precision"]) if r.get("entry") else None
        if bud:
            for key in ((r["object"], r["law"], r["precision"]), (r["object"], None, None)):
                budget_of_object[key] = max(budget_of_object.get(key, (0, 0, None)), bud, key=lambda v: v[1])
    bad = []
    for r in rows:
        if r["law"] not in checked:
            continue
        spill = r.get("spill_stores", 0) + r.get("spill_loads", 0)
        obj_budget = budget_of_object.get((r["object"], r["law"], r["precision"])) or \
            budget_of_object.get((r["object"], None, None))
        entry_budget = budget(r["kind"], r["law"], r["precision"]) if r.get("entry") else None
        if not r.get("entry") and obj_budget:
            limit = obj_budget[1]
            if spill > limit:
                bad.append(r)
                print(f"kernel_resources: OVER BUDGET: {r['name']} ({r['object']}): {spill} bytes spilled "
                      f"(at most {limit})", file=sys.stderr)
        elif entry_budget:
            regs, limit, stack = entry_budget
            if r.get("registers", 0) > regs or spill > limit or (stack is not None and r.get("stack", 0) > stack):
                bad.append(r)
                print(f"kernel_resources: OVER BUDGET: {r['name']} ({r['object']}): {r.get('registers')} registers "
                      f"(at most {regs}), {spill} bytes spilled (at most {limit})"
                      + (f", a {r.get('stack', 0)}-byte stack frame (at most {stack})" if stack is not None else ""),
                      file=sys.stderr)
        elif spill:
            bad.append(r)
            print(f"kernel_resources: SPILL: {r['name']} ({r['object']}): {r.get('spill_stores', 0)} bytes stores, "
                  f"{r.get('spill_loads', 0)} bytes loads", file=sys.stderr)
    if checked:
        within = ", ".join(f"{k[0]}{'@' + k[1] if k[1] else ''}{'/' + k[2] if k[2] else ''} within {v[0]} registers "
                           f"and {v[1]} bytes of spills" + (f", a {v[2]}-byte stack" if v[2] is not None else "")
                           for k, v in budgets.items())
        print(f"kernel_resources: {len(rows)} functions, spills or budgets exceeded in the {', '.join(checked)} "
              f"kernels: {len(bad)}" + (f" ({within})" if within else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
