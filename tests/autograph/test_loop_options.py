"""`ag.set_loop_options`: the options bind the loop the call is a statement of, wherever in
its body, on symbolic loops and loops over Python values alike; every other use is a
ConversionError at the user's line (or, if the call ever runs, an error / a warning).

Differential: each converted loop is compared with the same loop written in plain Python
with the bound spelled out (`and k < m`), on the same inputs, with and without
`jit_compile=True`.
"""
from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest

import autograph as ag
from autograph import set_loop_options as bound_by  # an alias the converter cannot see
from tests.helpers import assert_same

JIT = pytest.mark.parametrize("jit", [False, True], ids=["graph", "jit"])


def run(fn, *args, jit=False):
    return ag.function(fn, jit_compile=jit)(*args)


def line_of(fn, text: str) -> int:
    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, line in enumerate(lines) if text in line)


# -- the position in the body does not matter --------------------------------------------
def first(n, m):
    i = np.int64(0)
    while i < n:
        ag.set_loop_options(maximum_iterations=m)
        i += 2
    return i


def middle(n, m):
    i = np.int64(0)
    s = np.float64(0)
    while i < n:
        i += 2
        ag.set_loop_options(maximum_iterations=m)
        s += 0.5
    return i, s


def last(n, m):
    i = np.int64(0)
    while i < n:
        i += 2
        ag.set_loop_options(maximum_iterations=m)
    return i


def ref_first(n, m):
    i, k = np.int64(0), 0
    while i < n and k < m:
        i += 2
        k += 1
    return i


def ref_middle(n, m):
    i, s, k = np.int64(0), np.float64(0), 0
    while i < n and k < m:
        i += 2
        s += 0.5
        k += 1
    return i, s


@JIT
@pytest.mark.parametrize("fn, ref", [(first, ref_first), (middle, ref_middle),
                                     (last, ref_first)], ids=["first", "middle", "last"])
@pytest.mark.parametrize("n, m", [(10, 3), (4, 30), (10, 0)])
def test_symbolic_while_is_bounded_wherever_the_call_sits(fn, ref, n, m, jit):
    for limit in (m, np.int64(m)):  # a Python int and an array bound
        assert_same(run(fn, np.int64(n), limit, jit=jit), ref(np.int64(n), m))


# -- loops over Python values are bounded the same way ------------------------------------
def python_range(n, m):
    s = 0
    for k in range(n):
        s += k
        ag.set_loop_options(maximum_iterations=m)
    return s


def ref_python_range(n, m):
    s = 0
    for k in range(min(n, m)):
        s += k
    return s


def python_while(n, m):
    i = 0
    while i < n:
        i += 1
        ag.set_loop_options(maximum_iterations=m)
    return i


def array_for(x, m):
    s = np.float64(0)
    for v in x:
        s += v
        ag.set_loop_options(maximum_iterations=m)
    return s


def ref_array_for(x, m):
    s = np.float64(0)
    for v in x[:m]:
        s += v
    return s


def range_with_break(n, m, stop):
    s = np.float64(0)
    for k in range(n):
        ag.set_loop_options(maximum_iterations=m)
        if s > stop:
            break
        s += k
    return s


def ref_range_with_break(n, m, stop):
    s = np.float64(0)
    for k in range(min(n, m)):
        if s > stop:
            break
        s += k
    return s


@JIT
@pytest.mark.parametrize("n, m", [(6, 3), (3, 6), (5, 0)])
def test_python_loops_are_bounded_like_symbolic_ones(n, m, jit):
    for limit in (m, np.int64(m)):
        assert_same(run(python_range, n, limit, jit=jit), ref_python_range(n, m))
        assert_same(run(python_while, n, limit, jit=jit), min(n, m))
        x = np.arange(1.0, n + 1)
        assert_same(run(array_for, x, limit, jit=jit), ref_array_for(x, m))
        for stop in (np.float64(2.0), np.float64(100.0)):
            # with no iteration, the np.float64 the loop starts from comes back as a 0-d
            # array (docs/sharp_bits.md): value and dtype checked
            assert_same(run(range_with_break, n, limit, stop, jit=jit),
                        ref_range_with_break(n, m, stop))


