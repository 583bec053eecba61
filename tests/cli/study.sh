#!/usr/bin/env bash
# `impact study`: the shipped Jia figure studies run end to end and reproduce what the paper's
# model fixes (Fig. 15c end points e = 0 and e = 1, Fig. 14a's anti-symmetry about V0x = 2 and
# full slip with |P_t| = mu P_n); tables, .npy, SALib files, metadata and plots are written;
# overrides work; bad configs exit 1 naming the key; unbuildable samples keep their rows; an
# imported design keeps its row order; Sobol indices come out of a Saltelli study.
set -u
source "$(dirname "$0")/common.bash"
SRC=$2
# the Python that imports numpy and matplotlib, found as the product finds it (scripts/find_python.sh):
# they are declared dependencies (scripts/bootstrap.sh), so without them this test fails
PY=$(bash "$SRC/scripts/find_python.sh" numpy matplotlib) || exit 1
EX="$SRC/examples/studies"
# py 'python expression that must be True' -- evaluated with numpy as np, d = np.load(...)
pycheck() {  # name, npy file, assertion code (can use d, np)
  if "$PY" - "$2" <<EOF 2> "$T/pyerr"
import sys, numpy as np
d = np.load(sys.argv[1])
ok = d[d["status"] == 0]
$3
EOF
  then pass=$((pass + 1)); else echo "FAIL: $1" >&2; cat "$T/pyerr" >&2; fail=$((fail + 1)); fi
}

# 1. Fig. 15(c): e in [0, 1]; Jia's e = 0 and e = 1 outcomes (reproduced by the equations as
#    written, see docs/study.md and docs/laws.md): V = (0.554553, 0, 0), w = (0, -1.88638, 0) and
#    V = (-0.089745, 0, 5), w = (0, -0.275637, 0).
"$IMPACT" study "$EX/jia-fig15c.toml" --out "$T/f15c" > "$T/out" 2> "$T/err"; rc=$?
check "fig15c exits 0" '[ $rc -eq 0 ]'
check "fig15c files" '[ -s "$T/f15c/jia.csv" ] && [ -s "$T/f15c/jia.npy" ] && [ -s "$T/f15c/metadata.json" ] && [ -s "$T/f15c/summary.md" ]'
check "fig15c plot" '[ -s "$T/f15c/fig15c.png" ] && head -c 8 "$T/f15c/fig15c.png" | grep -q PNG'
check "fig15c table on stdout" 'grep -q "| jia | Vx | 101 |" "$T/out" && grep -q "results: $T/f15c/" "$T/out"'
check "fig15c csv rows" '[ $(wc -l < "$T/f15c/jia.csv") -eq 102 ]'
pycheck "fig15c e=0 and e=1 match Jia" "$T/f15c/jia.npy" '
assert len(d) == 101 and len(ok) == 101, len(ok)
r0, r1 = d[0], d[100]
assert r0["e"] == 0.0 and r1["e"] == 1.0
for got, want in [(r0["Vx"], 0.554553), (r0["Vz"], 0.0), (r0["wy"], -1.88638),
                  (r1["Vx"], -0.089745), (r1["Vz"], 5.0), (r1["wy"], -0.275637)]:
    assert abs(got - want) < 1e-4, (got, want)  # the paper: explicit Euler, error ~1e-4 (NOTES.md)
assert np.all(np.abs(d["Vy"]) < 1e-12) and np.all(np.abs(d["wx"]) < 1e-12)  # planar stays planar
# Jia: "As e increases, the magnitudes of V_x and omega_y increase until e = 0.22"
assert d["e"][np.argmax(d["Vx"])] == 0.22 and d["e"][np.argmin(d["wy"])] == 0.22'
check "metadata fields" 'grep -q "\"git_revision\"" "$T/f15c/metadata.json" && grep -q "\"backend\": \"" "$T/f15c/metadata.json" && grep -q "\"steps\": 1000" "$T/f15c/metadata.json" && grep -q "\"total_s\"" "$T/f15c/metadata.json"'

