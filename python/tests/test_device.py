"""evaluate() on device arrays (CuPy, PyTorch, JAX; __cuda_array_interface__ / DLPack).

Without a GPU: the arguments are checked before any device work (shapes, dtypes, a host array among
device arrays, different devices, a non-CUDA DLPack device, batch lengths, the backend), and the
device path says why it cannot run (a build without CUDA, or no usable device). With a GPU and one of
CuPy, PyTorch or JAX: results equal the host path's (cuda against serial within the backends' test
tolerances, identical statuses), come back as the same kind of array, and live where the core wrote
them (CuPy's and PyTorch's arrays from their own allocator, JAX's imported from the core's pool: no
copy), with the inputs read in place (their pointers are what the core was given). Those tests skip,
saying why, elsewhere."""
import importlib.util

import numpy as np
import pytest

import impactbatch as ib
from impactbatch import _device


class FakeCuda:
    """An object that says it lives on a CUDA device (it never reaches a device: the checks come first)."""

    def __init__(self, shape, typestr="<f8", device=None):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr, "data": (1 << 40, False), "version": 3}
        if device is not None:
            self.__dlpack_device__ = lambda: (2, device)


class FakeOther:
    def __dlpack_device__(self):
        return (4, 0)  # kDLOpenCL


def args(N=4):
    return FakeCuda((N, 3, 3)), FakeCuda((N, 3)), FakeCuda((N, 3))


@pytest.mark.parametrize("call, exc, words", [
    (lambda: ib.evaluate("jia", *args()[:1], np.zeros((4, 3)), args()[2], mu=0.3, e=0.5, eta0=1.1), TypeError,
     "n: a host array among device arrays"),
    (lambda: ib.evaluate("jia", *args()[:2], FakeCuda((4, 3), "<i8"), mu=0.3, e=0.5, eta0=1.1), TypeError,
     "v: expected a float64 or float32 device array, got dtype <i8"),
    (lambda: ib.evaluate("jia", *args()[:2], FakeCuda((5, 3)), mu=0.3, e=0.5, eta0=1.1), ValueError,
     "batch lengths differ: W 4, n 4, v 5"),
    (lambda: ib.evaluate("jia", FakeCuda((4, 3)), *args()[1:], mu=0.3, e=0.5, eta0=1.1), ValueError,
     r"W: expected shape \(N, 3, 3\) or \(3, 3\), got \(4, 3\)"),
    (lambda: ib.evaluate("jia", *args(), mu=0.3, e=0.5), ValueError, "eta0: required by law 'jia'"),
    (lambda: ib.evaluate("jia", *args(), mu=FakeCuda((4, 2)), e=0.5, eta0=1.1), ValueError, "mu: expected shape"),
    (lambda: ib.evaluate("jia", *args(), mu=0.3, e=0.5, eta0=1.1, backend="omp"), ValueError,
     "backend: device arrays run on the cuda backend"),
    (lambda: ib.evaluate("jia", FakeCuda((4, 3, 3), device=0), FakeCuda((4, 3), device=1), FakeCuda((4, 3), device=0),
                         mu=0.3, e=0.5, eta0=1.1), ValueError, "n: on CUDA device 1, while W is on device 0"),
    (lambda: ib.evaluate("newton", FakeOther(), [0, 0, 1], [0, 0, -1], e=0.5), TypeError,
     "W: an array on DLPack device type 4; impactbatch reads host arrays and CUDA device arrays"),
    (lambda: ib.evaluate("nolaw", *args(), mu=0.3), ValueError, "law: unknown law 'nolaw'"),
    (lambda: ib.evaluate("jia", *args(), mu=0.3, e=0.5, eta0=1.1, precision="half"), ValueError, "precision"),
    (lambda: ib.two_bodies(ib.Body(V=FakeCuda((3,))), None), TypeError,
     "a device array .cuda.; this function takes host"),
])
def test_device_arguments_checked_before_any_device_work(call, exc, words):
    with pytest.raises(exc, match=words):
        call()


