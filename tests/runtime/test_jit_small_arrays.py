"""jit_compile=True on small whole arrays: reductions (max, min, sum, mean, var, std)
and the elementwise ops around them become loops in one numba function, with NumPy's
bits (pairwise sums along rows, row-after-row sums down columns, the identity first),
NumPy's warnings and errors (IEEE flags), and NumPy's choice wherever the order would
show (a zero among zeros of both signs, NaN). Three-way: eager, the default executor and
jit on the same inputs, also under errstate raise/ignore."""
from __future__ import annotations

import numpy as np
import pytest

from tests.runtime.test_jit_element_loops import _no_fallback, three_way

RNG = np.random.default_rng(25)


def _data(shape, dtype="float64"):
    x = RNG.normal(size=shape) * 10.0 ** RNG.uniform(-3, 3, size=shape)
    return x.astype(dtype)


def sums(x):
    return x.sum(), x.sum(axis=-1), np.sum(x, axis=0, keepdims=True), x.mean(axis=-1)


def extrema(x):
    return x.max(), np.min(x, axis=0), x.max(axis=-1, keepdims=True), np.max(x, axis=None,
                                                                             keepdims=True)


def moments(x):
    return x.var(), x.std(axis=0, ddof=1), np.var(x, axis=-1, keepdims=True), x.std(axis=-1)


def sums_three_ways(rows, columns, flat):
    return sums(rows), sums(columns), flat.sum(), flat.mean()


# lengths that take each path of NumPy's pairwise sum: under 8, blocks of 8 with a
# rest, halves (of halves) above 128
@pytest.mark.parametrize("n", [1, 7, 9, 129, 300])
def test_float64_sums_add_in_numpys_order(n):
    three_way(sums_three_ways, _data((2, n)), _data((n, 2)), _data(n))


def float32_reductions(x):
    return x.sum(axis=-1), x.sum(), x.max(), x.min(axis=0)


def test_float32_sums_and_extrema():
    three_way(float32_reductions, _data((3, 200), "float32"))


def int_sums(x):
    return x.sum(), x.sum(axis=0), x.sum(axis=-1, keepdims=True)


def integer_reductions(small, wide, flags, unsigned):
    # (unsigned integers sum into uint64: left to NumPy)
    return int_sums(small), int_sums(wide), int_sums(flags), extrema(small), extrema(unsigned)


def test_integer_sums_and_extrema():
    x = RNG.integers(-100, 100, size=(4, 9))
    three_way(integer_reductions, x.astype("int8"), x * 2 ** 40, x > 0, np.abs(x).astype("uint8"))


def extrema_and_moments(x):
    return extrema(x), moments(x)


def test_extrema_and_moments():
    three_way(extrema_and_moments, _data((5, 4)))
    three_way(extrema_and_moments, _data((3, 30)))


def test_signed_zeros_and_nans_take_numpys_result():
    mixed = np.array([[0.0, -0.0, -1.0], [-0.0, -0.0, -2.0], [0.0, 0.0, -3.0]])
    three_way(extrema, mixed)
    three_way(extrema, -mixed)
    three_way(extrema, np.full((3, 3), -0.0))
    three_way(sums, np.full((3, 9), -0.0))
    with_nan = _data((3, 9))
    with_nan[1, 2] = np.nan
    three_way(extrema, with_nan)
    three_way(sums, with_nan)


def test_overflow_and_invalid_warn_or_raise_as_numpy_does():
    three_way(sums, np.full((3, 9), 1e308))              # overflow encountered in reduce
    three_way(extrema_and_moments, np.full((5, 4), 1e308))
    inf = np.array([[np.inf, -np.inf, 1.0, 0.0]] * 5)
    three_way(extrema_and_moments, inf)                  # inf - inf: invalid value
    three_way(softmax, np.array([[1000.0, -1000.0], [0.0, 1e-320]]))


def softmax(x):
    z = x - np.max(x, axis=-1, keepdims=True)
    e = np.exp(z)
    return e / np.sum(e, axis=-1, keepdims=True)


def zscore(a, ddof=1):
    return (a - a.mean(axis=0, keepdims=True)) / a.std(axis=0, ddof=ddof, keepdims=True)


def l2_normalize(x, eps=1e-12):
    return x / np.maximum(np.sqrt(np.sum(x * x, axis=-1, keepdims=True)), eps)


@pytest.mark.parametrize("fn", [softmax, zscore, l2_normalize])
def test_model_helpers_with_broadcasting(fn):
    three_way(fn, _data((16, 10)))
    three_way(fn, np.zeros((16, 10)))  # 0 / 0 in zscore: invalid, warned as NumPy does


@pytest.mark.parametrize("layout", ["F", "strided", "transposed"])
def test_arguments_of_any_layout(layout):
    x = _data((24, 18))
    arg = {"F": np.asfortranarray(x[:12, :9]), "strided": x[::2, ::2],
           "transposed": x[:9, :12].T}[layout]
    three_way(sums_and_zscore, arg)


def sums_and_zscore(a):
    return a.sum(), a.sum(axis=0), a.sum(axis=-1), zscore(a)


def newton_sqrt(a, x0, max_iter=50, tol=1e-12):
    x = x0.copy()
    for _ in range(max_iter):
        dx = (x * x - a) / (2.0 * x)
        x = x - dx
        if np.max(np.abs(dx)) < tol:
            break
    return x


def test_a_solver_loop_over_a_small_array_is_one_compiled_function():
    a = np.linspace(1.0, 9.0, 8)
    three_way(newton_sqrt, a, np.ones(8))
    three_way(newton_sqrt, a, np.zeros(8))  # 0 / 0 on the first step
    _no_fallback(newton_sqrt, a, np.ones(8))
