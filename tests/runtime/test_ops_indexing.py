"""Differential tests of `tensor[index]`: ints, slices, None, ..., integer arrays, masks,
and indices / slice bounds that are themselves symbolic (another argument).

Besides value/dtype/shape equality with eager NumPy, conftest's checker asserts that
each node's static shape fits the real one: an axis whose length depends on a run-time
value (symbolic slice bound, boolean mask) must be None, never a wrong number.
"""
from __future__ import annotations

import numpy as np
import pytest

import runtime

DTYPES = ["float32", "int64", "bool"]

STATIC_INDICES = {
    "int": 1, "neg_int": -1, "np_int": np.int64(2), "out_of_range": 7,
    "slice": slice(1, None), "slice_stop": slice(None, 2), "neg_slice": slice(-2, None),
    "step": slice(None, None, 2), "neg_step": slice(None, None, -1),
    "start_stop_step": slice(3, 0, -2), "empty_slice": slice(2, 1),
    "big_slice": slice(-100, 100), "tuple_int_slice": (1, slice(None, 2)),
    "two_ints": (0, -1), "three_ints": (1, 2, 3), "newaxis": None,
    "newaxis_mid": (slice(None), None), "ellipsis": Ellipsis,
    "ellipsis_int": (Ellipsis, 0), "int_ellipsis_newaxis": (0, Ellipsis, None),
    "empty_tuple": (), "too_many": (0, 0, 0, 0),
    "int_array": np.array([2, 0, -1]), "int_list": [0, 2],
    "int_array_2d": np.array([[0, 1], [2, 2]]), "int_array_axis1": (slice(None), [0, 2]),
    "arrays_broadcast": (np.array([[0], [2]]), np.array([1, 3])),
    "arrays_adjacent": (slice(None), np.array([0, 2]), np.array([1, 1])),
    "arrays_split": (np.array([0, 1]), slice(None), np.array([3, 0])),
    "array_int_split": (np.array([0, 2]), slice(1, 3), 1),
    "array_then_newaxis": (np.array([1]), None, slice(None)),
    "bool_mask_const": np.array([True, False, True]),
    "bool_mask_2d_const": np.array([[True, False, True, True]] * 3),
    "bad_index_array": np.array([5]),
    "empty_list": [], "empty_list_then_int": ([], 0), "int_then_empty_list": (0, []),
    "nested_empty_lists": [[], []],
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", list(STATIC_INDICES))
def test_static_index(check, arr, name, dtype):
    index = STATIC_INDICES[name]
    check(lambda x: x[index], arr((3, 4, 5), dtype))


@pytest.mark.parametrize("index", [(), Ellipsis, None, (None, Ellipsis)], ids=str)
def test_index_0d(check, arr, index):
    check(lambda x: x[index], arr((), "float64"))
    check(lambda x: x[0], arr((), "float64"))  # IndexError like NumPy


def test_scalar_result_is_a_numpy_scalar(check, arr):
    check(lambda x: x[1, 2], arr((2, 3), "float32"))
    check(lambda x: x[0][1] * 2, arr((2, 3), "int32"))


SYMBOLIC_INDICES = {
    "int": (lambda x, i: x[i], np.int64(-2)),
    "int32_then_slice": (lambda x, i: x[i, 1:], np.int32(1)),
    "int_array": (lambda x, i: x[i], np.array([2, 0, 2])),
    "int_array_axis1": (lambda x, i: x[:, i], np.array([[0], [3]])),
    "int_array_out_of_range": (lambda x, i: x[i], np.array([9])),
    "two_arrays": (lambda x, i: x[i, i + 1], np.array([0, 1])),
    "mask": (lambda x, m: x[m], np.array([True, False, True])),
    "mask_2d": (lambda x, m: x[m], np.array([[True, False, True, False]] * 3)),
    "mask_then_slice": (lambda x, m: x[m, 1:3], np.array([False, True, True])),
    "mask_axis1": (lambda x, m: x[:, m], np.array([True, False, False, True])),
    "mask_bad_length": (lambda x, m: x[m], np.array([True, False])),
    "stop": (lambda x, n: x[:n], np.int64(2)),
    "start": (lambda x, n: x[n:], np.int64(1)),
    "neg_start": (lambda x, n: x[-n:], np.int64(1)),
    "step": (lambda x, n: x[::n], np.int64(2)),
    "neg_step": (lambda x, n: x[::-n], np.int64(1)),
    "zero_step": (lambda x, n: x[::n], np.int64(0)),  # ValueError like NumPy
    "start_stop": (lambda x, n: x[n - 1:n + 1, n:], np.int64(1)),
    "bounds_and_ints": (lambda x, n: x[1, :n, n], np.int32(2)),
    "bounds_past_end": (lambda x, n: x[:, n:], np.int64(10)),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", list(SYMBOLIC_INDICES))
def test_symbolic_index(check, arr, name, dtype):
    fn, index = SYMBOLIC_INDICES[name]
    check(fn, arr((3, 4, 5), dtype), index)


def test_mask_from_the_tensor_itself(check, arr):
    for dtype in ("float32", "int64"):
        x = arr((3, 4), dtype)
        check(lambda x: x[x > 0], x)
        check(lambda x: x[x[:, 0] > 0], x)
        check(lambda x: x[x[:, 0] > 0, ::2] * 2, x)
        check(lambda x: np.sum(x[x > 0]), x)


MASK = np.array([True, False, True])


@pytest.mark.parametrize("case", [
    (lambda x, n: x[:n], (5,), np.int64(3), (None,)),
    (lambda x, n: x[n:, :2], (3, 4), np.int64(1), (None, 2)),
    (lambda x, n: x[::n, n], (3, 4), np.int64(1), (None,)),
    (lambda x, m: x[m], (3, 4, 5), MASK, (None, 4, 5)),
    (lambda x, m: x[m, ::2], (3, 4, 5), MASK, (None, 2, 5)),
    (lambda x, m: x[:, :, m], (2, 4, 3), MASK, (2, 4, None)),
    (lambda x, i: x[i], (3, 4, 5), np.array([0, 2]), (2, 4, 5)),
    (lambda x, i: x[i, :, i], (3, 4, 5), np.array([0, 2]), (2, 4)),
    (lambda x, i: x[:, i, 0], (3, 4, 5), np.array([0, 2]), (3, 2)),
], ids=["stop", "start", "step", "mask", "mask_slice", "mask_last", "ints", "ints_split",
        "ints_adjacent"])
def test_static_shapes_of_symbolic_indices(arr, case):
    """Lengths that depend on run-time values are None; every other length stays known."""
    fn, shape, index, expected = case
    cf = runtime.function(fn).get_concrete_function(arr(shape, "float32"), index)
    assert cf.graph.outputs[0].shape == expected


def test_index_update(check, arr):
    x = arr((3, 4), "float32")
    check(lambda x: runtime.index_update(x, (1, slice(None, 2)), 7.0), x)
    check(lambda x, i: runtime.index_update(x, i, x[0], mode="add"), x, np.array([0, 0, 2]))
    check(lambda x: runtime.index_update(x, x > 0, 0), x)
    check(lambda x: runtime.index_update(x, x[:, 0] > 0, x[0] * 2), x)
    check(lambda x, n: runtime.index_update(x, (slice(n, n + 2), 0), x[:2, 1]), x, np.int64(1))
    check(lambda x, n: runtime.index_update(x, slice(None, None, n), 0), x, np.int64(2))
    check(lambda x: runtime.index_update(x, 0, np.ones(3)), x)  # ValueError like NumPy


def test_setitem_writes_like_numpy(arr):
    def fn(x):
        x[0] = 1
        return x

    eager, traced = arr((3,), "float32"), None
    traced = eager.copy()
    np.testing.assert_array_equal(runtime.function(fn)(traced), fn(eager))
    np.testing.assert_array_equal(traced, eager)  # the caller's array is written, as in NumPy
