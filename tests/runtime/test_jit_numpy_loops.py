"""jit_compile=True: array kernels that call NumPy's own loops for transcendental ufuncs
(runtime/jit/numpy_loops.py), differential against the default executor: bitwise values,
the same warnings, the same exception under errstate "raise", on special values (NaN,
±inf, signed zeros, subnormals, the float limits), float64 and float32, across kernel
blocks and executor slices."""
from __future__ import annotations

import numpy as np
import pytest

from tests.runtime.jit_harness import check_jit, compiled_regions

pytestmark = pytest.mark.usefixtures("small_jit_regions")

UNARY = [np.tanh, np.exp, np.log, np.sin, np.cos, np.tan, np.arctan, np.arcsin, np.arccos,
         np.sinh, np.cosh, np.arcsinh, np.arctanh, np.log1p, np.expm1, np.exp2, np.log2,
         np.log10, np.cbrt]
BINARY = [np.arctan2, np.hypot, np.logaddexp, np.copysign, np.nextafter, np.fmod]


def _values(dtype, n: int = 3000) -> np.ndarray:
    """`n` values: the special ones first, then a spread over many magnitudes."""
    info = np.finfo(dtype)
    special = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5, -0.5, info.tiny,
               -info.tiny, info.smallest_subnormal, -info.smallest_subnormal, info.max,
               -info.max, 710.0, -710.0, 89.0, 1e-8, -1e-8, 3.0, 20.0, -20.0]
    rng = np.random.default_rng(len(special))
    spread = rng.standard_normal(n - len(special)) * 10.0 ** rng.integers(-6, 4, n - len(special))
    return np.concatenate([np.array(special), spread]).astype(dtype)


def _unary_chain(ufunc):
    def chain(x):
        y = x * 1.5 - 0.25
        return ufunc(y) * x + y
    return chain


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("ufunc", UNARY, ids=lambda u: u.__name__)
def test_unary_loop_inside_a_kernel_is_numpys(ufunc, dtype):
    x = _values(dtype)
    jit = check_jit(_unary_chain(ufunc), x)
    cf = jit.get_concrete_function(x)
    assert compiled_regions(jit, x) == 1 and "numpy_loop(" in cf.jit_code


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("ufunc", BINARY, ids=lambda u: u.__name__)
def test_binary_loop_inside_a_kernel_is_numpys(ufunc, dtype):
    x = _values(dtype)
    y = np.roll(x, 7)

    def chain(a, b):
        c = a * 0.5 + b
        return ufunc(c, b - a) - a
    jit = check_jit(chain, x, y)
    assert "numpy_loop(" in jit.get_concrete_function(x, y).jit_code


def _loops_in_a_row(x):
    y = np.exp(np.tanh(x))           # two NumPy loops back to back
    return y * 2.0, np.sin(x) + y    # two results, one read across the whole kernel


def _loop_last(x):
    return np.log(x * x + 1.0)       # a result straight from NumPy's loop


def _loop_first(x):
    return np.cos(x) - x / 3.0       # an input straight into NumPy's loop


@pytest.mark.parametrize("fn", [_loops_in_a_row, _loop_last, _loop_first])
@pytest.mark.parametrize("n", [1, 1023, 1024, 1025, 5000])
def test_block_edges_and_values_crossing_loop_calls(fn, n):
    x = _values(np.float64, 5000)[:n]
    check_jit(fn, x)
    check_jit(fn, x[::-1].copy())


def test_strided_and_integer_inputs():
    x = _values(np.float64, 6000)
    check_jit(_unary_chain(np.tanh), x[::2])         # a copy in C order, then the kernel
    check_jit(_unary_chain(np.exp), np.arange(-50, 50, dtype=np.int64))  # int: NumPy casts
    check_jit(_unary_chain(np.exp), np.arange(-50, 50, dtype=np.float16))


def _warns(x):
    y = np.log(x - 1.0) * 2.0       # invalid where x < 1, divide by zero where x == 1
    return np.exp(y * 400.0) + x     # overflow where x is large


@pytest.mark.parametrize("where", [0, 70000, (1 << 18) - 1])
@pytest.mark.parametrize("bad", [0.0, 1.0, 1e10])
def test_a_loop_that_warns_in_one_slice_warns_as_numpy(where, bad):
    """Large arrays run in slices across the cores; a NumPy loop's IEEE flags send the
    region to NumPy, which warns or raises as the default executor does."""
    x = np.full(1 << 18, 2.0)
    x[where] = bad
    check_jit(_warns, x)
    quiet = check_jit(_warns, np.full(1 << 18, 2.0))
    assert "ag_chunked(" in quiet.get_concrete_function(x).python_code


def test_large_chain_in_slices_is_bitwise():
    x = _values(np.float64, 1 << 19)
    for fn in (_unary_chain(np.tanh), _loops_in_a_row, _loop_first):
        check_jit(fn, x, errstates=(None, "ignore"))


def test_one_kernel_on_two_threads_at_once():
    """A kernel's NumPy loop calls take their operands from the calling frame: two threads
    running one kernel (several loops) at once both get NumPy's bits (its operand tables
    used to be heap arrays, read after another thread's allocations reused them)."""
    import threading

    import autograph as ag

    def fn(x):
        return np.exp(np.sin(x) * 0.5) - np.cbrt(np.arctan(x)) + np.log1p(x)

    x = _values(np.float64, 1 << 17)
    f = ag.function(fn, autograph=False, jit_compile=True, parallel=False)
    with np.errstate(all="ignore"):
        want = fn(x).tobytes()
        assert f(x).tobytes() == want
    assert compiled_regions(f, x) == 1
    same: list = []

    def calls():
        with np.errstate(all="ignore"):
            same.extend(f(x).tobytes() == want for _ in range(100))

    threads = [threading.Thread(target=calls) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(same) == 200 and all(same)
