#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz harnesses, tests/fuzz/corpus/<harness>/, from the shipped
examples and the physics reproducers (a few KB to a few tens of KB each, < 1 MB in all).

    python3 tests/fuzz/make_seeds.py          # rewrite every corpus folder

The binary layouts are those of the harnesses: fuzz_csv.cpp (law byte, mode byte, text),
fuzz_design.cpp (flags byte, file) and law_input.hpp (flags, steps, 16 tagged values), which this
script must follow when they change. Files found by fuzzing go to tests/fuzz/findings/, never here.
"""
import csv
import json
import math
import os
import shutil
import struct
import tomllib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
CORPUS = os.path.join(HERE, "corpus")
LAWS = ["newton", "chatterjee_ruina", "aghili", "morgan", "stronge", "jia"]  # IMPACT_FOR_EACH_LAW order
INPUTS = ["W_xx", "W_xy", "W_xz", "W_yy", "W_yz", "W_zz", "n_x", "n_y", "n_z", "v_x", "v_y", "v_z",
          "mu", "e", "e_t", "eta0"]
EXTRAS = {"newton": [], "chatterjee_ruina": ["kappa", "modes"],
          "aghili": ["sigma", "mu_cr", "mu_star", "e_star", "e_star_global", "modes", "steps"],
          "morgan": ["In_c", "modes", "steps"], "stronge": ["In_c", "modes", "steps"],
          "jia": ["In_c", "modes", "steps"]}
COMMON_OUT = ["P_x", "P_y", "P_z", "vf_x", "vf_y", "vf_z", "dE", "status"]


def fresh(name):
    d = os.path.join(CORPUS, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    return d


def put(d, name, data):
    with open(os.path.join(d, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def read_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def cases():
    return read_rows(os.path.join(ROOT, "examples", "cases.csv"))


def repro_files():
    out = []
    for sub in ("physics_repro", "reliability"):
        d = os.path.join(ROOT, "tests", "data", sub)
        out += [os.path.join(d, f) for f in sorted(os.listdir(d)) if f.endswith(".csv")]
    return out


# ---- fuzz_csv: byte 0 law, byte 1 mode (bit 0 float, bit 1 result table), then the text -------------
def csv_text(rows, cols):
    lines = [",".join(cols)] + [",".join(r.get(c, "0") or "0" for c in cols) for r in rows]
    return "\n".join(lines) + "\n"


def seeds_csv():
    d = fresh("fuzz_csv")
    rows = cases()
    cols = ["case"] + INPUTS
    for i, law in enumerate(LAWS):
        sel = rows[i * 300:i * 300 + 4]
        put(d, f"eval_{law}_f64.bin", bytes([i, 0]) + csv_text(sel, cols).encode())
        put(d, f"eval_{law}_f32.bin", bytes([i, 1]) + csv_text(sel[:2], list(reversed(cols))).encode())
        # a result table as `impact eval` writes it (compare --given)
        outs = COMMON_OUT + EXTRAS[law]
        vals = {"P_x": "0.1", "P_y": "-2e-3", "P_z": "1.5", "vf_x": "0", "vf_y": "0.25", "vf_z": "0.75",
                "dE": "-1.25", "status": "ok", "kappa": "1.3", "modes": "slip>stick", "steps": "12",
                "In_c": "0.7", "sigma": "0.5", "mu_cr": "0.2", "mu_star": "inf", "e_star": "1",
                "e_star_global": "-1"}
        text = ",".join(cols + outs) + "\n"
        for r in sel[:2]:
            text += ",".join([r[c] for c in cols] + [vals[o] for o in outs]) + "\n"
        text += ",".join([sel[2][c] for c in cols] + ["", "", "", "", "", "", "", "W_not_spd"] +
                         ["" for _ in EXTRAS[law]]) + "\n"
        put(d, f"given_{law}.bin", bytes([i, 2]) + text.encode())
    for k, path in enumerate(repro_files()):
        with open(path, "rb") as f:
            data = f.read().splitlines(keepends=True)[:4]
        put(d, "repro_" + os.path.basename(path).replace(".csv", ".bin"), bytes([k % len(LAWS), 0]) + b"".join(data))
    # the reader's corners: BOM, CRLF, a lone CR, quotes, blank lines, no final newline
    put(d, "corners.bin", bytes([0, 0]) + ("\ufeff" + ",".join(INPUTS) + ',"note"\r\n' +
                                           ",".join(["1", "0", "0", "1", "0", "1", "0", "0", "1", "0.5", "0", "-1",
                                                     "0.3", "0.5", "0", "1"]) + ',"a,""b"""\r\n\r\n   \r' +
                                           ",".join(["2"] * 12 + ["-1", "1", "0", "1"]) + ",x").encode())


