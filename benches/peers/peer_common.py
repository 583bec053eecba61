"""Law code shared by the NumPy and JAX peers (benches/peers/numpy_peer.py, jax_peer.py).

Everything here is elementwise array code written against an array namespace `xp` (numpy or
jax.numpy): with NumPy the arguments are columns (one entry per instance), with JAX they are the
traced scalars of one instance inside jax.vmap. Branches of the C++ headers become selects
(xp.where); both sides are computed (with NumPy a side that no row needs is skipped: _kind, _any),
so NumPy callers run under np.errstate(all="ignore").

The arithmetic repeats the C++ headers operation by operation, in the same order
(include/impact/linalg.hpp, problem.hpp, laws/newton.hpp, laws/chatterjee_ruina.hpp,
laws/jia.hpp): the project builds its host code with -ffp-contract=off, so with IEEE double
(or float) arithmetic the peers reproduce `impact eval --backend omp|serial` to rounding, apart
from the last bit of the libm functions (exp, log, tan, atan, atan2, sin, cos).

The loop of `jia` is one state machine (jia_iterate: one fixed step or one Illinois probe per row
and iteration), driven over the compacted active rows by numpy_peer.py and by a lax.while_loop per
instance in jax_peer.py.
"""
import argparse
import csv
import json
import statistics
import sys
from types import SimpleNamespace

import numpy as _np

# Status codes (include/impact/problem.hpp, enum class Status)
OK, NO_APPROACH, W_NOT_SPD, BAD_NORMAL, PARAM_OUT_OF_RANGE, NOT_PLANAR, STEP_LIMIT, INCONSISTENT, \
    NON_FINITE, STALLED = range(10)
STATUS_NAMES = ["ok", "no_approach", "W_not_spd", "bad_normal", "param_out_of_range", "not_planar",
                "step_limit", "inconsistent", "non_finite", "stalled", "inadmissible"]

# Contact modes (Mode) and their names
MODE_SLIP, MODE_STICK, MODE_REVERSE = 1, 2, 3
MODE_NAMES = {1: "slip", 2: "stick", 3: "reverse"}

INPUT_NAMES = ["W_xx", "W_xy", "W_xz", "W_yy", "W_yz", "W_zz", "n_x", "n_y", "n_z",
               "v_x", "v_y", "v_z", "mu", "e", "e_t", "eta0"]

# Which parameters each law reads: (mu, e, e_t, eta0), as in the law headers' use() (include/impact/laws/,
# host/engine/registry.cpp).
LAW_PARAMS = {
    "newton": (False, True, False, False),
    "chatterjee-ruina": (True, True, True, False),
    "jia": (True, True, False, True),
}
# Output columns after P_*, vf_*, dE, status (each law header's `extras`)
LAW_EXTRAS = {
    "newton": [],
    "chatterjee-ruina": ["kappa", "modes"],
    "jia": ["In_c", "modes", "steps"],
}


# ---------------------------------------------------------------------------------------------
# CSV in / out
# ---------------------------------------------------------------------------------------------
def read_instances(path, law, np):
    """Reads the columns `law` needs (as float64, like the C++ parser) and the row ids.

    Returns (cols: dict name -> float64 array, ids: list of str or None, id_name)."""
    with open(path, newline="") as f:
        header = next(csv.reader(f))
    header = [h.strip() for h in header]
    uses_mu, uses_e, uses_et, uses_eta0 = LAW_PARAMS[law]
    needed = INPUT_NAMES[:12] + [n for n, u in zip(INPUT_NAMES[12:], (uses_mu, uses_e, uses_et, uses_eta0)) if u]
    missing = [n for n in needed if n not in header]
    if missing:
        raise SystemExit("%s: missing column(s) %s required by law '%s'" % (path, ", ".join(missing), law))
    id_name = "index" if "index" in header else None
    usecols = [header.index(n) for n in needed]
    data = np.loadtxt(path, delimiter=",", skiprows=1, usecols=usecols, dtype=np.float64, ndmin=2)
    cols = {n: np.ascontiguousarray(data[:, k]) for k, n in enumerate(needed)}
    nrows = data.shape[0]
    # parameters a law does not read take the values of kernels/batch.hpp load_instance
    for name, used, default in (("mu", uses_mu, 0.0), ("e", uses_e, 0.0), ("e_t", uses_et, 0.0),
                                ("eta0", uses_eta0, 1.0)):
        if not used:
            cols[name] = np.full(nrows, default)
    ids = None
    if id_name is not None:
        ids = np.loadtxt(path, delimiter=",", skiprows=1, usecols=[header.index(id_name)], dtype=str, ndmin=1)
        ids = list(ids)
    return cols, ids, id_name


def modes_string(bits):
    bits = int(bits)
    names = []
    for k in range(8):
        m = (bits >> (4 * k)) & 0xF
        if m == 0:
            break
        names.append(MODE_NAMES.get(m, "none"))
    return ">".join(names) if names else "none"


def write_results(path, law, precision, ids, id_name, res, np):
    """res: dict with P (3 arrays), vf (3), dE, status (int array) and the law's extras
    (kappa, In_c, modes (int bits), steps). Cells of rows whose status is not ok are empty."""
    fmt = "%.17g" if precision == "double" else "%.9g"
    n = len(res["status"])
    status = np.asarray(res["status"]).astype(int)
    ok = status == OK
    numeric = [res["P"][0], res["P"][1], res["P"][2], res["vf"][0], res["vf"][1], res["vf"][2], res["dE"]]
    numeric = [np.asarray(a, dtype=np.float64).tolist() for a in numeric]
    extras = LAW_EXTRAS[law]
    extra_vals = []
    for x in extras:
        if x == "modes":
            extra_vals.append([modes_string(b) for b in np.asarray(res["modes"]).tolist()])
        elif x == "steps":
            extra_vals.append([str(int(s)) for s in np.asarray(res["steps"]).tolist()])
        else:
            extra_vals.append([fmt % v for v in np.asarray(res[x], dtype=np.float64).tolist()])
    head = ([id_name] if id_name else ["row"]) + ["P_x", "P_y", "P_z", "vf_x", "vf_y", "vf_z", "dE", "status"] + extras
    okl = ok.tolist()
    stl = status.tolist()
    lines = [",".join(head)]
    for i in range(n):
        rid = ids[i] if ids is not None else str(i)
        if okl[i]:
            cells = [fmt % c[i] for c in numeric] + [STATUS_NAMES[stl[i]]] + [c[i] for c in extra_vals]
        else:
            cells = [""] * 7 + [STATUS_NAMES[stl[i]]] + [""] * len(extras)
        lines.append(rid + "," + ",".join(cells))
    data = "\n".join(lines) + "\n"
    if path == "-":
        sys.stdout.write(data)
    else:
        with open(path, "w") as f:
            f.write(data)


