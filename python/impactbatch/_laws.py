"""The laws and statuses of the compiled library: the Status codes, laws() and law(), the version, whether
CUDA is usable, and eta0_from_elastic (Jia's compliance ratio from elastic constants)."""
from __future__ import annotations

import enum
import warnings
from typing import Any, Dict, List, Optional

import numpy as np

from . import _core
from ._args import _real_array

# module="impactbatch": the enum is the package's (its repr and pickles name impactbatch.Status)
Status = enum.IntEnum("Status", [(name, code) for code, name in enumerate(_core.status_names())], module="impactbatch")
Status.__doc__ = "The per-instance status codes, as in the CLI's tables (`impact laws` lists them)."

_INPUTS: List[str] = list(_core.input_names())  # W_xx .. W_zz, n_x .. n_z, v_x .. v_z, mu, e, e_t, eta0
_PARAMS = ("mu", "e", "e_t", "eta0")
_LAWS: Dict[str, Dict[str, Any]] = {d["name"]: d for d in _core.laws()}
_DTYPES = {"double": np.float64, "float": np.float32}
_UPPER = ((0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2))  # W_xx, W_xy, W_xz, W_yy, W_yz, W_zz


def _integrator_option(law: str, steps: int, integrator: str) -> Optional[str]:
    """The integrator option given (steps or integrator, off their defaults 250 and "rk4"), or None;
    warns when the law integrates nothing (a loop over laws passes the same options to each: said,
    not refused), as the CLI's note says it."""
    named = "steps" if steps != 250 else "integrator" if integrator != "rk4" else None
    if named is not None and law in _LAWS and not _LAWS[law]["integrator"]:
        warnings.warn(f"{named} changes nothing: {law} is algebraic (no integration steps)", stacklevel=3)
    return named


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
