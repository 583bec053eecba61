"""SALib both ways: a study writes its varied parameters as a SALib problem (salib/problem.json),
reads one as its parameters (params.from_salib), and with design.second_order its first-order,
total and second-order Sobol indices are SALib.analyze.sobol's (calc_second_order=True) on the same
outputs, to 1e-12."""
import csv
import json
import os
import subprocess
import sys

import numpy as np
import pytest

SRC = os.environ.get("IMPACT_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
IMPACT = os.environ.get("IMPACT_BINARY", "impact")

PROBLEM = {"num_vars": 4, "names": ["mu", "e", "V0x", "w0y"],
           "bounds": [[0.1, 0.6], [0.2, 0.9], [-1.0, 0.8], [-4.0, 4.0, 0.5, 2.0]],
           "dists": ["unif", "unif", "norm", "truncnorm"]}


@pytest.fixture(scope="module")
def sobol():
    deps = os.path.join(SRC, ".deps", "python")
    added = os.path.isdir(deps) and deps not in sys.path
    if added:  # for this import only: the other tests see the path they were given
        sys.path.append(deps)
    try:
        return pytest.importorskip("SALib.analyze.sobol", reason="SALib is not installed and not in .deps/python "
                                   "(scripts/bootstrap.sh installs it from PyPI; without a network it cannot)")
    finally:
        if added:
            sys.path.remove(deps)


def study(tmp_path, params, extra=""):
    cfg = tmp_path / "s.toml"
    cfg.write_text('[study]\nscenario = "ball"\nlaws = ["chatterjee-ruina"]\n'
                   '[design]\nkind = "saltelli"\nn = 256\nsecond_order = true\n'
                   f'[params]\n{params}\nV0z = -3.0\n'
                   '[output]\nformats = ["npy", "salib"]\ncolumns = ["Vx", "wy", "Vz"]\n'
                   '[sensitivity]\noutputs = ["Vx", "wy", "Vz"]\nbootstrap = 200\n' + extra)
    return subprocess.run([IMPACT, "study", str(cfg), "--out", str(tmp_path / "out"), "--no-plots", "-q",
                           "--backend", "omp"], capture_output=True, text=True)


def test_a_salib_problem_in_and_out_and_second_order_indices(tmp_path, sobol):
    (tmp_path / "problem.json").write_text(json.dumps(PROBLEM))
    p = study(tmp_path, 'from_salib = "problem.json"')
    assert p.returncode == 0, p.stderr
    out = tmp_path / "out"
    written = json.load(open(out / "salib" / "problem.json"))
    assert written == PROBLEM  # the problem read is the problem written: SALib's form both ways
    meta = json.load(open(out / "metadata.json"))
    w = meta["config"]["params"]["w0y"]
    assert (w["dist"], w["mean"], w["sd"], w["lo"], w["hi"]) == ("truncnormal", 0.5, 2.0, -4.0, 4.0), w
    d = PROBLEM["num_vars"]
    s1 = list(csv.DictReader(open(out / "sensitivity.csv")))
    s2 = list(csv.DictReader(open(out / "sensitivity2.csv")))
    assert len(s1) == 3 * d and len(s2) == 3 * d * (d - 1) // 2
    worst = 0.0
    for o in ("Vx", "wy", "Vz"):
        y = np.loadtxt(out / "salib" / f"chatterjee-ruina_{o}.txt")
        assert y.size == 256 * (2 * d + 2)
        si = sobol.analyze(written, y, calc_second_order=True, num_resamples=200, seed=3)
        for r in (r for r in s1 if r["output"] == o):
            i = PROBLEM["names"].index(r["parameter"])
            worst = max(worst, abs(float(r["S1"]) - si["S1"][i]), abs(float(r["ST"]) - si["ST"][i]))
        for r in (r for r in s2 if r["output"] == o):
            i, j = PROBLEM["names"].index(r["parameter_i"]), PROBLEM["names"].index(r["parameter_j"])
            assert i < j
            worst = max(worst, abs(float(r["S2"]) - si["S2"][i, j]))
            # the bootstrap resamples differently (its own generator): the half-widths agree in size
            ours, theirs = float(r["S2_conf"]), si["S2_conf"][i, j]
            if theirs > 1e-6:
                assert 0.5 < ours / theirs < 2.0, (o, r["parameter_i"], r["parameter_j"], ours, theirs)
    print(f"worst |impact - SALib| over S1, ST and S2: {worst:.2e}")
    assert worst < 1e-12
    # and the physics: the rebound speed e |V0z| depends on e alone. Between two other parameters
    # every output the estimator sees is equal (zero to rounding); e's pairs are zero within their
    # bootstrap interval (the estimator's own noise)
    for r in (r for r in s2 if r["output"] == "Vz"):
        if "e" in (r["parameter_i"], r["parameter_j"]):
            assert abs(float(r["S2"])) <= float(r["S2_conf"]), r
        else:
            assert abs(float(r["S2"])) < 1e-9, r


@pytest.mark.parametrize("problem,where,says", [
    ({"names": ["mu"], "bounds": [[0, 1, 0.5]], "dists": ["triang"]}, "dists[0]", "'triang' has no counterpart"),
    ({"names": ["mu", "e"], "bounds": [[0, 1]]}, "bounds", "expected one [lo, hi] per name (2)"),
    ({"names": ["mu"], "bounds": [[1, 0]]}, "bounds[0]", "uniform(a, b) needs a <= b"),
    ({"names": ["nope"], "bounds": [[0, 1]]}, "params.from_salib", "scenario ball has no parameter 'nope'"),
    ({"names": ["mu"], "bounds": [[0, 1]], "groups": ["g"]}, "groups", "groups are not supported"),
])
def test_a_bad_salib_problem_is_said_with_its_place(tmp_path, problem, where, says):
    (tmp_path / "problem.json").write_text(json.dumps(problem, indent=1))
    p = study(tmp_path, 'from_salib = "problem.json"')
    assert p.returncode != 0 and says in p.stderr and where in p.stderr, p.stderr
    if where != "params.from_salib":  # the problem file's own line and column
        assert "problem.json:" in p.stderr, p.stderr
    assert not (tmp_path / "out" / "metadata.json").exists()


def test_a_parameter_set_twice_is_refused(tmp_path):
    (tmp_path / "problem.json").write_text(json.dumps(PROBLEM))
    p = study(tmp_path, 'from_salib = "problem.json"\nmu = 0.3')
    assert p.returncode != 0 and "params.mu: 'mu' is set twice" in p.stderr, p.stderr
