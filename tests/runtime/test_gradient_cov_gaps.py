"""Gradients of the functions added to close the coverage gaps (put_along_axis, pinv with
a tolerance computed in the graph, gufuncs with axis=, trim_zeros) against central
differences in float64: eager tape and graph tape for the op rules, and converted code
(`ag.function`) writing with np.put_along_axis inside a symbolic `if` and `while`.

`test_gradient_rules.py::test_every_rule_has_a_case` counts these cases too.
"""
from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
import runtime
from runtime.ops.more_arrays import put_along_axis_value
from tests.runtime.gradcheck import assert_grads, numeric_grads, three_way
from tests.runtime.test_gradient_rules import A, check_covers

CASES: list = []   # (id, covers, fn, args, options)


def case(id_, covers, fn, *args, **options):
    CASES.append((id_, tuple(covers), fn, args, options))


W = np.arange(1.0, 61.0)


def weighted(y):
    """y times distinct weights (so a misplaced gradient element shows)."""
    return y * W[:y.size].reshape(y.shape)


IDX = np.array([[0, 2, 2], [3, 0, 1]])  # a repeated index in the first row
case("put_along_axis", ["put_along_axis"],
     lambda x, v: weighted(put_along_axis_value(x, IDX, v, 1)), A(2, 4), A(2, 3, seed=1))
case("put_along_axis-broadcast", ["put_along_axis"],
     lambda x, v: weighted(put_along_axis_value(x, IDX[:1], v, 1)), A(3, 4), A(1, 1, 3, seed=1))
case("put_along_axis-scalar-axis0", ["put_along_axis"],
     lambda x, v: weighted(put_along_axis_value(x, np.array([[1, 1, 0]]), v, 0)), A(2, 3),
     np.float64(0.7))
case("pinv_tol", ["linalg.pinv_tol"],
     lambda a, k: weighted(np.linalg.pinv(a, rtol=k * 0.05)), A(2, 3, 4), np.array([1, 3]))
case("vecdot-axis", [np.vecdot, "moveaxis"],
     lambda a, b: weighted(np.vecdot(a, b, axis=0)), A(3, 2), A(3, 1, seed=1))
case("matmul-axes", [np.matmul, "moveaxis"],
     lambda a, b: weighted(np.matmul(a, b, axes=[(1, 2), (0, 1), (0, 1)])), A(2, 2, 3),
     A(3, 2, seed=1))



def _number_or_sum(x):
    s = np.sum(x)
    # a Python float on one path: arithmetic on it is path_arith
    r = runtime.cond(s > 100, lambda: 1.0, lambda: s)
    return weighted(np.reshape(-(r - 0.5) * 3.0, (1,)))


case("path_arith", ["path_arith"], _number_or_sum, A(3))


@pytest.mark.parametrize("id_, covers, fn, args, options", CASES, ids=[c[0] for c in CASES])
def test_rule(id_, covers, fn, args, options):
    ops = three_way(fn, *args, **options)
    check_covers(ops, covers)


def _graph_gradient(fn, *args):
    """Gradients of sum(fn(*args)) taken by a tape inside converted code."""
    def step(*xs):
        with ag.GradientTape() as tape:
            tape.watch(list(xs))
            y = fn(*xs)
        return tape.gradient(y, list(xs))
    return ag.function(step)(*args)


def test_put_along_axis_in_cond_and_while():
    def program(x, v):
        y = x * 1.0
        if np.sum(x) > 0:
            y = y * 1.5  # (assigned in the block: AutoGraph carries it out)
            np.put_along_axis(y, IDX, v, axis=1)
        else:
            y = y.copy()
            np.put_along_axis(y, IDX[:, :1], v[:, :1] * 2, axis=1)
        k = 0
        while k < 2:
            y = np.sin(y) + 0.5
            np.put_along_axis(y, np.argmin(y, axis=1, keepdims=True),
                              v[:, 1:2] * np.max(y, axis=1, keepdims=True), axis=1)
            k += 1
        return weighted(y)

    for seed in (0, 5):
        x, v = A(2, 4, seed=seed), A(2, 3, seed=seed + 1)
        for args in ((x, v), (-np.abs(x), v)):
            got = _graph_gradient(program, *args)
            assert_grads(got, numeric_grads(program, list(args)), "converted program")


def test_trim_zeros_gradient_in_while():
    def program(x, n):
        t = np.trim_zeros(x * (x > 0))
        k = 0
        while k < n:
            t = t * np.cos(t)
            k += 1
        return np.sum(t * t)

    x = np.array([-1.0, 0.5, -0.3, 1.2, -2.0])
    got = _graph_gradient(lambda x: program(x, np.int64(2)), x)
    assert_grads(got, numeric_grads(lambda x: program(x, 2), [x]), "trim_zeros in while")
