"""Calibration from Python (docs/calibration.md): `impact calibrate`'s run, and its model's
log densities on points a Python sampler proposes.

    >>> import impactbatch as ib
    >>> res = ib.calibrate("examples/calibration/ball-synthetic.toml", out="/tmp/cal")
    >>> res.summary.loc["mu", ["mean", "sd"]]               # pandas; the samples in res.samples

    >>> model = ib.CalibrationModel("examples/calibration/ball-synthetic.toml")
    >>> import emcee                                       # any sampler that takes a vectorised density
    >>> s = emcee.EnsembleSampler(32, model.dim, ib.log_posterior, args=(model,), vectorize=True)

A model reads the config and the data once; each call evaluates all its points x all experiments as
one batch on the model's backend, so a vectorised sampler pays one batch per step.
"""
from __future__ import annotations

import collections
import hashlib
import json
import os
import threading
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import _core
from ._args import _flag, _integer, _python_names, _real_array, _string
from ._study import _request, _table

if TYPE_CHECKING:
    import arviz

Density = Union[np.ndarray, np.float64]  # (n,) for points (n, dim); one float64 for a point (dim,)


class CalibrationResult:
    """The outputs of calibrate(). For calibrate.method = "smc": `samples` (samples.npy, the
    equal-weight draws: particle, run, mode, the free parameters, logp; a pandas DataFrame, or a NumPy
    structured array without pandas), `summary` (one row per free parameter: mean, sd, the
    5/16/50/84/95% quantiles q05..q95, ess from the spread of its runs' means), `log_evidence` and
    `log_evidence_se`, `modes` (a list of dicts:
    mass, and per parameter mean, sd, q05, q50, q95; heaviest first). For "ensemble" (or its old name
    "mcmc"): `samples` (samples.npy after the burn-in: step, walker, the free parameters, logp),
    `summary` (as smc's, with tau, ess, converged), `acceptance`, `stranded` (walkers left in a mode
    far below the bulk: docs/calibration.md). For "fit": `summary` (one row per free parameter: estimate, sd, q05,
    q95 of the Laplace normal), `estimate` (the MAP as a dict), `covariance` (dim x dim, None where the
    Laplace approximation does not hold), `starts` (starts.csv: where each start began and ended) and
    `samples` None. Both: `method`, `metadata` (metadata.json as a dict), `names`, `converged`,
    `backend`, `out_dir`, `files`, and `table` (summary.md's table). The ensemble's summary also has
    r_hat, ess_bulk and ess_tail where metadata.json has them. to_inference_data(): the run as an
    ArviZ InferenceData (ensemble and SMC)."""

    def __init__(self, info: Dict[str, Any]):
        self.out_dir: str = info["out_dir"]
        self.name: str = info["name"]
        self.method: str = info["method"]
        self.names: List[str] = list(info["names"])
        self.files: List[str] = list(info["files"])
        self.backend: str = info["backend"]
        self.converged: bool = bool(info["converged"])
        self.acceptance: float = float(info["acceptance"])
        self.table: str = info["table"]
        self.plot_note: str = info["plot_note"]
        with open(os.path.join(self.out_dir, "metadata.json")) as f:
            self.metadata: Dict[str, Any] = json.load(f)
        self.log_evidence = self.log_evidence_se = None
        self.modes: List[Dict[str, Any]] = []
        if self.method == "fit":
            self._load_fit()
        else:
            self._load_mcmc()
        if self.method == "smc":
            ev = self.metadata["log_evidence"]
            self.log_evidence, self.log_evidence_se = float(ev["value"]), float(ev["se"])
            self.modes = [dict(mass=m["mass"], **{n: m["params"][n] for n in self.names})
                          for m in self.metadata["modes"]]

    def _load_mcmc(self) -> None:
        self.samples = _table(np.load(os.path.join(self.out_dir, "samples.npy")))
        self.stranded: List[int] = list(self.metadata.get("stranded_walkers", []))
        self.estimate = None
        self.covariance = None
        self.starts = None
        rows = []
        for name in self.names:
            p = self.metadata["posterior"][name]
            row = {"mean": p["mean"], "sd": p["sd"]}
            for q, v in p["quantiles"].items():
                row["q%02d" % round(100 * float(q))] = v
            if "tau" in p:  # the ensemble's chain
                row.update(tau=p["tau"], ess=p["ess"], converged=p["converged"])
            elif "ess" in p:  # SMC's, from the spread of its runs' means
                row.update(ess=p["ess"] if p["ess"] is not None else float("nan"))
            for k in ("r_hat", "ess_bulk", "ess_tail"):  # the ensemble's rank-normalised diagnostics
                if k in p:
                    row[k] = p[k] if p[k] is not None else float("nan")  # null: unknown
            rows.append(row)
        self.summary = _frame(rows, self.names)

    def _load_fit(self) -> None:
        est = self.metadata["estimate"]
        self.samples = None
        self.stranded = []
        self.estimate: Dict[str, float] = {n: est["params"][n]["estimate"] for n in self.names}
        cov = est["covariance"]
        self.covariance = np.array(cov, dtype=np.float64) if cov else None
        rows = [{k: est["params"][n][k] for k in ("estimate", "sd", "q05", "q95")} for n in self.names]
        self.summary = _frame(rows, self.names)
        starts = np.genfromtxt(os.path.join(self.out_dir, "starts.csv"), delimiter=",", names=True, dtype=None,
                               encoding="utf-8")
        self.starts = _table(np.atleast_1d(starts))

    def to_inference_data(self, predictive_draws: int = 200, seed: int = 1,
                          backend: Optional[str] = None) -> "arviz.InferenceData":
        """The run as an ArviZ InferenceData (ArviZ imported here only; ImportError saying how to
        install it otherwise). Groups:

        - posterior: each free parameter, dims (chain, draw). The ensemble ("ensemble", "mcmc"): chain
          = walker, draw = step - burn (samples.npy's draws after the burn-in); SMC: one chain of its
          equal-weight particles, in samples.npy's order.
        - sample_stats: `lp` (samples.npy's logp: the log posterior up to the evidence); SMC's also
          `run` and `mode` (the particle's independent run and its mode, heaviest first).
        - observed_data: each observed output's data, dim experiment; constant_data: each
          condition, dim experiment (both from the run's predictive.csv; experiment = its 1-based row).
        - posterior_predictive (left out when predictive_draws is 0): at most `predictive_draws`
          posterior draws, a grid of evenly spaced draws per chain (and, with more chains than
          that, evenly spaced chains, one draw each), their coordinates those of the posterior; per
          observed output OUTPUT the replicated data y_rep = model output + Gaussian noise of the
          experiment's sigma (a noise parameter's: the draw's), the noise from
          numpy.random.default_rng(seed), and OUTPUT_model, the noise-free model output. NaN
          where the law refused the draw's row. The run writes quantiles only (predictive.csv),
          so these are computed here: a CalibrationModel built from metadata.json's resolved
          config on `backend` (default: the run's), one batch of experiments per draw; ValueError
          when its data differ from the run's (the data file changed since).

        attrs (every group's and the InferenceData's): method, law, name, backend, and for SMC
        log_evidence and log_evidence_se. The fit method has no samples: ValueError."""
        if self.method == "fit":
            raise ValueError("to_inference_data: a fit (calibrate.method = \"fit\") has no posterior samples, only "
                             "its estimate and Laplace normal (estimate, covariance); run the ensemble or SMC")
        draws = _integer("predictive_draws", predictive_draws, 0, 1 << 31)
        seed = _integer("seed", seed, 0, (1 << 64) - 1)
        if backend is not None:
            _string("backend", backend)
        try:
            import arviz as az
            import xarray as xr
        except ImportError as err:
            raise ImportError(f"to_inference_data needs ArviZ ({err}): pip install arviz (it brings xarray); "
                              f"scripts/bootstrap.sh puts arviz 0.17.1 into .deps/python of the checkout, which then "
                              f"goes on PYTHONPATH") from err
        from . import __version__

        a = np.load(os.path.join(self.out_dir, "samples.npy"))
        if self.method == "smc":
            chains = np.array([0])
            grid = {k: a[k][None, :] for k in list(self.names) + ["logp", "run", "mode"]}
        else:
            grid, chains = _walker_grid(a, self.names)
        steps = grid["logp"].shape[1]
        draw_coord = np.arange(steps)
        post_coords = {"chain": chains, "draw": draw_coord}
        attrs: Dict[str, Any] = {"inference_library": "impactbatch", "inference_library_version": __version__,
                                 "arviz_version": az.__version__, "method": self.method, "name": self.name,
                                 "law": self.metadata["config"]["calibrate"]["law"], "backend": self.backend}
        if self.method == "smc":
            attrs.update(log_evidence=self.log_evidence, log_evidence_se=self.log_evidence_se)
        cd = ("chain", "draw")
        groups: Dict[str, Any] = {
            "posterior": xr.Dataset({n: (cd, grid[n]) for n in self.names}, coords=post_coords, attrs=attrs),
            "sample_stats": xr.Dataset({"lp": (cd, grid["logp"]),
                                        **({"run": (cd, grid["run"]), "mode": (cd, grid["mode"])}
                                           if self.method == "smc" else {})}, coords=post_coords, attrs=attrs)}
        experiment, cond, obs = _run_data(self.out_dir, self.metadata["config"]["data"]["observed"])
        ex = {"experiment": experiment}
        groups["observed_data"] = xr.Dataset({k: ("experiment", v) for k, v in obs.items()}, coords=ex, attrs=attrs)
        groups["constant_data"] = xr.Dataset({k: ("experiment", v) for k, v in cond.items()}, coords=ex, attrs=attrs)
        if draws:
            ci, di = _thin(len(chains), steps, draws)
            theta = np.stack([grid[n][np.ix_(ci, di)] for n in self.names], axis=-1)  # (chains, draws, dim)
            model = CalibrationModel(self.metadata["config"], backend=backend if backend is not None else self.backend)
            rep, out = _replicate(model, theta, cond, obs, seed)
            pp_coords = {"chain": chains[ci], "draw": draw_coord[di], **ex}
            cde = ("chain", "draw", "experiment")
            groups["posterior_predictive"] = xr.Dataset(
                {**{k: (cde, v) for k, v in rep.items()}, **{k + "_model": (cde, v) for k, v in out.items()}},
                coords=pp_coords, attrs=attrs)
        return az.InferenceData(attrs=attrs, **groups)

    def __repr__(self) -> str:
        if self.method == "smc":
            state = f"log Z {self.log_evidence:.3f} +- {self.log_evidence_se:.3f}, {len(self.modes)} mode(s)"
        elif self.method == "fit":
            state = "fit" if self.converged else "fit, no Laplace approximation or one start only"
        else:
            state = "converged" if self.converged else "not converged"
        return f"<impactbatch.CalibrationResult {self.name}: {', '.join(self.names)} ({state}) in {self.out_dir}>"


