"""The checks of the package's arguments: every error names the Python argument (and the compiled
library's messages name it too, through _python_names)."""
from __future__ import annotations

import contextlib
import math
import operator
import re
from typing import Any, Dict

import numpy as np

from . import _device

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


def _flag(name: str, x: Any) -> bool:
    """A yes/no argument: True or False only (bool("no") is True, so a truthy word is refused)."""
    if not isinstance(x, (bool, np.bool_)):
        raise TypeError(f"{name}: expected True or False, got {type(x).__name__} {x!r}")
    return bool(x)


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
