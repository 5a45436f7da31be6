"""Variables first assigned inside a symbolic loop and read after it (accepted with a
run-time check that the loop ran, as tf.function does), and the "decorate the whole
training loop" pattern: a `with GradientTape() as tape:` inside a symbolic loop, whose
`tape` is not a loop variable. Graph vs the original Python on the same inputs: value,
dtype and shape, or exception type and message."""
from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
from autograph.errors import Diagnostic
from tests.helpers import assert_same


def last_of_range(x, n):
    for i in range(n):
        v = x[i] * 2  # (an int index, not the value: NumPy would promote a Python int)
    return v


def last_of_while(x, n):
    i = np.int64(0)
    while i < n:
        last = x + i
        i += 1
    return last, i


def last_row(x):
    for row in x:
        doubled = row * 2
    return doubled


def with_break(x, n):
    for i in range(n):
        v = x[i]
        if v > 2:
            break
    return v


def two_first_assigned(x, n):
    k = np.int64(0)
    while k < n:
        a = x * k
        b = np.sum(a)
        k += 1
    return a, b


f32 = np.float32
CASES = [
    (last_of_range, [(np.arange(4, dtype=f32), np.int64(4)), (np.ones(4, f32), np.int64(0))]),
    (last_of_while, [(f32(1), np.int64(3)), (f32(1), np.int64(0))]),
    (last_row, [(np.arange(6, dtype=f32).reshape(2, 3),)]),  # 0 rows: see the report
    (with_break, [(np.array([1, 3, 5], f32), np.int64(3)), (np.array([1, 2, 2], f32), np.int64(3)),
                  (np.array([1, 2, 3], f32), np.int64(0))]),
    (two_first_assigned, [(np.ones(2, f32), np.int64(3)), (np.ones(2, f32), np.int64(0))]),
]


def assigned_on_one_path(x, n):
    for i in range(n):
        if i == 2:
            v = x
    return v


# bound on some iterations' paths only: carried with whether it is bound, and the read
# raises Python's UnboundLocalError when the graph took no path that bound it
CASES.append((assigned_on_one_path, [(f32(1), np.int64(3)), (f32(2), np.int64(2)),
                                     (f32(3), np.int64(5)), (f32(4), np.int64(0))]))


def _outcome(fn, args):
    try:
        return fn(*args), None
    except Exception as e:  # noqa: BLE001 - the exception is what is compared
        return None, (type(e), str(e))


@pytest.mark.parametrize("fn,inputs", CASES, ids=[f.__name__ for f, _ in CASES])
def test_first_assigned_in_symbolic_loop(fn, inputs):
    f = ag.function(fn)
    for args in inputs:
        expected, error = _outcome(fn, args)
        actual, got = _outcome(f, args)
        assert got == error, args
        if error is None:
            assert_same(actual, expected)
    assert f.tracing_count == 1  # one trace serves the zero-iteration call too


def test_zero_iterations_error_names_the_variable_and_the_reading_line():
    # (Python's error where Python raises it: at the read after the loop)
    f = ag.function(last_of_while)
    with pytest.raises(UnboundLocalError) as info:
        f(f32(1), np.int64(0))
    assert "'last'" in str(info.value)
    notes = " ".join(info.value.__notes__)
    line = last_of_while.__code__.co_firstlineno + 5
    assert f"{last_of_while.__code__.co_filename}:{line}" in notes


def only_read_by_later_iterations(x, n):
    t = 0.0
    for i in range(n):
        if i > 0:
            t = t + v  # noqa: F821 - bound by the previous iteration
        v = x[i]  # noqa: F841 - read by the next iteration
    return t


def test_a_variable_only_later_iterations_read_is_never_an_error_python_does_not_raise():
    # (the graph raised UnboundLocalError at the loop for n == 0, where Python returns
    # 0.0.) The read in the first trace of the body cannot be replayed (the loop traces
    # the body again with zeros for it): the loop's Diagnostic, as for any read before
    # the body assigns the variable, or Python's results
    x = np.array([1.0, -2.0, 3.0])
    for jit in (False, True):
        f = ag.function(only_read_by_later_iterations, jit_compile=jit)
        for n in (np.int64(3), np.int64(0), np.int64(1)):
            try:
                got = f(x, n)
            except Diagnostic as e:
                assert "'v' is first assigned inside this symbolic loop" in str(e)
                continue
            assert got == only_read_by_later_iterations(x, n)
