"""CalibrationResult.to_inference_data: the run's samples as ArviZ's InferenceData (the ensemble's
walkers as chains, SMC's particles as one chain), its data, and a posterior predictive computed from
the run's model; the ensemble's rank-normalised diagnostics against ArviZ's; the package's version
and type marker."""
import os
import re
import shutil
import sys

import numpy as np
import pytest

import impactbatch as ib

SRC = os.environ.get("IMPACT_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
CONFIG = os.path.join(SRC, "examples", "calibration", "ball-synthetic.toml")
DATA = os.path.join(SRC, "examples", "calibration", "ball-synthetic.csv")
SHORT = {"calibrate.method": "ensemble", "mcmc.steps": 300, "mcmc.walkers": 16, "mcmc.seed": 5}
WALKERS, DRAWS = 16, 300 - 75  # the burn-in: a quarter of the steps


@pytest.fixture
def az(monkeypatch):
    """ArviZ, from .deps/python when scripts/bootstrap.sh put it there (for this test's path only: the
    other tests look for their own modules), else skipped saying why."""
    deps = os.path.join(SRC, ".deps", "python")
    if os.path.isfile(os.path.join(deps, "arviz", "__init__.py")):
        monkeypatch.syspath_prepend(deps)
    return pytest.importorskip("arviz", reason="ArviZ is not installed and not in .deps/python (scripts/bootstrap.sh "
                                               "installs arviz 0.17.1 from PyPI; without a network it cannot)")


@pytest.fixture(scope="module")
def ensemble(tmp_path_factory):
    return ib.calibrate(CONFIG, out=str(tmp_path_factory.mktemp("ens")), backend="serial", set=SHORT)


@pytest.fixture(scope="module")
def smc(tmp_path_factory):
    return ib.calibrate(CONFIG, out=str(tmp_path_factory.mktemp("smc")), backend="serial",
                        set={"calibrate.method": "smc", "smc.particles": 256, "smc.runs": 4})


def data_columns():
    return np.genfromtxt(DATA, delimiter=",", names=True)


def test_version_is_pyprojects_and_the_package_is_typed():
    """impactbatch.__version__ is pyproject.toml's [project] version; py.typed ships beside the
    package's files (PEP 561: type checkers then read its annotations)."""
    with open(os.path.join(SRC, "pyproject.toml"), encoding="utf-8") as f:
        text = f.read()
    m = re.search(r'^version\s*=\s*"([^"]+)"', text, re.M)  # the one bare `version` key: [project]'s
    assert m and ib.__version__ == m.group(1)
    assert os.path.isfile(os.path.join(os.path.dirname(ib.__file__), "py.typed"))


def test_ensemble_walkers_are_chains(az, ensemble):
    """chain = walker, draw = step - burn; every value is samples.npy's; the posterior mean is the
    summary's; az.summary reads it."""
    idata = ensemble.to_inference_data(predictive_draws=0)
    assert "posterior_predictive" not in idata.groups()
    post = idata.posterior
    assert dict(post.sizes) == {"chain": WALKERS, "draw": DRAWS}
    assert list(post.chain.values) == list(range(WALKERS)) and list(post.draw.values) == list(range(DRAWS))
    s = ensemble.samples
    for _, row in s.sample(20, random_state=1).iterrows():
        c, d = int(row["walker"]), int(row["step"]) - 75
        assert post["mu"].values[c, d] == row["mu"] and post["e"].values[c, d] == row["e"]
        assert idata.sample_stats["lp"].values[c, d] == row["logp"]
    for name in ("mu", "e"):
        assert float(post[name].mean()) == pytest.approx(ensemble.summary.loc[name, "mean"], rel=1e-12)
    summ = az.summary(idata, round_to="none")
    assert list(summ.index) == ["mu", "e"] and np.all(np.isfinite(summ[["ess_bulk", "ess_tail", "r_hat"]]))
    assert summ.loc["mu", "mean"] == pytest.approx(ensemble.summary.loc["mu", "mean"], rel=1e-12)
    assert idata.attrs["method"] == "ensemble" and idata.attrs["law"] == "chatterjee-ruina"
    assert post.attrs["inference_library"] == "impactbatch"
    assert post.attrs["inference_library_version"] == ib.__version__


def test_observed_and_constant_data_are_the_data_file(az, ensemble):
    idata = ensemble.to_inference_data(predictive_draws=0)
    d = data_columns()
    assert list(idata.observed_data.data_vars) == ["Vx", "Vz"]
    assert list(idata.constant_data.data_vars) == ["V0x", "w0y"]
    assert list(idata.observed_data.experiment.values) == list(range(1, 25))
    for name in ("Vx", "Vz"):
        assert np.array_equal(idata.observed_data[name].values, d[name])
    for name in ("V0x", "w0y"):
        assert np.array_equal(idata.constant_data[name].values, d[name])


def test_posterior_predictive_is_the_models_output_plus_noise(az, ensemble):
    """At most predictive_draws draws on a grid of the posterior's own coordinates; OUTPUT_model is
    predict() at the draw, OUTPUT that plus N(0, 0.02^2) noise from the seed."""
    idata = ensemble.to_inference_data(predictive_draws=200, seed=3)
    pp = idata.posterior_predictive
    assert dict(pp.sizes) == {"chain": WALKERS, "draw": 200 // WALKERS, "experiment": 24}
    assert set(pp.draw.values) <= set(idata.posterior.draw.values)
    model = ib.CalibrationModel(CONFIG, backend="serial")
    for c, d in ((0, 0), (5, int(pp.draw.values[7])), (15, int(pp.draw.values[-1]))):
        theta = idata.posterior.sel(chain=c, draw=d)
        df = model.predict([float(theta["mu"]), float(theta["e"])])
        for name in ("Vx", "Vz"):
            assert np.array_equal(pp[name + "_model"].sel(chain=c, draw=d).values, df[name].to_numpy())
    z = np.concatenate([((pp[n] - pp[n + "_model"]) / 0.02).values.ravel() for n in ("Vx", "Vz")])
    assert abs(z.mean()) < 0.05 and abs(z.std() - 1) < 0.05  # 4608 standard normals
    again = ensemble.to_inference_data(predictive_draws=200, seed=3).posterior_predictive
    other = ensemble.to_inference_data(predictive_draws=200, seed=4).posterior_predictive
    assert np.array_equal(again["Vx"].values, pp["Vx"].values)
    assert not np.array_equal(other["Vx"].values, pp["Vx"].values)
    assert np.array_equal(other["Vx_model"].values, pp["Vx_model"].values)
    few = ensemble.to_inference_data(predictive_draws=5).posterior_predictive  # fewer draws than chains
    assert dict(few.sizes) == {"chain": 5, "draw": 1, "experiment": 24}
    assert list(few.chain.values) == [0, 3, 6, 9, 12]


def test_a_noise_parameters_draw_is_the_replicates_sigma(az, tmp_path):
    r = ib.calibrate(CONFIG, out=str(tmp_path / "noise"), backend="serial",
                     set={**SHORT, "mcmc.steps": 200, "data.sigma": {"Vx": "lognormal:-4:1", "Vz": 0.02}})
    idata = r.to_inference_data(predictive_draws=64, seed=2)
    pp = idata.posterior_predictive
    assert r.names == ["mu", "e", "sigma_Vx"] and dict(pp.sizes) == {"chain": 16, "draw": 4, "experiment": 24}
    sd = idata.posterior["sigma_Vx"].sel(chain=pp.chain, draw=pp.draw)
    z = ((pp["Vx"] - pp["Vx_model"]) / sd).values.ravel()  # 1536 standard normals
    assert abs(z.mean()) < 0.1 and abs(z.std() - 1) < 0.08


def test_smc_is_one_chain(az, smc, tmp_path):
    idata = smc.to_inference_data(predictive_draws=50)
    n = len(smc.samples)
    assert dict(idata.posterior.sizes) == {"chain": 1, "draw": n}
    for name in ("mu", "e"):
        assert np.array_equal(idata.posterior[name].values[0], smc.samples[name].to_numpy())
        assert float(idata.posterior[name].mean()) == pytest.approx(smc.summary.loc[name, "mean"], rel=1e-12)
    for name, col in (("lp", "logp"), ("run", "run"), ("mode", "mode")):
        assert np.array_equal(idata.sample_stats[name].values[0], smc.samples[col].to_numpy())
    assert dict(idata.posterior_predictive.sizes) == {"chain": 1, "draw": 50, "experiment": 24}
    assert idata.attrs["method"] == "smc" and idata.attrs["log_evidence"] == smc.log_evidence
    assert idata.attrs["log_evidence_se"] == smc.log_evidence_se
    az.summary(idata)
    path = str(tmp_path / "smc.nc")  # every group and attribute is one netCDF takes
    idata.to_netcdf(path)
    back = az.from_netcdf(path)
    assert np.array_equal(back.posterior_predictive["Vz"].values, idata.posterior_predictive["Vz"].values)
    assert back.attrs["log_evidence"] == smc.log_evidence


def test_fit_has_no_posterior_samples(tmp_path):
    r = ib.calibrate(CONFIG, out=str(tmp_path / "fit"), backend="serial", calibrate__method="fit", fit__starts=2,
                     fit__global=0)
    with pytest.raises(ValueError, match="fit .* has no posterior samples"):
        r.to_inference_data()


def test_without_arviz_the_error_says_how_to_install(monkeypatch, ensemble):
    monkeypatch.setitem(sys.modules, "arviz", None)  # import arviz then raises ImportError
    with pytest.raises(ImportError, match="pip install arviz"):
        ensemble.to_inference_data()


def test_a_changed_data_file_refuses_the_predictive(az, tmp_path):
    """The predictive needs the run's data: a data file changed since the run is an error naming it;
    without the predictive the run's own record of its data serves."""
    for f in (CONFIG, DATA):
        shutil.copy(f, tmp_path)
    cfg = str(tmp_path / "ball-synthetic.toml")
    r = ib.calibrate(cfg, out=str(tmp_path / "run"), backend="serial", set=SHORT)
    data = tmp_path / "ball-synthetic.csv"
    data.write_text(data.read_text().replace("-5.41125", "-5.41126"))
    with pytest.raises(ValueError, match="ball-synthetic.csv differ from the run's"):
        r.to_inference_data()
    idata = r.to_inference_data(predictive_draws=0)
    assert idata.observed_data["Vx"].values[0] == -5.41125


def test_rank_normalised_diagnostics_are_arviz(az, ensemble):
    """The ensemble's r_hat, ess_bulk and ess_tail (metadata.json, summary) are ArviZ's on the same
    draws (walkers as chains): r_hat to 1e-9; the ESS to 1e-6, ArviZ's autocovariance being an FFT's."""
    if "r_hat" not in ensemble.metadata["posterior"]["mu"]:
        pytest.skip("this build's metadata.json has no r_hat, ess_bulk, ess_tail")
    summ = az.summary(ensemble.to_inference_data(predictive_draws=0), round_to="none")
    for name in ("mu", "e"):
        assert ensemble.summary.loc[name, "r_hat"] == pytest.approx(summ.loc[name, "r_hat"], rel=1e-9)
        for k in ("ess_bulk", "ess_tail"):
            assert ensemble.summary.loc[name, k] == pytest.approx(summ.loc[name, k], rel=1e-6)
