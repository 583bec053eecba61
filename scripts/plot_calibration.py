#!/usr/bin/env python3
"""Plots of an `impact calibrate` run (docs/calibration.md), from the files in its folder:

    python3 scripts/plot_calibration.py RUN_DIR [--compare OTHER_RUN_DIR] [--x CONDITION]
    python3 scripts/plot_calibration.py COMPARISON_DIR --comparison

- RUN_DIR/corner.png (calibrate.method = mcmc): the posterior of the free parameters (samples.npy after the burn-in): each
  parameter's histogram on the diagonal, each pair's 2-D histogram below it, the posterior mean as a
  line and the 90 % interval shaded on the diagonal.
- RUN_DIR/predictive.png: the posterior predictive (predictive.csv) against the data, one panel per
  observed output: the data with their sigma as error bars and the model's 5-95 % band and median
  over the posterior draws, along the condition --x (default: the first condition; `experiment`
  for the experiments' order; for a fit, over draws of its Laplace normal). With --compare, a second run on the same data (another law) is drawn
  in the same panels, so that the laws can be told apart where the data decide between them.

- COMPARISON_DIR/comparison.png (`impact calibrate --laws`, comparison.json): per law its log
  evidence with its 2-se error bar, the best law's marked, and beside it the posterior predictive's
  rms residual per observed output in sigmas (1: the law explains the data to their noise).

NumPy and matplotlib (Agg) only; writes each PNG whole (a temporary .NAME.tmp-PID-0 renamed into
place).
"""
import argparse
import csv
import json
import os
import sys

import numpy as np

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def save(fig, path):
    # the temporary in io::OutFile's form (.NAME.tmp-PID-N), which a later run's folder claim removes
    # when this one dies half-way
    d, name = os.path.split(path)
    tmp = os.path.join(d, f".{name}.tmp-{os.getpid()}-0")
    fig.savefig(tmp, dpi=110, format="png")
    plt.close(fig)
    os.replace(tmp, path)