def _walker_grid(a: np.ndarray, names: List[str]) -> Tuple[Dict[str, np.ndarray], np.ndarray]:
    """The ensemble's samples.npy (rows step by step, walker by walker within a step) as (walkers,
    steps) arrays per column: sorted by walker, then step; and the walkers' numbers. Every walker
    must hold the same steps (a rectangle), else ValueError: the file is not a chain's."""
    order = np.lexsort((a["step"], a["walker"]))
    a = a[order]
    walkers = np.unique(a["walker"])
    W = len(walkers)
    S = len(a) // W if W else 0
    if W == 0 or W * S != len(a) or not np.array_equal(
            a["step"].reshape(W, S), np.broadcast_to(a["step"][:S], (W, S))):
        raise ValueError("samples.npy: not every walker holds the same steps; not an ensemble's chain")
    return {k: a[k].reshape(W, S) for k in list(names) + ["logp"]}, walkers.astype(np.int64)


def _run_data(out_dir: str, observed: List[str]) -> Tuple[np.ndarray, Dict[str, np.ndarray], Dict[str, np.ndarray]]:
    """The run's experiments as its predictive.csv records them: their numbers (1-based), the
    conditions (the columns between `experiment` and the first observed output) and each observed
    output's data. The CSV's numbers are the shortest text that reads back as the same double."""
    path = os.path.join(out_dir, "predictive.csv")
    with open(path, encoding="utf-8") as f:
        header = f.readline().rstrip("\r\n").split(",")
    values = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2, dtype=np.float64)
    col = {name: i for i, name in enumerate(header)}
    first = col[observed[0]]
    cond = {name: values[:, col[name]] for name in header[1:first]}
    obs = {name: values[:, col[name]] for name in observed}
    return values[:, 0].astype(np.int64), cond, obs