def test_device_path_says_why_it_cannot_run():
    usable, why = ib.cuda_usable()
    if usable:
        pytest.skip("a CUDA device is usable here: the GPU tests below cover the device path")
    W, n, v = args()
    with pytest.raises(RuntimeError, match="built without CUDA" if not ib._core.has_cuda_build() else
                       "device arrays need a usable CUDA device"):
        ib.evaluate("stronge", W, n, v, mu=0.3, e=0.5)


# ---- on a GPU ---------------------------------------------------------------------------------------

def _frameworks():
    out = []
    for name in ("cupy", "torch", "jax"):
        if importlib.util.find_spec(name) is not None:
            out.append(name)
    return out


def _gpu_or_skip(fw):
    usable, why = ib.cuda_usable()
    if not usable:
        pytest.skip(f"no usable CUDA device ({why})")
    if fw not in _frameworks():
        pytest.skip(f"{fw} is not installed")
    if fw == "torch":
        import torch

        if not torch.cuda.is_available():
            pytest.skip("torch without CUDA")
    if fw == "jax":
        import jax

        if not any(d.platform == "gpu" for d in jax.devices()):
            pytest.skip("jax without a GPU backend")


def _to_device(fw, a):
    if fw == "cupy":
        import cupy

        return cupy.asarray(a)
    if fw == "torch":
        import torch

        return torch.as_tensor(a, device="cuda")
    import jax

    return jax.device_put(a, jax.devices("gpu")[0])


def _to_host(x):
    if hasattr(x, "get"):  # cupy
        return x.get()
    if hasattr(x, "cpu"):  # torch
        return x.cpu().numpy()
    return np.asarray(x)


def _pointer(fw, x):
    if fw == "cupy":
        return int(x.data.ptr)
    if fw == "torch":
        return int(x.data_ptr())
    return int(x.unsafe_buffer_pointer())


def _random_rows(N, seed=3):
    r = np.random.default_rng(seed)
    A = r.normal(size=(N, 3, 3))
    W = A @ A.transpose(0, 2, 1) + 0.3 * np.eye(3)
    n = np.tile([0.0, 0.0, 1.0], (N, 1))
    v = np.stack([r.uniform(-3, 3, N), r.uniform(-3, 3, N), -r.uniform(0.5, 5, N)], axis=1)
    return W, n, v, r.uniform(0.05, 1.5, N), r.uniform(0, 1, N), r.uniform(-0.5, 0.5, N), r.uniform(0.7, 2, N)


@pytest.mark.parametrize("fw", ["cupy", "torch", "jax"])
@pytest.mark.parametrize("law", [d["name"] for d in ib.laws()])
@pytest.mark.parametrize("precision", ["double", "float"])
def test_device_arrays_in_device_arrays_out(fw, law, precision):
    _gpu_or_skip(fw)
    if fw == "jax" and precision == "double":
        import jax

        jax.config.update("jax_enable_x64", True)
    dt = np.float64 if precision == "double" else np.float32
    W, n, v, mu, e, e_t, eta0 = (np.asarray(x, dtype=dt) for x in _random_rows(20000))
    host = ib.evaluate(law, W, n, v, mu, e, e_t, eta0, backend="serial", precision=precision)
    dev_in = [_to_device(fw, x) for x in (W, n, v, mu, e, e_t, eta0)]
    r = ib.evaluate(law, *dev_in, precision=precision)
    assert isinstance(r, ib.DeviceResult) and r.framework in (fw, "jaxlib")
    assert type(r.P).__module__.split(".")[0] == type(dev_in[0]).__module__.split(".")[0]
    # no copy of the results: CuPy's and PyTorch's are the arrays their allocator made, whose
    # addresses the core wrote to; JAX's are the core's memory, imported without a copy
    assert r.memory == ("core" if fw == "jax" else "framework")
    for k in r.columns():
        if fw == "jax":
            assert _pointer(fw, r[k]) == r.raw[k].ptr == r.pointers[k], k
        else:
            assert r[k] is r.raw[k] and _pointer(fw, r[k]) == r.pointers[k], k
    st = _to_host(r.status)
    np.testing.assert_array_equal(st, host.status)
    ok = st == 0
    tol = 1e-9 if precision == "double" else 2e-3
    for k in ("P", "vf"):
        a, b = _to_host(r[k])[ok], getattr(host, k)[ok]
        scale = np.maximum(1.0, np.abs(b).max(axis=-1, keepdims=True))
        assert np.all(np.abs(a - b) <= tol * scale), (k, np.max(np.abs(a - b) / scale))


