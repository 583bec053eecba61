#!/usr/bin/env python3
"""Is `impact calibrate`'s posterior right? Three measurements, run by hand (benches/calibration/README.md).

    PYTHONPATH=build/python python3 benches/calibration/validate.py --json out/validate.json [--quick]
            [--parts a,b,c,d] [--backend omp] [--b-smc-seeds cornell-jia=1-5,ball-oblique-misspecified=1-5]
            [--keep DIR]

(a) A grid reference on real data. Cornell, Jia's law (examples/calibration/cornell-jia.toml) with e
    fixed at its posterior median 0.9745 (params.e), mu and eta0 free with the config's priors. The
    posterior is integrated by brute force through CalibrationModel.log_posterior, in batches: a
    coarse cell-centred grid over the whole prior box finds where the mass is and splits it into its
    eta0 modes (cut at the minimum of the eta0 marginal between two peaks); then a fine grid over a
    box around each mode (the coarse cells within 25 log units of the mode's best, widened by 1.5
    coarse cells and to at least +-8 sd) integrates it by the trapezoid rule, the coarse cells
    outside every box adding what lies between. The grid's own error: the same sums on the fine
    grid's every other node (twice the spacing; the nested grid costs no evaluation). Per mode: mass,
    mean and sd of mu and eta0. Then SMC (calibrate.method = "smc", its default particles, smc.seed
    1..3) on the same model: per mode (its samples split at the grid's cut) mass, means and sds with
    their Monte Carlo standard errors from the 16 independent runs inside one SMC run (samples.npy's
    `run` column; the jackknife over runs, which for the mass is exactly sd over runs / sqrt(runs),
    and which stays defined for a mode's mean where a run holds no particle of it), and
    z = (SMC - grid) / se; the check is |z| <= 3 for every figure of every seed and of the three seeds
    pooled. Beside them the ensemble sampler's numbers (the config's [mcmc], seed 1), its samples split
    at the same cut (no error bar: its walkers do not cross between modes, so its masses are the
    walkers' starts', not the posterior's).
(b) Every seed finds the bulk, on cornell-jia.toml (mu, e, eta0 free, as shipped) and on
    ball-oblique-misspecified.toml: calibrate.method = "fit" with fit.seed 1..20, its estimate's log p
    within 0.01 of the best over all seeds; SMC with smc.seed 1..5, its heaviest mode holding more
    than half the mass, with every parameter's mean within 3 of the mode's sds of the best fit.
(c) Coverage: 50 data sets drawn from the prior of examples/calibration/ball-synthetic.toml
    (chatterjee-ruina, mu and e free, 24 experiments, Vx and Vz observed with sd 0.02). Data set i
    (1..50): (mu, e) drawn from the config's uniform priors with numpy's default_rng(i), the observed
    outputs CalibrationModel.predict at that point plus Gaussian noise of the config's sigmas (the same
    generator), written as a CSV with ball-synthetic.csv's columns; SMC (smc.particles 512, smc.seed i)
    on it; does the central 90% interval (metadata.json's quantiles 0.05 and 0.95) hold the truth?
    Coverage per parameter, and of the 100 intervals together, against the binomial band
    0.9 +- 2 sqrt(0.9 0.1 / n).

(d) The evidence on cornell-stronge.toml (rigid Stronge, mu and e uniform): log Z from a trapezoid
    grid of CalibrationModel.log_posterior, from SMC (smc.seed 1..3) and, where dynesty is installed,
    from its static nested sampling (1000 live points, rstate 1) on model.log_likelihood with the unit
    cube mapped onto the config's priors; SMC within 3 of its se of the grid and within 3 combined se
    of dynesty.

Markdown tables go to stdout; --json writes every figure, the timings and the machine. Exit status 0
when every check passed, 1 otherwise. --quick: a smaller run of every part (a coarser grid, one SMC
seed and a short ensemble chain; 5 fit seeds and 2 SMC seeds; 20 data sets at 256 particles), to see
that the script works: its checks are not the measurement.
"""
import argparse
import json
import math
import os
import platform
import shutil
import sys
import tempfile
import time

import numpy as np

