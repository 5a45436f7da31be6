"""Python lists as loop variables of runtime.while_loop, used directly (no autograph).

A list whose length an iteration changes (`xs.append(v)`) is carried as a graph list,
learned from the traced body (the body is traced again, as for a dimension that
changes); a list whose length the body keeps is a nested structure of its items. Graph
vs the same code run as Python (a Python condition runs the loop as Python), errors
naming the variable, and how many times a body is traced."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import runtime
from runtime import while_loop
from runtime.autodiff.tape import GradientTape
from runtime.control_flow.lists import is_list, list_append, list_stack
from tests.helpers import check_three_ways

f32 = np.float32


def _append(xs, v):
    return list_append(xs, v)  # (in place on a Python list, as xs.append)


# -- a list the body appends to: a graph list ------------------------------------------------
def squares(x, n):
    def body(i, xs):
        return i + 1, _append(xs, x * i)
    i, xs = while_loop(lambda i, xs: i < n, body, (0, []))
    return i, list_stack(xs)


def with_items(x, n):
    def body(i, acc):
        xs, total = acc
        return i + 1, (_append(xs, x[i]), total + x[i])
    i, (xs, total) = while_loop(lambda i, acc: i < n, body,
                                (np.int64(0), ([f32(7), f32(8)], f32(0))))
    return list_stack(xs), total


def named_in_dict(x, n):
    def body(i, d):
        return i + 1, {"rows": _append(d["rows"], x * f32(2)), "k": d["k"] + 1}
    _, d = while_loop(lambda i, d: i < n, body, (0, {"rows": [x], "k": 0}))
    return list_stack(d["rows"]), d["k"]


@pytest.mark.parametrize("fn,args", [
    (squares, (np.arange(3, dtype=f32), np.int64(4))),
    (squares, (np.arange(3, dtype=f32), np.int64(1))),
    (with_items, (np.arange(5, dtype=f32), np.int64(3))),
    (named_in_dict, (np.ones(2, f32), np.int64(3))),
])
def test_appended_list_equals_python(fn, args):
    check_three_ways(fn, *args)


def test_appended_list_is_a_graph_list_in_the_graph():
    seen = []

    def fn(x, n):
        def body(i, xs):
            return i + 1, _append(xs, x)
        out = while_loop(lambda i, xs: i < n, body, (0, []))
        seen.append(is_list(out[1]))  # while tracing (a symbolic value must not outlive it)
        return list_stack(out[1])
    f = runtime.function(fn)
    np.testing.assert_array_equal(f(np.ones(2, f32), np.int64(3)), np.ones((3, 2), f32))
    assert seen[-1] is True


# -- a list whose length the body keeps: a nested structure ---------------------------------
def running_pair(x, n):
    def body(i, ys):
        return i + 1, [ys[0] + x[i], ys[1] * 2]
    return while_loop(lambda i, ys: i < n, body, (0, [f32(0), np.ones(2, f32)]))


def test_kept_length_list_is_a_structure_and_equals_python():
    check_three_ways(running_pair, np.arange(4, dtype=f32), np.int64(3))
    i, ys = runtime.function(running_pair)(np.arange(4, dtype=f32), np.int64(3))
    assert type(ys) is list and len(ys) == 2


# -- what cannot be carried: errors name the variable ---------------------------------------
def test_mixed_arrays_and_strings_name_the_variable():
    def fn(x, n):
        def body(i, xs):
            return i + 1, _append(xs, "done")
        return while_loop(lambda i, xs: i < n, body, (0, [x]), names=["i", "log"])
    with pytest.raises(TypeError, match=r"The list log .*float32\[2\] and <U4\[\]"):
        runtime.function(fn)(np.ones(2, f32), np.int64(2))


def test_nested_rows_name_the_variable():
    def fn(x, n):
        def body(i, rows):
            return i + 1, _append(rows, [x, x])
        return while_loop(lambda i, rows: i < n, body, (0, []), names=["i", "rows"])
    with pytest.raises(TypeError, match=r"The list rows .*Python lists"):
        runtime.function(fn)(np.ones(2, f32), np.int64(2))


def test_unnamed_list_gets_its_position():
    def fn(x, n):
        def body(i, acc):
            return i + 1, (_append(acc[0], None),)
        return while_loop(lambda i, acc: i < n, body, (0, ([],)))
    with pytest.raises(TypeError, match=r"The list loop_vars\[1\]\[0\] .*None"):
        runtime.function(fn)(np.ones(2, f32), np.int64(2))


def test_dtype_mismatch_names_the_variable():
    def fn(x, n):
        def body(i, xs):
            return i + 1, _append(xs, x[0])
        return while_loop(lambda i, xs: i < n, body, (0, [np.int64(1)]), names=["i", "xs"])
    with pytest.raises(TypeError, match=r"The list xs .*int64\[\] and float32\[\]"):
        runtime.function(fn)(np.ones(2, f32), np.int64(2))


# -- how many times a body is traced --------------------------------------------------------
def _traces(body, init):
    # counted by an iterator: a list appended to while tracing would be Python state
    # the function writes, and every call would append to it as Python does
    calls = itertools.count()

    def fn(x, n):
        def counted(*s):
            next(calls)
            return body(x, *s)
        return while_loop(lambda i, *s: i < n, counted, init)
    runtime.function(fn).get_concrete_function(np.ones(2, f32), np.int64(3))
    return next(calls)


@pytest.mark.parametrize("body,init,expected", [
    # a list kept at its length: one trace (no scratch probe)
    (lambda x, i, ys: (i + 1, [ys[0] + x]), (np.int64(0), [np.zeros(2, f32)]), 1),
    # a list appended to: one trace learns it grows, the second is the loop's
    (lambda x, i, xs: (i + 1, _append(xs, x)), (np.int64(0), []), 2),
])
def test_body_traced_the_minimum_number_of_times(body, init, expected):
    assert _traces(body, init) == expected


def test_appended_list_under_gradient_tape():
    """A loop traced to save its states for a gradient: a list it grows still works."""
    def fn(x, n):
        with GradientTape() as tape:
            tape.watch(x)

            def body(i, xs, s):
                return i + 1, _append(xs, s), s * x
            _, xs, s = while_loop(lambda i, xs, s: i < n, body, (0, [], x))
            total = np.sum(s)
        return list_stack(xs), tape.gradient(total, x)
    f = runtime.function(fn)
    x = np.array([1.5, 2.0], f32)
    rows, grad = f(x, np.int64(3))
    np.testing.assert_allclose(rows, np.stack([x, x * x, x ** 3]))
    np.testing.assert_allclose(grad, 4 * x ** 3, rtol=1e-6)
