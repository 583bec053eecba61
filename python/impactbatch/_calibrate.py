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

import json
import os
from typing import Any, Dict, List, Optional, Sequence

import numpy as np

from . import _core, _integer, _python_names, _request, _table


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
    `backend`, `out_dir`, `files`, and `table` (summary.md's table)."""

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
            self.modes = [dict(mass=m["mass"], **{n: m["params"][n] for n in self.names}) for m in self.metadata["modes"]]

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

    def __repr__(self) -> str:
        if self.method == "smc":
            state = f"log Z {self.log_evidence:.3f} +- {self.log_evidence_se:.3f}, {len(self.modes)} mode(s)"
        elif self.method == "fit":
            state = "fit" if self.converged else "fit, no Laplace approximation or one start only"
        else:
            state = "converged" if self.converged else "not converged"
        return f"<impactbatch.CalibrationResult {self.name}: {', '.join(self.names)} ({state}) in {self.out_dir}>"


def _frame(rows: List[Dict[str, Any]], names: List[str]) -> Any:
    try:
        import pandas as pd
    except ImportError:
        return dict(zip(names, rows))
    return pd.DataFrame(rows, index=pd.Index(names, name="param"))


def calibrate(config: Any, out: Optional[str] = None, *, backend: Optional[str] = None, plots: bool = False,
              quiet: bool = True, set: Optional[Dict[str, Any]] = None, force: bool = False,
              **overrides: Any) -> CalibrationResult:
    """Runs a calibration as `impact calibrate` does (docs/calibration.md) and returns its samples and
    summary, or for calibrate.method = "fit" its estimate (CalibrationResult).

    config: a .toml / .json file, or the config as a dict (its data.file then relative to the working
    folder); out: the output folder, as given (default: output.dir of the config); plots: draw
    corner.png and predictive.png (scripts/plot_calibration.py) as the CLI does; backend: overrides
    run.backend; overrides: config keys, dotted in `set` (set={"mcmc.steps": 4000}) or with "__" for
    the dot (mcmc__steps=4000). The run owns `out` as a study does: a folder of other files raises
    ValueError unless force=True. Ctrl-C stops it after the sampler's current step: no file of this
    run is written and the folder holds no metadata.json (no completed run).
    Config and data errors raise ValueError with their location (FILE:LINE:COL, or the data file's
    line and column)."""
    return CalibrationResult(_run(_core.calibrate, config, out, backend, plots, quiet, set, force, overrides,
                                  "mcmc.steps"))


def _run(run: Any, config: Any, out: Optional[str], backend: Optional[str], plots: bool, quiet: bool,
         set: Optional[Dict[str, Any]], force: bool, overrides: Dict[str, Any], example_key: str) -> Dict[str, Any]:
    """calibrate()'s and compare_laws()' request, its flags checked, run by `run` (_core's)."""
    if not isinstance(plots, bool):
        raise TypeError(f"plots: expected True or False, got {type(plots).__name__}")
    q = _request(_core.CalibrateRequest(), config, out, backend, set, {**overrides, "output__plots": plots},
                 example_key)
    if not isinstance(force, bool):
        raise TypeError(f"force: expected True or False, got {type(force).__name__}")
    with _python_names(("--set: ", "")):
        return run(q, force, bool(quiet))


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
                              "smc.particles"))


class CalibrationModel:
    """The statistical model of a calibration config (docs/calibration.md): its data read and its law
    set up once, evaluated on points theta of shape (n, dim) or (dim,), one column per free parameter
    in `names` order. log_likelihood, log_prior and log_posterior return an array of n log densities
    (-inf: a row the law refuses as outside its domain, and for log_prior and log_posterior a point
    outside the prior, which log_posterior does not evaluate; NaN: a row that failed numerically;
    log_likelihood evaluates every point, whatever its prior). Each call is one batch of
    n x experiments impacts on `backend`; calls from several threads on one model take turns.

    backend overrides run.backend (default: the config's; `auto` times a batch of mcmc.walkers / 2
    points drawn with mcmc.seed on omp, serial and cuda where usable, and keeps the fastest); the
    [output] table is not used."""

    def __init__(self, config: Any, *, backend: Optional[str] = None, set: Optional[Dict[str, Any]] = None,
                 **overrides: Any):
        with _python_names(("--set: ", "")):
            self._m = _core.CalibrationModel(_request(_core.CalibrateRequest(), config, None, backend, set, overrides,
                                                      "mcmc.steps"))
        self.names: List[str] = list(self._m.names)
        self.dim: int = len(self.names)
        self.backend: str = self._m.backend
        self.experiments: int = self._m.experiments
        self.config: Dict[str, Any] = json.loads(self._m.config_json)

    @property
    def rows_evaluated(self) -> int:
        """Impacts evaluated so far (points x experiments)."""
        return self._m.rows_evaluated

    def log_prior(self, theta: Any) -> np.ndarray:
        return self._m.log_prior(theta)

    def log_likelihood(self, theta: Any) -> np.ndarray:
        """Gaussian log likelihood of the data at each point, whatever its prior."""
        return self._m.log_density(theta, False)

    def log_posterior(self, theta: Any) -> np.ndarray:
        """log prior + log likelihood, up to the evidence; a point outside the prior is -inf and is not
        evaluated. The density the built-in sampler draws from."""
        return self._m.log_density(theta, True)

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


def _model(model: Any) -> CalibrationModel:
    if isinstance(model, CalibrationModel):
        return model
    raise TypeError(f"model: expected an impactbatch.CalibrationModel, got {type(model).__name__} (build it once: "
                    f"CalibrationModel(config))")


def _rejected(v: np.ndarray) -> np.ndarray:
    """NaN (a row that failed numerically) as -inf: the point is rejected, as the built-in sampler
    rejects it, instead of stopping a sampler that refuses NaN (emcee raises on it)."""
    return np.where(np.isnan(v), -np.inf, v)


def log_likelihood(theta: Any, model: CalibrationModel) -> np.ndarray:
    """model.log_likelihood(theta) in the form samplers call: emcee.EnsembleSampler(nwalkers, model.dim,
    impactbatch.log_likelihood, args=(model,), vectorize=True) with a prior of the caller's own. A point
    whose row failed numerically is -inf here (rejected), where the method says NaN."""
    return _rejected(_model(model).log_likelihood(theta))


def log_posterior(theta: Any, model: CalibrationModel) -> np.ndarray:
    """model.log_posterior(theta) (the config's priors included) in the form samplers call, as
    log_likelihood: a failed row's NaN is -inf."""
    return _rejected(_model(model).log_posterior(theta))