# ---- study configs: the shipped studies, the reliability reproducers, as TOML and as JSON ---------------
def seeds_config():
    dt, dj = fresh("fuzz_config_toml"), fresh("fuzz_config_json")
    srcs = []
    for sub in (os.path.join("examples", "studies"), os.path.join("tests", "data", "reliability")):
        d = os.path.join(ROOT, sub)
        srcs += [os.path.join(d, f) for f in sorted(os.listdir(d)) if f.endswith((".toml", ".json"))]
    for path in srcs:
        name = os.path.basename(path)
        with open(path, "rb") as f:
            data = f.read()
        if name.endswith(".json"):
            put(dj, name, data)
            continue
        put(dt, name, data)
        with open(path, "rb") as f:
            put(dj, name.replace(".toml", ".json"), json.dumps(tomllib.load(f), indent=1))


# ---- fuzz_design: byte 0 flags (bits 0-1: d - 1 of mu, e, v_n, theta; bit 2: 4 KiB limit), the file ----
def seeds_design():
    d = fresh("fuzz_design")
    put(d, "salib_1.bin", bytes([0]) + b"0.1\n0.25\n0.5\n0.75\n")
    put(d, "header_2.bin", bytes([1]) + b"# SALib sample\ne mu\n0.5 0.1\n0.25 0.9\n1e-3 7.5e-1\n")
    put(d, "comma_3.bin", bytes([2]) + b"mu,e,v_n\r\n0.1,0.2,-1\r\n0.3,0.4,-2.5\r\n")
    put(d, "chaospy_4.bin", bytes([3]) + b"\"theta\"\t'v_n'\te\tmu\n1.5\t-1\t0.5\t0.2\n  \n3.0\t-0.5\t1\t0\n")
    put(d, "limit_2.bin", bytes([5]) + "".join(f"{i / 1000:.3f} {1 - i / 1000:.3f}\n" for i in range(300)).encode())


# ---- law harnesses: flags, steps, 16 raw doubles (tag 0) --------------------------------------------------
def law_seed(vals, flags=0, steps=100):
    b = bytes([flags]) + struct.pack("<H", (steps - 1) % 300)
    for v in vals:
        b += bytes([0]) + struct.pack("<d", v)
    return b


def num(r, c):
    try:
        return float(r.get(c) or 0)
    except ValueError:
        return 0.0


def seeds_laws():
    rows = cases()
    picked = [("case%04d" % i, rows[i]) for i in range(0, len(rows), 100)]
    for path in repro_files():
        base = os.path.basename(path).replace(".csv", "")
        picked += [(f"{base}_{k}", r) for k, r in enumerate(read_rows(path)[:8])]
    # W from eigenvalues and angles (flags bit 0): cond 1e8 and 1e16, a 1e300 scale, a singular W
    eig = {"eig_cond1e8": [1, 1e-4, 1e-8], "eig_cond1e16": [1, 1e-8, 1e-16], "eig_1e300": [1e300, 2e300, 3e300],
           "eig_singular": [1, 1, 0]}
    # grazing rows at |v0| ~ 1e150 whose normal approach is 2^-1000 of it: in a law's own units the
    # impulse falls below the floor of 2^-970 (found while chasing a CI finding; docs/laws.md)
    grazing = [1, 0, 0.5, 1, 0, 1, 0, 0, 1, 1e150, 0.25e150, -math.ldexp(1.37, -1000) * 1e150]
    for law in LAWS:
        d = fresh(f"fuzz_law_{law}")
        put(d, "grazing_1e150.bin", law_seed(grazing + [0.01, 0.5, 0.5, 1.0]))
        for name, r in picked:
            put(d, name + ".bin", law_seed([num(r, c) for c in INPUTS]))
        for k, (name, row) in enumerate(eig.items()):
            put(d, name + ".bin", law_seed(row + [0.3, 1.1, 2.0, 0.1, 0.2, 1, 0.5, 0.2, -1, 0.4, 0.6, 0.3, 1.1],
                                           flags=1 | (2 if k % 2 else 0), steps=1 + 97 * k))


def seeds_folder():
    # fuzz_folder.cpp reads its input as a stream of choices (tests/support/folder_rule.hpp: 4 bytes
    # each); seeds are fixed pseudo-random streams of a few lengths, so that the replay covers
    # claims and merges into sandboxes of every kind without a fuzzer
    d = fresh("fuzz_folder")
    state = 20261129
    for k in range(24):
        data = bytearray()
        for _ in range(64 + 32 * (k % 6)):
            state = (state * 6364136223846793005 + 1442695040888963407) % (1 << 64)
            data.append(state >> 56)
        put(d, "stream%02d.bin" % k, bytes(data))


if __name__ == "__main__":
    seeds_csv()
    seeds_config()
    seeds_design()
    seeds_laws()
    seeds_folder()
    total = sum(os.path.getsize(os.path.join(p, f)) for p, _, fs in os.walk(CORPUS) for f in fs)
    print(f"make_seeds: {CORPUS}: {total} bytes")