def peer_arguments(description, warmup_help):
    """The command line every peer takes (numpy_peer.py, jax_peer.py); a peer may add its own."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--law", required=True, choices=sorted(LAW_PARAMS))
    ap.add_argument("--in", dest="inp", required=True)
    ap.add_argument("--out", default=None, help="result CSV ('-': stdout; default: none)")
    ap.add_argument("--precision", default="double", choices=["double", "float"])
    ap.add_argument("--steps", type=int, default=250)
    ap.add_argument("--integrator", default="rk4", choices=["rk4", "euler"])
    ap.add_argument("--reps", type=int, default=5, help="timed repetitions (median reported)")
    ap.add_argument("--warmup", type=int, default=1, help=warmup_help)
    ap.add_argument("--timing-out", default="-", help="timing JSON (default: stdout)")
    return ap


def timing_record(peer, a, nrows, times, status, **extra):
    """The timing JSON of one peer run, the same entries for every peer so that the benches read them
    alike: the run's arguments `a` (peer_arguments), the timed repetitions `times` and their median
    rate over `nrows` rows, the count of each name of `status` (the status codes of the rows), then
    the peer's own entries (`extra`: its library's version, its device, ...) and the Python version."""
    med = statistics.median(times)
    counts = {}
    for s in _np.asarray(status).tolist():
        counts[STATUS_NAMES[s]] = counts.get(STATUS_NAMES[s], 0) + 1
    jia = a.law == "jia"
    return {"peer": peer, "law": a.law, "precision": a.precision,
            "steps": a.steps if jia else None, "integrator": a.integrator if jia else None,
            "n": nrows, "reps": len(times), "warmup": a.warmup, "median_s": med, "times_s": times,
            "instances_per_s": nrows / med if med > 0 else None, "status": counts,
            **extra, "python": sys.version.split()[0]}


def write_timing(path, obj):
    text = json.dumps(obj, indent=1)
    if path in (None, "-"):
        print(text)
    else:
        with open(path, "w") as f:
            f.write(text + "\n")


# ---------------------------------------------------------------------------------------------
# Small vector / matrix algebra (include/impact/linalg.hpp), vectors as 3-tuples, W as a 6-tuple
# (xx, xy, xz, yy, yz, zz). Python evaluates a + b + c left to right like C++.
# ---------------------------------------------------------------------------------------------
def dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def add(a, b):
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


def sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def scale(s, a):
    return (s * a[0], s * a[1], s * a[2])


def neg(a):
    return (-a[0], -a[1], -a[2])


def cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def norm(xp, a):
    return xp.sqrt(dot(a, a))


def tangential(a, n):
    return sub(a, scale(dot(a, n), n))


def symmul(W, v):
    xx, xy, xz, yy, yz, zz = W
    return (xx * v[0] + xy * v[1] + xz * v[2], xy * v[0] + yy * v[1] + yz * v[2],
            xz * v[0] + yz * v[1] + zz * v[2])


def quad(W, a, b=None):
    return dot(a, symmul(W, a if b is None else b))


def tmax(xp, a, b):
    return xp.where(a < b, b, a)


def tmin(xp, a, b):
    return xp.where(a < b, a, b)


def tabs(xp, a):
    return xp.where(a < 0, -a, a)


def max_abs(xp, W):
    m = tabs(xp, W[0])
    for w in W[1:]:
        m = tmax(xp, m, tabs(xp, w))
    return m


def isfinite3(xp, a):
    return xp.isfinite(a[0]) & xp.isfinite(a[1]) & xp.isfinite(a[2])


def cholesky(xp, W, rel_tol):
    """Chol3 of linalg.hpp: returns (l00, l10, l11, l20, l21, l22, ok)."""
    xx, xy, xz, yy, yz, zz = W
    sc = max_abs(xp, W)
    floor = rel_tol * sc
    fin = xp.isfinite(xx) & xp.isfinite(xy) & xp.isfinite(xz) & xp.isfinite(yy) & xp.isfinite(yz) & xp.isfinite(zz)
    d0 = xx
    l00 = xp.sqrt(d0)
    l10 = xy / l00
    l20 = xz / l00
    d1 = yy - l10 * l10
    l11 = xp.sqrt(d1)
    l21 = (yz - l20 * l10) / l11
    d2 = zz - l20 * l20 - l21 * l21
    l22 = xp.sqrt(d2)
    ok = (sc > 0) & fin & (d0 > floor) & (d1 > floor) & (d2 > floor)
    return (l00, l10, l11, l20, l21, l22, ok)


def chol_solve(c, b):
    l00, l10, l11, l20, l21, l22 = c[:6]
    y0 = b[0] / l00
    y1 = (b[1] - l10 * y0) / l11
    y2 = (b[2] - l20 * y0 - l21 * y1) / l22
    x2 = y2 / l22
    x1 = (y1 - l21 * x2) / l11
    x0 = (y0 - l10 * x1 - l20 * x2) / l00
    return (x0, x1, x2)


# ---------------------------------------------------------------------------------------------
# problem.hpp: validate, finish, plane_frame
# ---------------------------------------------------------------------------------------------
def validate(xp, T, W, n, v0, mu, e, e_t, eta0, use_e, use_et, use_eta0):
    """Returns (status, normalised n). Order of checks as in validate()."""
    fin = (xp.isfinite(W[0]) & xp.isfinite(W[1]) & xp.isfinite(W[2]) & xp.isfinite(W[3]) & xp.isfinite(W[4])
           & xp.isfinite(W[5]) & isfinite3(xp, n) & isfinite3(xp, v0) & xp.isfinite(mu))
    if use_e:
        fin = fin & xp.isfinite(e)
    if use_et:
        fin = fin & xp.isfinite(e_t)
    if use_eta0:
        fin = fin & xp.isfinite(eta0)
    nn = norm(xp, n)
    badn = ~(nn > 0)
    n = scale(1.0 / nn, n)
    par = ~(mu >= 0)
    if use_e:
        par = par | ~((e >= 0) & (e <= 1))
    if use_et:
        par = par | ~((e_t >= -1) & (e_t <= 1))
    if use_eta0:
        par = par | ~(eta0 > 0)
    noapp = ~(dot(v0, n) < 0)
    spd = cholesky(xp, W, T(64) * teps(T))[6]
    st = xp.where(~fin, NON_FINITE,
                  xp.where(badn, BAD_NORMAL,
                           xp.where(par, PARAM_OUT_OF_RANGE,
                                    xp.where(noapp, NO_APPROACH, xp.where(~spd, W_NOT_SPD, OK)))))
    return st, n


def teps(T):
    """Eps<T>::value as a T (T: numpy.float64 or numpy.float32)."""
    return T(_np.finfo(T).eps)


def finish(xp, W, v0, P):
    vf = add(v0, symmul(W, P))
    dE = 0.5 * dot(add(v0, vf), P)
    fin = isfinite3(xp, P) & isfinite3(xp, vf) & xp.isfinite(dE)
    return vf, dE, fin


def tangent_basis_t1(xp, T, n, hint):
    h = tangential(hint, n)
    hn = norm(xp, h)
    use_h = (hn > 0) & (hn > T(1e-6) * norm(xp, hint))
    th = scale(1.0 / hn, h)
    c = T(0.57735)
    ax = tabs(xp, n[0]) < c
    ay = tabs(xp, n[1]) < c
    one, zero = xp.ones_like(n[0]), xp.zeros_like(n[0])
    a = (xp.where(ax, one, zero), xp.where(ax, zero, xp.where(ay, one, zero)),
         xp.where(ax, zero, xp.where(ay, zero, one)))
    t = tangential(a, n)
    ta = scale(1.0 / norm(xp, t), t)
    return tuple(xp.where(use_h, th[k], ta[k]) for k in range(3))


def plane_frame(xp, T, W, n, v0):
    """plane_frame(): returns (t, s, planar)."""
    Wn = symmul(W, n)
    vt0 = tangential(v0, n)
    wt = tangential(Wn, n)
    vscale = norm(xp, v0)
    wscale = max_abs(xp, W)
    tol = T(1e4) * teps(T)
    nvt = norm(xp, vt0)
    nwt = norm(xp, wt)
    c1 = nvt > tol * vscale
    c2 = nwt > tol * wscale
    t1 = scale(1.0 / nvt, vt0)
    t2 = scale(1.0 / nwt, wt)
    t3 = tangent_basis_t1(xp, T, n, n)
    t = tuple(xp.where(c1, t1[k], xp.where(c2, t2[k], t3[k])) for k in range(3))
    s = cross(n, t)
    planar = ((tabs(xp, dot(v0, s)) <= tol * vscale) & (tabs(xp, dot(s, Wn)) <= tol * wscale)
              & (tabs(xp, quad(W, s, t)) <= tol * wscale))
    return t, s, planar


# ---------------------------------------------------------------------------------------------
# Algebraic laws
# ---------------------------------------------------------------------------------------------
def impulse_plastic_frictionless(W, n, v0):
    return scale(-dot(n, v0) / quad(W, n), n)


def newton(xp, T, W, n, v0, mu, e, e_t, eta0):
    st, n = validate(xp, T, W, n, v0, mu, e, e_t, eta0, True, False, False)
    P = scale(1.0 + e, impulse_plastic_frictionless(W, n, v0))
    vf, dE, fin = finish(xp, W, v0, P)
    st = xp.where((st == OK) & ~fin, NON_FINITE, st)
    return {"P": P, "vf": vf, "dE": dE, "status": st}


def chatterjee_ruina(xp, T, W, n, v0, mu, e, e_t, eta0):
    st, n = validate(xp, T, W, n, v0, mu, e, e_t, eta0, True, True, False)
    c = cholesky(xp, W, T(0))
    PI = impulse_plastic_frictionless(W, n, v0)
    PII = neg(chol_solve(c, v0))
    D = sub(PII, PI)
    Phat = add(scale(1.0 + e, PI), scale(1.0 + e_t, D))
    kappa = 1.0 + e_t
    phat_n = dot(n, Phat)
    slip = norm(xp, tangential(Phat, n)) > mu * phat_n
    denom = norm(xp, tangential(PII, n)) - mu * dot(n, D)
    ks = xp.where(denom > 0, mu * (1.0 + e) * dot(n, PI) / denom, xp.zeros_like(denom))
    ks = xp.where(ks > 1.0 + e_t, 1.0 + e_t, ks)
    kappa = xp.where(slip, ks, kappa)
    P = add(scale(1.0 + e, PI), scale(kappa, D))
    vf, dE, fin = finish(xp, W, v0, P)
    st = xp.where((st == OK) & ~fin, NON_FINITE, st)
    modes = xp.where(slip, MODE_SLIP, MODE_STICK)
    return {"P": P, "vf": vf, "dE": dE, "status": st, "kappa": kappa, "modes": modes}


# ---------------------------------------------------------------------------------------------
# Jia (include/impact/laws/jia.hpp): the elementwise pieces. State y = (In, Iu, Iw, s, Gu, Gw);
# S is a JiaSys of columns; `comp` is the phase (True: compression), `stick` the mode.
# ---------------------------------------------------------------------------------------------
JIA_MAX_SWITCH = 24
JIA_ROOT_ITER = 60


class JiaSys:
    FIELDS = ("wnn", "wnu", "wnw", "wuu", "wuw", "www", "v0n", "v0u", "v0w", "mu", "e", "eta0")

    def __init__(self, **kw):
        for f in self.FIELDS:
            setattr(self, f, kw[f])

    def take(self, idx):
        return JiaSys(**{f: getattr(self, f)[idx] for f in self.FIELDS})


def jia_velocity(S, y):
    In, Iu, Iw = y[0], y[1], y[2]
    vn = S.v0n + S.wnn * In + S.wnu * Iu + S.wnw * Iw
    vu = S.v0u + S.wnu * In + S.wuu * Iu + S.wuw * Iw
    vw = S.v0w + S.wnw * In + S.wuw * Iu + S.www * Iw
    return vn, vu, vw


def _kind(xp, m):
    """1 when mask m holds for every row, 0 for none, -1 mixed. Python bools are what they are;
    under JAX (traced) a mask is always 'mixed', so both sides are computed and selected. With
    NumPy a uniform mask skips the side no row needs (the values are the same either way)."""
    if isinstance(m, (bool, _np.bool_)):
        return int(m)
    if xp is not _np:
        return -1
    if m.all():
        return 1
    return -1 if m.any() else 0


def jia_phase(xp, S, comp):
    """(e_ph, eta) of the phase."""
    k = _kind(xp, comp)
    if k == 1:
        return xp.ones_like(S.e), S.eta0
    if k == 0:
        return S.e, S.eta0 / S.e
    return xp.where(comp, xp.ones_like(S.e), S.e), xp.where(comp, S.eta0, S.eta0 / S.e)


def jia_slip_dir(xp, y, vu, vw):
    Gu, Gw = y[4], y[5]
    g = xp.sqrt(Gu * Gu + Gw * Gw)
    gp = g > 0
    if _kind(xp, gp) == 1:
        return Gu / g, Gw / g
    v = xp.sqrt(vu * vu + vw * vw)
    vp = v > 0
    du = xp.where(gp, Gu / g, xp.where(vp, vu / v, xp.ones_like(vu)))
    dw = xp.where(gp, Gw / g, xp.where(vp, vw / v, xp.zeros_like(vw)))
    return du, dw


def jia_axpy(y, a, k):
    return tuple(y[i] + a * k[i] for i in range(6))


def jia_rhs(xp, S, y, stick, comp):
    vn, vu, vw = jia_velocity(S, y)
    eph, eta = jia_phase(xp, S, comp)
    s = y[3]
    kIn = s
    ks = -0.5 * vn
    kst = _kind(xp, stick)
    if kst != 0:  # stick
        kGu_st = eph * vu
        kGw_st = eph * vw
        c = -1.0 / (2.0 * eta * S.eta0)
        kIu_st = c * y[4]
        kIw_st = c * y[5]
    if kst != 1:  # slip
        du, dw = jia_slip_dir(xp, y, vu, vw)
        vd = vu * du + vw * dw
        dL = -S.mu * eta * S.eta0 * vn
        kGu_sl = eph * (vu - vd * du) + dL * du
        kGw_sl = eph * (vw - vd * dw) + dL * dw
        kIu_sl = -S.mu * s * du
        kIw_sl = -S.mu * s * dw
    if kst == 1:
        k = (kIu_st, kIw_st, kGu_st, kGw_st)
    elif kst == 0:
        k = (kIu_sl, kIw_sl, kGu_sl, kGw_sl)
    else:
        k = tuple(xp.where(stick, p, q) for p, q in zip((kIu_st, kIw_st, kGu_st, kGw_st),
                                                         (kIu_sl, kIw_sl, kGu_sl, kGw_sl)))
    fr = S.mu == 0
    if _kind(xp, fr) != 0:  # frictionless rows: no tangential dynamics
        z = xp.zeros_like(s)
        k = tuple(xp.where(fr, z, q) for q in k)
    return (kIn, k[0], k[1], ks, k[2], k[3])


def jia_rk_step(y, h, euler, f):
    k1 = f(y)
    if euler:
        return jia_axpy(y, h, k1)
    k2 = f(jia_axpy(y, 0.5 * h, k1))
    k3 = f(jia_axpy(y, 0.5 * h, k2))
    k4 = f(jia_axpy(y, h, k3))
    h6 = h / 6.0
    return tuple(y[i] + h6 * (k1[i] + 2.0 * (k2[i] + k3[i]) + k4[i]) for i in range(6))


def jia_step(xp, S, y, h, stick, comp, euler):
    return jia_rk_step(y, h, euler, lambda z: jia_rhs(xp, S, z, stick, comp))


def jia_rhs_frozen(S, y, du, dw):
    vn, vu, vw = jia_velocity(S, y)
    s = y[3]
    z = 0.0 * s
    return (s, -S.mu * s * du, -S.mu * s * dw, -0.5 * vn, z, z)


def jia_slaved_dir(xp, S, y, comp, t, D0free, kappa0, du, dw):
    vn, vu, vw = jia_velocity(S, y)
    vp = xp.sqrt(vu * vu + vw * vw)
    eph, eta = jia_phase(xp, S, comp)
    L = 2.0 * S.mu * eta * S.eta0 * tmax(xp, y[3], 0.0 * y[3])
    cu = vu / vp
    cw = vw / vp
    decay = xp.where(t > 0, xp.exp(-kappa0 * t), xp.ones_like(vp))
    Dh = 2.0 * xp.arctan(xp.tan(0.5 * D0free) * decay)
    cD, sD = xp.cos(Dh), xp.sin(Dh)
    ru = cu * cD - cw * sD
    rw = cw * cD + cu * sD
    s = y[3]
    au = S.wnu * s - S.mu * s * (S.wuu * ru + S.wuw * rw)
    aw = S.wnw * s - S.mu * s * (S.wuw * ru + S.www * rw)
    psidot = (cu * aw - cw * au) / vp
    dL = -S.mu * eta * S.eta0 * vn
    den = tmax(xp, eph * vp + dL, 0.5 * eph * vp)
    lag = xp.where(L > 0, -psidot * L / den, 0.0 * L)
    lag = xp.where(xp.isfinite(lag), lag, 0.0 * lag)
    D = Dh + lag
    cD, sD = xp.cos(D), xp.sin(D)
    nu = cu * cD - cw * sD
    nw = cw * cD + cu * sD
    keep = ~(vp > 0)
    return xp.where(keep, du, nu), xp.where(keep, dw, nw)


def jia_slaved_step(xp, T, S, y, h, comp, euler):
    pi = T(3.14159265358979323846)
    twopi = T(2) * pi
    eph, eta = jia_phase(xp, S, comp)
    vn, vu, vw = jia_velocity(S, y)
    vp = xp.sqrt(vu * vu + vw * vw)
    zero = 0.0 * vp
    L0 = 2.0 * S.mu * eta * S.eta0 * tmax(xp, y[3], zero)
    du, dw = jia_slip_dir(xp, y, vu, vw)
    vpos = vp > 0

    def wrap(a):
        a = xp.where(a > pi, a - twopi, a)
        return xp.where(a < -pi, a + twopi, a)
    D0 = wrap(xp.arctan2(dw, du) - xp.arctan2(vw, vu))
    kappa0 = xp.where(L0 > 0, eph * vp / L0, xp.full_like(vp, float("inf")))
    su, sw = jia_slaved_dir(xp, S, y, comp, zero, zero, zero, du, dw)
    lag0 = wrap(xp.arctan2(sw, su) - xp.arctan2(vw, vu))
    D0free = xp.where(vpos, D0 - lag0, zero)
    kappa0 = xp.where(vpos, kappa0, zero)

    def f(z, t):
        pu, pw = jia_slaved_dir(xp, S, z, comp, t, D0free, kappa0, du, dw)
        return jia_rhs_frozen(S, z, pu, pw)
    k1 = f(y, zero)
    if euler:
        out = jia_axpy(y, h, k1)
    else:
        k2 = f(jia_axpy(y, 0.5 * h, k1), 0.5 * h)
        k3 = f(jia_axpy(y, 0.5 * h, k2), 0.5 * h)
        k4 = f(jia_axpy(y, h, k3), h)
        h6 = h / 6.0
        out = tuple(y[i] + h6 * (k1[i] + 2.0 * (k2[i] + k3[i]) + k4[i]) for i in range(4)) + (y[4], y[5])
    eu, ew = jia_slaved_dir(xp, S, out, comp, h, D0free, kappa0, du, dw)
    L = 2.0 * S.mu * eta * S.eta0 * tmax(xp, out[3], zero)
    return out[:4] + (L * eu, L * ew)


def jia_rhs_sig(xp, S, y, comp):
    vn, vu, vw = jia_velocity(S, y)
    k = jia_rhs(xp, S, y, False, comp)
    avn = xp.where(vn > 0, vn, -vn)
    f = xp.where(avn > 0, 2.0 * y[3] / avn, 0.0 * avn)
    return tuple(f * ki for ki in k)


def jia_sig_step(xp, S, y, h, comp, euler):
    return jia_rk_step(y, h, euler, lambda z: jia_rhs_sig(xp, S, z, comp))


def jia_project_slip(xp, S, y, comp):
    eph, eta = jia_phase(xp, S, comp)
    L = 2.0 * S.mu * eta * S.eta0 * tmax(xp, y[3], 0.0 * y[3])
    vn, vu, vw = jia_velocity(S, y)
    du, dw = jia_slip_dir(xp, y, vu, vw)
    return y[:4] + (L * du, L * dw)


def jia_event(xp, S, y, ev, comp):
    """event_fn for per-row event codes ev (0..3)."""
    vn, vu, vw = jia_velocity(S, y)
    s = y[3]
    out = None
    for code in (0, 1, 2, 3):
        k = _kind(xp, ev == code)
        if k == 0:
            continue
        if code == 0:
            g = vn
        elif code == 1:
            g = -s
        else:
            eph, eta = jia_phase(xp, S, comp)
            if code == 2:
                L = 2.0 * S.mu * eta * S.eta0 * s
                g = y[4] * y[4] + y[5] * y[5] - L * L
            else:
                du, dw = jia_slip_dir(xp, y, vu, vw)
                g = -(vu * du + vw * dw + S.mu * eta * S.eta0 * vn / eph)
        if k == 1:
            return g
        out = g if out is None else xp.where(ev == code, g, out)
    return out


def jia_setup(xp, T, W, n, v0, mu, e, eta0, steps):
    """Validation, contact frame and the start of JiaLaw::solve up to the loop.

    Returns a dict: status, n, uh, wh, S (JiaSys), planar, h, tau_c, rho0, max_steps, stick,
    sig, y (start state)."""
    st, n = validate(xp, T, W, n, v0, mu, e, 0.0 * e, eta0, True, False, True)
    Wn = symmul(W, n)
    t, _, planar = plane_frame(xp, T, W, n, v0)
    uh = neg(t)
    wh = cross(n, uh)
    Wu = symmul(W, uh)
    zero = 0.0 * mu
    S = JiaSys(wnn=dot(n, Wn), wnu=dot(uh, Wn), wnw=xp.where(planar, zero, dot(wh, Wn)),
               wuu=dot(uh, Wu), wuw=xp.where(planar, zero, dot(wh, Wu)), www=quad(W, wh),
               v0n=dot(v0, n), v0u=dot(v0, uh), v0w=xp.where(planar, zero, dot(v0, wh)),
               mu=mu, e=e, eta0=eta0)
    N = max(int(steps), 1)
    omega = xp.sqrt(0.5 * S.wnn)
    tau_c = T(1.5707963267948966) / omega
    h = 2.0 * tau_c / T(N)
    creep = xp.where(S.e > 0, xp.floor(tmin(xp, 64.0 + zero, 4.0 / S.e)), zero).astype("int32")
    max_steps = (8 + creep) * N + 64
    v0perp = xp.sqrt(S.v0u * S.v0u + S.v0w * S.v0w)
    stick = (S.mu > 0) & (v0perp < S.mu * S.eta0 * S.eta0 * (-S.v0n))
    rho0 = 0.2 * tau_c
    # sigma head (3D initial slip)
    p0 = v0perp / (S.mu * S.eta0 * S.eta0 * (-S.v0n))
    head = ~stick & ~planar & (S.mu > 0) & (v0perp > 0) & (p0 * h < 0.5 * rho0)
    ta = rho0 * xp.exp(T(-20))
    s0 = -0.5 * S.v0n * ta
    In0 = 0.5 * s0 * ta
    du = S.v0u / v0perp
    dw = S.v0w / v0perp
    L = 2.0 * S.mu * S.eta0 * S.eta0 * s0
    y = (In0, -S.mu * du * In0, -S.mu * dw * In0, s0, L * du, L * dw)
    y = tuple(xp.where(head, c, zero) for c in y)
    return {"status": st, "n": n, "uh": uh, "wh": wh, "S": S, "planar": planar, "h": h, "tau_c": tau_c,
            "rho0": rho0, "max_steps": max_steps, "stick": stick, "sig": head, "y": y}


def jia_impulse(setup, y):
    n, uh, wh = setup["n"], setup["uh"], setup["wh"]
    return add(add(scale(y[0], n), scale(y[1], uh)), scale(y[2], wh))


def mode_push(xp, bits, m, mask):
    """ModeSeq::push for the rows in mask (bits: int array; m: mode, scalar or array)."""
    k = 0 * bits
    run = bits == bits
    for j in range(8):
        run = run & (((bits >> (4 * j)) & 15) != 0)
        k = k + run.astype(bits.dtype)
    last = xp.where(k > 0, (bits >> (4 * xp.where(k > 0, k - 1, 0 * k))) & 15, 0 * k)
    skip = ~mask | (last == m)
    full = k == 8
    k2 = xp.where(full, 7 + 0 * k, k)
    b2 = xp.where(full, bits & 0x0FFFFFFF, bits)
    new = b2 | (m << (4 * k2))
    return xp.where(skip, bits, new)


# ---------------------------------------------------------------------------------------------
# Jia: the integration loop of JiaLaw::solve as a state machine that performs exactly one
# advance() per row and iteration. A row is either starting a step (pre-step logic, then the step
# itself) or locating an event of its current step (one Illinois probe). The C++ code locates the
# end of the phase (slot 0) and then the mode switch (slot 1) inside one step; here each probe is
# one iteration, with the bracket (a, b, ga, gb, side, it) in the state. The state at the right end
# b of the bracket is kept (yb) and becomes the state at the event: it is bit for bit the
# advance(y, theta_best * hs) of the C++ code, because theta_best is that b and the probe at b was
# advance(y, b * hs) (b = 1 is the step itself, y1). Results are therefore identical to the C++
# loop's, only the order of the work differs.
# ---------------------------------------------------------------------------------------------
def jia_init_state(xp, T, su):
    """State dict of the loop for the rows of a jia_setup() result."""
    stick = su["stick"]
    zT = 0.0 * su["h"]
    zi = xp.zeros_like(su["max_steps"])
    bits = mode_push(xp, zi, xp.where(stick, MODE_STICK, MODE_SLIP) + zi, stick == stick)
    y = tuple(c + zT for c in su["y"])
    return {"y": y, "stick": stick, "comp": stick == stick, "sig": su["sig"] & (stick == stick), "sigma": zT,
            "js": zi - 1, "nsteps": zi, "nswitch": zi, "modes": bits, "In_c": zT,
            "done": su["status"] != OK, "status": su["status"] + zi,
            # step-local
            "loc": stick != stick, "hs": zT, "stiff": stick != stick, "y1": y, "slot": zi, "a": zT, "b": zT + 1.0,
            "ga": zT, "gb": zT, "side": zi, "it": zi, "ev": zi, "yb": y, "theta": zT + 2.0, "evb": zi - 1,
            "ybest": y}


def jia_consts(su):
    S = su["S"]
    return {"S": S, "h": su["h"], "rho0": su["rho0"], "max_steps": su["max_steps"], "planar": su["planar"],
            "mu_pos": S.mu > 0}


def _selt(xp, m, a, b):
    return tuple(xp.where(m, a[k], b[k]) for k in range(len(a)))


def _any(xp, m):
    """For NumPy: whether any row is in mask m, so that work for no row is skipped. For JAX
    (traced, per instance) always True: the work is done and selected away."""
    return bool(m.any()) if xp is _np else True


# the entries of the loop's state (jia_init_state), in the order jia_iterate returns them
JIA_STATE_KEYS = ("y", "stick", "comp", "sig", "sigma", "js", "nsteps", "nswitch", "modes", "In_c", "done", "status",
                  "loc", "hs", "stiff", "y1", "slot", "a", "b", "ga", "gb", "side", "it", "ev", "yb", "theta", "evb",
                  "ybest")


def jia_iterate(xp, T, C, st, advance):
    """One iteration of the loop for every row (rows with st['done'] are returned unchanged).

    advance(S, y, h, stick, comp, stiff, sig) -> y is JiaLaw::advance for all rows. The iteration is
    a sequence of phases, one function each, on one working state w: st's entries, replaced as the
    phases go, and the iteration's own masks (new: rows starting a step; lim, close: rows that end
    there; stepping: rows whose step was taken; slot_done: rows whose location converged; ...)."""
    act = ~st["done"]
    w = SimpleNamespace(**st)
    w.new = act & ~st["loc"]
    w.zero = 0.0 * C["h"]
    w.false = st["loc"] != st["loc"]
    w.lim = w.close = w.false
    w.yc = st["y"]
    _jia_start_step(xp, C, w)
    _jia_advance(xp, C, w, advance)
    _jia_probe(xp, T, C, w)
    _jia_slot0(xp, C, w)
    _jia_slot1(xp, C, w)
    _jia_start_location(xp, w)
    _jia_resolve(xp, C, w, st)
    out = {k: getattr(w, k) for k in JIA_STATE_KEYS}
    if _all(xp, act):
        return out
    # rows that were done keep their state
    return {k: (_selt(xp, act, v, st[k]) if isinstance(v, tuple) else xp.where(act, v, st[k]))
            for k, v in out.items()}


def _jia_start_step(xp, C, w):
    """The start of a step for the rows in w.new: the step and switch bounds (w.lim), the step size
    w.hs, the stiff-slip flag w.stiff, and in 3D slip sigma's head and tail (_jia_slip_start)."""
    new = w.new
    if not _any(xp, new):
        return
    w.lim = new & ((w.nsteps >= C["max_steps"]) | (w.nswitch > JIA_MAX_SWITCH))
    m3 = new & ~w.stick & ~C["planar"] & C["mu_pos"]
    w.hs = xp.where(new, C["h"], w.hs)
    w.stiff = xp.where(new, w.false, w.stiff)
    if _any(xp, m3):
        _jia_slip_start(xp, C, w, m3)