# the same sweep in float, and on the CPU reference path (adaptive RKF78, independent code):
# float within 1e-4 relative of double, the reference within 1e-7
# the overlapped pipeline (serial and cuda backends: chunk k's laws beside chunk k+1's building and
# chunk k's writing) writes the same bytes as the sequential one (omp)
for b in omp serial; do
  "$IMPACT" study "$EX/pencil-mc.toml" --set design.n=3000 --set run.chunk=1024 --set run.steps=60 --backend $b \
    --out "$T/pipe-$b" --no-plots -q > /dev/null 2> "$T/err" || echo "pipeline $b failed" >&2
done
check "overlapped pipeline: same tables as the sequential one" '(for f in jia.csv jia.npy stronge.csv stronge.npy design.txt; do cmp -s "$T/pipe-omp/$f" "$T/pipe-serial/$f" || exit 1; done) && diff -rq "$T/pipe-omp/salib" "$T/pipe-serial/salib" > /dev/null'
check "overlapped pipeline: said in the timings" 'grep -q "\"overlapped\": true" "$T/pipe-serial/metadata.json" && grep -q "\"overlapped\": false" "$T/pipe-omp/metadata.json"'
# output.csv_max_rows: beyond it only the .npy tables (the same rows), said on stdout and in metadata
"$IMPACT" study "$EX/jia-fig15c.toml" --set output.csv_max_rows=100 --out "$T/f15c-nocsv" --no-plots > "$T/out2" 2> "$T/err"; rc=$?
check "csv_max_rows: csv left out, npy written" '[ $rc -eq 0 ] && [ ! -e "$T/f15c-nocsv/jia.csv" ] && cmp -s "$T/f15c-nocsv/jia.npy" "$T/f15c/jia.npy"'
check "csv_max_rows: the note" 'grep -q "note: CSV tables not written: 101 rows > output.csv_max_rows = 100" "$T/out2" && grep -q "\"notes\"" "$T/f15c-nocsv/metadata.json" && grep -q "\"laws_s\"" "$T/f15c-nocsv/metadata.json"'
"$IMPACT" study "$EX/jia-fig15c.toml" --set output.csv_max_rows=0 --out "$T/f15c-csv" --no-plots -q > /dev/null 2> "$T/err"; rc=$?
check "csv_max_rows = 0: csv written" '[ $rc -eq 0 ] && cmp -s "$T/f15c-csv/jia.csv" "$T/f15c/jia.csv"'
"$IMPACT" study "$EX/jia-fig15c.toml" --set run.precision=float --out "$T/f15c-float" --no-plots -q > /dev/null 2> "$T/err"; rc1=$?
"$IMPACT" study "$EX/jia-fig15c.toml" --backend reference --out "$T/f15c-ref" --no-plots -q > /dev/null 2> "$T/err"; rc2=$?
check "fig15c float and reference exit 0" '[ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] && grep -q "\"precision\": \"float\"" "$T/f15c-float/metadata.json" && grep -q "\"backend\": \"reference\"" "$T/f15c-ref/metadata.json"'
pycheck "fig15c float: the CSV holds exactly the .npy values" "$T/f15c-float/jia.npy" '
c = np.genfromtxt(sys.argv[1].replace(".npy", ".csv"), delimiter=",", names=True, dtype=None, encoding="utf-8")
law_own = {"P_x", "P_y", "P_z", "vf_x", "vf_y", "vf_z", "dE", "In_c", "steps"}  # float text in the CSV
for name in d.dtype.names:
    if name in ("status", "modes"):
        continue
    t = np.float32 if name in law_own else np.float64
    assert np.array_equal(np.asarray(c[name]).astype(t), np.asarray(d[name]).astype(t)), name'
