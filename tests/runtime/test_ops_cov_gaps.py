"""Differential tests of the NumPy functions added to close the coverage gaps:
np.put_along_axis (a write into the array, like `x[i] = v`), np.trim_zeros (a slice with
bounds computed in the graph), np.unique(..., axis=), np.from_dlpack of a graph array,
gufuncs with axis= / axes= (np.vecdot(a, b, axis=0)), np.linalg.pinv / matrix_rank with
a tolerance computed in the graph.

Each runs three ways (generated code, reference interpreter, eager NumPy: value, dtype,
shape, and the arguments' state after the call), through `ag.function` (converted code)
too, and each static rule is checked against NumPy over generated shapes and dtypes,
0-size and unknown dims included (check_rule). Saving and ONNX export are checked too.
"""
from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
import runtime
from tests.helpers import assert_interpreter_agrees, assert_same, check_three_ways
from tests.runtime.shape_rules_check import ALL_DTYPES, check_rule

RNG = np.random.default_rng(5)
X = np.arange(24.0).reshape(2, 3, 4) % 7 + 0.5


def _copies(args):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


def check_writes(fn, *args, makes=(runtime.function, ag.function)):
    """fn may write into its array arguments: the graph (generated code and converted
    code) must give NumPy's result and leave the arguments as NumPy leaves them; the
    reference interpreter must agree with the generated code."""
    expected_args = _copies(args)
    expected = fn(*expected_args)
    for make in makes:
        got_args = _copies(args)
        got = make(fn)(*got_args)
        assert_same(got, expected)
        assert_same(got_args, expected_args)
    cf = makes[-1](fn).get_concrete_function(*_copies(args))
    cf.graph.verify()
    assert_interpreter_agrees(cf, _copies(args), got)


# -- np.put_along_axis ---------------------------------------------------------------------
def _put(axis):
    def fn(x, i, v):
        np.put_along_axis(x, i, v, axis=axis)
        return x * 2
    return fn


PUT_CASES = [  # (arr, indices, values, axis)
    (X.copy(), np.argsort(X, axis=2)[..., :2], -X[..., :2], 2),
    (X.copy(), np.array([[[0, 0, 2, 2]]]), np.array([1.0, 2.0, 3.0, 4.0]), 1),  # repeats
    (X.copy(), np.array([[[-1]], [[0]]]), 7.5, 0),
    (X.astype(np.int16), np.array([[[1]]]), np.float32(2.7), -1),  # cast to arr's dtype
    (X > 3, np.zeros((2, 3, 1), np.uint8), np.ones((1, 1, 2, 3, 1)) * 0, 2),  # leading 1s
    (np.zeros((0, 3)), np.zeros((0, 2), np.intp), 1.0, 1),
    (np.zeros((2, 0)), np.zeros((2, 0), np.intp), np.zeros((2, 0)), 1),
    (np.arange(6.0) * 1j, np.array([5, 0]), np.array([1 + 1j, 2]), 0),
]


@pytest.mark.parametrize("k", range(len(PUT_CASES)))
def test_put_along_axis_three_ways(k):
    x, i, v, axis = PUT_CASES[k]
    check_writes(_put(axis), x, i, v)


def test_put_along_axis_writes_through_aliases_views_and_loops():
    def aliases(x, i):
        y = x
        row = x[1]                       # a view taken before the write sees it
        np.put_along_axis(y, i, -1.0, axis=1)
        return row + 0, x.sum()

    def loop(x, n):
        k, y = 0, x * 1.0
        while k < n:                     # a symbolic loop: y is one of its variables
            y = y + 1
            np.put_along_axis(y, np.argmax(y, axis=1, keepdims=True), 0.0, axis=1)
            k += 1
        return y

    def branch(x):
        y = x
        if np.sum(x) > 10:
            y = x * 2
            np.put_along_axis(y, np.zeros((x.shape[0], 1), np.intp), 100.0, axis=1)
        return y

    def in_place_only(x, n):
        k = 0
        while k < n:                     # the call writes x: the loop carries it
            np.put_along_axis(x, np.zeros((3, 1), np.intp), 1.0, axis=1)
            k += 1
        return x

    x = RNG.normal(size=(3, 4))
    check_writes(aliases, x, np.array([[2], [0], [3]]))
    check_writes(loop, x, np.int64(2), makes=(ag.function,))
    check_writes(branch, x, makes=(ag.function,))
    check_writes(branch, x + 10, makes=(ag.function,))
    check_writes(in_place_only, x, np.int64(2), makes=(ag.function,))


