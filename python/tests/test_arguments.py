"""The Python API keeps the CLI's promises on its arguments: a bad argument is a clear exception
naming the Python argument (never a command-line flag such as --steps, never pybind11's list of
overloads), nothing is truncated or ignored silently, NumPy scalars and arrays are taken where
Python numbers and lists are."""
import math
import re

import numpy as np
import pytest

import impactbatch as ib

W, N_, V = np.eye(3), [0, 0, 1], [-1, 0, -1]
JIA = dict(mu=0.3, e=0.5, eta0=1.0)


def evaluate(**kw):
    return ib.evaluate("jia", W, N_, V, **{**JIA, **kw})


def compare(**kw):
    return ib.compare("jia", W, N_, V, **{**JIA, "steps": 50, **kw})


def no_flag_names(err):
    msg = str(err.value)
    assert not re.search(r"(^|\s|\()--[a-z]", msg), f"names a command-line flag: {msg}"
    assert "incompatible function arguments" not in msg and "Invoked with" not in msg, msg
    return msg


# ---- integers: steps (evaluate, compare, reduce, Instances.evaluate), n, first, seed, chunk -------------

BAD_STEPS = [(2.7, ValueError, "steps: expected an integer, got 2.7"),
             (float("nan"), ValueError, "steps: expected an integer, got nan"),
             (2**40, ValueError, "steps: must be an integer from 1 to 2147483647, got 1099511627776"),
             (0, ValueError, "steps: must be an integer from 1"),
             (-3, ValueError, "steps: must be an integer from 1"),
             (True, TypeError, "steps: expected an integer, got a bool"),
             ("100", TypeError, "steps: expected an integer, got str"),
             (None, TypeError, "steps: expected an integer, got NoneType")]


@pytest.mark.parametrize("steps, exc, what", BAD_STEPS)
@pytest.mark.parametrize("call", ["evaluate", "compare", "reduce", "instances"])
def test_steps_are_checked_naming_the_argument(call, steps, exc, what):
    f = {"evaluate": lambda: evaluate(steps=steps),
         "compare": lambda: compare(steps=steps),
         "reduce": lambda: ib.reduce("jia", 100, steps=steps),
         "instances": lambda: ib.scenario("ball", mu=0.3).evaluate("jia", steps=steps)}[call]
    with pytest.raises(exc, match=re.escape(what)) as err:
        f()
    no_flag_names(err)


def test_integers_of_numpy_and_integral_floats_are_taken():
    ref = evaluate(steps=7)
    for steps in (np.int64(7), np.int32(7), np.uint8(7), 7.0, np.float64(7.0), np.array(7)):
        r = evaluate(steps=steps)
        assert r.extras["steps"][0] == ref.extras["steps"][0] and np.array_equal(r.P, ref.P), steps
    a = ib.reduce("newton", np.int64(1000), seed=np.uint64(3), first=np.int32(5), e=0.5)
    b = ib.reduce("newton", 1e3, seed=3.0, first=5, e=0.5)
    assert a["n"] == b["n"] == 1000 and a["status"] == b["status"]


