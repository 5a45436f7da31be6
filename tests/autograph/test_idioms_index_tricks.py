"""np.c_ / np.r_ / np.s_ / np.index_exp with symbolic items: converted code vs eager NumPy."""
from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
from runtime import GraphModeError


def intercept(X):
    return np.c_[np.ones(X.shape[0]), X]


def columns(X):
    return np.c_[X[:, 0], X[:, -1], X[:, 0] * 2]


def rows_scalars_ranges(X):
    return np.r_[X[0], 5, 1:4, X[-1], 2.5]


def range_first(X):
    return np.r_[0:3, X[0]]


def linspace_step(X):
    return np.r_[X[0], 0:1:5j]


def column_of_1d(X):
    return np.c_[X[:, 0]]


def mixed_2d(X):
    return np.c_[X, X[:, :1] + 1, np.zeros((X.shape[0], 1), dtype=np.int32)]


def imported_names(X):
    from numpy import c_, r_
    return c_[X, X[:, 0]], r_[X[0], 1]


def index_expressions(X):
    return X[np.s_[1:]], X[np.index_exp[X.shape[0] - 1]]


def in_loop(X):
    acc = np.c_[X[:, 0]]
    for i in range(1, X.shape[1]):
        acc = np.c_[acc, X[:, i]]
    return acc


CASES = [intercept, columns, rows_scalars_ranges, range_first, linspace_step, column_of_1d,
         mixed_2d, imported_names, index_expressions, in_loop]
INPUTS = [np.arange(6.0).reshape(3, 2), np.arange(12, dtype=np.int32).reshape(4, 3),
          np.arange(8, dtype=np.int64).reshape(2, 4), np.ones((1, 2), dtype=np.float32)]


def _same(got, want):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w)
        return
    assert type(got) is type(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("k", range(len(INPUTS)))
def test_matches_numpy(fn, jit, k):
    X = INPUTS[k]
    _same(ag.function(fn, jit_compile=jit)(X), fn(X))


def test_zero_rows():
    X = np.zeros((0, 2))
    _same(ag.function(intercept)(X), intercept(X))


def test_shape_errors_as_numpy():
    def bad(X):
        return np.c_[np.ones(X.shape[0] + 1), X]
    X = np.ones((3, 2))
    with pytest.raises(ValueError):
        bad(X)
    with pytest.raises(ValueError):
        ag.function(bad)(X)


def test_string_directive_refused_clearly():
    def directive(X):
        return np.r_["0,2", X[0], X[1]]
    X = np.ones((2, 3))
    directive(X)  # eager NumPy accepts it
    with pytest.raises(NotImplementedError, match="directive '0,2'.*np.concatenate"):
        ag.function(directive)(X)


def test_other_objects_are_plain_subscripts():
    class Table:
        c_ = {"a": 1}

    def read(x, t):
        return t.c_["a"] + x
    _same(ag.function(read)(np.float64(2.0), Table()), read(np.float64(2.0), Table()))


def test_without_autograph_says_to_enable_it():
    X = np.ones((3, 2))
    with pytest.raises(GraphModeError, match=r"np\.c_\[\.\.\.\].*Enable conversion"):
        ag.function(intercept, autograph=False)(X)
    with pytest.raises(GraphModeError, match=r"np\.r_\[\.\.\.\].*Enable conversion"):
        ag.function(rows_scalars_ranges, autograph=False)(X)