def _jia_slip_start(xp, C, w, m3):
    """The start of a step of the rows m3 in 3D slip: stiff slip, sigma entering, its head (compression)
    and tail (restitution) with their step sizes, and the tail's end, which closes the phase (w.close,
    with the closed state w.yc)."""
    S, h, rho0, zero = C["S"], C["h"], C["rho0"], w.zero
    y, comp, sig, sigma, hs = w.y, w.comp, w.sig, w.sigma, w.hs
    vn, vu, vw = jia_velocity(S, y)
    eph, eta = jia_phase(xp, S, comp)
    s = y[3]
    vp = xp.sqrt(vu * vu + vw * vw)
    G = xp.sqrt(y[4] * y[4] + y[5] * y[5])
    stiff_n = m3 & (eph * vp * h > G)
    pe = xp.where(vn > 0, eph * vp / (S.mu * eta * S.eta0 * vn), zero)
    enter = m3 & ~sig & ~stiff_n & ~comp & (vn > 0) & (2.0 * s < rho0 * vn) & (pe * h < 0.5 * rho0)
    sig = sig | enter
    sigma = xp.where(enter, zero, sigma)
    head = m3 & sig & comp
    sr = 0.5 * rho0 * xp.where(vn < 0, -vn, zero)
    leave = head & (~(vn < 0) | ~(s < sr))
    headrun = head & ~leave
    sig = sig & ~leave
    tail = m3 & sig & ~comp
    if _any(xp, headrun):
        hh = (h / rho0) * xp.exp(0.4 * xp.log(sr / s))
        pcr = vp / (S.mu * eta * S.eta0 * (-vn))
        hmax = 0.5 / xp.where(pcr > 1, pcr, zero + 1.0)
        hh = xp.where(hh > hmax, hmax, hh)
        hs = xp.where(headrun, hh, hs)
    if _any(xp, tail):
        ht = (h / rho0) * xp.exp(0.4 * sigma)
        hmax = 0.5 / xp.where(pe > 1, pe, zero + 1.0)
        ht = xp.where(ht > hmax, hmax, ht)
        hs = xp.where(tail, ht, hs)
        w.close = close = tail & ((sigma > 20) | ~(vn > 0)) & ~w.lim
        if _any(xp, close):
            du, dw = jia_slip_dir(xp, y, vu, vw)
            dIn = xp.where(vn > 0, s * s / vn, zero)
            w.yc = (y[0] + dIn, y[1] - S.mu * du * dIn, y[2] - S.mu * dw * dIn, zero, y[4], y[5])
    w.stiff = xp.where(w.new, stiff_n & ~headrun & ~tail, w.stiff)
    w.sig, w.sigma, w.hs = sig, sigma, hs


