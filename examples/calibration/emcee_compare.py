#!/usr/bin/env python3
"""The same posterior from emcee and from impactbatch's own sampler.

    python3 examples/calibration/emcee_compare.py [--config ball-synthetic.toml] [--walkers 32]
            [--steps 1500] [--seed 1] [--out DIR] [--json FILE]

1. `impactbatch.calibrate(config)`: the built-in ensemble sampler (the stretch move in C++; each step
   one batch of half the walkers x the experiments).
2. emcee (PyPI / Debian python3-emcee) on the same model through `impactbatch.log_posterior` with
   `vectorize=True`: each of emcee's steps hands its half-ensemble to the model as one batch.

Both chains start from the same draws from the prior (CalibrationModel.start: the built-in
sampler's start for the seed), run as many walkers and steps, and drop the same burn-in. For each
free parameter the script prints both posteriors' mean and sd and the difference in Monte Carlo
standard errors: sqrt(sd_a^2 / ESS_a + sd_b^2 / ESS_b) for the means, the sd's error as
sd / sqrt(2 ESS) for the sds, ESS = samples / tau with each chain's own integrated autocorrelation
time. Exit status 0 when every difference is within --tolerance (default 4) errors, 1 otherwise,
2 when emcee is missing.
"""
import argparse
import json
import math
import os
import sys
import tempfile
import time

import numpy as np

try:
    import emcee
except ImportError:  # pragma: no cover - told to the caller
    print("emcee_compare: emcee is not installed (Debian: python3-emcee; PyPI: emcee)", file=sys.stderr)
    sys.exit(2)

import impactbatch as ib

HERE = os.path.dirname(os.path.abspath(__file__))


def stats(chain, tau):
    """mean, sd and ESS per parameter of a (steps, walkers, dim) chain."""
    flat = chain.reshape(-1, chain.shape[-1])
    return flat.mean(axis=0), flat.std(axis=0, ddof=1), flat.shape[0] / np.maximum(tau, 1.0)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--config", default=os.path.join(HERE, "ball-synthetic.toml"))
    ap.add_argument("--walkers", type=int, default=32)
    ap.add_argument("--steps", type=int, default=1500)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--backend", default=None, help="the model's backend (default: the config's)")
    ap.add_argument("--tolerance", type=float, default=4.0, help="largest difference, in Monte Carlo errors")
    ap.add_argument("--out", default=None, help="the built-in run's folder (default: a temporary one)")
    ap.add_argument("--json", default=None, help="write the comparison here")
    a = ap.parse_args(argv)
    burn = a.steps // 4

    tmp = None
    out = a.out
    if out is None:
        tmp = tempfile.TemporaryDirectory()
        out = os.path.join(tmp.name, "run")
    # 1. the built-in sampler
    t0 = time.perf_counter()
    res = ib.calibrate(a.config, out=out, backend=a.backend,
                       set={"calibrate.method": "ensemble", "mcmc.walkers": a.walkers, "mcmc.steps": a.steps,
                            "mcmc.burn": burn, "mcmc.seed": a.seed})
    t_ours = time.perf_counter() - t0
    names = res.names
    s = res.samples
    ours = np.stack([np.asarray(s[n]) for n in names], axis=-1).reshape(a.steps - burn, a.walkers, len(names))
    tau_ours = np.array([res.metadata["posterior"][n]["tau"] for n in names])

    # 2. emcee on the same model, vectorised
    model = ib.CalibrationModel(a.config, backend=a.backend)
    p0 = model.start(a.walkers, a.seed)  # the built-in sampler's start for this seed
    sampler = emcee.EnsembleSampler(a.walkers, model.dim, ib.log_posterior, args=(model,), vectorize=True)
    sampler.random_state = np.random.RandomState(a.seed).get_state()  # emcee's own draws, seeded
    rows0 = model.rows_evaluated
    t0 = time.perf_counter()
    sampler.run_mcmc(p0, a.steps, progress=False)
    t_emcee = time.perf_counter() - t0
    theirs = sampler.get_chain(discard=burn)
    tau_theirs = emcee.autocorr.integrated_time(theirs, quiet=True)

    m1, s1, e1 = stats(ours, tau_ours)
    m2, s2, e2 = stats(theirs, tau_theirs)
    worst = 0.0
    rows = []
    print(f"{len(names)} free parameters, {a.walkers} walkers x {a.steps} steps (burn-in {burn}), "
          f"{model.experiments} experiments, backend {model.backend}")
    print(f"{'param':8} {'ours mean':>12} {'emcee mean':>12} {'z':>6}   {'ours sd':>10} {'emcee sd':>10} {'z':>6}"
          f"   {'tau ours':>8} {'tau emcee':>9}")
    for k, n in enumerate(names):
        z_mean = (m1[k] - m2[k]) / math.sqrt(s1[k] ** 2 / e1[k] + s2[k] ** 2 / e2[k])
        z_sd = (s1[k] - s2[k]) / math.sqrt(s1[k] ** 2 / (2 * e1[k]) + s2[k] ** 2 / (2 * e2[k]))
        worst = max(worst, abs(z_mean), abs(z_sd))
        rows.append({"param": n, **{key: float(v) for key, v in (
            ("ours_mean", m1[k]), ("emcee_mean", m2[k]), ("z_mean", z_mean), ("ours_sd", s1[k]), ("emcee_sd", s2[k]),
            ("z_sd", z_sd), ("tau_ours", tau_ours[k]), ("tau_emcee", tau_theirs[k]))}})
        print(f"{n:8} {m1[k]:12.6g} {m2[k]:12.6g} {z_mean:6.2f}   {s1[k]:10.4g} {s2[k]:10.4g} {z_sd:6.2f}"
              f"   {tau_ours[k]:8.1f} {tau_theirs[k]:9.1f}")
    rate = (model.rows_evaluated - rows0) / t_emcee if t_emcee > 0 else float("nan")
    print(f"acceptance: ours {res.acceptance:.3f}, emcee {np.mean(sampler.acceptance_fraction):.3f}")
    print(f"time: ours {t_ours:.2f} s, emcee {t_emcee:.2f} s ({rate:.3g} impacts/s through log_posterior)")
    worst = float(worst)
    ok = bool(worst <= a.tolerance)
    print(f"largest difference {worst:.2f} Monte Carlo errors: {'same posterior' if ok else 'DIFFERENT'} "
          f"(tolerance {a.tolerance})")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"params": rows, "worst_z": worst, "ok": ok, "seconds_ours": t_ours, "seconds_emcee": t_emcee,
                       "emcee_impacts_per_s": float(rate), "walkers": a.walkers, "steps": a.steps, "burn": burn},
                      f, indent=1)
    if tmp is not None:
        tmp.cleanup()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
