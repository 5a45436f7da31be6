"""`GradientTape.jacobian` / `batch_jacobian` and hessians (`ag.hessian`, nested tapes):
against central differences, eager tape vs the tape inside an ag.function, through
`cond` / `while_loop`; hessians are symmetric."""
from __future__ import annotations

import contextlib

import numpy as np
import pytest

import autograph as ag

RNG = np.random.default_rng(11)


def numeric_jacobian(fn, x, eps=1e-6):
    """Central differences of fn at x: shape fn(x).shape + x.shape."""
    y0 = np.asarray(fn(x))
    jac = np.zeros(y0.shape + x.shape)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        jac[(Ellipsis,) + i] = (np.asarray(fn(up)) - np.asarray(fn(down))) / (2 * eps)
    return jac


@contextlib.contextmanager
def eagerly():
    ag.run_functions_eagerly(True)
    try:
        yield
    finally:
        ag.run_functions_eagerly(False)


def smooth(x):
    return np.sin(x) * x[::-1] + np.sum(x ** 2)


def branchy(x):
    if np.sum(x) > 0:
        y = np.tanh(x) * 2.0
    else:
        y = np.exp(x) - x
    return y


def loopy(x):
    y = x
    i = 0
    while np.max(np.abs(y)) < 4.0 and i < 10:
        y = y * 1.5 + np.sin(y)
        i += 1
    return y


def matrixy(x):
    w = np.arange(6.0).reshape(3, 2) / 4
    return np.tanh(x.reshape(2, 3) @ w)


PROGRAMS = {"smooth": (smooth, (3,)), "branch": (branchy, (4,)), "loop": (loopy, (3,)),
            "matrix": (matrixy, (6,))}


def eager_jacobian(fn, x):
    with ag.GradientTape() as tape:
        xw = tape.watch(x)
        y = fn(xw)
    return tape.jacobian(y, xw)


def graph_jacobian(fn):
    @ag.function
    def jac(x):
        with ag.GradientTape() as tape:
            x = tape.watch(x)
            y = fn(x)
        return tape.jacobian(y, x)
    return jac


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_jacobian_matches_finite_differences_eager_and_graph(name):
    fn, shape = PROGRAMS[name]
    for sign in (1.0, -1.0):  # both sides of the branch
        x = sign * RNG.uniform(0.2, 1.0, shape)
        expected = numeric_jacobian(fn, x)
        graph = graph_jacobian(fn)(x)
        with eagerly():
            eager_in_function = graph_jacobian(fn)(x)
        np.testing.assert_allclose(graph, expected, rtol=1e-6, atol=1e-7)
        assert graph.shape == expected.shape and graph.dtype == x.dtype
        np.testing.assert_allclose(eager_in_function, graph, rtol=1e-12, atol=1e-14)
        if name != "loop" and name != "branch":  # eager tape on plain Python control flow
            np.testing.assert_allclose(eager_jacobian(fn, x), graph, rtol=1e-12, atol=1e-14)


def test_jacobian_structured_sources_and_variables():
    v = ag.Variable(np.array([0.5, -1.0]))
    x = np.array([[1.0, 2.0], [0.5, -0.3]])

    def f(x):
        return np.tanh(x @ v.value) * v.value[0]

    @ag.function
    def graph(x):
        with ag.GradientTape() as tape:
            x = tape.watch(x)
            y = f(x)
        return tape.jacobian(y, {"x": x, "v": v})

    out = graph(x)
    assert set(out) == {"x", "v"}
    np.testing.assert_allclose(out["x"], numeric_jacobian(f, x), rtol=1e-6, atol=1e-8)
    v0 = v.numpy().copy()

    def of_v(vv):
        v.assign(vv)
        return f(x)
    expected_v = numeric_jacobian(of_v, v0)
    v.assign(v0)
    np.testing.assert_allclose(out["v"], expected_v, rtol=1e-6, atol=1e-8)
    assert out["x"].shape == (2, 2, 2) and out["v"].shape == (2, 2)


