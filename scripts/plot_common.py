"""What plot_study.py and plot_calibration.py share: axis labels and titles from a run's
metadata.json columns, readable ticks, the laws' colours and markers, and writing a PNG whole.

Labels come from the columns metadata.json describes (name, unit, symbol, meaning), never from a
table of names here: a column's symbol is matplotlib mathtext without the dollars, its unit SI text
("1" for a pure number, "" for a text column). A folder written before the columns carried symbols
and units (or a name no column describes) is labelled by the plain name.
"""
import math
import os
import re

import matplotlib

matplotlib.use("Agg")
from matplotlib import ticker

# Paul Tol's "bright" scheme: told apart by people with the common colour-vision deficiencies,
# and still apart in greyscale by the markers beside them
LAW_COLOURS = ["#4477aa", "#ee6677", "#228833", "#ccbb44", "#66ccee", "#aa3377", "#bbbbbb"]
LAW_MARKERS = ["o", "^", "s", "D", "v", "P", "X"]
LAW_LINESTYLES = ["-", "--", ":", "-."]

# the Greek letters mathtext knows by name; a capital with no command of its own (Alpha: A) is not one
GREEK = ("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi pi rho sigma tau upsilon "
         "phi chi psi omega Gamma Delta Theta Lambda Xi Pi Sigma Upsilon Phi Psi Omega").split()
_GREEK_RE = re.compile(r"^(" + "|".join(GREEK) + r")(?:_\{?([A-Za-z0-9]+)\}?|([0-9][A-Za-z0-9]*))?$")
_SUB_RE = re.compile(r"^([A-Za-z])_\{?([A-Za-z0-9]+)\}?$")
# an identifier not glued to a unit's slash (m/s), a decimal point or an abbreviation's dot (e.g.)
_TOKEN_RE = re.compile(r"(?<![\w/.\\^{])([A-Za-z][A-Za-z0-9_]*)(?![\w/]|\.\w)")


class Columns:
    """Name -> {unit, symbol, meaning} from metadata.json's columns: a study's {LAW: [column, ...]}
    (the laws agree on a shared column's description; the first law's is kept) or a calibration's
    [column, ...]. Anything else (an older folder's list without symbols) gives names only."""

    def __init__(self, columns=None):
        self.by_name = {}
        if isinstance(columns, dict):
            lists = [v for v in columns.values() if isinstance(v, list)]
        elif isinstance(columns, list):
            lists = [columns]
        else:
            lists = []
        for cols in lists:
            for c in cols:
                if isinstance(c, dict) and isinstance(c.get("name"), str) and c["name"] not in self.by_name:
                    self.by_name[c["name"]] = c

    def symbol(self, name):
        """The column's mathtext symbol with its dollars, or None when it has none."""
        s = self.by_name.get(name, {}).get("symbol")
        return f"${s}$" if isinstance(s, str) and s else None

    def unit(self, name):
        """The column's unit, or "" for a pure number ("1"), a text column or an unknown column."""
        u = self.by_name.get(name, {}).get("unit")
        return u if isinstance(u, str) and u not in ("", "1") else ""

    def meaning(self, name):
        """The column's meaning without its trailing parenthesis (the range or the law it applies
        to, which an axis does not need), mathtext for symbols in it; "" when unknown."""
        m = self.by_name.get(name, {}).get("meaning")
        if not isinstance(m, str):
            return ""
        m = re.sub(r"\s*\([^()]*(\([^()]*\)[^()]*)*\)\s*$", "", m).strip()
        return mathify(m, None)

    def sym(self, name):
        """The symbol, or the plain name for a column without one."""
        return self.symbol(name) or name

    def label(self, name, long=False, limit=62):
        """'$symbol$ (unit)', no unit for a pure number; long: 'meaning, $symbol$ (unit)' when that
        stays within limit characters (a wide axis). A column without a symbol: its name."""
        s = self.symbol(name)
        u = self.unit(name)
        short = (s or name) + (f" ({u})" if u else "")
        if long and s:
            m = self.meaning(name)
            text = f"{m}, {short}" if m else short
            if len(text) <= limit:
                return text
        return short

    def value(self, name, v, digits=3):
        """'$symbol$ = v unit', for a legend."""
        u = self.unit(name)
        return f"{self.sym(name)} = {v:.{digits}g}" + (f" {u}" if u else "")


