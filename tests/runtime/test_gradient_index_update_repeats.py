"""`x[index] = value` gradients where the index names a position more than once: NumPy
keeps the value written last, so only that value gets the cotangent and the overwritten
array positions get zero. Graph tape (subscript assignment) and eager tape
(runtime.index_update) against central differences, float64."""
import numpy as np
import pytest

import autograph as ag
from runtime import index_update
from tests.runtime.gradcheck import numeric_grads

RNG = np.random.default_rng(3)
A = RNG.standard_normal((3, 4))
VALS = RNG.standard_normal(6)
COEF = np.arange(1.0, 13.0).reshape(3, 4)

# (index, how many values it takes: a shape for `value`)
CASES = {
    "reported": (np.array([0, 0]), None),               # 1-D: see test_reported_case
    "int_array_rows": (np.array([2, 0, 2]), (3, 4)),
    "int_array_2d": ((np.array([1, 1, 0, 1]), np.array([2, 2, 3, 2])), (4,)),
    "bool_mask": (A > 0, (int(np.sum(A > 0)),)),
    "slice_and_array": ((slice(1, None), np.array([3, 0, 3])), (2, 3)),
    "broadcast_value": ((np.array([0, 2, 0]), slice(None)), (4,)),
    "scalar_into_repeats": ((np.array([1, 1, 1]), np.array([0, 0, 0])), ()),
    "array_then_slice": ((np.array([[0], [0]]), np.array([1, 3])), (2, 1)),
}


def _program(index, shape):
    def fn(a, v):
        y = a * 2.0
        y[index] = np.reshape(v[:int(np.prod(shape))], shape) * 3.0
        return y * COEF
    return fn


def _eager_program(index, shape):
    def fn(a, v):
        return index_update(a * 2.0, index, np.reshape(v[:int(np.prod(shape))], shape) * 3.0) * COEF
    return fn


def _vals(shape):
    return np.resize(VALS, max(int(np.prod(shape)), 1))


@pytest.mark.parametrize("name", [k for k in CASES if k != "reported"])
def test_graph_and_eager_match_central_differences(name):
    index, shape = CASES[name]
    fn, eager = _program(index, shape), _eager_program(index, shape)
    v = _vals(shape)
    expected = numeric_grads(lambda a, vv: fn(np.array(a), vv), [A, v])

    @ag.function
    def step(a, vv):
        with ag.GradientTape() as tape:
            tape.watch([a, vv])
            s = np.sum(fn(a, vv))
        return s, tape.gradient(s, [a, vv])
    value, grads = step(A, v)
    np.testing.assert_allclose(value, np.sum(fn(A.copy(), v)), rtol=1e-12)
    for g, e in zip(grads, expected):
        np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-8)

    with ag.GradientTape() as tape:
        a_w, v_w = tape.watch([A.copy(), v.copy()])
        s = np.sum(eager(a_w, v_w))
    np.testing.assert_allclose(s.numpy(), value, rtol=1e-12)
    for g, e in zip(tape.gradient(s, [a_w, v_w]), expected):
        np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-8)


def test_reported_case():
    def value(x):
        a = np.zeros(3) + x[0]
        a[np.array([0, 0])] = x
        return np.sum(a * np.array([1.0, 2.0, 3.0]))

    @ag.function
    def grad(x):
        with ag.GradientTape() as tape:
            tape.watch(x)
            s = value(x)
        return tape.gradient(s, x)
    x = np.array([0.3, -0.7])
    np.testing.assert_allclose(grad(x), numeric_grads(value, [x])[0], rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("positive", [True, False])
def test_repeats_under_a_symbolic_if_and_while(positive):
    idx = np.array([1, 1, 0, 1])

    def fn(x):
        y = x * 1.0
        if np.sum(x) > 0:
            y[idx] = x * 2.0
        else:
            y[idx[::-1]] = x * 3.0
        i = 0
        while i < np.sum(x > -10) - 2:  # a symbolic condition: 2 iterations
            y[idx] = y * x
            i += 1
        return y

    x = np.array([0.5, -0.2, 0.9, 0.4]) * (1.0 if positive else -1.0)
    expected = numeric_grads(lambda a: fn(np.array(a)), [x])[0]

    @ag.function
    def grad(x):
        with ag.GradientTape() as tape:
            tape.watch(x)
            s = np.sum(fn(x))
        return tape.gradient(s, x)
    g = grad(x)
    assert {n.op.name for n in grad.get_concrete_function(x).graph.nodes} >= {"cond", "while_loop"}
    np.testing.assert_allclose(g, expected, rtol=1e-6, atol=1e-8)
