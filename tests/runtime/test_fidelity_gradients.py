"""Gradients agree between eager tapes and graphs, and with finite differences.

Each case runs as plain Python with an eager `GradientTape` and as an `ag.function`;
the two give the same values (or the same error), and the values match central
finite differences of the same Python function.
"""
import warnings

import numpy as np
import pytest

import autograph as ag

X = np.array([0.7, -1.3, 2.1])


def both(fn, *args):
    """(eager result, graph result) of `fn`."""
    return fn(*args), ag.function(fn)(*args)


def numeric_grad(f, x, eps=1e-6):
    """d sum(f(x)) / dx by central differences."""
    g = np.zeros_like(x)
    for i in range(x.size):
        d = np.zeros_like(x)
        d.flat[i] = eps
        g.flat[i] = (np.sum(f(x + d)) - np.sum(f(x - d))) / (2 * eps)
    return g


def test_unwatched_plain_array_source_raises_in_both_modes():
    def fn(x):
        with ag.GradientTape() as t:
            y = x ** 3
        return t.gradient(y, x)
    for call in (fn, ag.function(fn)):
        with pytest.raises(ValueError, match="not watched by this tape"):
            call(X)


def test_unwatched_value_computed_before_the_tape_raises_in_both_modes():
    def fn(x):
        h = x * 2.0
        with ag.GradientTape() as t:
            y = np.sin(h)
        return t.gradient(y, h)
    for call in (fn, ag.function(fn)):
        with pytest.raises(ValueError, match="not watched by this tape"):
            call(X)


def test_watched_but_unconnected_source_is_none_in_both_modes():
    def fn(x):
        with ag.GradientTape() as t:
            x = t.watch(x)
            z = t.watch(x * 1.0)
            y = x ** 2
        return t.gradient(y, z)
    eager, graph = both(fn, X)
    assert eager is None and graph is None


def test_gradient_of_intermediate_value_agrees():
    def fn(x):
        with ag.GradientTape() as t:
            x = t.watch(x)
            h = x * 3.0
            y = np.sin(h)
        return t.gradient(y, h)
    eager, graph = both(fn, X)
    np.testing.assert_allclose(eager, np.cos(3 * X))
    np.testing.assert_allclose(graph, eager, rtol=1e-12)


@pytest.mark.parametrize("f, d2", [
    (lambda x: x ** 3, lambda x: 6 * x),
    (lambda x: np.sin(x) * x, lambda x: 2 * np.cos(x) - x * np.sin(x)),
    (lambda x: np.exp(x * 0.5) / (1.0 + x * x), None),
])
def test_nested_tapes_give_second_derivatives_in_both_modes(f, d2):
    def fn(x):
        with ag.GradientTape() as outer:
            x = outer.watch(x)
            with ag.GradientTape() as inner:
                x2 = inner.watch(x)
                y = f(x2)
            dy = inner.gradient(y, x2)
        return dy, outer.gradient(dy, x)
    (dy_e, d2_e), (dy_g, d2_g) = both(fn, X)

    def first(x):
        with ag.GradientTape() as t:
            x = t.watch(x)
            y = f(x)
        return t.gradient(y, x)
    np.testing.assert_allclose(np.asarray(dy_e), numeric_grad(f, X), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(d2_e, numeric_grad(first, X), rtol=1e-5, atol=1e-7)
    if d2 is not None:
        np.testing.assert_allclose(d2_e, d2(X), rtol=1e-12)
    np.testing.assert_allclose(dy_g, np.asarray(dy_e), rtol=1e-12)
    np.testing.assert_allclose(d2_g, d2_e, rtol=1e-12)


def test_persistent_tape_inside_its_block_records_its_own_gradient():
    def fn(x):
        with ag.GradientTape(persistent=True) as t:
            x = t.watch(x)
            y = np.sum(x ** 4)
            g = t.gradient(y, x)  # computed while t records: 4x^3, itself recorded
            z = np.sum(g)
        return t.gradient(z, x)
    eager, graph = both(fn, X)
    np.testing.assert_allclose(eager, 12 * X ** 2, rtol=1e-12)
    np.testing.assert_allclose(graph, eager, rtol=1e-12)


@pytest.mark.parametrize("value", [np.float64(2.0), np.array([2.0, -0.5])])
def test_watched_constant_has_a_gradient_in_both_modes(value):
    def fn(x):
        with ag.GradientTape() as t:
            c = t.watch(value)
            y = c * x + c ** 2
        return t.gradient(y, c)
    eager, graph = both(fn, X[:2])

    def as_fn(c):
        return c * X[:2] + c ** 2
    expected = numeric_grad(as_fn, np.array(value, dtype=np.float64))
    np.testing.assert_allclose(eager, expected, rtol=1e-6)
    np.testing.assert_allclose(graph, eager, rtol=1e-12)
    assert np.asarray(graph).dtype == np.asarray(eager).dtype
    assert np.shape(graph) == np.shape(eager)


def test_subscript_assignment_is_differentiable_in_a_graph():
    def fn(x):
        with ag.GradientTape() as t:
            x = t.watch(x)
            y = np.zeros(2)
            y[0] = x[1] * 3.0
            y[1] = x[0] * x[2]
            s = np.sum(y)
        return t.gradient(s, x)

    def value(x):
        y = np.zeros(2)
        y[0] = x[1] * 3.0
        y[1] = x[0] * x[2]
        return y
    graph = ag.function(fn)(X)
    np.testing.assert_allclose(graph, numeric_grad(value, X), rtol=1e-6, atol=1e-9)


def test_subscript_assignment_into_numpy_array_under_eager_tape_warns():
    """Eagerly `y[0] = v` copies v into a plain NumPy array: no gradient can follow it,
    so instead of a silent None the gradient call says so."""
    def fn(x):
        with ag.GradientTape() as t:
            x = t.watch(x)
            y = np.zeros(2)
            y[0] = x[1] * 3.0
            s = np.sum(y) + x[0]
        return t.gradient(s, x)
    with pytest.warns(RuntimeWarning, match=r"converted to a plain NumPy value .*y\[i\] = value"):
        fn(X)


def test_explicit_numpy_and_integer_conversions_do_not_warn():
    def fn(x, i):
        with ag.GradientTape() as t:
            x = t.watch(x)
            i = t.watch(i)
            y = x[i] * 2.0
            logged = y.numpy()  # explicit: the user leaves the tape on purpose
        return logged, t.gradient(y, x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        logged, g = fn(X, np.array([0, 2]))
    np.testing.assert_allclose(g, [2.0, 0.0, 2.0])
    np.testing.assert_allclose(logged, X[[0, 2]] * 2)
