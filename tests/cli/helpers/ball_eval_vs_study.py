"""tests/cli/eval_scenario.sh: `impact eval --scenario ball` on 400 rows against `impact study` on
the same rows (its .npy): the same status and the same bits of every output, and the ball's
physics (the rebound e |V0z| with e = 0.5; the angular momentum about the contact point kept).
Usage: ball_eval_vs_study.py EVAL.csv STUDY.npy (exit 0: all hold)."""
import csv
import sys

import numpy as np

rows = list(csv.DictReader(open(sys.argv[1])))
s = np.load(sys.argv[2])
assert len(rows) == 400 == len(s)
names = ["P_x", "P_y", "P_z", "vf_x", "vf_y", "vf_z", "dE", "Vx", "Vy", "Vz", "wx", "wy", "wz"]
codes = {0: "ok", 1: "no_approach"}
for i, r in enumerate(rows):
    assert r["status"] == codes[int(s["status"][i])], (i, r["status"])
    if r["status"] != "ok":
        assert all(r[k] == "" for k in names), i
        continue
    for k in names:
        assert float(r[k]) == s[k][i], (i, k, r[k], s[k][i])  # bit for bit
ok = [r for r in rows if r["status"] == "ok"]
# the ball: vertical rebound e |V0z| with e = 0.5; angular momentum about the contact point conserved
# (the impulse acts there): m Vx + (I / r) wy is unchanged (m = r = 1, I = 2/5)
for r in ok:
    assert abs(float(r["Vz"]) + 0.5 * float(r["V0z"])) < 1e-9 * abs(float(r["V0z"])), r
    L0 = float(r["V0x"]) + 0.4 * float(r["w0y"])
    L1 = float(r["Vx"]) + 0.4 * float(r["wy"])
    assert abs(L1 - L0) < 1e-9 * (1 + abs(L0)), (L0, L1)
assert rows[7]["status"] == "no_approach"
