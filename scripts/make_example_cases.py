#!/usr/bin/env python3
"""Writes examples/cases.csv: contact-space instances of physically realizable impacts.

Rows 1-3 are named textbook cases (Jia's ball of Section 8.1 with e = 0.5, and the same ball
with e = 0 and e = 1); the rest are random pairs of boxes / ellipsoids (or a box on a fixed
table) with random orientations, contact points and velocities, mapped into contact space with
Jia's eqs. (1)-(4): W = (1/m1 + 1/m2) I - [r1]x I1^-1 [r1]x - [r2]x I2^-1 [r2]x.
Usage: make_example_cases.py [N] [SEED] > examples/cases.csv
"""
import sys

import numpy as np


def skew(r):
    return np.array([[0, -r[2], r[1]], [r[2], 0, -r[0]], [-r[1], r[0], 0]])


def random_rotation(rng):
    q = rng.normal(size=4)
    q /= np.linalg.norm(q)
    w, x, y, z = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def random_body(rng):
    m = np.exp(rng.uniform(np.log(0.1), np.log(10)))
    a, b, c = rng.uniform(0.05, 2.0, size=3)
    if rng.random() < 0.5:  # box with half extents a, b, c
        I = m / 3 * np.diag([b * b + c * c, a * a + c * c, a * a + b * b])  # noqa: E741  the inertia tensor
    else:  # solid ellipsoid
        I = m / 5 * np.diag([b * b + c * c, a * a + c * c, a * a + b * b])  # noqa: E741  the inertia tensor
    R = random_rotation(rng)
    return m, R @ I @ R.T, np.array([a, b, c]).max()


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    rng = np.random.default_rng(int(sys.argv[2]) if len(sys.argv) > 2 else 7)
    cols = ["case", "W_xx", "W_xy", "W_xz", "W_yy", "W_yz", "W_zz", "n_x", "n_y", "n_z",
            "v_x", "v_y", "v_z", "mu", "e", "e_t", "eta0"]
    print(",".join(cols))
    eta_ball = (17 / 14) ** 0.5
    # Jia 8.1 ball: m = r = 1, V0 = (-1, 0, -5), w0 = (0, 2, 0): v0 = V0 + w0 x (0, 0, -1)
    for name, e in (("jia_ball_e0.5", 0.5), ("jia_ball_e0", 0.0), ("jia_ball_e1", 1.0)):
        print(f"{name},3.5,0,0,3.5,0,1,0,0,1,-3,0,-5,0.4,{e},0.3,{eta_ball!r}")
    for k in range(n - 3):
        m1, I1, s1 = random_body(rng)
        fixed = rng.random() < 0.3
        nrm = rng.normal(size=3)
        nrm /= np.linalg.norm(nrm)
        r1 = rng.normal(size=3) * s1 * 0.7
        W = (1 / m1) * np.eye(3) - skew(r1) @ np.linalg.solve(I1, skew(r1))
        if not fixed:
            m2, I2, s2 = random_body(rng)
            r2 = rng.normal(size=3) * s2 * 0.7
            W += (1 / m2) * np.eye(3) - skew(r2) @ np.linalg.solve(I2, skew(r2))
        W = 0.5 * (W + W.T)
        v = rng.normal(size=3) * np.exp(rng.uniform(-1, 2))
        if v @ nrm >= 0:
            v -= 2 * (v @ nrm) * nrm
        mu = rng.uniform(0, 1.2)
        e = rng.uniform(0, 1)
        et = rng.uniform(-0.5, 0.5)
        eta0 = rng.uniform(0.5, 3)
        vals = [W[0, 0], W[0, 1], W[0, 2], W[1, 1], W[1, 2], W[2, 2], *nrm, *v, mu, e, et, eta0]
        print(f"{'table' if fixed else 'pair'}_{k}," + ",".join(repr(float(x)) for x in vals))


if __name__ == "__main__":
    main()
