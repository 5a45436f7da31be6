"""A 0-d value is a NumPy scalar or a 0-d array, and NumPy keeps the two apart:
`np.asarray(np.sum(a))` is a 0-d array, `np.sum(a).copy()` a scalar, `np.asarray` of a
0-d array that array itself. Eager NumPy against ag.function (optimized or not, and with
jit_compile=True), with the kind checked by `assert_same`; and the writes through
`np.asarray` of a 0-d value, which reach the value only when it is an array."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import autograph as ag
from tests.helpers import assert_same


def asarray_of_a_sum(a):
    return np.asarray(np.sum(a))


def asanyarray_of_a_mean(a):
    return np.asanyarray(np.mean(a)) * 2


def array_without_copy(a):
    return np.array(np.max(a), copy=None), np.array(np.min(a), copy=True)


def asarray_of_an_element(a):
    return np.asarray(a[1])


def copy_of_a_scalar(a):
    s = np.sum(a)
    return s.copy(), s.copy() + 1


def copy_of_a_zero_d_array(a):
    z = np.zeros(()) + 0  # a scalar: adding to a 0-d array gives one
    w = np.full((), 2.0)
    return z.copy(), w.copy(), np.asarray(w)


def asarray_with_a_dtype(a):
    return np.asarray(np.sum(a), dtype=np.float32), np.asarray(a[0], dtype=a.dtype)


def write_through_asarray_of_an_array(a):
    s = np.zeros(())
    t = np.asarray(s)
    t[()] = a[2]
    return s, t


def write_through_asarray_of_a_scalar(a):
    s = np.sum(a)
    t = np.asarray(s)
    t[()] = 5
    return s, t


def write_into_a_copy_of_a_zero_d_array(a):
    z = np.zeros(())
    c = z.copy()
    c[()] = a[0]
    return z, c


CASES = [asarray_of_a_sum, asanyarray_of_a_mean, array_without_copy, asarray_of_an_element,
         copy_of_a_scalar, copy_of_a_zero_d_array, asarray_with_a_dtype,
         write_through_asarray_of_an_array, write_through_asarray_of_a_scalar,
         write_into_a_copy_of_a_zero_d_array]


@pytest.mark.parametrize("fn", CASES, ids=[f.__name__ for f in CASES])
@pytest.mark.parametrize("options", [{}, {"optimize": False}, {"jit_compile": True}],
                         ids=["optimized", "unoptimized", "jit"])
def test_zero_d_results_keep_numpys_kind(fn, options):
    a = np.array([1.0, -2.0, 4.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ag.JitFallbackWarning)
        got = ag.function(fn, **options)(a.copy())
    assert_same(got, fn(a.copy()))


def gradient_through_zero_d_kinds(x):
    with ag.GradientTape() as tape:
        x = tape.watch(x)
        loss = np.asarray(np.sum(x * x)) + np.sum(x).copy()
    return tape.gradient(loss, x)


def test_gradient_flows_through_asarray_and_copy_of_zero_d_values():
    x = np.array([1.0, 2.0, 3.0])
    # (in a graph, as before these ops: an eager tape's value handed to np.asarray leaves
    # the tape, README "GradientTape")
    np.testing.assert_allclose(ag.function(gradient_through_zero_d_kinds)(x), 2 * x + 1)


def argument_written_through_asarray(s):
    t = np.asarray(s)
    t[()] = 7.0
    return s


def test_write_through_asarray_of_an_argument_of_unknown_kind_is_refused_not_guessed():
    """A 0-d argument may be either kind when the graph runs: NumPy writes into it only
    when it is an array, so the write is refused with the fix rather than guessed."""
    with pytest.raises(ValueError, match="0-d array .not a NumPy scalar."):
        ag.function(argument_written_through_asarray)(np.array(1.0))
