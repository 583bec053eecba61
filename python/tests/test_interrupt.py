"""Ctrl-C during a long evaluate(), study() or calibration model's batch: KeyboardInterrupt within
0.2 s of the signal, not when the batch has finished, on every CPU backend, and an interrupted study
leaves no table, metadata or temporary in its folder.

Each case runs in a child Python that sizes its batch from a pilot so that the whole batch would take
about WHOLE seconds, starts it, and gets SIGINT LEAD seconds later; the child reports when it caught
KeyboardInterrupt (or that the call finished: the failure, a signal honoured only when the batch
ends), and the parent measures from the signal."""
import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import impactbatch as ib

WHOLE = 15.0  # seconds the uninterrupted batch would take (from the pilot)
LEAD = 1.0    # seconds from the start of the call to SIGINT
LATENCY = 0.2  # the most the interrupt may take to arrive (seconds from the signal)

# the children's random contact instances (both scripts below): W SPD, approaching, random parameters
BATCH = textwrap.dedent(r'''
    import numpy as np
    rng = np.random.default_rng(1)

    def batch(N):
        A = rng.normal(size=(N, 3, 3))
        W = A @ A.transpose(0, 2, 1) + 0.5 * np.eye(3)
        n = rng.normal(size=(N, 3)); v = rng.normal(size=(N, 3))
        v[np.einsum("ij,ij->i", v, n) > 0] *= -1
        return W, n, v, dict(mu=rng.uniform(0, 1, N), e=rng.uniform(0, 1, N), eta0=rng.uniform(0.5, 3, N))
''')

CHILD = BATCH + textwrap.dedent(r'''
    import json, os, sys, time
    import numpy as np, impactbatch as ib
    what, backend, out, whole = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
    say = lambda **kw: print(json.dumps(kw), flush=True)
    steps = 1000

    def config(n):
        return {"study": {"name": "interrupted", "scenario": "ball", "laws": ["jia"]},
                "design": {"kind": "mc", "n": int(n), "seed": 3},
                "params": {"mu": "uniform:0.1:0.9", "V0x": "uniform:-3:3"},
                "run": {"steps": steps, "chunk": 16384}}

    if what in ("evaluate-steps", "model-steps"):  # instances of 2e6 steps: one alone outlasts 0.2 s
        if what == "model-steps":
            m = ib.CalibrationModel(out, backend=backend, calibrate__law="jia", run__steps=1000000)
            th = np.tile([[0.3, 0.6]], (4, 1))
            call = lambda: m.log_likelihood(th)
            N = 4 * m.experiments
        else:
            W, n, v, p = batch(64)
            call = lambda: ib.evaluate("jia", W, n, v, backend=backend, steps=2000000, **p)
            N = 64
        pilot = whole / N
    elif what == "model":  # one log_likelihood call: points x the data's experiments
        m = ib.CalibrationModel(out, backend=backend, calibrate__law="jia", run__steps=500)  # out: the config
        th = np.tile([[0.3, 0.6]], (200, 1))
        t = time.time(); m.log_likelihood(th); pilot = (time.time() - t) / 200
        N = int(whole / pilot)
        th = np.tile([[0.3, 0.6]], (N, 1))
        call = lambda: m.log_likelihood(th)
    elif what == "evaluate":
        W, n, v, p = batch(2000)
        t = time.time()
        ib.evaluate("jia", W, n, v, backend=backend, steps=steps, **p)
        pilot = (time.time() - t) / 2000
        N = int(whole / pilot)
        args = batch(N)
        call = lambda: ib.evaluate("jia", *args[:3], backend=backend, steps=steps, **args[3])
    else:
        t = time.time(); ib.study(config(2048), out=out + "-pilot", backend=backend); pilot = (time.time() - t) / 2048
        N = int(whole / pilot)
        call = lambda: ib.study(config(N), out=out, backend=backend)
    say(event="start", rows=N, expected=N * pilot)
    try:
        call()
        say(event="finished")
    except KeyboardInterrupt:
        say(event="interrupt", at=time.time())
    if what == "study":  # the library's stop request is over: the next study runs to its end
        r = ib.study(config(300), out=out + "-after", backend=backend)
        say(event="after", rows=len(r.tables["jia"]))
''')