def mathify(text, columns):
    """A title with its symbols in mathtext: a column's name that reads as a symbol (one or two
    characters, a digit or an underscore in it, or a Greek letter's name: Vx, w2, eta0, mu) becomes
    its column's symbol; a Greek letter's name with a subscript (omega_y, omega0y) and a letter with
    one (V_x) become mathtext. Words (angle, speed), units (m/s) and text already between dollars
    are kept as written."""
    if not isinstance(text, str) or not text:
        return text
    parts = text.split("$")
    if len(parts) % 2 == 0:  # an unpaired dollar: not mathtext, left alone
        return text

    def one(m):
        tok = m.group(1)
        if columns is not None:
            s = columns.symbol(tok)
            if s and (len(tok) <= 2 or any(ch.isdigit() for ch in tok) or "_" in tok or tok in GREEK):
                return s
        g = _GREEK_RE.match(tok)
        if g:
            sub = g.group(2) or g.group(3)
            return f"$\\{g.group(1)}" + (f"_{{{sub}}}" if sub else "") + "$"
        s = _SUB_RE.match(tok)
        if s:
            return f"${s.group(1)}_{{{s.group(2)}}}$"
        return tok

    for i in range(0, len(parts), 2):
        parts[i] = _TOKEN_RE.sub(one, parts[i])
    return "$".join(parts)


class TickFormat(ticker.Formatter):
    """Every tick of an axis with the same, fewest decimals that write each tick exactly (0.595,
    0.5975 -> 0.5950, 0.5975; never an offset text, which crowds a corner plot's panels), in
    scientific form beyond 1e5 or below 1e-3."""

    def __init__(self):
        self.fmt = "{:g}"
        self.zero = 0.0

    def set_locs(self, locs):
        super().set_locs(locs)
        v = sorted(float(x) for x in locs if math.isfinite(x))
        if not v:
            self.fmt = "{:g}"
            return
        diffs = [b - a for a, b in zip(v, v[1:]) if b > a]
        step = min(diffs) if diffs else (abs(v[0]) or 1.0)
        big = max(abs(x) for x in v)
        self.zero = step * 1e-9
        if big >= 1e5 or 0.0 < big < 1e-3:
            e = math.floor(math.log10(big))
            d = self._decimals([x / 10 ** e for x in v], step / 10 ** e)
            self.fmt = "{:." + str(d) + "e}"
        else:
            self.fmt = "{:." + str(self._decimals(v, step)) + "f}"

    @staticmethod
    def _decimals(v, step):
        d = max(0, math.ceil(-math.log10(step) - 1e-9)) if step > 0 else 0
        while d < 8 and any(abs(round(x, d) - x) > step * 1e-6 for x in v):
            d += 1
        return min(d, 8)

    def __call__(self, x, pos=None):
        if abs(x) <= self.zero:
            x = 0.0
        return self.fmt.format(x).replace("-", "\u2212")


def few_ticks(axis, nbins=4):
    """At most nbins + 1 round ticks (steps of 1, 2 or 5) with TickFormat's labels on a matplotlib
    Axis (ax.xaxis, ax.yaxis)."""
    axis.set_major_locator(ticker.MaxNLocator(nbins=nbins, steps=[1, 2, 5, 10]))
    axis.set_major_formatter(TickFormat())


def plain_name(name):
    return isinstance(name, str) and name not in ("", ".", "..") and "/" not in name and "\0" not in name


def save(fig, outdir, name, dpi=110):
    """Writes fig as OUTDIR/NAME whole: a temporary in io::OutFile's form (.NAME.tmp-PID-N, which a
    later run's folder claim removes when this process died half-way), created anew and never
    through a link, renamed onto the name."""
    tmp = os.path.join(outdir, f".{name}.tmp-{os.getpid()}-0")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o666)
    try:
        with os.fdopen(fd, "wb") as f:
            fig.savefig(f, dpi=dpi, format=os.path.splitext(name)[1][1:] or "png")
        os.replace(tmp, os.path.join(outdir, name))
    except BaseException:
        if os.path.lexists(tmp):
            os.unlink(tmp)
        raise
