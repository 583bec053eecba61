"""A CalibrationModel pickles (rebuilt from its resolved config, its backend and its data file, whose
bytes must not have changed), so that a sampler's process pool takes it; one point gives one
float64, n points n values."""
import multiprocessing
import os
import pickle
import shutil

import numpy as np
import pytest

import impactbatch as ib

SRC = os.environ.get("IMPACT_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
CONFIG = os.path.join(SRC, "examples", "calibration", "ball-synthetic.toml")
DATA = os.path.join(SRC, "examples", "calibration", "ball-synthetic.csv")
POINTS = np.array([[0.3, 0.6], [0.25, 0.55], [0.5, 0.9], [1.5, 0.6], [0.3, -0.1]])  # the last two outside the prior


@pytest.fixture(scope="module")
def model():
    return ib.CalibrationModel(CONFIG, backend="serial")


def test_round_trip_gives_the_same_densities(model):
    m = pickle.loads(pickle.dumps(model))
    assert m is not model and m.names == model.names and m.backend == "serial" and m.config == model.config
    for f in ("log_prior", "log_likelihood", "log_posterior"):
        assert np.array_equal(getattr(m, f)(POINTS), getattr(model, f)(POINTS)), f
        assert getattr(m, f)(POINTS[0]) == getattr(model, f)(POINTS[0]), f
    assert os.path.isabs(model.config["data"]["file"])
    assert pickle.loads(pickle.dumps(model)) is m  # the process's rebuilt model, not a second set-up


def test_a_dict_config_with_a_relative_data_file_pickles(tmp_path, monkeypatch):
    """data.file relative to the working folder at construction: the pickle holds it absolute, so
    that a process in another folder rebuilds the same model."""
    shutil.copy(DATA, tmp_path / "d.csv")
    monkeypatch.chdir(tmp_path)
    cfg = {"calibrate": {"name": "d", "scenario": "ball", "law": "chatterjee-ruina"},
           "data": {"file": "d.csv", "observed": ["Vx", "Vz"], "sigma": {"Vx": 0.02, "Vz": 0.02}, "ignore": ["shot"]},
           "params": {"V0z": -3.0, "mu": "uniform:0:1", "e": "uniform:0:1"}}
    m = ib.CalibrationModel(cfg, backend="serial")
    blob = pickle.dumps(m)
    monkeypatch.chdir(SRC)
    back = pickle.loads(blob)
    assert back.config["data"]["file"] == str(tmp_path / "d.csv")
    assert np.array_equal(back.log_posterior(POINTS), m.log_posterior(POINTS))


def test_a_changed_or_missing_data_file_is_an_error(tmp_path):
    for f in (CONFIG, DATA):
        shutil.copy(f, tmp_path)
    data = tmp_path / "ball-synthetic.csv"
    m = ib.CalibrationModel(str(tmp_path / "ball-synthetic.toml"), backend="serial")
    blob = pickle.dumps(m)
    pickle.loads(blob)  # rebuilt and kept: a change after that must still be seen
    text = data.read_text()
    data.write_text(text.replace("-5.41125", "-5.41126"))
    with pytest.raises(ValueError, match=r"ball-synthetic\.csv changed since the model was built"):
        pickle.loads(blob)
    data.write_text(text)  # the same bytes again (a new modification time): rebuilt
    assert np.array_equal(pickle.loads(blob).log_posterior(POINTS), m.log_posterior(POINTS))
    data.unlink()
    with pytest.raises(FileNotFoundError, match=r"ball-synthetic\.csv is not there"):
        pickle.loads(blob)


def test_one_point_gives_a_scalar(model):
    """(dim,) -> a float64 of shape (); (n, dim) -> (n,), also for n = 1; predict() as before."""
    p = POINTS[0]
    for f in (model.log_prior, model.log_likelihood, model.log_posterior, model,
              lambda x: ib.log_posterior(x, model), lambda x: ib.log_likelihood(x, model)):
        one, many = f(p), f(POINTS)
        assert isinstance(one, np.float64) and np.shape(one) == () and many.shape == (len(POINTS),)
        assert f(list(p)) == one and f(p[None, :]).shape == (1,) and f(p[None, :])[0] == one == many[0]
    assert model.log_posterior(POINTS[3]) == -np.inf and isinstance(ib.log_posterior(POINTS[3], model), np.float64)
    from impactbatch._calibrate import _rejected
    assert _rejected(np.float64(np.nan)) == -np.inf and isinstance(_rejected(np.float64(np.nan)), np.float64)
    df = model.predict(p)
    assert len(df) == 24 and (df["status"] == "ok").all()
    with pytest.raises(ValueError, match=r"theta: expected points of shape \(n, 2\)"):
        model.log_posterior(np.zeros(3))


def run_emcee(model, pool, steps=12, walkers=8):
    emcee = pytest.importorskip("emcee")
    s = emcee.EnsembleSampler(walkers, model.dim, ib.log_posterior, args=(model,), pool=pool)
    s.random_state = np.random.RandomState(7).get_state()
    s.run_mcmc(model.start(walkers, seed=3), steps)
    return s


def test_emcee_pool_matches_the_serial_chain(model):
    """emcee one point at a time (not vectorised) through a pool of two fresh processes (spawn: each
    rebuilds the model from its pickle) draws the serial chain bit for bit."""
    serial = run_emcee(model, None)
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        pooled = run_emcee(model, pool)
    assert np.array_equal(pooled.get_chain(), serial.get_chain())
    assert np.array_equal(pooled.get_log_prob(), serial.get_log_prob())
    assert np.all(np.isfinite(serial.get_log_prob())) and serial.get_blobs() is None


def test_arviz_from_emcee_selects(model, monkeypatch):
    """az.from_emcee of a sampler on the model, then a selection (which copies the sampler's data)."""
    deps = os.path.join(SRC, ".deps", "python")
    if os.path.isfile(os.path.join(deps, "arviz", "__init__.py")):
        monkeypatch.syspath_prepend(deps)
    az = pytest.importorskip("arviz", reason="ArviZ is not installed and not in .deps/python (scripts/bootstrap.sh "
                                             "installs arviz 0.17.1 from PyPI; without a network it cannot)")
    s = run_emcee(model, None)
    idata = az.from_emcee(s, var_names=model.names)
    later = idata.sel(draw=slice(1, None))
    assert dict(later.posterior.sizes) == {"chain": 8, "draw": 11}
    assert np.array_equal(later.posterior["mu"].values, s.get_chain()[1:, :, 0].T)