def _jia_advance(xp, C, w, advance):
    """The one advance per row: a probe of the bracket at w.c for the rows locating an event
    (w.loc), else the step of size w.hs (w.z); a step taken (w.stepping) is kept as w.y1."""
    S = C["S"]
    w.locating = _any(xp, w.loc)
    if w.locating:
        c = (w.ga * w.b - w.gb * w.a) / (w.ga - w.gb)
        w.c = xp.where((c > w.a) & (c < w.b), c, 0.5 * (w.a + w.b))
        w.z = advance(S, w.y, xp.where(w.loc, w.c * w.hs, w.hs), w.stick, w.comp, w.stiff, w.sig)
    else:
        w.z = advance(S, w.y, w.hs, w.stick, w.comp, w.stiff, w.sig)
    w.stepping = w.new & ~w.lim & ~w.close
    w.y1 = _selt(xp, w.stepping, w.z, w.y1) if w.locating or not _all(xp, w.stepping) else w.z
    w.nsteps = w.nsteps + w.stepping


def _jia_probe(xp, T, C, w):
    """A probe of the rows locating an event: the bracket updated (Illinois false position), the slot
    done when it is narrow enough or out of iterations (w.slot_done), the earliest event kept."""
    w.slot_done = w.false
    if not w.locating:
        return
    loc, c, side = w.loc, w.c, w.side
    gc = jia_event(xp, C["S"], w.z, w.ev, w.comp)
    pos = gc > 0
    lp = loc & pos
    ln = loc & ~pos
    ga_p = xp.where(side == 1, w.ga * 0.5, w.ga)
    gb_n = xp.where(side == -1, w.gb * 0.5, w.gb)
    w.b = xp.where(lp, c, w.b)
    w.gb = xp.where(lp, gc, xp.where(ln, gb_n, w.gb))
    w.a = xp.where(ln, c, w.a)
    w.ga = xp.where(ln, gc, xp.where(lp, ga_p, w.ga))
    w.side = xp.where(lp, 1, xp.where(ln, -1, side))
    w.yb = _selt(xp, lp, w.z, w.yb)
    w.it = w.it + loc
    w.slot_done = loc & ((w.b - w.a <= T(4) * teps(T)) | (w.it >= JIA_ROOT_ITER))
    better = w.slot_done & (w.b < w.theta)
    w.theta = xp.where(better, w.b, w.theta)
    w.evb = xp.where(better, w.ev, w.evb)
    w.ybest = _selt(xp, better, w.yb, w.ybest)


