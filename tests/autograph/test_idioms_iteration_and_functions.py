"""Iterating a symbolic array as NumPy does (zip, enumerate, comprehensions, max/min/sum
of a generator), `x.item()`, and the everyday functions built from other ops
(np.where(condition), np.dstack, np.insert, np.intersect1d, sliding_window_view):
eager Python/NumPy vs ag.function vs jit_compile=True (values, dtype, shape, result type,
and the same exception type where eager raises)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import autograph as ag

swv = np.lib.stride_tricks.sliding_window_view


def _outcome(fn, args):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(*args)
    except Exception as e:  # noqa: BLE001 - compared with the other path's
        return e


def _same(got, want):
    if isinstance(want, BaseException):
        assert isinstance(got, type(want)), (got, want)
        return
    if isinstance(want, (tuple, list)):
        assert type(got) is type(want) and len(got) == len(want), (got, want)
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


# -- iteration over the leading axis ------------------------------------------------------
def zip_loop(x, y):
    out = 0.0
    for a, b in zip(x, y):
        out = out + a * b
    return out


def zip_comprehension(x, y):
    return [a * b for a, b in zip(x, y)]


def enumerate_comprehension(x):
    return [i * v for i, v in enumerate(x, 1)]


def enumerate_loop(x):
    out = np.zeros(x.shape[0])
    for i, row in enumerate(x):
        out[i] = row.sum() * i
    return out


def unpacking(x):
    a, b, c = x
    return b - a, c


def extremes_of_generators(x):
    return max(v * 2 for v in x), min(v - 1 for v in x), sum(v for v in x)


def extremes_of_lists(x):
    return np.max([v * 2 for v in x]), np.sum([v for v in x], axis=0), max(x[0], x[2])


def max_keeps_the_first_nan_as_python(x):
    return max(v for v in x), min(v for v in x)


ITERATION = [
    (zip_loop, (np.arange(3.0), np.ones(3))),
    (zip_comprehension, (np.arange(3.0), np.ones(4, np.float32))),
    (enumerate_comprehension, (np.arange(3, dtype=np.int32),)),
    (enumerate_loop, (np.arange(6.0).reshape(3, 2),)),
    (unpacking, (np.arange(3.0),)),
    (unpacking, (np.arange(4.0),)),  # ValueError: too many values to unpack
    (extremes_of_generators, (np.array([2.0, -1.0, 5.0]),)),
    (extremes_of_generators, (np.arange(6).reshape(3, 2),)),  # rows: ambiguous truth
    (extremes_of_lists, (np.array([2.0, -1.0, 5.0]),)),
    (max_keeps_the_first_nan_as_python, (np.array([1.0, np.nan, 3.0]),)),
    (max_keeps_the_first_nan_as_python, (np.array([np.nan, 1.0]),)),
]


@pytest.mark.parametrize("fn, args", ITERATION, ids=[f[0].__name__ for f in ITERATION])
def test_iterating_a_symbolic_array(fn, args):
    three_way(fn, *args)


def test_iterating_an_array_of_unknown_length_in_python_is_refused_clearly():
    f = ag.function(zip_comprehension, input_signature=[ag.TensorSpec((None,), np.float64)] * 2)
    with pytest.raises(ag.GraphModeError, match="Write a `for` statement"):
        f(np.arange(3.0), np.ones(3))


def test_set_of_a_symbolic_array_says_what_to_use():
    # (`len(set(x))` works: tests/autograph/test_idioms_bits_sets_gradients.py)
    with pytest.raises(ag.GraphModeError, match="np.unique"):
        ag.function(lambda x: sorted(set(x)))(np.array([1, 2, 2]))


# -- x.item() -------------------------------------------------------------------------------
ITEMS = [
    (lambda x: x.item(), np.array([3.5])),
    (lambda x: x[0].item() + 1, np.array([3, 4], np.int32)),
    (lambda x: x.item(), np.array([[True]])),
    (lambda x: x.item(2), np.arange(6.0).reshape(2, 3)),
    (lambda x: x.item(1, 0), np.arange(6.0).reshape(2, 3)),
    (lambda x: x.item((1, 2)), np.arange(6).reshape(2, 3)),
    (lambda x: x.item(), np.arange(2.0)),   # ValueError: size 1 only
    (lambda x: x.item() * np.float32(2), np.array([1.5])),  # a Python float meets float32
]


@pytest.mark.parametrize("k", range(len(ITEMS)))
def test_item(k):
    fn, x = ITEMS[k]
    three_way(fn, x)


def test_item_of_an_array_of_unknown_size_checks_when_it_runs():
    f = ag.function(lambda x: x.item(), input_signature=[ag.TensorSpec((None,), np.float64)])
    _same(f(np.array([2.5])), 2.5)
    with pytest.raises(ValueError, match="size 1"):
        f(np.arange(2.0))


# -- functions built from other ops ---------------------------------------------------------
FUNCTIONS = [
    (lambda x: np.where(x > 1), np.arange(4.0)),
    (lambda x: np.where(x > 1), np.arange(6.0).reshape(2, 3)),
    (lambda x: x[np.where(x > 2)], np.arange(6.0).reshape(2, 3)),
    (lambda x: np.where(x[0] > 1), np.arange(4.0)),          # 0-d: ValueError
    (lambda x: np.dstack([x, x * 2]), np.arange(4.0)),
    (lambda x: np.dstack((x, x.astype(np.int8))), np.arange(6).reshape(2, 3)),
    (lambda x: np.insert(x, 1, 9.0), np.arange(4.0)),
    (lambda x: np.insert(x, 0, 1, axis=1), np.arange(6.0).reshape(2, 3)),
    (lambda x: np.insert(x, -1, [5, 6, 7], axis=0), np.arange(6).reshape(2, 3)),
    (lambda x: np.insert(x, 1, 2.5), np.arange(6).reshape(2, 3)),
    (lambda x: np.insert(x, 2, [[7], [8]], axis=1), np.arange(6).reshape(2, 3)),
    (lambda x: np.insert(x, 2, x[:, :1] * 10, axis=1), np.arange(6).reshape(2, 3)),
    (lambda x: np.insert(x, 9, 1), np.arange(4.0)),           # IndexError
    (lambda x: np.intersect1d(x, x[:3] * 1), np.array([3, 1, 2, 3, 5])),
    (lambda x: np.intersect1d(x, np.array([5.0, 1.0, 7.0])), np.array([3, 1, 2, 3, 5])),
    (lambda x: np.intersect1d(x, x, assume_unique=True), np.array([4, 1, 2])),
    (lambda x: swv(x, 2), np.arange(5.0)),
    (lambda x: swv(x, (2, 2)), np.arange(12).reshape(3, 4)),
    (lambda x: swv(x, 2, axis=0), np.arange(12).reshape(3, 4)),
    (lambda x: swv(x, (2, 2), axis=(1, 1)), np.arange(12).reshape(3, 4)),
    (lambda x: swv(x, 3).sum(axis=-1), np.arange(6, dtype=np.float32)),
    (lambda x: swv(x, 7), np.arange(5.0)),                   # ValueError
]


@pytest.mark.parametrize("k", range(len(FUNCTIONS)))
def test_functions_built_from_other_ops(k):
    fn, x = FUNCTIONS[k]
    three_way(fn, x)


def test_insert_at_several_positions_is_refused_clearly():
    with pytest.raises(TypeError, match="one static position"):
        ag.function(lambda x: np.insert(x, [0, 2], 1.0))(np.arange(3.0))


# -- x.view(dtype), x.flat, x.strides of a copy -----------------------------------------------------
def view_sees_later_writes(x):
    y = x.view(np.int64)
    x[0] = 0.5
    return y


LAYOUT = [
    (lambda x: x.view(np.int64), np.array([3.5, -1.0])),
    (lambda x: (x * 2).view(np.uint32), np.array([3, -1], np.int32)),
    (lambda x: x.T.view(np.int64), np.arange(4.0).reshape(2, 2)),
    (view_sees_later_writes, np.array([3.5, -1.0])),
    (lambda x: (x.flat[2], x.flat[1:3], [v for v in x.flat]), np.arange(4.0).reshape(2, 2)),
]


@pytest.mark.parametrize("k", range(len(LAYOUT)))
def test_view_and_flat(k):
    fn, x = LAYOUT[k]
    three_way(fn, x)


def write_through_a_view(x):
    y = x.view(np.int64)
    y[0] = 0
    return x


@pytest.mark.parametrize("fn, match", [
    (write_through_a_view, r"Writing through `x.view\(int64\)`"),
    (lambda x: x.view(np.int32), "another item size"),
    (lambda x: x.copy().strides, "does not know it"),  # (tests/runtime/test_strided_views.py)
    (lambda x: x.flat.__setitem__(0, 1.0), "unravel_index"),
])
def test_layout_dependent_uses_are_refused_clearly(fn, match):
    with pytest.raises((TypeError, ValueError, AttributeError), match=match):
        ag.function(fn)(np.array([3.5, -1.0]))


# -- a loop over rows that builds nested lists (numpy-ml's Softmax backward) ----------------
def _softmax(X):
    e = np.exp(X - np.max(X, axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def softmax_backward(dLdy, X):
    dX = []
    for dy, x in zip(dLdy, X):
        dxi = []
        for dyi, xi in zip(*np.atleast_2d(dy, x)):
            yi = _softmax(xi.reshape(1, -1)).reshape(-1, 1)
            dxi.append(dyi @ (np.diagflat(yi) - yi @ yi.T))
        dX.append(dxi)
    return np.array(dX).reshape(*X.shape)


def rows_of_lists(X):
    out = []
    for row in X:
        out.append([row.sum(), row.max()])
    return np.array(out)


@pytest.mark.parametrize("fn, args", [
    (softmax_backward, (np.linspace(-1.0, 1.0, 6).reshape(2, 3), np.arange(6.0).reshape(2, 3))),
    (rows_of_lists, (np.arange(6.0).reshape(3, 2),)),
])
def test_a_loop_building_nested_lists_walks_the_rows_in_python(fn, args):
    three_way(fn, *args)


def test_nested_lists_over_rows_of_unknown_count_are_refused_clearly():
    f = ag.function(rows_of_lists, input_signature=[ag.TensorSpec((None, 2), np.float64)])
    with pytest.raises(TypeError, match="nested lists"):
        f(np.arange(6.0).reshape(3, 2))


# -- a list of symbolic values given to NumPy by name, and in arithmetic --------------------
def logsumexp(log_probs, axis=None):
    top = np.max(log_probs)
    ds = log_probs - top
    return top + np.log(np.exp(ds).sum(axis=axis))


def mixture_step(X):
    out = []
    for x in X:
        vals = []
        for c in range(2):
            vals.append(x[c] * 2.0 + c)
        denom = logsumexp(vals)
        out.append(np.exp([v - denom for v in vals]))
    return np.array(out)


def list_by_name(x):
    vals = [x[0] * 2, x[1] + 1, x[2]]
    return np.max(vals), np.exp(vals), vals - np.mean(vals), 2.0 * np.array(vals)


@pytest.mark.parametrize("fn, x", [(mixture_step, np.arange(6.0).reshape(3, 2)),
                                   (list_by_name, np.arange(3.0))])
def test_a_list_of_symbolic_values_given_by_name(fn, x):
    three_way(fn, x)


# -- zip with a constant array or a list of symbolic values; a rank that grows -------------
W = np.arange(6.0).reshape(3, 2)


def zip_with_a_constant(x):
    out = 0.0
    for a, w in zip(x, W):
        out = out + a * w  # its rank grows: Python walks the known rows
    return out


def zip_with_a_list(x):
    ws = [x[0], x[1] * 2, x[2]]
    out = 0.0
    for a, w in zip(x, ws):
        out = out + a * w
    return out


@pytest.mark.parametrize("fn", [zip_with_a_constant, zip_with_a_list])
def test_zip_with_constants_and_lists(fn):
    three_way(fn, np.arange(3.0))


def test_a_rank_change_over_rows_of_unknown_count_is_refused_clearly():
    f = ag.function(zip_with_a_constant, input_signature=[ag.TensorSpec((None,), np.float64)])
    with pytest.raises(ValueError, match="rank"):
        f(np.arange(3.0))