pycheck "fig15c float and reference agree with double" "$T/f15c/jia.npy" '
f = np.load(sys.argv[1].replace("f15c/", "f15c-float/"))
r = np.load(sys.argv[1].replace("f15c/", "f15c-ref/"))
for c in ("Vx", "Vz", "wy", "P_n", "P_t"):
    scale = np.abs(d[c]).max()
    assert np.max(np.abs(f[c] - d[c])) < 1e-4 * scale, (c, np.max(np.abs(f[c] - d[c])))
    assert np.max(np.abs(r[c] - d[c])) < 1e-7 * scale, (c, np.max(np.abs(r[c] - d[c])))'

# 2. Fig. 14(a): V0x in [-15, 15]. Mirror symmetry v0x -> -v0x about V0x = 2 makes V_x - 2 and
#    w_y - 2 odd; far from it the contact slips throughout and |P_t| = mu P_n exactly.
"$IMPACT" study "$EX/jia-fig14a.toml" --out "$T/f14a" --no-plots -q > /dev/null 2> "$T/err"; rc=$?
check "fig14a exits 0" '[ $rc -eq 0 ]'
check "fig14a no plots with --no-plots" '[ ! -e "$T/f14a/fig14a.png" ]'
pycheck "fig14a anti-symmetry and full slip" "$T/f14a/jia.npy" '
assert len(ok) == 301
x = ok["V0x"]
worst = 0.0
for i, a in enumerate(x):
    j = np.argmin(np.abs(x - (4.0 - a)))
    if abs(x[j] - (4.0 - a)) < 1e-9:
        worst = max(worst, abs(ok["Vx"][i] + ok["Vx"][j] - 4.0), abs(ok["wy"][i] + ok["wy"][j] - 4.0))
assert worst < 1e-6, worst
# Jia: "The contact slips throughout the impact when v0x <= -5 or v0x >= 9" (read: V0x)
full = np.abs(ok["P_t"] - 0.4 * ok["P_n"]) < 1e-6
assert np.array_equal(full, (x <= -5.0 + 1e-9) | (x >= 9.0 - 1e-9)), x[full]
assert np.all(np.abs(ok["P_n"] - 7.5) < 1e-9)  # (1 + e) m |V0z|'

# Fig. 14(b): "The contact slips throughout the impact when omega0y <= -8.0 or omega0y >= 6.0"
"$IMPACT" study "$EX/jia-fig14b.toml" --out "$T/f14b" --no-plots -q > /dev/null 2> "$T/err"; rc=$?
check "fig14b exits 0" '[ $rc -eq 0 ]'
pycheck "fig14b full-slip range" "$T/f14b/jia.npy" '
x = ok["w0y"]
full = np.abs(ok["P_t"] - 0.4 * ok["P_n"]) < 1e-6
assert len(ok) == 201 and np.array_equal(full, (x <= -8.0 + 1e-9) | (x >= 6.0 - 1e-9)), x[full]'
# Fig. 15(b): largest V_x "at eta0 slightly less than 1.5"; bounces forward "when eta0 is close to
# 2.4"; rotation reversal "eventually to zero when eta0 is around 2.8" (grid step 0.05)
"$IMPACT" study "$EX/jia-fig15b.toml" --out "$T/f15b" --no-plots -q > /dev/null 2> "$T/err"; rc=$?
check "fig15b exits 0" '[ $rc -eq 0 ]'
pycheck "fig15b features" "$T/f15b/jia.npy" '
x = ok["eta0"]
assert len(ok) == 41
assert 1.3 <= x[np.argmax(ok["Vx"])] < 1.5, x[np.argmax(ok["Vx"])]
first_forward = x[np.argmax(ok["Vx"] < 0)]
assert abs(first_forward - 2.4) < 0.051, first_forward
first_unreversed = x[np.argmax(ok["wy"] > 0)]
assert abs(first_unreversed - 2.8) < 0.101, first_unreversed'

