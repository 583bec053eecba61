"""impactbatch.evaluate against the CLI it shares its library with: bit for bit on examples/cases.csv
for every law, precision and CPU backend; broadcasting; bad inputs raise naming the argument.

Run by ctest (python.pytest) with the package and the `impact` binary of the build folder
(PYTHONPATH, IMPACT_BINARY, IMPACT_SOURCE_DIR)."""
import csv
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
CASES = os.path.join(SRC, "examples", "cases.csv")
LAWS = [d["name"] for d in ib.laws()]


def read_table(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:]


def inputs_of(header, rows):
    """The contact-space arrays of a table: W (N, 3, 3), n, v (N, 3), and the parameter columns."""
    col = {name: i for i, name in enumerate(header)}

    def get(name):
        return np.array([float(r[col[name]]) for r in rows])
    W = np.empty((len(rows), 3, 3))
    for (i, j), name in zip(((0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2)),
                            ("W_xx", "W_xy", "W_xz", "W_yy", "W_yz", "W_zz")):
        W[:, i, j] = W[:, j, i] = get(name)
    n = np.stack([get("n_x"), get("n_y"), get("n_z")], axis=1)
    v = np.stack([get("v_x"), get("v_y"), get("v_z")], axis=1)
    params = {p: get(p) for p in ("mu", "e", "e_t", "eta0")}
    return W, n, v, params


@pytest.fixture(scope="module")
def cases():
    header, rows = read_table(CASES)
    return header, rows, inputs_of(header, rows)


def first_cases(tmp_path, cases, k):
    """The first k rows of examples/cases.csv as a table of their own (tmp_path/sub.csv, for the CLI)
    and as inputs_of's arrays (for the module): the same rows for both sides of a comparison."""
    header, rows, _ = cases
    sub = tmp_path / "sub.csv"
    with open(sub, "w", newline="") as f:
        csv.writer(f).writerows([header] + rows[:k])
    return sub, inputs_of(header, rows[:k])


def cli_eval(tmp_path, law, precision, backend, src=CASES, steps=None):
    out = tmp_path / f"{law}.{precision}.{backend}.csv"
    cmd = [IMPACT, "eval", "--law", law, "--precision", precision, "--backend", backend, "--in", str(src),
           "--out", str(out), "-q"]
    if steps:
        cmd += ["--steps", str(steps)]
    subprocess.run(cmd, check=True)
    return read_table(out)


def same_bits(text, value, dtype):
    """A CLI cell (shortest round-trip text of the value) against the package's value, exactly."""
    if text == "":
        return math.isnan(value)
    return dtype(float(text)) == dtype(value) or (math.isnan(float(text)) and math.isnan(value))


@pytest.mark.parametrize("backend", ["serial", "omp"])
@pytest.mark.parametrize("precision", ["double", "float"])
@pytest.mark.parametrize("law", LAWS)
def test_bit_identical_to_cli_eval(tmp_path, cases, law, precision, backend):
    header, rows, (W, n, v, params) = cases
    r = ib.evaluate(law, W, n, v, **params, backend=backend, precision=precision)
    assert r.backend == backend and len(r) == len(rows)
    out_header, out_rows = cli_eval(tmp_path, law, precision, backend)
    col = {name: i for i, name in enumerate(out_header)}
    dtype = np.float64 if precision == "double" else np.float32
    assert r.columns() == out_header[len(header):], "the result columns are the CLI's"
    names = [ib.status_name(s) for s in r.status]
    assert names == [row[col["status"]] for row in out_rows]
    modes = r.mode_strings() if "modes" in r.extras else None
    for c in r.columns():
        if c == "status":
            continue
        if c == "modes":
            assert modes == [row[col["modes"]] for row in out_rows]
            continue
        if c == "steps":
            got = r[c]
            want = [int(row[col[c]]) if row[col[c]] else -1 for row in out_rows]
            assert list(got) == want
            continue
        got = r[c]
        assert got.dtype == dtype
        bad = [i for i, row in enumerate(out_rows) if not same_bits(row[col[c]], got[i], dtype)]
        assert not bad, f"{law} {precision} {backend} column {c}: rows {bad[:5]} differ"


