"""Forward mode, `ag.jvp(f, primals, tangents)`: against central differences along the
tangent and against jacobian @ tangent (the tape's jacobian), graph vs eager, through
`cond` / `while_loop`, several primals and structured outputs."""
from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
from tests.runtime.test_jacobian import PROGRAMS, eagerly, graph_jacobian

RNG = np.random.default_rng(5)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_jvp_matches_finite_differences_and_jacobian(name):
    fn, shape = PROGRAMS[name]
    for sign in (1.0, -1.0):
        x = sign * RNG.uniform(0.2, 1.0, shape)
        t = RNG.normal(size=shape)
        y, dy = ag.jvp(fn, (x,), (t,))
        eps = 1e-6
        numeric = (np.asarray(fn(x + eps * t)) - np.asarray(fn(x - eps * t))) / (2 * eps)
        np.testing.assert_array_equal(y, fn(x))
        np.testing.assert_allclose(dy, numeric, rtol=1e-6, atol=1e-7)
        jac = graph_jacobian(fn)(x)
        np.testing.assert_allclose(dy, jac.reshape(dy.size, x.size) @ t.reshape(-1)
                                   .reshape(-1), rtol=1e-10, atol=1e-12) if dy.ndim == 1 else \
            np.testing.assert_allclose(dy, np.tensordot(jac, t, axes=t.ndim), rtol=1e-10,
                                       atol=1e-12)
        assert dy.dtype == np.asarray(y).dtype and dy.shape == np.shape(y)
        with eagerly():
            ey, edy = ag.jvp(fn, (x,), (t,))
        np.testing.assert_allclose(edy, dy, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(ey, y, rtol=1e-15)


def two_inputs(x, w):
    h = np.tanh(x @ w)
    return {"h": h, "norm": np.sqrt(np.sum(h ** 2))}


def test_jvp_of_several_primals_and_a_structure():
    x, w = RNG.normal(size=(2, 3)), RNG.normal(size=(3, 4))
    tx, tw = RNG.normal(size=x.shape), RNG.normal(size=w.shape)
    out, tangents = ag.jvp(two_inputs, (x, w), (tx, tw))
    assert set(out) == set(tangents) == {"h", "norm"}
    eps = 1e-6
    up, down = two_inputs(x + eps * tx, w + eps * tw), two_inputs(x - eps * tx, w - eps * tw)
    for k in out:
        np.testing.assert_allclose(tangents[k], (up[k] - down[k]) / (2 * eps), rtol=1e-6,
                                   atol=1e-8)
    with eagerly():
        _, eager = ag.jvp(two_inputs, (x, w), (tx, tw))
    for k in out:
        np.testing.assert_allclose(eager[k], tangents[k], rtol=1e-12, atol=1e-14)


def test_jvp_inside_a_function_and_of_an_ag_function():
    f = ag.function(PROGRAMS["loop"][0])
    x, t = np.array([0.5, -0.2, 0.1]), np.array([1.0, 0.0, -1.0])

    @ag.function
    def directional(x, t):
        return ag.jvp(f, (x,), (t,))[1]

    np.testing.assert_allclose(directional(x, t), ag.jvp(PROGRAMS["loop"][0], (x,), (t,))[1],
                               rtol=1e-12)


def test_jvp_errors():
    with pytest.raises(ValueError, match="one tangent per primal"):
        ag.jvp(np.sin, (np.ones(2),), ())
    with pytest.raises(ValueError, match="must match"):
        ag.jvp(np.sin, (np.ones(2),), (np.ones(3),))
    with pytest.raises(TypeError, match="floating-point"):
        ag.jvp(lambda i: i * 2.0, (np.arange(3),), (np.ones(3),))
    with pytest.raises(TypeError, match="tuples"):
        ag.jvp(np.sin, np.ones(2), np.ones(2))
