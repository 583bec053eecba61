#!/usr/bin/env python3
"""Draws the plots of an `impact study` output folder as PNG files.

    plot_study.py OUTDIR [FILE ...]

Reads OUTDIR/metadata.json (written by `impact study`: the resolved config with its [[plots]],
the laws and the column names) and each law's table (OUTDIR/LAW.npy when present, else
OUTDIR/LAW.csv). Rows whose status is not ok are left out of every plot (their count is given in
the legend). Kinds:
  sweep    y columns against a swept parameter x, one panel per y, laws overlaid; when other
           parameters vary too, one curve per combination of their values (at most 12)
  hist     histograms of the y columns, one panel per y, laws overlaid
  scatter  one column against another, laws overlaid
With FILEs, only the plots of those files are drawn (`impact study` names the plots its folder's
claim made the run's). A plot's file is a plain name inside OUTDIR (anything else is refused), and
it is written whole, through a temporary in io::OutFile's form renamed onto it: a link of its name is
replaced, never written through.
Needs numpy and matplotlib (Debian python3-numpy, python3-matplotlib).
"""
import json
import os
import sys

import numpy as np
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def load_table(outdir, law, meta):
    npy = os.path.join(outdir, law + ".npy")
    if os.path.exists(npy):
        a = np.load(npy)
        ok = a["status"] == 0
        return a, ok
    csv = os.path.join(outdir, law + ".csv")
    if not os.path.exists(csv):
        raise SystemExit(f"plot_study: neither {npy} nor {csv} exists (output.formats needs csv or npy for plots)")
    kinds = {c["name"]: c["kind"] for c in meta["columns"][law]}
    with open(csv) as f:
        names = f.readline().strip().split(",")
    dtype = [(n, "U32" if kinds.get(n) in ("status", "modes") else "f8") for n in names]
    a = np.genfromtxt(csv, delimiter=",", skip_header=1, dtype=dtype, missing_values="", filling_values=np.nan)
    a = np.atleast_1d(a)
    ok = a["status"] == "ok"
    return a, ok


def label_of(name, meta):
    helps = {c["name"]: c.get("help", "") for law in meta["columns"].values() for c in law}
    h = helps.get(name, "")
    return f"{name} ({h})" if h and len(h) < 50 else name


def sweep(ax_list, tables, plot, meta):
    x = plot["x"]
    others = [v for v in meta["varied"] if v != x]
    for law, (a, ok) in tables.items():
        rows = a[ok]
        if others:
            keys = np.stack([rows[o] for o in others], axis=1)
            combos, inverse = np.unique(keys, axis=0, return_inverse=True)
            inverse = np.ravel(inverse)
        else:
            combos, inverse = np.zeros((1, 0)), np.zeros(len(rows), dtype=int)
        for ci, combo in enumerate(combos[:12]):
            sel = rows[inverse == ci]
            order = np.argsort(sel[x])
            tag = law if len(tables) > 1 or not others else ""
            if others:
                tag += (" " if tag else "") + ", ".join(f"{o}={v:.3g}" for o, v in zip(others, combo))
            for ax, y in zip(ax_list, plot["y"]):
                if y in sel.dtype.names:
                    ax.plot(sel[x][order], sel[y][order], "-", lw=1.4, label=tag or law)
        bad = int((~ok).sum())
        if bad:
            ax_list[0].plot([], [], " ", label=f"{law}: {bad} rows without result")
    for ax, y in zip(ax_list, plot["y"]):
        ax.set_ylabel(y)
        ax.grid(True, alpha=0.3)
        ax.axhline(0.0, color="0.6", lw=0.6)
    ax_list[-1].set_xlabel(label_of(x, meta))