def _thin(chains: int, steps: int, draws: int) -> Tuple[np.ndarray, np.ndarray]:
    """Indices of at most `draws` posterior draws on a grid: every chain with evenly spaced draws
    (from the first), or where there are more chains than draws, evenly spaced chains, one draw each."""
    if chains * steps <= draws:
        return np.arange(chains), np.arange(steps)
    per = draws // chains
    if per >= 1:
        return np.arange(chains), (np.arange(per) * steps) // per
    return (np.arange(draws) * chains) // draws, np.array([0])


def _replicate(model: "CalibrationModel", theta: np.ndarray, cond: Dict[str, np.ndarray], obs: Dict[str, np.ndarray],
               seed: int) -> Tuple[Dict[str, np.ndarray], Dict[str, np.ndarray]]:
    """Posterior predictive draws at theta (C, D, dim): per observed output the replicated data (model
    output + N(0, sigma^2) noise, sigma the experiment's or the draw's noise parameter) and the
    noise-free output, each (C, D, experiments). The model must hold the run's data (the same
    doubles), else ValueError."""
    d = model._m.data()
    same = (list(d["conditions"]) == list(cond) and list(d["observed"]) == list(obs) and
            np.array_equal(d["cond"], np.column_stack(list(cond.values())) if cond else d["cond"]) and
            np.array_equal(d["obs"], np.column_stack(list(obs.values()))))
    if not same:
        raise ValueError(f"to_inference_data: the data of {model.config['data']['file']} differ from the run's "
                         f"(predictive.csv): the data file changed since the run, so its posterior predictive cannot "
                         f"be computed (predictive_draws=0 leaves it out)")
    C, D, _ = theta.shape
    E, Y = d["obs"].shape  # experiments, observed outputs
    out = np.empty((C, D, E, Y))
    sigma = np.broadcast_to(d["sigma"], (C, D, E, Y)).copy()
    for j, name in enumerate(d["observed"]):
        if "sigma_" + name in model.names:  # a noise parameter: the draw's sd for every experiment
            sigma[..., j] = theta[..., model.names.index("sigma_" + name)][..., None]
    for c in range(C):
        for k in range(D):
            out[c, k] = model._m.predict(np.ascontiguousarray(theta[c, k]))[0]  # NaN where a row is not ok
    noise = np.random.default_rng(seed).standard_normal((C, D, E, Y))
    rep = out + sigma * noise
    names = list(d["observed"])
    return {n: rep[..., j] for j, n in enumerate(names)}, {n: out[..., j] for j, n in enumerate(names)}