# 3. overrides and --dry-run; the canonical JSON runs the same study
"$IMPACT" study "$EX/jia-fig15a.toml" --set params.mu=linspace:0:1:11 --set run.steps=400 --dry-run > "$T/dry.json" 2> "$T/err"; rc=$?
check "dry run exits 0" '[ $rc -eq 0 ] && grep -q "\"steps\": 400" "$T/dry.json" && grep -q "\"linspace\"" "$T/dry.json"'
"$IMPACT" study "$T/dry.json" --out "$T/f15a" -q > /dev/null 2> "$T/err"; rc=$?
check "canonical json runs" '[ $rc -eq 0 ] && [ $(wc -l < "$T/f15a/jia.csv") -eq 12 ]'

# 4. bad configs: exit 1, FILE:LINE:COL and the key
printf '[study]\nscenario = "ball"\nlaw = "jia"\n[design]\nnn = 3\n' > "$T/bad1.toml"
"$IMPACT" study "$T/bad1.toml" > /dev/null 2> "$T/err"; rc=$?
check "unknown key exits 1 naming it" '[ $rc -eq 1 ] && grep -q "bad1.toml:5:1: design.nn: unknown key" "$T/err"'
printf '[study]\nscenario = "ball"\nlaw = "jia"\n[params]\nmu = { dist = "normal", mean = 0.3, sd = -0.1 }\n' > "$T/bad2.toml"
"$IMPACT" study "$T/bad2.toml" > /dev/null 2> "$T/err"; rc=$?
check "impossible distribution exits 1 naming it" '[ $rc -eq 1 ] && grep -q "bad2.toml:5:1: params.mu" "$T/err"'
printf '{"study": {"scenario": "ball", "law": "jia"}, "run": {"steps": "many"}}' > "$T/bad3.json"
"$IMPACT" study "$T/bad3.json" > /dev/null 2> "$T/err"; rc=$?
check "wrong type exits 1 naming it" '[ $rc -eq 1 ] && grep -q "run.steps: expected an integer" "$T/err"'
printf '[study]\nscenario = "ball"\nlaw = "jia"\n[params]\nmu = "uniform:0:1"\n' > "$T/bad4.toml"
"$IMPACT" study "$T/bad4.toml" --set design.kind=grid > /dev/null 2> "$T/err"; rc=$?
check "random parameter in a grid exits 1 naming it" '[ $rc -eq 1 ] && grep -q "bad4.toml:5:1: params.mu" "$T/err"'
"$IMPACT" study "$T/nosuch.toml" > /dev/null 2> "$T/err"; rc=$?
check "missing file exits 1" '[ $rc -eq 1 ] && grep -q "nosuch.toml: cannot open" "$T/err"'
# a name is the default folder's (out/NAME): '..' would be the working folder itself, 'a/b' a folder
# below; with output.dir given it names no folder
printf '[study]\nscenario = "ball"\nlaw = "newton"\n[design]\nn = 10\n' > "$T/noout.toml"
for name in .. a/b; do
  "$IMPACT" study "$T/noout.toml" --set "study.name=\"$name\"" --dry-run > /dev/null 2> "$T/err"; rc=$?
  check "study.name '$name' for out/NAME exits 1 naming it, with --dry-run too" '[ $rc -eq 1 ] && grep -q "study.name: expected a plain name" "$T/err"'
  "$IMPACT" study "$T/noout.toml" --set "study.name=\"$name\"" --out "$T/named" --dry-run > /dev/null 2> "$T/err"; rc=$?
  check "study.name '$name' with --out: taken" '[ $rc -eq 0 ] || { cat "$T/err" >&2; false; }'
done

