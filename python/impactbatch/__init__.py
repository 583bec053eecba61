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

# the package's public names, each defined in the private module of its role: _laws (statuses, laws,
# version, eta0_from_elastic), _evaluate (evaluate, Result), _device (device arrays), _bodies, _reduce,
# _scenarios, _study, _compare and _calibrate; _args checks the arguments of them all
from . import _core, _device  # noqa: F401  (ib._core and ib._device: names callers and the tests use)
from ._bodies import Body, Contact, after_impact, two_bodies
from ._calibrate import (
    CalibrationModel,
    CalibrationResult,
    LawComparison,
    calibrate,
    compare_laws,
    log_likelihood,
    log_posterior,
)
from ._compare import Comparison, compare
from ._device import DeviceResult
from ._evaluate import Result, evaluate
from ._laws import Status, cuda_usable, eta0_from_elastic, law, laws, status_name, version
from ._reduce import reduce
from ._scenarios import Instances, scenario, scenarios
from ._study import StudyResult, study

# the package's version: pyproject.toml's [project] version, kept equal to it (python/tests/test_arviz.py
# compares them); version() is the compiled library's, with its git revision
__version__ = "0.1.0"

__all__ = ["Status", "Result", "DeviceResult", "evaluate", "laws", "law", "status_name", "version", "cuda_usable",
           "Body", "Contact", "two_bodies", "after_impact", "reduce", "scenarios", "scenario", "Instances", "study",
           "StudyResult", "eta0_from_elastic", "compare", "Comparison",
           "calibrate", "CalibrationResult", "CalibrationModel", "compare_laws", "LawComparison", "log_likelihood",
           "log_posterior"]