def _frame(rows: List[Dict[str, Any]], names: List[str]) -> Any:
    try:
        import pandas as pd
    except ImportError:
        return dict(zip(names, rows))
    return pd.DataFrame(rows, index=pd.Index(names, name="param"))


def calibrate(config: Any, out: Optional[str] = None, *, backend: Optional[str] = None, plots: bool = False,
              quiet: bool = True, set: Optional[Dict[str, Any]] = None, force: bool = False,
              checkpoint: Optional[str] = None, resume: bool = False, checkpoint_every: Optional[float] = None,
              **overrides: Any) -> CalibrationResult:
    """Runs a calibration as `impact calibrate` does (docs/calibration.md) and returns its samples and
    summary, or for calibrate.method = "fit" its estimate (CalibrationResult).

    config: a .toml / .json file, or the config as a dict (its data.file then relative to the working
    folder); out: the output folder, as given (default: output.dir of the config); plots: draw
    corner.png and predictive.png (scripts/plot_calibration.py) as the CLI does; backend: overrides
    run.backend; overrides: config keys, dotted in `set` (set={"smc.particles": 4096}) or with "__" for
    the dot (smc__particles=4096); a setting of a table the method does not read raises ValueError.
    The run owns `out` as a study does: a folder of other files raises ValueError unless force=True.
    Ctrl-C stops it after the sampler's current step: no file of this run is written and the folder
    holds no metadata.json (no completed run).
    checkpoint: a folder where the sampler's state is kept (after a step of the ensemble or a stage
    of SMC, at most every `checkpoint_every` seconds, 60 unless given; 0: every one), as `impact
    calibrate --checkpoint` does; resume=True goes on from it, and the files written are the
    uninterrupted run's (docs/calibration.md, "Checkpoints"). resume and checkpoint_every without
    checkpoint raise ValueError.
    Config and data errors raise ValueError with their location (FILE:LINE:COL, or the data file's
    line and column)."""
    return CalibrationResult(_run(_core.calibrate, config, out, backend, plots, quiet, set, force, overrides,
                                  "smc.particles", checkpoint, resume, checkpoint_every))


