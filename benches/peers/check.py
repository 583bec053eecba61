#!/usr/bin/env python3
"""Checks a peer's result table against ours (`impact eval` output on the same instances).

    python3 check.py OURS.csv PEER.csv [--precision double|float] [--rtol R] [--id index]
                     [--columns P_x,P_y,...] [--no-modes] [--json summary.json] [-q]

Rows are matched by position; when both tables have the row id column (`index`, as written by
`impact reduce --cases-out` and copied through by `impact eval`; else `row`) the ids must agree
row by row, so a missing, extra or reordered row is reported as such. For every row the status
must agree; for rows that are `ok` in both, every compared column must agree within the tolerance
(default relative 1e-9 for double, 1e-4 for float).

With --precision float both values are rounded to float32 before they are compared.
Relative error of a value = |peer - ours| / scale, where scale is the size of the quantity the
value belongs to in that row (a component near zero has no relative error of its own):
  P_x, P_y, P_z, In_c    |P| of the row (ours, or the peer's if larger)
  vf_x, vf_y, vf_z       max(|vf|, |v0|)   (v0 from our table's v_* columns when present)
  dE                     1/2 (|v0| + |vf|) |P|   (dE = 1/2 (v0 + vf).P)
  kappa and other floats max(|ours|, |peer|, 1)
  steps                  compared exactly (integers; --steps-tol to allow a difference)
  modes                  compared as strings (--no-modes to skip)
--outliers F (default 0) lets up to a fraction F of the rows differ beyond the tolerance, each within
--outlier-rtol (steps and modes free): for a peer whose arithmetic is not rounded like ours (XLA on a
GPU contracts a*b+c into FMAs), a fixed-step law with events can take a discrete decision (the step
of an event, a stiff-step test) the other way on a few rows; they are counted and reported.
Exit status: 0 all within tolerance, 1 a difference (each named by column and row), 2 a usage
error or an unreadable table.
"""
import argparse
import csv
import json
import math
import struct
import sys

DEFAULT_COLUMNS = ["P_x", "P_y", "P_z", "vf_x", "vf_y", "vf_z", "dE"]
OPTIONAL_COLUMNS = ["In_c", "kappa", "sigma", "mu_cr", "mu_star", "e_star", "e_star_global", "steps"]


def read_table(path):
    try:
        with open(path, newline="") as f:
            rows = list(csv.reader(f))
    except OSError as ex:
        print("check: cannot read %s: %s" % (path, ex), file=sys.stderr)
        sys.exit(2)
    if not rows:
        print("check: %s: empty file (no header)" % path, file=sys.stderr)
        sys.exit(2)
    header = [h.strip() for h in rows[0]]
    body = [r for r in rows[1:] if r]
    for k, r in enumerate(body):
        if len(r) != len(header):
            print("check: %s:%d: %d fields, header has %d" % (path, k + 2, len(r), len(header)), file=sys.stderr)
            sys.exit(2)
    return header, body


def num(s):
    try:
        return float(s)
    except ValueError:
        return None


