#!/usr/bin/env python3
"""Draws the plots of an `impact study` output folder as PNG files.

    plot_study.py OUTDIR [FILE ...]

Reads OUTDIR/metadata.json (written by `impact study`: the resolved config with its [[plots]],
the laws and the columns with their units and symbols) and each law's table (OUTDIR/LAW.npy when
present, else OUTDIR/LAW.csv). Rows whose status is not ok are left out of every plot (their count
is given in the legend). Kinds:
  sweep    y columns against a swept parameter x, one panel per y, laws overlaid; when other
           parameters vary too, one curve per combination of their values (at most 12)
  hist     histograms of the y columns, one panel per y, laws overlaid
  scatter  one column against another: up to 2000 rows a law, a colour and a marker per law with
           the points' opacity falling with their number; beyond, a hexagon-binned density per law,
           one panel each
Every axis is labelled '$symbol$ (unit)' (a pure number: no unit) from metadata.json's columns, and
a title's symbols are set in mathtext (plot_common.py). With FILEs, only the plots of those files
are drawn (`impact study` names the plots its folder's claim made the run's). A plot's file is a
plain name inside OUTDIR (anything else is refused), and it is written whole, through a temporary in
io::OutFile's form renamed onto it: a link of its name is replaced, never written through.
Each kind is a function returning a matplotlib Figure (figures() yields them all), so a test can
inspect what would be written.
Needs numpy and matplotlib (Debian python3-numpy, python3-matplotlib).
"""
import json
import os
import sys

import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.colors import LinearSegmentedColormap
from matplotlib.lines import Line2D

# plot_common.py lies beside this script, which `impact study` runs by its path from any folder
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot_common as pc

# above this many rows a law, a scatter's points hide each other whatever their opacity: density
HEXBIN_ABOVE = 2000


def load_table(outdir, law, meta):
    npy = os.path.join(outdir, law + ".npy")
    if os.path.exists(npy):
        a = np.load(npy)
        ok = a["status"] == 0
        return a, ok
    csv = os.path.join(outdir, law + ".csv")
    if not os.path.exists(csv):
        raise SystemExit(f"plot_study: neither {npy} nor {csv} exists (output.formats needs csv or npy for plots)")
    cols = meta.get("columns", {}).get(law, []) if isinstance(meta.get("columns"), dict) else []
    kinds = {c["name"]: c.get("kind") for c in cols if isinstance(c, dict) and "name" in c}
    with open(csv) as f:
        names = f.readline().strip().split(",")
    dtype = [(n, "U32" if kinds.get(n) in ("status", "modes") or n in ("status", "modes") else "f8") for n in names]
    a = np.genfromtxt(csv, delimiter=",", skip_header=1, dtype=dtype, missing_values="", filling_values=np.nan)
    a = np.atleast_1d(a)
    ok = a["status"] == "ok"
    return a, ok


def ys_of(plot):
    y = plot.get("y", [])
    return [y] if isinstance(y, str) else list(y)


def law_style(i):
    return pc.LAW_COLOURS[i % len(pc.LAW_COLOURS)], pc.LAW_MARKERS[i % len(pc.LAW_MARKERS)]


def legend(ax, **kw):
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=7, **kw)


