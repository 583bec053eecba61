"""tests/cli/calibrate.sh: the fit method's folder against the sampler's posterior of the same
problem: the global design and its basin, the MAP at the sampler's mean, the Laplace sd within 10 %
of the sampler's sd, the truth inside [q05, q95], and its files (starts.csv, estimate.csv,
predictive.csv). Usage: fit_against_sampler.py FIT_DIR SAMPLER_METADATA.json (exit 0: all hold)."""
import csv
import json
import sys

d = sys.argv[1]
m = json.load(open(d + "/metadata.json"))
mc = json.load(open(sys.argv[2]))["posterior"]
e = m["estimate"]
# the global stage (fit.global "auto"): a design of at least 256 points, one basin here (the model
# is exact), climbed by one start
g = m["global"]
ok = m["method"] == "fit" and g["points"] >= 256 and len(g["basins"]) == e["starts"] >= 1 and e["laplace_note"] == ""
ok &= g["basins"][0]["end_logp"] == e["logp"] and g["no_value"] == 0
for n in ("mu", "e"):
    p = e["params"][n]
    ok &= abs(p["estimate"] - mc[n]["mean"]) < 0.25 * mc[n]["sd"]   # a near-normal posterior: mode ~ mean
    ok &= abs(p["sd"] / mc[n]["sd"] - 1) < 0.10                     # the Laplace sd, the sampler's sd
    ok &= p["q05"] <= {"mu": 0.3, "e": 0.6}[n] <= p["q95"]
ok &= len(e["covariance"]) == 2 and e["covariance"][0][1] == e["covariance"][1][0]
rows = list(csv.DictReader(open(d + "/starts.csv")))
ok &= len(rows) == e["starts"] and list(rows[0])[:4] == ["start", "mu_from", "e_from", "mu"]
ok &= max(float(r["logp"]) for r in rows) == e["logp"]
est = list(csv.DictReader(open(d + "/estimate.csv")))
ok &= [r["parameter"] for r in est] == ["mu", "e"] and float(est[0]["estimate"]) == e["params"]["mu"]["estimate"]
pred = list(csv.DictReader(open(d + "/predictive.csv")))
ok &= len(pred) == 24 and all(int(r["ok"]) == 200 for r in pred)
if not ok:
    print(json.dumps(e, indent=1), mc, file=sys.stderr)
sys.exit(0 if ok else 1)