def hist(ax_list, tables, plot, meta):
    bins = int(plot.get("bins", 60))
    for ax, y in zip(ax_list, plot["y"]):
        vals = {law: a[ok][y] for law, (a, ok) in tables.items() if y in a.dtype.names}
        finite = [v[np.isfinite(v)] for v in vals.values()]
        if not finite or not any(len(v) for v in finite):
            continue
        lo = min(v.min() for v in finite if len(v))
        hi = max(v.max() for v in finite if len(v))
        if hi <= lo:
            hi = lo + 1.0
        edges = np.linspace(lo, hi, bins + 1)
        for law, v in vals.items():
            v = v[np.isfinite(v)]
            ax.hist(v, bins=edges, histtype="step", lw=1.4,
                    label=f"{law} (n={len(v)}, mean {v.mean():.4g}, sd {v.std(ddof=1) if len(v) > 1 else 0:.3g})")
        ax.set_xlabel(y)
        ax.set_ylabel("count")
        ax.grid(True, alpha=0.3)


def scatter(ax, tables, plot, meta):
    x, y = plot["x"], plot["y"][0]
    for law, (a, ok) in tables.items():
        rows = a[ok]
        n = len(rows)
        step = max(1, n // 20000)  # at most ~20k points
        ax.plot(rows[x][::step], rows[y][::step], ".", ms=2, alpha=0.5, label=f"{law} ({n} rows)")
    ax.set_xlabel(label_of(x, meta))
    ax.set_ylabel(y)
    ax.grid(True, alpha=0.3)


def plain_name(name):
    return isinstance(name, str) and name not in ("", ".", "..") and "/" not in name and "\0" not in name


def save(fig, outdir, name):
    # a temporary in io::OutFile's form (.NAME.tmp-PID-N: a later claim removes it when this process
    # died half-way), created anew, then renamed onto the name: never written through a link
    tmp = os.path.join(outdir, f".{name}.tmp-{os.getpid()}-0")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o666)
    try:
        with os.fdopen(fd, "wb") as f:
            fig.savefig(f, dpi=110, format=os.path.splitext(name)[1][1:] or "png")
        os.replace(tmp, os.path.join(outdir, name))
    except BaseException:
        if os.path.lexists(tmp):
            os.unlink(tmp)
        raise


def main():
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    outdir, only = sys.argv[1], set(sys.argv[2:])
    with open(os.path.join(outdir, "metadata.json")) as f:
        meta = json.load(f)
    cfg = meta["config"]
    plots = cfg.get("plots", [])
    plots = [p for p in plots if isinstance(p, dict)]
    if only:
        plots = [p for p in plots if isinstance(p.get("file"), str) and p["file"] in only]
    for plot in plots:
        if not plain_name(plot.get("file")):
            print(f"plot_study: plot file {plot.get('file')!r} is not a name inside {outdir}: not drawn", file=sys.stderr)
    plots = [p for p in plots if plain_name(p.get("file"))]
    cache = {}
    for plot in plots:
        laws = [plot["law"]] if plot.get("law") else meta["laws"]
        tables = {}
        for law in laws:
            if law not in cache:
                cache[law] = load_table(outdir, law, meta)
            tables[law] = cache[law]
        kind = plot["kind"]
        npanel = len(plot["y"]) if kind in ("sweep", "hist") else 1
        fig, axes = plt.subplots(npanel, 1, figsize=(7.0, 2.6 + 2.4 * npanel), squeeze=False,
                                 sharex=(kind == "sweep"))
        axes = list(axes[:, 0])
        if kind == "sweep":
            sweep(axes, tables, plot, meta)
        elif kind == "hist":
            hist(axes, tables, plot, meta)
        else:
            scatter(axes[0], tables, plot, meta)
        for ax in axes:
            if ax.get_legend_handles_labels()[0]:
                ax.legend(fontsize=7, loc="best")
        title = plot.get("title") or f"{cfg['study']['name']}: {kind}"
        sub = f"{meta['scenario']}, {meta['rows']} samples, {meta['backend']} {meta['precision']}"
        if meta.get("steps"):
            sub += f", {meta['steps']} steps"
        fig.suptitle(f"{title}\n{sub}", fontsize=10)
        fig.tight_layout()
        save(fig, outdir, plot["file"])
        plt.close(fig)
        print(f"plot_study: wrote {os.path.join(outdir, plot['file'])}")


if __name__ == "__main__":
    main()