@pytest.mark.parametrize("kw, exc, what", [
    (dict(n=1000.7), ValueError, "n: expected an integer, got 1000.7"),
    (dict(n=-5), ValueError, "n: must be an integer from 1 to 18446744073709551615, got -5"),
    (dict(n=0), ValueError, "n: must be an integer from 1"),
    (dict(n=2**64), ValueError, "n: must be an integer from 1"),
    (dict(n="10"), TypeError, "n: expected an integer, got str"),
    (dict(seed=-1), ValueError, "seed: must be an integer from 0 to 18446744073709551615, got -1"),
    (dict(seed=2**64), ValueError, "seed: must be an integer from 0"),
    (dict(seed=1.5), ValueError, "seed: expected an integer, got 1.5"),
    (dict(first=-1), ValueError, "first: must be an integer from 0"),
    (dict(first=2**64 - 10, n=10), ValueError, "first + n: the instances [first, first + n) must lie in the 64-bit"),
    (dict(chunk=-1), ValueError, "chunk: must be an integer from 0"),
    (dict(chunk=0.5), ValueError, "chunk: expected an integer"),
    (dict(scenario=None), TypeError, "scenario: expected a string"),
    (dict(backend=3), TypeError, "backend: expected a string"),
    (dict(precision=None), TypeError, "precision: expected a string"),
    (dict(integrator=1), TypeError, "integrator: expected a string"),
    (dict(mu=float("nan")), ValueError, "mu: expected a finite number or a distribution"),
    (dict(mu=float("inf")), ValueError, "mu: expected a finite number or a distribution"),
    (dict(mu=None), TypeError, "mu: expected a number or a distribution"),
    (dict(mu=[0.1, 0.2]), TypeError, "mu: expected a number or a distribution"),
    (dict(ranges={"Pn": 3}), TypeError, "ranges['Pn']: expected a pair of numbers"),
    (dict(ranges={"Pn": (0, float("nan"))}), ValueError, "ranges['Pn']: expected finite lo < hi"),
    (dict(ranges=[("Pn", 0, 1)]), TypeError, "ranges: expected a dict"),
])
def test_reduce_arguments(kw, exc, what):
    args = dict(n=1000, e=0.5)
    args.update(kw)
    with pytest.raises(exc, match=re.escape(what)) as err:
        ib.reduce("newton", **args)
    no_flag_names(err)


def test_reduce_numpy_settings_are_numbers():
    a = ib.reduce("newton", 2000, e=np.float64(0.5), mu=np.float32(0.25), seed=2)
    b = ib.reduce("newton", 2000, e=0.5, mu=0.25, seed=2)
    assert a["status"] == b["status"] and a["quantities"] == b["quantities"]


def test_library_messages_name_python_arguments():
    # the messages the library shares with the CLI say precision=..., not --precision
    with pytest.raises(ValueError, match="precision") as err:
        evaluate(backend="reference", precision="float")
    no_flag_names(err)
    with pytest.raises(ValueError, match="backend 'bogus'") as err:
        evaluate(backend="bogus")
    no_flag_names(err)
    with pytest.raises(ValueError, match="integrator must be 'rk4' or 'euler'") as err:
        compare(integrator="midpoint")
    no_flag_names(err)
    with pytest.raises(ValueError, match=r"^mu=bogus:1: unknown distribution 'bogus'") as err:
        ib.reduce("newton", 10, mu="bogus:1")
    no_flag_names(err)
    with pytest.raises(ValueError, match=r"^ranges Zz=") as err:
        ib.reduce("newton", 10, ranges={"Zz": (0, 1)})
    no_flag_names(err)


@pytest.mark.parametrize("kw, exc, what", [
    (dict(law=None), TypeError, "law: expected a string, got NoneType"),
    (dict(law=3), TypeError, "law: expected a string, got int"),
    (dict(backend=None), TypeError, "backend: expected a string, got NoneType"),
    (dict(precision=64), TypeError, "precision: expected a string, got int"),
    (dict(integrator=None), TypeError, "integrator: expected a string"),
])
@pytest.mark.parametrize("call", ["evaluate", "compare"])
def test_no_raw_pybind_type_errors(call, kw, exc, what):
    kw = dict(kw)  # the parameter set is shared by both calls
    law = kw.pop("law", "jia")
    f = ib.evaluate if call == "evaluate" else ib.compare
    with pytest.raises(exc, match=re.escape(what)) as err:
        f(law, W, N_, V, **JIA, **kw)
    no_flag_names(err)


# ---- compare(tol=...) ----------------------------------------------------------------------------------

@pytest.mark.parametrize("tol, exc", [(-1, ValueError), (float("nan"), ValueError), (float("inf"), ValueError),
                                      (0, ValueError), (-0.0, ValueError), ("1e-3", TypeError), (True, TypeError)])
