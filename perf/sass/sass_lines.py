#!/usr/bin/env python3
"""Where a kernel's SASS and its local-memory (spill) instructions sit, per source function, without
a GPU.

ptxas reports a kernel's spill bytes in total (perf/ptxas/kernel_resources.py); what a GPU pays is
where they sit: a spill inside the integrator's step runs every iteration, one in its set-up once.
This script reads the line table of a cubin built with -lineinfo (nvdisasm -gi, the PyPI wheels
nvidia-cuda-cuobjdump / nvidia-cuda-nvdisasm when the toolkit lacks them), charges each SASS
instruction of one kernel to the innermost source line it comes from, and sums per function (the
outermost function of that file whose body holds the line, as scripts/check_layout.py finds
functions): SASS instructions, local loads (LDL) and local stores (STL).

With --simt (the JSON of `impact-simt`) each function also gets the model's runs per
instance: the lane work per instance of the blocks that name it (Law::seg_code) over their cost,
so that static local instructions x runs estimates the local-memory instructions per instance of
that function, the dynamic figure Nsight Compute measures on a device (docs/bench.md, "Spills on
the step path"). It is an estimate: a function's local instructions need not all run each time it
does (they may sit in a branch), and an instruction goes to the innermost function of its inlining
chain that a block names.

    nvcc ... -lineinfo -cubin kernels/cuda/sampled.cu -o sampled.cubin    # the compile_commands.json flags
    python3 perf/sass/sass_lines.py sampled.cubin --kernel 'sampled_reduce_kernelINS_6JiaLawEdEE' \
        --root . [--simt simt.json --law jia --precision double --steps 250] [--json out.json]
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from simt_inputs import SourceFunctions, model_row

LINE_RE = re.compile(r'//## File "([^"]+)", line (\d+)(?: inlined at "([^"]+)", line (\d+))?')
# a function's own label (the kernel, a device function ptxas kept apart, CUDA's out-of-line
# division, square-root and trigonometric slow paths); branch targets (.L_x_N) keep the line in force
FUNC_LABEL_RE = re.compile(r'^\$?[A-Za-z_][\w$.]*:\s*$')
INSN_RE = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)")


def tool(name, given):
    path = given or shutil.which(name)
    if not path:
        sys.exit(f"{name} not found: give --{name} (pip install nvidia-cuda-{name})")
    return path


def kernel_symbol(cubin, pattern, readelf="readelf"):
    """(index, name) of the kernel whose mangled name contains pattern. The device functions ptxas
    kept apart for it (named '$KERNEL$FUNCTION') lie in the kernel's own text section, which
    `nvdisasm -fun INDEX` prints whole."""
    out = subprocess.run([readelf, "-sW", cubin], capture_output=True, text=True, check=True).stdout
    kernels = []
    for line in out.splitlines():
        f = line.split()  # Num: Value Size Type Bind Vis [<other>: N] Ndx Name
        if len(f) >= 8 and f[3] == "FUNC" and pattern in f[-1] and not f[-1].startswith("$"):
            kernels.append((int(f[0].rstrip(":")), f[-1]))
    if len(kernels) != 1:
        sys.exit(f"{cubin}: {len(kernels)} kernels contain {pattern!r}: {[k[1] for k in kernels][:5]}")
    return kernels[0]


def disassemble(nvdisasm, cubin, index):
    return subprocess.run([nvdisasm, "-gi", "-c", "-fun", str(index), cubin], capture_output=True, text=True,
                          check=True).stdout


def chained_instructions(sass):
    """(address, opcode, chain) of every instruction of a listing, chain = ((file, line), ...) innermost
    first: the line-table comments before an instruction name its inlining chain, one frame per comment
    line, and the last comment's "inlined at" one frame further out; an instruction without comments
    of its own keeps the chain before it, and code after a function's label has none until the next
    comment (("<no line info>", 0),)."""
    none = (("<no line info>", 0),)
    chain, fresh = none, True
    frames, outer = [], None
    for text in sass.splitlines():
        m = LINE_RE.search(text)
        if m:
            if fresh:  # a new run of comments: a new chain
                frames, fresh = [], False
            frames.append((m.group(1), int(m.group(2))))
            outer = (m.group(3), int(m.group(4))) if m.group(3) else None
            continue
        if FUNC_LABEL_RE.match(text.strip()):  # code without line info until the next comment
            chain, frames, fresh = none, [], True
            continue
        m = INSN_RE.search(text)
        if not m:
            continue
        if frames and not fresh:
            chain = tuple(frames) + ((outer,) if outer and outer != frames[-1] else ())
        fresh = True
        yield int(m.group(1), 16), m.group(3), chain


def per_chain(sass):
    """{chain: [instructions, LDL, STL]} (chains as chained_instructions gives them)."""
    acc = {}
    for _, op, chain in chained_instructions(sass):
        c = acc.setdefault(chain, [0, 0, 0])
        c[0] += 1
        c[1] += op.startswith("LDL")
        c[2] += op.startswith("STL")
    return acc


BRANCH_LABEL_RE = re.compile(r"^(\.L_x_\d+):")
BRA_RE = re.compile(r"\bBRA\b.*`\((\.L_x_\d+)\)")


def loops(sass, min_size=1):
    """The loops of the listing, by their back edges: a BRA to a label at or above it closes the
    address range [label, BRA]. Per loop: its first and last address, SASS instructions, LDL, STL and
    FP reciprocals (MUFU.RCP*, one per division or reciprocal that is not a constant), counted over
    the range (ptxas lays a loop's blocks out between its head and its back edge; a block it moved
    out of the range, e.g. a cold path after the kernel's end, is not counted). Ranges nest: an
    integrator's event search inside its law loop inside the kernel's loop over instances."""
    insns, labels, out = [], {}, []
    for text in sass.splitlines():
        m = BRANCH_LABEL_RE.match(text.strip())
        if m:
            labels[m.group(1)] = len(insns)
            continue
        m = INSN_RE.search(text)
        if m:
            insns.append((int(m.group(1), 16), m.group(3), text))
    for i, (addr, op, text) in enumerate(insns):
        m = BRA_RE.search(text) if op == "BRA" else None
        if not m or labels.get(m.group(1), len(insns)) > i:
            continue
        body = insns[labels[m.group(1)]:i + 1]
        if len(body) < min_size:
            continue
        out.append({"first": body[0][0], "last": addr, "sass": len(body),
                    "ldl": sum(o.startswith("LDL") for _, o, _ in body),
                    "stl": sum(o.startswith("STL") for _, o, _ in body),
                    "rcp": sum(o.startswith("MUFU.RCP") for _, o, _ in body)})
    out.sort(key=lambda lp: lp["first"])
    return out


def model_runs(simt, law, precision, steps):
    """{function: runs per instance}: per block, lane work / cost = its runs per instance (lane work
    counts a block's cost each time a lane runs it); a function named by several blocks (parts of one
    call: the loop control and its stiffness test) runs as often as the most frequent of them."""
    runs = {}
    for b in model_row(simt, law, precision, steps)["sorted_blocks"]:
        if b.get("cost", 0) <= 0:
            continue
        for fn in b.get("code", "").split():
            runs[fn] = max(runs.get(fn, 0.0), b["lane_work"] / b["cost"])
    return runs


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("cubin", nargs="?", help="a cubin built with -lineinfo")
    ap.add_argument("--kernel", help="a substring of the kernel's mangled name")
    ap.add_argument("--sass", help="instead of a cubin: the output of nvdisasm -gi -c -fun INDEX, saved")
    ap.add_argument("--root", default=".", help="the source tree the cubin was built from")
    ap.add_argument("--simt", help="JSON of impact-simt (runs per instance of each function)")
    ap.add_argument("--law")
    ap.add_argument("--precision", default="double")
    ap.add_argument("--steps", type=int, default=250)
    ap.add_argument("--path", default="", help="functions (space-separated): count the instructions inlined "
                    "from any of them apart (e.g. a step path: 'rk_step rhs slip_dir')")
    ap.add_argument("--lines", help="a source file (path suffix, e.g. kernels/cuda/sampled.cu): also count per "
                    "line of it, each instruction going to the innermost frame in that file (the kernel's "
                    "own lines, a lambda's included: a loop's per-instance part apart from its per-block part)")
    ap.add_argument("--loops", type=int, metavar="MIN", help="also list the loops (back edges) of at least MIN "
                    "SASS instructions, with their LDL, STL and reciprocals: the law loop of an integrator is the "
                    "largest one inside the kernel's loop over instances")
    ap.add_argument("--top", type=int, default=20)
    ap.add_argument("--json")
    ap.add_argument("--nvdisasm")
    a = ap.parse_args(argv)

    if a.sass:
        name, text = os.path.basename(a.sass), open(a.sass).read()
    elif a.cubin and a.kernel:
        index, name = kernel_symbol(a.cubin, a.kernel)
        text = disassemble(tool("nvdisasm", a.nvdisasm), a.cubin, index)
    else:
        ap.error("give a cubin and --kernel, or --sass")
    runs = model_runs(a.simt, a.law, a.precision, a.steps) if a.simt else {}
    src, funcs = SourceFunctions(a.root), {}
    path_fns, on_path = set(a.path.split()), [0, 0, 0]
    by_line = {}
    for chain, c in per_chain(text).items():
        if a.lines:
            mine = [line for p, line in chain if line and p.endswith(a.lines)]
            b = by_line.setdefault(mine[0] if mine else None, [0, 0, 0])
            for j in range(3):
                b[j] += c[j]
        # the innermost frame in a function the model names (a helper such as dot or axpy goes to the
        # law's function that inlined it), else the innermost frame
        frames = [src.at(p, line) if line else (p, "") for p, line in chain]
        key = next((f for f in frames if f[1] in runs), frames[0])
        if path_fns and any(f[1] in path_fns for f in frames):
            for j in range(3):
                on_path[j] += c[j]
        f = funcs.setdefault(key, [0, 0, 0])
        for j in range(3):
            f[j] += c[j]
    total = [sum(f[j] for f in funcs.values()) for j in range(3)]
    rows = []
    for (path, fn), (n, ldl, stl) in funcs.items():
        r = runs.get(fn)
        rows.append({"file": path, "function": fn, "sass": n, "ldl": ldl, "stl": stl,
                     "runs_per_instance": r, "local_per_instance": None if r is None else r * (ldl + stl)})
    rows.sort(key=lambda r: (-(r["local_per_instance"] or 0), -(r["ldl"] + r["stl"]), -r["sass"]))
    dyn = sum(r["local_per_instance"] or 0 for r in rows)
    print(f"{name}: {total[0]} SASS instructions, {total[1]} LDL, {total[2]} STL"
          + (f"; model: {dyn:.0f} local instructions per instance (lane)" if runs else ""))
    if path_fns:
        print(f"inlined from {' '.join(sorted(path_fns))}: {on_path[0]} SASS instructions, {on_path[1]} LDL, "
              f"{on_path[2]} STL")
    print("\n| file | function | SASS | LDL | STL | runs/instance (model) | local insts/instance |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for r in rows[:a.top]:
        rr = "-" if r["runs_per_instance"] is None else f"{r['runs_per_instance']:.1f}"
        lp = "-" if r["local_per_instance"] is None else f"{r['local_per_instance']:.0f}"
        print(f"| {r['file']} | {r['function'] or '-'} | {r['sass']} | {r['ldl']} | {r['stl']} | {rr} | {lp} |")
    line_rows = [{"line": line, "sass": n, "ldl": ldl, "stl": stl} for line, (n, ldl, stl) in
                 sorted(by_line.items(), key=lambda kv: (kv[0] is None, kv[0] or 0))]
    if a.lines:
        print(f"\n| {a.lines} line | SASS | LDL | STL |\n| ---: | ---: | ---: | ---: |")
        for r in line_rows:
            print(f"| {'elsewhere' if r['line'] is None else r['line']} | {r['sass']} | {r['ldl']} | {r['stl']} |")
    found = loops(text, a.loops) if a.loops else None
    if found is not None:
        print("\n| loop (addresses) | SASS | LDL | STL | MUFU.RCP |\n| --- | ---: | ---: | ---: | ---: |")
        for lp in found:
            print(f"| {lp['first']:x}-{lp['last']:x} | {lp['sass']} | {lp['ldl']} | {lp['stl']} | {lp['rcp']} |")
    if a.json:
        json.dump({"kernel": name, "sass": total[0], "ldl": total[1], "stl": total[2], "loops": found,
                   "path": {"functions": sorted(path_fns), "sass": on_path[0], "ldl": on_path[1], "stl": on_path[2]},
                   "local_per_instance": dyn if runs else None, "functions": rows,
                   "lines": line_rows if a.lines else None}, open(a.json, "w"), indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
