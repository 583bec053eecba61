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


def parse_args(argv):
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
    return ap.parse_args(argv)


def usage_error(message):
    print("check: " + message, file=sys.stderr)
    sys.exit(2)


class Tables:
    """Our table and the peer's: header -> column index (oc, pcol) and the rows (ob, pb)."""

    def __init__(self, a):
        self.oh, self.ob = read_table(a.ours)
        self.ph, self.pb = read_table(a.peer)
        self.oc = {h: i for i, h in enumerate(self.oh)}
        self.pcol = {h: i for i, h in enumerate(self.ph)}
        self.nrows = min(len(self.ob), len(self.pb))


def compared_columns(a, t, failures):
    """The columns compared: --columns, else the defaults (one missing from the peer is a failure)
    and the optional ones both tables have."""
    if a.columns:
        cols = [c.strip() for c in a.columns.split(",") if c.strip()]
        for c in cols:
            if c not in t.oc or c not in t.pcol:
                usage_error("column '%s' missing from %s" % (c, a.ours if c not in t.oc else a.peer))
        return cols
    cols = []
    for c in DEFAULT_COLUMNS:
        if c not in t.oc:
            usage_error("%s: no '%s' column (expected a table written by `impact eval`)" % (a.ours, c))
        if c not in t.pcol:
            failures.append("column %s missing from the peer's table" % c)
        else:
            cols.append(c)
    return cols + [c for c in OPTIONAL_COLUMNS if c in t.oc and c in t.pcol]


def id_column(a, t):
    """The row id column: --id, else index or row when both tables have it, else None."""
    if a.id is None:
        return next((c for c in ("index", "row") if c in t.oc and c in t.pcol), None)
    if a.id not in t.oc or a.id not in t.pcol:
        usage_error("id column '%s' missing from %s" % (a.id, a.ours if a.id not in t.oc else a.peer))
    return a.id


def row_failures(t, id_col):
    """Failures of the rows themselves: their count, and their ids row by row."""
    ob, pb, nrows = t.ob, t.pb, t.nrows
    failures = []
    if len(ob) != len(pb):
        failures.append("row count differs: ours %d, peer %d (%s)" % (
            len(ob), len(pb), "rows missing from the peer" if len(pb) < len(ob) else "extra rows in the peer"))
    if not id_col:
        return failures
    ids_o = [r[t.oc[id_col]].strip() for r in ob]
    ids_p = [r[t.pcol[id_col]].strip() for r in pb]
    for k in range(nrows):
        if ids_o[k] != ids_p[k]:
            so = set(ids_o)
            sp = set(ids_p)
            if so - sp:
                what = "rows missing from the peer, first: %s %s" % (id_col, next(i for i in ids_o if i not in sp))
            elif sp - so:
                what = "extra rows in the peer, first: %s %s" % (id_col, next(i for i in ids_p if i not in so))
            else:
                what = "rows reordered"
            failures.append("row %d: %s %s in ours, %s in the peer (%s)" % (k + 1, id_col, ids_o[k], ids_p[k], what))
            break
    else:
        if len(ob) != len(pb):
            longer, who = (ids_o, "missing from the peer") if len(ob) > len(pb) else (ids_p, "extra in the peer")
            failures.append("row %d (%s %s) onwards: %s" % (nrows + 1, id_col, longer[nrows], who))
    return failures


def status_differences(t, rid):
    """'row: status ours=... peer=...' of every row whose status differs."""
    st_bad = []
    for k in range(t.nrows):
        so = t.ob[k][t.oc["status"]].strip()
        sp = t.pb[k][t.pcol["status"]].strip()
        if so != sp:
            st_bad.append("%s: status ours=%s peer=%s" % (rid(k), so, sp))
    return st_bad


def vec(row, hdr, names):
    v = [num(row[hdr[c]]) if c in hdr else None for c in names]
    return None if any(x is None for x in v) else v


def vnorm(v):
    return math.sqrt(sum(x * x for x in v)) if v else 0.0


class Comparison:
    """The values of the rows that are ok in both tables, compared column by column: per column its
    largest differences (stats) and its rows beyond the tolerance (bad_msgs: (row, message)), the
    rows whose modes differ, each row's largest relative error, the rows no tolerance covers (not a
    number, inf / nan) and the count of rows compared."""

    def __init__(self, cols):
        self.stats = {c: {"max_abs": 0.0, "max_rel": 0.0, "row": None, "n": 0, "over": 0} for c in cols}
        self.bad_msgs = {c: [] for c in cols}
        self.modes_bad = []
        self.row_rel = {}
        self.hard_rows = set()
        self.n_ok = 0