# a table is never written through a link in the output folder (write failures themselves:
# integrity.sh, under a file size limit): a folder holding only a link is no study's, refused
# without --force; with --force the link is replaced by the table and the device is left as it is
mkdir -p "$T/full" && ln -s /dev/full "$T/full/jia.csv"
"$IMPACT" study "$EX/jia-fig15c.toml" --out "$T/full" --no-plots -q > /dev/null 2> "$T/err"; rc=$?
check "a folder holding a link to a device is refused" '[ $rc -eq 1 ] && grep -q "holds 1 file(s) that no impactbatch study wrote there (jia.csv)" "$T/err"'
"$IMPACT" study "$EX/jia-fig15c.toml" --out "$T/full" --no-plots -q --force > /dev/null 2> "$T/err"; rc=$?
check "--force replaces the link by the table, never writes through it" \
  '[ $rc -eq 0 ] && [ -f "$T/full/jia.csv" ] && [ ! -L "$T/full/jia.csv" ] && [ -c /dev/full ] && head -1 "$T/full/jia.csv" | grep -q sample_id'

# aghili's diagnostic mu_star is inf where W does not couple normal and tangential directions
# (docs/INTERFACE.md): that is a result, not a non-finite row
printf '[study]\nscenario = "ball"\nlaw = "aghili"\n[design]\nkind = "mc"\nn = 200\n[params]\nmu = "uniform:0:1"\n[output]\nformats = ["npy"]\n' > "$T/ag.toml"
"$IMPACT" study "$T/ag.toml" --out "$T/ag" -q > /dev/null 2> "$T/err"; rc=$?
pycheck "aghili rows with mu_star = inf are ok" "$T/ag/aghili.npy" '
assert len(ok) == 200, np.unique(d["status"], return_counts=True)
assert np.all(np.isinf(ok["mu_star"])) and np.all(np.isfinite(ok["Vx"]))'

# 5. samples that cannot be built keep their rows, with a status; statuses add up to n
printf '[study]\nscenario = "ball"\nlaws = ["newton", "chatterjee-ruina"]\n[design]\nkind = "mc"\nn = 2000\n[params]\nr = "uniform:-0.5:1"\nV0z = "uniform:-1:0.2"\n' > "$T/ball.toml"
"$IMPACT" study "$T/ball.toml" --out "$T/ball" -q > /dev/null 2> "$T/err"; rc=$?
check "mc with bad samples exits 0" '[ $rc -eq 0 ]'
pycheck "bad samples keep their rows" "$T/ball/newton.npy" '
assert len(d) == 2000 and np.all(d["sample_id"] == np.arange(2000))
codes = {0: "ok", 1: "no_approach", 4: "param_out_of_range"}
st = d["status"]
assert np.all((st == 4) == (d["r"] <= 0)), "param_out_of_range exactly where r <= 0"
assert np.all((st == 1) == ((d["r"] > 0) & (d["V0z"] >= 0))), "no_approach exactly where V0z >= 0"
assert np.all(np.isnan(d["P_n"][st != 0])) and np.all(np.isfinite(d["P_n"][st == 0]))'
check "csv has empty cells for rows without result" 'grep -q ",param_out_of_range," "$T/ball/chatterjee-ruina.csv" && grep -q ",no_approach," "$T/ball/chatterjee-ruina.csv"'
check "salib Y files have every row" '[ $(wc -l < "$T/ball/salib/newton_Vx.txt") -eq 2000 ] && [ $(wc -l < "$T/ball/design.txt") -eq 2001 ]'