def _jia_slot0(xp, C, w):
    """Slot 0 (the end of the phase) of a new step: an event now (w.now0) or one to locate (w.loc0)."""
    w.now0 = w.loc0 = w.false
    stepping = w.stepping
    if not _any(xp, stepping):
        return
    S = C["S"]
    w.theta = xp.where(stepping, w.zero + 2.0, w.theta)
    w.evb = xp.where(stepping, -1, w.evb)
    w.ev0 = xp.where(w.comp, 0, 1) + 0 * w.ev
    w.g1 = jia_event(xp, S, w.y1, w.ev0, w.comp)
    w.g0 = jia_event(xp, S, w.y, w.ev0, w.comp)
    cand = stepping & (w.g1 > 0)
    w.now0 = cand & (w.g0 > 0) & (w.ev0 != w.js)
    w.loc0 = cand & ~(w.g0 > 0)
    w.theta = xp.where(w.now0, w.zero, w.theta)
    w.evb = xp.where(w.now0, w.ev0, w.evb)


def _jia_slot1(xp, C, w):
    """Slot 1 (the mode switch), after slot 0 found nothing to locate or was located (w.chk1): an
    event now, or one to locate (w.loc1)."""
    w.chk1 = (w.stepping & ~w.now0 & ~w.loc0) | (w.slot_done & (w.slot == 0))
    w.loc1 = w.false
    mu_pos = C["mu_pos"]
    if not _any(xp, w.chk1 & mu_pos):
        return
    S = C["S"]
    w.ev1 = xp.where(w.stick, 2, 3) + 0 * w.ev
    w.g1b = jia_event(xp, S, w.y1, w.ev1, w.comp)
    w.g0b = jia_event(xp, S, w.y, w.ev1, w.comp)
    cand = w.chk1 & mu_pos & (w.g1b > 0)
    now1 = cand & (w.g0b > 0) & (w.ev1 != w.js)
    w.loc1 = cand & ~(w.g0b > 0)
    w.theta = xp.where(now1, w.zero, w.theta)
    w.evb = xp.where(now1, w.ev1, w.evb)


