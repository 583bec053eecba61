#!/usr/bin/env python3
"""JAX peer of `impact eval` for the CPU-vs-GPU benchmarks (benches/peers/).

    python3 jax_peer.py --law jia --in cases.csv --out peer.csv [--precision double|float]
                        [--steps 250] [--integrator rk4|euler] [--reps 5] [--warmup 1]
                        [--timing-out timing.json]

The same laws and the same arithmetic as numpy_peer.py (newton, chatterjee-ruina, jia; the
elementwise pieces are shared, benches/peers/peer_common.py), written per instance and mapped over
the rows with jax.vmap. For `jia` the integration is a lax.while_loop per instance, bounded (a row
that reaches the step or switch bound of include/impact/laws/jia.hpp ends with step_limit), whose
body (peer_common.jia_iterate) is one fixed step or one Illinois probe of the event being located,
so that the lanes of the vmapped loop do the same work at every iteration; branches are selects,
so every lane computes all three step kinds. The whole batch is one jax.jit-compiled function;
float64 is enabled (jax_enable_x64) for --precision double, float32 arrays are used for
--precision float. Compilation is timed apart from the runs; the runs are timed with
block_until_ready on inputs already on the device.

On the CPU, XLA's FMA contraction is switched off (the ISA limited to AVX; --allow-fma keeps it):
the project's host code is compiled without contraction, so the JAX CPU results agree with
`impact eval --backend omp` to rounding. On a GPU XLA contracts FMAs (see check.py --outliers).
Exit status 77 (skipped) with "JAX not available" when jax cannot be imported.
"""
import os
import sys
import time


def _no_fma_on_cpu(argv):
    """XLA's CPU backend contracts a*b + c into FMA instructions where the ISA has them (AVX2), and
    the project's host code is compiled with -ffp-contract=off: with FMAs the JAX CPU results differ
    from ours in the last bits, and a fixed-step law with events (jia) then takes a discrete decision
    the other way on a few rows in a thousand. Unless --allow-fma is given or XLA_FLAGS already sets
    it, the CPU ISA is limited to AVX (no FMA) -- if this jaxlib knows the flag (probed in a child
    process: an unknown flag in XLA_FLAGS is fatal). Returns whether the limit is in force. The GPU
    backend is not affected (XLA contracts FMAs there; see check.py --outliers)."""
    flags = os.environ.get("XLA_FLAGS", "")
    if "xla_cpu_max_isa" in flags:
        return "xla_cpu_max_isa" + flags.split("xla_cpu_max_isa", 1)[1].split()[0]
    if "--allow-fma" in argv:
        return None
    want = (flags + " --xla_cpu_max_isa=AVX").strip()
    try:
        import subprocess
        ok = subprocess.run([sys.executable, "-c", "import jax; jax.devices('cpu')"],
                            env=dict(os.environ, XLA_FLAGS=want),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120).returncode == 0
    except Exception:
        ok = False
    if ok:
        os.environ["XLA_FLAGS"] = want
        return "xla_cpu_max_isa=AVX"
    return None


CPU_ISA_LIMIT = _no_fma_on_cpu(sys.argv) if __name__ == "__main__" else None

try:
    import jax
    import jax.numpy as jnp
    from jax import lax
except Exception as ex:  # ImportError, or a broken jaxlib
    print("JAX not available (%s: %s): jax_peer skipped" % (type(ex).__name__, ex), file=sys.stderr)
    sys.exit(77)

jax.config.update("jax_enable_x64", True)
import numpy as np  # noqa: E402  after the check that JAX imports (else exit 77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peer_common as pc  # noqa: E402  after the check that JAX imports (else exit 77)

xp = jnp


def _sel(c, a, b):
    return tuple(jnp.where(c, a[k], b[k]) for k in range(len(a)))


def _advance(T, S, y, h, stick, comp, stiff, sig, euler):
    """JiaLaw::advance; under vmap the three kinds are all computed and selected per lane."""
    reg = pc.jia_step(xp, S, y, h, stick, comp, euler)
    slv = pc.jia_slaved_step(xp, T, S, y, h, comp, euler)
    sgs = pc.jia_sig_step(xp, S, y, h, comp, euler)
    return _sel(sig, sgs, _sel(stiff, slv, reg))