# 6. an imported design keeps its row order
printf '# an unsorted SALib-style sample matrix\nmu e\n0.9 0.1\n0.1 0.9\n0.5 0.5\n0.3 0.7\n0.7 0.2\n' > "$T/x.txt"
printf '[study]\nscenario = "ball"\nlaw = "chatterjee-ruina"\n[design]\nkind = "imported"\nfile = "%s"\n[params]\nmu = "uniform:0:1"\ne = "uniform:0:1"\n' "$T/x.txt" > "$T/imp.toml"
"$IMPACT" study "$T/imp.toml" --out "$T/imp" -q > /dev/null 2> "$T/err"; rc=$?
check "imported design exits 0" '[ $rc -eq 0 ]'
pycheck "imported design keeps row order" "$T/imp/chatterjee-ruina.npy" '
assert list(d["mu"]) == [0.9, 0.1, 0.5, 0.3, 0.7] and list(d["e"]) == [0.1, 0.9, 0.5, 0.7, 0.2]
assert np.all(np.abs(ok["Vz"] - 5.0 * ok["e"]) < 1e-12)  # the ball rebounds at e |V0z|'

# imported columns declare themselves: no [params] entry; a fixed parameter may not be a column
printf '[study]\nscenario = "ball"\nlaw = "chatterjee-ruina"\n[design]\nkind = "imported"\nfile = "%s"\n' "$T/x.txt" > "$T/imp2.toml"
"$IMPACT" study "$T/imp2.toml" --out "$T/imp2" -q > /dev/null 2> "$T/err"; rc=$?
check "imported columns need no [params]" '[ $rc -eq 0 ] && cmp -s "$T/imp/chatterjee-ruina.csv" "$T/imp2/chatterjee-ruina.csv"'
"$IMPACT" study "$T/imp2.toml" --set params.mu=0.3 --out "$T/imp3" -q > /dev/null 2> "$T/err"; rc=$?
check "a fixed parameter that is a column is refused at its line and column" '[ $rc -eq 1 ] && grep -q "design.file: $T/x.txt:2:1: .mu. is fixed in \[params\]" "$T/err"'
printf 'mu spin\n0.1 2\n' > "$T/x2.txt"
"$IMPACT" study "$T/imp2.toml" --set design.file="$T/x2.txt" --out "$T/imp4" -q > /dev/null 2> "$T/err"; rc=$?
check "a column that is no parameter of the scenario is refused" '[ $rc -eq 1 ] && grep -q "x2.txt:1:4: expected a header of scenario parameters (.*); .spin. is not one of them" "$T/err"'

# the oblique-impact study: eta0 from the elastic constants, a sweep over the incidence angle; in
# gross slip (large angles) both laws give the rigid sliding outcome w = 5/2 mu (1 + e) V cos(a) / r
"$IMPACT" study "$EX/oblique-sphere.toml" --out "$T/obl" --no-plots -q > /dev/null 2> "$T/err"; rc=$?
check "oblique-sphere study exits 0" '[ $rc -eq 0 ]'
for law in jia stronge; do
pycheck "oblique-sphere $law: eta0 from steel on steel, sliding spin at large angles" "$T/obl/$law.npy" '
assert len(ok) == 89 and np.all(np.abs(d["eta0"] - np.sqrt((2 - 0.29) / (2 * (1 - 0.29)))) < 1e-15)
a = np.radians(ok["angle"]); slide = ok["angle"] >= 40
w = 2.5 * 0.1 * 1.9 * 2.0 * np.cos(a) / 0.0125
assert np.all(np.abs(ok["wy"][slide] - w[slide]) < 1e-9 * w[slide]), np.max(np.abs(ok["wy"] - w)[slide])
assert np.all(np.abs(ok["Vz"] - 0.9 * 2.0 * np.cos(a)) < 1e-9)'
done
pycheck "oblique-sphere: the compliant law spins the ball faster below the slip angle (Maw et al.)" "$T/obl/jia.npy" '
s = np.load(sys.argv[1].replace("jia.npy", "stronge.npy"))
mid = (ok["angle"] >= 12) & (ok["angle"] <= 28)
assert np.all(ok["wy"][mid] > s["wy"][mid] * 1.05)'