def run_interrupted(what, backend, out):
    """(the child's start event, its events after SIGINT, seconds from SIGINT to the first of them)"""
    proc = subprocess.Popen([sys.executable, "-c", CHILD, what, backend, str(out), str(WHOLE)],
                            stdout=subprocess.PIPE, text=True)
    try:
        start = json.loads(proc.stdout.readline())
        assert start["event"] == "start", start
        time.sleep(LEAD)
        sent = time.time()
        proc.send_signal(signal.SIGINT)
        line = proc.stdout.readline()  # the interrupt, or the end of the whole batch
        got = time.time()
        events = [json.loads(line)] + [json.loads(x) for x in proc.stdout.read().splitlines()]
        assert proc.wait(timeout=60) == 0
    finally:
        proc.kill()
        proc.wait()
    print(f"{what} on {backend}: {start['rows']} rows, whole batch ~{start['expected']:.1f} s, "
          f"KeyboardInterrupt {got - sent:.3f} s after SIGINT")
    return start, events, got - sent


@pytest.mark.parametrize("backend", ["omp", "serial"])
def test_ctrl_c_interrupts_evaluate(tmp_path, backend):
    start, events, latency = run_interrupted("evaluate", backend, tmp_path / "unused")
    assert events[0]["event"] == "interrupt", f"no KeyboardInterrupt: {events} ({latency:.1f} s after SIGINT)"
    assert latency < LATENCY, f"KeyboardInterrupt {latency:.2f} s after SIGINT"


