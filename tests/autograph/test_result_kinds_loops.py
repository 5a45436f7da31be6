"""What Python holds after a symbolic loop, and after arithmetic on values whose kind
depends on the path: a Python number a loop starts from stays one after no iteration
(`total = 0`), becomes the NumPy value the body makes after one, and `r + 1` of such a
value is what Python computes on the path taken. Python's operators on Python numbers
give Python numbers; NumPy's functions give NumPy scalars (`np.sqrt(n)` of a counter).
Items of a list a symbolic loop appends Python numbers to read back as Python numbers.

Checked strictly (type, dtype, value) against the plain Python function, through
ag.function, optimize=False, jit_compile=True and save/load, with one trace serving every
trip count (runtime/control_flow/path_kinds.py)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import autograph as ag

from tests.autograph.test_result_kinds_by_path import exactly
from tests.helpers import assert_same_outcome, outcome


def accumulate(x, n):
    total = 0
    i = 0
    while i < n:
        total = total + x[i]
        i += 1
    return total


def keep_last_positive(x, n):
    r = 0
    for v in x[:n]:
        if v > 0:
            r = v
    return r


def grow_by_a_float(x, n):
    h = 1
    while h < n:
        h = h * 2.5
    return h


def flag_set_in_a_branch(x, n):
    found = False
    for v in x[:n]:
        if v > 0:
            found = True
    return found


def typed_in_a_later_iteration(x, n):
    i, r, s = 0, 0, 0
    while i < n:
        r = r + s  # a NumPy value from the second iteration on
        s = s + x.astype(np.int32)[0]
        i += 1
    return r, s


def nested_loops(x, n):
    t = 0
    i = 0
    while i < n:
        j = 0
        while j < n:
            t = t + x[j]
            j += 1
        i += 1
    return t


def counted_then_divided(x, n):
    c = 0
    for v in x[:n]:
        if v > 0.5:
            c = c + 1
    return c / 2, c // 2, c % 2, -c, c > 1, abs(c - 2)


def path_result_used_further(x, n):
    if x[0] > n:
        r = x[0] * 2
    else:
        r = 0
    return r + 1, r * 2.5, r / 4, r > 0, -r, 1 - r


def numpy_functions_of_python_numbers(x, n):
    i = 0
    while i < n:
        i += 1
    return np.sqrt(i), np.add(i, 1), np.maximum(i, 2), i + 1, float(i) / 2


def list_of_counters(x, n):
    xs = [0]
    for i in range(n):
        xs.append(i * 2)
    return len(xs), sum(xs), xs[-1], xs[0]


def list_of_flags(x, n):
    flags = [True]
    i = 0
    while i < n:
        flags.append(i % 2 == 0)
        i += 1
    return flags[-1], sum(flags)


def max_and_min_of_counters(x, n):
    c = 0
    for v in x[:n]:
        if v > 0:
            c = c + 1
    return max(c, 1), min(c, 1), max(c, 2, 0), abs(c - 2)


def folded_early_return(x, n):
    # every branch is decided while tracing (c - c is 0): the folded result keeps the
    # Python int a path gives
    c = n
    for _ in (0, 3):
        if 1.0 < (c - c):
            return c, (c * -3) % 1009
    return (c - c) % 1009, -1 % 7


PROGRAMS = [folded_early_return, accumulate, keep_last_positive, grow_by_a_float, flag_set_in_a_branch,
            typed_in_a_later_iteration, nested_loops, counted_then_divided,
            path_result_used_further, numpy_functions_of_python_numbers, list_of_counters,
            list_of_flags, max_and_min_of_counters]
X = np.array([3.0, -1.0, 2.0, 0.25], np.float64)
COUNTS = [np.int64(0), np.int64(1), np.int64(3), np.int64(2)]
MODES = {"graph": {}, "unoptimized": {"optimize": False}, "jit": {"jit_compile": True}}


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("fn", PROGRAMS, ids=lambda f: f.__name__)
def test_every_trip_count_returns_what_python_returns(fn, mode):
    f = ag.function(fn, **MODES[mode])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ag.JitFallbackWarning)
        for n in COUNTS:
            exactly(f(X, n), fn(X, n))
            exactly(f(-X, n), fn(-X, n))
    assert len(f._cache) == 1  # one trace for every count and path


@pytest.mark.parametrize("fn", [accumulate, keep_last_positive, counted_then_divided,
                                path_result_used_further], ids=lambda f: f.__name__)
def test_saved_and_loaded_functions_keep_the_kinds(fn, tmp_path):
    f = ag.function(fn)
    f(X, COUNTS[0])
    ag.save(f, tmp_path / "f.agz")
    loaded = ag.load(tmp_path / "f.agz")
    for n in COUNTS:
        exactly(loaded(X, n), fn(X, n))


def test_a_kind_carried_by_a_loop_is_loop_state():
    # the code and the number are two more loop variables; the loop still runs once
    cf = ag.function(accumulate).get_concrete_function(X, COUNTS[0])
    loops = [n for n in cf.graph.nodes if n.op.name == "while_loop"]
    assert len(loops) == 1 and [o.dtype for o in loops[0].outputs[-2:]] == [
        np.dtype(np.int8), np.dtype(np.int64)]
    assert "path_result" in cf.python_code


def test_gradients_flow_through_a_loop_that_carries_a_kind():
    def loss(w, n):
        total = 0
        i = 0
        while i < n:
            total = total + w[i] * w[i]
            i += 1
        return total

    w = ag.Variable(np.array([1.5, -2.0, 0.5]))

    @ag.function
    def grad(n):
        with ag.GradientTape() as tape:
            y = loss(w, n)
        return tape.gradient(y, w)

    np.testing.assert_allclose(grad(np.int64(2)), [3.0, -4.0, 0.0])


def swapped_kinds_reach_a_first_assigned_variable(x, n):
    # `last` has no value before the loop; it takes v's kind, which a path decides, and
    # v's kind comes from y's: each is found in another trace of the body (fuzz seed 930
    # of partly_bound: np.float64 where Python holds 1.5)
    u = 1.5
    v = 1.5
    y = x[0] * 0.0
    for e in x[:n]:
        u, y = y, u
        if -2 < u <= 0:
            v, y = y, v
        elif e > -10:
            last = v
    return y, u, last


@pytest.mark.parametrize("mode", sorted(MODES))
def test_a_kind_reaches_a_variable_first_assigned_in_the_loop(mode):
    f = ag.function(swapped_kinds_reach_a_first_assigned_variable, **MODES[mode])
    fn = swapped_kinds_reach_a_first_assigned_variable
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ag.JitFallbackWarning)
        for n in COUNTS + [np.int64(4)]:
            for x in (X, -X, X * 0.0 - 1.5):
                assert_same_outcome(outcome(f, (x, n), exact_type=True),
                                    outcome(fn, (x, n), exact_type=True), (x, n))
