"""impactbatch: batch evaluation of single-point rigid-body impacts with friction.

NumPy arrays in, NumPy arrays out, through the same compiled library the ``impact`` command runs
(``impactbatch._core``): the same laws, backends, statuses and bits.

    >>> import numpy as np, impactbatch as ib
    >>> W = np.diag([3.5, 3.5, 1.0])                      # contact-space inverse inertia
    >>> r = ib.evaluate("stronge", W, n=[0, 0, 1], v=[-3, 0, -5], mu=0.4, e=0.5)
    >>> r.status[0] == ib.Status.ok, r.P.shape
    (True, (1, 3))

Arrays: ``W`` (N, 3, 3) or (3, 3) (symmetric), ``n`` and ``v`` (N, 3) or (3,), the parameters
``mu``, ``e``, ``e_t``, ``eta0`` (N,) or scalars; whatever is given once is used for every instance.
"""
from __future__ import annotations

import contextlib
import enum
import json
import math
import operator
import os
import re
from typing import Any, Dict, List, Optional

import numpy as np

from . import _core, _device
from ._device import DeviceResult

# the package's version: pyproject.toml's [project] version, kept equal to it (python/tests/test_arviz.py
# compares them); version() is the compiled library's, with its git revision
__version__ = "0.1.0"

__all__ = ["Status", "Result", "DeviceResult", "evaluate", "laws", "law", "status_name", "version", "cuda_usable", "Body", "Contact",
           "two_bodies", "after_impact", "reduce", "scenarios", "scenario", "Instances", "study", "StudyResult",
           "eta0_from_elastic", "compare", "Comparison"]

Status = enum.IntEnum("Status", [(name, code) for code, name in enumerate(_core.status_names())])
Status.__doc__ = "The per-instance status codes, as in the CLI's tables (`impact laws` lists them)."

_INPUTS: List[str] = list(_core.input_names())  # W_xx .. W_zz, n_x .. n_z, v_x .. v_z, mu, e, e_t, eta0
_PARAMS = ("mu", "e", "e_t", "eta0")
_LAWS: Dict[str, Dict[str, Any]] = {d["name"]: d for d in _core.laws()}
_DTYPES = {"double": np.float64, "float": np.float32}
_UPPER = ((0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2))  # W_xx, W_xy, W_xz, W_yy, W_yz, W_zz


def version() -> str:
    """The library's version and git revision."""
    return _core.version()


def cuda_usable() -> tuple:
    """(usable, why): whether the CUDA backend can run here, and why not."""
    return tuple(_core.cuda_usable())


def laws() -> List[Dict[str, Any]]:
    """The laws: name, summary, integrator (True for jia and stronge), the parameters each reads,
    and its extra output columns (name, meaning)."""
    return [dict(d, params=list(d["params"]), extras=[dict(x) for x in d["extras"]]) for d in _LAWS.values()]


def law(name: str) -> Dict[str, Any]:
    """One law's entry of laws(); ValueError naming the known laws otherwise."""
    if name not in _LAWS:
        raise ValueError(f"unknown law {name!r} (known: {', '.join(_LAWS)})")
    return laws()[list(_LAWS).index(name)]


def status_name(code: int) -> str:
    return Status(int(code)).name


# ---- argument checks: every error names the Python argument --------------------------------------

_INT_MAX = 2**31 - 1  # steps: a C int, as the CLI's --steps
_U64_MAX = 2**64 - 1  # n, first, seed, chunk of reduce(): 64-bit unsigned, as the CLI's


def _integer(name: str, x: Any, lo: int, hi: int) -> int:
    """x as a Python int in [lo, hi]: Python and NumPy integers, and floats of an integral value (1e6);
    a bool, a float with a fraction (2.7), NaN, inf or anything else raises naming the argument."""
    if isinstance(x, np.ndarray) and x.ndim == 0:
        x = x[()]
    if isinstance(x, (bool, np.bool_)):
        raise TypeError(f"{name}: expected an integer, got a bool ({x})")
    if isinstance(x, (float, np.floating)):
        if not (math.isfinite(x) and float(x).is_integer()):
            raise ValueError(f"{name}: expected an integer, got {float(x)!r} (not truncated: give a whole number)")
        v = int(x)
    else:
        try:
            v = operator.index(x)
        except TypeError:
            raise TypeError(f"{name}: expected an integer, got {type(x).__name__} {x!r}") from None
    if not lo <= v <= hi:
        raise ValueError(f"{name}: must be an integer from {lo} to {hi}, got {v}")
    return v


def _string(name: str, x: Any) -> str:
    if not isinstance(x, str):
        raise TypeError(f"{name}: expected a string, got {type(x).__name__} {x!r}")
    return x


# the command-line options whose names the library's messages use, as the Python arguments
_FLAG_ARGS = {"steps": "steps", "precision": "precision", "backend": "backend", "integrator": "integrator",
              "n": "n", "first": "first", "seed": "seed", "chunk": "chunk", "scenario": "scenario", "set": "settings",
              "range": "ranges", "tol": "tol"}


@contextlib.contextmanager
def _python_names(*replace: tuple):
    """ValueErrors of the compiled library naming a command-line option (--steps) name the Python
    argument (steps) instead; `replace`: (text, by) pairs applied first ("--set: " -> "": the message
    goes on with the config key, which is the Python argument's name)."""
    try:
        yield
    except ValueError as err:
        msg = str(err)
        new = msg
        for text, by in replace:
            new = new.replace(text, by)
        new = re.sub(r"--([a-z][a-z-]*)", lambda m: _FLAG_ARGS.get(m.group(1), m.group(0)), new)
        if new == msg:
            raise
        raise ValueError(new) from None