def test_compare_tol_is_a_finite_positive_number(tol, exc):
    with pytest.raises(exc, match=r"^tol: ") as err:
        compare(tol=tol)
    no_flag_names(err)


def test_compare_tol_taken_and_defaulted():
    assert compare(tol=np.float64(1e-3)).report["tol"] == 1e-3
    assert compare(tol=1).report["tol"] == 1.0
    assert compare().report["tol"] == 1e-5
    assert compare(precision="float").report["tol"] == 1e-2


# ---- masked arrays ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["W", "n", "v", "mu", "eta0"])
@pytest.mark.parametrize("call", ["evaluate", "compare"])
def test_masked_elements_are_refused(call, name):
    args = dict(W=np.stack([W, W]), n=np.array([N_, N_], float), v=np.array([V, V], float),
                mu=np.array([0.3, 0.4]), e=0.5, eta0=np.array([1.0, 1.1]))
    mask = np.zeros(args[name].shape, bool)
    mask[(1,) + (0,) * (mask.ndim - 1)] = True
    args[name] = np.ma.masked_array(args[name], mask=mask)
    f = ib.evaluate if call == "evaluate" else ib.compare
    with pytest.raises(ValueError, match=rf"^{name}: a masked array with 1 masked element\(s\)"):
        f("jia", steps=50, **args)


def test_masked_arrays_without_masked_elements_are_their_data():
    mu = np.ma.masked_array([0.3, 0.4], mask=[False, False])
    a = ib.evaluate("jia", W, N_, V, mu=mu, e=0.5, eta0=1.0, steps=50)
    b = ib.evaluate("jia", W, N_, V, mu=np.array([0.3, 0.4]), e=0.5, eta0=1.0, steps=50)
    assert np.array_equal(a.P, b.P)


def test_masked_elsewhere():
    with pytest.raises(ValueError, match=r"^V0x: a masked array"):
        ib.scenario("ball", V0x=np.ma.masked_array([1.0, 2.0], mask=[True, False]))
    with pytest.raises(ValueError, match=r"^body1.mass: a masked array"):
        ib.two_bodies(ib.Body(mass=np.ma.masked_array([1.0], mask=[True])), None)
    with pytest.raises(ValueError, match=r"^E1: a masked array"):
        ib.eta0_from_elastic(np.ma.masked_array([2e11], mask=[True]), 0.3)


def test_bodies_arguments_are_named():
    ball = ib.Body(mass=1.0, inertia=[0.4] * 3, com=[0, 0, 1], V=[1, 0, -2])
    with pytest.raises(TypeError, match=r"^body1: expected an impactbatch.Body, got NoneType"):
        ib.two_bodies(None, ball)
    with pytest.raises(TypeError, match=r"^body2: expected an impactbatch.Body \(or None: fixed\), got dict"):
        ib.two_bodies(ball, {"mass": 1.0})
    with pytest.raises(TypeError, match=r"^contact: expected the Contact of two_bodies\(\), got tuple"):
        ib.after_impact(tuple(ib.two_bodies(ball)), [0, 0, 1])


# ---- eta0_from_elastic ---------------------------------------------------------------------------------------

LIKE = math.sqrt(17 / 14)  # like materials at nu = 0.3, and any body against a rigid one at nu = 0.3


@pytest.mark.parametrize("args", [(5e-324, 0.3, 1e308, 0.3), (1e308, 0.3, 5e-324, 0.3), (1e-300, 0.3, 1e300, 0.3),
                                  (1e300, 0.3, 1e-300, 0.3), (5e-324, 0.3, 5e-324, 0.3), (1.7e308, 0.3, 1.7e308, 0.3)])
def test_eta0_from_elastic_far_apart_moduli_give_the_limit(args):
    got = ib.eta0_from_elastic(*args)
    assert math.isfinite(got) and abs(got - LIKE) < 1e-15, got


