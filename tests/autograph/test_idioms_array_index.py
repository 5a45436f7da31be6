"""A NumPy array (a constant, or an array of Python state) indexed with a symbolic index,
in converted code: ag.function (and jit_compile=True) vs eager NumPy."""
from __future__ import annotations

import numpy as np
import pytest

import autograph as ag

TABLE = np.arange(20.0).reshape(5, 4)
SMALL = np.array([3, 1, 4, 1, 5], dtype=np.int32)


class Embedding:
    def __init__(self):
        self.parameters = {"W": TABLE.copy()}

    def forward(self, X):
        W = self.parameters["W"]
        return W[X]


def rows(X):
    return TABLE[X]


def element(X):
    return TABLE[1, X[0]], TABLE[X, 0]


def sliced(X):
    return TABLE[X[0]:], SMALL[: X[1]]


def helper(table, i):
    return table[i] * 2


def through_helper(X):
    return helper(SMALL, X)


def mixed_with_literal_index(X):
    return TABLE[-1] + TABLE[X[0], :], TABLE[:, 1:][X]


CASES = [rows, element, sliced, through_helper, mixed_with_literal_index]
INPUTS = [np.array([1, 3, 0]), np.array([0, 0], dtype=np.int32), np.array([3, 2, 2, 1])]


def _same(got, want):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w)
        return
    assert type(got) is type(want)
    assert np.asarray(got).dtype == np.asarray(want).dtype
    assert np.shape(got) == np.shape(want)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("k", range(len(INPUTS)))
def test_matches_numpy(fn, jit, k):
    X = INPUTS[k]
    _same(ag.function(fn, jit_compile=jit)(X), fn(X))


def test_array_of_python_state_follows_writes():
    m = Embedding()
    f = ag.function(m.forward)
    X = np.array([2, 0])
    _same(f(X), m.forward(X))
    m.parameters["W"][0, 0] = -7.0  # the next call sees the new value, as eager does
    _same(f(X), m.forward(X))


def test_out_of_bounds_as_numpy():
    X = np.array([9])
    with pytest.raises(IndexError):
        rows(X)
    with pytest.raises(IndexError):
        ag.function(rows)(X)


def test_gradient_through_constant_lookup():
    def loss(w, X):
        with ag.GradientTape() as tape:
            w = tape.watch(w)
            y = np.sum(TABLE[X] * w)
        return tape.gradient(y, w)
    w = np.ones(4)
    X = np.array([1, 1, 3])
    np.testing.assert_allclose(ag.function(loss)(w, X), TABLE[X].sum(axis=0))
    np.testing.assert_allclose(loss(w, X), TABLE[X].sum(axis=0))