def sweep(fig, tables, plot, meta, cols):
    x, ys = plot["x"], ys_of(plot)
    axes = fig.subplots(len(ys), 1, sharex=True, squeeze=False)[:, 0]
    others = [v for v in meta.get("varied", []) if v != x]
    several = len(tables) > 1
    shown = 0
    for li, (law, (a, ok)) in enumerate(tables.items()):
        rows = a[ok]
        others_here = [o for o in others if o in rows.dtype.names]
        if others_here:
            keys = np.stack([rows[o] for o in others_here], axis=1)
            combos, inverse = np.unique(keys, axis=0, return_inverse=True)
            inverse = np.ravel(inverse)
        else:
            combos, inverse = np.zeros((1, 0)), np.zeros(len(rows), dtype=int)
        shown = max(shown, len(combos))
        for ci, combo in enumerate(combos[:12]):
            sel = rows[inverse == ci]
            order = np.argsort(sel[x])
            # laws by colour when there is one curve a law; else the combinations by colour and the
            # laws by line style
            if others_here:
                colour = f"C{ci % 10}"
                style = pc.LAW_LINESTYLES[li % len(pc.LAW_LINESTYLES)] if several else "-"
                tag = (law + ": " if several else "") + ", ".join(cols.value(o, v) for o, v in zip(others_here, combo))
            else:
                colour, style, tag = law_style(li)[0], "-", law
            for ax, y in zip(axes, ys):
                if y in sel.dtype.names:
                    ax.plot(sel[x][order], sel[y][order], style, color=colour, lw=1.4, label=tag)
        bad = int((~ok).sum())
        if bad:
            axes[0].plot([], [], " ", label=f"{law}: {bad} rows without result")
    if shown > 12:
        axes[0].plot([], [], " ", label=f"the first 12 of {shown} combinations")
    for ax, y in zip(axes, ys):
        ax.set_ylabel(cols.label(y))
        ax.grid(True, alpha=0.3)
        ax.axhline(0.0, color="0.6", lw=0.6)
    axes[-1].set_xlabel(cols.label(x, long=True))
    # a long legend (a curve per combination) beside the panels, a short one inside
    many = len(axes[0].get_legend_handles_labels()[0]) > 4
    if many:
        legend(axes[0], loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
    else:
        legend(axes[0], loc="best")
    return list(axes)


def hist(fig, tables, plot, meta, cols):
    bins = int(plot.get("bins", 60))
    ys = ys_of(plot)
    axes = fig.subplots(len(ys), 1, squeeze=False)[:, 0]
    for ax, y in zip(axes, ys):
        vals = {law: a[ok][y] for law, (a, ok) in tables.items() if y in a.dtype.names}
        finite = [v[np.isfinite(v)] for v in vals.values()]
        if not finite or not any(len(v) for v in finite):
            continue
        lo = min(v.min() for v in finite if len(v))
        hi = max(v.max() for v in finite if len(v))
        if hi <= lo:
            hi = lo + 1.0
        edges = np.linspace(lo, hi, bins + 1)
        unit = cols.unit(y)
        for li, (law, v) in enumerate(vals.items()):
            v = v[np.isfinite(v)]
            sd = v.std(ddof=1) if len(v) > 1 else 0.0
            ax.hist(v, bins=edges, histtype="step", lw=1.4, color=law_style(li)[0],
                    label=f"{law} (n = {len(v)}, mean {v.mean():.4g}, sd {sd:.3g}" + (f" {unit})" if unit else ")"))
        ax.set_xlabel(cols.label(y, long=True))
        ax.set_ylabel("rows per bin")
        ax.grid(True, alpha=0.3)
        legend(ax, loc="best")
    return list(axes)


def white_to(colour):
    # from a light tint, not white: a hexagon of one row stays visible on the white axes
    light = 0.82 * np.ones(3) + 0.18 * np.array(matplotlib.colors.to_rgb(colour))
    return LinearSegmentedColormap.from_list("law", [tuple(light), colour])


def scatter(fig, tables, plot, meta, cols):
    x, y = plot["x"], ys_of(plot)[0]
    rows = {law: a[ok] for law, (a, ok) in tables.items()}
    counts = {law: int(np.sum(np.isfinite(r[x]) & np.isfinite(r[y]))) for law, r in rows.items()}
    if max(counts.values(), default=0) <= HEXBIN_ABOVE:
        ax = fig.subplots(1, 1)
        for li, (law, r) in enumerate(rows.items()):
            colour, marker = law_style(li)
            n = max(1, counts[law])
            # opacity falls as the points crowd: a few hundred stay solid, 2000 let those below show
            alpha = float(np.clip(600.0 / n, 0.3, 0.9))
            ax.scatter(r[x], r[y], s=18 if n < 1000 else 10, marker=marker, color=colour, alpha=alpha,
                       linewidths=0, label=law)
        handles = [Line2D([], [], ls="", marker=law_style(li)[1], color=law_style(li)[0], ms=6,
                          label=f"{law} ({counts[law]} rows)") for li, law in enumerate(rows)]
        ax.legend(handles=handles, fontsize=8, loc="best")
        ax.set_xlabel(cols.label(x, long=True))
        ax.set_ylabel(cols.label(y, long=True))
        ax.grid(True, alpha=0.3)
        return [ax]
    # one hexbin panel per law on shared axes, each in its law's colour, so that two laws' clouds
    # are told apart where they overlap
    k = len(rows)
    ncol = min(k, 3)
    nrow = (k + ncol - 1) // ncol
    axes = fig.subplots(nrow, ncol, sharex=True, sharey=True, squeeze=False)
    xs = np.concatenate([r[x][np.isfinite(r[x])] for r in rows.values()])
    ys = np.concatenate([r[y][np.isfinite(r[y])] for r in rows.values()])
    extent = (xs.min(), xs.max(), ys.min(), ys.max()) if len(xs) and len(ys) else None
    flat = list(axes.ravel())
    for li, (law, r) in enumerate(rows.items()):
        ax = flat[li]
        colour, _ = law_style(li)
        m = np.isfinite(r[x]) & np.isfinite(r[y])
        hb = ax.hexbin(r[x][m], r[y][m], gridsize=45, mincnt=1, bins="log", cmap=white_to(colour),
                       extent=extent, linewidths=0.2)
        cb = fig.colorbar(hb, ax=ax, pad=0.02, fraction=0.06)
        cb.set_label("rows per hexagon", fontsize=8)
        cb.ax.tick_params(labelsize=7)
        ax.legend(handles=[Line2D([], [], ls="", marker="h", ms=9, color=colour, label=f"{law} ({counts[law]} rows)")],
                  fontsize=8, loc="best")
        ax.grid(True, alpha=0.3)
        if li // ncol == nrow - 1 or li + ncol >= k:
            ax.set_xlabel(cols.label(x, long=ncol == 1))
            ax.xaxis.set_tick_params(labelbottom=True)
        if li % ncol == 0:
            ax.set_ylabel(cols.label(y))
        pc.few_ticks(ax.xaxis, 5)
    for ax in flat[k:]:
        ax.axis("off")
    return flat[:k]


KINDS = {"sweep": sweep, "hist": hist, "scatter": scatter}


def figure(meta, plot, tables):
    """The Figure of one [[plots]] entry; tables: {law: (rows, ok)}."""
    cfg = meta.get("config", {})
    cols = pc.Columns(meta.get("columns"))
    kind = plot["kind"]
    if kind == "scatter":
        k = len(tables)
        big = max((int(ok.sum()) for _, ok in tables.values()), default=0) > HEXBIN_ABOVE
        ncol = min(k, 3) if big else 1
        nrow = (k + ncol - 1) // ncol if big else 1
        size = (4.6 * ncol + 1.2, 3.6 * nrow + 1.2) if big and ncol > 1 else (7.5, 5.6)
    else:
        npanel = max(1, len(ys_of(plot)))
        size = (7.5, 1.4 + 2.5 * npanel)
    fig = plt.figure(figsize=size, layout="constrained")
    KINDS[kind](fig, tables, plot, meta, cols)
    title = pc.mathify(plot.get("title") or f"{cfg.get('study', {}).get('name', 'study')}: {kind}", cols)
    sub = (f"{meta.get('scenario', '')}, {meta.get('rows', '?')} samples, "
           f"{meta.get('backend', '')} {meta.get('precision', '')}")
    if meta.get("steps"):
        sub += f", {meta['steps']} steps"
    fig.suptitle(f"{title}\n{sub}", fontsize=10)
    return fig


def load_meta(outdir):
    with open(os.path.join(outdir, "metadata.json")) as f:
        return json.load(f)


def figures(outdir, only=(), meta=None):
    """(file, Figure) for each plot of the folder's metadata.json (with only: those files), in its
    order; the caller closes each Figure."""
    meta = meta or load_meta(outdir)
    plots = [p for p in meta.get("config", {}).get("plots", []) if isinstance(p, dict)]
    if only:
        plots = [p for p in plots if isinstance(p.get("file"), str) and p["file"] in only]
    for plot in plots:
        if not pc.plain_name(plot.get("file")):
            print(f"plot_study: plot file {plot.get('file')!r} is not a name inside {outdir}: not drawn",
                  file=sys.stderr)
    plots = [p for p in plots if pc.plain_name(p.get("file"))]
    cache = {}
    for plot in plots:
        laws = [plot["law"]] if plot.get("law") else meta["laws"]
        for law in laws:
            if law not in cache:
                cache[law] = load_table(outdir, law, meta)
        yield plot["file"], figure(meta, plot, {law: cache[law] for law in laws})


def main():
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    outdir, only = sys.argv[1], set(sys.argv[2:])
    for name, fig in figures(outdir, only):
        try:
            pc.save(fig, outdir, name)
        finally:
            plt.close(fig)
        print(f"plot_study: wrote {os.path.join(outdir, name)}")


if __name__ == "__main__":
    main()
