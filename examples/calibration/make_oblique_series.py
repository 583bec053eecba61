#!/usr/bin/env python3
"""Writes ball-oblique-misspecified.csv: a synthetic oblique-impact series that no parameter of Jia's
law explains exactly, the shape of a real data set (docs/calibration.md, "Every seed finds the bulk").

A 5 mm sphere (m = 2.5525e-4 kg, r = 2.5 mm) strikes a fixed plane at |V0| = 3.9 m/s and 16
incidence angles from 1.5 to 60 degrees. The centre's outgoing Vx is Jia's law's with mu = 0.1,
eta0 = 1.1 and e = 0.98, then
  * below 5 degrees the tangential COR of the centre, Vx / (V0 sin a), is raised by 0.07: a bias of
    the kind a real series shows and no parameter of the law reproduces;
  * Gaussian noise: sd 0.02 V0 sin a at the whole-degree angles, 0.02 m/s at 1.5 and 2.5 degrees
    (a different instrument's resolution), written as the sigma_Vx column.
The noise is NumPy's PCG64 stream of the seed, so the file is reproducible.

    PYTHONPATH=build/python python3 examples/calibration/make_oblique_series.py [--seed 20261129]
"""
import argparse
import os
import tempfile

import numpy as np

import impactbatch as ib

ANGLES = [1.5, 2.5, 4, 6, 8, 10, 13, 16, 20, 25, 30, 35, 40, 45, 50, 60]
SPEED, MU, ETA0, E = 3.9, 0.1, 1.1, 0.98
HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=20261129)
    ap.add_argument("--out", default=os.path.join(HERE, "ball-oblique-misspecified.csv"))
    a = ap.parse_args()
    a_rad = np.radians(ANGLES)
    vin = SPEED * np.sin(a_rad)
    whole = np.array([float(x).is_integer() for x in ANGLES])
    sigma = np.where(whole, 0.02 * vin, 0.02)
    # the model's Vx at the truth: the shipped config on placeholder data (the conditions are what count)
    fd, tmp = tempfile.mkstemp(suffix=".csv")
    with os.fdopen(fd, "w") as f:
        f.write("angle,Vx,sigma_Vx\n" + "".join(f"{x},0,1\n" for x in ANGLES))
    try:
        model = ib.CalibrationModel(os.path.join(HERE, "ball-oblique-misspecified.toml"),
                                    set={"data.file": tmp, "run.backend": "serial"})
        pred = model.predict([MU, ETA0])
    finally:
        os.remove(tmp)
    vx = np.asarray(pred["Vx"], dtype=np.float64)
    vx = vx + np.where(np.asarray(ANGLES) < 5, 0.07 * vin, 0.0)
    vx = vx + np.random.default_rng(a.seed).normal(0.0, sigma)
    with open(a.out, "w") as f:
        f.write("angle,Vx,sigma_Vx\n")
        for x, v, s in zip(ANGLES, vx, sigma):
            f.write(f"{x},{v:.6f},{s:.6f}\n")
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
