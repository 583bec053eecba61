#!/usr/bin/env python3
"""impactbatch.evaluate on NumPy arrays against `impact eval` on the same rows (docs/python.md).

For each law: the CLI's law time (the batch calls alone, from its summary) and its wall time (CSV in
and out), and the package's wall time for evaluate() on host arrays, split into the conversion (the
(N, 3, 3)/(N, 3) arrays broadcast into contiguous columns, measured alone) and the rest (the same
batch entry point). The package must not be slower than the CLI's law time by more than the
conversion cost.

    PYTHONPATH=build/python python3 benches/python_bench.py --impact build/impact --n 200000
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np

import impactbatch as ib


def instances(n, seed=1):
    """Random realizable contact-space rows (W = J M^-1 J^T of two random bodies), approaching."""
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(n, 3, 3))
    W = A @ np.swapaxes(A, 1, 2) + 0.3 * np.eye(3)
    nrm = rng.normal(size=(n, 3))
    nrm /= np.linalg.norm(nrm, axis=1)[:, None]
    v = -np.abs(rng.normal(size=n))[:, None] * nrm + 0.5 * rng.normal(size=(n, 3))
    bad = np.einsum("ij,ij->i", v, nrm) >= 0
    v[bad] -= 2 * np.einsum("ij,ij->i", v[bad], nrm[bad])[:, None] * nrm[bad]
    return dict(W=W, n=nrm, v=v, mu=rng.uniform(0.1, 1.0, n), e=rng.uniform(0, 1, n), e_t=rng.uniform(-0.5, 0.5, n),
                eta0=rng.uniform(0.8, 1.5, n))


def write_csv(path, d):
    W, n, v = d["W"], d["n"], d["v"]
    cols = [W[:, 0, 0], W[:, 0, 1], W[:, 0, 2], W[:, 1, 1], W[:, 1, 2], W[:, 2, 2], n[:, 0], n[:, 1], n[:, 2],
            v[:, 0], v[:, 1], v[:, 2], d["mu"], d["e"], d["e_t"], d["eta0"]]
    header = "W_xx,W_xy,W_xz,W_yy,W_yz,W_zz,n_x,n_y,n_z,v_x,v_y,v_z,mu,e,e_t,eta0"
    np.savetxt(path, np.stack(cols, axis=1), delimiter=",", header=header, comments="", fmt="%.17g")


def cli(impact, law, path, backend, steps):
    out = path + ".out.csv"
    t0 = time.perf_counter()
    p = subprocess.run([impact, "eval", "--law", law, "--in", path, "--out", out, "--backend", backend,
                        "--steps", str(steps)], capture_output=True, text=True, check=True)
    wall = time.perf_counter() - t0
    m = re.search(r"law time ([0-9.e+-]+) s", p.stderr)
    os.unlink(out)
    return float(m.group(1)), wall


def conversion(d, dtype):
    """The package's input conversion alone: the 16 contiguous columns evaluate() hands over."""
    t0 = time.perf_counter()
    W, n, v = d["W"], d["n"], d["v"]
    cols = [np.ascontiguousarray(W[..., i, j], dtype=dtype) for i, j in ((0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2))]
    cols += [np.ascontiguousarray(a[..., k], dtype=dtype) for a in (n, v) for k in range(3)]
    cols += [np.ascontiguousarray(d[p], dtype=dtype) for p in ("mu", "e", "e_t", "eta0")]
    return time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--impact", default="build/impact")
    ap.add_argument("--n", type=int, default=200000)
    ap.add_argument("--backend", default="omp")
    ap.add_argument("--steps", type=int, default=250)
    ap.add_argument("--laws", default=",".join(d["name"] for d in ib.laws()))
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--json", help="write the table as JSON here")
    a = ap.parse_args()
    d = instances(a.n)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "in.csv")
        write_csv(path, d)
        print(f"{a.n} rows, backend {a.backend}, {a.steps} steps, best of {a.reps}; seconds")
        print(f"{'law':18s} {'cli law':>9s} {'cli wall':>9s} {'py wall':>9s} {'py conv':>9s} {'py - cli law':>12s}")
        for law in a.laws.split(","):
            params = {p: d[p] for p in ib.law(law)["params"]}
            law_t, wall_t = min(cli(a.impact, law, path, a.backend, a.steps) for _ in range(a.reps))
            py_t = min(_timed(lambda: ib.evaluate(law, d["W"], d["n"], d["v"], **params, backend=a.backend,
                                                  steps=a.steps)) for _ in range(a.reps))
            conv_t = min(conversion(d, np.float64) for _ in range(a.reps))
            rows.append(dict(law=law, n=a.n, backend=a.backend, cli_law_s=law_t, cli_wall_s=wall_t, py_wall_s=py_t,
                             py_conversion_s=conv_t))
            print(f"{law:18s} {law_t:9.4f} {wall_t:9.4f} {py_t:9.4f} {conv_t:9.4f} {py_t - law_t:12.4f}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(dict(rows=rows), f, indent=1)


def _timed(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


if __name__ == "__main__":
    sys.exit(main())