def _run(run: Any, config: Any, out: Optional[str], backend: Optional[str], plots: bool, quiet: bool,
         set: Optional[Dict[str, Any]], force: bool, overrides: Dict[str, Any], example_key: str,
         checkpoint: Optional[str] = None, resume: bool = False,
         checkpoint_every: Optional[float] = None) -> Dict[str, Any]:
    """calibrate()'s and compare_laws()' request, its flags checked, run by `run` (_core's)."""
    plots, quiet = _flag("plots", plots), _flag("quiet", quiet)
    resume, force = _flag("resume", resume), _flag("force", force)
    if resume and checkpoint is None:
        raise ValueError("resume=True needs checkpoint=DIR")
    if checkpoint_every is not None and checkpoint is None:  # it would change nothing
        raise ValueError("checkpoint_every needs checkpoint=DIR")
    every = 60.0 if checkpoint_every is None else float(checkpoint_every)
    if not every >= 0:
        raise ValueError(f"checkpoint_every: expected seconds >= 0, got {checkpoint_every!r}")
    q = _request(_core.CalibrateRequest(), config, out, backend, set, {**overrides, "output__plots": plots},
                 example_key)
    if checkpoint is not None:
        if not str(checkpoint):
            raise ValueError("checkpoint: an empty folder name")
        q.checkpoint, q.resume, q.checkpoint_every = os.fspath(checkpoint), resume, every
    with _python_names(("--set: ", "")):
        return run(q, force, quiet)