def test_reference_backend_equals_cli(tmp_path, cases):
    sub, (W, n, v, params) = first_cases(tmp_path, cases, 60)
    for law in LAWS:
        r = ib.evaluate(law, W, n, v, **params, backend="reference")
        out_header, out_rows = cli_eval(tmp_path, law, "double", "reference", src=sub)
        col = {name: i for i, name in enumerate(out_header)}
        assert [ib.status_name(s) for s in r.status] == [row[col["status"]] for row in out_rows]
        for c in ("P_x", "P_y", "P_z", "vf_x", "vf_y", "vf_z", "dE"):
            assert all(same_bits(row[col[c]], r[c][i], np.float64) for i, row in enumerate(out_rows)), (law, c)


def test_ok_rows_finite_and_rows_without_result_nan(cases):
    _, _, (W, n, v, params) = cases
    for law in LAWS:
        r = ib.evaluate(law, W, n, v, **params, backend="omp")
        ok = r.ok
        for c in ("P_x", "P_y", "P_z", "vf_x", "vf_y", "vf_z", "dE"):
            assert np.all(np.isfinite(r[c][ok])), (law, c)
            assert np.all(np.isnan(r[c][~ok])), (law, c)
        assert np.all(r.P[ok, :] == np.stack([r["P_x"], r["P_y"], r["P_z"]], axis=1)[ok])


def test_broadcasting_equals_explicit_arrays():
    rng = np.random.default_rng(1)
    N = 50
    W1 = np.array([[3.5, 0.1, 0.0], [0.1, 3.5, 0.2], [0.0, 0.2, 1.0]])
    n = rng.normal(size=(N, 3))
    n /= np.linalg.norm(n, axis=1)[:, None]
    v = -2.0 * n + 0.5 * rng.normal(size=(N, 3))
    a = ib.evaluate("stronge", W1, n, v, mu=0.4, e=0.5)
    b = ib.evaluate("stronge", np.broadcast_to(W1, (N, 3, 3)), n, v, mu=np.full(N, 0.4), e=np.full(N, 0.5))
    for c in a.columns():
        assert np.array_equal(a[c], b[c], equal_nan=c not in ("status", "modes", "steps")), c
    # one instance given once: a batch of one
    one = ib.evaluate("newton", W1, [0, 0, 1], [0.3, 0, -1], e=0.5)
    assert len(one) == 1 and one.status[0] == ib.Status.ok
    assert one.P.shape == (1, 3)
    # Newton: P = (1 + e) * (-v.n / n^T W n) n
    assert np.allclose(one.P[0], [0, 0, 1.5 * 1.0 / 1.0])


def test_integer_and_list_inputs_and_float_precision():
    r = ib.evaluate("chatterjee-ruina", [[2, 0, 0], [0, 2, 0], [0, 0, 1]], [0, 0, 1], [1, 0, -2], mu=1, e=0, e_t=0,
                    precision="float")
    assert r["P_x"].dtype == np.float32 and r.status[0] == ib.Status.ok


def test_empty_batch():
    r = ib.evaluate("newton", np.zeros((0, 3, 3)), np.zeros((0, 3)), np.zeros((0, 3)), e=np.zeros(0))
    assert len(r) == 0 and r.P.shape == (0, 3)


def test_statuses_are_the_clis():
    names = [s.name for s in ib.Status]
    assert names[0] == "ok" and "inadmissible" in names and "W_not_spd" in names
    r = ib.evaluate("newton", np.eye(3), [0, 0, 1], [0, 0, 1], e=0.5)  # separating: no approach
    assert r.status[0] == ib.Status.no_approach and np.isnan(r.dE[0])
    assert r.status_counts() == {"no_approach": 1}


