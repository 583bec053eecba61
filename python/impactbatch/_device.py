"""evaluate() on device arrays: CuPy, PyTorch, JAX (or anything with __cuda_array_interface__ or a
CUDA DLPack export) read and written on the GPU without a host round trip.

Each argument is described to the compiled core by its pointer, dtype and element strides (a view,
not a copy); one kernel per law reads each row where it is, evaluates it and writes its outcome
into arrays of the inputs' kind: made by that library's allocator where it has one (CuPy, PyTorch),
else device memory from the core's pool handed over through DLPack.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from . import _core

KDL_CUDA = 2


def device_kind(x: Any) -> Optional[str]:
    """'cuda' for an array on a CUDA device, another description for a non-host DLPack device, None for
    host data."""
    # the type's attribute first: JAX computes its interface dict on every instance lookup
    if hasattr(type(x), "__cuda_array_interface__") or hasattr(x, "__cuda_array_interface__"):
        return "cuda"
    dev = getattr(x, "__dlpack_device__", None)
    if callable(dev):
        try:
            kind = int(dev()[0])
        except Exception:  # not a DLPack producer after all
            return None
        if kind == KDL_CUDA:
            return "cuda"
        if kind not in (1, 3):  # kDLCPU, kDLCUDAHost
            return f"DLPack device type {kind}"
    return None


def _framework(x: Any) -> str:
    return type(x).__module__.split(".")[0]


class _View:
    """A device array as the core reads it: pointer, float64?, shape, element strides, device id, and
    what keeps the memory alive (a DLPack capsule) while it is read."""

    def __init__(self, name: str, x: Any):
        self.name, self.keep = name, None
        cai = getattr(x, "__cuda_array_interface__", None)
        if cai is not None:
            typestr, shape, strides = cai["typestr"], tuple(cai["shape"]), cai.get("strides")
            ptr = int(cai["data"][0])
            dev = getattr(x, "__dlpack_device__", None)
            self.device = int(dev()[1]) if callable(dev) else int(getattr(getattr(x, "device", None), "id", 0) or 0)
        else:
            dev_type, dev_id = (int(v) for v in x.__dlpack_device__())
            if dev_type != KDL_CUDA:
                raise TypeError(f"{name}: an array on DLPack device type {dev_type}; impactbatch reads host arrays "
                                f"and CUDA device arrays")
            try:
                cap = x.__dlpack__(stream=None)
            except TypeError:
                cap = x.__dlpack__()
            info = _core.dlpack_view(cap)
            self.keep = cap
            typestr, shape, ptr, self.device = info["typestr"], tuple(info["shape"]), int(info["ptr"]), dev_id
            strides = None if info["strides"] is None else tuple(int(s) * int(typestr[2:]) for s in info["strides"])
        if typestr not in ("<f8", "<f4"):
            raise TypeError(f"{name}: expected a float64 or float32 device array, got dtype {typestr}")
        item = int(typestr[2:])
        self.f64, self.shape, self.ptr = typestr == "<f8", shape, ptr
        if strides is None:  # C-contiguous
            el, acc = [], 1
            for s in reversed(shape):
                el.append(acc)
                acc *= s
            self.strides = tuple(reversed(el))
        else:
            if any(int(s) % item for s in strides):
                raise ValueError(f"{name}: strides {tuple(strides)} bytes are not a multiple of the "
                                 f"{item}-byte element")
            self.strides = tuple(int(s) // item for s in strides)

    def core(self, batched: bool, inner: int) -> tuple:
        """(ptr, f64, batch stride, own strides) with a batch dimension or broadcast over the batch."""
        own = list(self.strides[1:] if batched else self.strides)
        while len(own) < 2:
            own.append(0)
        return (self.ptr, self.f64, self.strides[0] if batched else 0, own[0], own[1])


def evaluate(law: str, args: Dict[str, Any], info: Dict[str, Any], *, backend: str, precision: str, steps: int,
             integrator: str) -> "DeviceResult":
    """evaluate() where at least one argument is a device array (the package's evaluate() routes here)."""
    if backend not in ("auto", "cuda"):
        raise ValueError(f"backend: device arrays run on the cuda backend, got backend={backend!r}")
    views: Dict[str, Any] = {}
    first: Optional[Tuple[str, Any]] = None
    lengths: Dict[str, int] = {}
    kinds = {"W": 2, "n": 1, "v": 1, "mu": 0, "e": 0, "e_t": 0, "eta0": 0}
    for name, x in args.items():
        if x is None:
            if name in info["params"]:
                raise ValueError(f"{name}: required by law {law!r} (it reads {', '.join(info['params'])})")
            views[name] = None
            continue
        if device_kind(x) is None:
            if np.ndim(x) == 0 and kinds[name] == 0 and isinstance(np.asarray(x).item(), (int, float)):
                views[name] = float(x)  # a scalar parameter: every row
                continue
            raise TypeError(f"{name}: a host array among device arrays; give every array argument on the same device "
                            f"(a parameter may be a Python number)")
        v = _View(name, x)
        if first is None:
            first = (name, v)
        elif v.device != first[1].device:
            raise ValueError(f"{name}: on CUDA device {v.device}, while {first[0]} is on device {first[1].device}")
        own = kinds[name]
        want = {2: "(N, 3, 3) or (3, 3)", 1: "(N, 3) or (3,)", 0: "(N,) or ()"}[own]
        if len(v.shape) not in (own, own + 1) or tuple(v.shape[len(v.shape) - own:]) != (3,) * own:
            raise ValueError(f"{name}: expected shape {want}, got {v.shape}")
        batched = len(v.shape) == own + 1
        if batched:
            lengths[name] = v.shape[0]
        views[name] = v
    sizes = set(lengths.values())
    if len(sizes) > 1:
        raise ValueError("batch lengths differ: " + ", ".join(f"{k} {n}" for k, n in lengths.items()))
    N = sizes.pop() if sizes else 1
    core = {k: (v.core(k in lengths, kinds[k]) if isinstance(v, _View) else v) for k, v in views.items()}
    framework = _framework(args[first[0]])
    made = _allocate(framework, law, precision, N, first[1].device)
    pointers = None if made is None else {k: _pointer(framework, a) for k, a in made.items()}
    out = _core.evaluate_device(law, precision, int(steps), integrator, first[1].device, N, core, pointers)
    del views  # the capsules (and the inputs they hold) may go now: the device work is finished
    if out["asym_row"] >= 0:
        raise ValueError(f"W: not symmetric (instance {out['asym_row']}: |W - W^T| > 1e-12 max |W|)")
    if made is not None:
        return DeviceResult(law, info, precision, made, framework, pointers, "framework")
    raw = {k: a for k, a in out.items() if k != "asym_row"}
    return DeviceResult(law, info, precision, raw, framework, {k: a.ptr for k, a in raw.items()}, "core")


_DTYPES = {"<f8": "float64", "<f4": "float32", "<u1": "uint8", "<u4": "uint32", "<i4": "int32"}


def _allocate(framework: str, law: str, precision: str, N: int, device: int) -> Optional[Dict[str, Any]]:
    """The result arrays from the inputs' own array library where it has an allocator the core can
    write into (CuPy's memory pool, PyTorch's caching allocator), so that the results are that
    library's arrays from its pool; None for another (JAX arrays are immutable: the core's pool makes
    them). Only while the library's current stream is the legacy default one, which the core's
    kernels run on: the library orders a block's reuse on its current stream, and a block still in
    use by kernels queued on another stream would race with the core's writes."""
    specs = _core.device_outputs(law, precision)
    if framework == "cupy":
        import cupy

        with cupy.cuda.Device(device):
            if cupy.cuda.get_current_stream().ptr != 0:
                return None
            return {name: cupy.empty((N, 3) if width == 3 else (N,), dtype=_DTYPES[t]) for name, width, t in specs}
    if framework == "torch":
        import torch

        dtypes = {t: getattr(torch, _DTYPES[t], None) for _, _, t in specs}
        if any(d is None for d in dtypes.values()):  # a torch without uint32
            return None
        dev = torch.device("cuda", device)
        if torch.cuda.current_stream(dev).cuda_stream != 0:
            return None
        return {name: torch.empty((N, 3) if width == 3 else (N,), dtype=dtypes[t], device=dev)
                for name, width, t in specs}
    return None


def _pointer(framework: str, a: Any) -> int:
    return int(a.data.ptr) if framework == "cupy" else int(a.data_ptr())


def as_kind(a: Any, framework: str) -> Any:
    """A DeviceArray as an array of `framework` (cupy, torch, jax), without a copy; else as is."""
    if framework == "cupy":
        import cupy

        return cupy.from_dlpack(a)
    if framework == "torch":
        import torch

        return torch.from_dlpack(a)
    if framework in ("jax", "jaxlib"):
        import jax.dlpack

        try:
            return jax.dlpack.from_dlpack(a)
        except (TypeError, AttributeError):  # older JAX: a capsule
            return jax.dlpack.from_dlpack(a.__dlpack__())
    return a


class DeviceResult:
    """The results of evaluate() on device arrays, as device arrays of the inputs' kind (CuPy, PyTorch,
    JAX; impactbatch.DeviceArray for others, which speaks DLPack and __cuda_array_interface__):
    P and vf (N, 3), dE and status (N,), and the law's extra outputs by name (r["modes"], r["In_c"], ...;
    modes as packed codes, see Result.mode_strings).

    Where the results live (`memory`): "framework", arrays from CuPy's or PyTorch's own allocator
    (their pools); "core", one block per call from the device's stream-ordered pool, handed to the
    framework through DLPack without a copy when an array is first read. `pointers` holds each
    array's device address."""

    def __init__(self, law: str, info: Dict[str, Any], precision: str, out: Dict[str, Any], framework: str,
                 pointers: Dict[str, int], memory: str):
        self.law, self.info, self.precision, self.framework = law, info, precision, framework
        self.raw, self.pointers, self.memory = out, pointers, memory
        self._arrays: Dict[str, Any] = dict(out) if memory == "framework" else {}

    def __getitem__(self, name: str) -> Any:
        a = self._arrays.get(name)
        if a is None:
            a = self._arrays[name] = as_kind(self.raw[name], self.framework)  # KeyError for an unknown name
        return a

    @property
    def arrays(self) -> Dict[str, Any]:
        return {k: self[k] for k in self.raw}

    def __len__(self) -> int:
        return int(self.raw["status"].shape[0])

    def columns(self) -> List[str]:
        return list(self.raw)

    def __repr__(self) -> str:
        return f"DeviceResult({self.law}, {len(self)} rows on a CUDA device, {self.framework}, memory {self.memory})"


for _name in ("P", "vf", "dE", "status"):  # r.P, r.vf, r.dE, r.status: device arrays of the inputs' kind
    setattr(DeviceResult, _name, property(lambda self, _k=_name: self[_k]))