def _jia_start_location(xp, w):
    """A location started for the rows of w.loc0 or w.loc1 (the bracket [0, 1] of the step); the rows
    still locating afterwards (w.loc_n) and the rows whose step is resolved now (w.res)."""
    start = w.loc0 | w.loc1
    if _any(xp, start):
        w.a = xp.where(start, w.zero, w.a)
        w.b = xp.where(start, w.zero + 1.0, w.b)
        if _any(xp, w.loc0):
            w.ga = xp.where(w.loc0, w.g0, w.ga)
            w.gb = xp.where(w.loc0, w.g1, w.gb)
            w.ev = xp.where(w.loc0, w.ev0, w.ev)
        if _any(xp, w.loc1):
            w.ga = xp.where(w.loc1, w.g0b, w.ga)
            w.gb = xp.where(w.loc1, w.g1b, w.gb)
            w.ev = xp.where(w.loc1, w.ev1, w.ev)
        w.side = xp.where(start, 0, w.side)
        w.it = xp.where(start, 0, w.it)
        w.slot = xp.where(w.loc0, 0, xp.where(w.loc1, 1, w.slot))
        w.yb = _selt(xp, start, w.y1, w.yb)
    w.loc_n = (w.loc & ~w.slot_done) | start
    w.res = w.now0 | (w.chk1 & ~w.loc1) | (w.slot_done & (w.slot == 1) & ~start)


