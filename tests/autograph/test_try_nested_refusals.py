"""A construct inside a `try` (or a `with np.errstate` region) traced into a graph that
the compiler refuses: the refusal comes out as it is, at its own line, saying what to
change. (Fuzz seeds 1012 and 1903 of graph_try,try_writes: an inner `try` refused the
array written in its loop, and the enclosing construct went on with the values that
inner `try` left unfinished, then refused with a message admitting a compiler limit.)"""
from __future__ import annotations

import inspect

import numpy as np
import pytest

import autograph as ag


def loop_writes_in_a_try_in_errstate(n, k, x, y, xs):
    # (seed 1012, reduced)
    cells = [0, 1]
    with np.errstate(divide="ignore"):
        cells[1] += n
        try:
            w1 = 0
            while True:
                w1 += 1
                if w1 > k:
                    break
                xs[(1 if x < 0 else w1) - 3] = x
            if y > 0:
                cells[1] = 7
        finally:
            cells[0] = 1
    return xs[0], cells[1]


def _inner_try_line(fn) -> int:
    lines, first = inspect.getsourcelines(fn)
    tries = [first + i for i, line in enumerate(lines) if line.strip() == "try:"]
    return tries[-1]


@pytest.mark.parametrize("fn", [loop_writes_in_a_try_in_errstate])
def test_the_inner_refusal_comes_out(fn):
    args = (np.int64(4), np.int64(1), np.float64(-2.5), np.float64(-1.5))
    fn(*args, np.array([3.0, 3.0, -2.5, -2.5]))  # (valid Python)
    with pytest.raises(ag.ConversionError) as info:
        ag.function(fn)(*args, np.array([3.0, 3.0, -2.5, -2.5]))
    message = str(info.value)
    assert f"{__file__}:{_inner_try_line(fn)}: this `try` cannot run in a graph" in message
    assert "writes into 'xs'" in message
    assert "limit of the compiler" not in message


def str_label_in_a_loop_in_errstate(k, xs):
    # (seed 905 of the union set, reduced) the symbolic `if` of the `while` refuses the
    # str `label`; the list `cells`, which the loop's branch held as a stand-in, was not
    # put back as it was before the region (its items had been written in place)
    cells = [0, 1]
    label = "start"
    with np.errstate(divide="raise"):
        label = "L2"
        for _ in xs:
            w = 0
            while True:
                w += 1
                if w > k:
                    break
                label = "L6"
                if -2:
                    break
                cells[0] = 1
    return cells[0], label


@pytest.mark.parametrize("k", [-2, 2])
def test_the_loops_refusal_comes_out(k):
    xs = np.array([3.0, 0.5, -1.0, 2.0])
    str_label_in_a_loop_in_errstate(k, xs)  # (valid Python)
    with pytest.raises(TypeError) as info:
        ag.function(str_label_in_a_loop_in_errstate)(np.int64(k), xs)
    message = str(info.value)
    assert "can choose between arrays and numbers" in message
    assert "limit of the compiler" not in message
