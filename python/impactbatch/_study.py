"""study() (`impact study`) and its StudyResult, and the config requests every run from Python fills
(_request: a file or a dict, overrides as TOML values), which calibrate() shares."""
from __future__ import annotations

import json
import math
import os
from typing import Any, Dict, List, Optional

import numpy as np

from . import _core
from ._args import _flag, _python_names, _string
from ._laws import Status


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
    q.plots, q.quiet, q.force = _flag("plots", plots), _flag("quiet", quiet), _flag("force", force)
    with _python_names(("--set: ", "")):  # "--set: design.n: ..." -> "design.n: ..."
        info = _core.study(q)
    return StudyResult(info)
