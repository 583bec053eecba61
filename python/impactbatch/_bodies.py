"""Bodies and their contact (two_bodies(), after_impact()): the contact space of two rigid bodies for
evaluate(), and the impulses mapped back to the bodies."""
from __future__ import annotations

from typing import Any, Dict, List, Optional

import numpy as np

from . import _core
from ._args import _batch_len, _real_array


class Body:
    """A rigid body at the instant of impact (world frame; any consistent units, e.g. SI).

    mass: > 0, or inf for a fixed body (a table, the ground: at rest, the rest ignored);
    inertia: 3x3 about the centre of mass in the body frame (SPD), or 3 principal moments;
    orientation: quaternion (w, x, y, z), world from body; com: centre of mass; V: its velocity;
    omega: angular velocity in the world frame. Every field may carry a batch dimension N.
    """

    def __init__(self, mass: Any = 1.0, inertia: Any = None, orientation: Any = (1.0, 0.0, 0.0, 0.0),
                 com: Any = (0.0, 0.0, 0.0), V: Any = (0.0, 0.0, 0.0), omega: Any = (0.0, 0.0, 0.0)):
        self.mass, self.orientation, self.com, self.V, self.omega = mass, orientation, com, V, omega
        self.inertia = np.eye(3) if inertia is None else inertia

    @staticmethod
    def fixed() -> "Body":
        """An immovable body at rest."""
        return Body(mass=np.inf)

    def _rows(self, name: str, lengths: Dict[str, int]) -> List[np.ndarray]:
        m = _real_array(f"{name}.mass", self.mass)
        _batch_len(f"{name}.mass", m.shape, lengths)
        inertia = _real_array(f"{name}.inertia", self.inertia)
        if inertia.shape[-1:] == (3,) and (inertia.ndim == 1 or inertia.shape[-2:] != (3, 3)):
            inertia = np.einsum("...i,ij->...ij", inertia, np.eye(3))  # principal moments
        if inertia.ndim < 2 or inertia.shape[-2:] != (3, 3):
            raise ValueError(f"{name}.inertia: expected shape (N, 3, 3), (3, 3), (N, 3) or (3,), got {inertia.shape}")
        _batch_len(f"{name}.inertia", inertia.shape[:-2], lengths)
        out = [m, inertia]
        for field, width in (("orientation", 4), ("com", 3), ("V", 3), ("omega", 3)):
            a = _real_array(f"{name}.{field}", getattr(self, field))
            if a.ndim < 1 or a.shape[-1] != width:
                raise ValueError(f"{name}.{field}: expected shape (N, {width}) or ({width},), got {a.shape}")
            _batch_len(f"{name}.{field}", a.shape[:-1], lengths)
            out.append(a)
        return out


class Contact:
    """A contact between two bodies: the contact-space arrays W (N, 3, 3), n (N, 3), v (N, 3) that
    evaluate() takes, and what after_impact() needs to map the impulses back to the bodies."""

    def __init__(self, W, n, v, rows):
        self.W, self.n, self.v = W, n, v
        self._rows = rows

    def __iter__(self):  # W, n, v = two_bodies(...)
        return iter((self.W, self.n, self.v))


def _body_rows(body1: Body, body2: Optional[Body], point: Any, normal: Any, extra: Dict[str, Any]):
    for name, b in (("body1", body1), ("body2", body2)):
        if not isinstance(b, Body) and not (name == "body2" and b is None):
            raise TypeError(f"{name}: expected an impactbatch.Body{' (or None: fixed)' if name == 'body2' else ''}, "
                            f"got {type(b).__name__}")
    lengths: Dict[str, int] = {}
    r1 = body1._rows("body1", lengths)
    r2 = (body2 if body2 is not None else Body.fixed())._rows("body2", lengths)
    vecs = []
    for name, x in (("point", point), ("normal", normal)) + tuple(extra.items()):
        a = _real_array(name, x)
        if a.ndim < 1 or a.shape[-1] != 3:
            raise ValueError(f"{name}: expected shape (N, 3) or (3,), got {a.shape}")
        _batch_len(name, a.shape[:-1], lengths)
        vecs.append(a)
    sizes = set(lengths.values())
    if len(sizes) > 1:
        raise ValueError("batch lengths differ: " + ", ".join(f"{k} {v}" for k, v in lengths.items()))
    N = sizes.pop() if sizes else 1

    def rows(a: np.ndarray, width: int) -> np.ndarray:
        shape = (N,) if width == 1 else (N, width)
        if width == 9:
            return np.ascontiguousarray(np.broadcast_to(a, (N, 3, 3)), dtype=np.float64).reshape(N, 9)
        return np.ascontiguousarray(np.broadcast_to(a, shape), dtype=np.float64)

    widths = (1, 9, 4, 3, 3, 3)
    b1 = tuple(rows(a, w) for a, w in zip(r1, widths))
    b2 = tuple(rows(a, w) for a, w in zip(r2, widths))
    return N, b1, b2, [rows(a, 3) for a in vecs]


def two_bodies(body1: Body, body2: Optional[Body] = None, point: Any = (0.0, 0.0, 0.0),
               normal: Any = (0.0, 0.0, 1.0)) -> Contact:
    """The contact space of two bodies touching at `point` (Jia 2013, eqs. 1-4): W, n, v for
    evaluate(). body2 None: a fixed body (the ground). normal: from body 2 into body 1 (any length).

        >>> ball = ib.Body(mass=1.0, inertia=[0.4] * 3, com=[0, 0, 1], V=[1, 0, -2], omega=[0, 3, 0])
        >>> c = ib.two_bodies(ball, None, point=[0, 0, 0], normal=[0, 0, 1])
        >>> r = ib.evaluate("stronge", c.W, c.n, c.v, mu=0.3, e=0.8)
        >>> after = ib.after_impact(c, r.P)      # the ball's V1, omega1 after the impact
    """
    N, b1, b2, (pt, nr) = _body_rows(body1, body2, point, normal, {})
    W, n, v = _core.two_bodies(b1, b2, pt, nr, N)
    return Contact(W, n, v, (N, b1, b2, pt, nr))


def after_impact(contact: Contact, P: Any) -> Dict[str, np.ndarray]:
    """The bodies after the impulses P (N, 3) (a Result's r.P: NaN rows stay NaN): V1, omega1, V2,
    omega2 (N, 3) and the total kinetic energy before and after (K_before, K_after)."""
    if not isinstance(contact, Contact):
        raise TypeError(f"contact: expected the Contact of two_bodies(), got {type(contact).__name__}")
    N, b1, b2, pt, nr = contact._rows
    Pa = _real_array("P", P)
    if Pa.shape not in ((N, 3), (3,)):
        raise ValueError(f"P: expected shape ({N}, 3), got {Pa.shape}")
    Pr = np.ascontiguousarray(np.broadcast_to(Pa, (N, 3)), dtype=np.float64)
    return dict(_core.after_impulse(b1, b2, pt, nr, Pr, N))
