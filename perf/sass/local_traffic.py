#!/usr/bin/env python3
"""Local-memory loads and stores per instance of an integrator's law loop, from a kernel's line table
weighted by how often the host runs each line, without a GPU.

ptxas gives a kernel's spill bytes in total; what a GPU pays is how often its local instructions
run. This script charges each SASS instruction of the sampled reduction's law loop (the largest loop
nested in the kernel's loop over instances, as `perf/sass/sass_lines.py --loops` lists them) to the
innermost line of the law's header in its inlining chain. The weight of an instruction is the number
of times that line ran per instance on the host, by gcov, over the instances `impact reduce
--cases-out` samples (the contact scenario, seed 1). The sum over the loop's LDL and STL is an
estimate of the local loads and stores each lane issues per instance. A helper inlined at several
places (`velocity`, a dot product) goes to the law line that inlined it, so that its own line's
count, which sums every call site, weighs nothing.

Each configuration is a cubin (built with -lineinfo, `nvdisasm` from the toolkit or the PyPI wheel)
or a saved disassembly (`nvdisasm -gi -c -fun INDEX`), with the blocks per SM its launch bound asks
for and a label. The JSON it writes (--json) feeds `impact-simt --local-traffic FILE`,
whose model predicts each configuration's time (docs/bench.md, "Local memory in the model").

    python3 perf/sass/local_traffic.py --law stronge --precision double --root . --impact build/impact \\
        --json local.json a.cubin:4:'as built' b.cubin:3:'3 blocks'
    build/impact-simt --laws stronge --precisions double --steps 250 --local-traffic local.json

--counts FILE reads the line counts (a JSON {"instances": N, "lines": {"LINE": COUNT}}) instead of
running gcov, and --counts-out FILE writes them (gcov takes a minute; a saved count serves every
build of the same sources).
"""
import argparse
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sass_lines import chained_instructions, disassemble, kernel_symbol, loops, tool

KERNEL = {"jia": "sampled_reduce_kernelINS_6JiaLaw", "stronge": "sampled_reduce_kernelINS_10StrongeLaw"}
PRECISION_CODE = {"double": "Ed", "float": "Ef"}