# -- nested loops: each call binds its own loop ---------------------------------------------
def nested(n):
    total = np.int64(0)
    i = np.int64(0)
    while i < n:
        j = np.int64(0)
        while j < n:
            j += 1
            ag.set_loop_options(maximum_iterations=2)
            total += 1
        i += 1
        ag.set_loop_options(maximum_iterations=3)
    return total, i


def ref_nested(n):
    total, i, a = np.int64(0), np.int64(0), 0
    while i < n and a < 3:
        j, b = np.int64(0), 0
        while j < n and b < 2:
            j += 1
            total += 1
            b += 1
        i += 1
        a += 1
    return total, i


@JIT
def test_each_call_binds_the_loop_it_is_directly_in(jit):
    for n in (1, 5):
        assert_same(run(nested, np.int64(n), jit=jit), ref_nested(np.int64(n)))


def invariants_last(n):
    acc = np.zeros(0)
    i = np.int64(0)
    while i < n:
        acc = np.concatenate((acc, [1.0]))
        i += 1
        ag.set_loop_options(shape_invariants=[(acc, (None,))])
    return acc


def test_shape_invariants_anywhere_in_the_body():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # shape invariants alone do not warn in Python
        want = invariants_last(np.int64(4))
    assert_same(run(invariants_last, np.int64(4)), want)


def test_the_option_is_lifted_onto_the_loop():
    code = ag.to_code(last)
    assert "set_loop_options" not in code and "maximum_iterations=m" in code


# -- every other use is an error at the user's line ------------------------------------------
def outside(n):
    ag.set_loop_options(maximum_iterations=3)
    return n


def in_branch(n):
    i = np.int64(0)
    while i < n:
        if i > 0:
            ag.set_loop_options(maximum_iterations=3)
        i += 1
    return i


def in_nested_function(n):
    i = np.int64(0)
    while i < n:
        def helper():
            ag.set_loop_options(maximum_iterations=3)
        i += 1
    return i


def as_value(n):
    i = np.int64(0)
    while i < n:
        opts = ag.set_loop_options(maximum_iterations=3)
        i += 1
    return i, opts


def twice(n):
    i = np.int64(0)
    while i < n:
        ag.set_loop_options(maximum_iterations=3)
        i += 1
        ag.set_loop_options(maximum_iterations=4)
    return i


def changing_bound(n):
    i = np.int64(0)
    while i < n:
        ag.set_loop_options(maximum_iterations=i + 1)
        i += 1
    return i


def in_else(n):
    i = np.int64(0)
    while i < n:
        i += 1
    else:
        ag.set_loop_options(maximum_iterations=3)
    return i


def positional(n):
    i = np.int64(0)
    while i < n:
        ag.set_loop_options(3)
        i += 1
    return i


def through_alias(n):
    i = np.int64(0)
    while i < n:
        bound_by(maximum_iterations=3)
        i += 1
    return i


@pytest.mark.parametrize("fn, text, says", [
    (outside, "ag.set_loop_options", "outside any loop"),
    (in_branch, "ag.set_loop_options", "inside an `if`"),
    (in_nested_function, "ag.set_loop_options", "nested function `helper`"),
    (as_value, "ag.set_loop_options", "used in an expression"),
    (twice, "maximum_iterations=4", "twice in one loop"),
    (changing_bound, "ag.set_loop_options", "read i, which the loop assigns"),
    (in_else, "ag.set_loop_options", "inside a loop's `else`"),
    (positional, "ag.set_loop_options", "keyword arguments only"),
    (through_alias, "bound_by(", "ran as an ordinary call"),
], ids=lambda v: getattr(v, "__name__", None))
def test_misplaced_calls_are_errors_at_the_users_line(fn, text, says):
    with pytest.raises(ag.ConversionError, match=says) as info:
        run(fn, np.int64(5))
    assert info.value.lineno == line_of(fn, text)
    assert info.value.filename == __file__


def test_a_call_in_an_unconverted_trace_is_an_error():
    with pytest.raises(ag.ConversionError, match="ran as an ordinary call") as info:
        ag.function(python_while, autograph=False)(5, 3)
    assert info.value.lineno == line_of(python_while, "ag.set_loop_options")


def test_plain_python_runs_unbounded_and_warns_at_the_call():
    with pytest.warns(UserWarning, match="no effect in plain Python") as record:
        got = python_while(5, 3)
    assert got == 5  # plain Python cannot bound the loop: it says so
    assert record[0].lineno == line_of(python_while, "ag.set_loop_options")