# 7. Sobol indices from a Saltelli study of the ball
"$IMPACT" study "$EX/ball-sobol.toml" --set design.n=512 --out "$T/sob" --no-plots -q > /dev/null 2> "$T/err"; rc=$?
check "saltelli study exits 0" '[ $rc -eq 0 ] && [ -s "$T/sob/sensitivity.csv" ]'
# the same Saltelli matrix imported from a file (its design.txt, SALib's X) gives the same indices
"$IMPACT" study "$EX/ball-sobol.toml" --set design.n=512 --set design.file="$T/sob/design.txt" --out "$T/sobf" --no-plots -q > /dev/null 2> "$T/err"; rc=$?
check "saltelli matrix imported: same tables and indices" '[ $rc -eq 0 ] && cmp -s "$T/sob/jia.npy" "$T/sobf/jia.npy" && cmp -s "$T/sob/sensitivity.csv" "$T/sobf/sensitivity.csv"'
# design.txt names its columns in a comment line (as np.savetxt does): it declares them, no [params]
printf '[study]\nscenario = "ball"\nlaws = ["jia"]\n[design]\nkind = "saltelli"\nfile = "%s"\nseed = 7\n[params]\nV0z = -5.0\n[output]\ncolumns = ["Vx", "wy", "Vz"]\n[sensitivity]\noutputs = ["Vx", "wy", "Vz"]\n' "$T/sob/design.txt" > "$T/sobself.toml"
"$IMPACT" study "$T/sobself.toml" --out "$T/sobs" --no-plots -q > /dev/null 2> "$T/err"; rc=$?
check "saltelli file with self-declared columns: same jia table and indices" '[ $rc -eq 0 ] && cmp -s "$T/sob/jia.npy" "$T/sobs/jia.npy" && [ "$(grep ^jia, "$T/sob/sensitivity.csv")" = "$(grep ^jia, "$T/sobs/sensitivity.csv")" ]'
head -n 7 "$T/sob/design.txt" > "$T/sobcut.txt"
"$IMPACT" study "$EX/ball-sobol.toml" --set design.file="$T/sobcut.txt" --out "$T/sobc" --no-plots -q > /dev/null 2> "$T/err"; rc=$?
check "a Saltelli file that is not one is refused" '[ $rc -eq 1 ] && grep -q "sobcut.txt:8:1: expected N (d + 2) rows for a Saltelli matrix of d = 5 columns, found 6" "$T/err"'
check "sobol rows per parameter" '[ $(grep -c "^jia,Vz," "$T/sob/sensitivity.csv") -eq 5 ]'
"$PY" - "$T/sob/sensitivity.csv" <<'EOF' 2> "$T/pyerr"; rc=$?
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["law"] == "jia" and r["output"] == "Vz"]
S = {r["parameter"]: (float(r["ST"]), float(r["ST_conf"])) for r in rows}
# the rebound speed e |V0z| does not depend on mu, eta0, V0x or w0y at all: their total indices vanish
for p in ("mu", "eta0", "V0x", "w0y"):
    assert abs(S[p][0]) < 1e-9, (p, S[p])
assert S["e"][0] > 0.99, S["e"]
EOF
check "Vz depends on e alone" '[ $rc -eq 0 ] || { cat "$T/pyerr" >&2; false; }'

# the tables and the statistics do not depend on the chunk size or the thread count
"$IMPACT" study "$EX/ball-sobol.toml" --set design.n=128 --set run.chunk=7 --out "$T/ch7" --no-plots -q > /dev/null 2>&1
OMP_NUM_THREADS=1 "$IMPACT" study "$EX/ball-sobol.toml" --set design.n=128 --out "$T/ch1" --no-plots -q > /dev/null 2>&1
check "chunk size and threads change nothing" 'cmp -s "$T/ch7/jia.csv" "$T/ch1/jia.csv" && cmp -s "$T/ch7/stronge.npy" "$T/ch1/stronge.npy" && cmp -s "$T/ch7/sensitivity.csv" "$T/ch1/sensitivity.csv" && "$PY" -c "import json,sys; a,b=(json.load(open(f))[\"summary\"] for f in sys.argv[1:]); sys.exit(not all(a[l][\"columns\"]==b[l][\"columns\"] for l in a))" "$T/ch7/metadata.json" "$T/ch1/metadata.json"'