def row_scales(ro, rp, t):
    """The sizes the row's values are measured against: |P| (ours or the peer's if larger), |vf|, |v0|."""
    Po = vec(ro, t.oc, ("P_x", "P_y", "P_z"))
    Pp = vec(rp, t.pcol, ("P_x", "P_y", "P_z"))
    vfo = vec(ro, t.oc, ("vf_x", "vf_y", "vf_z"))
    v0 = vec(ro, t.oc, ("v_x", "v_y", "v_z"))
    nP = max(vnorm(Po), vnorm(Pp))
    nvf = vnorm(vfo)
    nv0 = vnorm(v0) if v0 else nvf
    return nP, nvf, nv0


def compare_value(a, cmp, k, c, so, sp, scales, rtol, rid):
    """One value of row k, column c (ours so, the peer's sp, as text) into the comparison."""
    xo, xp_ = num(so), num(sp)
    if a.precision == "float" and xo is not None and xp_ is not None:
        xo, xp_ = to_float32(xo), to_float32(xp_)
    st = cmp.stats[c]
    if xo is None or xp_ is None:
        st["over"] += 1
        cmp.bad_msgs[c].append((k, "%s: %s ours=%r peer=%r (not a number)" % (rid(k), c, so, sp)))
        cmp.hard_rows.add(k)
        return
    st["n"] += 1
    if math.isnan(xo) or math.isnan(xp_) or math.isinf(xo) or math.isinf(xp_):
        if not (xo == xp_ or (math.isnan(xo) and math.isnan(xp_))):
            st["over"] += 1
            cmp.bad_msgs[c].append((k, "%s: %s ours=%s peer=%s" % (rid(k), c, so, sp)))
            cmp.hard_rows.add(k)
        return
    d = abs(xp_ - xo)
    if c == "steps":
        if d > a.steps_tol:
            st["over"] += 1
            cmp.bad_msgs[c].append((k, "%s: steps ours=%s peer=%s" % (rid(k), so, sp)))
        st["max_abs"] = max(st["max_abs"], d)
        return
    nP, nvf, nv0 = scales
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
    cmp.row_rel[k] = max(cmp.row_rel.get(k, 0.0), rel)
    if rel > rtol:
        st["over"] += 1
        cmp.bad_msgs[c].append((k, "%s: %s ours=%s peer=%s rel err %.3g > %.3g" % (rid(k), c, so, sp, rel, rtol)))


def compare_values(a, t, cols, modes, rtol, rid):
    """Every value of the rows that are ok in both tables, and their modes."""
    cmp = Comparison(cols)
    for k in range(t.nrows):
        ro, rp = t.ob[k], t.pb[k]
        if ro[t.oc["status"]].strip() != "ok" or rp[t.pcol["status"]].strip() != "ok":
            continue
        cmp.n_ok += 1
        scales = row_scales(ro, rp, t)
        for c in cols:
            compare_value(a, cmp, k, c, ro[t.oc[c]].strip(), rp[t.pcol[c]].strip(), scales, rtol, rid)
        if modes:
            mo, mp = ro[t.oc["modes"]].strip(), rp[t.pcol["modes"]].strip()
            if mo != mp:
                cmp.modes_bad.append((k, "%s: modes ours=%s peer=%s" % (rid(k), mo, mp)))
    return cmp


def value_failures(a, cmp, cols, rtol):
    """The rows beyond tolerance, tolerated only with --outliers, few enough and each within
    --outlier-rtol: (the failures of the others, the tolerated rows)."""
    viol = set(k for c in cols for k, _ in cmp.bad_msgs[c]) | set(k for k, _ in cmp.modes_bad)
    tolerated = set()
    if a.outliers > 0 and viol and not (viol & cmp.hard_rows) and len(viol) <= int(a.outliers * cmp.n_ok) \
            and all(cmp.row_rel.get(k, 0.0) <= a.outlier_rtol for k in viol):
        tolerated = viol
    failures = []
    for c in cols:
        msgs = [m for k, m in cmp.bad_msgs[c] if k not in tolerated]
        if msgs:
            failures.append("column %s: %d value(s) beyond tolerance: %s%s" % (
                c, len(msgs), "; ".join(msgs[:a.max_report]), " ..." if len(msgs) > a.max_report else ""))
    msgs = [m for k, m in cmp.modes_bad if k not in tolerated]
    if msgs:
        failures.append("column modes: %d row(s) differ: %s%s" % (len(msgs), "; ".join(msgs[:a.max_report]),
                                                               " ..." if len(msgs) > a.max_report else ""))
    if a.outliers > 0 and viol and not tolerated:
        failures.append("%d row(s) beyond rel %.3g: more than --outliers %.3g of %d rows allow, or beyond "
                        "--outlier-rtol %.3g, or not numbers" % (len(viol), rtol, a.outliers, cmp.n_ok, a.outlier_rtol))
    return failures, tolerated


