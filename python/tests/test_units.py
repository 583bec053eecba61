"""Every column states its unit, symbol and meaning once (engine/column_info.hpp, the laws' extras,
the scenarios' tables), and every place a user meets a column reads it there: impactbatch.laws()
and scenarios(), a study's metadata.json and .npy field titles, a calibration's metadata.json."""
import json
import os
import subprocess

import numpy as np

import impactbatch as ib

SRC = os.environ.get("IMPACT_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
IMPACT = os.environ.get("IMPACT_BINARY", "impact")


def test_laws_and_scenarios_state_units():
    for law in ib.laws():
        for x in law["extras"]:
            assert x["meaning"] and x["symbol"], (law["name"], x)
            assert x["unit"] != "" or x["name"] == "modes", (law["name"], x)
    for sc in ib.scenarios():
        for p in sc["params"]:
            assert p["unit"] and p["symbol"] and p["help"], (sc["name"], p)
        assert [o["name"] for o in sc["outputs"]] == sc["body_outputs"]
        for o in sc["outputs"]:
            assert o["unit"] in ("m/s", "rad/s"), (sc["name"], o)
    ball = next(s for s in ib.scenarios() if s["name"] == "ball")
    units = {p["name"]: p["unit"] for p in ball["params"]}
    assert units["m"] == "kg" and units["V0x"] == "m/s" and units["w0y"] == "rad/s" and units["mu"] == "1"


def test_a_study_names_the_unit_of_every_column(tmp_path):
    cfg = tmp_path / "s.toml"
    cfg.write_text('[study]\nscenario = "ball"\nlaws = ["jia", "aghili"]\n[design]\nn = 16\n'
                   '[params]\nmu = "uniform:0.1:0.5"\n[output]\nformats = ["npy"]\n')
    p = subprocess.run([IMPACT, "study", str(cfg), "--out", str(tmp_path / "o"), "-q", "--no-plots"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    meta = json.load(open(tmp_path / "o" / "metadata.json"))
    for law, cols in meta["columns"].items():
        for c in cols:
            assert set(c) >= {"name", "kind", "unit", "symbol", "meaning"}, (law, c)
            assert c["meaning"] and c["symbol"], (law, c)
            assert (c["unit"] == "") == (c["kind"] in ("status", "modes") or c["name"] == "sample_id"), (law, c)
        byname = {c["name"]: c for c in cols}
        assert byname["Vx"]["unit"] == "m/s" and byname["wy"]["unit"] == "rad/s" and byname["dE"]["unit"] == "J"
        assert byname["P_n"]["unit"] == "N s"
        # the .npy table carries the same, as NumPy's field titles
        a = np.load(tmp_path / "o" / f"{law}.npy")
        for name in a.dtype.names:
            title = a.dtype.fields[name][2]
            assert title.startswith(name + ": "), (law, name, title)
            u = byname[name]["unit"]
            assert (f"[{u}]" in title) == (u not in ("", "1")), (law, name, title)
    assert meta["columns"]["aghili"][-7]["name"] in {"sigma", "mu_cr", "mu_star", "e_star", "e_star_global", "modes",
                                                     "steps", "status"}


def test_a_calibration_names_the_unit_of_its_columns(tmp_path):
    r = ib.calibrate(os.path.join(SRC, "examples", "calibration", "ball-synthetic.toml"), out=str(tmp_path / "c"),
                     backend="omp", calibrate__method="fit")
    cols = {c["name"]: c for c in r.metadata["columns"]}
    assert cols["V0x"]["role"] == "condition" and cols["V0x"]["unit"] == "m/s"
    assert cols["w0y"]["unit"] == "rad/s"
    assert cols["Vx"]["role"] == "observed" and cols["Vx"]["unit"] == "m/s" and cols["Vx"]["symbol"] == "V_x^+"
    assert cols["mu"]["role"] == "parameter" and cols["mu"]["unit"] == "1"
    ib.calibrate(os.path.join(SRC, "examples", "calibration", "ball-synthetic.toml"), out=str(tmp_path / "s"),
                 backend="omp", smc__particles=512)
    a = np.load(tmp_path / "s" / "samples.npy")  # titled as the study tables are
    assert a.dtype.fields["mu"][2].startswith("mu: Coulomb friction coefficient")
    assert a.dtype.fields["logp"][2].startswith("logp: log posterior")
    assert len(a.dtype.fields["particle"]) == 2  # the ids are untitled