class LawComparison:
    """The outputs of compare_laws() (docs/calibration.md, "Comparing laws"): `best` (the law of the
    largest log evidence), `table` (one row per law: log_evidence, se, log_bayes_factor_vs_best,
    log_bayes_factor_se, bayes_factor_vs_best, support_for_best (Kass & Raftery's words),
    map_log_posterior, and per observed output rms_OUTPUT and rms_OUTPUT_sigmas, the posterior
    predictive's rms residual; a pandas DataFrame, or a dict without pandas), `results` (per law its
    CalibrationResult: samples, summary, modes, log_evidence), `comparison` (comparison.json as a
    dict), `out_dir` and `files`."""

    def __init__(self, info: Dict[str, Any]):
        self.out_dir: str = info["out_dir"]
        self.best: str = info["best"]
        self.files: List[str] = list(info["files"])
        self.plot_note: str = info["plot_note"]
        self.results: Dict[str, CalibrationResult] = {law: CalibrationResult(r) for law, r in info["runs"].items()}
        with open(os.path.join(self.out_dir, "comparison.json")) as f:
            self.comparison: Dict[str, Any] = json.load(f)
        laws = list(self.comparison["laws"])
        rows = []
        for law in laws:
            c = self.comparison["laws"][law]
            row = {k: c[k] for k in ("log_evidence", "se", "log_bayes_factor_vs_best", "log_bayes_factor_se",
                                     "bayes_factor_vs_best", "support_for_best", "map_log_posterior")}
            for o in self.comparison["observed"]:
                row["rms_" + o] = c["predictive_rms"][o]
                row["rms_" + o + "_sigmas"] = c["predictive_rms_sigmas"][o]
            rows.append(row)
        self.table = _frame(rows, laws)
        if hasattr(self.table, "index"):
            self.table.index.name = "law"

    def __repr__(self) -> str:
        return f"<impactbatch.LawComparison of {', '.join(self.results)}: best {self.best}, in {self.out_dir}>"


def compare_laws(config: Any, laws: Sequence[str], out: Optional[str] = None, *, backend: Optional[str] = None,
                 plots: bool = False, quiet: bool = True, set: Optional[Dict[str, Any]] = None, force: bool = False,
                 checkpoint: Optional[str] = None, resume: bool = False, checkpoint_every: Optional[float] = None,
                 **overrides: Any) -> LawComparison:
    """Which law explains the data: runs the calibration of `config` by SMC once per law of `laws`
    (two or more), on the same data and priors, each into OUT/LAW/, and compares their evidence, as
    `impact calibrate CONFIG --laws a,b` does (OUT/comparison.md, comparison.json and, with plots,
    comparison.png). A law's parameter that a law does not read (stronge: eta0) is not sampled for
    it. Arguments as calibrate()'s; calibrate.method must be "smc" (the default). Returns a
    LawComparison."""
    if isinstance(laws, str) or len(list(laws)) < 2:
        raise ValueError("laws: expected a list of two laws or more")
    overrides = {**overrides, "calibrate__laws": [str(x) for x in laws]}
    return LawComparison(_run(_core.compare_laws, config, out, backend, plots, quiet, set, force, overrides,
                              "smc.particles", checkpoint, resume, checkpoint_every))