def test_put_along_axis_rule():
    shapes = [((2, 3), (2, 2), (2, 2)), ((2, 3), (1, 4), (4,)), ((2, 3), (2, 1), ()),
              ((0, 3), (0, 2), (1, 2)), ((None, 3), (None, 2), (2,)), ((2, 3), (2, 2), (3,)),
              ((2, 3), (3,), (3,)), ((4,), (6,), (6,)), ((2, 3), (3, 2), (3, 2)),
              ((2, 3), (2, 2), (1, 1, 2, 2)), ((2, 3), (2, 2), (2, 2, 2))]
    for s, i, v in shapes:
        for axis in (0, 1, -1, 2):
            for d in (np.float32, np.int8, bool, np.complex64):
                def fn(a, b, c, axis=axis):
                    out = a.copy()
                    np.put_along_axis(out, b, c, axis=axis)
                    return out
                check_rule(fn, [(s, d), (i, np.intp), (v, np.float64)],
                           kinds=["any", "zeros", "any"], value_error=True)
    for idx_dtype in (np.float64, bool):  # `indices` must be integers: an IndexError
        check_rule(lambda a, b: _put(1)(a, b, 1.0), [((2, 3), np.float64), ((2, 2), idx_dtype)])


_CONSTANT = np.zeros(3)


def test_put_along_axis_clear_errors():
    def into_created(i):
        a = np.zeros(3)  # an array of the trace: written as NumPy writes it
        np.put_along_axis(a, i, 1.0, axis=0)
        return a

    def into_constant(i):
        np.put_along_axis(_CONSTANT, i, 1.0, axis=0)  # a global: a constant of the trace
        return _CONSTANT

    assert_same(ag.function(into_created)(np.array([1])), into_created(np.array([1])))
    with pytest.raises(TypeError, match="constant of the trace") as info:
        ag.function(into_constant)(np.array([1]))
    assert "test_ops_cov_gaps.py" in str(info.value)
    assert not _CONSTANT.any()
    with pytest.raises(TypeError, match="eager GradientTape"):
        with ag.GradientTape() as tape:
            x = tape.watch(np.ones(3))
            np.put_along_axis(x, np.array([0]), 2.0, axis=0)
    with pytest.raises(TypeError, match="axis=None"):  # depends on the memory layout
        ag.function(_put(None))(np.ones(3), np.array([1]), 1.0)
    with pytest.raises(IndexError, match="out of bounds"):  # a value error: at run time
        ag.function(_put(0))(np.ones(3), np.array([5]), 1.0)


# -- np.trim_zeros --------------------------------------------------------------------------
TRIM_INPUTS = [np.array([0, 0, 1.5, 2, 0, 3, 0]), np.zeros(4), np.zeros(0), np.array([7, 0], np.int8),
               np.array([[0, 0, 0], [0, 1, 0], [0, 0, 2.0]]), np.zeros((2, 3)), np.zeros((0, 3)),
               np.array([0, 1j, 0]), np.array([False, True, False]), np.array(3.0),
               np.array([[[0, 0], [0, 4]], [[0, 0], [0, 0]]], np.uint8), np.array([0, np.nan, 0])]


@pytest.mark.parametrize("k", range(len(TRIM_INPUTS)))
@pytest.mark.parametrize("kw", [{}, {"trim": "f"}, {"trim": "b"}, {"trim": "BF"}, {"axis": -1},
                                {"axis": 0, "trim": "b"}, {"axis": ()}])
def test_trim_zeros_three_ways(k, kw):
    x = TRIM_INPUTS[k]

    def fn(x):
        return np.trim_zeros(x, **kw)

    try:
        expected = fn(x)
    except Exception as e:  # noqa: BLE001 - the graph must raise what NumPy raises
        with pytest.raises(type(e)):
            runtime.function(fn)(x)
        return
    check_three_ways(fn, x)
    assert_same(ag.function(fn)(x), expected)


def test_trim_zeros_unknown_sizes_and_view():
    f = runtime.function(np.trim_zeros, input_signature=[ag.TensorSpec((None, None), np.float64)])
    for x in (np.zeros((0, 0)), np.zeros((3, 2)), np.eye(3), np.pad(np.ones((1, 2)), 2)):
        assert_same(f(x), np.trim_zeros(x))
    assert f.tracing_count == 1

    def write_through(x):
        t = np.trim_zeros(x)  # a view of x in NumPy
        t[0] = -5.0
        return x

    check_writes(write_through, np.array([0.0, 0, 3, 4, 0]))
    with pytest.raises(ValueError, match="unexpected character"):
        runtime.function(lambda x: np.trim_zeros(x, "x"))(np.ones(2))