def test_batch_jacobian_equals_per_example_jacobians():
    w = RNG.normal(size=(3, 2))
    x = RNG.normal(size=(5, 3))

    def f(x):
        return np.tanh(x @ w) * np.sum(x ** 2, axis=-1, keepdims=True)

    with ag.GradientTape() as tape:
        xw = tape.watch(x)
        y = f(xw)
    eager = tape.batch_jacobian(y, xw)

    @ag.function
    def graph(x):
        with ag.GradientTape() as tape:
            x = tape.watch(x)
            y = f(x)
        return tape.batch_jacobian(y, x)

    expected = np.stack([numeric_jacobian(lambda r: f(r[None])[0], x[b]) for b in range(5)])
    assert eager.shape == (5, 2, 3) == graph(x).shape
    np.testing.assert_allclose(eager, expected, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(graph(x), eager, rtol=1e-12, atol=1e-14)


def test_unconnected_sources_and_single_use():
    x, z = np.array([1.0, 2.0]), np.array([3.0])
    with ag.GradientTape() as tape:
        xw, zw = tape.watch(x), tape.watch(z)
        y = xw * 2.0
    assert tape.jacobian(y, [xw, zw])[1] is None
    with pytest.raises(RuntimeError, match="persistent"):
        tape.jacobian(y, xw)
    with ag.GradientTape(persistent=True) as tape:
        xw, zw = tape.watch(x), tape.watch(z)
        y = xw * 2.0
    np.testing.assert_array_equal(tape.jacobian(y, zw, unconnected_gradients="zero"),
                                  np.zeros((2, 1)))
    np.testing.assert_array_equal(tape.jacobian(y, xw), np.diag([2.0, 2.0]))


def test_jacobian_of_unknown_shape_is_a_clear_error():
    @ag.function(input_signature=[ag.TensorSpec((None,), np.float64)])
    def f(x):
        with ag.GradientTape() as tape:
            x = tape.watch(x)
            y = x * 2.0
        return tape.jacobian(y, x)

    with pytest.raises(NotImplementedError, match="static target shape"):
        f(np.ones(3))


def scalar_loop(x):
    s = 0.0
    i = 0
    while i < 3:
        s = s + np.sum(np.sin(x) * x[0]) * (i + 1)
        i += 1
    if np.sum(x) > 0:
        s = s * 2.0
    return s


def scalar_matrix(x):
    return np.sum(np.tanh(x @ x.T)) + np.prod(x[0])


@pytest.mark.parametrize("fn,shape", [(scalar_loop, (3,)), (scalar_matrix, (2, 2)),
                                      (lambda x: np.log(np.sum(np.exp(x))), (4,))])
def test_hessian_matches_finite_differences_and_is_symmetric(fn, shape):
    x = RNG.uniform(-1.0, 1.0, shape)

    def grad(x):
        with ag.GradientTape() as tape:
            xw = tape.watch(x)
            y = fn(xw)
        return tape.gradient(y, xw)
    h = ag.hessian(fn)(x)
    assert h.shape == shape + shape and h.dtype == x.dtype
    flat = h.reshape(x.size, x.size)
    np.testing.assert_allclose(flat, flat.T, rtol=1e-10, atol=1e-12)
    with eagerly():
        np.testing.assert_allclose(ag.hessian(fn)(x), h, rtol=1e-12, atol=1e-12)
        expected = numeric_jacobian(grad, x, eps=1e-5)
    np.testing.assert_allclose(h, expected, rtol=1e-5, atol=1e-6)


def test_hessian_by_nested_tapes_inside_a_function():
    x = np.array([0.3, -1.2, 2.0])

    @ag.function
    def nested(x):
        with ag.GradientTape() as outer:
            x = outer.watch(x)
            with ag.GradientTape() as inner:
                x = inner.watch(x)
                y = scalar_loop(x)
            g = inner.gradient(y, x)
        return outer.jacobian(g, x)

    np.testing.assert_allclose(nested(x), ag.hessian(scalar_loop)(x), rtol=1e-12)
    with ag.GradientTape() as outer:
        xo = outer.watch(x)
        with ag.GradientTape() as inner:
            xi = inner.watch(xo)
            y = scalar_matrix(xi.reshape(3, 1) * xi)
        g = inner.gradient(y, xi)
    eager = outer.jacobian(g, xo)
    np.testing.assert_allclose(eager, ag.hessian(lambda v: scalar_matrix(v.reshape(3, 1) * v))(x),
                               rtol=1e-10)


def test_hessian_inside_a_function_and_errors():
    @ag.function
    def newton_step(x):
        with ag.GradientTape() as tape:
            x = tape.watch(x)
            y = scalar_matrix(x.reshape(2, 2))
        g = tape.gradient(y, x)
        return x - np.linalg.solve(ag.hessian(lambda v: scalar_matrix(v.reshape(2, 2)))(x), g)

    x = np.array([0.1, 0.2, -0.3, 0.4])
    with eagerly():
        eager = newton_step(x)
    np.testing.assert_allclose(newton_step(x), eager, rtol=1e-10)
    with pytest.raises(ValueError, match="must return a scalar"):
        ag.hessian(np.sin)(x)
    with pytest.raises(TypeError, match="floating-point"):
        ag.hessian(np.sum)(np.arange(3))