class CalibrationModel:
    """The statistical model of a calibration config (docs/calibration.md): its data read and its law
    set up once, evaluated on points theta of shape (n, dim) or (dim,), one column per free parameter
    in `names` order. log_likelihood, log_prior and log_posterior return an array of n log densities
    for (n, dim), and one NumPy float64 scalar for one point of shape (dim,) (-inf: a row the law
    refuses as outside its domain, and for log_prior and log_posterior a point outside the prior,
    which log_posterior does not evaluate; NaN: a row that failed numerically; log_likelihood
    evaluates every point, whatever its prior). Each call is one batch of n x experiments impacts on
    `backend`; calls from several threads on one model take turns.

    backend overrides run.backend (default: the config's; `auto` times a batch of mcmc.walkers / 2
    points drawn with mcmc.seed on omp, serial and cuda where usable, and keeps the fastest); the
    [output] table is not used.

    A model pickles (multiprocessing, copy.deepcopy) as its resolved config (`config`, data.file an
    absolute path), its backend (the one chosen, not `auto` again) and the sha256 of its data file's
    bytes; unpickling rebuilds it from them, and raises FileNotFoundError when the data file is gone,
    ValueError when its bytes changed. A process keeps the last 8 models it rebuilt and gives the
    same one back for the same pickle while the file's size and modification time stay, so that a
    pool's tasks, each unpickling its sampler's model, do not set it up each time."""

    def __init__(self, config: Any, *, backend: Optional[str] = None, set: Optional[Dict[str, Any]] = None,
                 **overrides: Any):
        with _python_names(("--set: ", "")):
            self._m = _core.CalibrationModel(_request(_core.CalibrateRequest(), config, None, backend, set, overrides,
                                                      "smc.particles"))
        self.names: List[str] = list(self._m.names)
        self.dim: int = len(self.names)
        self.backend: str = self._m.backend
        self.experiments: int = self._m.experiments
        self.config: Dict[str, Any] = json.loads(self._m.config_json)
        # the file a rebuilt model reads (pickling): absolute, whatever the working folder then
        self.config["data"]["file"] = os.path.abspath(self.config["data"]["file"])
        self._data_sha256: str = _sha256(self.config["data"]["file"])

    def __reduce__(self) -> Tuple[Any, Tuple[Dict[str, Any]]]:
        return _rebuild, ({"config": self.config, "backend": self.backend, "data_sha256": self._data_sha256},)

    @property
    def rows_evaluated(self) -> int:
        """Impacts evaluated so far (points x experiments)."""
        return self._m.rows_evaluated

    def log_prior(self, theta: Any) -> Density:
        """The config's log prior density at each point: the sum over the free parameters of their
        prior's log density (normalised: a uniform:a:b contributes -log(b - a) inside [a, b]), -inf
        outside the prior's support; no impact is evaluated. (n,) for (n, dim), a float64 for (dim,)."""
        theta = _real_array("theta", theta)
        return _one_or_many(theta, self._m.log_prior(theta))

    def log_likelihood(self, theta: Any) -> Density:
        """Gaussian log likelihood of the data at each point, whatever its prior: (n,) for (n, dim), a
        float64 for (dim,)."""
        theta = _real_array("theta", theta)
        return _one_or_many(theta, self._m.log_density(theta, False))

    def log_posterior(self, theta: Any) -> Density:
        """log prior + log likelihood, up to the evidence; a point outside the prior is -inf and is not
        evaluated. The density the built-in sampler draws from. (n,) for (n, dim), a float64 for
        (dim,)."""
        theta = _real_array("theta", theta)
        return _one_or_many(theta, self._m.log_density(theta, True))

    __call__ = log_posterior

    def start(self, walkers: int, seed: int = 1) -> np.ndarray:
        """(walkers, dim) points drawn from the prior, each with a finite log posterior: where
        calibrate() starts its walkers for the same mcmc.seed (ValueError when some walker finds no
        such point in 100 draws)."""
        return self._m.start(_integer("walkers", walkers, 1, 1 << 40), _integer("seed", seed, 0, (1 << 64) - 1))

    def predict(self, theta: Any):
        """The model's observed outputs at one point: a DataFrame (a dict of arrays without pandas) of
        the conditions, the observed outputs (NaN where a row is not ok), their data as `data_<name>`,
        their sd as `sigma_<name>` (a noise parameter's: the point's), and each experiment's `status`."""
        theta = _real_array("theta", theta)
        y, status = self._m.predict(theta)
        d = self._m.data()
        cols: Dict[str, Any] = {}
        for k, name in enumerate(d["conditions"]):
            cols[name] = d["cond"][:, k]
        point = np.asarray(theta, dtype=np.float64).reshape(-1)
        for k, name in enumerate(d["observed"]):
            cols[name] = y[:, k]
            cols["data_" + name] = d["obs"][:, k]
            sd = d["sigma"][:, k]
            if "sigma_" + name in self.names:  # a noise parameter: the point's sd for every experiment
                sd = np.full(len(sd), point[self.names.index("sigma_" + name)])
            cols["sigma_" + name] = sd
        try:
            import pandas as pd
        except ImportError:
            cols["status"] = status
            return cols
        from . import Status
        df = pd.DataFrame(cols)
        df["status"] = pd.Categorical.from_codes(status.astype(np.int64), categories=[s.name for s in Status])
        return df

    def __repr__(self) -> str:
        return (f"<impactbatch.CalibrationModel {self.config['calibrate']['law']} on {self.experiments} experiments: "
                f"{', '.join(self.names)} ({self.backend})>")


def _sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


