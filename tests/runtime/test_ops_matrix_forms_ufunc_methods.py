"""np.diag, np.diagflat, np.rot90 and the ufunc methods (.at, .outer, .reduce,
.accumulate, .reduceat) in graphs: eager NumPy vs ag.function vs jit_compile=True
(values, dtype, shape, result type, and the same exception type), over shapes, dtypes
and 0-size inputs; `.at` writing into a graph array, an argument and Python state."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import autograph as ag

M = np.arange(12.0).reshape(3, 4)
T = np.arange(24, dtype=np.int32).reshape(2, 3, 4)


def _outcome(fn, args):
    args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(*args), args
    except Exception as e:  # noqa: BLE001 - compared with the other path's
        return e, args


def _same(got, want):
    if isinstance(want, BaseException):
        assert isinstance(got, BaseException) and type(got) is type(want), (got, want)
        return
    if isinstance(want, (tuple, list)):
        assert type(got) is type(want) and len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w)
        return
    assert type(got) is type(want), (type(got), type(want))
    assert np.asarray(got).dtype == np.asarray(want).dtype
    assert np.shape(got) == np.shape(want)
    np.testing.assert_array_equal(got, want)


def three_way(fn, *args):
    want, want_args = _outcome(fn, args)
    for jit in (False, True):
        got, got_args = _outcome(ag.function(fn, jit_compile=jit), args)
        _same(got, want)
        _same(got_args, want_args)  # arguments written in place (`.at`) alike


# -- np.diag / np.diagflat / np.rot90 ----------------------------------------------------
DIAG_CASES = [
    (lambda v: np.diag(v), np.arange(3.0)),
    (lambda v: np.diag(v, 2), np.arange(1, 4, dtype=np.int16)),
    (lambda v: np.diag(v, -1), np.array([True, False])),
    (lambda v: np.diag(v), np.zeros(0, np.float32)),
    (lambda m: np.diag(m), M),
    (lambda m: np.diag(m, 1), M),
    (lambda m: np.diag(m, -2), M),
    (lambda m: np.diag(m, 7), M),
    (lambda t: np.diag(t), T),                       # ValueError: 1- or 2-d only
    (lambda m: np.diagflat(m), M[:2, :2]),
    (lambda m: np.diagflat(m, -1), np.arange(3, dtype=np.int64)),
    (lambda m: np.rot90(m), M),
    (lambda m: np.rot90(m, 2), M),
    (lambda m: np.rot90(m, -1), M),
    (lambda m: np.rot90(m, 4), M),
    (lambda t: np.rot90(t, 1, axes=(1, 2)), T),
    (lambda t: np.rot90(t, 3, axes=(2, 0)), T),
    (lambda t: np.rot90(t, 1, axes=(0, 0)), T),       # ValueError: axes must differ
    (lambda m: np.rot90(m), np.zeros((0, 3))),
]


@pytest.mark.parametrize("k", range(len(DIAG_CASES)))
def test_diag_diagflat_rot90(k):
    fn, arg = DIAG_CASES[k]
    three_way(fn, arg)


def test_diag_of_unknown_length():
    f = ag.function(lambda v: np.diag(v, 1) * 2,
                    input_signature=[ag.TensorSpec((None,), np.float64)])
    for n in (0, 1, 4):
        v = np.arange(float(n))
        _same(f(v), np.diag(v, 1) * 2)


# -- ufunc.reduce / accumulate / reduceat / outer -------------------------------------------
METHOD_CASES = [
    (lambda x: np.add.reduce(x), M),
    (lambda x: np.add.reduce(x, axis=None), T),
    (lambda x: np.add.reduce(x, axis=1, dtype=np.float32, keepdims=True), T),
    (lambda x: np.multiply.reduce(x, axis=(0, 2)), T),
    (lambda x: np.maximum.reduce(x, axis=1), M),
    (lambda x: np.minimum.reduce(x, axis=-1, initial=5.0), M),
    (lambda x: np.maximum.reduce(x), np.zeros((0, 2))),   # no identity: ValueError
    (lambda x: np.logical_and.reduce(x), M),
    (lambda x: np.logical_or.reduce(x, axis=1), M > 5),
    (lambda x: np.subtract.reduce(x), M),
    (lambda x: np.subtract.reduce(x, axis=None), M),      # not reorderable: ValueError
    (lambda x: np.bitwise_or.reduce(x, axis=None), T),
    (lambda x: np.logaddexp.reduce(x, axis=-1, keepdims=True), M),
    (lambda x: np.add.reduce(x), np.float64(2.0) + np.zeros(())),  # 0-d: AxisError
    (lambda x: np.add.accumulate(x), M),
    (lambda x: np.add.accumulate(x.astype(np.int32), axis=1), M),
    (lambda x: np.multiply.accumulate(x, dtype=np.float32), T),
    (lambda x: np.maximum.accumulate(x, axis=1), np.array([[1, 3, 2], [0, -1, 4]])),
    (lambda x: np.minimum.accumulate(x), np.zeros(0)),
    (lambda x: np.add.reduceat(x, [0, 2, 1, 3]), np.arange(5.0)),
    (lambda x: np.add.reduceat(x, np.array([0, 2]), axis=1), M),
    (lambda x: np.maximum.reduceat(x, [1, 2], axis=0), T),
    (lambda x: np.multiply.outer(x, x[:2]), np.arange(3, dtype=np.float32)),
    (lambda x: np.add.outer(x, 2), np.arange(3, dtype=np.float32)),
    (lambda x: np.subtract.outer(3.5, x), M),
    (lambda x: np.greater.outer(x, x), np.arange(3)),
]


@pytest.mark.parametrize("k", range(len(METHOD_CASES)))
def test_ufunc_methods(k):
    fn, arg = METHOD_CASES[k]
    three_way(fn, arg)


def test_reduceat_with_symbolic_indices():
    three_way(lambda x, i: np.add.reduceat(x, i, axis=1), M, np.array([0, 3, 1]))


# -- ufunc.at: unbuffered, in place ------------------------------------------------------
def at_on_a_new_array(x, i, b):
    a = np.zeros_like(x)
    np.add.at(a, i, b)
    np.subtract.at(a, i[:2], 1.0)
    np.maximum.at(a, [0], 5.0)
    np.negative.at(a, [1])
    return a


def at_on_an_argument(a, i, b):
    np.add.at(a, i, b)
    return a.sum()


def at_with_a_tuple_index(x, r, c):
    out = np.zeros((3, 4), np.float32)
    np.add.at(out, (r, c), x)
    np.multiply.at(out, (slice(None), 0), 2)
    return out


def at_through_a_view(x, i):
    a = np.zeros((2, 4))
    np.add.at(a[1], i, x)  # the view writes through to `a`
    return a


def at_in_a_loop(x, n):
    a = np.zeros(4, np.int32)
    for k in range(n):
        np.add.at(a, np.array([k % 4, 0]), x[k])
    return a


def at_in_a_branch(x, flag):
    a = np.ones(3)
    if flag > 0:
        np.add.at(a, [0, 0], x)
    return a


IDX = np.array([0, 0, 2])


@pytest.mark.parametrize("fn, args", [
    (at_on_a_new_array, (np.ones(4), IDX, np.array([1.0, 2.0, 3.0]))),
    (at_on_a_new_array, (np.ones(4, np.int64), IDX, np.array([1, 2, 3]))),
    (at_on_an_argument, (np.zeros(4), IDX, np.array([1.0, 2.0, 3.0]))),
    (at_on_an_argument, (np.zeros(4, np.int32), IDX, 1.7)),   # unsafe cast, as NumPy
    (at_on_an_argument, (np.zeros(4), np.array([0, 5]), 1.0)),   # IndexError
    (at_with_a_tuple_index, (np.arange(3, dtype=np.float32), np.array([0, 0, 2]),
                             np.array([1, 1, 3]))),
    (at_through_a_view, (np.arange(3.0), IDX)),
    (at_in_a_loop, (np.arange(6, dtype=np.int32), np.int64(6))),
    (at_in_a_branch, (np.array([1.0, 2.0]), np.int64(1))),
    (at_in_a_branch, (np.array([1.0, 2.0]), np.int64(0))),
])
def test_ufunc_at(fn, args):
    three_way(fn, *args)


class Accumulator:
    """A layer keeping gradients in a NumPy array of its own (state), as ML code does."""

    def __init__(self):
        self.grad = np.zeros((3, 2))

    def backward(self, rows, g):
        np.add.at(self.grad, rows, g)
        return g.sum()


def test_ufunc_at_into_an_array_of_state():
    eager, graph = Accumulator(), Accumulator()
    held = graph.grad
    f = ag.function(graph.backward)
    for k in range(3):
        rows, g = np.array([0, k, k]), np.full((3, 2), k + 1.0)
        _same(f(rows, g), eager.backward(rows, g))
        _same(graph.grad, eager.grad)
    assert graph.grad is held  # written in place, as NumPy does
    assert f.tracing_count <= 2


def test_ufunc_at_errors_name_the_method():
    with pytest.raises(ValueError, match="second operand"):
        ag.function(lambda x: np.add.at(x, [0]))(np.zeros(2))
    with pytest.raises(TypeError, match=r"np\.add\.reduce\(\.\.\., out=\.\.\.\)"):
        ag.function(lambda x: np.add.reduce(x, out=x))(np.zeros(2))
