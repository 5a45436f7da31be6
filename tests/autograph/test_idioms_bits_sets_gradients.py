"""Issue 22's sweep of missing functions: np.unpackbits / np.packbits, `len(set(x))` of a
symbolic array, and gradients of np.maximum/minimum.accumulate and of a concatenation of
arrays whose length is known only when the graph runs. Eager vs `ag.function` vs
`jit_compile=True`; gradients against central differences."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import autograph as ag
from tests.helpers import assert_same
from tests.runtime.gradcheck import numeric_grads


def _outcome(fn, x):
    try:
        return fn(x.copy()), None
    except Exception as e:  # noqa: BLE001 - the same error is the expected outcome
        return None, e


def three_way(fn, x):
    want, error = _outcome(fn, x)
    for jit in (False, True):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ag.JitFallbackWarning)
            got, got_error = _outcome(ag.function(fn, jit_compile=jit), x)
        if error is not None:
            assert type(got_error) is type(error) and str(error) in str(got_error), got_error
            continue
        assert got_error is None, got_error
        assert_same(got, want)


BYTES = np.array([3, 255, 0, 17], np.uint8)
BITS = np.array([1, 0, 1, 1, 0, 0, 0, 1, 1])
BIT_CASES = [
    (lambda a: np.unpackbits(a), BYTES),
    (lambda a: np.unpackbits(a, count=5), BYTES),
    (lambda a: np.unpackbits(a, count=-3, bitorder="little"), BYTES),
    (lambda a: np.unpackbits(a.reshape(2, 2), axis=1), BYTES),
    (lambda a: np.unpackbits(a.reshape(2, 2), axis=0, count=20), BYTES),
    (lambda a: np.unpackbits(a[a > 2]), BYTES),
    (lambda a: np.unpackbits(a), np.zeros(0, np.uint8)),
    (lambda a: np.packbits(a), BITS),
    (lambda a: np.packbits(a > 0, bitorder="little"), BITS),
    (lambda a: np.packbits(a.reshape(3, 3), axis=1), BITS),
    (lambda a: np.packbits(np.unpackbits(a)), BYTES),
    (lambda a: np.unpackbits(a), BYTES.astype(np.int8)),       # TypeError, as NumPy's
    (lambda a: np.packbits(a), BITS.astype(float)),            # TypeError, as NumPy's
    (lambda a: np.unpackbits(a, count=-40), BYTES),           # ValueError, as NumPy's
]


@pytest.mark.parametrize("k", range(len(BIT_CASES)))
def test_packbits_and_unpackbits(k):
    three_way(*BIT_CASES[k])


def distinct(x):
    return len(set(x))


def one_class(y):
    if len(set(y)) == 1:  # numpy-ml's decision tree leaf test
        return y * 2
    return y


SET_CASES = [
    (distinct, np.array([1, 2, 2, 3])), (distinct, np.array([1.0, np.nan, np.nan, -0.0, 0.0])),
    (distinct, np.zeros(0)), (distinct, np.array([True, False, True])),
    (lambda x: distinct(x[x > 1]), np.arange(6)), (one_class, np.array([3.0, 3.0])),
    (one_class, np.array([3.0, 4.0])), (lambda x: (len(set([1, 2, 2])), set()), np.ones(2)),
    (lambda x: set(x.reshape(2, 2)), np.arange(4)),  # TypeError: rows are unhashable
]


@pytest.mark.parametrize("k", range(len(SET_CASES)))
def test_len_of_a_set_of_symbolic_values(k):
    three_way(*SET_CASES[k])


@pytest.mark.parametrize("fn", [lambda x: sorted(set(x)), lambda x: 2 in set(x),
                                lambda x: set(x) | {1}])
def test_a_set_s_order_and_members_are_refused_naming_np_unique(fn):
    with pytest.raises(ag.GraphModeError, match="np.unique"):
        ag.function(fn)(np.array([3, 1, 3]))


def _graph_gradient(fn, x):
    def step(x):
        with ag.GradientTape() as tape:
            tape.watch(x)
            y = np.sum(fn(x))
        return tape.gradient(y, x)
    return ag.function(step)(x)


M = np.array([[0.3, 1.2, 0.1], [0.9, 0.2, 1.5]])
V = np.array([0.4, 0.1, 0.9, 0.5, 1.3, 0.2])


@pytest.mark.parametrize("fn, x", [
    (lambda x: np.maximum.accumulate(x) ** 2, V),
    (lambda x: np.minimum.accumulate(x[::-1]) * x, V),
    (lambda x: np.maximum.accumulate(x, axis=1) ** 2, M),
    (lambda x: np.fmin.accumulate(x, axis=0) ** 3, M),
    (lambda x: np.concatenate([x[x > 0.3], x]) ** 2, V),
])
def test_gradients_match_central_differences(fn, x):
    (expected,) = numeric_grads(fn, [x])
    np.testing.assert_allclose(_graph_gradient(fn, x), expected, rtol=1e-6, atol=1e-8)


def test_gradient_through_np_unique_is_refused_clearly():
    with pytest.raises(NotImplementedError, match="No gradient rule for `unique`"):
        _graph_gradient(lambda x: np.intersect1d(x, x[::2]) ** 2, V)
