"""`break` / `continue` / `return` inside `try` / `except` / `else` / `finally` and
`with` blocks of loops: converted code takes the same path as Python, with `finally`
and `__exit__` running where Python runs them. Each case runs the original and the
converted function (`ag.to_graph`; `ag.function`, also with `jit_compile=True`, where
arrays flow) on the same inputs and compares results and the log of what ran."""
from __future__ import annotations

import contextlib

import numpy as np
import pytest

import autograph as ag
from tests.helpers import assert_same

LOG: list = []


@contextlib.contextmanager
def logged(tag):
    LOG.append(("enter", tag))
    try:
        yield tag
    finally:
        LOG.append(("exit", tag))


def break_continue_in_try_finally(xs):
    out = []
    for x in xs:
        try:
            if x < 0:
                break
            if x == 0:
                continue
            out.append(x)
        finally:
            out.append("finally")
        out.append("after")
    else:
        out.append("loop else")
    return out


def return_in_try_finally(xs):
    for x in xs:
        try:
            if x > 2:
                return x
        finally:
            LOG.append(x)
    return -1


def break_in_with(xs):
    s = 0
    for x in xs:
        with logged(x) as t:
            if t > 2:
                break
            s += t
        s += 100
    return s


def continue_in_handler_and_else(xs):
    out = []
    for x in xs:
        try:
            if x == 1:
                continue
            v = 10 // x
        except ZeroDivisionError:
            out.append("handler")
            continue
        else:
            out.append(v)
        out.append("end")
    return out


def return_in_with_in_try_in_while(xs):
    out = []
    i = 0
    while i < len(xs):
        x = xs[i]
        i += 1
        with logged(i):
            try:
                if x == 3:
                    return out
                if x == 2:
                    continue
            finally:
                out.append(-x)
        out.append(x)
    return out


def break_from_handler(xs):
    total = 0
    for x in xs:
        try:
            total += 12 // x
        except ZeroDivisionError:
            LOG.append("zero")
            break
        finally:
            LOG.append(("finally", x))
    return total


def jumps_in_nested_loops(n):
    out = []
    for i in range(n):
        for j in range(n):
            try:
                if j > i:
                    break
                if (i + j) % 2:
                    continue
                out.append((i, j))
            finally:
                out.append("f")
        with logged(i):
            if i == 2:
                continue
            out.append(i)
    return out


def with_break_not_last(xs):
    out = []
    for x in xs:
        with logged(x):
            if x == 2:
                break
        out.append(x)
    return out


def return_in_try_in_with(a, c):
    with logged(1):
        try:
            if c:
                return a
            LOG.append("body")
        except IndexError:
            pass
        else:
            LOG.append("else")
            if c == 0:
                return -a
        LOG.append("after")
    return 0


def return_in_nested_with(a, c):
    with logged(1):
        with logged(2):
            if c:
                return a
        LOG.append("more")
    return 0


CASES = [
    (break_continue_in_try_finally, ([1, 0, 2, -1, 5],)),
    (break_continue_in_try_finally, ([1, 2],)),
    (return_in_try_finally, ([1, 2, 3, 4],)),
    (return_in_try_finally, ([0],)),
    (break_in_with, ([1, 2, 3, 4],)),
    (continue_in_handler_and_else, ([0, 1, 2, 5],)),
    (return_in_with_in_try_in_while, ([1, 2, 3, 4],)),
    (return_in_with_in_try_in_while, ([1, 2],)),
    (break_from_handler, ([3, 4, 0, 6],)),
    (break_from_handler, ([3, 4],)),
    (jumps_in_nested_loops, (4,)),
    (with_break_not_last, ([1, 2, 3],)),
    (return_in_try_in_with, (5, 0)),
    (return_in_try_in_with, (5, 1)),
    (return_in_try_in_with, (5, 2)),
    (return_in_nested_with, (5, 0)),
    (return_in_nested_with, (5, 1)),
]


def _run(fn, args):
    LOG.clear()
    result = fn(*[list(a) if isinstance(a, list) else a for a in args])
    return result, list(LOG)


@pytest.mark.parametrize("fn,args", CASES, ids=lambda v: getattr(v, "__name__", None))
def test_converted_matches_python(fn, args):
    assert _run(ag.to_graph(fn), args) == _run(fn, args)


def scaled_sum(x, ks):
    s = x * 0
    for k in ks:
        try:
            if k < 0:
                break
            if k == 0:
                continue
            s = s + x * k
        finally:
            s = s + 1
        s = s * 2
    return s


def suppressed(x, n):
    s = x * 0
    for i in range(n):
        with contextlib.suppress(ZeroDivisionError):
            if i == 3:
                break
            s = s + x * (6 // (2 - i))
    return s


def while_with_finally(x):
    s = x * 0
    i = 0
    while np.sum(s) < 50:
        try:
            s = s + x
        finally:
            i += 1
    return s, i


@pytest.mark.parametrize("fn,args", [
    (scaled_sum, (np.arange(3.0), [1, 0, 2, -1, 3])),
    (scaled_sum, (np.arange(3.0), list(range(1, 12)))),
    (suppressed, (np.arange(3.0), 10)),
    (while_with_finally, (np.arange(1.0, 4.0),)),
], ids=["scaled_sum-break", "scaled_sum-long", "suppressed", "while_with_finally"])
@pytest.mark.parametrize("jit", [False, True])
def test_graph_matches_numpy(fn, args, jit):
    if jit:
        pytest.importorskip("numba")
    assert_same(ag.function(fn, jit_compile=jit)(*args), fn(*args))


def break_in_finally(xs):
    n = 0
    for x in xs:
        try:
            n = n + 1
        finally:
            if x:
                break  # noqa: B012 - the construct under test
    return n


@pytest.mark.parametrize("xs", [np.array([0.0, 2.0, 0.0]), np.zeros(3), [0, 0, 3]],
                         ids=["symbolic", "never", "python"])
def test_jump_in_finally_matches_python(xs):
    for run in (ag.to_graph(break_in_finally), ag.function(break_in_finally)):
        assert_same(run(xs), break_in_finally(xs))


def symbolic_break_in_try(x):
    s = x * 0
    for v in x:
        try:
            if v > 2:  # symbolic: the `try` is a graph construct (was refused)
                break
            s = s + v
        finally:
            s = s + 1
    return s


@pytest.mark.parametrize("x", [np.arange(5.0), np.arange(2.0)], ids=["breaks", "runs out"])
@pytest.mark.parametrize("mode", ["function", "jit", "to_graph"])
def test_symbolic_jump_condition_in_try_matches_python(x, mode):
    run = ag.to_graph(symbolic_break_in_try) if mode == "to_graph" else \
        ag.function(symbolic_break_in_try, jit_compile=mode == "jit")
    assert_same(run(x), symbolic_break_in_try(x))
