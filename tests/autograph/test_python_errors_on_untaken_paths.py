"""A Python error raised while tracing a branch or loop body that a symbolic condition
guards (`60 // 0` on Python ints, a missing key or list index) is raised when the graph
takes that path, as Python raises it there - never at trace time for every call, and
never caught by an enclosing graph `try` on paths that do not reach it. Compared with
the plain function through ag.function, jit_compile=True and ag.to_graph."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import autograph as ag


def outcome(fn, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return "value", fn(*args)
        except Exception as e:  # noqa: BLE001 - the error is the outcome compared
            return "raised", type(e), str(e)


def division_in_a_branch(k):
    a = 0
    if k > 0:
        a = 60 // a
    return a + k


def lookup_in_a_branch(k):
    d = {"x": 1}
    r = k
    if k < -2:
        r = d["y"] + k
    return r


def index_in_a_loop(k):
    xs = [1, 2, 3]
    i = 0
    while i < k:
        i += xs[5]
    return i


def caught_only_where_taken(k):
    a, t = 0, 0
    try:
        if k > 0:
            a = 60 // a
        else:
            a = k + 1
    except ZeroDivisionError:
        t = 7
    return a, t


def nested_branches_in_a_try(k):
    b, t = -2, 0
    try:
        if b == -k:
            b = b + 60 // ((4 if b < 0 else 3) - 4)
        else:
            b = b - 1
    except ArithmeticError:
        t = 9
    return b, t


PROGRAMS = [division_in_a_branch, lookup_in_a_branch, index_in_a_loop,
            caught_only_where_taken, nested_branches_in_a_try]
INPUTS = [np.int64(v) for v in (-3, 0, 2, 5)]


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("fn", PROGRAMS, ids=lambda f: f.__name__)
def test_the_error_is_raised_where_the_path_is_taken(fn, jit):
    f = ag.function(fn, jit_compile=jit)
    for k in INPUTS + INPUTS[::-1]:
        assert outcome(f, k) == outcome(fn, k), k
    assert f.tracing_count == 1
    converted = ag.to_graph(fn)
    for k in INPUTS:
        assert outcome(converted, k) == outcome(fn, k), k