# 8. every scenario runs as a Monte Carlo study around its defaults with several laws; no row is
#    lost, ok rows have finite body outputs and never gain energy (dE <= 0 for these laws)
for sc in contact ball pencil double-pendulum-2d double-pendulum-3d two-bodies; do
  printf '[study]\nscenario = "%s"\nlaws = ["stronge", "chatterjee-ruina", "jia"]\n[design]\nkind = "lhs"\nn = 300\n[params]\nmu = "uniform:0:1"\ne = "uniform:0:1"\n[output]\nformats = ["npy"]\n' "$sc" > "$T/sc.toml"
  "$IMPACT" study "$T/sc.toml" --out "$T/sc-$sc" -q > /dev/null 2> "$T/err"; rc=$?
  check "scenario $sc runs" '[ $rc -eq 0 ]'
  for law in stronge chatterjee-ruina jia; do
    pycheck "scenario $sc, $law: rows, finite outputs, dE <= 0" "$T/sc-$sc/$law.npy" '
import json, os
meta = json.load(open(os.path.join(os.path.dirname(sys.argv[1]), "metadata.json")))
assert len(d) == 300 and np.all(d["sample_id"] == np.arange(300))
assert len(ok) >= 150, len(ok)
K0 = np.abs(ok["P_n"]) + 1.0
assert np.all(ok["dE"] <= 1e-9 * K0 * K0), ok["dE"].max()
names = [c["name"] for c in meta["columns"]["'"$law"'"]]
i = names.index("status")
for c in names[i + 1:]:
    assert np.all(np.isfinite(ok[c])), c'
  done
done

# 9. the shipped pencil Monte Carlo (the README's main job), smaller: histograms drawn, and a run
#    longer than a second prints plain progress lines when stderr is not a terminal
"$IMPACT" study "$EX/pencil-mc.toml" --set design.n=6000 --set run.steps=2000 --out "$T/pmc" > "$T/out" 2> "$T/err"; rc=$?
check "pencil mc exits 0" '[ $rc -eq 0 ]'
check "pencil mc plots" '[ -s "$T/pmc/pencil-mc-hist.png" ] && [ -s "$T/pmc/pencil-mc-energy.png" ] && [ -s "$T/pmc/pencil-mc-mu-w2.png" ]'
secs=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["timings"]["total_s"])' "$T/pmc/metadata.json")
check "pencil mc progress lines (a line while running when it took over 1.5 s: $secs s)" 'grep -q "^study pencil-mc: 12000/12000 (100.0%), .*/s, took" "$T/err" && { grep -q "^study pencil-mc: [0-9]*/12000 (.*%), .*/s, left" "$T/err" || "$PY" -c "import sys; sys.exit(float(sys.argv[1]) >= 1.5)" "$secs"; }'
check "pencil mc tells where the results are" 'grep -q "^results: $T/pmc/" "$T/out" && grep -q "^plots: $T/pmc/pencil-mc-hist.png" "$T/out"'
pycheck "pencil mc: spread as configured" "$T/pmc/jia.npy" '
assert len(d) == 6000
th = d["theta"]
assert th.min() >= 0.8 and th.max() <= np.pi / 2 and abs(th.mean() - 1.047) < 0.02
assert abs(d["mu"].min() - 0.2) < 0.01 and abs(d["mu"].max() - 0.6) < 0.01
assert abs(d["V0x"].std() - 0.5) < 0.05 and np.all(d["V0z"] <= -0.5)
assert len(ok) > 5800
assert np.all(ok["P_t"] <= ok["mu"] * ok["P_n"] * (1 + 1e-9) + 1e-12)  # Coulomb cone'

finish
