"""The plots (scripts/plot_study.py, scripts/plot_calibration.py): every kind drawn on small runs of
the shipped examples reads. For every figure, after the canvas is drawn: no tick label overlaps
another tick label of the figure (its own axis, the other axis, neighbouring panels), nor an axis
label, a title or a legend, and nothing lies outside the figure; every axis that shows tick labels
is labelled; every column plotted is labelled '$symbol$ (unit)' from metadata.json's columns (a
pure number: no unit); titles carry no raw symbol names (V_x, omega_y) outside mathtext. The
scripts are also run by path from `impact study` and `impact calibrate` (the plots are files), and
on folders whose metadata.json predates the columns' symbols (names as labels).

The number of figures checked and of overlaps found is printed at the end of the module
("N plots, 0 overlaps"). IMPACT_PLOTS_REVIEW=DIR writes each checked figure there as a PNG."""
import json
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  after importorskip (no matplotlib: a skip)

SRC = os.environ.get("IMPACT_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
IMPACT = os.environ.get("IMPACT_BINARY", "impact")
STUDIES = os.path.join(SRC, "examples", "studies")
CALIBRATION = os.path.join(SRC, "examples", "calibration")
sys.path.insert(0, os.path.join(SRC, "scripts"))
import plot_calibration  # noqa: E402  found in SRC/scripts, put on the path above
import plot_study  # noqa: E402  found in SRC/scripts, put on the path above

# the binary draws its plots with this Python (which imports numpy and matplotlib: the test runs)
ENV = dict(os.environ, IMPACT_PYTHON=sys.executable)
# a pixel of slack: two labels that touch at a rounded edge are not an overlap
TOL = 1.0

TALLY = {"plots": 0, "overlaps": 0}


@pytest.fixture(scope="module", autouse=True)
def tally(request):
    yield TALLY
    line = f"test_plots: {TALLY['plots']} plots, {TALLY['overlaps']} overlaps"
    # past pytest's capture, which holds a fixture's output otherwise
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    if capture is not None and reporter is not None:
        with capture.global_and_fixture_disabled():
            reporter.ensure_newline()
            reporter.write_line(line)
    else:
        print(line)


def impact(*args):
    p = subprocess.run([IMPACT, *args, "--backend", "omp", "-q"], capture_output=True, text=True, env=ENV)
    assert p.returncode == 0, p.stderr
    return p


# ---- what a drawn figure must satisfy ---------------------------------------------------------

def drawn_tick_labels(axis):
    # the ticks the last draw placed (inside the view), with a visible, non-empty label
    out = []
    for t in axis._update_ticks():
        for lab in (t.label1, t.label2):
            if lab.get_visible() and lab.get_text().strip():
                out.append(lab)
    return out


def texts_of(fig):
    """(kind, text, bbox) of every drawn tick label, axis label, title, legend and suptitle."""
    r = fig.canvas.get_renderer()
    out = []
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        if ax.axison:
            for name, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
                if not axis.get_visible():
                    continue
                for lab in drawn_tick_labels(axis):
                    out.append(("tick", lab.get_text(), lab.get_window_extent(r), id(ax), name))
                if axis.label.get_visible() and axis.label.get_text():
                    out.append(("label", axis.label.get_text(), axis.label.get_window_extent(r), id(ax), name))
        for t in (ax.title, ax._left_title, ax._right_title):
            if t.get_visible() and t.get_text():
                out.append(("title", t.get_text(), t.get_window_extent(r), id(ax), ""))
        leg = ax.get_legend()
        if leg is not None and leg.get_visible():
            out.append(("legend", "legend", leg.get_window_extent(r), id(ax), ""))
    for leg in fig.legends:
        out.append(("legend", "legend", leg.get_window_extent(r), 0, ""))
    if fig._suptitle is not None and fig._suptitle.get_text():
        out.append(("title", fig._suptitle.get_text(), fig._suptitle.get_window_extent(r), 0, ""))
    return out


def overlap(a, b):
    return a.x0 < b.x1 - TOL and b.x0 < a.x1 - TOL and a.y0 < b.y1 - TOL and b.y0 < a.y1 - TOL


def overlaps_of(fig):
    """Each pair of texts that overlap (a tick label with anything; labels, titles and legends
    with each other), and each text outside the figure."""
    items = texts_of(fig)
    found = []
    for i, a in enumerate(items):
        for b in items[i + 1:]:
            if a[0] == "legend" and b[0] == "legend":
                continue
            if overlap(a[2], b[2]):
                found.append(f"{a[0]} {a[1]!r} overlaps {b[0]} {b[1]!r}")
    w, h = fig.bbox.width, fig.bbox.height
    for kind, text, bb, _, _ in items:
        if bb.x0 < -TOL or bb.y0 < -TOL or bb.x1 > w + TOL or bb.y1 > h + TOL:
            found.append(f"{kind} {text!r} outside the figure")
    return found


def unlabelled_axes(fig):
    """Each axis that shows tick labels without a label of its own (a colour bar's included)."""
    bad = []
    for k, ax in enumerate(fig.axes):
        if not (ax.get_visible() and ax.axison):
            continue
        for name, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
            if axis.get_visible() and drawn_tick_labels(axis) and not axis.label.get_text().strip():
                bad.append(f"axes {k} {name}")
    return bad


def columns_of(meta):
    cols = meta.get("columns")
    lists = list(cols.values()) if isinstance(cols, dict) else [cols or []]
    out = {}
    for lst in lists:
        for c in lst:
            out.setdefault(c["name"], c)
    return out


def unit_of(c):
    return c.get("unit") if c.get("unit") not in ("", "1", None) else ""


def label_problems(fig, meta, shown):
    """The columns in `shown` that no axis label names by '$symbol$' with '(unit)' (where they
    have a unit), and any axis label that names a column's symbol without its unit."""
    cols = columns_of(meta)
    labels = [t[1] for t in texts_of(fig) if t[0] == "label"]
    bad = []
    for name in shown:
        c = cols[name]
        want = f"${c['symbol']}$"
        u = unit_of(c)
        if not any(want in lab and (not u or f"({u})" in lab) for lab in labels):
            bad.append(f"{name}: no axis label with {want}" + (f" ({u})" if u else "") + f" among {labels}")
    for lab in labels:
        for c in cols.values():
            u = unit_of(c)
            if u and f"${c['symbol']}$" in lab and f"({u})" not in lab:
                bad.append(f"label {lab!r}: {c['name']} without its unit {u}")
    return bad


RAW_SYMBOL = re.compile(r"\b[A-Za-z]_[A-Za-z0-9]|\b(omega|mu|eta|theta|sigma)(_?[0-9A-Za-z]{0,3})?\b")


def title_problems(fig):
    """Titles with a raw symbol name (V_x, omega_y, mu) outside mathtext."""
    bad = []
    for kind, text, _, _, _ in texts_of(fig):
        if kind != "title":
            continue
        plain = "".join(text.split("$")[0::2])
        if RAW_SYMBOL.search(plain):
            bad.append(f"title {text!r}: {RAW_SYMBOL.search(plain).group(0)!r} outside mathtext")
    return bad


def check(fig, name, meta=None, shown=()):
    """Draws fig and asserts what every plot must satisfy; counts it in the module's tally."""
    try:
        fig.canvas.draw()
        found = overlaps_of(fig)
        TALLY["plots"] += 1
        TALLY["overlaps"] += len(found)
        review = os.environ.get("IMPACT_PLOTS_REVIEW")
        if review:
            os.makedirs(review, exist_ok=True)
            fig.savefig(os.path.join(review, name.replace("/", "_")), dpi=110)
        problems = found + [f"unlabelled {a}" for a in unlabelled_axes(fig)] + title_problems(fig)
        if meta is not None:
            problems += label_problems(fig, meta, shown)
        assert not problems, f"{name}:\n  " + "\n  ".join(problems)
    finally:
        plt.close(fig)


# ---- the runs ---------------------------------------------------------------------------------

# every shipped study, small: rows and steps cut so that each runs in about a second; pencil-mc
# keeps more than plot_study.HEXBIN_ABOVE rows (its scatter is the density per law), ball-sobol
# fewer (points, a colour and a marker per law); jia-fig14a once more with mu on three values (a
# sweep's curve per combination, its legend beside the panels)
STUDY_RUNS = {
    "ball-sobol": ("ball-sobol.toml", ["design.n=128", "run.steps=100"]),
    "pencil-mc": ("pencil-mc.toml", ["design.n=2500", "run.steps=100"]),
    "jia-fig14a": ("jia-fig14a.toml", ["run.steps=100"]),
    "jia-fig14b": ("jia-fig14b.toml", ["run.steps=100"]),
    "jia-fig15a": ("jia-fig15a.toml", ["run.steps=100"]),
    "jia-fig15b": ("jia-fig15b.toml", ["run.steps=100"]),
    "jia-fig15c": ("jia-fig15c.toml", ["run.steps=100"]),
    "oblique-sphere": ("oblique-sphere.toml", ["run.steps=100"]),
    "jia-fig14a-mu": ("jia-fig14a.toml", ["run.steps=100", "params.V0x=linspace:-15:15:61",
                                          "params.mu=linspace:0.2:0.6:3"]),
}
# drawn by `impact study` itself (the script run by its path), the others with --no-plots
STUDY_DRAWN = {"oblique-sphere"}

SMC_SMALL = ["smc.particles=128", "smc.moves=16"]
CAL_RUNS = {
    # a posterior of several modes (the corner's colours per mode); one condition
    "misspecified": ("ball-oblique-misspecified.toml", SMC_SMALL + ["run.steps=100"], []),
    # noise parameters (sigma_Vx, sigma_Vz: a unit on a corner axis); two conditions on a grid
    "noise": ("ball-synthetic.toml", ["smc.particles=256", "smc.moves=16",
                                      'data.sigma={Vx="lognormal:-3.9:1", Vz="lognormal:-3.9:1"}'], []),
    # the ensemble sampler (a 2-D histogram below the diagonal), drawn by `impact calibrate`
    "ensemble": ("ball-synthetic.toml", ['calibrate.method="ensemble"', "mcmc.steps=300"], []),
    # a fit: the predictive only
    "fit": ("cornell-stronge.toml", ['calibrate.method="fit"'], []),
    # a comparison of two laws (comparison.png, drawn by `impact calibrate --laws`), whose runs are
    # also compared in one predictive (--compare)
    "laws": ("cornell-laws.toml", SMC_SMALL, ["--laws", "stronge,chatterjee-ruina"]),
}
CAL_DRAWN = {"ensemble", "laws"}


@pytest.fixture(scope="module")
def studies(tmp_path_factory):
    root = tmp_path_factory.mktemp("studies")
    out = {}
    for name, (cfg, sets) in STUDY_RUNS.items():
        d = root / name
        args = ["study", os.path.join(STUDIES, cfg), "--out", str(d)]
        for s in sets:
            args += ["--set", s]
        impact(*args, *([] if name in STUDY_DRAWN else ["--no-plots"]))
        out[name] = d
    return out


@pytest.fixture(scope="module")
def calibrations(tmp_path_factory):
    root = tmp_path_factory.mktemp("calibrations")
    out = {}
    for name, (cfg, sets, extra) in CAL_RUNS.items():
        d = root / name
        args = ["calibrate", os.path.join(CALIBRATION, cfg), "--out", str(d), *extra]
        for s in sets:
            args += ["--set", s]
        impact(*args, *([] if name in CAL_DRAWN else ["--no-plots"]))
        out[name] = d
    return out


# ---- the tests --------------------------------------------------------------------------------

def shown_by(plot):
    y = plot["y"] if isinstance(plot["y"], list) else [plot["y"]]
    if plot["kind"] == "scatter":
        return [plot["x"], y[0]]
    if plot["kind"] == "sweep":
        return [plot["x"], *y]
    return y


def test_every_study_plot_reads(studies):
    kinds = set()
    for name, d in studies.items():
        meta = plot_study.load_meta(str(d))
        plots = {p["file"]: p for p in meta["config"]["plots"]}
        drawn = 0
        for file, fig in plot_study.figures(str(d), meta=meta):
            plot = plots[file]
            kinds.add(plot["kind"])
            # the density panels come with colour bars: more than one Axes
            big = plot["kind"] == "scatter" and len(fig.axes) > 1
            if plot["kind"] == "scatter":
                # laws told apart: a legend naming each law in the figure
                legends = " ".join(t.get_text() for ax in fig.axes if ax.get_legend()
                                   for t in ax.get_legend().get_texts())
                assert all(law in legends for law in meta["laws"]), (name, legends)
                if name == "pencil-mc":
                    assert big, "pencil-mc's scatter beyond HEXBIN_ABOVE rows a law is a density per law"
            check(fig, f"{name}-{file}", meta, shown_by(plot))
            drawn += 1
        assert drawn == len(plots), name
    assert kinds == {"sweep", "hist", "scatter"}


def test_study_plots_drawn_by_impact_study(studies):
    d = studies["oblique-sphere"]
    for f in ("spin.png", "tangential.png"):
        with open(d / f, "rb") as fh:
            assert fh.read(8) == b"\x89PNG\r\n\x1a\n", f
    assert not [p for p in os.listdir(d) if ".tmp-" in p]
    # the script by its path from another folder, one file of the folder's plots
    os.unlink(d / "spin.png")
    p = subprocess.run([sys.executable, os.path.join(SRC, "scripts", "plot_study.py"), str(d), "spin.png"],
                       capture_output=True, text=True, cwd="/")
    assert p.returncode == 0, p.stderr
    assert (d / "spin.png").exists()


def test_every_calibration_plot_reads(calibrations):
    mis = calibrations["misspecified"]
    meta, cols = plot_calibration.load_run(str(mis))
    assert len(meta["modes"]) > 1, "the misspecified series' small SMC run is expected to find several modes"
    fig = plot_calibration.corner_figure(str(mis), meta)
    legend = [t.get_text() for ax in fig.axes if ax.get_legend() for t in ax.get_legend().get_texts()]
    assert sum(t.startswith("mode ") for t in legend) == len(meta["modes"]), legend
    check(fig, "misspecified-corner.png", meta, list(meta["posterior"]))
    check(plot_calibration.predictive_figure(meta, cols), "misspecified-predictive.png", meta,
          ["angle", *meta["config"]["data"]["observed"]])

    for name in ("noise", "ensemble"):
        d = calibrations[name]
        meta, cols = plot_calibration.load_run(str(d))
        check(plot_calibration.corner_figure(str(d), meta), f"{name}-corner.png", meta, list(meta["posterior"]))
        # two conditions: V0x along x, w0y the data's colour (the colour bar's label)
        check(plot_calibration.predictive_figure(meta, cols), f"{name}-predictive.png", meta,
              ["V0x", "w0y", *meta["config"]["data"]["observed"]])
    assert any(n.startswith("sigma_") for n in plot_calibration.load_run(str(calibrations["noise"]))[0]["posterior"])
    # along the experiments' order: the first condition is the data's colour
    meta, cols = plot_calibration.load_run(str(calibrations["noise"]))
    check(plot_calibration.predictive_figure(meta, cols, x="experiment"), "noise-predictive-experiment.png", meta,
          ["V0x", *meta["config"]["data"]["observed"]])

    meta, cols = plot_calibration.load_run(str(calibrations["fit"]))
    assert meta["method"] == "fit"
    check(plot_calibration.predictive_figure(meta, cols), "fit-predictive.png", meta,
          ["vn", "vt", *meta["config"]["data"]["observed"]])

    laws = calibrations["laws"]
    a = plot_calibration.load_run(str(laws / "stronge"))
    b = plot_calibration.load_run(str(laws / "chatterjee-ruina"))
    check(plot_calibration.corner_figure(str(laws / "chatterjee-ruina"), b[0]), "laws-corner.png", b[0],
          list(b[0]["posterior"]))
    fig = plot_calibration.predictive_figure(a[0], a[1], b)
    legend = " ".join(t.get_text() for t in fig.axes[0].get_legend().get_texts())
    assert "stronge" in legend and "chatterjee-ruina" in legend, legend
    check(fig, "laws-predictive-compare.png", a[0], ["vn", "vt", *a[0]["config"]["data"]["observed"]])
    check(plot_calibration.comparison_figure(str(laws)), "laws-comparison.png")


def no_lines_between_experiments(fig):
    # the predictive draws each experiment on its own: no line with more than one point
    for ax in fig.axes:
        for line in ax.get_lines():
            x = np.asarray(line.get_xdata(), float)
            if line.get_linestyle() not in ("None", "", " ") and len(x) > 1 and ax.get_label() != "<colorbar>":
                return False
    return True


def test_the_overlap_check_sees_overlaps():
    # the check itself: crowded tick labels, and an axis label pushed onto its own tick labels
    fig, (a, b) = plt.subplots(1, 2, figsize=(3, 2))
    a.set_xticks(np.linspace(0, 1, 40))
    a.set_xticklabels([f"{v:.6f}" for v in np.linspace(0, 1, 40)])
    b.set_ylabel("a label")
    b.yaxis.set_label_coords(-0.08, 0.5)
    try:
        fig.canvas.draw()
        found = overlaps_of(fig)
        assert any(f.startswith("tick '0.0") and "overlaps tick" in f for f in found), found
        assert any("'a label'" in f for f in found), found
        assert unlabelled_axes(fig) == ["axes 0 x", "axes 0 y", "axes 1 x"]
    finally:
        plt.close(fig)


def test_predictive_joins_no_experiments(calibrations):
    for name in ("noise", "misspecified"):
        meta, cols = plot_calibration.load_run(str(calibrations[name]))
        fig = plot_calibration.predictive_figure(meta, cols)
        try:
            assert no_lines_between_experiments(fig), name
        finally:
            plt.close(fig)


def test_calibration_plots_drawn_by_impact_calibrate(calibrations):
    for path in (calibrations["ensemble"] / "corner.png", calibrations["ensemble"] / "predictive.png",
                 calibrations["laws"] / "comparison.png", calibrations["laws"] / "stronge" / "corner.png"):
        with open(path, "rb") as fh:
            assert fh.read(8) == b"\x89PNG\r\n\x1a\n", path
    for d in (calibrations["ensemble"], calibrations["laws"]):
        assert not [p for p in os.listdir(d) if ".tmp-" in p]


def test_folders_without_symbols_are_labelled_by_name(studies, calibrations, tmp_path):
    # a metadata.json written before the columns carried units and symbols: the names label the axes
    d = tmp_path / "old-study"
    shutil.copytree(studies["ball-sobol"], d)
    meta = json.loads((d / "metadata.json").read_text())
    meta["columns"] = {law: [{"name": c["name"], "kind": c["kind"]} for c in cols]
                       for law, cols in meta["columns"].items()}
    (d / "metadata.json").write_text(json.dumps(meta))
    for _file, fig in plot_study.figures(str(d)):
        try:
            fig.canvas.draw()
            labels = {ax.get_xlabel() for ax in fig.axes} | {ax.get_ylabel() for ax in fig.axes}
            assert {"mu", "Vx"} <= labels, labels
            assert not overlaps_of(fig)
        finally:
            plt.close(fig)
    c = tmp_path / "old-calibration"
    shutil.copytree(calibrations["misspecified"], c)
    meta = json.loads((c / "metadata.json").read_text())
    del meta["columns"]
    (c / "metadata.json").write_text(json.dumps(meta))
    assert plot_calibration.main([str(c)]) == 0
    meta, cols = plot_calibration.load_run(str(c))
    fig = plot_calibration.predictive_figure(meta, cols)
    try:
        fig.canvas.draw()
        assert fig.axes[0].get_xlabel() == "angle" and fig.axes[0].get_ylabel() == "Vx"
    finally:
        plt.close(fig)
