"""Where users already work, in one run: a calibration as ArviZ data (summary and trace plot), the
model driven by emcee through a process pool (the pooled chain is the serial chain), and a SALib
problem as a study's parameters with second-order Sobol indices checked against SALib's.

    python3 examples/python/walkthrough.py [OUT]      # OUT: the output folder (default out/walkthrough)

Needs arviz, emcee and SALib (pip install arviz emcee SALib) beside impactbatch."""
import csv
import importlib.metadata
import json
import multiprocessing as mp
import os
import sys
import time

import matplotlib

matplotlib.use("Agg")
import arviz as az
import emcee
import matplotlib.pyplot as plt
import numpy as np
from SALib.analyze import sobol

import impactbatch as ib


def main():
    SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    OUT = sys.argv[1] if len(sys.argv) > 1 else "out/walkthrough"
    print("impactbatch", ib.__version__, "numpy", np.__version__, "arviz", az.__version__, "emcee", emcee.__version__,
          "SALib", importlib.metadata.version("SALib"), "python", sys.version.split()[0])
    cfg = os.path.join(SRC, "examples/calibration/ball-synthetic.toml")

    # 1. a calibration (the ensemble), as ArviZ data: summary and trace plot
    t = time.time()
    res = ib.calibrate(cfg, out=OUT + "/ens", backend="omp", calibrate__method="ensemble", mcmc__steps=3000, force=True)
    idata = res.to_inference_data()
    print(f"ensemble calibration {time.time() - t:.1f} s:", idata)
    summ = az.summary(idata, round_to="none")
    print(summ[["mean", "sd", "hdi_3%", "hdi_97%", "ess_bulk", "ess_tail", "r_hat"]])
    print("impactbatch's own summary:\n", res.summary[["mean", "sd", "r_hat", "ess_bulk", "ess_tail"]])
    for p in ("mu", "e"):
        assert abs(summ.loc[p, "r_hat"] - res.summary.loc[p, "r_hat"]) < 1e-9
        assert abs(summ.loc[p, "ess_bulk"] / res.summary.loc[p, "ess_bulk"] - 1) < 1e-6
    az.plot_trace(idata, var_names=["mu", "e"])
    plt.tight_layout()
    plt.savefig(OUT + "/trace.png", dpi=90)
    print("trace plot:", OUT + "/trace.png")
    smc = ib.calibrate(cfg, out=OUT + "/smc", backend="omp", force=True)
    smc_summary = az.summary(smc.to_inference_data(predictive_draws=50), round_to=4)
    print("SMC:", smc, "\n", smc_summary[["mean", "sd", "ess_bulk"]])

    # 2. emcee with a pool: the model pickles; the pooled chain is the serial chain
    model = ib.CalibrationModel(cfg, backend="serial")
    p0 = model.start(16, seed=3)

    def chain(pool):
        np.random.seed(5)
        s = emcee.EnsembleSampler(16, model.dim, ib.log_posterior, args=(model,), pool=pool)
        s.run_mcmc(p0, 200, progress=False)
        return s

    t = time.time()
    serial = chain(None)
    ts = time.time() - t
    with mp.get_context("spawn").Pool(2) as pool:
        t = time.time()
        pooled = chain(pool)
        tp = time.time() - t
    assert np.array_equal(serial.get_chain(), pooled.get_chain())
    print(f"emcee 16 walkers x 200 steps: serial {ts:.2f} s, Pool(2) {tp:.2f} s, chains identical; "
          f"acceptance {pooled.acceptance_fraction.mean():.3f}")
    pooled_summary = az.summary(az.from_emcee(pooled, var_names=model.names).sel(draw=slice(100, None)), round_to=4)
    print(pooled_summary[["mean", "sd", "r_hat"]])

    # 3. SALib round trip with S2
    problem = {"num_vars": 4, "names": ["mu", "e", "V0x", "w0y"],
               "bounds": [[0.1, 0.6], [0.2, 0.9], [-1.0, 0.8], [-4.0, 4.0, 0.5, 2.0]],
               "dists": ["unif", "unif", "norm", "truncnorm"]}
    os.makedirs(OUT, exist_ok=True)
    json.dump(problem, open(OUT + "/problem.json", "w"))
    ib.study({"study": {"name": "salib", "scenario": "ball", "laws": ["jia"]},
                   "design": {"kind": "saltelli", "n": 512, "second_order": True},
                   "params": {"from_salib": OUT + "/problem.json", "V0z": -3.0},
                   "output": {"formats": ["npy", "salib"], "columns": ["Vx", "wy", "Vz"]},
                   "sensitivity": {"outputs": ["Vx", "wy", "Vz"]}}, out=OUT + "/study", backend="omp", force=True)
    back = json.load(open(OUT + "/study/salib/problem.json"))
    assert back == problem
    rows = list(csv.DictReader(open(OUT + "/study/sensitivity2.csv")))
    worst = 0
    for o in ("Vx", "wy", "Vz"):
        Si = sobol.analyze(back, np.loadtxt(OUT + f"/study/salib/jia_{o}.txt"), calc_second_order=True, seed=1)
        for r in rows:
            if r["output"] != o:
                continue
            i, j = back["names"].index(r["parameter_i"]), back["names"].index(r["parameter_j"])
            worst = max(worst, abs(float(r["S2"]) - Si["S2"][i, j]))
            if o == "wy":
                print(f"  S2 {o} {r['parameter_i']} x {r['parameter_j']}: {float(r['S2']):+.4f} +- "
                      f"{float(r['S2_conf']):.4f} (SALib {Si['S2'][i, j]:+.4f} +- {Si['S2_conf'][i, j]:.4f})")
    print(f"SALib round trip: problem.json read back equal; S2 worst |impact - SALib| = {worst:.1e}")


if __name__ == '__main__':
    main()
