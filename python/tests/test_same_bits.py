"""The package's results do not depend on the NumPy it runs with: sha256 digests of an evaluate of a
fixed batch per law and precision, a small study's tables, a short calibration's samples and a
calibration model's log densities, against digests written here. python.pytest runs this file
under Debian's NumPy 1.x and python.numpy2 (scripts/numpy2_check.sh) under NumPy 2: both passing
is the same bits under either.

Everything runs on the serial backend, so no digest depends on the thread count (omp gives
serial's bits too, but serial needs no such argument). The inputs are built with +, - and / on
small integers in Python (correctly rounded everywhere), not with NumPy's random generators or
transcendentals, whose bits a NumPy version may change.

A digest changes when the library's results change on purpose (a law's arithmetic, a sampler, the
columns of a table). Then print the new digests with
    PYTHONPATH=build/python IMPACT_SOURCE_DIR=. python3 python/tests/test_same_bits.py
under NumPy 1.x, paste them into EXPECTED below, and check that numpy2_check.sh passes with them."""
import hashlib
import os

import numpy as np
import pytest

import impactbatch as ib

SRC = os.environ.get("IMPACT_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
CALIBRATION = os.path.join(SRC, "examples", "calibration", "ball-synthetic.toml")
LAWS = ("newton", "chatterjee-ruina", "aghili", "morgan", "stronge", "jia")
ROWS = 48

EXPECTED = {
    "evaluate.newton.double": "b9481fbac47c388e896d0077ee01e47acb917b70dc364fde198c1940e2fc0919",
    "evaluate.newton.float": "965f1b37771c3d5f1b2e59b88cb2cf152acba7206cedf2ce8546dbce3bbe5974",
    "evaluate.chatterjee-ruina.double": "486f09aea956afc41dc2c8694d1a376113299d3e330f6885fcd16066ab65565f",
    "evaluate.chatterjee-ruina.float": "00cdd34c1ede913cce715657ee661b04e2c6050f7940491f1360c9b2660b96cd",
    "evaluate.aghili.double": "1dfcb90f3567d4f97600a4f3d5a8f9d45875db554e88b19e39ec142e7b9f196c",
    "evaluate.aghili.float": "ab6b59f24d18857f9154123f4545723236acefa230b74b62046d917bf265c9f2",
    "evaluate.morgan.double": "e7024fde32ebcca25a377aa25bb0dcb482c064210c321b4af3ff11e413d40ec4",
    "evaluate.morgan.float": "5579a7250f6504a9e69b9767d4b97627d2585001f28e3bafa78dfb467d04b014",
    "evaluate.stronge.double": "9bbb5610b266c4789bd2f2d625d6f612d9838cb54f916c40f29eb1e3286e159b",
    "evaluate.stronge.float": "5d4fe89ce795f0939fd548b7b4037db2a28a0d3eafb94c250188a78b4467fb03",
    "evaluate.jia.double": "d79d40423e78ae09ab9837eab07894064ff4dcb8aed7fb1791522e180eb034ce",
    "evaluate.jia.float": "ba15d574e5445da0cb3cd17c289a9656ad3931bde9f9d0a4481d99843a616ab3",
    "study": "674fad770214437a489be7afb4b196884b42da33ef05a6448fe9697d5f8d6969",
    "calibrate": "f087fa384e92827318bcbd0e288833cade65d949c4b1cb0f179b48511b6e1a71",
    "model": "435f2a1a4ea3da85e7fb439f80b825a1e89fe7c438a9acb05dbc1ac0f9a97119",
}


def digest(columns):
    """sha256 over (name, shape, little-endian bytes) of each column: reals as float64, integers and
    codes as int64, so that a column's digest does not depend on the dtype NumPy or pandas gave it."""
    h = hashlib.sha256()
    for name, a in columns:
        a = np.asarray(a)
        if a.dtype.kind == "f":
            a = a.astype("<f8")
        elif a.dtype.kind in "iub":
            a = a.astype("<i8")
        else:
            raise TypeError(f"{name}: a column of dtype {a.dtype} has no defined digest")
        h.update(f"{name}{tuple(int(s) for s in a.shape)}".encode())
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


def table_columns(t):
    """The columns of a table as the package returns it: a pandas DataFrame (a categorical's codes,
    which are the status codes) or, without pandas, a NumPy structured array."""
    if getattr(t, "dtype", None) is not None and t.dtype.names:
        return [(k, t[k]) for k in t.dtype.names]
    return [(str(k), t[k].cat.codes.to_numpy() if hasattr(t[k], "cat") else t[k].to_numpy()) for k in t.columns]


def batch():
    """ROWS contact-space instances: W symmetric and diagonally dominant (positive definite), n the
    z axis or (0.6, 0, 0.8), every other row planar in x-z (for morgan), the parameters in range."""
    W, n, v = [], [], []
    mu, e, e_t, eta0 = [], [], [], []
    for i in range(ROWS):
        planar = i % 2 == 0
        xy = 0.0 if planar else ((i % 4) - 1.5) / 20
        xz = ((i % 3) - 1) / 10
        yz = 0.0 if planar else ((i % 5) - 2) / 20
        W.append([[1 + (i % 5) / 4, xy, xz], [xy, 1 + (i % 3) / 2, yz], [xz, yz, 0.5 + (i % 7) / 7]])
        n.append([0.0, 0.0, 1.0] if planar or i % 3 else [0.6, 0.0, 0.8])
        v.append([((i % 9) - 4) / 4, 0.0 if planar else ((i % 5) - 2) / 5, -(1 + (i % 4) / 4)])
        mu.append(0.05 + (i % 6) / 8)
        e.append((i % 5) / 5)
        e_t.append(((i % 7) - 3) / 4)
        eta0.append(1 + (i % 3) / 2)
    return tuple(np.array(x, dtype=np.float64) for x in (W, n, v, mu, e, e_t, eta0))


def evaluate_digest(law, precision):
    W, n, v, mu, e, e_t, eta0 = batch()
    r = ib.evaluate(law, W, n, v, mu=mu, e=e, e_t=e_t, eta0=eta0, backend="serial", precision=precision)
    assert len(r) == ROWS and r.ok.sum() > 0, f"{law}: no row ok: {r.status_counts()}"
    return digest((c, r[c]) for c in r.columns())


def study_digest(tmp_path):
    cfg = {"study": {"name": "same-bits", "scenario": "pencil", "laws": ["chatterjee-ruina", "stronge", "jia"]},
           "run": {"steps": 100},
           "design": {"kind": "mc", "n": 200, "seed": 11},
           "params": {"theta": {"dist": "uniform", "lo": 0.8, "hi": 1.4},
                      "V0x": {"dist": "normal", "mean": -4, "sd": 0.5},
                      "mu": {"dist": "uniform", "lo": 0.2, "hi": 0.6}}}
    r = ib.study(cfg, out=str(tmp_path / "study"), backend="serial")
    assert sorted(r.tables) == ["chatterjee-ruina", "jia", "stronge"]
    return digest((f"{law}.{k}", a) for law in sorted(r.tables) for k, a in table_columns(r.tables[law]))


def calibrate_digest(tmp_path):
    r = ib.calibrate(CALIBRATION, out=str(tmp_path / "cal"), backend="serial",
                     set={"calibrate.method": "ensemble", "mcmc.steps": 120, "mcmc.walkers": 16, "mcmc.seed": 5})
    return digest(table_columns(r.samples))


def model_digest():
    m = ib.CalibrationModel(CALIBRATION, backend="serial")
    pts = np.array([[i / 8, j / 8] for i in range(-1, 10) for j in range(-1, 10)])  # inside and outside the prior
    return digest([("log_likelihood", m.log_likelihood(pts)), ("log_prior", m.log_prior(pts)),
                   ("log_posterior", m.log_posterior(pts)), ("start", m.start(16, 5))])


CASES = [f"evaluate.{law}.{p}" for law in LAWS for p in ("double", "float")] + ["study", "calibrate", "model"]


def compute(case, tmp_path):
    if case.startswith("evaluate."):
        _, law, precision = case.split(".")
        return evaluate_digest(law, precision)
    if case == "study":
        return study_digest(tmp_path)
    if case == "calibrate":
        return calibrate_digest(tmp_path)
    return model_digest()


@pytest.mark.parametrize("case", CASES)
def test_same_bits_under_any_numpy(tmp_path, case):
    got = compute(case, tmp_path)
    assert got == EXPECTED[case], (
        f"{case} under NumPy {np.__version__}: digest {got}, expected {EXPECTED[case]} (the module's docstring "
        f"says what to do when the library's results changed on purpose)")


if __name__ == "__main__":
    import pathlib
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        for case in CASES:
            sub = pathlib.Path(d) / case
            sub.mkdir()
            print(f'    "{case}": "{compute(case, sub)}",')
