"""impactbatch.two_bodies / after_impact: the contact space of rigid bodies (Jia 2013, eqs. 1-4) and
the bodies after the impulse, checked against closed forms and conservation laws."""
import numpy as np
import pytest

import impactbatch as ib


def test_ball_on_ground_is_jias_ball():
    # a solid sphere (m, R, I = 2/5 m R^2) resting on the ground at its lowest point:
    # W = diag(1/m + R^2/I, 1/m + R^2/I, 1/m) = diag(3.5, 3.5, 1) / m; v = V + omega x r
    m, R = 2.0, 0.1
    I = 0.4 * m * R * R  # noqa: E741  I: the moment of inertia, as in the comment's formulas
    ball = ib.Body(mass=m, inertia=[I, I, I], com=[0, 0, R], V=[1.0, 0.0, -2.0], omega=[0.0, 5.0, 0.0])
    c = ib.two_bodies(ball, None, point=[0, 0, 0], normal=[0, 0, 3])  # any length
    assert np.allclose(c.W[0], np.diag([3.5, 3.5, 1.0]) / m, rtol=1e-14)
    assert np.allclose(c.n[0], [0, 0, 1])
    # omega x r with r = (0, 0, -R): (5 * -R * ... ) -> (-R * 5, 0, 0) for omega = (0, 5, 0)
    assert np.allclose(c.v[0], [1.0 - 5.0 * R, 0.0, -2.0])


def random_bodies(N, rng):
    def body(offset):
        A = rng.normal(size=(N, 3, 3))
        q = rng.normal(size=(N, 4))
        return ib.Body(mass=rng.uniform(0.5, 3, N), inertia=A @ np.swapaxes(A, 1, 2) + 0.2 * np.eye(3),
                       orientation=q, com=offset + 0.3 * rng.normal(size=(N, 3)), V=rng.normal(size=(N, 3)),
                       omega=rng.normal(size=(N, 3)))
    return body(np.array([0, 0, 0.5])), body(np.array([0, 0, -0.5]))


def test_free_bodies_conserve_momentum_and_match_the_contact_energy():
    rng = np.random.default_rng(3)
    N = 400
    b1, b2 = random_bodies(N, rng)
    normal = np.tile([0.0, 0.0, 1.0], (N, 1)) + 0.2 * rng.normal(size=(N, 3))
    c = ib.two_bodies(b1, b2, point=np.zeros((N, 3)), normal=normal)
    # approach: flip the rows that separate by reversing body 1's velocities (keeps W)
    sep = np.einsum("ij,ij->i", c.v, c.n) >= 0
    b1.V = np.where(sep[:, None], -b1.V, b1.V)
    b1.omega = np.where(sep[:, None], -b1.omega, b1.omega)
    b2.V = np.where(sep[:, None], -b2.V, b2.V)
    b2.omega = np.where(sep[:, None], -b2.omega, b2.omega)
    c = ib.two_bodies(b1, b2, point=np.zeros((N, 3)), normal=normal)
    assert np.all(np.einsum("ij,ij->i", c.v, c.n) < 0)
    assert np.allclose(c.W, np.swapaxes(c.W, 1, 2), rtol=0, atol=0)  # exactly symmetric
    r = ib.evaluate("stronge", c.W, c.n, c.v, mu=0.5, e=0.7)
    ok = r.ok
    assert ok.sum() > 0.95 * N
    a = ib.after_impact(c, r.P)
    m1, m2 = np.asarray(b1.mass), np.asarray(b2.mass)
    # linear momentum: m1 dV1 + m2 dV2 = 0, m1 dV1 = P
    p = m1[:, None] * (a["V1"] - b1.V) + m2[:, None] * (a["V2"] - b2.V)
    assert np.all(np.abs(p[ok]) < 1e-12 * (1 + np.abs(r.P[ok]).max()))
    assert np.allclose((m1[:, None] * (a["V1"] - b1.V))[ok], r.P[ok], rtol=1e-12, atol=1e-14)
    # the bodies' kinetic energy changes by the contact-space dE
    dK = a["K_after"] - a["K_before"]
    assert np.allclose(dK[ok], r.dE[ok], rtol=1e-9, atol=1e-12 * np.abs(a["K_before"][ok]).max())
    # the contact point's relative velocity afterwards is vf
    c_after = ib.two_bodies(ib.Body(b1.mass, b1.inertia, b1.orientation, b1.com, a["V1"], a["omega1"]),
                            ib.Body(b2.mass, b2.inertia, b2.orientation, b2.com, a["V2"], a["omega2"]),
                            point=np.zeros((N, 3)), normal=normal)
    assert np.allclose(c_after.v[ok], r.vf[ok], rtol=1e-9, atol=1e-12)
    # rows without a result stay NaN
    assert np.all(np.isnan(a["V1"][~ok]))


def test_fixed_body_stays_at_rest():
    ball = ib.Body(mass=1.0, inertia=[0.4] * 3, com=[0, 0, 1], V=[1, 0, -2], omega=[0, 3, 0])
    c = ib.two_bodies(ball, ib.Body.fixed(), point=[0, 0, 0])
    r = ib.evaluate("newton", c.W, c.n, c.v, e=1.0)
    a = ib.after_impact(c, r.P)
    assert np.all(a["V2"] == 0) and np.all(a["omega2"] == 0)
    assert np.isclose(a["K_after"][0], a["K_before"][0], rtol=1e-14)  # e = 1, frictionless: elastic


@pytest.mark.parametrize("call, words", [
    (lambda: ib.two_bodies(ib.Body(mass=-1.0), None), ["instance 0", "mass"]),
    (lambda: ib.two_bodies(ib.Body(), None, normal=[0, 0, 0]), ["instance 0", "normal"]),
    (lambda: ib.two_bodies(ib.Body(inertia=np.eye(2)), None), ["body1.inertia"]),
    (lambda: ib.two_bodies(ib.Body(V=np.zeros((3, 3))), None, point=np.zeros((4, 3))), ["batch lengths differ"]),
    (lambda: ib.two_bodies(ib.Body.fixed(), ib.Body.fixed()), ["instance 0", "fixed"]),
])
def test_bad_bodies_raise(call, words):
    with pytest.raises(ValueError) as err:
        call()
    for w in words:
        assert w in str(err.value), (w, str(err.value))


def test_eta0_from_elastic():
    assert ib.eta0_from_elastic(200e9, 0.3, 200e9, 0.3) == pytest.approx(np.sqrt(17 / 14), rel=1e-15)
    nu = np.array([0.0, 0.25, 0.4])
    assert np.allclose(ib.eta0_from_elastic(70e9, nu), np.sqrt((2 - nu) / (2 * (1 - nu))), rtol=1e-14)
    with pytest.raises(ValueError, match="Poisson"):
        ib.eta0_from_elastic(70e9, 0.7)
