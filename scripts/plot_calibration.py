#!/usr/bin/env python3
"""Plots of an `impact calibrate` run (docs/calibration.md), from the files in its folder:

    python3 scripts/plot_calibration.py RUN_DIR [--compare OTHER_RUN_DIR] [--x CONDITION]
    python3 scripts/plot_calibration.py COMPARISON_DIR --comparison

- RUN_DIR/corner.png (SMC and the ensemble; a fit has none): the posterior of the free parameters
  (samples.npy): each parameter's histogram on the diagonal, each pair below it. SMC's modes
  (metadata.json "modes", samples.npy "mode") each in a colour of their own, with their masses in a
  legend and a mean ± sd per mode over each histogram, never a pooled mean where the posterior may
  have no mass; one mode or the ensemble: a 2-D histogram, the mean and the 90 % interval.
- RUN_DIR/predictive.png: the posterior predictive (predictive.csv) against the data, one panel per
  observed output. Each experiment is drawn on its own: the data ± sigma as a point with an error
  bar, the model's 5-95 % interval over the posterior draws as a bar beside it with a tick at the
  median (a fit: over draws of its Laplace normal). No line joins experiments, which may differ in
  more than the condition along x. Along x the condition --x (default: the first condition;
  `experiment` for the experiments' order); the data's colour is the next condition, so that
  experiments at the same x are told apart (those are also set side by side). With --compare, a
  second run on the same data (another law) has its bars beside the first's, so that the laws can
  be told apart where the data decide between them.
- COMPARISON_DIR/comparison.png (`impact calibrate --laws`, comparison.json): per law its ln Bayes
  factor against the best with its 2-se error bar over Kass & Raftery's bands, and beside it the
  posterior predictive's rms residual per observed output in sigmas (1: the law explains the data
  to their noise).

Axis labels are '$symbol$ (unit)' from metadata.json's columns (plot_common.py). Each plot is a
function returning a matplotlib Figure, which main() writes whole (a temporary .NAME.tmp-PID-0
renamed into place). NumPy and matplotlib (Agg) only.
"""
import argparse
import csv
import json
import os
import sys

import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib import cm, colors, transforms
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

# plot_common.py lies beside this script, which `impact calibrate` runs by its path from any folder
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot_common as pc

MODE_COLOURS = pc.LAW_COLOURS
RUN_COLOURS = ["#4477aa", "#ee6677"]
CONDITION_CMAP = "viridis"


