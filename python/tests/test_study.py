"""impactbatch.reduce and impactbatch.scenario against the CLI: the same summary as `impact reduce
--out`, and the same rows (P, status, body-level outputs) as `impact study` on a shipped study."""
import json
import os
import subprocess

import numpy as np
import pytest

import impactbatch as ib

SRC = os.environ.get("IMPACT_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
IMPACT = os.environ.get("IMPACT_BINARY", "impact")
TIMING = {"wall_seconds", "study_seconds", "instances_per_second", "cpu_seconds", "peak_rss_kb", "backend_why"}


@pytest.mark.parametrize("law, n", [("chatterjee-ruina", 20000), ("jia", 3000)])
def test_reduce_equals_cli_reduce(tmp_path, law, n):
    out = tmp_path / "r.json"
    subprocess.run([IMPACT, "reduce", "--law", law, "--n", str(n), "--seed", "7", "--backend", "omp", "--set",
                    "mu=uniform:0.1:0.9", "--set", "e=0.5", "--steps", "100", "--out", str(out), "-q"], check=True)
    cli = json.loads(out.read_text())
    py = ib.reduce(law, n, seed=7, backend="omp", steps=100, mu="uniform:0.1:0.9", e=0.5)
    assert py["backend"] == "omp" and py["status"]["ok"] > 0.9 * n
    assert {k: v for k, v in py.items() if k not in TIMING} == {k: v for k, v in cli.items() if k not in TIMING}


def test_reduce_ranges_and_errors():
    r = ib.reduce("newton", 5000, backend="serial", ranges={"Pn": (0, 10)}, e=0.3)
    assert r["quantities"]["Pn"]["histogram"]["lo"] == 0 and r["quantities"]["Pn"]["histogram"]["hi"] == 10
    assert sum(r["status"].values()) == 5000
    with pytest.raises(ValueError, match="unknown backend 'reference' for reduce"):
        ib.reduce("newton", 10, backend="reference")
    with pytest.raises(ValueError, match="nosuchkey"):
        ib.reduce("newton", 10, nosuchkey=1)
    # a histogram's range moves the histogram only: the moments are the default range's bits
    wide = ib.reduce("newton", 5000, backend="serial", ranges={"Pn": (0, 1e20)}, e=0.3)
    plain = ib.reduce("newton", 5000, backend="serial", e=0.3)
    for k in ("mean", "sd", "min", "max", "count"):
        assert wide["quantities"]["Pn"][k] == plain["quantities"]["Pn"][k] == r["quantities"]["Pn"][k], k
    with pytest.raises(ValueError, match="the width hi - lo overflows"):
        ib.reduce("newton", 10, ranges={"Pn": (-1e308, 1e308)})
    with pytest.warns(UserWarning, match="steps changes nothing: newton is algebraic"):
        ib.reduce("newton", 10, backend="serial", steps=3)


def test_scenarios_listing():
    names = [s["name"] for s in ib.scenarios()]
    assert "ball" in names and "pencil" in names
    ball = next(s for s in ib.scenarios() if s["name"] == "ball")
    assert [p["name"] for p in ball["params"]][:2] and "Vx" in " ".join(ball["body_outputs"])


def test_scenario_rows_equal_impact_study(tmp_path):
    # Jia Fig. 14(a): the ball on the table, V0x swept; the study's jia.npy against the package
    subprocess.run([IMPACT, "study", os.path.join(SRC, "examples", "studies", "jia-fig14a.toml"), "--out",
                    str(tmp_path / "s"), "--backend", "omp", "--no-plots", "-q", "--set", "run.steps=200"], check=True)
    d = np.load(tmp_path / "s" / "jia.npy")
    ball = next(s for s in ib.scenarios() if s["name"] == "ball")
    params = {p["name"]: d[p["name"]] for p in ball["params"] if p["name"] in d.dtype.names}
    inst = ib.scenario("ball", **params)
    r = inst.evaluate("jia", backend="omp", steps=200)
    assert np.array_equal(r.status, d["status"])
    for c in ("P_x", "P_y", "P_z", "dE"):
        assert np.array_equal(r[c], d[c], equal_nan=True), c
    body = inst.body_outputs(r)
    assert body, "the ball reports body-level outputs"
    for k, v in body.items():
        assert np.array_equal(v, d[k], equal_nan=True), k


def test_scenario_bad_rows_keep_their_status():
    inst = ib.scenario("ball", m=np.array([1.0, -1.0, 2.0]))
    assert list(inst.built) == [ib.Status.ok, ib.Status.param_out_of_range, ib.Status.ok]
    r = inst.evaluate("stronge")
    assert r.status[1] == ib.Status.param_out_of_range and r.status[0] == ib.Status.ok
    with pytest.raises(ValueError, match="has no parameter zz"):
        ib.scenario("ball", zz=1)
    with pytest.raises(ValueError, match="unknown scenario"):
        ib.scenario("nope")


def test_study_equals_impact_study(tmp_path):
    cfg = os.path.join(SRC, "examples", "studies", "jia-fig15c.toml")
    subprocess.run([IMPACT, "study", cfg, "--out", str(tmp_path / "cli"), "--backend", "omp", "--no-plots", "-q",
                    "--set", "run.steps=200"], check=True)
    res = ib.study(cfg, out=str(tmp_path / "py"), backend="omp", run__steps=200)
    assert set(res.tables) == {"jia"} and res.metadata["config"]["run"]["steps"] == 200
    cli = np.load(tmp_path / "cli" / "jia.npy")
    py = np.load(tmp_path / "py" / "jia.npy")
    assert cli.tobytes() == py.tobytes(), "the same table bit for bit"
    df = res.tables["jia"]
    assert len(df) == len(cli)
    if not isinstance(df, np.ndarray):
        assert (df["status"] == "ok").sum() == int((cli["status"] == 0).sum())


def test_study_from_a_dict_and_config_errors(tmp_path):
    cfg = {"study": {"name": "mini", "scenario": "ball", "laws": ["newton", "stronge"]},
           "design": {"kind": "grid"},
           "params": {"V0x": {"linspace": [-2.0, 2.0, 9]}, "V0z": -3.0, "mu": 0.3, "e": 0.5}}
    res = ib.study(cfg, out=str(tmp_path / "m"), backend="serial", set={"params.mu": 0.4})
    assert set(res.tables) == {"newton", "stronge"} and len(res.tables["stronge"]) == 9
    mu = res.metadata["config"]["params"]["mu"]
    assert mu in (0.4, {"fixed": 0.4}) or "0.4" in json.dumps(mu)
    with pytest.raises(ValueError, match="design.n"):
        ib.study(cfg, out=str(tmp_path / "m2"), design__n=0)
    for flag in ("plots", "quiet", "force"):  # bool("no") is True: only True or False is taken
        with pytest.raises(TypeError, match=flag + ": expected True or False, got str 'no'"):
            ib.study(cfg, out=str(tmp_path / "m3"), **{flag: "no"})
    assert not (tmp_path / "m3").exists()


def test_study_owns_its_folder(tmp_path):
    """An earlier study's files are removed (as `impact study`); a folder with other files is
    refused unless force=True, which keeps them (docs/study.md, "The output folder")."""
    cfg = {"study": {"name": "own", "scenario": "ball", "laws": ["newton", "stronge"]},
           "design": {"kind": "grid"},
           "params": {"V0x": {"linspace": [-2.0, 2.0, 5]}, "V0z": -3.0, "mu": 0.3, "e": 0.5},
           "output": {"formats": ["csv", "npy"]}}
    out = tmp_path / "o"
    ib.study(cfg, out=str(out), backend="serial")
    assert (out / "stronge.csv").exists()
    res = ib.study(cfg, out=str(out), backend="serial", set={"study.laws": ["newton"], "output.formats": ["npy"]})
    kept = sorted(p.name for p in out.iterdir() if not p.name.startswith("."))
    assert kept == ["metadata.json", "newton.npy", "summary.md"]
    assert set(res.tables) == {"newton"}
    other = tmp_path / "data"
    other.mkdir()
    (other / "mine.txt").write_text("keep me")
    with pytest.raises(ValueError, match=r"no impactbatch study wrote there \(mine.txt\).*force"):
        ib.study(cfg, out=str(other), backend="serial")
    assert sorted(p.name for p in other.iterdir()) == ["mine.txt"]
    with pytest.raises(TypeError, match="force"):
        ib.study(cfg, out=str(other), backend="serial", force="yes")
    ib.study(cfg, out=str(other), backend="serial", force=True)
    assert (other / "mine.txt").read_text() == "keep me" and (other / "metadata.json").exists()


def test_ball_oblique_sweep_at_constant_speed():
    angle = np.linspace(0.0, 85.0, 18)
    inst = ib.scenario("ball-oblique", speed=4.0, angle=angle, mu=0.3, e=0.7)
    assert np.allclose(np.linalg.norm(inst.v, axis=1), 4.0)  # no spin: the contact point moves with V0
    assert np.allclose(-inst.v[:, 2], 4.0 * np.cos(np.radians(angle)))
    r = inst.evaluate("stronge")
    assert np.all(r.ok)
    body = inst.body_outputs(r)
    assert np.allclose(body["Vz"], 0.7 * 4.0 * np.cos(np.radians(angle)), rtol=1e-9)  # e on the normal