def _real_array(name: str, x: Any) -> np.ndarray:
    kind = _device.device_kind(x)
    if kind is not None:
        raise TypeError(f"{name}: a device array ({kind}); this function takes host arrays (evaluate() takes "
                        f"device arrays; else copy it to the host first, e.g. cupy.asnumpy(x) or x.cpu().numpy())")
    if isinstance(x, np.ma.MaskedArray):
        masked = int(np.count_nonzero(np.ma.getmaskarray(x)))
        if masked:
            raise ValueError(f"{name}: a masked array with {masked} masked element(s) of {x.size}; impactbatch has no "
                             f"missing values: fill them ({name}.filled(value)) or leave those rows out")
        x = np.ma.getdata(x)
    try:
        a = np.asarray(x)
    except Exception as err:
        raise TypeError(f"{name}: not an array of real numbers ({err})") from None
    if a.dtype.kind not in "fiu":
        raise TypeError(f"{name}: expected real numbers, got an array of dtype {a.dtype}")
    return a


def _batch_len(name: str, shape: tuple, lengths: Dict[str, int]) -> None:
    if len(shape) == 0:
        return
    if len(shape) != 1:
        raise ValueError(f"{name}: expected one batch dimension, got batch shape {shape}")
    lengths[name] = shape[0]


def _columns(law: str, W: Any, n: Any, v: Any, mu: Any, e: Any, e_t: Any, eta0: Any, precision: str):
    """The 16 contiguous input columns of evaluate()'s arguments (None where the law does not read a
    parameter), the batch length N and the law's entry of laws(); errors name the argument."""
    if _string("law", law) not in _LAWS:
        raise ValueError(f"law: unknown law {law!r} (known: {', '.join(_LAWS)})")
    if _string("precision", precision) not in _DTYPES:
        raise ValueError(f"precision: expected 'double' or 'float', got {precision!r}")
    info = _LAWS[law]
    dtype = _DTYPES[precision]
    lengths: Dict[str, int] = {}

    Wa = _real_array("W", W)
    if Wa.ndim < 2 or Wa.shape[-2:] != (3, 3):
        raise ValueError(f"W: expected shape (N, 3, 3) or (3, 3), got {Wa.shape}")
    _batch_len("W", Wa.shape[:-2], lengths)
    # symmetric to 1e-12 of max|W| per instance (the upper triangle is used); on the three pairs and
    # six entries only, a few passes over N values
    up = [Wa[..., i, j].astype(np.float64, copy=False) for i, j in _UPPER]
    asym = np.maximum.reduce([np.abs(up[1] - Wa[..., 1, 0]), np.abs(up[2] - Wa[..., 2, 0]),
                              np.abs(up[4] - Wa[..., 2, 1])])
    scale = np.maximum.reduce([np.abs(x) for x in up])
    bad = ~(asym <= 1e-12 * scale)
    if np.any(bad & np.isfinite(scale)):
        i = int(np.argmax(bad & np.isfinite(scale))) if bad.ndim else 0
        raise ValueError(f"W: not symmetric (instance {i}: max |W - W^T| = {np.ravel(asym)[i]:.3g} against "
                         f"max |W| = {np.ravel(scale)[i]:.3g})")
    vecs = {}
    for name, x in (("n", n), ("v", v)):
        a = _real_array(name, x)
        if a.ndim < 1 or a.shape[-1] != 3:
            raise ValueError(f"{name}: expected shape (N, 3) or (3,), got {a.shape}")
        _batch_len(name, a.shape[:-1], lengths)
        vecs[name] = a
    params = {}
    for name, x in zip(_PARAMS, (mu, e, e_t, eta0)):
        if x is None:
            if name in info["params"]:
                raise ValueError(f"{name}: required by law {law!r} (it reads {', '.join(info['params'])})")
            continue
        a = _real_array(name, x)
        _batch_len(name, a.shape, lengths)
        params[name] = a
    sizes = set(lengths.values())
    if len(sizes) > 1:
        raise ValueError("batch lengths differ: " + ", ".join(f"{k} {v}" for k, v in lengths.items()))
    N = sizes.pop() if sizes else 1

    def col(a: np.ndarray) -> np.ndarray:
        return np.ascontiguousarray(np.broadcast_to(a, (N,)), dtype=dtype)

    cols: List[Optional[np.ndarray]] = []
    for i, j in _UPPER:
        cols.append(col(Wa[..., i, j]))
    for name in ("n", "v"):
        for k in range(3):
            cols.append(col(vecs[name][..., k]))
    for name in _PARAMS:
        cols.append(col(params[name]) if name in params and name in info["params"] else None)
    return cols, N, info