def print_summary(a, t, cols, modes, cmp, st_bad, tolerated, rtol, max_rel_rest):
    """The table of the largest differences per column (without -q)."""
    label = (a.label + ": ") if a.label else ""
    print("%scompared %d rows (%s vs %s), tolerance rel %.3g" % (label, t.nrows, a.peer, a.ours, rtol))
    print("  %-8s %12s %12s %8s" % ("column", "max abs", "max rel", "row"))
    for c in cols:
        s = cmp.stats[c]
        print("  %-8s %12.3g %12s %8s" % (c, s["max_abs"], "exact" if c == "steps" else "%.3g" % s["max_rel"],
                                           s["row"] if s["row"] else "-"))
    if modes:
        print("  modes    %d row(s) differ" % len(cmp.modes_bad))
    print("  status   %d row(s) differ" % len(st_bad))
    if tolerated:
        print("  %d outlier row(s) beyond rel %.3g tolerated (--outliers %.3g, each <= %.3g); "
              "max rel err of the other rows %.3g" % (len(tolerated), rtol, a.outliers, a.outlier_rtol,
                                                       max_rel_rest))


def write_json(a, t, cmp, st_bad, tolerated, rtol, max_rel, max_rel_rest, failures):
    with open(a.json, "w") as f:
        json.dump({"passed": not failures, "rows_ours": len(t.ob), "rows_peer": len(t.pb), "rtol": rtol,
                   "max_rel_err": max_rel, "status_mismatches": len(st_bad), "modes_mismatches": len(cmp.modes_bad),
                   "outliers_tolerated": len(tolerated), "max_rel_err_without_outliers": max_rel_rest,
                   "columns": cmp.stats, "failures": failures}, f, indent=1)
        f.write("\n")


def main(argv=None):
    a = parse_args(argv)
    rtol = a.rtol if a.rtol is not None else (1e-9 if a.precision == "double" else 1e-4)
    label = (a.label + ": ") if a.label else ""
    t = Tables(a)
    failures = []
    for hdr, path in ((t.oc, a.ours), (t.pcol, a.peer)):
        if "status" not in hdr:
            usage_error("%s: no '%s' column" % (path, "status"))
    cols = compared_columns(a, t, failures)
    modes = not a.no_modes and "modes" in t.oc and "modes" in t.pcol
    id_col = id_column(a, t)

    def rid(k):
        return "row %d" % (k + 1) + ((" (%s %s)" % (id_col, t.ob[k][t.oc[id_col]])) if id_col else "")

    failures += row_failures(t, id_col)
    st_bad = status_differences(t, rid)
    if st_bad:
        failures.append("status differs on %d row(s): %s%s" % (len(st_bad), "; ".join(st_bad[:a.max_report]),
                                                             " ..." if len(st_bad) > a.max_report else ""))
    cmp = compare_values(a, t, cols, modes, rtol, rid)
    more, tolerated = value_failures(a, cmp, cols, rtol)
    failures += more

    max_rel = max([cmp.stats[c]["max_rel"] for c in cols if c != "steps"] or [0.0])
    max_rel_rest = max([r for k, r in cmp.row_rel.items() if k not in tolerated] or [0.0])
    passed = not failures
    if not a.quiet:
        print_summary(a, t, cols, modes, cmp, st_bad, tolerated, rtol, max_rel_rest)
    for f_ in failures:
        print("%sFAIL: %s" % (label, f_), file=sys.stderr)
    if not a.quiet or not passed:
        print("%s%s (max rel err %.3g)" % (label, "PASSED" if passed else "FAILED: wrong results", max_rel),
              file=sys.stdout if passed else sys.stderr)
    if a.json:
        write_json(a, t, cmp, st_bad, tolerated, rtol, max_rel, max_rel_rest, failures)
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
