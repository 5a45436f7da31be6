"""Every op of the numba lowering table, jit_compile=True vs the default executor.

Array mode: a run of two ops over 1-D arrays holding the awkward values (NaN, ±inf,
-0.0, subnormals, overflow, zero divisors, MIN // -1). Scalar mode: the same ops on 0-d
values inside a `while` loop. Bitwise equal results, the same warnings, the same
exception under errstate(all="raise").
"""
from __future__ import annotations

import numpy as np
import pytest

from tests.runtime.jit_harness import check_jit, compiled_regions

pytestmark = pytest.mark.usefixtures("small_jit_regions")


BINARY = [np.add, np.subtract, np.multiply, np.divide, np.floor_divide, np.remainder,
          np.maximum, np.minimum, np.less, np.less_equal, np.greater, np.greater_equal,
          np.equal, np.not_equal, np.logical_and, np.logical_or, np.logical_xor]
INT_ONLY = [np.bitwise_and, np.bitwise_or, np.bitwise_xor]
UNARY = [np.negative, np.absolute, np.square, np.sqrt, np.floor, np.ceil, np.trunc, np.rint,
         np.logical_not, np.positive]
DTYPES = ["float64", "float32", "int64", "int8", "uint8", "bool"]

_F = [0.0, -0.0, 1.5, -2.5, 3.0, np.nan, np.inf, -np.inf, 1e308, 1e-310, 7.0, -1e-300]
_G = [2.0, 0.0, -0.0, np.nan, 1.5, np.inf, -np.inf, 1e10, -3.0, 1e-300, 2.0, 1e300]
_I = [0, 1, -1, 7, -7, -2**63, 2**63 - 1, 5, 100, -100, 3, 2**31]
_J = [2, 0, -1, 3, -3, -1, 2, 7, 0, 9, -2, 2**31]


def values(dtype: str, second: bool) -> np.ndarray:
    dt = np.dtype(dtype)
    if dt.kind == "f":
        return np.array(_G if second else _F, dtype=dt)
    if dt.kind == "b":
        return np.array([True, False, True, True, False, False] * 2)[::-1 if second else 1]
    return np.array(_J if second else _I, dtype=np.int64).astype(dt)  # wraps, as intended


def quiet(dtype: str) -> tuple:
    """Inputs on which no op should warn: the compiled path itself is compared."""
    dt = np.dtype(dtype)
    if dt.kind == "f":
        return (np.array([1.5, -2.5, 3.0, 0.25, -0.0, np.nan, np.inf], dt),
                np.array([2.0, 4.0, -3.0, 0.5, 1.0, 2.0, 3.0], dt))
    if dt.kind == "b":
        return values(dtype, False), values(dtype, True)
    return (np.array([1, 5, 7, 12, 0, 3, 9], dt), np.array([2, 3, 1, 5, 7, 2, 4], dt))


def _binary_chain(op):
    def f(x, y):
        return op(op(x, y), y)
    return f


def _unary_chain(op):
    def f(x):
        return op(op(x))
    return f


def _applicable(op, dtype) -> bool:
    try:
        with np.errstate(all="ignore"):
            op(*([values(dtype, False)] * op.nin))
    except TypeError:
        return False
    return True


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", BINARY + INT_ONLY, ids=lambda u: u.__name__)
def test_binary_array_region(op, dtype):
    if not _applicable(op, dtype):
        pytest.skip(f"NumPy has no {op.__name__} loop for {dtype}")
    f = _binary_chain(op)
    for x, y in [(values(dtype, False), values(dtype, True)), quiet(dtype)]:
        check_jit(f, x, y)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", UNARY, ids=lambda u: u.__name__)
def test_unary_array_region(op, dtype):
    if not _applicable(op, dtype):
        pytest.skip(f"NumPy has no {op.__name__} loop for {dtype}")
    check_jit(_unary_chain(op), values(dtype, False))
    check_jit(_unary_chain(op), quiet(dtype)[0])