def evaluate(law: str, W: Any, n: Any, v: Any, mu: Any = None, e: Any = None, e_t: Any = None, eta0: Any = None, *,
             backend: str = "auto", precision: str = "double", steps: int = 250,
             integrator: str = "rk4") -> "Result | DeviceResult":
    """Evaluates N impacts with one law.

    law: a name of laws() (newton, chatterjee-ruina, aghili, morgan, stronge, jia).
    W: (N, 3, 3) or (3, 3) contact-space inverse inertia (symmetric positive definite); n: (N, 3) or
    (3,) contact normal; v: (N, 3) or (3,) relative velocity before the impact (v.n < 0 approaches);
    mu, e, e_t, eta0: (N,) or scalars, those the law reads (laws()[i]["params"]) are required, the
    others are ignored.
    backend: "auto" (cuda where it pays and a device is usable, else omp), "omp", "serial", "cuda"
    or "reference" (the CPU reference, double only); precision: "double" or "float"; steps and
    integrator ("rk4", "euler"): the fixed step count of the integrators (jia, stronge).
    Returns a Result (P, vf, dE, status and the law's extra outputs, one row per instance).

    Device arrays (CuPy, PyTorch, JAX, or anything with __cuda_array_interface__ or a CUDA DLPack
    export; float64 or float32, any strides) are read where they are and the law runs on the GPU:
    the results come back as device arrays of the same kind, in a DeviceResult, without a host round
    trip. Every array argument must then be on the same device (a parameter may be a number).
    """
    args = {"W": W, "n": n, "v": v, "mu": mu, "e": e, "e_t": e_t, "eta0": eta0}
    steps = _options(law, backend, precision, steps, integrator)
    if any(_device.device_kind(x) is not None for x in args.values() if x is not None):
        with _python_names():
            return _device.evaluate(law, args, _LAWS[law], backend=backend, precision=precision, steps=steps,
                                    integrator=integrator)
    cols, N, info = _columns(law, W, n, v, mu, e, e_t, eta0, precision)
    with _python_names():
        out = _core.evaluate(law, cols, N, backend, precision, steps, integrator)
    return Result(law, info, precision, out)


def _options(law: Any, backend: Any, precision: Any, steps: Any, integrator: Any) -> int:
    """The options of evaluate() and compare() checked, naming the argument; returns steps as an int."""
    _string("law", law)
    if law not in _LAWS:
        raise ValueError(f"law: unknown law {law!r} (known: {', '.join(_LAWS)})")
    _string("backend", backend)
    if _string("precision", precision) not in _DTYPES:
        raise ValueError(f"precision: expected 'double' or 'float', got {precision!r}")
    _string("integrator", integrator)
    return _integer("steps", steps, 1, _INT_MAX)


class Result:
    """The outcome of evaluate(): one row per instance.

    P, vf: (N, 3) impulse on body 1 and velocity after the impact; dE: (N,) energy change; status:
    (N,) uint8 codes (Status); extras: the law's extra columns by name (e.g. In_c, modes, steps,
    sigma). A row whose status is not ok has no result: NaN in P, vf, dE and the real extras,
    steps -1, modes 0 (the CLI leaves those cells empty).
    """

    def __init__(self, law: str, info: Dict[str, Any], precision: str, out: Dict[str, Any]):
        self.law = law
        self.precision = precision
        self.backend = out["backend"]
        self.backend_why = out["backend_why"]
        self._out = out
        self.status: np.ndarray = out["status"]
        self.dE: np.ndarray = out["dE"]
        self.extras: Dict[str, np.ndarray] = {x["name"]: out[x["source"]] for x in info["extras"]}

    def __len__(self) -> int:
        return int(self.status.shape[0])

    @property
    def P(self) -> np.ndarray:
        return np.stack([self._out["P_x"], self._out["P_y"], self._out["P_z"]], axis=1)

    @property
    def vf(self) -> np.ndarray:
        return np.stack([self._out["vf_x"], self._out["vf_y"], self._out["vf_z"]], axis=1)

    @property
    def ok(self) -> np.ndarray:
        """Boolean mask of the rows with status ok."""
        return self.status == int(Status.ok)

    def columns(self) -> List[str]:
        """The table's columns, in the order of `impact eval`'s result columns."""
        return ["P_x", "P_y", "P_z", "vf_x", "vf_y", "vf_z", "dE", "status"] + list(self.extras)

    def __getitem__(self, name: str) -> np.ndarray:
        if name in self.extras:
            return self.extras[name]
        if name in ("P_x", "P_y", "P_z", "vf_x", "vf_y", "vf_z", "dE", "status"):
            return self._out[name]
        raise KeyError(f"{name!r}: no such column (columns: {', '.join(self.columns())})")

    def status_counts(self) -> Dict[str, int]:
        codes, counts = np.unique(self.status, return_counts=True)
        return {Status(int(c)).name: int(k) for c, k in zip(codes, counts)}

    def mode_strings(self) -> List[str]:
        """The contact-mode sequences ('slip>stick', ...) of a law that reports them; '' without a result."""
        if "modes" not in self.extras:
            raise KeyError(f"law {self.law!r} reports no mode sequence")
        return [_core.modes_string(int(b)) if s == 0 else "" for b, s in zip(self.extras["modes"], self.status)]

    def to_numpy(self) -> np.ndarray:
        """One structured array: P_x .. dE, status (uint8 code) and the extras, named fields."""
        names = self.columns()
        arr = np.empty(len(self), dtype=[(c, self[c].dtype) for c in names])
        for c in names:
            arr[c] = self[c]
        return arr

    def to_pandas(self):
        """A pandas DataFrame of the columns; status as a categorical of the status names."""
        import pandas as pd

        df = pd.DataFrame({c: self[c] for c in self.columns()})
        df["status"] = pd.Categorical.from_codes(self.status.astype(np.int64), categories=[s.name for s in Status])
        if "modes" in self.extras:
            df["modes"] = self.mode_strings()
        return df

    def __repr__(self) -> str:
        counts = ", ".join(f"{k} {v}" for k, v in self.status_counts().items())
        return f"<impactbatch.Result law={self.law} rows={len(self)} backend={self.backend} {self.precision}: {counts}>"


