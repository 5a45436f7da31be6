"""NumPy functions given a list / tuple holding symbolic values: ag.function (and
jit_compile=True) vs eager NumPy."""
from __future__ import annotations

import numpy as np
import pytest

import autograph as ag


def max_of_list(a, b):
    return np.max([a, b]), np.min((a, b * 2))


def sum_of_comprehension(a, b):
    return np.sum([a * np.cos(k * 0.5) + b for k in range(4)], axis=0)


def mean_and_argmax(a, b):
    return np.mean([a, b, a + b]), np.argmax([a, b])


def ufunc_of_lists(a, b):
    return np.maximum([a, b * 0.5], b), np.exp([a, b])


def norm_of_tuple(a, b):
    return np.linalg.norm((a, b))


def python_lists_unchanged(a, b):
    return np.sum([1, 2]) + a, np.max([[1, 5], [3, 2]], axis=1)


class _Window:
    def __init__(self, a, b):
        self.items = [a, b]


def mean_of_an_attribute(a, b):
    window = _Window(a, b * 2)  # (a list held by an object: `np.mean(self.items)`)
    return np.mean(window.items, axis=0), np.max(window.items)


CASES = [max_of_list, sum_of_comprehension, mean_and_argmax, ufunc_of_lists, norm_of_tuple,
         python_lists_unchanged, mean_of_an_attribute]
INPUTS = [(np.float64(1.5), np.float64(-2.0)), (np.float32(3.0), np.float32(4.0)),
          (np.int64(2), np.int64(7)), (np.arange(2.0), np.ones(2))]


def _same(got, want):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w)
        return
    assert type(got) is type(want)
    assert np.asarray(got).dtype == np.asarray(want).dtype
    assert np.shape(got) == np.shape(want)
    np.testing.assert_allclose(got, want, rtol=1e-6)


@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("k", range(len(INPUTS)))
def test_matches_numpy(fn, jit, k):
    a, b = INPUTS[k]
    _same(ag.function(fn, jit_compile=jit)(a, b), fn(a, b))


def test_concatenate_keeps_sequence_meaning():
    def joined(a, b):
        return np.concatenate([a, b]), np.stack((a, b), axis=1)
    a, b = np.arange(3.0), np.ones(3)
    _same(ag.function(joined)(a, b), joined(a, b))


def test_ragged_list_raises_as_numpy():
    def ragged(a, b):
        return np.max([a, 1.0])
    a = np.arange(2.0)
    with pytest.raises(ValueError):
        ragged(a, a)
    with pytest.raises(ValueError):
        ag.function(ragged)(a, a)
