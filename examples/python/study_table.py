#!/usr/bin/env python3
"""A shipped study run from Python, its table analysed with pandas: the pencil Monte Carlo
(examples/studies/pencil-mc.toml) at a smaller size, the post-impact spin by friction coefficient
for the compliant and the rigid law.

    PYTHONPATH=build/python python3 examples/python/study_table.py [--n 2000] [--out out/pencil-py]
"""
import argparse
import os

import impactbatch as ib

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--out", default="out/pencil-py")
    a = ap.parse_args()
    res = ib.study(os.path.join(HERE, "..", "studies", "pencil-mc.toml"), out=a.out, design__n=a.n)
    print(res)
    import pandas as pd

    for law, df in res.tables.items():
        ok = df[df["status"] == "ok"]
        groups = ok.groupby(pd.cut(ok["mu"], 4), observed=True)
        print(f"\n{law}: {len(ok)} of {len(df)} rows ok; post-impact spin w2 by friction coefficient")
        spin = groups["w2"].describe()[["count", "mean", "std", "min", "max"]]
        print(spin.to_string(float_format=lambda x: f"{x:.4f}"))


if __name__ == "__main__":
    main()
