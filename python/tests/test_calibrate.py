"""impactbatch.calibrate and CalibrationModel (docs/calibration.md): the CLI's run and bits, the
model's log densities against the Gaussian likelihood computed here from its own predictions, the
errors, and emcee on the same model finding the built-in sampler's posterior."""
import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest

import impactbatch as ib

SRC = os.environ.get("IMPACT_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
IMPACT = os.environ.get("IMPACT_BINARY", "impact")
CONFIG = os.path.join(SRC, "examples", "calibration", "ball-synthetic.toml")
DATA = os.path.join(SRC, "examples", "calibration", "ball-synthetic.csv")
SHORT = {"calibrate.method": "ensemble", "mcmc.steps": 300, "mcmc.walkers": 16, "mcmc.seed": 5}


def test_calibrate_equals_the_cli(tmp_path):
    """The same config, overrides and backend give the CLI's samples.npy byte for byte; the result's
    tables read those files."""
    cli, py = tmp_path / "cli", tmp_path / "py"
    subprocess.run([IMPACT, "calibrate", CONFIG, "--backend", "serial", "--out", str(cli), "-q"] +
                   [x for k, v in SHORT.items() for x in ("--set", f"{k}={v}")], check=True)
    r = ib.calibrate(CONFIG, out=str(py), backend="serial", set=SHORT)
    assert (cli / "samples.npy").read_bytes() == (py / "samples.npy").read_bytes()
    assert r.names == ["mu", "e"] and r.backend == "serial" and r.out_dir == str(py)
    assert len(r.samples) == 16 * (300 - 75) and list(r.samples.columns) == ["step", "walker", "mu", "e", "logp"]
    meta = json.loads((cli / "metadata.json").read_text())
    for name in ("mu", "e"):
        assert r.summary.loc[name, "mean"] == meta["posterior"][name]["mean"]
        assert r.summary.loc[name, "q50"] == meta["posterior"][name]["quantiles"]["0.5"]
        assert r.summary.loc[name, "mean"] == pytest.approx(np.mean(r.samples[name]), rel=1e-12)
    assert r.acceptance == meta["acceptance_fraction"] and r.converged == all(
        meta["posterior"][n]["converged"] for n in ("mu", "e"))
    assert "mu" in r.table and "<impactbatch.CalibrationResult ball-synthetic" in repr(r)
    assert r.stranded == meta["stranded_walkers"]


def test_calibrate_from_a_dict(tmp_path):
    """A dict config (data.file then relative to the working folder) gives the file config's bits;
    overrides as keyword arguments with __ for the dot."""
    cfg = {"calibrate": {"name": "d", "scenario": "ball", "law": "chatterjee-ruina"},
           "data": {"file": DATA, "observed": ["Vx", "Vz"], "sigma": {"Vx": 0.02, "Vz": 0.02}, "ignore": ["shot"]},
           "params": {"V0z": -3.0, "mu": "uniform:0:1", "e": "uniform:0:1"},
           "mcmc": {"walkers": 16, "steps": 300, "seed": 5}}
    cfg["calibrate"]["method"] = "ensemble"
    a = ib.calibrate(cfg, out=str(tmp_path / "a"), backend="serial")
    ib.calibrate(CONFIG, out=str(tmp_path / "b"), backend="serial", calibrate__method="ensemble", mcmc__steps=300,
                 mcmc__walkers=16, mcmc__seed=5)
    assert (tmp_path / "a" / "samples.npy").read_bytes() == (tmp_path / "b" / "samples.npy").read_bytes()
    assert a.name == "d"


def test_fit_returns_the_estimate_the_cli_writes(tmp_path):
    """calibrate.method = "fit": the estimate, sds and starts of the CLI's files (same bytes), the
    covariance symmetric with the sds on its diagonal, no samples; the Laplace sd near the sampler's;
    with the global stage, one start from the design's one basin, at the same estimate."""
    cli, py = tmp_path / "cli", tmp_path / "py"
    subprocess.run([IMPACT, "calibrate", CONFIG, "--backend", "serial", "--out", str(cli), "-q", "--no-plots",
                    "--set", 'calibrate.method="fit"', "--set", "fit.starts=4", "--set", "fit.global=0"], check=True)
    r = ib.calibrate(CONFIG, out=str(py), backend="serial", calibrate__method="fit", fit__starts=4, fit__global=0)
    assert (cli / "estimate.csv").read_bytes() == (py / "estimate.csv").read_bytes()
    assert (cli / "starts.csv").read_bytes() == (py / "starts.csv").read_bytes()
    assert r.method == "fit" and r.samples is None and r.converged
    assert set(r.estimate) == {"mu", "e"} and r.estimate["mu"] == pytest.approx(0.3, abs=0.006)
    assert r.estimate["e"] == pytest.approx(0.6, abs=0.006)
    assert r.covariance.shape == (2, 2) and r.covariance[0, 1] == r.covariance[1, 0]
    assert np.sqrt(np.diag(r.covariance)) == pytest.approx(r.summary["sd"].to_numpy(), rel=1e-12)
    assert list(r.summary.columns) == ["estimate", "sd", "q05", "q95"] and len(r.starts) == 4
    assert r.summary.loc["mu", "sd"] == pytest.approx(0.0015, rel=0.15)  # the sampler's sd: 0.00150
    assert "fit" in repr(r) and "estimate.csv" in r.files
    # the global stage (fit.global "auto"): one basin in this exact model, one start, the same estimate
    g = ib.calibrate(CONFIG, out=str(tmp_path / "g"), backend="serial", calibrate__method="fit")
    assert len(g.starts) == 1 and g.estimate["mu"] == pytest.approx(r.estimate["mu"], abs=1e-5)


def test_calibrate_errors(tmp_path):
    with pytest.raises(ValueError, match=r"mcmc\.stepz"):
        ib.calibrate(CONFIG, out=str(tmp_path / "x"), set={"mcmc.stepz": 10})
    with pytest.raises(ValueError, match="nosuch.csv"):
        ib.calibrate(CONFIG, out=str(tmp_path / "x"), set={"data.file": str(tmp_path / "nosuch.csv")})
    with pytest.raises(TypeError, match="config: expected a file name or a dict"):
        ib.calibrate(3)
    with pytest.raises(ValueError, match="backend"):
        ib.calibrate(CONFIG, out=str(tmp_path / "x"), backend="gpu")
    # the config's method is smc: the ensemble's settings would change nothing in this run
    with pytest.raises(ValueError, match=r"mcmc\.steps: calibrate\.method is smc, which reads \[smc\], not \[mcmc\]"):
        ib.calibrate(CONFIG, out=str(tmp_path / "x"), mcmc__steps=300)
    assert not (tmp_path / "x").exists()  # nothing was written by a run that did not start


@pytest.fixture(scope="module")
def model():
    return ib.CalibrationModel(CONFIG, backend="serial")


def test_model_likelihood_is_the_gaussian_of_its_predictions(model):
    """log_likelihood equals sum -z^2/2 - log sigma - log sqrt(2 pi) over the data, computed here from
    predict(); log_posterior adds the uniform priors' log density (0 on [0, 1]^2)."""
    assert model.names == ["mu", "e"] and model.dim == 2 and model.experiments == 24
    theta = np.array([[0.3, 0.6], [0.25, 0.55], [0.5, 0.9]])
    ll = model.log_likelihood(theta)
    for p, want in zip(theta, ll):
        df = model.predict(p)
        assert len(df) == 24 and (df["status"] == "ok").all()
        total = 0.0
        for out in ("Vx", "Vz"):
            z = (df["data_" + out] - df[out]) / df["sigma_" + out]
            total += float(np.sum(-0.5 * z * z - np.log(df["sigma_" + out]) - 0.5 * math.log(2 * math.pi)))
        assert want == pytest.approx(total, rel=1e-12, abs=1e-9)
    assert np.array_equal(model.log_posterior(theta), ll + model.log_prior(theta))
    assert np.all(model.log_prior(theta) == 0.0)
    assert ll[0] > ll[1] and ll[0] > ll[2]  # the data were simulated at mu = 0.3, e = 0.6


def test_model_vectorised_equals_pointwise_and_prior_support(model):
    pts = np.array([[0.3, 0.6], [1.5, 0.6], [0.2, 0.7], [0.3, -0.1]])
    post = model.log_posterior(pts)
    assert post[1] == -np.inf and post[3] == -np.inf  # outside uniform:0:1: not evaluated
    one = np.array([model.log_posterior(p) for p in pts])  # one point: one float64
    assert np.array_equal(post, one)
    like = model.log_likelihood(pts)
    assert np.isfinite(like[1])  # mu = 1.5 is a valid friction: the likelihood has a value there
    assert np.array_equal(model(pts), post)
    with pytest.raises(ValueError, match=r"theta: expected points of shape \(n, 2\)"):
        model.log_likelihood(np.zeros((3, 3)))
    with pytest.raises(TypeError, match="CalibrationModel"):
        ib.log_likelihood(pts, CONFIG)
    # points are real numbers: a complex one's imaginary part is not dropped, nor a string parsed
    for bad, kind in ((np.array([0.3 + 5j, 0.6]), "complex128"), (["0.3", "0.6"], "<U3")):
        for f in (model.log_prior, model.log_likelihood, model.log_posterior, model.predict):
            with pytest.raises(TypeError, match="theta: expected real numbers, got an array of dtype " + kind):
                f(bad)


def test_model_start_is_the_samplers(tmp_path, model):
    """start(walkers, seed) is where calibrate() starts: the chain's first step moves from it."""
    p0 = model.start(16, 5)
    assert p0.shape == (16, 2) and np.all((p0 >= 0) & (p0 <= 1))
    assert np.array_equal(p0, model.start(16, 5)) and not np.array_equal(p0, model.start(16, 6))
    assert np.all(np.isfinite(model.log_posterior(p0)))
    # walkers beyond memory: said, naming the argument, before any is drawn (not a bare MemoryError)
    with pytest.raises(ValueError, match=r"walkers: 1000000000000 points need .* fewer walkers"):
        model.start(10**12)
    # a model runs no method: any method's table may be set on it (a run refuses what its method does not read)
    m = ib.CalibrationModel(CONFIG, backend="serial", mcmc__walkers=16, fit__starts=2)
    assert m.names == model.names and np.array_equal(m.log_posterior(p0), model.log_posterior(p0))


def test_emcee_finds_the_same_posterior(tmp_path):
    """The example: emcee with vectorize=True on ib.log_posterior and the built-in sampler agree on
    every parameter's mean and sd within 4 Monte Carlo errors."""
    pytest.importorskip("emcee")
    out = tmp_path / "cmp.json"
    p = subprocess.run([sys.executable, os.path.join(SRC, "examples", "calibration", "emcee_compare.py"),
                        "--backend", "serial", "--walkers", "32", "--steps", "1500", "--json", str(out)],
                       capture_output=True, text=True, env=dict(os.environ))
    assert p.returncode == 0, p.stdout + p.stderr
    d = json.loads(out.read_text())
    assert d["ok"] and d["worst_z"] <= 4
    for row in d["params"]:
        assert abs(row["ours_mean"] - {"mu": 0.3, "e": 0.6}[row["param"]]) < 0.02  # near the truth
    assert "same posterior" in p.stdout


def test_sampler_forms_reject_failed_rows_and_noise_sd_is_the_points():
    """ib.log_posterior maps a numerically failed row's NaN to -inf (emcee raises on NaN); predict()
    gives a noise parameter's sd as the point's."""
    m = ib.CalibrationModel(CONFIG, backend="serial",
                            set={"data.sigma": {"Vx": "lognormal:-4:1", "Vz": 0.02}})
    assert m.names == ["mu", "e", "sigma_Vx"]
    p = np.array([0.3, 0.6, 0.03])
    df = m.predict(p)
    assert np.all(df["sigma_Vx"] == 0.03) and np.all(df["sigma_Vz"] == 0.02)
    v = np.array([1.0, np.nan, -np.inf])
    from impactbatch._calibrate import _rejected
    assert np.array_equal(_rejected(v), np.array([1.0, -np.inf, -np.inf]))
    assert np.array_equal(ib.log_posterior(p[None, :], m), m.log_posterior(p[None, :]))
