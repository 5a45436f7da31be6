"""Gradients through data-dependent control flow, three ways (float64), and the tape's
contract (non-scalar targets, unrelated sources, persistent tapes, the seeds' examples).

Each program is written twice, the way a user would: an eager version with Python `if` /
`while` on concrete values (run on an eager tape, and on plain arrays for central
differences), and a graph version with `runtime.cond` / `runtime.while_loop`, traced with
`ag.function(autograph=False)` and differentiated by a tape inside the function. Loop
bounds are passed as NumPy integers so that they are symbolic in the graph. More
programs: `test_gradient_programs_nested.py` (nested and composed control flow) and
`test_gradient_programs_variables.py` (Variables read in branches and loop bodies).

Values captured by closure from two or more graphs up are covered too
(`cond-nested-closures`, `test_value_captured_two_levels_up_used_twice`).
"""
from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
import runtime
from runtime import cond, while_loop
from tests.runtime.gradcheck import Programs

i64 = np.int64
programs = Programs()


@programs("cond-square-or-cube", ({"x": np.array([1.0, 2.0])},), ({"x": np.array([-2.0, 1.5])},))
def _():
    def eager(p):
        x = p["x"]
        if np.sum(x) > 0:
            return x * x
        return x * x * x

    def graph(p):
        x = p["x"]
        return cond(np.sum(x) > 0, lambda: x * x, lambda: x * x * x)
    return eager, graph


_W3 = {"w": np.array([0.5, -0.3, 0.8]), "b": np.float64(0.1)}


@programs("cond-weights", (_W3, np.array([1.0, 2.0, 0.5])), (_W3, np.array([-1.0, 0.5, -2.0])))
def _():
    def eager(p, x):
        s = x @ p["w"] + p["b"]
        if s > 0:
            return np.tanh(s) * p["w"]
        return np.sin(p["w"]) * s

    def graph(p, x):
        s = x @ p["w"] + p["b"]
        return cond(s > 0, lambda: np.tanh(s) * p["w"], lambda: np.sin(p["w"]) * s)
    return eager, graph


_QUADRANTS = [([np.array(v)],) for v in ([0.5, 1.2], [0.7, -0.4], [-0.6, 0.9], [-1.1, -0.3])]


@programs("cond-nested-closures", *_QUADRANTS)
def _():
    def eager(p):
        x = p[0]
        if x[0] > 0:
            if x[1] > 0:
                return x * x
            return np.exp(x)
        if x[1] > 0:
            return np.sin(x) * x[1]
        return x[0] * x

    def graph(p):
        x = p[0]
        return cond(x[0] > 0,
                    lambda: cond(x[1] > 0, lambda: x * x, lambda: np.exp(x)),
                    lambda: cond(x[1] > 0, lambda: np.sin(x) * x[1], lambda: x[0] * x))
    return eager, graph


@programs("cond-nested-operands", *_QUADRANTS)
def _():
    def eager(p):
        x = p[0]
        if x[0] > 0:
            if x[1] > 0:
                return x * x
            return np.exp(x)
        if x[1] > 0:
            return np.sin(x) * x[1]
        return x[0] * x

    def graph(p):  # values passed to the branches as operands, not captured
        def positive(x):
            return cond(x[1] > 0, lambda x: x * x, lambda x: np.exp(x), (x,))

        def negative(x):
            return cond(x[1] > 0, lambda x: np.sin(x) * x[1], lambda x: x[0] * x, (x,))
        return cond(p[0][0] > 0, positive, negative, (p[0],))
    return eager, graph


@programs("cond-tuple-outputs", ((np.array([0.3, 0.9]), np.float64(1.5)),),
         ((np.array([-0.3, -0.9]), np.float64(0.5)),))
def _():
    def eager(p):
        x, s = p
        if np.mean(x) > 0:
            a, b = x * s, np.sum(x) + s
        else:
            a, b = x - s, s * s
        return a * b

    def graph(p):
        x, s = p
        a, b = cond(np.mean(x) > 0, lambda: (x * s, np.sum(x) + s), lambda: (x - s, s * s))
        return a * b
    return eager, graph


@programs("while-grow-until-large", ({"y": np.array([0.5, 0.2]), "w": np.array([0.3, -0.1])},),
         ({"y": np.array([2.0, 1.0]), "w": np.array([0.1, 0.2])},))
