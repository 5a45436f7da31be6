"""Chains of elementwise ops at the sizes where the executor starts slicing them across
the cores (runtime/exec/chunks.py), differential against eager NumPy: the default
executor (parallel and serial), the unoptimized graph and `jit_compile=True` give eager's
bits, dtypes, warnings (each once, in eager's order) and exceptions, whichever thread
computed which slice."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import autograph as ag
from runtime.exec import chunks

N = chunks.MIN_REGION_ELEMENTS           # the smallest region the executor slices
SIZES = [N - 1, N, 3 * chunks.CHUNK_ELEMENTS + 7]


def _variants(fn):
    out = {"graph": ag.function(fn, autograph=False),
           "serial": ag.function(fn, autograph=False, parallel=False),
           "unoptimized": ag.function(fn, autograph=False, optimize=False)}
    try:
        import numba  # noqa: F401
    except ImportError:
        return out
    out["jit"] = ag.function(fn, autograph=False, jit_compile=True)
    return out


def _outcome(fn, args, errstate):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            with np.errstate(**errstate):
                result = fn(*args)
        except Exception as e:  # noqa: BLE001 - compared with eager's
            result = e
    return result, [(w.category, str(w.message)) for w in seen
                    if w.category is not getattr(ag, "JitFallbackWarning", None)]


def _same(got, want) -> None:
    if isinstance(want, BaseException):
        assert type(got) is type(want) and str(got) == str(want), (got, want)
        return
    got, want = (tuple(v) if isinstance(v, tuple) else (v,) for v in (got, want))
    assert len(got) == len(want)
    for a, e in zip(got, want):
        a, e = np.asarray(a), np.asarray(e)
        assert (a.dtype, a.shape) == (e.dtype, e.shape)
        assert a.tobytes() == e.tobytes()


def check(fn, *args, errstates=({"all": "ignore"}, {}, {"all": "raise"})):
    """Every variant against eager, under each errstate; returns the graph Function."""
    variants = _variants(fn)
    for state in errstates:
        want, want_notes = _outcome(fn, args, state)
        for name, f in variants.items():
            got, notes = _outcome(f, args, state)
            _same(got, want)
            assert notes == want_notes, (name, state, notes, want_notes)
    return variants["graph"]


def _values(n, dtype=np.float64, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n) * 10.0 ** rng.integers(-3, 3, n)
    return x.astype(dtype)


def _benchmark_chain(x):
    y = x * 2.0 + 1.0
    y = np.tanh(y) * x
    y = y - x / 3.0
    return np.sqrt(np.abs(y)) + 0.5


def _unary(x):
    return np.exp(np.sin(x) * 0.5) - np.cbrt(np.arctan(x)) + np.log1p(np.abs(x))


def _binary(x, y):
    return np.hypot(x, y) * np.maximum(x, y) - np.arctan2(y, x) / (np.abs(y) + 1.0)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("fn", [_benchmark_chain, _unary], ids=lambda f: f.__name__)
def test_float_chains(fn, n):
    f = check(fn, _values(n))
    assert ("ag_chunked" in f.get_concrete_function(_values(n)).python_code) == (n >= N)


@pytest.mark.parametrize("n", SIZES)
def test_binary_with_scalars_and_arrays(n):
    check(_binary, _values(n), _values(n, seed=1))


def test_broadcast_rows_and_columns():
    x = _values(N).reshape(-1, 64)
    check(_binary, x, _values(64, seed=2))             # a row: not one shape, not sliced
    check(_binary, x, _values(N // 64, seed=3)[:, None])
    check(_benchmark_chain, x)                           # 2-d, sliced along rows


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint8, np.float32, np.float16])
def test_mixed_dtypes(dtype):
    def fn(x, y):
        a = x * 3 + y            # y: float64, so a promotes
        b = (x // 7) * x - 1     # x's own dtype (integers wrap as eagerly)
        return np.tanh(a * 0.001) + b, b

    if np.dtype(dtype).kind in "iu":
        x = np.random.default_rng(4).integers(0, 100, N).astype(dtype)
    else:
        x = _values(N, dtype)
    check(fn, x, _values(N))


def test_special_values_warn_once_and_raise_as_eagerly():
    x = _values(3 * chunks.CHUNK_ELEMENTS + 7)
    x[[5, chunks.CHUNK_ELEMENTS + 1, -3]] = [np.nan, np.inf, -np.inf]
    x[[100, -100]] = [0.0, -0.0]

    def fn(x):
        y = np.log(x) * 2.0            # invalid (x < 0) and divide by zero (x == 0)
        return np.exp(y * 400.0) / x    # overflow, divide by zero again

    check(fn, x, errstates=({"all": "ignore"}, {}, {"all": "raise"}, {"divide": "raise"},
                            {"over": "raise", "invalid": "ignore"}, {"all": "warn"}))


def test_non_contiguous_inputs():
    base = _values(4 * N)
    for x in (base[::4], base[::-4], base.reshape(-1, 4)[:, 1],
              base.reshape(4, -1).T.copy().T[:, :2]):
        check(_benchmark_chain, x)


def test_outputs_that_alias_inputs_and_each_other():
    def fn(x, y):
        y = np.tanh(x) * y + 1.0
        return x, y, y, y * 2.0

    x, y = _values(N), _values(N, seed=5)
    f = check(fn, x, y)
    a, b, c, _ = f(x, y)
    assert a is x and b is c


def test_input_rebound_to_result_leaves_the_argument_alone():
    def fn(x):
        x = np.sqrt(np.abs(x)) + 0.5   # rebinding, not writing: the caller's x is kept
        x = np.tanh(x) * x
        return x

    x = _values(N)
    kept = x.copy()
    check(fn, x)
    assert x.tobytes() == kept.tobytes()