@pytest.mark.parametrize("law", ["chatterjee-ruina", "jia"])
def test_repeated_call_of_the_same_shape_allocates_no_scratch(law):
    """The gather, result and sort buffers are kept per thread and device, so that a repeated call
    pays no allocation: the second call of a shape allocates none (counted by the core), and its
    results are the first's."""
    fw = next((f for f in _frameworks() if f in ("cupy", "torch")), None)
    _gpu_or_skip(fw or "cupy")
    from impactbatch import _core

    dev_in = [_to_device(fw, np.asarray(x)) for x in _random_rows(3000, seed=9)]
    first = ib.evaluate(law, *dev_in)
    before = _core.device_allocations()
    again = ib.evaluate(law, *dev_in)
    assert _core.device_allocations() == before
    np.testing.assert_array_equal(_to_host(again.status), _to_host(first.status))
    np.testing.assert_array_equal(_to_host(again.P), _to_host(first.P))
    # The count is no constant: another host thread starts without scratch, so its first call
    # allocates. (A larger shape in this thread need not: the tests before this one may have grown
    # this thread's buffers beyond it, as they did beyond 6000 rows on an H200.)
    import threading

    got = []
    t = threading.Thread(target=lambda: got.append(ib.evaluate(law, *dev_in)))
    t.start()
    t.join()
    assert len(got) == 1, "the evaluation in the second thread raised"
    assert _core.device_allocations() > before
    np.testing.assert_array_equal(_to_host(got[0].P), _to_host(first.P))


def _calls_of_a_repeated_call(law, rows, seed):
    """The core's CUDA runtime calls, by kind, of evaluate() on CuPy or PyTorch arrays of `rows` rows
    called a second time (after a first call of the same arrays); skips without a device."""
    fw = next((f for f in _frameworks() if f in ("cupy", "torch")), None)
    _gpu_or_skip(fw or "cupy")
    from impactbatch import _core

    dev_in = [_to_device(fw, np.asarray(x)) for x in _random_rows(rows, seed=seed)]
    ib.evaluate(law, *dev_in)
    before = _core.cuda_calls()
    ib.evaluate(law, *dev_in)
    after = _core.cuda_calls()
    return {k: after[k] - before[k] for k in after}


@pytest.mark.parametrize("law,launches", [("chatterjee-ruina", 2), ("jia", 4)])
def test_a_call_of_a_known_shape_is_one_flag_reset_its_launches_one_copy_and_one_wait(law, launches):
    """The fused path's runtime calls, counted by the core per host thread: after a call of the same
    shape none allocates; a law without a regime key is the flag's reset and its one kernel, jia the
    reset, its key kernel, the sort and the ordered kernel; then the flag's copy back and one wait on
    the stream, never on the whole device."""
    made = _calls_of_a_repeated_call(law, 3000, seed=11)
    assert made == {"device_alloc": 0, "host_alloc": 0, "stream_create": 0, "upload": 0, "launch": launches,
                    "download": 1, "stream_sync": 1, "device_sync": 0}