def load_run(d):
    with open(os.path.join(d, "metadata.json")) as f:
        meta = json.load(f)
    with open(os.path.join(d, "predictive.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    cols = {k: np.array([float(r[k]) for r in rows]) for k in rows[0]} if rows else {}
    return meta, cols


def conditions_of(meta, cols):
    """The experiments' conditions in the data's order: metadata.json's condition columns, or (an
    older folder) predictive.csv's columns that are no observed output's."""
    listed = [c["name"] for c in meta.get("columns", []) if isinstance(c, dict) and c.get("role") == "condition"]
    if listed:
        return [c for c in listed if c in cols]
    observed = meta["config"]["data"]["observed"]
    return [k for k in cols if k not in ("experiment", "ok") and not any(
        k == o or k.startswith(o + "_") or k == "sigma_" + o for o in observed)]


def corner_figure(d, meta):
    s = np.load(os.path.join(d, "samples.npy"))
    cols = pc.Columns(meta.get("columns"))
    names = [n for n in meta["posterior"] if n in s.dtype.names]
    k = len(names)
    modes = meta.get("modes") or []
    if "mode" in s.dtype.names and len(modes) > 1:
        groups = [(s["mode"] == m, MODE_COLOURS[m % len(MODE_COLOURS)], m, modes[m]) for m in range(len(modes))]
        # the heaviest first, so that a light mode's points are drawn over it and stay visible
        groups.sort(key=lambda g: -float(g[3].get("mass", 0.0)))
    else:
        groups = [(np.ones(len(s), bool), MODE_COLOURS[0], None, None)]
    panel = min(2.4, 12.0 / max(k, 1))
    # at least the title's width (one free parameter: one panel)
    fig = plt.figure(figsize=(max(panel * k + 1.0, 6.0), panel * k + 1.3 + (0.8 if k == 1 else 0.0)),
                     layout="constrained")
    axes = fig.subplots(k, k, squeeze=False)
    # each axis holds every mode's draws within 5 robust sds (half the 16-84 % range) of its median:
    # a few stranded walkers far out do not squeeze the posterior into one bin, and a light mode is
    # still in view
    span, outside = {}, np.zeros(len(s), bool)
    for a in names:
        los, his = [], []
        for sel, _, _, _ in groups:
            v = s[a][sel]
            v = v[np.isfinite(v)]
            if len(v):
                q16, q50, q84 = np.quantile(v, [0.16, 0.5, 0.84])
                w = 5.0 * 0.5 * (q84 - q16)
                los.append(max(float(v.min()), float(q50 - w)))
                his.append(min(float(v.max()), float(q50 + w)))
        lo, hi = (min(los), max(his)) if los else (0.0, 1.0)
        pad = 0.05 * (hi - lo) if hi > lo else max(abs(lo) * 0.01, 1e-12)
        span[a] = (lo - pad, hi + pad)
        outside |= ~((s[a] >= span[a][0]) & (s[a] <= span[a][1]))
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            ax = axes[i][j]
            if j > i:
                ax.axis("off")
                continue
            if i == j:
                lo, hi = span[a]
                bins = np.linspace(lo, hi, 41)
                lines = []
                for sel, colour, m, mode in groups:
                    ax.hist(s[a][sel], bins=bins, color=colour, alpha=0.55 if len(groups) > 1 else 0.8,
                            histtype="stepfilled", edgecolor=colour)
                    p = mode["params"][a] if mode else meta["posterior"][a]
                    if mode is None:
                        q = p.get("quantiles", {})
                        if "0.05" in q and "0.95" in q:
                            ax.axvspan(q["0.05"], q["0.95"], color="#aaaaaa", alpha=0.3, lw=0)
                    ax.axvline(p["mean"], color="k" if mode is None else colour, lw=1.2)
                    u = cols.unit(a)
                    est = f"{p['mean']:.4g} ± {p['sd']:.2g}" + (f" {u}" if u else "")
                    lines.append(est if mode is None else f"{m + 1}: {est}")
                if len(groups) == 1:
                    title = f"{cols.sym(a)} = {lines[0]}"
                else:
                    title = "\n".join([cols.sym(a)] + lines[:3] + (["..."] if len(lines) > 3 else []))
                ax.set_title(title, fontsize=8)
                ax.set_yticks([])
                ax.set_xlim(span[a])
            else:
                if len(groups) == 1:
                    ax.hist2d(s[b], s[a], bins=40, range=[span[b], span[a]], cmap="Blues", cmin=1)
                else:
                    for sel, colour, _, _ in groups:
                        n = max(1, int(sel.sum()))
                        ax.scatter(s[b][sel], s[a][sel], s=5, color=colour, alpha=float(np.clip(400.0 / n, 0.2, 0.8)),
                                   linewidths=0)
                ax.set_xlim(span[b])
                ax.set_ylim(span[a])
                pc.few_ticks(ax.yaxis, 3)
            pc.few_ticks(ax.xaxis, 3)
            # tick labels and names on the outer panels only: the columns share x, the rows y
            if i == k - 1:
                ax.set_xlabel(cols.label(b))
                ax.tick_params(axis="x", labelsize=7.5, labelrotation=40)
                for t in ax.get_xticklabels():
                    t.set_horizontalalignment("right")
                    t.set_rotation_mode("anchor")
            else:
                ax.tick_params(axis="x", labelbottom=False)
            if j == 0 and i > 0:
                ax.set_ylabel(cols.label(a))
                ax.tick_params(axis="y", labelsize=7.5)
            elif i != j:
                ax.tick_params(axis="y", labelleft=False)
    if len(groups) > 1:
        handles = [Patch(color=colour, alpha=0.7, label=f"mode {m + 1}: mass {float(mode.get('mass', 0.0)):.3f}")
                   for sel, colour, m, mode in sorted(groups, key=lambda g: g[2])]
        holder = axes[0][k - 1] if k > 1 else axes[0][0]
        holder.legend(handles=handles, loc="upper right", fontsize=8, title="SMC modes", title_fontsize=8)
    cal = meta["config"]["calibrate"]
    if meta.get("method") == "smc":
        ev = meta["log_evidence"]
        how = (f"SMC, {meta['particles']} particles, log Z = {ev['value']:.3f} ± {ev['se']:.3f}, "
               f"{len(modes)} mode{'s' if len(modes) != 1 else ''}")
    else:
        how = f"ensemble, {meta['walkers']} walkers x {meta['steps']} steps, burn-in {meta['burn']}"
    if outside.any():
        how += f"\n{int(outside.sum())} of {len(s)} draws beyond the axes"
    fig.suptitle(f"{cal['name']}: posterior of {cal['law']}\n{how}", fontsize=10)
    return fig


def predictive_figure(meta, cols, other=None, x=None):
    """meta, cols: a run's metadata.json and predictive.csv (load_run); other: a second run on the
    same data (load_run) drawn beside it; x: the condition along x (default the first; experiment)."""
    columns = pc.Columns(meta.get("columns"))
    observed = meta["config"]["data"]["observed"]
    conds = conditions_of(meta, cols)
    x = x or (conds[0] if conds else "experiment")
    runs = [(meta["config"]["calibrate"]["law"], cols)]
    if other is not None:
        runs.append((other[0]["config"]["calibrate"]["law"], other[1]))
    xs = cols[x]
    n = len(xs)
    # the data's colour: the first condition that x is not
    hue = next((c for c in conds if c != x), None)
    hv = cols[hue] if hue else None
    # experiments at the same x side by side (in the order of their colour's condition), slot
    # points apart, the group within about half the gap to the next x (the panel about
    # width - 0.9 inches wide); two runs' bars a few points either side of their data point
    width = 4.8
    beside = [0.0] if len(runs) == 1 else [-3.5, 3.5]
    values, counts = np.unique(xs, return_counts=True)
    slot = 11.0 if len(runs) == 1 else 17.0
    if len(values) > 1 and counts.max() > 1:
        gap = float(np.min(np.diff(values))) / float(values[-1] - values[0]) * (width - 0.9) * 72.0 * 0.9
        slot = float(np.clip(0.5 * gap / (counts.max() - 1), 5.0 if len(runs) == 1 else 10.0, slot))
    # the median's tick narrower than a slot: the ticks of neighbours never join into a line
    tick = min(6.0, slot - 3.0) if len(runs) == 1 else 5.0
    offset = np.zeros(n)
    for v in values:
        idx = np.flatnonzero(xs == v)
        if len(idx) > 1:
            idx = idx[np.argsort(hv[idx] if hv is not None else idx, kind="stable")]
            offset[idx] = (np.arange(len(idx)) - (len(idx) - 1) / 2.0) * slot
    fig = plt.figure(figsize=(width * len(observed) + (1.2 if hue else 0.4), 4.6), layout="constrained")
    axes = fig.subplots(1, len(observed), squeeze=False)[0]
    norm = colors.Normalize(*(float(np.nanmin(hv)), float(np.nanmax(hv)))) if hue else None
    if norm is not None and norm.vmax <= norm.vmin:
        norm = colors.Normalize(norm.vmin - 1.0, norm.vmax + 1.0)

    def shifted(ax, pts):
        return ax.transData + transforms.ScaledTranslation(pts / 72.0, 0.0, fig.dpi_scale_trans)

    for ax, o in zip(axes, observed):
        for (_law, c), dx, colour in zip(runs, beside, RUN_COLOURS):
            for off in np.unique(offset):
                idx = np.flatnonzero(offset == off)
                t = shifted(ax, off + dx)
                ax.vlines(xs[idx], c[o + "_q05"][idx], c[o + "_q95"][idx], colors=colour, lw=4.0, alpha=0.45,
                          transform=t, zorder=2)
                ax.plot(xs[idx], c[o + "_q50"][idx], ls="", marker="_", ms=tick, mew=1.8, color=colour, transform=t,
                        zorder=2.5)
        for off in np.unique(offset):
            idx = np.flatnonzero(offset == off)
            t = shifted(ax, off)
            ax.errorbar(xs[idx], cols[o][idx], yerr=cols["sigma_" + o][idx], fmt="none", ecolor="k",
                        elinewidth=0.9, capsize=2, transform=t, zorder=3)
            paint = dict(c=hv[idx], cmap=CONDITION_CMAP, norm=norm) if hue else dict(color="k")
            ax.scatter(xs[idx], cols[o][idx], s=24, edgecolors="k", linewidths=0.6, transform=t, zorder=4, **paint)
        # room at both ends for the points set beside the outermost x (autoscaling sees their x,
        # not their shift): the shift in points over the panel's width (about width - 0.9 inches)
        # as a fraction of the axis
        lo, hi = float(np.nanmin(xs)), float(np.nanmax(xs))
        r = hi - lo if hi > lo else 1.0
        f = (float(np.max(np.abs(offset))) + max(abs(v) for v in beside) + 8.0) / ((width - 0.9) * 72.0)
        m = f / max(1.0 - 2.0 * f, 0.2) + 0.02
        ax.set_xlim(lo - m * r, hi + m * r)
        ax.set_xlabel(columns.label(x) if x != "experiment" else "experiment (row of the data file)")
        ax.set_ylabel(columns.label(o))
        ax.grid(alpha=0.3)
        if x == "experiment":
            ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
    handles = [Line2D([], [], color=colour, lw=4, alpha=0.45, marker="_", ms=tick, mew=1.8, mec=colour,
                      label=f"{law}: 5-95 %, median")
               for (law, _), colour in zip(runs, RUN_COLOURS)]
    handles.append(Line2D([], [], ls="", marker="o", mfc="0.6" if hue else "k", mec="k", ms=5, label="data ± sigma"))
    axes[0].legend(handles=handles, fontsize=8, loc="best")
    if hue:
        cb = fig.colorbar(cm.ScalarMappable(norm=norm, cmap=CONDITION_CMAP), ax=list(axes), pad=0.01, fraction=0.05)
        cb.set_label("data: " + columns.label(hue), fontsize=9)
    what = "predictive of the fit's Laplace normal" if meta.get("method") == "fit" else "posterior predictive"
    fig.suptitle(f"{meta['config']['calibrate']['name']}\n{what} against the data, per experiment", fontsize=10)
    return fig


def comparison_figure(d):
    # ln BF against the best law on a symmetric-log axis (a hopeless law thousands of nats behind
    # does not squeeze the others into a point), over Kass & Raftery's bands; the fit in sigmas on a
    # log axis
    with open(os.path.join(d, "comparison.json")) as f:
        k = json.load(f)
    laws = list(k["laws"])
    lbf = np.array([k["laws"][n]["log_bayes_factor_vs_best"] for n in laws])
    se = np.array([k["laws"][n]["log_bayes_factor_se"] for n in laws])
    obs = k["observed"]
    # the observed outputs' symbols from a law's run (each law's folder has the same data's columns)
    columns = pc.Columns()
    for n in laws:
        try:
            with open(os.path.join(d, k["laws"][n].get("dir", n), "metadata.json")) as f:
                columns = pc.Columns(json.load(f).get("columns"))
            break
        except (OSError, ValueError):
            continue
    fig = plt.figure(figsize=(10.5, 0.6 * len(laws) + 2.8), layout="constrained")
    a, b = fig.subplots(1, 2, sharey=True, gridspec_kw={"width_ratios": [3, 2]})
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
    a.set_xticklabels([f"{t:g}".replace("-", "\u2212") for t in ticks], fontsize=8)
    a.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
    a.set_ylim(-0.6, y.max() + 0.9)
    a.set_yticks(y)
    a.set_yticklabels(laws)
    a.set_ylabel("law")
    a.set_xlabel("ln Bayes factor against the best law (nats; bars: 2 se)")
    a.set_title("Evidence (Kass & Raftery's bands)", fontsize=10)
    h = 0.8 / max(1, len(obs))
    for j, o in enumerate(obs):
        v = [k["laws"][n]["predictive_rms_sigmas"][o] for n in laws]
        b.barh(y - 0.4 + h * (j + 0.5), v, height=h, color=MODE_COLOURS[j % len(MODE_COLOURS)], label=columns.sym(o))
    b.axvline(1.0, color="black", lw=0.8, ls="--")
    b.set_xscale("log")
    # plain numbers at 1, 2, 5 x 10^k, none at the minor ticks (which a short log axis labels 2 x 10^0)
    rms = np.array([[k["laws"][n]["predictive_rms_sigmas"][o] for o in obs] for n in laws], float)
    rms = rms[np.isfinite(rms) & (rms > 0)]
    if len(rms):
        b.set_xlim(min(0.5, 0.7 * float(rms.min())), max(2.0, 1.4 * float(rms.max())))
    b.xaxis.set_major_locator(matplotlib.ticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0), numticks=8))
    b.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, pos: f"{v:g}"))
    b.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    b.tick_params(axis="x", labelsize=8)
    b.set_xlabel("predictive rms residual (data sigmas; 1: their noise)", fontsize=9)
    b.set_title("Fit to the data", fontsize=10)
    b.legend(fontsize=8, title="observed", title_fontsize=8)
    fig.suptitle(f"{k['name']}: which law explains the data", fontsize=11)
    return fig


def write(fig, d, name):
    try:
        pc.save(fig, d, name)
    finally:
        plt.close(fig)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run")
    ap.add_argument("--compare", default=None, help="a second run on the same data, drawn in the same panels")
    ap.add_argument("--x", default=None, help="the condition along the x axis (default: the first; 'experiment')")
    ap.add_argument("--comparison", action="store_true", help="RUN is a comparison of laws: draw comparison.png")
    a = ap.parse_args(argv)
    if a.comparison:
        write(comparison_figure(a.run), a.run, "comparison.png")
        return 0
    meta, cols = load_run(a.run)
    other = load_run(a.compare) if a.compare else None
    if a.x is not None and a.x not in cols:
        print(f"plot_calibration: --x {a.x}: no such column in predictive.csv (have: {', '.join(cols)})",
              file=sys.stderr)
        return 2
    if other is not None and len(other[1].get("experiment", [])) != len(cols["experiment"]):
        print("plot_calibration: --compare: that run has another number of experiments", file=sys.stderr)
        return 2
    if meta.get("method") != "fit":
        write(corner_figure(a.run, meta), a.run, "corner.png")
    write(predictive_figure(meta, cols, other, a.x), a.run, "predictive.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