def make_jia(T, steps, euler):
    def advance(S, y, h, stick, comp, stiff, sig):
        return _advance(T, S, y, h, stick, comp, stiff, sig, euler)

    def one(Wxx, Wxy, Wxz, Wyy, Wyz, Wzz, nx, ny, nz, vx, vy, vz, mu, e, e_t, eta0):
        W = (Wxx, Wxy, Wxz, Wyy, Wyz, Wzz)
        n = (nx, ny, nz)
        v0 = (vx, vy, vz)
        su = pc.jia_setup(xp, T, W, n, v0, mu, e, eta0, steps)
        su["status"] = jnp.asarray(su["status"]).astype(jnp.int32)
        su["max_steps"] = su["max_steps"].astype(jnp.int32)
        C = pc.jia_consts(su)
        init = pc.jia_init_state(xp, T, su)
        dtypes = jax.tree_util.tree_map(lambda x: jnp.asarray(x).dtype, init)

        def fix(st):  # the carry of lax.while_loop keeps its dtypes
            return jax.tree_util.tree_map(lambda x, d: jnp.asarray(x).astype(d), st, dtypes)

        # one step or one Illinois probe per iteration; bounded: a row that reaches the step or
        # switch bound of jia.hpp ends with step_limit
        st = lax.while_loop(lambda st: ~st["done"], lambda st: fix(pc.jia_iterate(xp, T, C, st, advance)),
                            fix(init))
        P = pc.jia_impulse(su, st["y"])
        vf, dE, fin = pc.finish(xp, W, v0, P)
        status = jnp.where((st["status"] == pc.OK) & ~fin, pc.NON_FINITE, st["status"])
        return {"P": P, "vf": vf, "dE": dE, "status": status, "In_c": st["In_c"], "modes": st["modes"],
                "steps": st["nsteps"]}
    return one


def make_law(law, T, steps, euler):
    if law == "jia":
        return make_jia(T, steps, euler)
    fn = {"newton": pc.newton, "chatterjee-ruina": pc.chatterjee_ruina}[law]

    def one(Wxx, Wxy, Wxz, Wyy, Wyz, Wzz, nx, ny, nz, vx, vy, vz, mu, e, e_t, eta0):
        return fn(xp, T, (Wxx, Wxy, Wxz, Wyy, Wyz, Wzz), (nx, ny, nz), (vx, vy, vz), mu, e, e_t, eta0)
    return one


def main(argv=None):
    ap = pc.peer_arguments(__doc__.split("\n\n")[0], "untimed runs after compilation")
    ap.add_argument("--allow-fma", action="store_true", help="leave XLA's CPU backend free to contract FMAs")
    a = ap.parse_args(argv)
    if a.steps < 1:
        ap.error("--steps must be >= 1")
    T = np.float64 if a.precision == "double" else np.float32
    cols64, ids, id_name = pc.read_instances(a.inp, a.law, np)
    nrows = len(cols64["mu"])
    args = [jax.device_put(cols64[k].astype(T)) for k in pc.INPUT_NAMES]
    fn = jax.jit(jax.vmap(make_law(a.law, T, a.steps, a.integrator == "euler")))
    t0 = time.perf_counter()
    compiled = fn.lower(*args).compile()
    compile_s = time.perf_counter() - t0
    res = None
    for _ in range(max(a.warmup, 0)):
        res = jax.block_until_ready(compiled(*args))
    times = []
    for _ in range(max(a.reps, 1)):
        t0 = time.perf_counter()
        res = jax.block_until_ready(compiled(*args))
        times.append(time.perf_counter() - t0)
    res = jax.tree_util.tree_map(np.asarray, res)
    if a.out:
        pc.write_results(a.out, a.law, a.precision, ids, id_name, res, np)
    dev = jax.devices()[0]
    pc.write_timing(a.timing_out, pc.timing_record(
        "jax", a, nrows, times, res["status"], compile_s=compile_s,
        device="%s (%s)" % (dev.platform, getattr(dev, "device_kind", "")), jax=jax.__version__,
        cpu_isa_limit=CPU_ISA_LIMIT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