# -- np.unique(..., axis=) ------------------------------------------------------------------
UNIQUE_INPUTS = [np.array([[1, 2], [1, 2], [0, 1.0]]), np.zeros((0, 3)), np.zeros((2, 0, 4)),
                 np.array([3, 1, 3], np.int8), np.array([[np.nan, 1], [np.nan, 1]]),
                 (X > 2).astype(np.complex64), np.array([[True, False], [True, False]])]


@pytest.mark.parametrize("k", range(len(UNIQUE_INPUTS)))
def test_unique_axis_three_ways(k):
    x = UNIQUE_INPUTS[k]
    for axis in range(-x.ndim, x.ndim):
        for flags in ({}, {"return_inverse": True},
                      {"return_index": True, "return_inverse": True, "return_counts": True}):
            check_three_ways(lambda x, axis=axis, flags=flags: np.unique(x, axis=axis, **flags), x)


def test_unique_axis_rule():
    for s in [(3, 2), (0, 3), (2, 0, 4), (None, 3), (3, None), (4,), (None,), ()]:
        for d in ALL_DTYPES:
            for axis in (0, 1, -1, 2):
                check_rule(lambda x, axis=axis: np.unique(x, True, True, True, axis=axis),
                           [(s, d)])


# -- np.from_dlpack -----------------------------------------------------------------------
def test_from_dlpack_is_a_view_or_a_copy_as_in_numpy():
    def fn(x):
        y = np.from_dlpack(x)
        y[0] = 5.0                       # a view: writes into x
        z = np.from_dlpack(x, copy=True)
        z[1] = 9.0                       # a copy: x keeps its value
        w = np.from_dlpack(x, device="cpu", copy=False)
        return y, z, w + 1

    expected_x, got_x = np.zeros(3), np.zeros(3)
    expected = fn(expected_x)
    assert_same(ag.function(fn)(got_x), expected)
    assert_same(got_x, expected_x)
    with pytest.raises(ValueError, match="Only \"cpu\"") as info:
        ag.function(lambda x: np.from_dlpack(x, device="cuda"))(np.zeros(2))
    assert "test_ops_cov_gaps.py" in str(info.value)


# -- gufuncs with axis= / axes= -----------------------------------------------------------
GUFUNC_CASES = [
    (lambda a, b: np.vecdot(a, b, axis=0), RNG.normal(size=(3, 2)), RNG.normal(size=(3, 1))),
    (lambda a, b: np.vecdot(a, b, axis=-2), RNG.normal(size=(4, 3, 2)), RNG.normal(size=(3, 2))),
    (lambda a, b: np.vecdot(a, b, axis=1), np.arange(6).reshape(2, 3), np.ones((1, 3), np.int8)),
    (lambda a, b: np.vecdot(a, b, axes=[1, 0]), RNG.normal(size=(2, 3)), RNG.normal(size=(3, 2))),
    (lambda a, b: np.vecdot(a, b, axes=[(1,), (0,), ()]), 1j * np.ones((2, 3)), np.ones((3, 2))),
    (lambda a, b: np.linalg.vecdot(a, b, axis=0), np.zeros((0, 2)), np.zeros((0, 2))),
    (lambda a, b: np.matmul(a, b, axes=[(1, 2), (0, 1), (0, 1)]), RNG.normal(size=(4, 2, 3)),
     RNG.normal(size=(3, 5))),
    (lambda a, b: np.matmul(a, b, axes=[(-2, -1), (-2, -1), (-1, -2)]), np.ones((2, 3)),
     np.ones((3, 4), np.float32)),
]


@pytest.mark.parametrize("k", range(len(GUFUNC_CASES)))
def test_gufunc_core_axes_three_ways(k):
    fn, a, b = GUFUNC_CASES[k]
    check_three_ways(fn, a, b)


