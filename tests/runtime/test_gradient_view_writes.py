"""Gradients through a view read before its base is written (graph tape vs central
differences, float64): every rule must use the values its op read when it ran, not the
array's value after a later write (runtime/state/views.py `recorded_values`)."""
import numpy as np
import pytest

import autograph as ag
from tests.runtime.gradcheck import numeric_grads

RNG = np.random.default_rng(7)
X, V, W = (RNG.standard_normal((3, 3)) for _ in range(3))
IDX = np.array([[2], [0], [1]])


def slice_write(x, v, w):  # the reported case
    y = x * 1.5
    y[:, 0:1] = v[:, 1:2] * y[:, :1]
    return y * w


def put_along_axis_write(x, v, w):
    y = x * 1.5
    r = y[:, :1]
    t = v[:, 1:2] * r
    np.put_along_axis(y, IDX, t * v[:, :1], axis=1)
    return y * w + r


def augmented_add(x, v, w):
    y = x * 1.5
    r = y[1]
    t = np.tanh(r) * v
    y += v * w
    return y * t + r


def augmented_subscript(x, v, w):
    y = x * v
    r = y.T
    t = np.sin(r) * v
    y[...] *= v
    y[1:, :2] *= t[:2, :2]
    return y * w + t + r


def ufunc_out(x, v, w):
    y = x + v
    r = y[:2]
    t = np.exp(r) * w[:2]
    np.multiply(y, v, out=y)
    return np.sum(y * w) + np.sum(t * r)


def matmul_view(x, v, w):
    y = v * 2.0
    c = y[:, 1]
    m = w @ c  # a rule that is not elementwise
    y[:, 1] = x[0] * m
    return y * np.sum(c ** 2)


PROGRAMS = [slice_write, put_along_axis_write, augmented_add, augmented_subscript,
            ufunc_out, matmul_view]


def _graph_gradient(fn):
    def step(x, v, w):
        with ag.GradientTape() as tape:
            tape.watch([x, v, w])
            s = np.sum(fn(x, v, w))
        return s, tape.gradient(s, [x, v, w])
    return ag.function(step)


@pytest.mark.parametrize("fn", PROGRAMS, ids=lambda f: f.__name__)
def test_graph_gradient_matches_central_differences(fn):
    expected = numeric_grads(lambda *a: fn(*[np.array(b) for b in a]), [X, V, W])
    value, grads = _graph_gradient(fn)(X, V, W)
    np.testing.assert_allclose(value, np.sum(fn(X.copy(), V.copy(), W.copy())), rtol=1e-12)
    for g, e in zip(grads, expected):
        assert g.dtype == np.float64 and g.shape == e.shape
        np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-8)


def _branchy(x, v, w):
    y = x * 1.5
    if np.sum(v) > 0:
        r = y[:, :1]
        y[:, 0:1] = v[:, 1:2] * r
    else:
        r = y[:, 1:2]
        y[:, 1:2] = v[:, 2:3] * r * 2.0
        y += r
    return y * w


def _loop(x, v, w):
    y = x * 1.0
    i = 0
    while i < np.sum(v > -10) - 6:  # a symbolic condition: 3 iterations
        r = y[:, :1]
        y[:, 0:1] = v[:, 1:2] * r + y[:, 1:2]
        i += 1
    return y * w


@pytest.mark.parametrize("fn", [_branchy, _loop], ids=["if", "while"])
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_through_symbolic_control_flow(fn, sign):
    v = V * sign
    expected = numeric_grads(lambda *a: fn(*[np.array(b) for b in a]), [X, v, W])
    step = _graph_gradient(fn)
    value, grads = step(X, v, W)
    assert any(n.op.name in ("cond", "while_loop")
               for n in step.get_concrete_function(X, v, W).graph.nodes)
    np.testing.assert_allclose(value, np.sum(fn(X.copy(), v.copy(), W.copy())), rtol=1e-12)
    for g, e in zip(grads, expected):
        np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-8)


def test_forward_reads_after_the_gradient_still_see_the_write():
    """Rules run with view resolution off; the traced code after `gradient` still has it."""
    def fn(x, v):
        with ag.GradientTape() as tape:
            tape.watch(v)
            y = x * 1.0
            r = y[0]
            y[0] = v[0] * r
            s = np.sum(y)
        g = tape.gradient(s, v)
        y[1] = g[0]
        return r * 1.0, y

    def plain(x, v):
        y = x * 1.0
        r = y[0]
        y[0] = v[0] * r
        y[1] = x[0]  # d sum / d v[0] = x[0] (before the write)
        return r * 1.0, y
    got = ag.function(fn)(X, V)
    for a, b in zip(got, plain(X.copy(), V.copy())):
        np.testing.assert_allclose(a, b, rtol=1e-12)