def test_eta0_from_elastic_limit_keeps_the_soft_body_poisson_ratio():
    nu = 0.1
    limit = math.sqrt((2 - nu) / (2 * (1 - nu)))
    assert abs(ib.eta0_from_elastic(5e-324, nu, 1e308, 0.4) - limit) < 1e-15  # body 2 rigid in the limit
    assert abs(ib.eta0_from_elastic(1e308, 0.4, 5e-324, nu) - limit) < 1e-15  # body 1 rigid in the limit
    assert abs(ib.eta0_from_elastic(1e-300, nu) - limit) < 1e-15              # E2 = inf


def test_eta0_from_elastic_same_bits_as_the_library_in_range():
    rng = np.random.default_rng(2)
    E1, E2 = 10 ** rng.uniform(5, 12, 500), 10 ** rng.uniform(5, 12, 500)
    nu1, nu2 = rng.uniform(-0.9, 0.49, 500), rng.uniform(-0.9, 0.49, 500)
    got = ib.eta0_from_elastic(E1, nu1, E2, nu2)
    want = np.array([ib._core.eta0_from_elastic(*a) for a in zip(E1, nu1, E2, nu2)])
    assert np.array_equal(got, want)
    assert ib.eta0_from_elastic(2e11, 0.3, 2e11, 0.3) == ib._core.eta0_from_elastic(2e11, 0.3, 2e11, 0.3)


@pytest.mark.parametrize("args, what", [
    ((0.0, 0.3), "E1: Young's modulus must be > 0 and finite, got 0.0"),
    ((-1.0, 0.3), "E1: Young's modulus must be > 0 and finite"),
    ((np.inf, 0.3), "E1: Young's modulus must be > 0 and finite, got inf"),
    ((np.nan, 0.3), "E1: Young's modulus must be > 0 and finite, got nan"),
    ((2e11, 0.5), "nu1: Poisson's ratio must be in (-1, 0.5), got 0.5"),
    ((2e11, np.nan), "nu1: Poisson's ratio must be in (-1, 0.5), got nan"),
    ((2e11, 0.3, 0.0, 0.3), "E2: Young's modulus must be > 0 (inf: a rigid body 2), got 0.0"),
    ((2e11, 0.3, np.nan, 0.3), "E2: Young's modulus must be > 0"),
    ((2e11, 0.3, 2e11, -1.0), "nu2: Poisson's ratio must be in (-1, 0.5), got -1.0"),
    (([2e11, 1e9, -3.0], 0.3), "E1: Young's modulus must be > 0 and finite, got -3.0 (element 2)"),
])
def test_eta0_from_elastic_errors_name_the_argument(args, what):
    with pytest.raises(ValueError, match=re.escape(what)):
        ib.eta0_from_elastic(*args)


def test_eta0_from_elastic_arrays_broadcast():
    out = ib.eta0_from_elastic(np.array([2e11, 7e10]), 0.3, np.inf, 0.3)
    assert out.shape == (2,) and np.allclose(out, LIKE)
    assert isinstance(ib.eta0_from_elastic(2e11, 0.3), float)


# ---- study(): the config dict and the overrides ------------------------------------------------------------

def mini(**params):
    return {"study": {"name": "args", "scenario": "ball", "laws": ["newton"]},
            "design": {"kind": "mc", "n": 10, "seed": 1}, "params": params}


