#!/usr/bin/env python3
"""impactbatch.evaluate on NumPy arrays against `impact eval` on the same rows (docs/python.md).

For each law: the CLI's law time (the batch calls alone, from its summary) and its wall time (CSV in
and out), and the package's wall time for evaluate() on host arrays, split into the conversion (the
(N, 3, 3)/(N, 3) arrays broadcast into contiguous columns, measured alone) and the rest (the same
batch entry point). The package must not be slower than the CLI's law time by more than the
conversion cost.

    PYTHONPATH=build/python python3 benches/python_bench.py --impact build/impact --n 200000

--device (a GPU with JAX): evaluate() on JAX device arrays (read and written on the GPU, no host
copy) against the JAX peer (benches/peers/jax_peer.py: the same law as a jit-compiled vmap) on the
same device arrays, both timed to completion (block_until_ready), best of --reps after a warm-up,
for chatterjee-ruina and jia by default: instances/s and the ratio.

    PYTHONPATH=build/python python3 benches/python_bench.py --device --n 4000000 --laws chatterjee-ruina,jia
"""
import argparse
import functools
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
    cols = [np.ascontiguousarray(W[..., i, j], dtype=dtype)
            for i, j in ((0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2))]
    cols += [np.ascontiguousarray(a[..., k], dtype=dtype) for a in (n, v) for k in range(3)]
    cols += [np.ascontiguousarray(d[p], dtype=dtype) for p in ("mu", "e", "e_t", "eta0")]
    return time.perf_counter() - t0


def device_bench(a, d):
    """evaluate() on JAX GPU arrays against the JAX peer on the same arrays; rows for the JSON."""
    usable, why = ib.cuda_usable()
    if not usable:
        print(f"python_bench: --device needs a usable CUDA device ({why})", file=sys.stderr)
        return None
    try:
        import jax
    except ImportError:
        print("python_bench: --device needs JAX (the peer and the device arrays)", file=sys.stderr)
        return None
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "peers"))
    import jax_peer

    gpu = [x for x in jax.devices() if x.platform == "gpu"]
    if not gpu:
        print("python_bench: --device: JAX has no GPU backend here", file=sys.stderr)
        return None

    def put(x, dtype):
        return jax.device_put(np.asarray(x, dtype=dtype), gpu[0])

    # the timed calls, bound to one law's arguments with functools.partial
    def ours_on_device(law, W, n, v, params, precision):
        r = ib.evaluate(law, W, n, v, **params, precision=precision, steps=a.steps)
        jax.block_until_ready(r.status)

    def peer_on_device(fn, cols):
        jax.block_until_ready(fn(*cols))

    rows = []
    for precision in a.precisions.split(","):
        if precision == "double":
            jax.config.update("jax_enable_x64", True)
        T = np.float64 if precision == "double" else np.float32
        W, n, v = put(d["W"], T), put(d["n"], T), put(d["v"], T)
        prm = {k: put(d[k], T) for k in ("mu", "e", "e_t", "eta0")}
        cols = [W[:, 0, 0], W[:, 0, 1], W[:, 0, 2], W[:, 1, 1], W[:, 1, 2], W[:, 2, 2], n[:, 0], n[:, 1], n[:, 2],
                v[:, 0], v[:, 1], v[:, 2], prm["mu"], prm["e"], prm["e_t"], prm["eta0"]]
        cols = [jax.block_until_ready(c + 0) for c in cols]  # the peer's contiguous columns, made before timing
        for law in a.laws.split(","):
            params = {p: prm[p] for p in ib.law(law)["params"]}
            ours = functools.partial(ours_on_device, law, W, n, v, params, precision)
            if law in ("newton", "chatterjee-ruina", "jia"):
                fn = jax.jit(jax.vmap(jax_peer.make_law(law, T, a.steps, False))).lower(*cols).compile()
                peer = functools.partial(peer_on_device, fn, cols)
            else:
                peer = None
            ours()
            t_ours = min(_timed(ours) for _ in range(a.reps))
            t_peer = None
            if peer:
                peer()
                t_peer = min(_timed(peer) for _ in range(a.reps))
            rate = a.n / t_ours
            prate = a.n / t_peer if t_peer else None
            rows.append(dict(law=law, precision=precision, n=a.n, steps=a.steps, device=str(gpu[0]),
                             evaluate_device_per_s=rate, jax_peer_per_s=prate,
                             ratio=(rate / prate) if prate else None))
            print(f"{law:18s} {precision:6s} evaluate on device arrays {rate:11.4g}/s   JAX peer "
                  f"{prate if prate else float('nan'):11.4g}/s   ratio {rate / prate if prate else float('nan'):7.3g}")
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--impact", default="build/impact")
    ap.add_argument("--n", type=int, default=200000)
    ap.add_argument("--backend", default="omp")
    ap.add_argument("--steps", type=int, default=250)
    ap.add_argument("--laws", default=",".join(d["name"] for d in ib.laws()))
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--json", help="write the table as JSON here")
    ap.add_argument("--device", action="store_true", help="device arrays (JAX on a GPU) against the JAX peer")
    ap.add_argument("--precisions", default="double,float", help="--device: the precisions")
    a = ap.parse_args()
    d = instances(a.n)
    if a.device:
        if a.laws == ",".join(x["name"] for x in ib.laws()):
            a.laws = "chatterjee-ruina,jia"
        rows = device_bench(a, d)
        if rows is None:
            return 77
        if a.json:
            with open(a.json, "w") as f:
                json.dump(dict(device_rows=rows), f, indent=1)
        return 0
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "in.csv")
        write_csv(path, d)
        print(f"{a.n} rows, backend {a.backend}, {a.steps} steps, best of {a.reps}; seconds")
        print(f"{'law':18s} {'cli law':>9s} {'cli wall':>9s} {'py wall':>9s} {'py conv':>9s} {'py - cli law':>12s}")
        for law in a.laws.split(","):
            params = {p: d[p] for p in ib.law(law)["params"]}
            law_t, wall_t = min(cli(a.impact, law, path, a.backend, a.steps) for _ in range(a.reps))
            evaluate = functools.partial(ib.evaluate, law, d["W"], d["n"], d["v"], **params, backend=a.backend,
                                         steps=a.steps)
            py_t = min(_timed(evaluate) for _ in range(a.reps))
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
