#!/usr/bin/env python3
"""Which inputs drive the ball's rebound? A Sobol analysis with SALib in a few lines: SALib's
Saltelli design -> impactbatch.scenario("ball") -> evaluate -> the body-level outputs ->
SALib's sobol.analyze (first-order and total indices with bootstrap confidence intervals).

The ball of Jia (2013) Section 8.1 falls at V0z = -5 with a spread in friction mu, restitution e,
tangential compliance eta0, horizontal speed V0x and spin w0y (the ranges of
examples/studies/ball-sobol.toml). The same matrix given to `impact study` as a Saltelli design
file (--save-design, then design.kind = "saltelli", design.file = ...) gives the same indices
(python/tests/test_examples.py checks it).

    pip install SALib      # (scripts/bootstrap.sh puts SALib 1.4.7 into .deps/python for the tests)
    PYTHONPATH=build/python python3 examples/python/sobol_ball.py [--n 1024] [--law jia]
                           [--save-design X.txt] [--json indices.json]
"""
import argparse
import json

import numpy as np
from SALib.analyze import sobol

try:
    from SALib.sample import sobol as saltelli  # SALib >= 1.4.6
except ImportError:
    from SALib.sample import saltelli

import impactbatch as ib

PROBLEM = {
    "num_vars": 5,
    "names": ["mu", "e", "eta0", "V0x", "w0y"],
    "bounds": [[0.1, 0.6], [0.2, 0.9], [1.0, 2.0], [-3.0, 3.0], [-4.0, 4.0]],
}
OUTPUTS = ["Vx", "wy", "Vz"]  # the ball's velocity and spin after the impact


def design(n, seed):
    """SALib's Saltelli matrix. SALib >= 1.4.6 scrambles the Sobol' sequence, from fresh entropy
    unless seeded: an unseeded design, and so every index, differs from run to run. Older SALib
    neither scrambles nor takes a seed."""
    try:
        return saltelli.sample(PROBLEM, n, calc_second_order=False, seed=seed)
    except TypeError:
        return saltelli.sample(PROBLEM, n, calc_second_order=False)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=1024, help="base rows N (N (d + 2) impacts; a power of 2)")
    ap.add_argument("--law", default="jia")
    ap.add_argument("--seed", type=int, default=7,
                    help="seeds the design's scrambling and SALib's bootstrap (the same seed, the same indices)")
    ap.add_argument("--save-design", help="write the Saltelli matrix here (a design file for impact study)")
    ap.add_argument("--json", help="write the indices here")
    a = ap.parse_args()

    X = design(a.n, a.seed)                                                # N (d + 2) rows
    balls = ib.scenario("ball", V0z=-5.0, **{k: X[:, i] for i, k in enumerate(PROBLEM["names"])})
    r = balls.evaluate(a.law)                                              # one impact per row
    Y = balls.body_outputs(r)                                              # Vx, wy, Vz, ... per row
    print(f"{len(X)} impacts with {a.law}: {r.status_counts()}")

    indices = {y: sobol.analyze(PROBLEM, Y[y], calc_second_order=False, seed=a.seed) for y in OUTPUTS}

    rows = [(y, p, *(float(indices[y][k][i]) for k in ("S1", "S1_conf", "ST", "ST_conf")))
            for y in OUTPUTS for i, p in enumerate(PROBLEM["names"])]
    try:
        import pandas as pd

        table = pd.DataFrame(rows, columns=["output", "parameter", "S1", "S1_conf", "ST", "ST_conf"])
        print(table.to_string(index=False, float_format=lambda x: f"{x:.4f}"))
    except ImportError:
        for row in rows:
            print(*row)
    if a.save_design:
        np.savetxt(a.save_design, X, header=" ".join(PROBLEM["names"]))   # "# mu e ..." names the columns
    if a.json:
        with open(a.json, "w") as f:
            json.dump({y: {k: np.asarray(v).tolist() for k, v in indices[y].items()} for y in OUTPUTS}, f)


if __name__ == "__main__":
    main()
