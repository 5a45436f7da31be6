"""The executor and passes on unknown dims: buffers are reused only where the shapes are
provably equal when the graph runs, and every call - whatever the sizes - equals eager
NumPy and the reference interpreter."""
from __future__ import annotations

import re

import numpy as np

import autograph as ag
from tests.helpers import assert_interpreter_agrees, assert_same

SIG = [ag.TensorSpec((None,), np.float64), ag.TensorSpec((None,), np.float64)]


def chain(x, y):
    a = np.exp(x) * 2.0          # a 0-d operand: `a` has x's shape, its buffer is reused
    a = np.tanh(a) + 1
    b = a * y                    # y may broadcast (length 1): no reuse of a's buffer
    c = b - np.float64(3)
    return c, np.sum(c * c), a


def run_sizes(fn, sizes):
    f = ag.function(fn, input_signature=SIG)
    cf = f.get_concrete_function(*SIG)
    cf.graph.verify()
    for n, m in sizes:
        args = (np.linspace(0, 1, n), np.linspace(1, 2, m))
        expected = fn(*args)
        got = f(*args)
        assert_same(got, expected)
        assert_interpreter_agrees(cf, args, got)
    return cf


def test_reuse_only_where_the_run_time_shapes_are_provably_equal():
    cf = run_sizes(chain, [(4, 4), (4, 1), (1, 5), (0, 1), (0, 0), (6, 6)])
    code = cf.python_code
    assert re.search(r"multiply\((\w+), 2\.0, \1\)", code), code  # into its own buffer
    b_line = next(line for line in code.splitlines()[1:] if re.search(r"\* y\b|, y\b", line))
    assert re.match(r"\s*\w+ = ", b_line), code  # a new array, not written into `a`'s buffer


def loop_over_unknown_sizes(x, y):
    total = np.zeros_like(x)
    i = 0
    while i < y.shape[0]:
        total = total + x * y[i]
        total = np.sqrt(np.abs(total))
        i += 1
    return total, total.shape[0] + y.shape[0]


def test_loops_and_hoisting_with_unknown_dims():
    run_sizes(loop_over_unknown_sizes, [(3, 2), (0, 3), (5, 0), (1, 1)])


def folded_and_shared(x, y):
    k = np.ones(3) * 2.0                  # folded: a constant of known shape
    n = x.shape[0]
    u = x * n + np.sum(k)
    v = x * n + np.sum(k)                 # the same expression: computed once
    return u + v, np.zeros(n) + y[:1].sum()


def test_folding_and_cse_with_symbolic_dims():
    run_sizes(folded_and_shared, [(3, 2), (0, 1), (4, 5)])
