"""Checkpoints from Python (calibrate(checkpoint=DIR, resume=True)), and the ensemble's
rank-normalised R-hat and bulk and tail ESS in every ensemble run's outputs (checked here without
ArviZ; python/tests/test_arviz.py holds them to ArviZ's where it is installed)."""
import math
import os
import signal
import subprocess
import time

import pytest

import impactbatch as ib

SRC = os.environ.get("IMPACT_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
IMPACT = os.environ.get("IMPACT_BINARY", "impact")
CFG = os.path.join(SRC, "examples", "calibration", "ball-synthetic.toml")
ENS = {"calibrate__method": "ensemble", "mcmc__steps": 3000}


def test_a_killed_run_goes_on_from_python(tmp_path):
    full = ib.calibrate(CFG, out=str(tmp_path / "full"), backend="omp", **ENS)
    ck = tmp_path / "ck"
    p = subprocess.Popen([IMPACT, "calibrate", CFG, "--out", str(tmp_path / "run"), "--backend", "omp", "-q",
                          "--no-plots", "--set", 'calibrate.method="ensemble"', "--set", "mcmc.steps=3000",
                          "--checkpoint", str(ck), "--checkpoint-every", "0"])
    for _ in range(2000):
        if (ck / "checkpoint.bin").exists() and (ck / "checkpoint.bin").stat().st_size > 4096:
            break
        time.sleep(0.01)
    p.send_signal(signal.SIGKILL)
    p.wait()
    assert (ck / "checkpoint.bin").exists() and not (tmp_path / "run" / "metadata.json").exists()
    res = ib.calibrate(CFG, out=str(tmp_path / "run"), backend="omp", checkpoint=str(ck), resume=True, **ENS)
    for f in ("samples.npy", "samples.csv", "predictive.csv", "summary.md"):
        assert (tmp_path / "run" / f).read_bytes() == (tmp_path / "full" / f).read_bytes(), f
    assert res.summary.equals(full.summary)
    assert not (ck / "checkpoint.bin").exists()  # a finished run removes its checkpoint


def test_checkpoint_arguments_are_checked(tmp_path):
    with pytest.raises(ValueError, match="resume=True needs checkpoint=DIR"):
        ib.calibrate(CFG, out=str(tmp_path / "a"), resume=True)
    with pytest.raises(ValueError, match="checkpoint_every"):
        ib.calibrate(CFG, out=str(tmp_path / "a"), checkpoint=str(tmp_path / "ck"), checkpoint_every=-1)
    with pytest.raises(ValueError, match="checkpoint_every needs checkpoint=DIR"):  # it would change nothing
        ib.calibrate(CFG, out=str(tmp_path / "a"), checkpoint_every=5)
    for flag in ("resume", "quiet", "plots", "force"):  # bool("no") is True: only True or False is taken
        with pytest.raises(TypeError, match=flag + ": expected True or False, got str 'no'"):
            ib.calibrate(CFG, out=str(tmp_path / "a"), **{flag: "no"})
    assert not (tmp_path / "a").exists()
    with pytest.raises(ValueError, match="holds no checkpoint"):
        ib.calibrate(CFG, out=str(tmp_path / "a"), checkpoint=str(tmp_path / "ck"), resume=True, **ENS)


def test_the_ensemble_reports_rank_normalised_rhat_and_ess(tmp_path):
    r = ib.calibrate(CFG, out=str(tmp_path / "e"), backend="omp", **ENS)
    draws = len(r.samples)
    for name in r.names:
        p = r.metadata["posterior"][name]
        assert 0.99 < p["r_hat"] < 1.05, p
        assert 0 < p["ess_bulk"] <= draws * math.log10(draws) and 0 < p["ess_tail"] <= draws * math.log10(draws), p
        for k in ("r_hat", "ess_bulk", "ess_tail"):
            assert r.summary.loc[name, k] == p[k]
    md = (tmp_path / "e" / "summary.md").read_text()
    assert "| R-hat | ESS bulk | ESS tail |" in md