# ---- bodies ----------------------------------------------------------------------------------------


class Body:
    """A rigid body at the instant of impact (world frame; any consistent units, e.g. SI).

    mass: > 0, or inf for a fixed body (a table, the ground: at rest, the rest ignored);
    inertia: 3x3 about the centre of mass in the body frame (SPD), or 3 principal moments;
    orientation: quaternion (w, x, y, z), world from body; com: centre of mass; V: its velocity;
    omega: angular velocity in the world frame. Every field may carry a batch dimension N.
    """

    def __init__(self, mass: Any = 1.0, inertia: Any = None, orientation: Any = (1.0, 0.0, 0.0, 0.0),
                 com: Any = (0.0, 0.0, 0.0), V: Any = (0.0, 0.0, 0.0), omega: Any = (0.0, 0.0, 0.0)):
        self.mass, self.orientation, self.com, self.V, self.omega = mass, orientation, com, V, omega
        self.inertia = np.eye(3) if inertia is None else inertia

    @staticmethod
    def fixed() -> "Body":
        """An immovable body at rest."""
        return Body(mass=np.inf)

    def _rows(self, name: str, lengths: Dict[str, int]) -> List[np.ndarray]:
        m = _real_array(f"{name}.mass", self.mass)
        _batch_len(f"{name}.mass", m.shape, lengths)
        inertia = _real_array(f"{name}.inertia", self.inertia)
        if inertia.shape[-1:] == (3,) and (inertia.ndim == 1 or inertia.shape[-2:] != (3, 3)):
            inertia = np.einsum("...i,ij->...ij", inertia, np.eye(3))  # principal moments
        if inertia.ndim < 2 or inertia.shape[-2:] != (3, 3):
            raise ValueError(f"{name}.inertia: expected shape (N, 3, 3), (3, 3), (N, 3) or (3,), got {inertia.shape}")
        _batch_len(f"{name}.inertia", inertia.shape[:-2], lengths)
        out = [m, inertia]
        for field, width in (("orientation", 4), ("com", 3), ("V", 3), ("omega", 3)):
            a = _real_array(f"{name}.{field}", getattr(self, field))
            if a.ndim < 1 or a.shape[-1] != width:
                raise ValueError(f"{name}.{field}: expected shape (N, {width}) or ({width},), got {a.shape}")
            _batch_len(f"{name}.{field}", a.shape[:-1], lengths)
            out.append(a)
        return out


class Contact:
    """A contact between two bodies: the contact-space arrays W (N, 3, 3), n (N, 3), v (N, 3) that
    evaluate() takes, and what after_impact() needs to map the impulses back to the bodies."""

    def __init__(self, W, n, v, rows):
        self.W, self.n, self.v = W, n, v
        self._rows = rows

    def __iter__(self):  # W, n, v = two_bodies(...)
        return iter((self.W, self.n, self.v))


def _body_rows(body1: Body, body2: Optional[Body], point: Any, normal: Any, extra: Dict[str, Any]):
    for name, b in (("body1", body1), ("body2", body2)):
        if not isinstance(b, Body) and not (name == "body2" and b is None):
            raise TypeError(f"{name}: expected an impactbatch.Body{' (or None: fixed)' if name == 'body2' else ''}, "
                            f"got {type(b).__name__}")
    lengths: Dict[str, int] = {}
    r1 = body1._rows("body1", lengths)
    r2 = (body2 if body2 is not None else Body.fixed())._rows("body2", lengths)
    vecs = []
    for name, x in (("point", point), ("normal", normal)) + tuple(extra.items()):
        a = _real_array(name, x)
        if a.ndim < 1 or a.shape[-1] != 3:
            raise ValueError(f"{name}: expected shape (N, 3) or (3,), got {a.shape}")
        _batch_len(name, a.shape[:-1], lengths)
        vecs.append(a)
    sizes = set(lengths.values())
    if len(sizes) > 1:
        raise ValueError("batch lengths differ: " + ", ".join(f"{k} {v}" for k, v in lengths.items()))
    N = sizes.pop() if sizes else 1

    def rows(a: np.ndarray, width: int) -> np.ndarray:
        shape = (N,) if width == 1 else (N, width)
        if width == 9:
            return np.ascontiguousarray(np.broadcast_to(a, (N, 3, 3)), dtype=np.float64).reshape(N, 9)
        return np.ascontiguousarray(np.broadcast_to(a, shape), dtype=np.float64)

    widths = (1, 9, 4, 3, 3, 3)
    b1 = tuple(rows(a, w) for a, w in zip(r1, widths))
    b2 = tuple(rows(a, w) for a, w in zip(r2, widths))
    return N, b1, b2, [rows(a, 3) for a in vecs]


