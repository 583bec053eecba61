"""compare() (`impact compare` on arrays): the fast path against the CPU reference, and its Comparison."""
from __future__ import annotations

import json
import math
from typing import Any, Dict, List, Optional

import numpy as np

from . import _core
from ._args import _python_names
from ._evaluate import Result, _columns, _options
from ._laws import Status


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
        for a in ref.values():
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