def _():
    def eager(p):
        y = p["y"]
        while np.sum(y * y) < 50.0:
            y = y * 1.5 + p["w"]
        return y

    def graph(p):
        w = p["w"]
        return while_loop(lambda y: np.sum(y * y) < 50.0, lambda y: (y * 1.5 + w,), (p["y"],))[0]
    return eager, graph


_ABY = {"a": np.float64(0.9), "b": np.array([0.1, -0.2]), "y": np.array([0.4, 1.1])}


@programs("while-counter", (_ABY, i64(4)), (_ABY, i64(1)))
def _():
    def eager(p, n):
        y, i = p["y"], 0
        while i < n:
            y = np.sin(y) * p["a"] + p["b"]
            i += 1
        return y

    def graph(p, n):
        a, b = p["a"], p["b"]
        return while_loop(lambda i, y: i < n, lambda i, y: (i + 1, np.sin(y) * a + b),
                          (i64(0), p["y"]))[1]
    return eager, graph


@programs("while-maximum-iterations", ({"y": np.array([0.2, 0.5]), "k": np.float64(1.1)},))
def _():
    def eager(p):  # the condition stays true: maximum_iterations=3 stops the loop
        y = p["y"]
        for _ in range(3):
            if not np.sum(y) < 1e6:
                break
            y = np.cos(y) * p["k"] + y
        return y

    def graph(p):
        k = p["k"]
        return while_loop(lambda y: np.sum(y) < 1e6, lambda y: (np.cos(y) * k + y,), (p["y"],),
                          maximum_iterations=3)[0]
    return eager, graph


@programs("while-maximum-iterations-symbolic", ({"y": np.array([0.2, 0.5])}, i64(2), i64(5)),
         ({"y": np.array([0.2, 0.5])}, i64(6), i64(3)))
def _():
    def eager(p, n, limit):  # stops after min(n, limit) iterations
        y, i = p["y"], 0
        while i < n and i < limit:
            y = y * y * 0.5 + 0.3
            i += 1
        return y

    def graph(p, n, limit):
        return while_loop(lambda i, y: i < n, lambda i, y: (i + 1, y * y * 0.5 + 0.3),
                          (i64(0), p["y"]), maximum_iterations=limit)[1]
    return eager, graph


_RNN = {"W": np.array([[0.5, -0.2], [0.1, 0.3], [-0.4, 0.2]]),
        "U": np.array([[0.6, 0.1], [-0.2, 0.4]]), "b": np.array([0.05, -0.1])}
_XS = np.array([[0.5, -1.0, 0.3], [0.2, 0.4, -0.6], [1.0, 0.0, 0.5], [-0.3, 0.8, 0.1]])


@programs("rnn-captured-weights", (_RNN, _XS, i64(4)), (_RNN, _XS, i64(2)))
def _():
    def eager(p, xs, n):
        h, i = np.zeros(2), 0
        while i < n:
            h = np.tanh(xs[i] @ p["W"] + h @ p["U"] + p["b"])
            i += 1
        return h

    def graph(p, xs, n):
        W, U, b = p["W"], p["U"], p["b"]
        return while_loop(lambda i, h: i < n,
                          lambda i, h: (i + 1, np.tanh(xs[i] @ W + h @ U + b)),
                          (i64(0), np.zeros(2)))[1]
    return eager, graph


@programs("early-exit-flag", ({"y": np.array([0.5, 0.4]), "w": np.float64(1.3)}, i64(10)),
         ({"y": np.array([0.5, 0.4]), "w": np.float64(1.3)}, i64(2)))
def _():
    def eager(p, n):
        y, i, done = p["y"], 0, False
        while i < n and not done:
            y = y * p["w"] + 0.1
            done = np.max(y) > 3.0
            i += 1
        return y

    def graph(p, n):
        w = p["w"]

        def body(i, y, done):
            y = y * w + 0.1
            return i + 1, y, np.max(y) > 3.0
        return while_loop(lambda i, y, done: np.logical_and(i < n, np.logical_not(done)), body,
                          (i64(0), p["y"], np.False_))[1]
    return eager, graph


@pytest.mark.parametrize("name, k", programs.params())
def test_program(name, k):
    programs.check(name, k)


def test_there_are_at_least_20_working_programs():
    from tests.runtime import test_gradient_programs_nested as nested
    from tests.runtime import test_gradient_programs_variables as variables

    count = len(programs.working()) + len(nested.programs.working()) + len(variables.PROGRAMS)
    assert count >= 20


def test_value_captured_two_levels_up_used_twice():
    f = runtime.function(lambda x: cond(x[0] > 0, lambda: cond(x[1] > 0, lambda: x * x,
                                                                lambda: x), lambda: x))
    np.testing.assert_array_equal(f(np.array([0.5, 1.2])), [0.25, 1.44])