def two_bodies(body1: Body, body2: Optional[Body] = None, point: Any = (0.0, 0.0, 0.0),
               normal: Any = (0.0, 0.0, 1.0)) -> Contact:
    """The contact space of two bodies touching at `point` (Jia 2013, eqs. 1-4): W, n, v for
    evaluate(). body2 None: a fixed body (the ground). normal: from body 2 into body 1 (any length).

        >>> ball = ib.Body(mass=1.0, inertia=[0.4] * 3, com=[0, 0, 1], V=[1, 0, -2], omega=[0, 3, 0])
        >>> c = ib.two_bodies(ball, None, point=[0, 0, 0], normal=[0, 0, 1])
        >>> r = ib.evaluate("stronge", c.W, c.n, c.v, mu=0.3, e=0.8)
        >>> after = ib.after_impact(c, r.P)      # the ball's V1, omega1 after the impact
    """
    N, b1, b2, (pt, nr) = _body_rows(body1, body2, point, normal, {})
    W, n, v = _core.two_bodies(b1, b2, pt, nr, N)
    return Contact(W, n, v, (N, b1, b2, pt, nr))


def after_impact(contact: Contact, P: Any) -> Dict[str, np.ndarray]:
    """The bodies after the impulses P (N, 3) (a Result's r.P: NaN rows stay NaN): V1, omega1, V2,
    omega2 (N, 3) and the total kinetic energy before and after (K_before, K_after)."""
    if not isinstance(contact, Contact):
        raise TypeError(f"contact: expected the Contact of two_bodies(), got {type(contact).__name__}")
    N, b1, b2, pt, nr = contact._rows
    Pa = _real_array("P", P)
    if Pa.shape not in ((N, 3), (3,)):
        raise ValueError(f"P: expected shape ({N}, 3), got {Pa.shape}")
    Pr = np.ascontiguousarray(np.broadcast_to(Pa, (N, 3)), dtype=np.float64)
    return dict(_core.after_impulse(b1, b2, pt, nr, Pr, N))


# ---- sampled reduction (impact reduce) -----------------------------------------------------------------


def reduce(law: str, n: int = 1_000_000, *, scenario: str = "contact", first: int = 0, seed: int = 1,
           backend: str = "auto", precision: str = "double", steps: int = 250, integrator: str = "rk4",
           ranges: Optional[Dict[str, tuple]] = None, chunk: int = 0, **settings: Any) -> Dict[str, Any]:
    """The sampled reduction of `impact reduce`: instances [first, first + n) of a scenario drawn by the
    counter-based generator (on the device with cuda), evaluated and folded into status counts,
    moments and histograms of P.n, |P_t|, vf.n and dE/K0, with memory flat in n.

    settings: the scenario's distributions, KEY=DIST as in `impact reduce --set` (e.g.
    mu="uniform:0.1:0.9", e=0.5 for a fixed value); ranges: {"Pn": (lo, hi), ...} histogram ranges
    (default: from a pilot run). Returns the summary as a dict, the same as `impact reduce --out`'s
    JSON, with "backend_why" (how the backend was chosen).
    """
    q = _core.ReduceRequest()
    q.law, q.scenario = _string("law", law), _string("scenario", scenario)
    q.n, q.first = _integer("n", n, 1, _U64_MAX), _integer("first", first, 0, _U64_MAX)
    if q.first + q.n > _U64_MAX:
        raise ValueError(f"first + n: the instances [first, first + n) must lie in the 64-bit index range "
                         f"(first + n <= 2**64 - 1), got first={q.first}, n={q.n}")
    q.seed, q.chunk = _integer("seed", seed, 0, _U64_MAX), _integer("chunk", chunk, 0, _U64_MAX)
    q.backend, q.precision = _string("backend", backend), _string("precision", precision)
    q.steps, q.integrator = _integer("steps", steps, 1, _INT_MAX), _string("integrator", integrator)
    q.sets = [f"{k}={_setting(k, v)}" for k, v in settings.items()]
    if ranges is not None and not isinstance(ranges, dict):
        raise TypeError(f"ranges: expected a dict {{quantity: (lo, hi)}}, got {type(ranges).__name__}")
    q.ranges = [f"{k}={lo}:{hi}" for k, (lo, hi) in ((k, _range(k, r)) for k, r in (ranges or {}).items())]
    with _python_names(("--set ", "")):  # "--set mu=bogus: ..." -> "mu=bogus: ..."
        text, why = _core.reduce(q)
    out = json.loads(text)
    out["backend_why"] = why
    return out


def _setting(key: str, v: Any) -> str:
    """A reduce() setting as the KEY=DIST text of `impact reduce --set`: a distribution string, or a
    number (a fixed value)."""
    if isinstance(v, np.ndarray) and v.ndim == 0:
        v = v[()]
    if isinstance(v, str):
        return v
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise TypeError(f"{key}: expected a number or a distribution such as 'uniform:0.1:0.9', "
                        f"got {type(v).__name__} {v!r}")
    if not math.isfinite(v):
        raise ValueError(f"{key}: expected a finite number or a distribution such as 'uniform:0.1:0.9', got {v!r}")
    return repr(float(v)) if isinstance(v, (float, np.floating)) else str(int(v))


def _range(key: str, r: Any) -> tuple:
    try:
        lo, hi = (float(x) for x in r)
    except (TypeError, ValueError):
        raise TypeError(f"ranges[{key!r}]: expected a pair of numbers (lo, hi), got {r!r}") from None
    if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
        raise ValueError(f"ranges[{key!r}]: expected finite lo < hi, got ({lo!r}, {hi!r})")
    return repr(lo), repr(hi)


# ---- study scenarios ---------------------------------------------------------------------------------


def scenarios() -> List[Dict[str, Any]]:
    """The study scenarios (`impact scenarios`): name, summary, parameters (name, default, help) and the
    body-level outputs each computes after the impact."""
    return [dict(d) for d in _core.scenarios()]


