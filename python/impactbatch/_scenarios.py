"""The study scenarios (scenarios(), scenario()): contact-space instances built from a scenario's
parameters, evaluated as evaluate() does, and the scenario's body-level outputs."""
from __future__ import annotations

from typing import Any, Dict, List

import numpy as np

from . import _core
from ._args import _batch_len, _real_array
from ._evaluate import Result, evaluate
from ._laws import _INPUTS, _UPPER, Status


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
        raise ValueError(f"scenario {name!r} has no parameter {', '.join(unknown)} "
                         f"(its parameters: {', '.join(names)})")
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