def _jia_resolve(xp, C, w, st):
    """The rows that end (bounds, a closed phase) and the steps resolved (w.res): the state at the
    earliest event or the step's end, slip projected, the event applied (_jia_apply_event)."""
    w.done = st["done"] | w.lim | w.close
    w.status = xp.where(w.lim, STEP_LIMIT, st["status"])
    if _any(xp, w.close):
        w.y = _selt(xp, w.close, w.yc, w.y)
    res, y1 = w.res, w.y1
    if _any(xp, res):
        bad = res & ~(xp.isfinite(y1[0]) & xp.isfinite(y1[1]) & xp.isfinite(y1[2]) & xp.isfinite(y1[3])
                      & xp.isfinite(y1[4]) & xp.isfinite(y1[5]))
        ok = res & ~bad
        noev = ok & (w.evb < 0)
        evr = ok & ~noev
        yn = _selt(xp, noev, y1, _selt(xp, w.theta > 0, w.ybest, w.y)) if _any(xp, evr) else y1
        w.sigma = xp.where(noev & w.sig, w.sigma + w.hs, w.sigma)
        proj = ok & ~w.stick & C["mu_pos"]
        if _any(xp, proj):
            yp = jia_project_slip(xp, C["S"], yn, w.comp)
            yn = yn[:4] + (xp.where(proj, yp[4], yn[4]), xp.where(proj, yp[5], yn[5]))
        if _any(xp, evr):
            yn = _jia_apply_event(xp, C, w, evr, ok, yn)
        else:
            w.js = xp.where(ok, -1, w.js)
        w.y = _selt(xp, ok, yn, w.y)
        w.done = w.done | bad
        w.status = xp.where(bad, NON_FINITE, w.status)
    w.loc = w.loc_n & ~res