def test_a_result_of_the_cores_pool_waits_for_the_device_once_when_freed():
    """A result block from the core's pool (JAX's results, and CuPy's while its current stream is one of
    its own) goes back to the pool after one wait for the whole device, counted as a device_sync of
    the freeing thread: a consumer may still have kernels that read it queued on its own streams,
    which the legacy stream's order does not cover. The call itself waits on its stream only."""
    _gpu_or_skip("cupy")
    import gc

    import cupy

    from impactbatch import _core

    dev_in = [cupy.asarray(x) for x in _random_rows(1000, seed=5)]
    with cupy.cuda.Stream(non_blocking=True):
        ib.evaluate("chatterjee-ruina", *dev_in)  # a first call of the shape, freed at once
        gc.collect()
        before = _core.cuda_calls()
        r = ib.evaluate("chatterjee-ruina", *dev_in)
        during = _core.cuda_calls()
        assert r.status.shape == (1000,)
        del r
        gc.collect()
        after = _core.cuda_calls()
    assert during["device_sync"] == before["device_sync"] and during["stream_sync"] == before["stream_sync"] + 1
    assert after["device_sync"] == during["device_sync"] + 1


def test_device_inputs_read_in_place_and_strided():
    """A transposed (non-contiguous) W and a broadcast normal give the host path's results."""
    fw = next((f for f in _frameworks() if f in ("cupy", "torch")), None)
    _gpu_or_skip(fw or "cupy")
    W, n, v, mu, e, e_t, eta0 = _random_rows(5000, seed=4)
    dW = _to_device(fw, np.ascontiguousarray(W.transpose(0, 2, 1)))
    Wt = dW.transpose(1, 2) if fw == "torch" else dW.transpose(0, 2, 1)  # W again, as a strided view
    view = _device._View("W", Wt)
    assert view.ptr == _pointer(fw, Wt) and view.strides == (9, 1, 3)  # read where it is, with its strides
    r = ib.evaluate("stronge", Wt, _to_device(fw, np.array([0.0, 0.0, 1.0])), _to_device(fw, v), 0.4, 0.5)
    host = ib.evaluate("stronge", W, [0.0, 0.0, 1.0], v, 0.4, 0.5, backend="serial")
    np.testing.assert_array_equal(_to_host(r.status), host.status)
    ok = host.status == 0
    assert np.allclose(_to_host(r.P)[ok], host.P[ok], rtol=1e-9, atol=1e-12)


def test_every_law_names_the_arrays_it_writes():
    """The arrays the core writes (and a framework's allocator makes): P and vf (N, 3), dE and status
    (N,), then the law's extras, modes uint32, steps int32, the others real; on every build."""
    from impactbatch import _core

    for d in ib.laws():
        for precision, real in (("double", "<f8"), ("float", "<f4")):
            specs = _core.device_outputs(d["name"], precision)
            assert [s[0] for s in specs] == ["P", "vf", "dE", "status"] + [x["name"] for x in d["extras"]]
            assert specs[:4] == [("P", 3, real), ("vf", 3, real), ("dE", 1, real), ("status", 1, "<u1")]
            for (name, width, t), x in zip(specs[4:], d["extras"]):
                assert width == 1 and t == {"modes": "<u4", "steps": "<i4"}.get(x["source"], real), (name, x)


@pytest.mark.parametrize("fw", ["cupy", "torch"])
def test_results_come_from_the_frameworks_allocator(fw):
    """CuPy's and PyTorch's results are made by their own allocator on their default stream: the
    bytes that allocator holds grow by the results', and the core's pool hands out no block for them;
    on another current stream the core's pool makes them instead."""
    _gpu_or_skip(fw)
    from impactbatch import _core

    N = 4096
    dev_in = [_to_device(fw, np.asarray(x)) for x in _random_rows(N, seed=5)]
    ib.evaluate("jia", *dev_in)  # the law's first call: its scratch
    if fw == "cupy":
        import cupy

        held = cupy.get_default_memory_pool().used_bytes
        other = cupy.cuda.Stream(non_blocking=True)
    else:
        import torch

        held = torch.cuda.memory_allocated
        other = torch.cuda.stream(torch.cuda.Stream())
    before, blocks = held(), _core.result_memory()["blocks"]
    r = ib.evaluate("jia", *dev_in)
    written = sum(int(r[k].nbytes) for k in r.columns())
    assert r.memory == "framework" and held() - before >= written
    assert _core.result_memory()["blocks"] == blocks
    with other:
        s = ib.evaluate("jia", *dev_in)
    assert s.memory == "core" and _core.result_memory()["blocks"] == blocks + 1
    np.testing.assert_array_equal(_to_host(s.P), _to_host(r.P))