class Instances:
    """Contact-space instances of a study scenario (ib.scenario): W, n, v and the law parameters, one
    row per sample, with the scenario's build status per row (param_out_of_range, W_not_spd, ... where
    a sample cannot be built; its inputs are NaN)."""

    def __init__(self, name: str, values: np.ndarray, params: List[str], built: np.ndarray, cols: List[np.ndarray]):
        self.scenario, self.values, self.params, self.built = name, values, params, built
        N = len(built)
        c = {k: a for k, a in zip(_INPUTS, cols)}
        W = np.empty((N, 3, 3))
        for (i, j), k in zip(_UPPER, _INPUTS[:6]):
            W[:, i, j] = W[:, j, i] = c[k]
        self.W = W
        self.n = np.stack([c["n_x"], c["n_y"], c["n_z"]], axis=1)
        self.v = np.stack([c["v_x"], c["v_y"], c["v_z"]], axis=1)
        self.mu, self.e, self.e_t, self.eta0 = c["mu"], c["e"], c["e_t"], c["eta0"]

    def __len__(self) -> int:
        return len(self.built)

    def evaluate(self, law: str, **options: Any) -> "Result":
        """evaluate() on these instances; rows that were not built keep their build status."""
        r = evaluate(law, self.W, self.n, self.v, self.mu, self.e, self.e_t, self.eta0, **options)
        bad = self.built != int(Status.ok)
        r.status[bad] = self.built[bad]
        return r

    def body_outputs(self, r: "Result") -> Dict[str, np.ndarray]:
        """The scenario's body-level outputs (e.g. the ball's Vx, wy after the impact) from a Result of
        these instances; NaN where the row has no result."""
        names = next(d["body_outputs"] for d in _core.scenarios() if d["name"] == self.scenario)
        P = np.where(r.ok[:, None], r.P, np.nan).astype(np.float64)
        out = _core.scenario_body(self.scenario, self.values, np.ascontiguousarray(P), self.built, len(self))
        return {k: out[:, i] for i, k in enumerate(names)}


def scenario(name: str, **params: Any) -> Instances:
    """Instances of a study scenario (scenarios()) from its parameters, scalars or (N,) arrays (any
    left out take their defaults), e.g. ib.scenario("ball", V0x=np.linspace(0, 3, 50), mu=0.3)."""
    info = {d["name"]: d for d in _core.scenarios()}
    if name not in info:
        raise ValueError(f"unknown scenario {name!r} (known: {', '.join(info)})")
    names = [p["name"] for p in info[name]["params"]]
    unknown = [k for k in params if k not in names]
    if unknown:
        raise ValueError(f"scenario {name!r} has no parameter {', '.join(unknown)} (its parameters: {', '.join(names)})")
    lengths: Dict[str, int] = {}
    arrays = {}
    for p in info[name]["params"]:
        a = _real_array(p["name"], params.get(p["name"], p["default"]))
        _batch_len(p["name"], a.shape, lengths)
        arrays[p["name"]] = a
    sizes = set(lengths.values())
    if len(sizes) > 1:
        raise ValueError("batch lengths differ: " + ", ".join(f"{k} {v}" for k, v in lengths.items()))
    N = sizes.pop() if sizes else 1
    values = np.ascontiguousarray(np.stack([np.broadcast_to(arrays[k], (N,)) for k in names], axis=1), dtype=np.float64)
    built, cols = _core.scenario_build(name, values, N)
    return Instances(name, values, names, built, list(cols))


# ---- studies (impact study) ------------------------------------------------------------------------


class StudyResult:
    """The outputs of study(): `out_dir`, the per-law `tables` (pandas DataFrames read from LAW.npy, or
    NumPy structured arrays without pandas), `metadata` (metadata.json as a dict), `files`."""

    def __init__(self, info: Dict[str, Any]):
        import os

        self.out_dir: str = info["out_dir"]
        self.name: str = info["name"]
        self.files: List[str] = list(info["files"])
        self.backend: str = info["backend"]
        self.notes: List[str] = list(info["notes"])
        with open(os.path.join(self.out_dir, "metadata.json")) as f:
            self.metadata: Dict[str, Any] = json.load(f)
        self.tables: Dict[str, Any] = {}
        for law in info["laws"]:
            path = os.path.join(self.out_dir, f"{law}.npy")
            if os.path.exists(path):
                self.tables[law] = _table(np.load(path))

    def __repr__(self) -> str:
        return f"<impactbatch.StudyResult {self.name}: {', '.join(self.tables)} in {self.out_dir}>"


def _table(a: np.ndarray):
    try:
        import pandas as pd
    except ImportError:
        return a
    df = pd.DataFrame({k: a[k] for k in a.dtype.names})
    if "status" in df:
        df["status"] = pd.Categorical.from_codes(df["status"].astype(np.int64), categories=[s.name for s in Status])
    return df