def load_run(d):
    with open(os.path.join(d, "metadata.json")) as f:
        meta = json.load(f)
    with open(os.path.join(d, "predictive.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    cols = {k: np.array([float(r[k]) for r in rows]) for k in rows[0]} if rows else {}
    return meta, cols


MODE_COLOURS = ["#4477aa", "#ee6677", "#228833", "#ccbb44", "#66ccee", "#aa3377", "#bbbbbb"]


def corner(d, meta):
    # SMC: the draws coloured by their mode (metadata.json "modes", samples.npy "mode"), and a title
    # per mode, never a pooled mean where the posterior may have no mass; the ensemble: one colour
    s = np.load(os.path.join(d, "samples.npy"))
    names = list(meta["posterior"])
    k = len(names)
    modes = meta.get("modes") or []
    groups = [(s["mode"] == m, MODE_COLOURS[m % len(MODE_COLOURS)], modes[m]) for m in range(len(modes))] \
        if "mode" in s.dtype.names and modes else [(np.ones(len(s), bool), MODE_COLOURS[0], None)]
    fig, axes = plt.subplots(k, k, figsize=(2.6 * k + 0.6, 2.6 * k + 0.6), squeeze=False)
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            ax = axes[i][j]
            if j > i:
                ax.axis("off")
                continue
            if i == j:
                lo, hi = float(np.min(s[a])), float(np.max(s[a]))
                bins = np.linspace(lo, hi, 51) if hi > lo else 50
                titles = []
                for sel, colour, mode in groups:
                    ax.hist(s[a][sel], bins=bins, color=colour, alpha=0.75)
                    p = mode["params"][a] if mode else meta["posterior"][a]
                    if mode is None:
                        ax.axvspan(p["quantiles"]["0.05"], p["quantiles"]["0.95"], color="#aaaaaa", alpha=0.3)
                    ax.axvline(p["mean"], color=colour if mode else "k", lw=1)
                    titles.append(f"{a} = {p['mean']:.4g} ± {p['sd']:.2g}" +
                                  (f" (mass {mode['mass']:.2f})" if mode and len(groups) > 1 else ""))
                shown = titles[:3] + (["..."] if len(titles) > 3 else [])
                ax.set_title("\n".join(shown), fontsize=8 if len(shown) > 1 else 9)
                ax.set_yticks([])
            else:
                if len(groups) == 1:
                    ax.hist2d(s[b], s[a], bins=40, cmap="Blues")
                else:
                    for sel, colour, _ in groups:
                        ax.scatter(s[b][sel], s[a][sel], s=2, color=colour, alpha=0.3, linewidths=0)
            if i == k - 1:
                ax.set_xlabel(b)
            if j == 0 and i > 0:
                ax.set_ylabel(a)
    cal = meta["config"]["calibrate"]
    if meta.get("method") == "smc":
        ev = meta["log_evidence"]
        how = (f"SMC, {meta['particles']} particles, log Z = {ev['value']:.3f} ± {ev['se']:.3f}, "
               f"{len(modes)} mode{'s' if len(modes) != 1 else ''} (a title line per mode: mean ± sd, its mass)")
    else:
        how = f"{meta['walkers']} walkers x {meta['steps']} steps, burn-in {meta['burn']}"
    fig.suptitle(f"{cal['name']}: posterior ({cal['law']}, {how})", fontsize=10)
    fig.tight_layout()
    save(fig, os.path.join(d, "corner.png"))


def predictive(d, meta, cols, other, x):
    observed = meta["config"]["data"]["observed"]
    runs = [(meta["config"]["calibrate"]["law"], cols, "#4477aa")]
    if other is not None:
        runs.append((other[0]["config"]["calibrate"]["law"], other[1], "#cc6677"))
    xs = cols[x]
    order = np.argsort(xs, kind="stable")
    fig, axes = plt.subplots(1, len(observed), figsize=(5.2 * len(observed), 4.2), squeeze=False)
    for ax, o in zip(axes[0], observed):
        for law, c, color in runs:
            ax.fill_between(xs[order], c[o + "_q05"][order], c[o + "_q95"][order], color=color, alpha=0.25,
                            label=f"{law}: 5-95 %")
            ax.plot(xs[order], c[o + "_q50"][order], color=color, lw=1.2, label=f"{law}: median")
        ax.errorbar(xs, cols[o], yerr=cols["sigma_" + o], fmt="o", ms=3.5, color="k", capsize=2, label="data ± sigma")
        ax.set_xlabel(x)
        ax.set_ylabel(o)
        ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize=8)
    what = "predictive of the fit's Laplace normal" if meta.get("method") == "fit" else "posterior predictive"
    fig.suptitle(f"{meta['config']['calibrate']['name']}: {what} against the data", fontsize=10)
    fig.tight_layout()
    save(fig, os.path.join(d, "predictive.png"))


def comparison(d):
    # ln BF against the best law on a symmetric-log axis (a hopeless law thousands of nats behind
    # does not squeeze the others into a point), over Kass & Raftery's bands; the fit in sigmas on a
    # log axis
    with open(os.path.join(d, "comparison.json")) as f:
        k = json.load(f)
    laws = list(k["laws"])
    lbf = np.array([k["laws"][n]["log_bayes_factor_vs_best"] for n in laws])
    se = np.array([k["laws"][n]["log_bayes_factor_se"] for n in laws])
    obs = k["observed"]
    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 0.6 * len(laws) + 2.4), sharey=True,
                               gridspec_kw={"width_ratios": [3, 2]})
    y = np.arange(len(laws))[::-1]
    lo = min(-10.0, 1.5 * float(np.min(lbf - 2 * se)))
    for (x0, x1, words, grey) in ((-1, 0, "0-1: bare mention", "#f2f2f2"), (-3, -1, "1-3: positive", "#e0e0e0"),
                                  (-5, -3, "3-5: strong", "#cccccc"), (lo, -5, "> 5: very strong", "#b8b8b8")):
        a.axvspan(x0, x1, color=grey, zorder=0, label=words)
    a.legend(loc="upper left", fontsize=7, title="the best law's support", title_fontsize=7, framealpha=0.9)
    a.errorbar(lbf, y, xerr=2 * se, fmt="o", color="black", capsize=4, zorder=3)
    for yi, n, v in zip(y, laws, lbf):
        z = k["laws"][n]["log_evidence"]
        a.annotate(f"log Z {z:.2f}" + (" (best)" if n == k["best"] else ""), (v, yi), textcoords="offset points",
                   xytext=(0, -14), ha="center", fontsize=8)
    a.set_xscale("symlog", linthresh=5)
    a.set_xlim(lo, 2)
    ticks = [t for t in (-1e5, -1e4, -1e3, -100, -20, -10, -5, -3, -1, 0) if t >= lo]
    a.set_xticks(ticks)
    a.set_xticklabels([f"{t:g}" for t in ticks], fontsize=8)
    a.set_ylim(-0.6, y.max() + 0.9)
    a.set_yticks(y)
    a.set_yticklabels(laws)
    a.set_xlabel("ln Bayes factor against the best law (nats; bars: 2 se)")
    a.set_title("Evidence (Kass & Raftery's bands)")
    h = 0.8 / max(1, len(obs))
    for j, o in enumerate(obs):
        v = [k["laws"][n]["predictive_rms_sigmas"][o] for n in laws]
        b.barh(y - 0.4 + h * (j + 0.5), v, height=h, color=MODE_COLOURS[j % len(MODE_COLOURS)], label=o)
    b.axvline(1.0, color="black", lw=0.8, ls="--")
    b.set_xscale("log")
    b.set_xlabel("predictive rms residual (sigmas; 1: the noise)")
    b.set_title("Fit to the data")
    b.legend(fontsize=8)
    fig.suptitle(f"{k['name']}: which law explains the data")
    fig.tight_layout()
    save(fig, os.path.join(d, "comparison.png"))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run")
    ap.add_argument("--compare", default=None, help="a second run on the same data, drawn in the same panels")
    ap.add_argument("--x", default=None, help="the condition along the x axis (default: the first; 'experiment')")
    ap.add_argument("--comparison", action="store_true", help="RUN is a comparison of laws: draw comparison.png")
    a = ap.parse_args(argv)
    if a.comparison:
        comparison(a.run)
        return 0
    meta, cols = load_run(a.run)
    other = load_run(a.compare) if a.compare else None
    conds = [k for k in cols if k not in ("experiment", "ok") and not any(
        k == o or k.startswith(o + "_") or k == "sigma_" + o for o in meta["config"]["data"]["observed"])]
    x = a.x or (conds[0] if conds else "experiment")
    if x not in cols:
        print(f"plot_calibration: --x {x}: no such column in predictive.csv (have: {', '.join(cols)})", file=sys.stderr)
        return 2
    if other is not None and len(other[1].get("experiment", [])) != len(cols["experiment"]):
        print("plot_calibration: --compare: that run has another number of experiments", file=sys.stderr)
        return 2
    if meta.get("method") != "fit":
        corner(a.run, meta)
    predictive(a.run, meta, cols, other, x)
    return 0


if __name__ == "__main__":
    sys.exit(main())