def test_core_results_come_back_to_its_pool():
    """JAX's results come from the core's own pool, one block per call: an array handed to JAX holds
    its block (a later call gets another); a block whose arrays are all gone is back in the pool, and
    a call of a shape seen before takes it from there, reserving no device memory."""
    _gpu_or_skip("jax")
    from impactbatch import _core

    dev_in = [_to_device("jax", np.asarray(x, dtype=np.float32)) for x in _random_rows(20000, seed=6)]
    r = ib.evaluate("chatterjee-ruina", *dev_in, precision="float")
    assert r.memory == "core"
    P = r.P  # a JAX array over the block, without a copy
    assert int(P.unsafe_buffer_pointer()) == r.pointers["P"]
    del r
    other = ib.evaluate("chatterjee-ruina", *dev_in, precision="float")
    assert other.pointers["P"] != int(P.unsafe_buffer_pointer())  # P's block is still P's
    del P, other  # JAX frees its import when it will; the core's own arrays go at once
    r = ib.evaluate("chatterjee-ruina", *dev_in, precision="float")
    reserved, used = _core.result_memory()["reserved"], _core.result_memory()["used"]
    del r
    assert _core.result_memory()["used"] < used
    again = ib.evaluate("chatterjee-ruina", *dev_in, precision="float")
    assert _core.result_memory()["reserved"] == reserved and again.memory == "core"


@pytest.mark.parametrize("law,launches", [("chatterjee-ruina", 2), ("jia", 4)])
def test_a_batch_that_fits_a_piece_runs_as_one_once_the_law_has_run(law, launches):
    """A call is cut into pieces of about 0.12 s (the unit of Ctrl-C); the first piece is sized from
    the law's rate in this process, so a batch of 5e4 rows (three pieces on a first call: 4096,
    32768 and the rest) is one piece, one launch sequence and one wait, once the law has run (at
    4.2e5 rows/s or more)."""
    made = _calls_of_a_repeated_call(law, 50000, seed=12)
    assert made["launch"] == launches and made["stream_sync"] == 1


@pytest.mark.parametrize("law", ["newton", "chatterjee-ruina", "aghili", "morgan"])
@pytest.mark.parametrize("precision", ["double", "float"])
def test_the_same_rows_in_any_layout_are_the_same_bits(law, precision):
    """Each row is read where it is, with its array's strides: C-contiguous W, n and v and the same
    values in column order (W as (3, 3, N), n and v as (3, N), seen through strided views) give the
    same bits."""
    _gpu_or_skip("cupy")
    import cupy

    dt = np.float64 if precision == "double" else np.float32
    W, n, v, mu, e, e_t, eta0 = (np.asarray(x, dtype=dt) for x in _random_rows(30001, seed=13))
    dense = [cupy.asarray(x) for x in (W, n, v)]
    cols = [cupy.ascontiguousarray(dense[0].transpose(1, 2, 0)).transpose(2, 0, 1)] + \
        [cupy.ascontiguousarray(x.T).T for x in dense[1:]]
    params = {k: cupy.asarray(x) for k, x in zip(("mu", "e", "e_t", "eta0"), (mu, e, e_t, eta0))
              if k in ib.law(law)["params"]}
    a = ib.evaluate(law, *dense, **params, precision=precision)
    b = ib.evaluate(law, *cols, **params, precision=precision)
    for k in a.columns():
        assert cupy.array_equal(a[k].view(cupy.uint8), b[k].view(cupy.uint8)), k
