"""Calls whose meaning on symbolic values must be NumPy's and Python's: np.array /
np.asarray of symbolic values (a copy and an alias, as in NumPy), builtin sum's dtype,
and a symbolic `if` choosing between two functions (a clear error, not a Tensor)."""
from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
from tests.helpers import assert_same


def array_copies_asarray_aliases(x):
    y = np.array(x)
    y[0] = 5.0
    z = np.asarray(x)
    rows = np.array([x[0], x[1] * 2])
    return x + 0, y, z is x, rows, np.asarray(x, dtype=np.float32)


def asarray_through_a_variable(x):
    make = np.asarray
    return make(x) * 2


def copy_flags(x):
    return np.asarray(x, copy=True), np.array(x, copy=False), np.asarray(x), np.array(x)


def test_copies_are_new_arrays_and_aliases_are_the_argument():
    x = np.arange(3.0)
    graph = ag.function(copy_flags)
    for _ in range(2):  # traced, then cached
        results = graph(x)
        assert [r is x for r in results] == [r is x for r in copy_flags(x)]
        results[0][0] = 7.0  # a copy: the argument (and the next call) do not see it
        assert x[0] == 0.0 and graph(x)[0][0] == 0.0


def test_array_constructors_of_symbolic_values_are_numpys():
    for fn in (array_copies_asarray_aliases, asarray_through_a_variable):
        x = np.arange(3.0)
        assert_same(ag.function(fn)(x.copy()), fn(x.copy()))


def builtin_sum(x, start):
    return sum(x), sum(x, start)


@pytest.mark.parametrize("dtype", ["int32", "int8", "uint8", "bool", "float32", "float64"])
@pytest.mark.parametrize("start", [0, 1.5, np.int16(3)], ids=["int", "float", "int16"])
def test_builtin_sum_has_pythons_dtype(dtype, start):
    x = np.array([1, 0, 1], dtype)
    with np.errstate(over="ignore"):
        assert_same(ag.function(builtin_sum)(x, start), builtin_sum(x, start))


def choose_function(x, k):
    if x > 0:
        def g(v):
            return v + k
    else:
        def g(v):
            return v - k
    return g(x)


def test_symbolic_if_choosing_between_functions_is_a_clear_error():
    assert choose_function(np.float64(1.0), 2) == 3.0
    with pytest.raises(TypeError) as info:
        ag.function(choose_function)(np.float64(1.0), 2)
    msg = str(info.value)
    assert "'g' is a function" in msg and "symbolic `if`" in msg and "np.where" in msg
    line = choose_function.__code__.co_firstlineno + 1
    assert f"test_fidelity_calls.py:{line}" in msg