def test_symbolic_maximum_iterations_counts_every_iteration():
    f = runtime.function(lambda limit: while_loop(lambda y: y < 100.0, lambda y: (y * 2.0,),
                                                  (1.0,), maximum_iterations=limit)[0])
    g = runtime.function(lambda x, limit: while_loop(
        lambda y, done: np.logical_not(done), lambda y, done: (y * 2.0, x < 0), (x, False),
        maximum_iterations=limit)[0])
    assert (f(np.int64(3)), g(np.float64(1.0), np.int64(3))) == (8.0, 8.0)


# -- the seeds, and the tape's contract -----------------------------------------------------
def test_seed_cube_of_a_variable_argument():
    @ag.function(autograph=False)
    def cube_grad(x):
        with ag.GradientTape() as tape:
            y = x * x * x
        return tape.gradient(y, x)

    assert cube_grad(ag.Variable(3.0)) == 27.0


def test_seed_conditional_of_a_variable():
    x = ag.Variable(np.array([-2.0, 2.0]))

    @ag.function(autograph=False)
    def grad(x):
        with ag.GradientTape() as tape:
            y = cond(np.sum(x) > 0, lambda: x * x, lambda: x * x * x)
        return tape.gradient(y, x)

    np.testing.assert_array_equal(grad(x), [12.0, 12.0])
    x.assign([1.0, 2.0])
    np.testing.assert_array_equal(grad(x), [2.0, 4.0])
    assert grad.tracing_count == 1
    with ag.GradientTape() as tape:   # and eagerly, with Python `if`
        y = x * x if np.sum(x) > 0 else x * x * x
    np.testing.assert_array_equal(tape.gradient(y, x), [2.0, 4.0])


def both_ways(fn, *args):
    """fn(*args) eagerly and as a traced function (autograph=False)."""
    return fn(*args), ag.function(fn, autograph=False)(*args)


def test_non_scalar_target_differentiates_its_sum():
    def f(x):
        with ag.GradientTape() as tape:
            x = tape.watch(x)
            y = np.outer(x, x) + np.sin(x)  # (3, 3)
        return tape.gradient(y, x)

    x = np.array([0.5, -1.0, 2.0])
    for got in both_ways(f, x):  # d/dx sum(...) = 2 sum(x) + 3 cos(x)
        np.testing.assert_allclose(got, 2 * np.sum(x) + 3 * np.cos(x))


def test_unrelated_source_gives_none():
    w = ag.Variable(np.ones(2))

    def f(x, z):
        with ag.GradientTape() as tape:
            x, z = tape.watch([x, z])
            y = np.sum(x * x)
        return tape.gradient(y, {"x": x, "z": z, "w": w})

    for got in both_ways(f, np.array([1.0, 2.0]), np.array([3.0])):
        np.testing.assert_array_equal(got["x"], [2.0, 4.0])
        assert got["z"] is None and got["w"] is None


def test_persistent_tape_twice_and_non_persistent_raises():
    def f(x):
        with ag.GradientTape(persistent=True) as tape:
            x = tape.watch(x)
            y = x * x
            z = np.sin(x)
            both = y + z
        return tape.gradient(y, x), tape.gradient(z, x), tape.gradient(both, x)

    x = np.array([0.5, 1.5])
    for a, b, c in both_ways(f, x):
        np.testing.assert_allclose(a, 2 * x)
        np.testing.assert_allclose(b, np.cos(x))
        np.testing.assert_allclose(c, 2 * x + np.cos(x))

    def g(x):
        with ag.GradientTape() as tape:
            x = tape.watch(x)
            y = x * x
        tape.gradient(y, x)
        return tape.gradient(y, x)

    with pytest.raises(RuntimeError, match="persistent"):
        g(x)
    with pytest.raises(RuntimeError, match="persistent"):
        ag.function(g, autograph=False)(x)


def test_variable_assigned_in_a_loop_body_under_the_tape_is_refused():
    v = ag.Variable(np.float64(1.0))

    @ag.function(autograph=False)
    def f(n):
        with ag.GradientTape() as tape:
            def body(i, y):
                v.assign_add(1.0)
                return i + 1, y * v
            y = while_loop(lambda i, y: i < n, body, (i64(0), np.float64(1.0)))[1]
        return tape.gradient(y, v)

    with pytest.raises(NotImplementedError, match="assigned inside"):
        f(i64(2))
