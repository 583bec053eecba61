#!/usr/bin/env python3
"""Impacts whose data never leave the GPU: a Monte Carlo of a ball striking a table, sampled with
CuPy or PyTorch (or JAX) on the device, evaluated by impactbatch on those device arrays, and
reduced on the device; only the few summary numbers come back to the host.

The contact space of a sphere (mass m, radius r, n = z, contact point below the centre) is
W = 1/m I + r^2/I_c [e_z]x^T [e_z]x; the initial contact-point velocity is V0 + w0 x (-r e_z).

    PYTHONPATH=build/python python3 examples/python/device_arrays.py [--framework cupy|torch|jax]
                                    [--n 1000000] [--law jia] [--precision double]
Exit status 77 when no CUDA device or no GPU framework is available (nothing to show).
"""
import argparse
import importlib.util
import sys
import time

import numpy as np

import impactbatch as ib


def frameworks():
    return [f for f in ("cupy", "torch", "jax") if importlib.util.find_spec(f) is not None]


def sample(fw, N, dtype, seed=1):
    """The ball's impacts sampled on the device: W (N, 3, 3), n (N, 3), v (N, 3), mu (N,), e (N,)."""
    m, r = 1.0, 1.0
    Ic = 0.4 * m * r * r
    W = np.diag([1 / m + r * r / Ic, 1 / m + r * r / Ic, 1 / m])  # the same for every ball
    if fw == "cupy":
        import cupy as xp

        rng = xp.random.default_rng(seed)

        def U(lo, hi):
            return rng.uniform(lo, hi, N).astype(dtype)

        def asarr(a):
            return xp.asarray(a, dtype=dtype)
        stack = xp.stack
    elif fw == "torch":
        import torch as xp

        g = xp.Generator(device="cuda").manual_seed(seed)
        tdt = xp.float64 if dtype == np.float64 else xp.float32

        def U(lo, hi):
            return lo + (hi - lo) * xp.rand(N, generator=g, device="cuda", dtype=tdt)

        def asarr(a):
            return xp.as_tensor(a, device="cuda", dtype=tdt)

        def stack(xs, axis):
            return xp.stack(xs, dim=axis)
    else:
        import jax
        import jax.numpy as xp

        if dtype == np.float64:
            jax.config.update("jax_enable_x64", True)
        keys = iter(jax.random.split(jax.random.PRNGKey(seed), 8))

        def U(lo, hi):
            return jax.random.uniform(next(keys), (N,), dtype=dtype, minval=lo, maxval=hi)

        def asarr(a):
            return xp.asarray(a, dtype=dtype)
        stack = xp.stack
    V0x, V0z, w0y = U(-3.0, 3.0), U(-6.0, -1.0), U(-4.0, 4.0)
    zero = V0x * 0
    v = stack([V0x - r * w0y, zero, V0z], 1)      # V0 + w0 x (-r e_z), w0 = (0, w0y, 0)
    n = asarr([0.0, 0.0, 1.0])                    # one normal for every row (broadcast)
    return asarr(W), n, v, U(0.05, 0.8), U(0.2, 0.9)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--framework", choices=["cupy", "torch", "jax"])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--law", default="jia")
    ap.add_argument("--precision", default="double", choices=["double", "float"])
    a = ap.parse_args()
    usable, why = ib.cuda_usable()
    have = frameworks()
    fw = a.framework or (have[0] if have else None)
    if not usable or fw is None or fw not in have:
        print(f"device_arrays: nothing to show here: CUDA {'usable' if usable else 'not usable (' + why + ')'}, "
              f"GPU frameworks installed: {', '.join(have) or 'none'}", file=sys.stderr)
        return 77
    dtype = np.float64 if a.precision == "double" else np.float32
    W, n, v, mu, e = sample(fw, a.n, dtype)
    t0 = time.perf_counter()
    r = ib.evaluate(a.law, W, n, v, mu=mu, e=e, e_t=0.0, eta0=1.1, precision=a.precision)  # device in, device out
    dt = time.perf_counter() - t0
    ok = r.status == 0
    Pn, Pt = r.P[:, 2], (r.P[:, 0] ** 2 + r.P[:, 1] ** 2) ** 0.5
    share = float(ok.sum()) / a.n if fw != "torch" else float(ok.sum().item()) / a.n

    def mean(x):
        return float((x * ok).sum()) / max(1.0, share * a.n)
    print(f"{a.n} ball impacts with {a.law} on {fw} device arrays ({a.precision}): {dt:.3f} s, "
          f"{a.n / dt:.3g} impacts/s; ok {100 * share:.2f}%")
    print(f"mean normal impulse {mean(Pn):.6g}, mean tangential impulse {mean(Pt):.6g}, "
          f"mean dE {mean(r.dE):.6g}; results stay on the device as {type(r.P).__module__.split('.')[0]} arrays")
    return 0


if __name__ == "__main__":
    sys.exit(main())
