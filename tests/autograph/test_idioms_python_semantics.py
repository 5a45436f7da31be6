"""Python semantics on NumPy values, from PaddlePaddle's dygraph-to-static tests ported
to NumPy: `or` / `and` of shape-[1] arrays, a loop accumulator whose dtype NumPy widens,
sizes from a symbolic 1-element array, result types that follow each call, `len()` as a
Python int. Eager Python vs ag.function vs jit_compile=True: values, dtype, shape,
result type (and the same exception type where eager raises)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import autograph as ag


def _outcome(fn, args):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(*args)
    except Exception as e:  # noqa: BLE001 - compared with the other path's
        return e


def _same(got, want):
    if isinstance(want, BaseException):
        assert isinstance(got, BaseException), got
        assert isinstance(got, type(want).__mro__[1] if type(want).__module__.startswith(
            "numpy") else type(want)), (got, want)
        return
    if isinstance(want, tuple):
        assert type(got) is tuple and len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w)
        return
    assert type(got) is type(want), (got, want)
    assert np.asarray(got).dtype == np.asarray(want).dtype, (got, want)
    assert np.shape(got) == np.shape(want)
    np.testing.assert_array_equal(got, want)


def three_way(fn, *args):
    want = _outcome(fn, args)
    for jit in (False, True):
        _same(_outcome(ag.function(fn, jit_compile=jit), args), want)


# -- `or` / `and` of size-1 arrays: Python's truthiness, the operand as the value ----------
def or_in_if(x):
    if x < 10 or x > 1:
        return x + 1
    return x - 1


def or_value(x):
    return x < 10 or x > 1


def and_value(x):
    return x > 1 and x < 10


def not_and_or(x):
    return not (x > 5), not (x < 0 or x > 2)


@pytest.mark.parametrize("fn", [or_in_if, or_value, and_value, not_and_or])
@pytest.mark.parametrize("x", [np.array([3]), np.array([30]), np.array([-4.0]),
                               np.array([1, 2])])  # the last: ambiguous, ValueError
def test_logical_operators_on_size_one_arrays(fn, x):
    three_way(fn, x)


# -- a loop accumulator that NumPy widens --------------------------------------------------
def widened_in_range_loop(x, n):
    z = np.full([1], 0, "int32")
    for i in range(n):
        z = z + x[i]
    return z


def widened_in_for_loop(x):
    z = np.full([1], 0, "int32")
    for v in x:
        z = z + v
    return z


def widened_to_float(x, n):
    z = np.zeros(2, np.int64)
    i = 0
    while i < n:
        z = z * 2 + x[i]
        i += 1
    return z, i


@pytest.mark.parametrize("fn, args", [
    (widened_in_range_loop, (np.arange(3, dtype=np.int64), np.int64(3))),
    (widened_in_for_loop, (np.arange(4, dtype=np.int64),)),
    (widened_in_for_loop, (np.arange(4.0),)),
    (widened_to_float, (np.arange(3.0), np.int64(3))),
])
def test_loop_accumulator_takes_the_promoted_dtype(fn, args):
    three_way(fn, *args)


def test_a_narrowing_loop_variable_is_still_refused():
    def narrowed(x, n):
        z = np.zeros(2)
        for i in range(n):
            z = (z + x[i]).astype(np.int32)
        return z

    with pytest.raises(TypeError, match="Loop variable z has dtype float64"):
        ag.function(narrowed)(np.arange(3.0), np.int64(2))


# -- sizes read from a symbolic 1-element (or any static-length 1-D) array ---------------
@pytest.mark.parametrize("fn, args", [
    (lambda t: np.ones(t), (np.array([3]),)),
    (lambda t: np.zeros(t, np.int32), (np.array([2, 3]),)),
    (lambda t: np.full(t, 7.0), (np.array([0]),)),
    (lambda x, t: x.reshape(t), (np.arange(6.0), np.array([3, 2]))),
    (lambda t: np.ones(t), (np.array([-1]),)),   # ValueError, as NumPy
])
def test_sizes_from_a_symbolic_array(fn, args):
    three_way(fn, *args)


def test_sizes_from_an_array_of_unknown_length_are_refused_clearly():
    f = ag.function(lambda t: np.ones(t), input_signature=[ag.TensorSpec((None,), np.int64)])
    with pytest.raises(TypeError, match="number of dimensions must be known"):
        f(np.array([3]))


# -- result types follow NumPy on every call ------------------------------------------------
def scalar_or_array(x):
    if x[0] > 0:
        return np.int64(2)
    return np.array(-1)


def count_unique(x):
    return len(np.unique(x))


def counter_of_a_symbolic_loop(x):
    i = 0
    while i < len(x) and x[i] > 0:
        i += 1
    return i


@pytest.mark.parametrize("fn, x", [
    (scalar_or_array, np.array([-1])),
    (count_unique, np.array([1, 2, 2])), (count_unique, np.array([], np.int64)),
    (counter_of_a_symbolic_loop, np.array([3.0, 1.0, -2.0, 4.0])),
])
def test_result_types_follow_python_and_numpy(fn, x):
    three_way(fn, x)


def test_augmented_assignment_across_dtypes_names_the_operator():
    def accumulate(x):
        acc = np.zeros(3, np.int32)
        acc += x
        return acc

    with pytest.raises(TypeError) as eager:
        accumulate(np.ones(3))
    with pytest.raises(TypeError, match=r"`\+=`.*x = x \+ y") as graph:
        ag.function(accumulate)(np.ones(3))
    assert "same_kind" in str(eager.value) and "same_kind" in str(graph.value)
