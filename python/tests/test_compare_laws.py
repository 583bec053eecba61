"""Which law explains the data (impactbatch.compare_laws, `impact calibrate --laws`,
docs/calibration.md "Comparing laws"): on an oblique series made by jia the evidence prefers jia
over rigid stronge by far more than 5 nats; on one made by stronge, jia's extra parameter does not
buy it the comparison (ln BF(jia : stronge) < 2); the comparison's files, the laws' own runs in
OUT/LAW/, a law's unread parameter not sampled, and the folder rule."""
import json
import os

import numpy as np
import pytest

import impactbatch as ib

SRC = os.environ.get("IMPACT_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
OBLIQUE = os.path.join(SRC, "examples", "calibration", "ball-oblique-misspecified.toml")
ANGLES = [1.5, 2.5, 4, 6, 8, 10, 13, 16, 20, 25, 30, 35, 40, 45, 50, 60]
SPEED = 3.9


def series(tmp_path, law, theta, seed):
    """The oblique series of `law` at theta (its free parameters in the config's order), with
    Gaussian noise of sd 0.02 V0 sin(angle) on Vx."""
    vin = SPEED * np.sin(np.radians(ANGLES))
    sigma = 0.02 * vin
    conditions = tmp_path / f"{law}-conditions.csv"
    conditions.write_text("angle,Vx,sigma_Vx\n" + "".join(f"{a},0,1\n" for a in ANGLES))
    m = ib.CalibrationModel(OBLIQUE, set={"data.file": str(conditions), "run.backend": "serial",
                                          "calibrate.law": law})
    vx = np.asarray(m.predict(theta)["Vx"], dtype=np.float64) + np.random.default_rng(seed).normal(0.0, sigma)
    path = tmp_path / f"{law}.csv"
    path.write_text("angle,Vx,sigma_Vx\n" + "".join(f"{a},{v:.6f},{s:.6f}\n" for a, v, s in zip(ANGLES, vx, sigma)))
    return str(path)


def compare(tmp_path, data, name):
    return ib.compare_laws(OBLIQUE, ["jia", "stronge"], out=str(tmp_path / name), backend="omp",
                           set={"data.file": data, "smc.particles": 512})


def test_data_from_jia_prefer_jia_by_more_than_5_nats(tmp_path):
    k = compare(tmp_path, series(tmp_path, "jia", [0.1, 1.1], 7), "from-jia")
    assert k.best == "jia"
    c = k.comparison["laws"]
    ln_bf = c["jia"]["log_evidence"] - c["stronge"]["log_evidence"]
    assert ln_bf - 3 * c["stronge"]["log_bayes_factor_se"] > 5, c
    assert c["stronge"]["support_for_best"] == "very strong"
    assert c["stronge"]["log_bayes_factor_vs_best"] == pytest.approx(-ln_bf, rel=1e-12)
    assert c["stronge"]["bayes_factor_vs_best"] == pytest.approx(np.exp(-ln_bf), rel=1e-12)
    # the law that made the data explains them to their noise; the other does not
    assert c["jia"]["predictive_rms_sigmas"]["Vx"] < 1.5 < c["stronge"]["predictive_rms_sigmas"]["Vx"]
    # stronge does not read eta0: not sampled for it, said in its run and in the comparison
    assert c["stronge"]["ignored_params"] == ["eta0"] and k.results["stronge"].names == ["mu"]
    assert k.results["stronge"].metadata["ignored_params"] == ["eta0"]
    assert k.results["jia"].names == ["mu", "eta0"] and c["jia"]["ignored_params"] == []
    # each law's run is a calibration of its own in OUT/LAW/, its evidence the comparison's
    for law in ("jia", "stronge"):
        meta = json.load(open(tmp_path / "from-jia" / law / "metadata.json"))
        assert meta["method"] == "smc" and meta["log_evidence"]["value"] == c[law]["log_evidence"]
        assert meta["config"]["calibrate"]["law"] == law
    assert sorted(os.listdir(tmp_path / "from-jia")) == [".impactbatch-outputs.json", "comparison.json",
                                                          "comparison.md", "jia", "stronge"]
    md = (tmp_path / "from-jia" / "comparison.md").read_text()
    assert "Best: **jia**" in md and "Kass & Raftery" in md and "| stronge |" in md


def test_data_from_stronge_do_not_buy_jia_its_extra_parameter(tmp_path):
    k = compare(tmp_path, series(tmp_path, "stronge", [0.1], 11), "from-stronge")
    c = k.comparison["laws"]
    assert c["jia"]["log_evidence"] - c["stronge"]["log_evidence"] < 2, c
    assert k.best == "stronge"


def test_the_folder_is_the_comparisons_and_bad_requests_say_why(tmp_path):
    ball = os.path.join(SRC, "examples", "calibration", "ball-synthetic.toml")
    small = {"smc.particles": 64, "smc.runs": 4}
    out = tmp_path / "cmp"
    a = ib.compare_laws(ball, ["chatterjee-ruina", "newton"], out=str(out), backend="serial", set=small)
    # newton does not read mu: only e is sampled for it; the data (chatterjee-ruina's) reject it
    assert a.best == "chatterjee-ruina" and a.results["newton"].names == ["e"]
    assert a.comparison["laws"]["newton"]["log_bayes_factor_vs_best"] < -100
    # the same seed, the same bits; a second run takes its own folder again
    b = ib.compare_laws(ball, ["chatterjee-ruina", "newton"], out=str(out), backend="serial", set=small)
    def numbers(k):
        return {law: {key: v for key, v in c.items() if key != "seconds"} for law, c in k.comparison["laws"].items()}
    assert numbers(a) == numbers(b)
    # a folder of other files is refused, and nothing is written there
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    with pytest.raises(ValueError, match="file\\(s\\) that no impactbatch comparison wrote there"):
        ib.compare_laws(ball, ["chatterjee-ruina", "newton"], out=str(foreign), backend="serial", set=small)
    assert os.listdir(foreign) == ["notes.txt"]
    # a calibration's folder is not a comparison's
    with pytest.raises(ValueError, match="holds a calibration's outputs"):
        ib.compare_laws(ball, ["chatterjee-ruina", "newton"], out=str(out / "newton"), backend="serial", set=small)
    with pytest.raises(ValueError, match="two laws or more"):
        ib.compare_laws(ball, ["newton"], out=str(tmp_path / "x"))
    with pytest.raises(ValueError, match=r"calibrate\.laws\[1\]: unknown law 'jiaa'"):
        ib.compare_laws(ball, ["newton", "jiaa"], out=str(tmp_path / "x"))
    with pytest.raises(ValueError, match="only smc computes"):
        ib.compare_laws(ball, ["newton", "stronge"], out=str(tmp_path / "x"), calibrate__method="fit")
    assert not (tmp_path / "x").exists()