# Models rebuilt by unpickling, most recent last: key (config, backend, sha256) -> (the data file's
# (size, mtime_ns, inode) when it was checked, the model). A sampler's pool unpickles its model with
# every task; keeping it makes that a lookup, not a set-up of the law and a read of the data.
_REBUILT: "collections.OrderedDict[Tuple[str, str, str], Tuple[Tuple[int, int, int], CalibrationModel]]" = \
    collections.OrderedDict()
_REBUILT_MAX = 8
_REBUILT_LOCK = threading.Lock()


def _rebuild(state: Dict[str, Any]) -> CalibrationModel:
    """A pickled CalibrationModel rebuilt from its resolved config and backend, once its data file is
    checked to hold the bytes it held when the model was built."""
    path = state["config"]["data"]["file"]
    key = (json.dumps(state["config"], sort_keys=True), state["backend"], state["data_sha256"])
    try:
        st = os.stat(path)
    except OSError as err:
        raise FileNotFoundError(f"CalibrationModel: cannot rebuild the pickled model: its data file {path} is not "
                                f"there ({err.strerror})") from None
    sig = (st.st_size, st.st_mtime_ns, st.st_ino)
    with _REBUILT_LOCK:
        hit = _REBUILT.get(key)
        if hit is not None and hit[0] == sig:
            _REBUILT.move_to_end(key)
            return hit[1]
    now = _sha256(path)
    if now != state["data_sha256"]:
        raise ValueError(f"CalibrationModel: cannot rebuild the pickled model: its data file {path} changed since "
                         f"the model was built (sha256 {state['data_sha256']}, now {now})")
    with _REBUILT_LOCK:
        hit = _REBUILT.get(key)
        if hit is not None:  # touched, the same bytes
            _REBUILT[key] = (sig, hit[1])
            _REBUILT.move_to_end(key)
            return hit[1]
    model = CalibrationModel(state["config"], backend=state["backend"])
    if model._data_sha256 != now:  # changed while the model read it
        raise ValueError(f"CalibrationModel: cannot rebuild the pickled model: its data file {path} changed while "
                         f"it was read")
    with _REBUILT_LOCK:
        _REBUILT[key] = (sig, model)
        _REBUILT.move_to_end(key)
        while len(_REBUILT) > _REBUILT_MAX:
            _REBUILT.popitem(last=False)
    return model


def _one_or_many(theta: Any, v: np.ndarray) -> Density:
    """The values of one point of shape (dim,) as a float64 scalar; of (n, dim) points as they are.
    theta was accepted by the model (its shape checked there)."""
    return v[0] if np.ndim(theta) == 1 else v


def _model(model: Any) -> CalibrationModel:
    if isinstance(model, CalibrationModel):
        return model
    raise TypeError(f"model: expected an impactbatch.CalibrationModel, got {type(model).__name__} (build it once: "
                    f"CalibrationModel(config))")


def _rejected(v: Density) -> Density:
    """NaN (a row that failed numerically) as -inf: the point is rejected, as the built-in sampler
    rejects it, instead of stopping a sampler that refuses NaN (emcee raises on it). A scalar stays a
    float64 scalar."""
    out = np.where(np.isnan(v), -np.inf, v)
    return out[()] if out.ndim == 0 else out


def log_likelihood(theta: Any, model: CalibrationModel) -> Density:
    """model.log_likelihood(theta) in the form samplers call: emcee.EnsembleSampler(nwalkers, model.dim,
    impactbatch.log_likelihood, args=(model,), vectorize=True) with a prior of the caller's own, or
    without vectorize=True one point at a time ((dim,) -> a float64). A point whose row failed
    numerically is -inf here (rejected), where the method says NaN."""
    return _rejected(_model(model).log_likelihood(theta))


def log_posterior(theta: Any, model: CalibrationModel) -> Density:
    """model.log_posterior(theta) (the config's priors included) in the form samplers call, as
    log_likelihood: a failed row's NaN is -inf. The model pickles, so that a sampler's process pool
    (emcee's pool=) can take it (CalibrationModel)."""
    return _rejected(_model(model).log_posterior(theta))
