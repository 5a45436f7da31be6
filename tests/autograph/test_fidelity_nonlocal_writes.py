"""A nested function that assigns a variable of its enclosing function (`nonlocal`),
called inside a symbolic loop or branch: the variable is carried like the block's own.
Before, the cell kept the value of the one traced iteration or branch (a value of a
finished trace, or the branch not taken). Eager against ag.function, jit_compile=True and
ag.to_graph on inputs taking each path."""
from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
from tests.helpers import assert_same


def count_positive(x):
    count = 0

    def inc(v):
        nonlocal count
        count += int(v > 0)

    for v in x:
        inc(v)
    return count


def total_in_a_branch(x):
    total = np.zeros(2)

    def add(v):
        nonlocal total
        total = total + v

    if np.sum(x) > 0:
        add(x)
    else:
        add(-x * 2)
    return total


def running_max_in_a_while(x):
    best = -np.inf
    i = np.int64(0)

    def see(v):
        nonlocal best
        best = max(best, v)

    while i < x.shape[0]:
        see(x[i])
        i += 1
    return best, i


def two_levels(x):
    calls = 0

    def outer_step(v):
        def note():
            nonlocal calls
            calls += 1
        if v > 1:
            note()

    for v in x:
        outer_step(v)
    return calls


CASES = [(count_positive, np.array([1.0, -1.0, 2.0])),
         (count_positive, np.array([-1.0, -2.0])),
         (total_in_a_branch, np.array([1.0, 2.0])),
         (total_in_a_branch, np.array([-1.0, -2.0])),
         (running_max_in_a_while, np.array([1.0, 5.0, 2.0])),
         (two_levels, np.array([0.5, 2.0, 3.0]))]


@pytest.mark.parametrize("fn,x", CASES, ids=[f"{f.__name__}-{i}" for i, (f, _) in
                                             enumerate(CASES)])
@pytest.mark.parametrize("mode", ["function", "jit", "to_graph"])
def test_nonlocal_writes_in_symbolic_blocks_match_python(fn, x, mode):
    run = ag.to_graph(fn) if mode == "to_graph" else ag.function(fn, jit_compile=mode == "jit")
    for args in ((x,), (x[::-1].copy(),)):
        assert_same(run(*args), fn(*args))
