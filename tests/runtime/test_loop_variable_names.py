"""Counting loops whose body reads the `for`'s own variables (the counter, the element it
iterates) by their names (runtime/exec/codegen.py `loop_names`): values read several
times, after other values died, carried out of the loop, rows of an array, as in Python."""
from __future__ import annotations

import numpy as np
import pytest

import autograph as ag


def first_above(xs, threshold):
    for i, x in enumerate(xs):
        if x > threshold:
            return i
    return -1


def weighted_sum(xs):
    total = xs[0] * 0.0
    for i, x in enumerate(xs):
        a = x * 2.0 + i  # the element and the counter, then dead ...
        b = a * a
        c = b - x * i  # ... and read again after other values died
        total = total + c + i
    return total


def last_seen(xs, threshold):
    best, where = xs[0], 0
    for i in range(xs.shape[0]):
        x = xs[i]
        if x > threshold:
            best, where = x, i
    return best, where


def row_sums(m):
    acc = m[0] * 0.0
    for i, row in enumerate(m):  # rows are views of `m`
        acc = acc + row * i
        acc = acc * row[0] + i
    return acc


CASES = [
    (first_above, lambda: (np.linspace(0.0, 1.0, 50), 0.7)),
    (first_above, lambda: (np.linspace(0.0, 1.0, 50), 2.0)),
    (weighted_sum, lambda: (np.linspace(-1.0, 1.0, 30),)),
    (weighted_sum, lambda: (np.arange(12, dtype=np.int64),)),
    (last_seen, lambda: (np.sin(np.arange(40.0)), 0.5)),
    (row_sums, lambda: (np.arange(12.0).reshape(4, 3),)),
]


@pytest.mark.parametrize("fn, make", CASES)
def test_loops_reading_their_variables(fn, make):
    f = ag.function(fn)
    for _ in range(2):
        eager_args, graph_args = make(), make()
        expected, got = fn(*eager_args), f(*graph_args)
        for e, g in zip(np.atleast_1d(np.asarray(expected, dtype=object)),
                        np.atleast_1d(np.asarray(got, dtype=object))):
            assert type(g) is type(e)
            np.testing.assert_array_equal(g, e)
        for e, g in zip(eager_args, graph_args):
            np.testing.assert_array_equal(g, e)