@pytest.mark.parametrize("call, exc, words", [
    (lambda: ib.evaluate("nope", np.eye(3), [0, 0, 1], [0, 0, -1]), ValueError, ["law", "nope", "known"]),
    (lambda: ib.evaluate("newton", np.eye(3)[:2], [0, 0, 1], [0, 0, -1], e=0.5), ValueError, ["W", "(2, 3)"]),
    (lambda: ib.evaluate("newton", np.eye(3) * 1j, [0, 0, 1], [0, 0, -1], e=0.5), TypeError, ["W", "complex"]),
    (lambda: ib.evaluate("newton", np.eye(3), [0, 1], [0, 0, -1], e=0.5), ValueError, ["n", "(2,)"]),
    (lambda: ib.evaluate("newton", np.eye(3), ["a", "b", "c"], [0, 0, -1], e=0.5), TypeError, ["n"]),
    (lambda: ib.evaluate("newton", np.eye(3), np.zeros((4, 3)), np.zeros((5, 3)), e=0.5), ValueError,
     ["batch lengths differ", "n 4", "v 5"]),
    (lambda: ib.evaluate("stronge", np.eye(3), [0, 0, 1], [0, 0, -1], e=0.5), ValueError, ["mu", "required"]),
    (lambda: ib.evaluate("newton", [[1, 2, 0], [0, 1, 0], [0, 0, 1]], [0, 0, 1], [0, 0, -1], e=0.5), ValueError,
     ["W", "not symmetric"]),
    (lambda: ib.evaluate("newton", np.eye(3), [0, 0, 1], [0, 0, -1], e=0.5, precision="half"), ValueError,
     ["precision", "half"]),
    (lambda: ib.evaluate("newton", np.eye(3), [0, 0, 1], [0, 0, -1], e=0.5, backend="gpu9"), ValueError, ["gpu9"]),
    (lambda: ib.evaluate("newton", np.eye(3), [0, 0, 1], [0, 0, -1], e=0.5, backend="reference", precision="float"),
     ValueError, ["reference"]),
    (lambda: ib.evaluate("newton", np.eye(3), [0, 0, 1], [0, 0, -1], e=np.zeros((2, 2))), ValueError, ["e", "(2, 2)"]),
    (lambda: ib.evaluate("jia", np.eye(3), [0, 0, 1], [0, 0, -1], mu=0.3, e=0.5, e_t=0, eta0=1, steps=0), ValueError,
     ["steps"]),
    (lambda: ib.evaluate("jia", np.eye(3), [0, 0, 1], [0, 0, -1], mu=0.3, e=0.5, eta0=1, backend="reference",
                         integrator="euler"), ValueError, ["integrator: the reference integrates adaptively"]),
])
def test_bad_inputs_raise_naming_the_argument(call, exc, words):
    with pytest.raises(exc) as err:
        call()
    for w in words:
        assert w in str(err.value), (w, str(err.value))


def test_steps_of_an_algebraic_law_are_said_to_change_nothing():
    with pytest.warns(UserWarning, match="steps changes nothing: newton is algebraic"):
        a = ib.evaluate("newton", np.eye(3), [0, 0, 1], [0, 0, -1], e=0.5, steps=3)
    assert np.array_equal(a.P, ib.evaluate("newton", np.eye(3), [0, 0, 1], [0, 0, -1], e=0.5).P)


def test_tables(cases):
    _, rows, (W, n, v, params) = cases
    r = ib.evaluate("jia", W[:100], n[:100], v[:100], **{k: x[:100] for k, x in params.items()}, backend="omp")
    a = r.to_numpy()
    assert a.dtype.names == tuple(r.columns()) and len(a) == 100
    assert np.array_equal(a["P_x"], r["P_x"], equal_nan=True)
    pytest.importorskip("pandas", reason="pandas (python3-pandas) for Result.to_pandas")
    df = r.to_pandas()
    assert list(df.columns) == r.columns() and len(df) == 100
    assert (df["status"] == "ok").sum() == int(r.ok.sum())
    modes = {"slip", "stick", "slip>stick", "stick>slip", "slip>stick>slip", "stick>slip>stick", "slip>reverse"}
    assert set(df.loc[df["status"] == "ok", "modes"]) <= modes | set(df["modes"])


def test_laws_metadata():
    by = {d["name"]: d for d in ib.laws()}
    assert set(by) == {"newton", "chatterjee-ruina", "aghili", "morgan", "stronge", "jia"}
    assert by["jia"]["integrator"] and by["stronge"]["integrator"] and not by["newton"]["integrator"]
    assert by["newton"]["params"] == ["e"]
    assert "eta0" in by["jia"]["params"] and "mu" in by["stronge"]["params"]
    assert [x["name"] for x in by["aghili"]["extras"]][0] == "sigma"