def _config_value(key: str, v: Any) -> Any:
    """A config value (a study dict's entry or an override) as plain JSON data: NumPy scalars as Python
    numbers, NumPy arrays and tuples as lists; NaN, inf and other types raise naming the key."""
    if isinstance(v, dict):
        out = {}
        for k, x in v.items():
            if not isinstance(k, str):
                raise TypeError(f"{key + '.' if key else ''}{k!r}: config keys must be strings, got {type(k).__name__}")
            out[k] = _config_value(f"{key}.{k}" if key else k, x)
        return out
    if isinstance(v, np.ma.MaskedArray) and np.ma.getmaskarray(v).any():
        raise ValueError(f"{key}: a masked array with masked elements; a config value has no missing values")
    if isinstance(v, np.ndarray):
        if v.dtype.kind not in "biufU":
            raise TypeError(f"{key}: a NumPy array of dtype {v.dtype} is not a config value")
        v = np.ma.getdata(v).tolist()
    if isinstance(v, (list, tuple)):
        return [_config_value(f"{key}[{i}]", x) for i, x in enumerate(v)]
    if isinstance(v, np.generic):
        v = v.item()
    if v is None or isinstance(v, (bool, str, int)):
        return v
    if isinstance(v, float):
        if not math.isfinite(v):
            raise ValueError(f"{key}: {v!r} is not accepted: a number in a config must be finite (a parameter is a "
                             f"finite number or a distribution, e.g. 'uniform:0.1:0.9' or {{'dist': 'normal', 'mean': "
                             f"0.5, 'sd': 0.1}}; an infinite bound of truncnormal only in the string form "
                             f"'truncnormal:0.5:0.1:-inf:inf'; docs/study.md)")
        return v
    raise TypeError(f"{key}: a value of type {type(v).__name__} is not a config value (expected a number, string, "
                    f"bool, list or dict)")


