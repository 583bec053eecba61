"""evaluate() (`impact eval` on arrays) and its Result: the arguments made into the library's input
columns, host arrays through the compiled core, device arrays through _device."""
from __future__ import annotations

from typing import Any, Dict, List, Optional

import numpy as np

from . import _core, _device
from ._args import _INT_MAX, _batch_len, _integer, _python_names, _real_array, _string
from ._device import DeviceResult
from ._laws import _DTYPES, _LAWS, _PARAMS, _UPPER, Status, _integrator_option


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
    backend: "auto", "omp", "serial", "cuda" or "reference" (the CPU reference, double only). "auto"
    weighs omp, serial (under 4096 rows) and cuda (where usable and the rows pay its start-up) by a
    trial on the call's first rows, once per process for a law and its options, and says which it
    chose and why in the result's backend_why; precision: "double" or "float"; steps and
    integrator ("rk4", "euler"): the fixed step count of the integrators (jia, stronge); other values
    than these defaults would change nothing with the reference, which integrates adaptively and
    refuses them (ValueError), or with an algebraic law, which warns.
    Returns a Result (P, vf, dE, status and the law's extra outputs, one row per instance).

    Device arrays (CuPy, PyTorch, JAX, or anything with __cuda_array_interface__ or a CUDA DLPack
    export; float64 or float32, any strides) are read where they are and the law runs on the GPU:
    the results come back as device arrays of the same kind, in a DeviceResult, without a host round
    trip. Every array argument must then be on the same device (a parameter may be a number).
    """
    args = {"W": W, "n": n, "v": v, "mu": mu, "e": e, "e_t": e_t, "eta0": eta0}
    steps = _options(law, backend, precision, steps, integrator)
    named = _integrator_option(law, steps, integrator)  # a value that would change nothing is not taken in silence
    if named is not None and backend == "reference":
        raise ValueError(f"{named}: the reference integrates adaptively (to a relative 1e-13); steps and "
                         f"integrator set the fast path's integrators")
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
