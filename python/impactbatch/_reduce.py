"""reduce(): the sampled reduction of `impact reduce`, instances drawn and folded into summaries."""
from __future__ import annotations

import json
import math
from typing import Any, Dict, Optional

import numpy as np

from . import _core
from ._args import _INT_MAX, _U64_MAX, _integer, _python_names, _string
from ._laws import _integrator_option


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
    _integrator_option(q.law, q.steps, q.integrator)
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
    if not math.isfinite(hi - lo):
        raise ValueError(f"ranges[{key!r}]: the width hi - lo overflows a double, got ({lo!r}, {hi!r})")
    return repr(lo), repr(hi)