def test_quiet_float_chain_is_compiled_and_bitwise():
    x, y = quiet("float64")

    def f(x, y):
        return np.maximum(x * y + 1.0, y) - np.minimum(x, y) / 3.0

    jit = check_jit(f, x, y)
    assert compiled_regions(jit, x, y) == 1
    assert "for i in range(t_v6_out.size)" in jit.get_concrete_function(x, y).jit_code
    # the kernel's own result, not a NumPy rerun: no IEEE flag NumPy reports was raised
    # (only the NaN compared in maximum/minimum raises one, which sends it to NumPy)
    kernel = _array_kernel(jit, x, y)
    for n, flagged in ((5, False), (7, True)):  # the first five hold no NaN
        out = np.empty(n)
        assert bool(kernel(x[:n].copy(), y[:n].copy(), out)) == flagged
        np.testing.assert_array_equal(out, f(x[:n], y[:n]))


def _array_kernel(function, *args):
    """The compiled entry point of the one array kernel of `function`'s trace."""
    glob = function.get_concrete_function(*args)._fn.__globals__
    (wrapper,) = [v for k, v in glob.items() if k.startswith("k_jit_region")]
    return wrapper.__globals__["compiled"]


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "int32", "int8"])
def test_where_and_astype_in_a_region(dtype):
    x, y = values(dtype, False), values(dtype, True)

    def f(x, y):
        big = np.where(x > y, x, y)
        return big.astype(np.float32) * 2, (big != 0).astype(np.int8), big.astype(np.int16)

    check_jit(f, x, y)


def _scalar_loop(op):
    def f(x, y, n):
        i = np.int64(0)
        while i < n:
            x = op(x, y)
            i = i + 1
        return x
    return f


SCALAR_PICKS = {"float64": [1e308, -0.0, 1.5, np.nan, 0.0], "float32": [3e38, 0.5, -2.0],
                "int64": [2**62, -2**63, 7, 0, -1], "int32": [2**30, -7, 2**31 - 1, 0],
                "int8": [100, -128, 3, 0]}


@pytest.mark.parametrize("dtype", list(SCALAR_PICKS))
@pytest.mark.parametrize("op", [np.add, np.subtract, np.multiply, np.divide, np.floor_divide,
                                np.remainder, np.maximum], ids=lambda u: u.__name__)
def test_scalar_loop_region(op, dtype):
    t = np.dtype(dtype).type
    picks = SCALAR_PICKS[dtype]
    f = _scalar_loop(op)
    if op is np.divide and np.dtype(dtype).kind != "f":
        pytest.skip("int / int is float64: the loop variable would change dtype")
    for a in picks:
        for b in picks[:3]:
            jit = check_jit(f, t(a), t(b), np.int64(3))
    # float floor_divide/remainder stay NumPy (NumPy's divmod raises flags its result hides)
    lowered = not (np.dtype(dtype).kind == "f" and op in (np.floor_divide, np.remainder))
    assert compiled_regions(jit, t(picks[0]), t(picks[0]), np.int64(3)) == int(lowered)


def test_a_constant_that_overflows_its_loop_dtype_stays_numpy():
    """NumPy converts a Python number to the loop's dtype on every call and warns when it
    overflows (1e300 in float32): the constant is not folded into compiled code."""
    x = np.linspace(-2, 2, 9, dtype=np.float32)

    def f(x, y):
        return x + y, x - 1e300, (y * 2.0 + 1e300) - 1e300

    jit = check_jit(f, x, x[::-1].copy())
    assert "1e+300" in jit.get_concrete_function(x, x).python_code


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("op", [np.add, np.multiply, np.divide, np.subtract, np.sqrt],
                         ids=lambda u: u.__name__)
def test_kernels_test_each_element_where_the_flags_are_unknown(op, dtype, monkeypatch):
    """On a platform whose <fenv.h> flag values are not known here, a kernel tests the
    float guards per element instead of reading the IEEE flags: the same results,
    warnings and exceptions."""
    from runtime.jit import source

    monkeypatch.setattr(source, "fe_flags", lambda: None)
    f = _unary_chain(op) if op.nin == 1 else _binary_chain(op)
    args = [values(dtype, False)] if op.nin == 1 else [values(dtype, False), values(dtype, True)]
    jit = check_jit(f, *args)
    code = jit.get_concrete_function(*args).jit_code
    assert "fe_test" not in code and "bad += 1" in code, code