def _toml_value(v: Any) -> str:
    """A config value (checked by _config_value) as the TOML value of a KEY=VALUE override."""
    if isinstance(v, dict):
        return "{" + ", ".join(f"{json.dumps(str(k))} = {_toml_value(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    return json.dumps(v)  # numbers, true/false, "strings" (TOML's basic strings)


def _request(q: Any, config: Any, out: Optional[str], backend: Optional[str], set: Optional[Dict[str, Any]],
             overrides: Dict[str, Any], example_key: str) -> Any:
    """Fills a library request (StudyRequest, CalibrateRequest) with a config (a .toml / .json file, or a
    dict sent as JSON), its overrides (`set` with dotted keys, or keyword arguments with "__" for the
    dot, as TOML values), the output folder and the backend; TypeError naming the argument otherwise."""
    if isinstance(config, dict):
        q.config, q.text, q.toml = "<dict>", json.dumps(_config_value("", config), allow_nan=False), False
    elif isinstance(config, (str, os.PathLike)):
        q.config = os.fspath(config)
    else:
        raise TypeError(f"config: expected a file name or a dict, got {type(config).__name__}")
    if set is not None and not isinstance(set, dict):
        raise TypeError(f"set: expected a dict {{'{example_key}': 1000, ...}}, got {type(set).__name__}")
    pairs = dict(set or {})
    pairs.update({k.replace("__", "."): v for k, v in overrides.items()})
    q.sets = [f"{_string('set key', k)}={_toml_value(_config_value(k, v))}" for k, v in pairs.items()]
    if out is not None:
        out = os.fspath(out)
        if not isinstance(out, str) or not out.strip():
            # "" would be "no folder given" below this call, and a path formed from it the root
            raise ValueError(f"out: an empty folder name (name the folder the run writes into; '.' is the "
                             f"current folder), got {out!r}")
    q.out = out if out is not None else ""
    q.backend = _string("backend", backend) if backend is not None else ""
    return q


def study(config: Any, out: Optional[str] = None, *, backend: Optional[str] = None, plots: bool = False,
          quiet: bool = True, set: Optional[Dict[str, Any]] = None, force: bool = False,
          **overrides: Any) -> StudyResult:
    """Runs a study as `impact study` does (docs/study.md) and returns its tables and metadata.

    config: a .toml / .json file, or the config as a dict; out: the output folder (default:
    output.dir of the config, e.g. out/NAME); backend: overrides run.backend; overrides: config keys,
    dotted in `set` (set={"design.n": 1000}) or with "__" for the dot (design__n=1000), as
    `impact study --set KEY=VALUE` (numbers, strings, lists and dicts become TOML values).
    The study owns `out` (docs/study.md, "The output folder"): an earlier study's files there are
    replaced or removed; a folder holding other files raises ValueError unless force=True (as
    `impact study --force`).
    """
    q = _request(_core.StudyRequest(), config, out, backend, set, overrides, "design.n")
    q.plots, q.quiet = bool(plots), bool(quiet)
    if not isinstance(force, bool):
        raise TypeError(f"force: expected True or False, got {type(force).__name__}")
    q.force = force
    with _python_names(("--set: ", "")):  # "--set: design.n: ..." -> "design.n: ..."
        info = _core.study(q)
    return StudyResult(info)


def eta0_from_elastic(E1: Any, nu1: Any, E2: Any = np.inf, nu2: Any = 0.3) -> Any:
    """Jia's tangential-compliance ratio eta0 from the elastic constants of both bodies (Hertz-Mindlin):
    eta0^2 = E* / (4 G*), 1/E* = sum (1 - nu_i^2) / E_i, 1/G* = sum (2 - nu_i) / G_i; for like materials
    (2 - nu) / (2 (1 - nu)) (sqrt(17/14) at nu = 0.3, Jia 2013). E2 = inf: a rigid body 2 (the default).
    Scalars or arrays (broadcast); ValueError naming the argument for E1 <= 0 or not finite, E2 <= 0, NaN,
    or nu outside (-1, 0.5). Moduli too far apart for their ratio in doubles give the limit of the
    stiffer body rigid."""
    a = {}
    for name, x in (("E1", E1), ("nu1", nu1), ("E2", E2), ("nu2", nu2)):
        a[name] = _real_array(name, x).astype(np.float64)
    for name, ok, what in (("E1", lambda E: (E > 0) & np.isfinite(E), "Young's modulus must be > 0 and finite"),
                           ("E2", lambda E: E > 0, "Young's modulus must be > 0 (inf: a rigid body 2)"),
                           ("nu1", lambda nu: (nu > -1) & (nu < 0.5), "Poisson's ratio must be in (-1, 0.5)"),
                           ("nu2", lambda nu: (nu > -1) & (nu < 0.5), "Poisson's ratio must be in (-1, 0.5)")):
        bad = ~ok(a[name])
        if np.any(bad):
            i = int(np.argmax(np.ravel(bad)))
            where = f" (element {i})" if a[name].ndim else ""
            raise ValueError(f"{name}: {what}, got {float(np.ravel(a[name])[i])!r}{where}")
    E1, nu1, E2, nu2 = np.broadcast_arrays(a["E1"], a["nu1"], a["E2"], a["nu2"])
    # eta0 depends on E1 / E2 only: both scaled by the same power of two (exact, so the same bits
    # wherever the moduli are normal numbers) that brings the smaller into [1, 2). Moduli far apart
    # (5e-324 against 1e308) then give the limit of the stiffer body rigid (its modulus overflows to
    # inf), not an overflow's NaN; a body 1 that becomes rigid swaps places with body 2 (the formula
    # is symmetric in the bodies).
    k = np.frexp(np.minimum(E1, E2))[1] - 1
    with np.errstate(over="ignore"):
        E1s, E2s = np.ldexp(E1, -k), np.ldexp(E2, -k)
    swap = np.isinf(E1s)
    out = np.vectorize(_core.eta0_from_elastic, otypes=[np.float64])(np.where(swap, E2s, E1s), np.where(swap, nu2, nu1),
                                                                     np.where(swap, E1s, E2s), np.where(swap, nu1, nu2))
    return float(out) if np.ndim(out) == 0 else out


# ---- the fast path against the CPU reference (impact compare) -------------------------------------


class Comparison:
    """The outcome of compare(): `verdict` ("pass", "fail", "nothing_compared",
    "unverified": rows ok in the fast path that the reference left unresolved), `report` (the JSON
    report of `impact compare --report` as a dict: row counts, per column max / p99 / median of the
    absolute and relative differences), `table` (those per-column figures as a DataFrame, or the
    dict without pandas), `failures` (row, reason, column, rel) and `reference` (a Result of the CPU
    reference on the same rows)."""

    def __init__(self, law: str, info: Dict[str, Any], out: Dict[str, Any]):
        self.report: Dict[str, Any] = json.loads(out["report"])
        self.verdict: str = self.report["verdict"]
        self.failures: List[Dict[str, Any]] = list(out["failures"])
        ref = dict(out["reference"])
        bad = ref["status"] != int(Status.ok)
        for k, a in ref.items():
            if a.dtype.kind == "f":
                a[bad] = np.nan
        ref["steps"][bad] = -1
        ref["modes"][bad] = 0
        ref.update(backend="reference", backend_why="")
        self.reference = Result(law, info, "double", ref)
        try:
            import pandas as pd

            self.table = pd.DataFrame.from_dict(self.report["columns"], orient="index")
        except ImportError:
            self.table = self.report["columns"]

    @property
    def passed(self) -> bool:
        return self.verdict == "pass"

    def __repr__(self) -> str:
        r = self.report
        return (f"<impactbatch.Comparison {r['law']} {r['precision']}: {self.verdict}, {r['rows']} rows, "
                f"{r['both_ok']} ok in both, {len(self.failures)} beyond tolerance {r['tol']:g}>")


def compare(law: str, W: Any, n: Any, v: Any, mu: Any = None, e: Any = None, e_t: Any = None, eta0: Any = None, *,
            backend: str = "auto", precision: str = "double", steps: int = 250, integrator: str = "rk4",
            tol: Optional[float] = None) -> Comparison:
    """`impact compare` on arrays: the fast path (backend, precision) against the CPU reference on the
    same instances (docs/cpu-reference.md), every output column compared relative to the instance's own
    scale; tol: a finite number > 0, by default (None) 1e-5 in double, 1e-2 in float. Arguments as
    evaluate()'s."""
    steps = _options(law, backend, precision, steps, integrator)
    if tol is not None:
        if isinstance(tol, (bool, np.bool_)) or not isinstance(tol, (int, float, np.integer, np.floating)):
            raise TypeError(f"tol: expected a number (or None for the default), got {type(tol).__name__} {tol!r}")
        tol = float(tol)
        if not (math.isfinite(tol) and tol > 0):
            raise ValueError(f"tol: must be a finite number > 0 (None: 1e-5 in double, 1e-2 in float), got {tol!r}")
    cols, N, info = _columns(law, W, n, v, mu, e, e_t, eta0, "double")
    with _python_names():
        out = _core.compare(law, cols, N, backend, precision, steps, integrator, tol or 0.0)
    return Comparison(law, info, out)


# ---- calibration (impact calibrate) ---------------------------------------------------------------
from ._calibrate import (CalibrationModel, CalibrationResult, LawComparison, calibrate, compare_laws,  # noqa: E402
                         log_likelihood, log_posterior)

__all__ += ["calibrate", "CalibrationResult", "CalibrationModel", "compare_laws", "LawComparison", "log_likelihood",
            "log_posterior"]