def _jia_apply_event(xp, C, w, evr, ok, yn):
    """The event w.evb of the rows evr applied to their new state yn (returned): 0 the end of
    compression (restitution, or the end at e = 0), 1 the end of restitution, 2 stick to slip, 3 slip
    to stick."""
    S, evb = C["S"], w.evb
    e0 = evr & (evb == 0)
    e1 = evr & (evb == 1)
    e2 = evr & (evb == 2)
    e3 = evr & (evb == 3)
    w.In_c = xp.where(e0, yn[0], w.In_c)
    end0 = e0 & (S.e == 0)
    rest = e0 & ~end0
    s_n = xp.where(rest, yn[3] * S.e, yn[3])
    s_n = xp.where(e1, w.zero, s_n)
    yn = yn[:3] + (s_n,) + yn[4:]
    if _any(xp, e2):
        yp = jia_project_slip(xp, S, yn, w.comp)
        yn = yn[:4] + (xp.where(e2, yp[4], yn[4]), xp.where(e2, yp[5], yn[5]))
        w.modes = mode_push(xp, w.modes, MODE_SLIP, e2)
    if _any(xp, e3):
        w.modes = mode_push(xp, w.modes, MODE_STICK, e3)
    w.stick = (w.stick & ~e2) | e3
    w.comp = w.comp & ~rest
    w.sig = w.sig & ~rest & ~e3
    w.nswitch = w.nswitch + (e2 | e3)
    w.js = xp.where(ok, xp.where(e2, 3, xp.where(e3, 2, -1)), w.js)
    w.done = w.done | end0 | e1
    return yn


def _all(xp, m):
    """For NumPy: whether every row is in mask m. For JAX always False (nothing is skipped)."""
    return bool(m.all()) if xp is _np else False
