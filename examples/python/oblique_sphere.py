#!/usr/bin/env python3
"""An oblique-impact experiment from Python, without a CSV: a steel sphere strikes a fixed steel
anvil at a fixed speed and a varying incidence angle (the set-up of Maw, Barber and Fawcett's
experiments), with Jia's compliant law (eta0 from the elastic constants) and Stronge's rigid law.

Prints the tangential rebound ratio and the spin after the impact per angle as a pandas table and,
with --plot FILE, draws them.

    PYTHONPATH=build/python python3 examples/python/oblique_sphere.py [--n 31] [--plot oblique.png]
"""
import argparse

import numpy as np

import impactbatch as ib


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=31, help="incidence angles from 2 to 88 degrees")
    ap.add_argument("--speed", type=float, default=2.0, help="impact speed, m/s")
    ap.add_argument("--plot", help="draw the curves into this PNG")
    a = ap.parse_args()

    R, rho = 0.0125, 7850.0                        # a 25 mm steel ball
    m = rho * 4.0 / 3.0 * np.pi * R**3
    I = 0.4 * m * R * R  # noqa: E741  I: the moment of inertia, the physics' name
    theta = np.radians(np.linspace(2.0, 88.0, a.n))  # from the normal
    V = a.speed * np.stack([np.sin(theta), np.zeros_like(theta), -np.cos(theta)], axis=1)
    ball = ib.Body(mass=m, inertia=[I, I, I], com=[0.0, 0.0, R], V=V)
    contact = ib.two_bodies(ball, None, point=[0.0, 0.0, 0.0], normal=[0.0, 0.0, 1.0])  # the fixed anvil
    eta0 = ib.eta0_from_elastic(200e9, 0.29, 200e9, 0.29)                              # steel on steel

    rows = {"angle_deg": np.degrees(theta)}
    for law in ("jia", "stronge"):
        r = ib.evaluate(law, contact.W, contact.n, contact.v, mu=0.1, e=0.9, e_t=0.0, eta0=eta0)
        after = ib.after_impact(contact, r.P)
        vt_before = contact.v[:, 0]
        vt_after = r.vf[:, 0]
        rows[f"{law}_vt_ratio"] = vt_after / vt_before            # tangential rebound of the contact point
        rows[f"{law}_spin"] = after["omega1"][:, 1] * R / a.speed  # omega_y R / V
        rows[f"{law}_status"] = [s.name for s in map(ib.Status, r.status)]
    try:
        import pandas as pd

        table = pd.DataFrame(rows)
        print(table.to_string(index=False, float_format=lambda x: f"{x:.4f}"))
    except ImportError:
        for k, v in rows.items():
            print(k, v)
    if a.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(1, 2, figsize=(10, 4))
        for law in ("jia", "stronge"):
            ax[0].plot(rows["angle_deg"], rows[f"{law}_vt_ratio"], label=law)
            ax[1].plot(rows["angle_deg"], rows[f"{law}_spin"], label=law)
        ax[0].set(xlabel="incidence angle (deg)", ylabel="v_t after / v_t before")
        ax[1].set(xlabel="incidence angle (deg)", ylabel="omega_y R / V after")
        for x in ax:
            x.legend()
            x.grid(alpha=0.3)
        fig.tight_layout()
        fig.savefig(a.plot, dpi=120)
        print(f"plot: {a.plot}")


if __name__ == "__main__":
    main()