SRC = os.environ.get("IMPACT_SOURCE_DIR", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SRC = os.path.abspath(SRC)
try:
    import impactbatch as ib
except ImportError:  # the build folder's package, as ctest's pytest run imports it
    sys.path.insert(0, os.path.join(SRC, "build", "python"))
    import impactbatch as ib

EXAMPLES = os.path.join(SRC, "examples", "calibration")
JIA = os.path.join(EXAMPLES, "cornell-jia.toml")
OBLIQUE = os.path.join(EXAMPLES, "ball-oblique-misspecified.toml")
SYNTH = os.path.join(EXAMPLES, "ball-synthetic.toml")
E_FIXED = 0.9745  # cornell-jia's posterior median of e
# the global modes: the best fit over every seed (docs/calibration.md, "The fit method")
GLOBAL_LOGP = {"cornell-jia": 70.9126, "ball-oblique-misspecified": 34.53}


# ---------------------------------------------------------------------------------------------------
# small helpers

def md_table(headers, rows):
    out = ["| " + " | ".join(headers) + " |",
           "|" + "|".join("---" if i == 0 else "---:" for i in range(len(headers))) + "|"]
    for r in rows:
        out.append("| " + " | ".join(str(c) for c in r) + " |")
    return "\n".join(out)


def fmt(x, digits=5):
    if x is None:
        return "-"
    if isinstance(x, (bool, np.bool_)):
        return "yes" if x else "NO"
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    if not np.isfinite(x):
        return str(x)
    return f"{x:.{digits}g}"


def uniform_priors(model):
    """{name: (lo, hi)} of the model's free parameters, from its resolved config (every prior of the
    configs used here is uniform; another is an error, not a guess)."""
    out = {}
    for name in model.names:
        spec = model.config["params"][name]
        if isinstance(spec, dict):
            if spec.get("dist") != "uniform":
                raise ValueError(f"{name}: prior {spec} is not uniform")
            out[name] = (float(spec["lo"]), float(spec["hi"]))
            continue
        parts = str(spec).split(":")
        if parts[0] != "uniform" or len(parts) != 3:
            raise ValueError(f"{name}: prior {spec!r} is not uniform")
        out[name] = (float(parts[1]), float(parts[2]))
    return out


def calibrate(config, out, backend, sets, log):
    """ib.calibrate with the given overrides into `out` (replaced), timed."""
    t0 = time.perf_counter()
    r = ib.calibrate(config, out=out, backend=backend, set=sets, force=True)
    dt = time.perf_counter() - t0
    log(f"  {os.path.basename(config)} {sets}: {dt:.1f} s")
    return r, dt


def load_samples(out_dir):
    return np.load(os.path.join(out_dir, "samples.npy"))


def weighted_moments(w, x):
    """mean and sd of x under the (unnormalised) weights w."""
    s = w.sum()
    m = float((w * x).sum() / s)
    v = float((w * (x - m) ** 2).sum() / s)
    return m, math.sqrt(max(v, 0.0))


# ---------------------------------------------------------------------------------------------------
# (a) the grid reference

class GridEvaluator:
    """log_posterior on (n, 2) points in batches, counting points and time."""

    def __init__(self, model, batch=4096):
        self.model, self.batch, self.points, self.seconds = model, batch, 0, 0.0

    def __call__(self, pts):
        out = np.empty(len(pts))
        t0 = time.perf_counter()
        for i in range(0, len(pts), self.batch):
            out[i:i + self.batch] = self.model.log_posterior(pts[i:i + self.batch])
        self.seconds += time.perf_counter() - t0
        self.points += len(pts)
        nan = np.isnan(out)
        if nan.any():  # a failed row: say so, and count it as no mass (as the sampler rejects it)
            print(f"  grid: {int(nan.sum())} of {len(pts)} points failed numerically (NaN), taken as -inf",
                  file=sys.stderr)
            out[nan] = -np.inf
        return out


def trapezoid_weights(n):
    w = np.ones(n)
    w[0] = w[-1] = 0.5
    return w


def find_modes_1d(marginal, floor=1e-9, merge=0.5):
    """Peaks of a 1-D marginal (local maxima above floor x its max; two peaks whose valley is above
    merge x the lower peak are one) and the indices of the valleys between consecutive peaks."""
    m = marginal / marginal.max()
    n = len(m)
    peaks = [j for j in range(n) if m[j] > floor and (j == 0 or m[j] >= m[j - 1]) and (j == n - 1 or m[j] > m[j + 1])]
    changed = True
    while changed and len(peaks) > 1:
        changed = False
        for k in range(len(peaks) - 1):
            a, b = peaks[k], peaks[k + 1]
            v = a + int(np.argmin(m[a:b + 1]))
            if m[v] > merge * min(m[a], m[b]):
                peaks.pop(k if m[a] < m[b] else k + 1)
                changed = True
                break
    cuts = [peaks[k] + int(np.argmin(m[peaks[k]:peaks[k + 1] + 1])) for k in range(len(peaks) - 1)]
    return peaks, cuts


def grid_reference(backend, quick, log):
    """The grid posterior of cornell-jia with e fixed: modes split in eta0, per mode mass, mean, sd."""
    model = ib.CalibrationModel(JIA, backend=backend, set={"params.e": E_FIXED})
    names = model.names
    assert names == ["mu", "eta0"], names
    pri = uniform_priors(model)
    ev = GridEvaluator(model)
    t_start = time.perf_counter()

    # time per point first (the batch size the grid uses)
    probe = np.column_stack([np.full(512, 0.094), np.linspace(pri["eta0"][0], pri["eta0"][1], 512)])
    t0 = time.perf_counter()
    model.log_posterior(probe)
    per_point = (time.perf_counter() - t0) / len(probe)
    log(f"  grid: {per_point * 1e6:.0f} us per point on {backend} (a batch of 512)")

    # coarse: cell centres over the prior box
    n_mu, n_eta = (64, 91) if quick else (126, 181)
    (mlo, mhi), (elo, ehi) = pri["mu"], pri["eta0"]
    dmu_c, deta_c = (mhi - mlo) / n_mu, (ehi - elo) / n_eta
    mu_c = mlo + (np.arange(n_mu) + 0.5) * dmu_c
    eta_c = elo + (np.arange(n_eta) + 0.5) * deta_c
    MU, ETA = np.meshgrid(mu_c, eta_c, indexing="ij")
    lp_c = ev(np.column_stack([MU.ravel(), ETA.ravel()])).reshape(n_mu, n_eta)
    ref = float(np.max(lp_c))
    P_c = np.exp(lp_c - ref)
    marg = P_c.sum(axis=0)
    peaks, cuts = find_modes_1d(marg)
    edges = [elo] + [float(eta_c[c]) for c in cuts] + [ehi]  # eta0 segments, one per mode
    log(f"  grid: coarse {n_mu} x {n_eta}, max log p {ref:.4f}, eta0 peaks at "
        f"{[round(float(eta_c[p]), 3) for p in peaks]}, cuts at {[round(e, 4) for e in edges[1:-1]]}")

    # a fine box per mode
    n_half = 30 if quick else 80  # the h/2 grid has 2 n_half + 1 nodes a side, the h grid n_half + 1
    boxes = []
    for k in range(len(peaks)):
        seg = (ETA >= edges[k]) & (ETA < edges[k + 1])
        lmax = float(np.max(np.where(seg, lp_c, -np.inf)))
        sel = seg & (lp_c > lmax - 25)
        w = np.where(seg, P_c, 0.0)
        mu_m, mu_s = weighted_moments(w, MU)
        et_m, et_s = weighted_moments(w, ETA)
        a_mu = min(MU[sel].min() - 1.5 * dmu_c, mu_m - 8 * mu_s)
        b_mu = max(MU[sel].max() + 1.5 * dmu_c, mu_m + 8 * mu_s)
        a_et = min(ETA[sel].min() - 1.5 * deta_c, et_m - 8 * et_s)
        b_et = max(ETA[sel].max() + 1.5 * deta_c, et_m + 8 * et_s)
        box = (max(a_mu, mlo), min(b_mu, mhi), max(a_et, edges[k]), min(b_et, edges[k + 1]))
        boxes.append(box)

    # the coarse mass outside every box (what lies between the modes, and far away)
    inside = np.zeros_like(P_c, dtype=bool)
    for (a_mu, b_mu, a_et, b_et) in boxes:
        inside |= (MU >= a_mu) & (MU <= b_mu) & (ETA >= a_et) & (ETA <= b_et)
    outside_mass = float(P_c[~inside].sum() * dmu_c * deta_c)

    fine = []
    for a_mu, b_mu, a_et, b_et in boxes:
        n = 2 * n_half + 1
        mu_f, et_f = np.linspace(a_mu, b_mu, n), np.linspace(a_et, b_et, n)
        M, E = np.meshgrid(mu_f, et_f, indexing="ij")
        lp = ev(np.column_stack([M.ravel(), E.ravel()])).reshape(n, n)
        res = {}
        for label, step in (("h", 2), ("h/2", 1)):
            sub = np.s_[::step, ::step]
            Ms, Es, L = M[sub], E[sub], lp[sub]
            hm, he = (mu_f[step] - mu_f[0]), (et_f[step] - et_f[0])
            W = np.outer(trapezoid_weights(Ms.shape[0]), trapezoid_weights(Ms.shape[1])) * np.exp(L - ref) * hm * he
            mm, ms = weighted_moments(W, Ms)
            em, es = weighted_moments(W, Es)
            res[label] = dict(integral=float(W.sum()), mu_mean=mm, mu_sd=ms, eta0_mean=em, eta0_sd=es,
                              spacing_mu=hm, spacing_eta0=he)
        lmax = float(lp.max())
        i, j = np.unravel_index(int(np.argmax(lp)), lp.shape)
        edge = max(lp[0, :].max(), lp[-1, :].max(), lp[:, 0].max(), lp[:, -1].max()) - lmax
        fine.append(dict(box=dict(mu=[a_mu, b_mu], eta0=[a_et, b_et]), nodes=[n, n], logp_max=lmax,
                         argmax=dict(mu=float(M[i, j]), eta0=float(E[i, j])), edge_logp_below_max=float(edge),
                         **res))

    modes = []
    for label in ("h", "h/2"):
        total = sum(f[label]["integral"] for f in fine) + outside_mass
        for f in fine:
            f[label]["mass"] = f[label]["integral"] / total
    for k, f in enumerate(fine):
        best, coarse2 = f["h/2"], f["h"]
        err = {q: abs(best[q] - coarse2[q]) for q in ("mass", "mu_mean", "mu_sd", "eta0_mean", "eta0_sd")}
        modes.append(dict(mode=k, eta0_range=[edges[k], edges[k + 1]], **{q: best[q] for q in err},
                          grid_error=err, h=coarse2, **{k2: f[k2] for k2 in ("box", "nodes", "logp_max", "argmax",
                                                                          "edge_logp_below_max")}))
    total = sum(f["h/2"]["integral"] for f in fine) + outside_mass
    out = dict(config=JIA, fixed={"e": E_FIXED}, backend=model.backend, us_per_point=per_point * 1e6,
               coarse=dict(nodes=[n_mu, n_eta], logp_max=ref, eta0_peaks=[float(eta_c[p]) for p in peaks]),
               cuts=edges[1:-1], outside_mass_fraction=outside_mass / total, modes=modes, points=ev.points,
               seconds=time.perf_counter() - t_start,
               log_evidence=float(np.log(total) + ref))  # log of the integral of prior x likelihood
    return out


def mode_index(eta0, cuts):
    return np.searchsorted(np.asarray(cuts), eta0, side="right")


def per_mode_stats(samples, cuts, nmodes, weights=None):
    """Per mode: mass, mean and sd of mu and eta0 of pooled samples."""
    k = mode_index(samples["eta0"], cuts)
    out = []
    for m in range(nmodes):
        sel = k == m
        row = dict(mass=float(sel.mean()))
        for p in ("mu", "eta0"):
            x = samples[p][sel]
            row[p + "_mean"] = float(x.mean()) if len(x) else float("nan")
            row[p + "_sd"] = float(x.std(ddof=1)) if len(x) > 1 else float("nan")
        out.append(row)
    return out


def jackknife_over_runs(samples, cuts, nmodes):
    """per_mode_stats of the pooled samples and its jackknife standard error over the SMC runs."""
    runs = np.unique(samples["run"])
    R = len(runs)
    full = per_mode_stats(samples, cuts, nmodes)
    loo = [per_mode_stats(samples[samples["run"] != r], cuts, nmodes) for r in runs]
    se = []
    for m in range(nmodes):
        row = {}
        for q in full[m]:
            v = np.array([stats[m][q] for stats in loo])
            v = v[np.isfinite(v)]
            row[q] = float(math.sqrt((R - 1) / R * np.sum((v - v.mean()) ** 2))) if len(v) == R else float("nan")
        se.append(row)
    # the per-run masses (the brief's sd over runs / sqrt(runs), equal to the jackknife's for the mass)
    k = mode_index(samples["eta0"], cuts)
    per_run_mass = [[float(np.mean(k[samples["run"] == r] == m)) for r in runs] for m in range(nmodes)]
    return full, se, per_run_mass, R


QUANTS = ("mass", "mu_mean", "mu_sd", "eta0_mean", "eta0_sd")


def part_a(backend, quick, work, log):
    log("(a) grid reference on cornell-jia, e fixed at %g" % E_FIXED)
    grid = grid_reference(backend, quick, log)
    cuts, nm = grid["cuts"], len(grid["modes"])
    smc = []
    seeds = [1] if quick else [1, 2, 3]
    for s in seeds:
        sets = {"calibrate.method": "smc", "params.e": E_FIXED, "smc.seed": s}
        if quick:
            sets["smc.particles"] = 512
        r, dt = calibrate(JIA, os.path.join(work, f"a-smc-{s}"), backend, sets, log)
        smp = load_samples(r.out_dir)
        est, se, per_run, R = jackknife_over_runs(smp, cuts, nm)
        z = [{q: (est[m][q] - grid["modes"][m][q]) / se[m][q] if se[m][q] > 0 else float("nan") for q in QUANTS}
             for m in range(nm)]
        z_logz = (r.log_evidence - grid["log_evidence"]) / r.log_evidence_se
        smc.append(dict(seed=s, seconds=dt, particles=r.metadata["particles"], runs=R, z_log_evidence=z_logz,
                        evaluations=r.metadata["evaluations"], log_evidence=r.log_evidence,
                        log_evidence_se=r.log_evidence_se, own_modes=[dict(mass=md["mass"], mu_mean=md["mu"]["mean"],
                                                                           eta0_mean=md["eta0"]["mean"])
                                                                      for md in r.modes],
                        modes=est, se=se, z=z, per_run_mass=per_run))
    # the seeds pooled: the mean of the seeds' estimates, se / sqrt(seeds)
    pooled = []
    for m in range(nm):
        row, se_row, z_row = {}, {}, {}
        for q in QUANTS:
            v = np.array([s["modes"][m][q] for s in smc])
            e = np.array([s["se"][m][q] for s in smc])
            row[q] = float(v.mean())
            se_row[q] = float(math.sqrt(np.sum(e ** 2)) / len(e))
            z_row[q] = (row[q] - grid["modes"][m][q]) / se_row[q] if se_row[q] > 0 else float("nan")
        pooled.append(dict(modes=row, se=se_row, z=z_row))
    # the ensemble, the config's [mcmc] (shorter with --quick)
    sets = {"calibrate.method": "ensemble", "params.e": E_FIXED, "mcmc.seed": 1}
    if quick:
        sets["mcmc.steps"] = 600
    r, dt = calibrate(JIA, os.path.join(work, "a-ensemble"), backend, sets, log)
    smp = load_samples(r.out_dir)
    ens_modes = per_mode_stats(smp, cuts, nm)
    walker_mode = {}
    kk = mode_index(smp["eta0"], cuts)
    for w in np.unique(smp["walker"]):
        walker_mode[int(w)] = int(np.bincount(kk[smp["walker"] == w], minlength=nm).argmax())
    kept = ~np.isin(smp["walker"], np.asarray(list(r.stranded), dtype=smp["walker"].dtype))
    ens = dict(seconds=dt, walkers=r.metadata["config"]["mcmc"]["walkers"], steps=r.metadata["config"]["mcmc"]["steps"],
               burn=r.metadata["config"]["mcmc"]["burn"], modes=ens_modes,
               modes_without_stranded=per_mode_stats(smp[kept], cuts, nm),
               walkers_per_mode=[sum(1 for v in walker_mode.values() if v == m) for m in range(nm)],
               stranded=list(r.stranded), tau={n: r.metadata["posterior"][n].get("tau") for n in r.names},
               converged=r.converged)
    worst = max(abs(z) for s in smc for zm in s["z"] for z in zm.values() if np.isfinite(z))
    worst_pooled = max(abs(z) for p in pooled for z in p["z"].values() if np.isfinite(z))
    nan_z = sum(1 for s in smc for zm in s["z"] for z in zm.values() if not np.isfinite(z))
    worst_logz = max(abs(s["z_log_evidence"]) for s in smc)
    ok = worst <= 3 and worst_pooled <= 3 and nan_z == 0 and worst_logz <= 3
    return dict(grid=grid, smc=smc, smc_pooled=pooled, ensemble=ens, worst_abs_z=worst,
                worst_abs_z_pooled=worst_pooled, undefined_z=nan_z, worst_abs_z_log_evidence=worst_logz, ok=ok)


def print_a(a):
    g = a["grid"]
    print("## (a) Grid reference: cornell-jia, e = %g, mu and eta0 free\n" % E_FIXED)
    print(f"Grid: coarse {g['coarse']['nodes'][0]} x {g['coarse']['nodes'][1]} cells over the prior box "
          f"(max log p {g['coarse']['logp_max']:.4f}), eta0 cut(s) at {', '.join(f'{c:.4f}' for c in g['cuts'])}; "
          f"fine boxes of {g['modes'][0]['nodes'][0]} x {g['modes'][0]['nodes'][1]} nodes; mass outside the boxes "
          f"{g['outside_mass_fraction']:.2e}; {g['points']} points, {g['seconds']:.1f} s "
          f"({g['us_per_point']:.0f} us per point on {g['backend']}); grid log Z = {g['log_evidence']:.4f}.\n")
    rows = []
    for m in g["modes"]:
        rows.append([m["mode"], f"{m['eta0_range'][0]:.3f}-{m['eta0_range'][1]:.3f}",
                     f"[{m['box']['mu'][0]:.4f}, {m['box']['mu'][1]:.4f}] x "
                     f"[{m['box']['eta0'][0]:.3f}, {m['box']['eta0'][1]:.3f}]",
                     f"{m['logp_max']:.4f}", f"{m['edge_logp_below_max']:.1f}"] +
                    [f"{fmt(m[q], 7)} ({m['grid_error'][q]:.1e})" for q in QUANTS])
    print(md_table(["mode", "eta0 segment", "fine box (mu x eta0)", "max log p", "box edge vs max"] +
                   [f"{q} (h vs h/2)" for q in QUANTS], rows))
    print()
    rows = []
    for m in range(len(g["modes"])):
        for q in QUANTS:
            row = [m, q, fmt(g["modes"][m][q], 6)]
            for s in a["smc"]:
                row.append(f"{fmt(s['modes'][m][q], 6)} +- {fmt(s['se'][m][q], 2)} (z {s['z'][m][q]:+.2f})")
            p = a["smc_pooled"][m]
            row.append(f"{fmt(p['modes'][q], 6)} +- {fmt(p['se'][q], 2)} (z {p['z'][q]:+.2f})")
            row.append(fmt(a["ensemble"]["modes"][m][q], 6))
            row.append(fmt(a["ensemble"]["modes_without_stranded"][m][q], 6))
            rows.append(row)
    print(md_table(["mode", "figure", "grid"] + [f"SMC seed {s['seed']} (+- se, z)" for s in a["smc"]] +
                   ["SMC seeds pooled", "ensemble", "ensemble, stranded walkers left out"], rows))
    print()
    rows = [[s["seed"], s["particles"], s["runs"], s["evaluations"],
             f"{s['log_evidence']:.4f} +- {s['log_evidence_se']:.4f} (z {s['z_log_evidence']:+.2f} vs the grid's)",
             "; ".join(f"{om['mass']:.4f} at eta0 {om['eta0_mean']:.3f}" for om in s["own_modes"]),
             f"{s['seconds']:.1f}"]
            for s in a["smc"]]
    print(md_table(["SMC seed", "particles", "runs", "evaluations", "log Z", "its own modes (mass)", "seconds"], rows))
    e = a["ensemble"]
    print(f"\nEnsemble: {e['walkers']} walkers x {e['steps']} steps (burn {e['burn']}), walkers per mode "
          f"{e['walkers_per_mode']}, stranded {len(e['stranded'])}, tau {e['tau']}, converged {e['converged']}, "
          f"{e['seconds']:.1f} s. Grid log Z {g['log_evidence']:.4f}.")
    print(f"\nCheck |z| <= 3: worst |z| per seed {a['worst_abs_z']:.2f}, pooled {a['worst_abs_z_pooled']:.2f}, "
          f"log Z {a['worst_abs_z_log_evidence']:.2f}, undefined z {a['undefined_z']}: "
          f"{'PASS' if a['ok'] else 'FAIL'}\n")


# ---------------------------------------------------------------------------------------------------
# (b) every seed finds the bulk

def part_b(backend, quick, work, log, smc_seeds_of=None):
    out = {}
    fit_seeds = range(1, 6) if quick else range(1, 21)
    for cfg in (JIA, OBLIQUE):
        name = os.path.splitext(os.path.basename(cfg))[0]
        smc_seeds = (smc_seeds_of or {}).get(name, range(1, 3) if quick else range(1, 6))
        log(f"(b) every seed on {name}")
        fits = []
        for s in fit_seeds:
            r, dt = calibrate(cfg, os.path.join(work, f"b-{name}-fit-{s}"), backend,
                              {"calibrate.method": "fit", "fit.seed": s}, log)
            est = r.metadata["estimate"]
            fits.append(dict(seed=s, logp=est["logp"], estimate=dict(r.estimate), seconds=dt,
                             starts=est["starts"], starts_agreeing=est["starts_agreeing"],
                             basins=len(r.metadata.get("global", {}).get("basins", []))))
        best = max(fits, key=lambda f: f["logp"])
        for f in fits:
            f["ok"] = f["logp"] >= best["logp"] - 0.01
        smcs = []
        for s in smc_seeds:
            sets = {"calibrate.method": "smc", "smc.seed": s}
            if quick:
                sets["smc.particles"] = 512
            r, dt = calibrate(cfg, os.path.join(work, f"b-{name}-smc-{s}"), backend, sets, log)
            heavy = max(r.modes, key=lambda m: m["mass"])
            dev = {n: (heavy[n]["mean"] - best["estimate"][n]) / heavy[n]["sd"] for n in r.names}
            ok = heavy["mass"] > 0.5 and all(abs(v) <= 3 for v in dev.values())
            smcs.append(dict(seed=s, seconds=dt, modes=len(r.modes), heaviest_mass=heavy["mass"],
                             heaviest={n: dict(mean=heavy[n]["mean"], sd=heavy[n]["sd"]) for n in r.names},
                             deviation_in_sd=dev, log_evidence=r.log_evidence, log_evidence_se=r.log_evidence_se,
                             all_modes=[dict(mass=m["mass"], **{n: m[n]["mean"] for n in r.names}) for m in r.modes],
                             ok=ok))
        out[name] = dict(config=cfg, fit=fits,
                         best_fit=dict(seed=best["seed"], logp=best["logp"], estimate=best["estimate"]),
                         expected_global_logp=GLOBAL_LOGP[name], smc=smcs,
                         ok=all(f["ok"] for f in fits) and all(s["ok"] for s in smcs))
    out["ok"] = all(v["ok"] for k, v in out.items() if isinstance(v, dict))
    return out


def print_b(b):
    print("## (b) Every seed finds the bulk\n")
    for name, d in b.items():
        if not isinstance(d, dict):
            continue
        pn = list(d["best_fit"]["estimate"])
        print(f"### {name}: best fit log p {d['best_fit']['logp']:.4f} (seed {d['best_fit']['seed']}) at "
              + ", ".join(f"{n} {v:.5g}" for n, v in d["best_fit"]["estimate"].items())
              + f"; the global mode's log p expected ~{d['expected_global_logp']}\n")
        rows = [[f["seed"], f"{f['logp']:.4f}", f"{f['logp'] - d['best_fit']['logp']:+.2e}"] +
                [f"{f['estimate'][n]:.5g}" for n in pn] + [f["basins"], f["starts"], f["starts_agreeing"],
                                                        f"{f['seconds']:.1f}", "ok" if f["ok"] else "MISSED"]
                for f in d["fit"]]
        headers = ["fit seed", "log p", "vs best"] + pn + ["basins", "starts", "agreeing", "seconds", "within 0.01"]
        print(md_table(headers, rows))
        print()
        rows = [[s["seed"], s["modes"], f"{s['heaviest_mass']:.4f}"] +
                [f"{s['heaviest'][n]['mean']:.5g} +- {s['heaviest'][n]['sd']:.2g} ({s['deviation_in_sd'][n]:+.2f} sd)"
                 for n in pn] + [f"{s['log_evidence']:.4f} +- {s['log_evidence_se']:.4f}", f"{s['seconds']:.1f}",
                                 "ok" if s["ok"] else "MISSED"]
                for s in d["smc"]]
        print(md_table(["SMC seed", "modes", "heaviest mass"] + [f"{n} (vs best fit)" for n in pn] +
                       ["log Z", "seconds", "bulk"], rows))
        print(f"\n{name}: {'PASS' if d['ok'] else 'FAIL'}\n")


# ---------------------------------------------------------------------------------------------------
# (c) coverage

def synthetic_dataset(model, pri, i, path):
    """Data set i: the truth from the priors and the observed outputs with noise, default_rng(i)."""
    rng = np.random.default_rng(i)
    truth = {n: float(rng.uniform(*pri[n])) for n in model.names}
    df = model.predict(np.array([truth[n] for n in model.names]))
    if not (np.asarray(df["status"]) == "ok").all():
        raise RuntimeError(f"data set {i}: the model refuses {truth}")
    obs = model.config["data"]["observed"]
    sigma = model.config["data"]["sigma"]
    n = len(df)
    cols = {"shot": np.arange(1, n + 1)}
    for name in df.columns:  # the conditions: predict()'s columns before the outputs, data and sigmas
        if name not in obs and name != "status" and not name.startswith(("data_", "sigma_")):
            cols[name] = np.asarray(df[name], dtype=float)
    for name in obs:
        cols[name] = np.asarray(df[name], dtype=float) + rng.normal(0.0, float(sigma[name]), n)
    with open(path, "w") as f:
        f.write(",".join(cols) + "\n")
        for r in range(n):
            f.write(",".join(str(int(cols[c][r])) if c == "shot" else repr(float(cols[c][r])) for c in cols) + "\n")
    return truth


def coverage(datasets, particles, backend, work, log, config=SYNTH):
    model = ib.CalibrationModel(config, backend="serial")
    pri = uniform_priors(model)
    rows = []
    t_start = time.perf_counter()
    for i in range(1, datasets + 1):
        csv = os.path.join(work, f"c-{i}.csv")
        truth = synthetic_dataset(model, pri, i, csv)
        t0 = time.perf_counter()
        r = ib.calibrate(config, out=os.path.join(work, f"c-{i}"), backend=backend, force=True,
                         set={"calibrate.method": "smc", "smc.particles": particles, "smc.seed": i, "data.file": csv})
        dt = time.perf_counter() - t0
        row = dict(dataset=i, truth=truth, seconds=dt)
        for n in model.names:
            q = r.metadata["posterior"][n]["quantiles"]
            lo, hi = float(q["0.05"]), float(q["0.95"])
            row[n] = dict(q05=lo, q95=hi, covered=bool(lo <= truth[n] <= hi))
        rows.append(row)
        shutil.rmtree(os.path.join(work, f"c-{i}"), ignore_errors=True)
    half = 2 * math.sqrt(0.9 * 0.1 / datasets)
    out = dict(config=config, datasets=datasets, particles=particles, backend=backend, rows=rows,
               band=[0.9 - half, 0.9 + half], seconds=time.perf_counter() - t_start)
    for n in model.names:
        c = sum(r[n]["covered"] for r in rows)
        out[n] = dict(covered=c, coverage=c / datasets, ok=0.9 - half <= c / datasets <= 0.9 + half)
    both = sum(r[n]["covered"] for r in rows for n in model.names)
    k = datasets * len(model.names)
    half_j = 2 * math.sqrt(0.9 * 0.1 / k)
    out["joint"] = dict(covered=both, intervals=k, coverage=both / k, band=[0.9 - half_j, 0.9 + half_j],
                        ok=0.9 - half_j <= both / k <= 0.9 + half_j)
    out["names"] = model.names
    out["ok"] = all(out[n]["ok"] for n in model.names)
    log(f"  coverage: {datasets} data sets in {out['seconds']:.1f} s")
    return out


def print_c(c):
    print("## (c) Coverage of the central 90% interval\n")
    print(f"{c['datasets']} data sets from the prior of ball-synthetic.toml, SMC with {c['particles']} particles "
          f"({c['backend']}), {c['seconds']:.1f} s in all ({c['seconds'] / c['datasets']:.2f} s per data set).\n")
    rows = [[n, f"{c[n]['covered']}/{c['datasets']}", f"{c[n]['coverage']:.3f}",
             f"[{c['band'][0]:.3f}, {c['band'][1]:.3f}]", "PASS" if c[n]["ok"] else "FAIL"] for n in c["names"]]
    j = c["joint"]
    rows.append(["both (joint)", f"{j['covered']}/{j['intervals']}", f"{j['coverage']:.3f}",
                 f"[{j['band'][0]:.3f}, {j['band'][1]:.3f}]", "PASS" if j["ok"] else "FAIL"])
    print(md_table(["parameter", "covered", "coverage", "band 0.9 +- 2 se", "check"], rows))
    missed = [(r["dataset"], n, r["truth"][n], r[n]["q05"], r[n]["q95"]) for r in c["rows"] for n in c["names"]
              if not r[n]["covered"]]
    if missed:
        print("\nMissed: " + "; ".join(f"#{d} {n} {t:.4f} not in [{a:.4f}, {b:.4f}]" for d, n, t, a, b in missed))
    print()


# ---------------------------------------------------------------------------------------------------
# (d) the evidence on cornell-stronge: a grid, SMC and dynesty

STRONGE = os.path.join(EXAMPLES, "cornell-stronge.toml")


def part_d(backend, quick, work, log):
    """log Z of cornell-stronge (mu, e uniform): a trapezoid grid (the coarse prior box finds the mass,
    a fine box integrates it, every other node shows the grid's error), SMC seeds 1..3 and, where it
    is installed, dynesty's static nested sampling (1000 live points, rstate 1)."""
    log("(d) evidence on cornell-stronge")
    model = ib.CalibrationModel(STRONGE, backend="serial")
    pri = uniform_priors(model)
    (mlo, mhi), (elo, ehi) = pri["mu"], pri["e"]
    t0 = time.perf_counter()
    nm, ne = 100, 60
    dmu, de = (mhi - mlo) / nm, (ehi - elo) / ne
    M, E = np.meshgrid(mlo + (np.arange(nm) + 0.5) * dmu, elo + (np.arange(ne) + 0.5) * de, indexing="ij")
    lp_c = model.log_posterior(np.column_stack([M.ravel(), E.ravel()])).reshape(M.shape)
    near = lp_c > lp_c.max() - 30
    box = (max(M[near].min() - 2 * dmu, mlo), min(M[near].max() + 2 * dmu, mhi),
           max(E[near].min() - 2 * de, elo), min(E[near].max() + 2 * de, ehi))
    n = 241 if quick else 481
    mu, e = np.linspace(box[0], box[1], n), np.linspace(box[2], box[3], n)
    Mf, Ef = np.meshgrid(mu, e, indexing="ij")
    lp = model.log_posterior(np.column_stack([Mf.ravel(), Ef.ravel()])).reshape(n, n)
    ref = float(lp.max())
    grid = {}
    for label, step in (("h", 2), ("h/2", 1)):
        L = lp[::step, ::step]
        W = np.outer(trapezoid_weights(L.shape[0]), trapezoid_weights(L.shape[1])) * np.exp(L - ref) * \
            (mu[step] - mu[0]) * (e[step] - e[0])
        mm, ms = weighted_moments(W, Mf[::step, ::step])
        em, es = weighted_moments(W, Ef[::step, ::step])
        grid[label] = dict(log_evidence=float(np.log(W.sum()) + ref), mu_mean=mm, mu_sd=ms, e_mean=em, e_sd=es)
    grid.update(box=dict(mu=list(box[:2]), e=list(box[2:])), nodes=n, seconds=time.perf_counter() - t0,
                log_evidence=grid["h/2"]["log_evidence"],
                grid_error=abs(grid["h/2"]["log_evidence"] - grid["h"]["log_evidence"]))
    smc = []
    for sd in ([1] if quick else [1, 2, 3]):
        r, dt = calibrate(STRONGE, os.path.join(work, f"d-smc-{sd}"), backend,
                          {"calibrate.method": "smc", "smc.seed": sd}, log)
        smc.append(dict(seed=sd, log_evidence=r.log_evidence, se=r.log_evidence_se, seconds=dt,
                        z=(r.log_evidence - grid["log_evidence"]) / r.log_evidence_se))
    dyn = None
    try:
        import dynesty
    except ImportError:
        log("  dynesty is not installed: left out")
    else:
        lo = np.array([pri[k][0] for k in model.names])
        width = np.array([pri[k][1] - pri[k][0] for k in model.names])
        t0 = time.perf_counter()
        sampler = dynesty.NestedSampler(lambda x: float(model.log_likelihood(x)), lambda u: lo + u * width,
                                        model.dim, nlive=1000, bound="multi", sample="unif",
                                        rstate=np.random.default_rng(1))
        sampler.run_nested(dlogz=0.01, print_progress=False)
        res = sampler.results
        dyn = dict(version=dynesty.__version__, nlive=1000, log_evidence=float(res.logz[-1]), se=float(res.logzerr[-1]),
                   calls=int(np.sum(res.ncall)), seconds=time.perf_counter() - t0)
        dyn["z_vs_grid"] = (dyn["log_evidence"] - grid["log_evidence"]) / dyn["se"]
        for s_ in smc:
            s_["z_vs_dynesty"] = (s_["log_evidence"] - dyn["log_evidence"]) / math.hypot(s_["se"], dyn["se"])
    ok = all(abs(s_["z"]) <= 3 for s_ in smc) and (dyn is None or all(abs(s_["z_vs_dynesty"]) <= 3 for s_ in smc))
    return dict(config=STRONGE, grid=grid, smc=smc, dynesty=dyn, ok=ok)


def print_d(d):
    g = d["grid"]
    print("## (d) Evidence on cornell-stronge: grid, SMC, dynesty\n")
    print(f"Grid: {g['nodes']} x {g['nodes']} nodes over mu [{g['box']['mu'][0]:.4f}, {g['box']['mu'][1]:.4f}] x "
          f"e [{g['box']['e'][0]:.4f}, {g['box']['e'][1]:.4f}], log Z {g['log_evidence']:.5f} (h vs h/2: "
          f"{g['grid_error']:.1e}), mu {g['h/2']['mu_mean']:.6f} +- {g['h/2']['mu_sd']:.6f}, "
          f"e {g['h/2']['e_mean']:.6f} +- {g['h/2']['e_sd']:.6f}, {g['seconds']:.1f} s.\n")
    rows = [["grid", f"{g['log_evidence']:.4f}", f"{g['grid_error']:.1e}", "-", "-", f"{g['seconds']:.1f}"]]
    for s_ in d["smc"]:
        rows.append([f"SMC seed {s_['seed']}", f"{s_['log_evidence']:.4f}", f"{s_['se']:.4f}", f"{s_['z']:+.2f}",
                     f"{s_['z_vs_dynesty']:+.2f}" if "z_vs_dynesty" in s_ else "-", f"{s_['seconds']:.1f}"])
    if d["dynesty"]:
        y = d["dynesty"]
        rows.append([f"dynesty {y['version']} ({y['nlive']} live, {y['calls']} calls)", f"{y['log_evidence']:.4f}",
                     f"{y['se']:.4f}", f"{y['z_vs_grid']:+.2f}", "-", f"{y['seconds']:.1f}"])
    print(md_table(["method", "log Z", "se", "z vs grid", "z vs dynesty (combined se)", "seconds"], rows))
    print(f"\ncornell-stronge evidence: {'PASS' if d['ok'] else 'FAIL'}\n")


# ---------------------------------------------------------------------------------------------------

def parse_seeds(text):
    """'name=1-5,other=2,3' -> {name: [1..5], other: [2, 3]}"""
    if not text:
        return None
    out, name = {}, None
    for item in text.split(","):
        item = item.strip()
        if "=" in item:
            name, item = item.split("=", 1)
            out[name] = []
        if name is None:
            raise ValueError("--b-smc-seeds: expected NAME=SEEDS[,NAME=SEEDS]")
        if "-" in item:
            lo, hi = item.split("-")
            out[name] += list(range(int(lo), int(hi) + 1))
        elif item:
            out[name].append(int(item))
    return out


def machine():
    info = dict(platform=platform.platform(), machine=platform.machine(), processor=platform.processor(),
                cpu_count=os.cpu_count(), python=sys.version.split()[0], numpy=np.__version__,
                impactbatch=getattr(ib, "__version__", None))
    try:
        info["loadavg_start"] = list(os.getloadavg())
    except OSError:
        pass
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    info["cpu"] = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return info


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", default=None, help="write every figure here")
    ap.add_argument("--quick", action="store_true", help="a reduced run of every part (a smoke test)")
    ap.add_argument("--parts", default="a,b,c,d", help="which parts, comma-separated (default a,b,c,d)")
    ap.add_argument("--backend", default="omp", help="the runs' backend (default omp; CPU paths give the same bits)")
    ap.add_argument("--datasets", type=int, default=None, help="(c): data sets (default 50; 20 with --quick)")
    ap.add_argument("--particles", type=int, default=None, help="(c): SMC particles (default 512; 256 with --quick)")
    ap.add_argument("--b-smc-seeds", default=None,
                    help="(b): SMC seeds per data set, e.g. 'cornell-jia=1-2,ball-oblique-misspecified=1-5' "
                         "(default 1-5 for both; 1-2 with --quick)")
    ap.add_argument("--keep", default=None, help="keep the runs' folders here (default: a temporary folder, removed)")
    a = ap.parse_args(argv)
    parts = [p.strip() for p in a.parts.split(",") if p.strip()]
    if any(p not in ("a", "b", "c", "d") for p in parts):
        ap.error("--parts: expected a comma-separated subset of a,b,c,d")

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    work = a.keep or tempfile.mkdtemp(prefix="impact-validate-")
    os.makedirs(work, exist_ok=True)
    result = dict(quick=a.quick, backend=a.backend, parts=parts, machine=machine(), timings={})
    t_all = time.perf_counter()
    print(f"# Calibration validity ({'quick' if a.quick else 'full'} run, backend {a.backend})\n")
    m = result["machine"]
    print(f"Machine: {m['platform']}, {m.get('cpu', m['processor'])}, {m['cpu_count']} CPUs, Python {m['python']}, "
          f"NumPy {m['numpy']}; load average at start {m.get('loadavg_start')}.\n")
    try:
        if "a" in parts:
            t0 = time.perf_counter()
            result["a"] = part_a(a.backend, a.quick, work, log)
            result["timings"]["a_s"] = time.perf_counter() - t0
            print_a(result["a"])
        if "b" in parts:
            t0 = time.perf_counter()
            result["b"] = part_b(a.backend, a.quick, work, log, parse_seeds(a.b_smc_seeds))
            result["timings"]["b_s"] = time.perf_counter() - t0
            print_b(result["b"])
        if "c" in parts:
            t0 = time.perf_counter()
            n = a.datasets or (20 if a.quick else 50)
            p = a.particles or (256 if a.quick else 512)
            result["c"] = coverage(n, p, "serial" if a.backend in ("omp", "serial") else a.backend, work, log)
            result["timings"]["c_s"] = time.perf_counter() - t0
            print_c(result["c"])
        if "d" in parts:
            t0 = time.perf_counter()
            result["d"] = part_d(a.backend, a.quick, work, log)
            result["timings"]["d_s"] = time.perf_counter() - t0
            print_d(result["d"])
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)
    result["timings"]["total_s"] = time.perf_counter() - t_all
    try:
        result["machine"]["loadavg_end"] = list(os.getloadavg())
    except OSError:
        pass
    result["ok"] = all(result[p]["ok"] for p in parts)
    print("## Timings\n")
    print(md_table(["part", "seconds"], [[k, f"{v:.1f}"] for k, v in result["timings"].items()]))
    print(f"\nAll checks: {'PASS' if result['ok'] else 'FAIL'}")
    if a.json:
        os.makedirs(os.path.dirname(os.path.abspath(a.json)), exist_ok=True)
        with open(a.json, "w") as f:
            json.dump(result, f, indent=1, default=lambda o: o.item() if hasattr(o, "item") else str(o))
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
