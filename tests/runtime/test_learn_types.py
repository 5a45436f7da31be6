"""What runtime.while_loop / runtime.cond learn by tracing, used directly (no autograph):
the dtype a Python-number loop variable takes, dimensions an iteration changes, and
the type of a "no value yet" placeholder. Graph vs the same code run as Python (the
runtime runs it as Python when the condition is a Python value), error messages naming
the variable, and how many times a body is traced."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import runtime
from runtime import cond, while_loop
from runtime.control_flow.learn_types import UntypedLoopVariable
from tests.helpers import assert_same, check_three_ways

f32, i32, i8 = np.float32, np.int32, np.int8


class NoValue:
    """A caller's own "no value yet" marker (autograph's UNSET is one)."""

    graph_placeholder = True


class MustAssign:
    """A marker the loop body must replace by an array or a number."""

    graph_placeholder = True
    graph_placeholder_needs_value = True


# -- Python numbers as loop variables ------------------------------------------------------
def count_to(n):
    return while_loop(lambda i: i < n, lambda i: (i + n,), (0,))[0]


def sum_from_zero(x, n):
    def body(i, s):
        return i + 1, s + x[i]
    return while_loop(lambda i, s: i < n, body, (0, 0.0))


def weak_counter_scales(x, n):
    # `i` stays a Python int, so `x * i` stays float32 as in NumPy (NEP 50)
    def body(i, y):
        return i + 1, x * i
    return while_loop(lambda i, y: i < n, body, (0, np.zeros(2, f32)))


def typed_in_a_later_iteration(n, k):
    def body(i, r, s):
        return i + 1, r + s, s + k  # `s` int32 after one iteration, `r` after two
    return while_loop(lambda i, r, s: i < n, body, (0, 0, 0))


def widened_later(a, k):
    def body(j, u, r):
        return j + 1, u + k + r, r + a[j]  # `u` int8, then int64 once `r` is int64
    return while_loop(lambda j, u, r: j < a.shape[0], body, (np.int64(0), 0, 0))


def halved(n):
    return while_loop(lambda i, h: i < n, lambda i, h: (i + 1, h / 2), (0, 1))


CASES = [
    (count_to, (i32(3),)),
    (count_to, (i8(5),)),
    (sum_from_zero, (np.arange(4, dtype=f32), np.int64(3))),
    (sum_from_zero, (np.arange(4, dtype=i32), np.int64(0))),
    (weak_counter_scales, (np.ones(2, f32), np.int64(3))),
    (typed_in_a_later_iteration, (np.int64(3), i32(2))),
    (typed_in_a_later_iteration, (np.int64(1), i8(2))),
    (widened_later, (np.array([1, 2, 3], np.int64), i8(5))),
    (halved, (np.int64(3),)),
]


@pytest.mark.parametrize("fn,args", CASES, ids=[f"{f.__name__}-{k}" for k, (f, _) in
                                                   enumerate(CASES)])
def test_number_loop_variables_match_python(fn, args):
    # a Python number that a loop makes typed on later iterations only comes back as a
    # NumPy value after fewer iterations too (docs/sharp_bits.md): value, dtype checked
    check_three_ways(fn, *args)


def test_python_int_counter_with_an_int32_bound_is_int32():
    out = runtime.function(count_to)(i32(3))
    assert_same(out, count_to(i32(3)))
    assert np.asarray(out).dtype == np.int32


# -- dimensions an iteration changes ------------------------------------------------------
def grow(x, n):
    def body(i, v):
        return i + 1, np.append(v, x[i])
    return while_loop(lambda i, v: i < n, body, (np.int64(0), np.zeros(0, f32)))


@pytest.mark.parametrize("n", [0, 1, 3])
def test_growing_loop_variable_relaxes_to_unknown(n):
    x = np.arange(4, dtype=f32)
    check_three_ways(grow, x, np.int64(n))
    cf = runtime.function(grow).get_concrete_function(x, np.int64(n))
    assert cf.graph.nodes[-1].outputs[1].static_shape == (None,)


def test_shape_invariant_that_does_not_fit_names_the_variable():
    def fn(x, n):
        return while_loop(lambda i, v: i < n, lambda i, v: (i + 1, np.append(v, v)),
                          (np.int64(0), x), names=["i", "v"], shape_invariants=[None, (2,)])
    with pytest.raises(ValueError, match=r"Loop variable v has shape \[2\] before the loop but \[4\]"):
        runtime.function(fn)(np.ones(2, f32), np.int64(2))


def test_dtype_change_names_the_variable_inside_a_structure():
    def fn(x, n):
        def body(i, d):
            # (a narrowing: a widening NumPy does, float32 -> float64, is learned)
            return i + 1, {"a": d["a"].astype(np.float32), "b": d["b"]}
        return while_loop(lambda i, d: i < n, body, (np.int64(0), {"a": x, "b": x}),
                          names=["i", "d"])
    with pytest.raises(TypeError, match=r"Loop variable d\['a'\] has dtype float64"):
        runtime.function(fn)(np.ones(2), np.int64(2))


# -- "no value yet" placeholders ---------------------------------------------------------
def last_doubled(x, n):
    def body(i, v):
        return i + 1, x[i] * 2
    return while_loop(lambda i, v: i < n, body, (np.int64(0), MustAssign()))


def last_pair(x, n):
    def body(i, v):
        return i + 1, (x[i], x[: i + 1].sum())
    return while_loop(lambda i, v: i < n, body, (np.int64(0), NoValue()))


def first_big(x, n):
    # a return value set on one path only: `cond` fills the other side from this one
    def body(i, found, value):
        big = x[i] > 2
        value = cond(np.logical_and(big, np.logical_not(found)), lambda: x[i], lambda: value)
        return i + 1, found | big, value
    return while_loop(lambda i, found, value: i < n, body, (np.int64(0), False, NoValue()))


def previous_value(x, n):
    # `b` gets a value only in the trace after `a` got one: two placeholders, learned in turn
    def body(i, a, b):
        return i + 1, x[i] * 2, a
    return while_loop(lambda i, a, b: i < n, body, (np.int64(0), NoValue(), NoValue()))


@pytest.mark.parametrize("fn,n", [(last_doubled, 1), (last_doubled, 4), (last_pair, 1),
                                  (last_pair, 4), (first_big, 4), (previous_value, 2),
                                  (previous_value, 4)])
def test_placeholder_takes_the_type_the_body_gives(fn, n):
    # (with no iteration, or none that sets it, Python keeps the marker, the graph zeros
    # of the learned type: a caller reads it only where it was set, as autograph does)
    x = np.arange(4, dtype=f32)
    check_three_ways(fn, x, np.int64(n))


def test_placeholder_the_body_passes_on_stays_a_python_value():
    marker = NoValue()

    def fn(x, n):
        return while_loop(lambda i, v: i < n, lambda i, v: (i + 1, v), (np.int64(0), marker))
    i, v = runtime.function(fn)(np.ones(2), np.int64(3))
    assert v is marker and i == 3


def test_placeholder_that_needs_a_value_and_is_never_assigned_stays_as_it_is():
    # (no path of the body assigns the variable: it is not carried, as in Python it
    # stays unbound)
    marker = MustAssign()

    def fn(x, n):
        return while_loop(lambda i, v: i < n, lambda i, v: (i + 1, MustAssign()),
                          (np.int64(0), marker), names=["i", "last"])
    i, v = runtime.function(fn)(np.ones(2), np.int64(3))
    assert type(v) is MustAssign and i == 3


@pytest.mark.parametrize("body_value", ["another object", "a string"])
def test_placeholder_that_needs_a_value_and_gets_none_names_the_variable(body_value):
    def fn(x, n):
        def body(i, v):
            return i + 1, NoValue() if body_value == "another object" else "text"
        return while_loop(lambda i, v: i < n, body, (np.int64(0), MustAssign()),
                          names=["i", "last"])
    with pytest.raises(UntypedLoopVariable) as info:
        runtime.function(fn)(np.ones(2), np.int64(3))
    assert info.value.label == "last"
    assert "Loop variable last has no value before the loop" in str(info.value)
    assert "initial value" in str(info.value)


def test_cond_placeholder_takes_the_other_branch_structure():
    def fn(x):
        return cond(np.sum(x) > 0, lambda: (x, {"n": x.sum()}), lambda: NoValue())
    x = np.arange(3, dtype=f32)
    check_three_ways(fn, x)
    out = runtime.function(fn)(-x)  # the placeholder side: zeros of that type (a value
    # converted code never reads: its kind, NumPy scalar or 0-d array, is not carried)
    assert_same((out[0], {"n": np.asarray(out[1]["n"])}),
                (np.zeros(3, f32), {"n": np.zeros((), f32)}))


def test_cond_placeholder_against_a_python_number_stays_a_number():
    def fn(x):
        k = cond(np.sum(x) > 0, lambda: 3, lambda: NoValue())
        return x * k  # a Python number's dtype yields to float32 (NEP 50)
    x = np.ones(2, f32)
    check_three_ways(fn, x)
    assert runtime.function(fn)(-x).dtype == np.float32


def test_cond_placeholder_on_both_sides_stays_the_placeholder():
    marker = NoValue()

    def fn(x):
        return cond(np.sum(x) > 0, lambda: (x, marker), lambda: (-x, marker))
    out = runtime.function(fn)(np.ones(2))
    assert out[1] is marker
    assert_same(out[0], np.ones(2))


def test_cond_placeholder_against_none_is_none():
    def fn(x):
        return cond(np.sum(x) > 0, lambda: NoValue(), lambda: None)
    assert runtime.function(fn)(np.ones(2)) is None


# -- how many times a body is traced -------------------------------------------------------
def _traces(make_body, init, *args):
    # counted by an iterator: a list appended to while tracing would be Python state
    # the function writes, and every call would append to it as Python does
    calls = itertools.count()

    def fn(*a):
        body = make_body(*a)

        def counted(*s):
            next(calls)
            return body(*s)
        return while_loop(lambda i, *s: i < a[-1], counted, init)
    runtime.function(fn).get_concrete_function(*args)
    return next(calls)


@pytest.mark.parametrize("make_body,init,expected", [
    # a counter the body keeps a Python number: one trace
    (lambda x, n: (lambda i: (i + 1,)), (0,), 1),
    # a number the body types: one trace to learn it, the second is the loop's
    (lambda x, n: (lambda i, s: (i + 1, s + x[i])), (0, 0.0), 2),
    # a typed loop whose shapes hold: one trace
    (lambda x, n: (lambda i, s: (i + 1, s * 2)), (np.int64(0), np.ones(2, f32)), 1),
    # a placeholder and a number typed by the same trace: two
    (lambda x, n: (lambda i, s, v: (i + 1, s + x[i], x[i])), (0, 0.0, NoValue()), 2),
])
def test_body_traced_the_minimum_number_of_times(make_body, init, expected):
    assert _traces(make_body, init, np.arange(4, dtype=f32), np.int64(3)) == expected