@pytest.mark.parametrize("value, key", [
    (float("nan"), "params.mu"), (float("inf"), "params.mu"), (np.float64("nan"), "params.mu"),
    ({"dist": "normal", "mean": 0.5, "sd": float("nan")}, "params.mu.sd"),
    ({"dist": "truncnormal", "mean": 0.5, "sd": 0.1, "lo": 0.0, "hi": np.float64(np.inf)}, "params.mu.hi"),
    ({"linspace": np.array([0.1, np.inf, 3])}, "params.mu.linspace[1]"),
])
def test_study_non_finite_numbers_name_the_key(tmp_path, value, key):
    with pytest.raises(ValueError, match=re.escape(f"{key}: ")
                       + r".*must be finite \(a parameter is a finite number or a distribution"):
        ib.study(mini(mu=value), out=str(tmp_path / "o"))
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("override", [{"set": {"params.mu": float("nan")}}, {"params__mu": float("-inf")}])
def test_study_non_finite_overrides_name_the_key(tmp_path, override):
    with pytest.raises(ValueError, match=r"^" + re.escape("params.mu: ") + r".*must be finite") as err:
        ib.study(mini(mu=0.3), out=str(tmp_path / "o"), **override)
    no_flag_names(err)


@pytest.mark.parametrize("kw, what", [
    (dict(set={"params.mu": "bogus"}), "params.mu: unknown distribution 'bogus'"),
    (dict(design__n=-1), "design.n: expected an integer >= 1, got -1"),
    (dict(run__steps=2.5), "run.steps: expected an integer >= 1, got a number 2.5"),
    (dict(backend="bogus"), "run.backend: expected auto, cuda, omp, serial or reference, got 'bogus'"),
])
def test_study_override_errors_name_the_key_not_the_flag(tmp_path, kw, what):
    with pytest.raises(ValueError, match=r"^" + re.escape(what)) as err:
        ib.study(mini(mu=0.3), out=str(tmp_path / "o"), **kw)
    no_flag_names(err)


def test_study_infinite_truncnormal_bound_in_the_string_form(tmp_path):
    r = ib.study(mini(e="truncnormal:0.5:0.1:-inf:inf"), out=str(tmp_path / "o"))  # what the message offers
    assert len(r.tables["newton"]) == 10


def test_study_numpy_scalars_and_arrays_are_config_values(tmp_path):
    cfg = mini(mu=np.float64(0.3), V0x={"linspace": np.array([-2.0, 2.0, 5.0])}, e=np.float32(0.5))
    cfg["design"] = {"kind": "grid"}
    cfg["study"]["laws"] = np.array(["newton"])
    a = ib.study(cfg, out=str(tmp_path / "a"))
    b = ib.study(mini(mu=0.3, V0x={"linspace": [-2, 2, 5]}, e=0.5) | {"design": {"kind": "grid"}},
                 out=str(tmp_path / "b"))
    assert len(a.tables["newton"]) == 5 and a.tables["newton"].equals(b.tables["newton"])
    c = ib.study(mini(mu=0.3) | {"design": {"kind": "mc", "n": np.int64(10), "seed": np.uint8(1)}},
                 out=str(tmp_path / "c"), design__n=np.int64(12), set={"params.e": np.float64(0.25)})
    assert len(c.tables["newton"]) == 12 and (c.tables["newton"]["e"] == 0.25).all()


@pytest.mark.parametrize("config, exc, what", [
    (mini(mu=object()), TypeError, "params.mu: a value of type object is not a config value"),
    (mini(mu={1: 2}), TypeError, "params.mu.1: config keys must be strings"),
    (mini(mu=np.ma.masked_array([0.1, 0.2], mask=[False, True])), ValueError, "params.mu: a masked array"),
    (42, TypeError, "config: expected a file name or a dict, got int"),
])
def test_study_config_types(tmp_path, config, exc, what):
    with pytest.raises(exc, match=re.escape(what)):
        ib.study(config, out=str(tmp_path / "o"))


def test_study_option_types(tmp_path):
    with pytest.raises(TypeError, match=re.escape("backend: expected a string, got int")):
        ib.study(mini(mu=0.3), out=str(tmp_path / "o"), backend=3)
    with pytest.raises(TypeError, match=re.escape("set: expected a dict")):
        ib.study(mini(mu=0.3), out=str(tmp_path / "o"), set=["design.n=3"])