def test_compare_equals_cli_compare(tmp_path, cases):
    sub, (W, n, v, params) = first_cases(tmp_path, cases, 200)
    for law in ("chatterjee-ruina", "jia"):
        c = ib.compare(law, W, n, v, **params, backend="omp")
        rep = tmp_path / f"{law}.json"
        subprocess.run([IMPACT, "compare", "--law", law, "--in", str(sub), "--backend", "omp", "--report", str(rep)],
                       check=True, capture_output=True)
        import json
        cli = json.loads(rep.read_text())
        skip = {"input", "fast_seconds", "reference_seconds"}
        assert {k: x for k, x in c.report.items() if k not in skip} == {k: x for k, x in cli.items() if k not in skip}
        assert c.passed and not c.failures and len(c.reference) == 200
        r = ib.evaluate(law, W, n, v, **params, backend="reference")
        assert np.array_equal(c.reference["P_x"], r["P_x"], equal_nan=True)


def test_compare_finds_a_planted_difference():
    # stronge against the reference with too few steps to be within 1e-12: a failure, named
    rng = np.random.default_rng(5)
    N = 40
    nn = rng.normal(size=(N, 3))
    nn /= np.linalg.norm(nn, axis=1)[:, None]
    v = -nn + 0.8 * rng.normal(size=(N, 3))
    v[np.einsum("ij,ij->i", v, nn) >= 0] *= -1  # approaching
    W = np.array([[2.0, 0.3, 0.1], [0.3, 1.5, 0.2], [0.1, 0.2, 1.0]])
    c = ib.compare("stronge", W, nn, v, mu=0.5, e=0.6, steps=3, integrator="euler", tol=1e-12, backend="serial")
    assert c.verdict == "fail" and c.failures and c.failures[0]["column"] is not None
    sep = ib.compare("newton", np.eye(3), [0, 0, 1], [0, 0, 1], e=0.5)  # separating: both no_approach
    assert sep.verdict == "pass" and sep.report["status_agree"] == 1 and sep.report["both_ok"] == 0


AUTO_TRIAL = r"""
import json, sys
import numpy as np
import impactbatch as ib
r = np.random.default_rng(5)
N = 3000
W = np.diag([3.5, 3.5, 1.0]) + 0.1 * np.eye(3) * r.random((N, 1, 1))
v = np.stack([r.normal(0, 2, N), r.normal(0, 2, N), -1 - 4 * r.random(N)], axis=1)
mu, e = 0.1 + 0.5 * r.random(N), r.random(N)
args = (W, np.array([0.0, 0.0, 1.0]), v, mu, e)
first = ib.evaluate("jia", *args, e_t=0.3, eta0=1.1, steps=40)
again = ib.evaluate("jia", *args, e_t=0.3, eta0=1.1, steps=40)
serial = ib.evaluate("jia", *args, e_t=0.3, eta0=1.1, steps=40, backend="serial")
same = all(np.array_equal(getattr(first, k), getattr(serial, k), equal_nan=True) for k in ("P", "vf", "dE", "status"))
print(json.dumps({"first": [first.backend, first.backend_why], "again": [again.backend, again.backend_why],
                  "same": same}))
"""


def test_auto_weighs_the_backends_by_a_trial_once_per_process():
    """backend="auto" on host arrays of fewer than 4096 rows with 2 threads: a trial on the call's
    first rows between omp and serial (and cuda where usable), each backend's line in backend_why;
    a later call of the same law and options chooses from the same lines without timing them again;
    on the CPU the results are serial's bits."""
    env = dict(os.environ, OMP_NUM_THREADS="2")
    run = subprocess.run([sys.executable, "-c", AUTO_TRIAL], env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    got = json.loads(run.stdout)
    backend, why = got["first"]
    assert why.startswith(" (auto: trial of batches of up to 3000 rows: omp "), why
    assert "; serial " in why and why.rstrip(")").split("rows: ")[-1].split(";")[0] == backend, why
    assert got["again"][0] == backend
    assert got["again"][1].startswith(" (auto: from a trial earlier in this process: omp "), got["again"][1]
    assert backend == "cuda" or got["same"]
    assert "; cuda " in why or "cuda not a candidate: " in why, why
