"""An index update whose array is also read element by element before it (`out[i] =
f(out[i - 1])`) writes in place instead of copying the array: element reads are NumPy
scalar copies. Results against eager NumPy, unrolled and in symbolic loops."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import autograph as ag


def ema(x, alpha=0.1):
    out = np.empty_like(x)
    out[0] = x[0]
    for i in range(1, x.shape[0]):
        out[i] = alpha * x[i] + (1.0 - alpha) * out[i - 1]
    return out


def read_kept_across_write(x):
    d = np.zeros(4)
    d[1] = x[0]
    before = d[1]
    d[1] = 9.0
    after = d[1]
    return before, after, d


def symbolic_loop(x, n):
    d = np.zeros(8)
    i = np.int64(1)
    while i < n:
        d[i] = d[i - 1] + x[i]
        i += 1
    return d


def view_then_write(x):
    d = np.zeros(4)
    row = d[1:3]  # a view: sees the write below
    d[1] = x[0]
    return row + 0.0, d


CASES = [(ema, lambda: (np.linspace(0.0, 1.0, 12),)),
         (read_kept_across_write, lambda: (np.array([3.0, 4.0]),)),
         (symbolic_loop, lambda: (np.arange(8.0), np.int64(6))),
         (view_then_write, lambda: (np.array([2.0]),))]


def _same(got, expected):
    if isinstance(expected, tuple):
        assert isinstance(got, tuple) and len(got) == len(expected)
        for g, e in zip(got, expected):
            _same(g, e)
        return
    assert type(got) is type(expected)
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("jit_compile", [False, True])
@pytest.mark.parametrize("fn, make_args", CASES)
def test_results_as_numpy(fn, make_args, jit_compile):
    f = ag.function(fn, jit_compile=jit_compile)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="jit_compile")
        for _ in range(2):
            _same(f(*make_args()), fn(*make_args()))


def test_unrolled_updates_copy_nothing():
    f = ag.function(ema)
    f(np.linspace(0.0, 1.0, 12))
    assert "k_index_update" not in f.concrete_functions[0].python_code