def to_float32(x):
    """x rounded to the nearest float32: a float table (shortest float32 digits in ours, 9
    significant digits in a peer's) reads back to the float32 values that were computed."""
    try:
        return struct.unpack("f", struct.pack("f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("ours")
    ap.add_argument("peer")
    ap.add_argument("--precision", default="double", choices=["double", "float"])
    ap.add_argument("--rtol", type=float, default=None, help="relative tolerance (default 1e-9 double, 1e-4 float)")
    ap.add_argument("--id", default=None, help="row id column (default: index, else row, when in both tables)")
    ap.add_argument("--columns", default=None, help="comma-separated columns to compare (default: P_*, vf_*, dE "
                    "and the law's numeric extras present in both)")
    ap.add_argument("--no-modes", action="store_true", help="do not compare the modes column")
    ap.add_argument("--steps-tol", type=int, default=0, help="allowed |difference| of the steps column")
    ap.add_argument("--outliers", type=float, default=0.0,
                    help="fraction of compared rows allowed to differ beyond --rtol (default 0: none), each "
                    "within --outlier-rtol; for peers whose arithmetic is not rounded like ours (FMA "
                    "contraction on a GPU), where a fixed-step law can take a discrete decision the other way")
    ap.add_argument("--outlier-rtol", type=float, default=1e-3, help="bound for the rows allowed by --outliers")
    ap.add_argument("--max-report", type=int, default=5, help="differences listed per column")
    ap.add_argument("--json", default=None, help="write a JSON summary here")
    ap.add_argument("--label", default="", help="name of the peer in messages")
    ap.add_argument("-q", "--quiet", action="store_true", help="print failures only")
    a = ap.parse_args(argv)
    rtol = a.rtol if a.rtol is not None else (1e-9 if a.precision == "double" else 1e-4)
    label = (a.label + ": ") if a.label else ""

    oh, ob = read_table(a.ours)
    ph, pb = read_table(a.peer)
    oc = {h: i for i, h in enumerate(oh)}
    pcol = {h: i for i, h in enumerate(ph)}
    failures = []
    for need in ("status",):
        for hdr, path in ((oc, a.ours), (pcol, a.peer)):
            if need not in hdr:
                print("check: %s: no '%s' column" % (path, need), file=sys.stderr)
                sys.exit(2)
    if a.columns:
        cols = [c.strip() for c in a.columns.split(",") if c.strip()]
        for c in cols:
            if c not in oc or c not in pcol:
                print("check: column '%s' missing from %s" % (c, a.ours if c not in oc else a.peer), file=sys.stderr)
                sys.exit(2)
    else:
        cols = []
        for c in DEFAULT_COLUMNS:
            if c not in oc:
                print("check: %s: no '%s' column (expected a table written by `impact eval`)" % (a.ours, c),
                      file=sys.stderr)
                sys.exit(2)
            if c not in pcol:
                failures.append("column %s missing from the peer's table" % c)
            else:
                cols.append(c)
        cols += [c for c in OPTIONAL_COLUMNS if c in oc and c in pcol]
    modes = not a.no_modes and "modes" in oc and "modes" in pcol

    # rows: count and ids
    id_col = a.id
    if id_col is None:
        id_col = next((c for c in ("index", "row") if c in oc and c in pcol), None)
    elif id_col not in oc or id_col not in pcol:
        print("check: id column '%s' missing from %s" % (id_col, a.ours if id_col not in oc else a.peer),
              file=sys.stderr)
        sys.exit(2)
    if len(ob) != len(pb):
        failures.append("row count differs: ours %d, peer %d (%s)" % (
            len(ob), len(pb), "rows missing from the peer" if len(pb) < len(ob) else "extra rows in the peer"))
    nrows = min(len(ob), len(pb))

    def rid(k):
        return "row %d" % (k + 1) + ((" (%s %s)" % (id_col, ob[k][oc[id_col]])) if id_col else "")

    if id_col:
        ids_o = [r[oc[id_col]].strip() for r in ob]
        ids_p = [r[pcol[id_col]].strip() for r in pb]
        for k in range(nrows):
            if ids_o[k] != ids_p[k]:
                so = set(ids_o)
                sp = set(ids_p)
                what = ("rows missing from the peer, first: %s %s" % (id_col, next(i for i in ids_o if i not in sp))
                        if so - sp else "extra rows in the peer, first: %s %s" % (id_col, next(i for i in ids_p if i not in so))
                        if sp - so else "rows reordered")
                failures.append("row %d: %s %s in ours, %s in the peer (%s)" % (k + 1, id_col, ids_o[k], ids_p[k], what))
                break
        else:
            if len(ob) != len(pb):
                longer, who = (ids_o, "missing from the peer") if len(ob) > len(pb) else (ids_p, "extra in the peer")
                failures.append("row %d (%s %s) onwards: %s" % (nrows + 1, id_col, longer[nrows], who))

    # statuses
    st_bad = []
    for k in range(nrows):
        so = ob[k][oc["status"]].strip()
        sp = pb[k][pcol["status"]].strip()
        if so != sp:
            st_bad.append("%s: status ours=%s peer=%s" % (rid(k), so, sp))
    if st_bad:
        failures.append("status differs on %d row(s): %s%s" % (len(st_bad), "; ".join(st_bad[:a.max_report]),
                                                             " ..." if len(st_bad) > a.max_report else ""))

    # values
    def vec(row, hdr, names):
        v = [num(row[hdr[c]]) if c in hdr else None for c in names]
        return None if any(x is None for x in v) else v

    def vnorm(v):
        return math.sqrt(sum(x * x for x in v)) if v else 0.0

    stats = {c: {"max_abs": 0.0, "max_rel": 0.0, "row": None, "n": 0, "over": 0} for c in cols}
    bad_msgs = {c: [] for c in cols}  # (row, message)
    modes_bad = []
    row_rel = {}  # row -> its largest relative error
    hard_rows = set()  # rows with a difference no tolerance covers (not a number, inf / nan)
    n_ok = 0
    for k in range(nrows):
        ro, rp = ob[k], pb[k]
        if ro[oc["status"]].strip() != "ok" or rp[pcol["status"]].strip() != "ok":
            continue
        n_ok += 1
        Po = vec(ro, oc, ("P_x", "P_y", "P_z"))
        Pp = vec(rp, pcol, ("P_x", "P_y", "P_z"))
        vfo = vec(ro, oc, ("vf_x", "vf_y", "vf_z"))
        v0 = vec(ro, oc, ("v_x", "v_y", "v_z"))
        nP = max(vnorm(Po), vnorm(Pp))
        nvf = vnorm(vfo)
        nv0 = vnorm(v0) if v0 else nvf
        for c in cols:
            so, sp = ro[oc[c]].strip(), rp[pcol[c]].strip()
            xo, xp_ = num(so), num(sp)
            if a.precision == "float" and xo is not None and xp_ is not None:
                xo, xp_ = to_float32(xo), to_float32(xp_)
            if xo is None or xp_ is None:
                msg = "%s: %s ours=%r peer=%r (not a number)" % (rid(k), c, so, sp)
                stats[c]["over"] += 1
                bad_msgs[c].append((k, msg))
                hard_rows.add(k)
                continue
            st = stats[c]
            st["n"] += 1
            if math.isnan(xo) or math.isnan(xp_) or math.isinf(xo) or math.isinf(xp_):
                if not (xo == xp_ or (math.isnan(xo) and math.isnan(xp_))):
                    st["over"] += 1
                    bad_msgs[c].append((k, "%s: %s ours=%s peer=%s" % (rid(k), c, so, sp)))
                    hard_rows.add(k)
                continue
            d = abs(xp_ - xo)
            if c == "steps":
                if d > a.steps_tol:
                    st["over"] += 1
                    bad_msgs[c].append((k, "%s: steps ours=%s peer=%s" % (rid(k), so, sp)))
                st["max_abs"] = max(st["max_abs"], d)
                continue
            if c.startswith("P_") or c == "In_c":
                sc = nP
            elif c.startswith("vf_"):
                sc = max(nvf, nv0)
            elif c == "dE":
                sc = 0.5 * (nv0 + nvf) * nP
            else:
                sc = max(abs(xo), abs(xp_), 1.0)
            rel = d / sc if sc > 0 else (0.0 if d == 0 else math.inf)
            if d > st["max_abs"]:
                st["max_abs"] = d
            if rel > st["max_rel"]:
                st["max_rel"] = rel
                st["row"] = k + 1
            row_rel[k] = max(row_rel.get(k, 0.0), rel)
            if rel > rtol:
                st["over"] += 1
                bad_msgs[c].append((k, "%s: %s ours=%s peer=%s rel err %.3g > %.3g" % (rid(k), c, so, sp, rel, rtol)))
        if modes:
            mo, mp = ro[oc["modes"]].strip(), rp[pcol["modes"]].strip()
            if mo != mp:
                modes_bad.append((k, "%s: modes ours=%s peer=%s" % (rid(k), mo, mp)))

    # rows beyond tolerance: tolerated only with --outliers, few enough and each within --outlier-rtol
    viol = set(k for c in cols for k, _ in bad_msgs[c]) | set(k for k, _ in modes_bad)
    tolerated = set()
    if a.outliers > 0 and viol and not (viol & hard_rows) and len(viol) <= int(a.outliers * n_ok) \
            and all(row_rel.get(k, 0.0) <= a.outlier_rtol for k in viol):
        tolerated = viol
    for c in cols:
        msgs = [m for k, m in bad_msgs[c] if k not in tolerated]
        if msgs:
            failures.append("column %s: %d value(s) beyond tolerance: %s%s" % (
                c, len(msgs), "; ".join(msgs[:a.max_report]), " ..." if len(msgs) > a.max_report else ""))
    msgs = [m for k, m in modes_bad if k not in tolerated]
    if msgs:
        failures.append("column modes: %d row(s) differ: %s%s" % (len(msgs), "; ".join(msgs[:a.max_report]),
                                                               " ..." if len(msgs) > a.max_report else ""))
    if a.outliers > 0 and viol and not tolerated:
        failures.append("%d row(s) beyond rel %.3g: more than --outliers %.3g of %d rows allow, or beyond "
                        "--outlier-rtol %.3g, or not numbers" % (len(viol), rtol, a.outliers, n_ok, a.outlier_rtol))

    max_rel = max([stats[c]["max_rel"] for c in cols if c != "steps"] or [0.0])
    max_rel_rest = max([r for k, r in row_rel.items() if k not in tolerated] or [0.0])
    passed = not failures
    if not a.quiet:
        print("%scompared %d rows (%s vs %s), tolerance rel %.3g" % (label, nrows, a.peer, a.ours, rtol))
        print("  %-8s %12s %12s %8s" % ("column", "max abs", "max rel", "row"))
        for c in cols:
            s = stats[c]
            print("  %-8s %12.3g %12s %8s" % (c, s["max_abs"], "exact" if c == "steps" else "%.3g" % s["max_rel"],
                                               s["row"] if s["row"] else "-"))
        if modes:
            print("  modes    %d row(s) differ" % len(modes_bad))
        print("  status   %d row(s) differ" % len(st_bad))
        if tolerated:
            print("  %d outlier row(s) beyond rel %.3g tolerated (--outliers %.3g, each <= %.3g); "
                  "max rel err of the other rows %.3g" % (len(tolerated), rtol, a.outliers, a.outlier_rtol,
                                                           max_rel_rest))
    for f_ in failures:
        print("%sFAIL: %s" % (label, f_), file=sys.stderr)
    if not a.quiet or not passed:
        print("%s%s (max rel err %.3g)" % (label, "PASSED" if passed else "FAILED: wrong results", max_rel),
              file=sys.stdout if passed else sys.stderr)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"passed": passed, "rows_ours": len(ob), "rows_peer": len(pb), "rtol": rtol,
                       "max_rel_err": max_rel, "status_mismatches": len(st_bad), "modes_mismatches": len(modes_bad),
                       "outliers_tolerated": len(tolerated), "max_rel_err_without_outliers": max_rel_rest,
                       "columns": stats, "failures": failures}, f, indent=1)
            f.write("\n")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