def test_gufunc_core_axes_errors_match_numpy():
    a = np.ones((3, 2))
    for fn in (lambda a, b: np.vecdot(a, b, axis=2), lambda a, b: np.vecdot(a, b, axis=-3),
               lambda a, b: np.matmul(a, b, axis=0), lambda a, b: np.vecdot(a, b, axis=1),
               lambda a, b: np.matmul(a, b, axes=[(0, 1), (0, 1)]),
               lambda a, b: np.matmul(a, b, axes=[(0,), (0, 1), (0, 1)])):
        with pytest.raises(Exception) as numpy_error:
            fn(a, a.T)
        with pytest.raises(type(numpy_error.value)):
            runtime.function(fn)(a, a.T)
    for s, t in [((3, 2), (3, 1)), ((None, 2), (3, None)), ((2, 3), (3,)), ((0, 2), (0, 2))]:
        for d in (np.float32, np.int8, bool, np.complex128):
            check_rule(lambda a, b: np.vecdot(a, b, axis=0), [(s, d), (t, np.float64)])


# -- pinv / matrix_rank with a tolerance computed in the graph ----------------------------
TOL_CASES = [
    (lambda a, t: np.linalg.pinv(a, rtol=t), RNG.normal(size=(2, 3, 4)), np.array([0.1, 0.6])),
    (lambda a, t: np.linalg.pinv(a, rcond=t), RNG.normal(size=(2, 3, 3)), np.array(0.3)),
    (lambda a, t: np.linalg.pinv(a, t, hermitian=True), np.eye(3) * [1, 1e-3, 2], np.float64(0.01)),
    (lambda a, t: np.linalg.pinv(a, rtol=t), RNG.normal(size=(2, 0, 3)), np.ones(7)),
    (lambda a, t: np.linalg.pinv(a, rtol=t), np.arange(6).reshape(2, 3), np.float32(0.5)),
    (lambda a, t: np.linalg.matrix_rank(a, rtol=t), RNG.normal(size=(2, 3, 4)),
     np.array([[0.1], [0.9]])),
    (lambda a, t: np.linalg.matrix_rank(a, tol=t), RNG.normal(size=(2, 4, 3)), np.array([0.1, 2])),
    (lambda a, t: np.linalg.matrix_rank(a, tol=t), np.arange(3.0), np.float64(1.0)),
]


@pytest.mark.parametrize("k", range(len(TOL_CASES)))
def test_symbolic_tolerance_three_ways(k):
    fn, a, t = TOL_CASES[k]
    check_three_ways(fn, a, t)
    assert_same(ag.function(fn)(a, t), fn(a, t))


def test_symbolic_tolerance_rules():
    for a in [(3, 3), (2, 3, 3), (1, 3, 3), (2, 0, 3), (None, 3, 3), (4, 2, 2, 3), (2,)]:
        for t in [(), (1,), (2,), (3,), (None,), (2, 1)]:
            for d in (np.float32, np.float64, np.int8, np.complex64):
                check_rule(lambda a, t: np.linalg.pinv(a, rtol=t), [(a, d), (t, np.float64)],
                           kinds=["eye", "any"], value_error=True)
                check_rule(lambda a, t: np.linalg.matrix_rank(a, tol=t),
                           [(a, d), (t, np.float64)], kinds=["eye", "any"], value_error=True)
    with pytest.raises(ValueError, match="can't be both set"):
        runtime.function(lambda a, t: np.linalg.pinv(a, t, rtol=t))(np.eye(2), np.float64(1))


# -- saving and ONNX ----------------------------------------------------------------------
def test_new_ops_save_load_and_onnx_refusal(tmp_path):
    from runtime.saved.optable import op_table

    assert {"put_along_axis", "linalg.pinv_tol", "linalg.matrix_rank_tol"} <= set(op_table())

    def fn(x, i, t):
        np.put_along_axis(x, i, x[:, :1] * 3, axis=1)
        return np.linalg.pinv(x, rtol=t), np.unique(x > 1, axis=0), np.linalg.matrix_rank(x, tol=t)

    args = (RNG.normal(size=(3, 3)), np.array([[2], [0], [1]]), np.float64(0.1))
    f = ag.function(fn)
    f(*_copies(args))
    ag.save(f, str(tmp_path / "m"))
    loaded = ag.load(str(tmp_path / "m"))
    expected_args, got_args = _copies(args), _copies(args)
    assert_same(loaded(*got_args), fn(*expected_args))
    assert_same(got_args, expected_args)
    pytest.importorskip("onnx")
    from runtime.onnx_export.context import OnnxExportError

    with pytest.raises(OnnxExportError, match="put_along_axis"):
        ag.export_onnx(f.get_concrete_function(*args), str(tmp_path / "m.onnx"))