def line_counts(a):
    """{line: executions} of include/impact/laws/detail/LAW.hpp (the integrator) over a.instances instances,
    and the count."""
    if a.counts:
        c = json.load(open(a.counts))
        return {int(k): v for k, v in c["lines"].items()}, c["instances"]
    impact, gxx, gcov = tool("impact", a.impact), tool("g++", None), tool("gcov", None)
    here = os.path.dirname(os.path.abspath(__file__))
    with tempfile.TemporaryDirectory() as tmp:
        cases = os.path.join(tmp, "cases.csv")
        subprocess.run([impact, "reduce", "--law", a.law, "--precision", a.precision, "--n", str(a.instances),
                        "--seed", "1", "--backend", "serial", "--steps", str(a.steps), "--cases-out", cases, "-q"],
                       check=True, stdout=subprocess.DEVNULL)
        src = os.path.join(tmp, "driver.cpp")
        shutil.copy(os.path.join(here, "local_traffic_driver.cpp"), src)
        subprocess.run([gxx, "-std=c++17", "-O0", "--coverage", "-I", os.path.join(a.root, "include"), src, "-o",
                        os.path.join(tmp, "driver")], check=True, cwd=tmp)
        subprocess.run([os.path.join(tmp, "driver"), a.law, a.precision, str(a.steps), cases], check=True, cwd=tmp,
                       stdout=subprocess.DEVNULL)
        gcda = [f for f in os.listdir(tmp) if f.endswith(".gcda")]
        subprocess.run([gcov, "-j"] + gcda, check=True, cwd=tmp, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        counts = {}
        for f in os.listdir(tmp):
            if not f.endswith(".gcov.json.gz"):
                continue
            for entry in json.load(gzip.open(os.path.join(tmp, f)))["files"]:
                if entry["file"].endswith(f"laws/detail/{a.law}.hpp"):
                    for ln in entry["lines"]:
                        counts[ln["line_number"]] = counts.get(ln["line_number"], 0) + ln["count"]
    if not counts:
        sys.exit(f"local_traffic: gcov counted no line of laws/detail/{a.law}.hpp")
    return counts, a.instances


def instructions(sass, header):
    """[(address, opcode, law line)] of a listing: the law line is the innermost frame of the
    instruction's inlining chain in `header` (e.g. laws/detail/jia.hpp), or None."""
    return [(addr, op, next((line for p, line in chain if p.endswith(header)), None))
            for addr, op, chain in chained_instructions(sass)]


def law_loop(sass):
    """The law loop: the largest loop that lies inside another (the kernel's loop over instances);
    the largest loop where none is nested."""
    ls = loops(sass)
    if not ls:
        sys.exit("local_traffic: the listing has no loop")
    nested = [lp for lp in ls if any(o is not lp and o["first"] <= lp["first"] and lp["last"] <= o["last"]
                                     and o["sass"] > lp["sass"] for o in ls)]
    return max(nested or ls, key=lambda lp: lp["sass"])


def measure(text, law, counts, n):
    loop = law_loop(text)
    acc = {"sass": 0, "ldl": 0, "stl": 0, "loads": 0.0, "stores": 0.0, "issued": 0.0}
    for addr, op, line in instructions(text, f"laws/detail/{law}.hpp"):
        if not loop["first"] <= addr <= loop["last"]:
            continue
        w = counts.get(line, 0) / n if line else 0.0
        acc["sass"] += 1
        acc["issued"] += w
        if op.startswith("LDL"):
            acc["ldl"] += 1
            acc["loads"] += w
        elif op.startswith("STL"):
            acc["stl"] += 1
            acc["stores"] += w
    return acc


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("configs", nargs="+", metavar="CUBIN_OR_SASS:BLOCKS[:LABEL]")
    ap.add_argument("--law", required=True, choices=sorted(KERNEL))
    ap.add_argument("--precision", default="double", choices=sorted(PRECISION_CODE))
    ap.add_argument("--steps", type=int, default=250)
    ap.add_argument("--root", default=".", help="the source tree the cubins were built from")
    ap.add_argument("--impact", help="the impact binary that samples the instances (default: on PATH)")
    ap.add_argument("--instances", type=int, default=16384)
    ap.add_argument("--counts", help="line counts saved by --counts-out, instead of running gcov")
    ap.add_argument("--counts-out")
    ap.add_argument("--json", help="write the configurations for impact-simt --local-traffic")
    ap.add_argument("--about", default="", help="a note kept in the JSON")
    ap.add_argument("--nvdisasm")
    a = ap.parse_args(argv)
    a.root = os.path.abspath(a.root)
    if a.instances < 1 or a.steps < 1:
        ap.error("--instances and --steps must be >= 1")
    configs = []
    for c in a.configs:
        m = re.fullmatch(r"(.+?):(\d+)(?::(.*))?", c)
        if not m or not 1 <= int(m.group(2)) <= 64:
            ap.error(f"{c!r}: expected CUBIN_OR_SASS:BLOCKS[:LABEL] with 1 <= BLOCKS <= 64")
        configs.append((m.group(1), int(m.group(2)), m.group(3) or os.path.basename(m.group(1))))
    counts, n = line_counts(a)
    if a.counts_out:
        json.dump({"law": a.law, "precision": a.precision, "steps": a.steps, "instances": n,
                   "lines": {str(k): v for k, v in sorted(counts.items())}}, open(a.counts_out, "w"), indent=1)
    rows = []
    print(f"{a.law} {a.precision}, {a.steps} steps, line counts over {n} instances\n")
    print("| configuration | blocks per SM | law loop: SASS | LDL / STL | loads / stores per instance | "
          "issued per instance (law lines) |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for path, blocks, label in configs:
        if path.endswith(".cubin"):
            index, _ = kernel_symbol(path, KERNEL[a.law] + PRECISION_CODE[a.precision])
            text = disassemble(tool("nvdisasm", a.nvdisasm), path, index)
        else:
            text = open(path).read()
        r = measure(text, a.law, counts, n)
        print(f"| {label} | {blocks} | {r['sass']} | {r['ldl']} / {r['stl']} | {r['loads']:.0f} / {r['stores']:.0f} | "
              f"{r['issued']:.0f} |")
        rows.append({"law": a.law, "precision": a.precision, "steps": a.steps, "label": label, "blocks": blocks,
                     "loads": round(r["loads"], 1), "stores": round(r["stores"], 1)})
    if a.json:
        with open(a.json, "w") as fh:
            json.dump({"about": a.about, "local_traffic": rows}, fh, indent=1)
            fh.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