@pytest.mark.parametrize("backend", ["omp", "serial"])
def test_ctrl_c_interrupts_a_calibration_models_batch(tmp_path, backend):
    # CalibrationModel.log_likelihood of many points: the model's pieces of rows check the stop
    # (calibrate/model.hpp), the call runs interruptibly (python/interrupt.hpp)
    src = os.environ.get("IMPACT_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
    config = os.path.join(src, "examples/calibration/ball-synthetic.toml")
    start, events, latency = run_interrupted("model", backend, config)
    assert events[0]["event"] == "interrupt", f"no KeyboardInterrupt: {events} ({latency:.1f} s after SIGINT)"
    assert latency < LATENCY, f"KeyboardInterrupt {latency:.2f} s after SIGINT"


@pytest.mark.parametrize("what", ["evaluate-steps", "model-steps"])
@pytest.mark.parametrize("backend", ["omp", "serial"])
def test_ctrl_c_within_an_instance_of_many_steps(what, backend):
    # jia at 1e6 and 2e6 steps: one instance alone takes about 0.3 s, so no split of the batch is
    # enough; the integrators poll the stop (LawOptions::stop) and the batch is dropped
    src = os.environ.get("IMPACT_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
    config = os.path.join(src, "examples/calibration/ball-synthetic.toml")
    start, events, latency = run_interrupted(what, backend, config)
    assert events[0]["event"] == "interrupt", f"no KeyboardInterrupt: {events} ({latency:.1f} s after SIGINT)"
    assert latency < LATENCY, f"KeyboardInterrupt {latency:.2f} s after SIGINT"


def files_under(folder):
    return sorted(os.path.relpath(os.path.join(d, f), folder) for d, _, fs in os.walk(folder) for f in fs)


# omp: the laws run on the calling thread of the library; serial: on the study's second thread while
# the first builds the next chunk (run.cpp's overlapped driver)
@pytest.mark.parametrize("backend", ["omp", "serial"])
def test_ctrl_c_interrupts_study_and_leaves_nothing(tmp_path, backend):
    out = tmp_path / "study"
    start, events, latency = run_interrupted("study", backend, out)
    assert events[0]["event"] == "interrupt", f"no KeyboardInterrupt: {events} ({latency:.1f} s after SIGINT)"
    assert latency < LATENCY, f"KeyboardInterrupt {latency:.2f} s after SIGINT"
    # nothing but the manifest of the files the run would have written (study/output_folder.hpp: written
    # first, so that the next run in the folder knows what is its to replace): no table, no design,
    # no metadata, no temporary
    left = [f for f in (files_under(out) if out.exists() else []) if f != ".impactbatch-outputs.json"]
    assert left == [], f"left behind in the study's folder: {left}"
    # the pilot and the study after the interrupt are whole studies: tables and metadata
    assert {"jia.npy", "metadata.json"} <= set(files_under(str(out) + "-pilot"))
    assert events[-1] == {"event": "after", "rows": 300}, events


def test_chunked_evaluate_is_one_call_bit_for_bit():
    # evaluate() hands the batch to the backend in chunks (sized by time, so that Ctrl-C is seen
    # between them): the results are those of the rows evaluated in any other split
    rng = np.random.default_rng(5)
    N = 40000
    A = rng.normal(size=(N, 3, 3))
    W = A @ A.transpose(0, 2, 1) + 0.5 * np.eye(3)
    n = rng.normal(size=(N, 3))
    v = rng.normal(size=(N, 3))
    v[np.einsum("ij,ij->i", v, n) > 0] *= -1
    p = dict(mu=rng.uniform(0, 1, N), e=rng.uniform(0, 1, N), e_t=rng.uniform(-1, 1, N), eta0=rng.uniform(0.5, 3, N))
    for law, steps in (("chatterjee-ruina", 250), ("jia", 20)):
        whole = ib.evaluate(law, W, n, v, backend="omp", steps=steps, **p)
        cuts = [0, 1, 77, 3000, 3001, 25000, N]
        parts = [ib.evaluate(law, W[a:b], n[a:b], v[a:b], backend="omp", steps=steps,
                             **{k: x[a:b] for k, x in p.items()}) for a, b in zip(cuts, cuts[1:])]
        for c in whole.columns():
            joined = np.concatenate([r[c] for r in parts])
            assert np.array_equal(whole[c], joined, equal_nan=True), (law, c)
        assert np.count_nonzero(whole.ok) > N // 2


LEAK = BATCH + textwrap.dedent(r'''
    import os, signal, sys, threading, time
    import numpy as np, impactbatch as ib
    backend = sys.argv[1]


    B = batch(1500)
    base = ib.evaluate("jia", *B[:3], backend=backend, steps=20000, **B[3])
    A = batch(8)
    got = {}

    def run_b():
        try:
            got["r"] = ib.evaluate("jia", *B[:3], backend=backend, steps=20000, **B[3])
        except KeyboardInterrupt as e:
            got["e"] = repr(e)

    th = threading.Thread(target=run_b)
    th.start()
    threading.Timer(0.4, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
    try:
        ib.evaluate("jia", *A[:3], backend=backend, steps=2000000, **A[3])
        print("A finished")
    except KeyboardInterrupt:
        print("A interrupted")
    th.join()
    if "e" in got:
        print("B interrupted")
    else:
        print("B rows changed:", int(np.count_nonzero(got["r"].status != base.status)))
''')


@pytest.mark.parametrize("backend", ["omp", "serial"])
def test_a_stop_never_leaks_rows_into_a_concurrent_call(backend):
    # the stop of one call ends the integrators' instances of every stoppable call running then; each
    # of those calls must drop the pieces it touched (io::stop_epoch), even when the interrupted call
    # has ended and lowered the flag before their piece ends: a concurrent call is interrupted too,
    # or returns every row as an uninterrupted call would, never a row ended early
    out = subprocess.run([sys.executable, "-c", LEAK, backend], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert "A interrupted" in lines, out.stdout
    assert "B interrupted" in lines or "B rows changed: 0" in lines, out.stdout
