#!/usr/bin/env python3
"""Vectorised NumPy peer of `impact eval` for the CPU-vs-GPU benchmarks (benches/peers/).

    python3 numpy_peer.py --law jia --in cases.csv --out peer.csv [--precision double|float]
                          [--steps 250] [--integrator rk4|euler] [--reps 5] [--warmup 1]
                          [--timing-out timing.json]

Reads an instance table in the contact-space format of docs/INTERFACE.md, evaluates the law over
all rows at once (columns, no per-row Python), writes the result table with the output columns of
`impact eval` (P_*, vf_*, dE, status and the law's extras) and reports the timing of the law
evaluation alone (I/O excluded: `warmup` untimed runs, then `reps` timed ones, median) as JSON.

Laws: newton, chatterjee-ruina (closed forms) and jia: the same fixed-step scheme as the
project's fast path (include/impact/laws/jia.hpp: RK4 or Euler in the regularised time tau with
dI_n = s dtau, the sigma = ln s head and tail of 3D slips, the slaved exponential step of stiff 3D
slips, stick/slip switching and the end of compression / restitution located by Illinois false
position, `steps` steps per instance relative to its own frictionless compression time, the same
step and switch bounds). The per-instance loop of the C++ code becomes a loop in which every
active row does one advance per iteration, a fixed step or one Illinois probe of the event it is
locating (peer_common.jia_iterate); mode switches, phases and the step kinds are masks, the
three step kinds run on their own subsets of rows, and rows that end leave the active set. With
-ffp-contract=off on the C++ side the arithmetic is the same operation for operation: results agree
with `impact eval --backend omp|serial` bit for bit in double (apart from libm's last bit), and
benches/peers/check.py measures it.
"""
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peer_common as pc

xp = np


# ---------------------------------------------------------------------------------------------
# jia: the integration loop, masked over the rows
# ---------------------------------------------------------------------------------------------
def _take(y, rows):
    return tuple(c[rows] for c in y)


def _advance(T, S, y, h, stick, comp, stiff, sig, euler):
    """JiaLaw::advance for every row: sig step, else slaved step where stiff, else RK step."""
    reg = ~(stiff | sig)
    slv = stiff & ~sig
    kinds = ((reg, lambda S_, y_, h_, st_, cp_: pc.jia_step(xp, S_, y_, h_, st_, cp_, euler)),
             (slv, lambda S_, y_, h_, st_, cp_: pc.jia_slaved_step(xp, T, S_, y_, h_, cp_, euler)),
             (sig, lambda S_, y_, h_, st_, cp_: pc.jia_sig_step(xp, S_, y_, h_, cp_, euler)))
    out = None
    for mask, fn in kinds:
        if not mask.any():
            continue
        if mask.all():
            return fn(S, y, h, stick, comp)
        if out is None:
            out = [np.empty_like(c) for c in y]
        rows = np.nonzero(mask)[0]
        r = fn(S.take(rows), _take(y, rows), h[rows], stick[rows], comp[rows])
        for k in range(6):
            out[k][rows] = r[k]
    return tuple(out)


def jia(T, W, n, v0, mu, e, e_t, eta0, steps=250, euler=False):
    nrows = len(mu)
    su = pc.jia_setup(xp, T, W, n, v0, mu, e, eta0, steps)
    status = np.asarray(su["status"]).astype(np.int32)
    su["status"] = status
    # results of finished rows
    yF = [np.zeros(nrows, dtype=T) for _ in range(6)]
    stepsF = np.zeros(nrows, dtype=np.int32)
    In_cF = np.zeros(nrows, dtype=T)
    modesF = np.zeros(nrows, dtype=np.int32)
    # the active rows, compacted as they finish
    idx = np.nonzero(status == pc.OK)[0]
    C = pc.jia_consts(su)
    C = {k: (v.take(idx) if k == "S" else v[idx]) for k, v in C.items()}
    st = pc.jia_init_state(xp, T, su)
    st = {k: (_take(v, idx) if isinstance(v, tuple) else v[idx]) for k, v in st.items()}

    def advance(S, y, h, stick, comp, stiff, sig):
        return _advance(T, S, y, h, stick, comp, stiff, sig, euler)

    while idx.size:
        st = pc.jia_iterate(xp, T, C, st, advance)
        d = st["done"]
        nd = int(np.count_nonzero(d))
        if nd:  # results out, rows compacted: every row of the state is active
            rows = idx[d]
            for k in range(6):
                yF[k][rows] = st["y"][k][d]
            status[rows] = st["status"][d]
            stepsF[rows] = st["nsteps"][d]
            In_cF[rows] = st["In_c"][d]
            modesF[rows] = st["modes"][d]
            keep = ~d
            idx = idx[keep]
            C = {k: (v.take(keep) if k == "S" else v[keep]) for k, v in C.items()}
            st = {k: (_take(v, keep) if isinstance(v, tuple) else v[keep]) for k, v in st.items()}

    P = pc.jia_impulse(su, yF)
    vf, dE, finite = pc.finish(xp, W, v0, P)
    status = np.where((status == pc.OK) & ~finite, pc.NON_FINITE, status)
    return {"P": P, "vf": vf, "dE": dE, "status": status, "In_c": In_cF, "modes": modesF, "steps": stepsF}


# ---------------------------------------------------------------------------------------------
# driver
# ---------------------------------------------------------------------------------------------
def evaluate(law, T, cols, steps, euler):
    W = tuple(cols[k] for k in ("W_xx", "W_xy", "W_xz", "W_yy", "W_yz", "W_zz"))
    n = (cols["n_x"], cols["n_y"], cols["n_z"])
    v0 = (cols["v_x"], cols["v_y"], cols["v_z"])
    args = (W, n, v0, cols["mu"], cols["e"], cols["e_t"], cols["eta0"])
    with np.errstate(all="ignore"):
        if law == "newton":
            return pc.newton(xp, T, *args)
        if law == "chatterjee-ruina":
            return pc.chatterjee_ruina(xp, T, *args)
        if law == "jia":
            return jia(T, *args, steps=steps, euler=euler)
    raise SystemExit("unknown law '%s' (numpy peer: newton, chatterjee-ruina, jia)" % law)


def main(argv=None):
    ap = pc.peer_arguments(__doc__.split("\n\n")[0], "untimed runs before the timed ones")
    a = ap.parse_args(argv)
    if a.steps < 1:
        ap.error("--steps must be >= 1")
    T = np.float64 if a.precision == "double" else np.float32
    cols64, ids, id_name = pc.read_instances(a.inp, a.law, np)
    cols = {k: v.astype(T) for k, v in cols64.items()}
    euler = a.integrator == "euler"
    res = None
    for _ in range(max(a.warmup, 0)):
        res = evaluate(a.law, T, cols, a.steps, euler)
    times = []
    for _ in range(max(a.reps, 1)):
        t0 = time.perf_counter()
        res = evaluate(a.law, T, cols, a.steps, euler)
        times.append(time.perf_counter() - t0)
    nrows = len(cols["mu"])
    if a.out:
        pc.write_results(a.out, a.law, a.precision, ids, id_name, res, np)
    pc.write_timing(a.timing_out, pc.timing_record("numpy", a, nrows, times, res["status"], numpy=np.__version__))
    return 0


if __name__ == "__main__":
    sys.exit(main())
