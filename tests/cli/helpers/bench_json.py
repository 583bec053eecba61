"""tests/cli/bench.sh: the JSON of a quick `impact bench --laws newton,stronge --steps 20,40
--backends serial,omp --reps 2` holds every combination once, positive rates with the median
within [min, max] and [q1, q3], the machine and the ratios. Usage: bench_json.py B.json (exit 0: all hold)."""
import json
import sys

j = json.load(open(sys.argv[1]))
res = j["results"]
want = {(law, b, p, s) for b in ("serial", "omp") for p in ("double", "float")
        for (law, s) in (("newton", None), ("stronge", 20), ("stronge", 40))}
got = {(r["law"], r["backend"], r["precision"], r["steps"]) for r in res}
assert got == want, (sorted(got ^ want, key=str))
assert len(res) == len(want)
for r in res:
    q = r["instances_per_second"]
    assert q["min"] > 0 and q["min"] <= q["median"] <= q["max"], r
    assert q["q1"] <= q["median"] <= q["q3"], r
    assert len(r["seconds"]) == 2 and all(s > 0 for s in r["seconds"]) and r["n"] >= 1, r
    assert r["ok_fraction"] > 0.9, r
    assert r["flops_per_instance"] > 0 and r["bytes_per_instance"] > 0, r
    if r["law"] == "stronge":
        assert r["mean_steps"] > 0 and r["integrator"] == "rk4", r
        s = r["instance_steps_per_second"]
        assert s["min"] <= s["median"] <= s["max"] and s["median"] > q["median"], r
    else:
        assert "mean_steps" not in r, r
m = j["machine"]
for k in ("cpu", "cores", "omp_threads", "compiler", "build", "version", "git_rev", "date", "cuda"):
    assert k in m, k
assert m["cores"] >= 1 and m["omp_threads"] >= 1
kinds = {(x["ratio"], x["law"], x["steps"]) for x in j["ratios"]}
for law, s in (("newton", None), ("stronge", 20), ("stronge", 40)):
    assert ("omp/serial", law, s) in kinds and ("float/double", law, s) in kinds, (law, s)
assert j["settings"]["reps"] == 2 and j["settings"]["steps"] == [20, 40]
