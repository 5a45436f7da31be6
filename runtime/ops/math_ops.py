"""The `math` module's functions as ops, for `math.sqrt(x)` of a symbolic value in
converted code (autograph/operators/math_calls.py binds them).

The kernel is the math function itself, so results and errors are Python's bit for bit
(NumPy's own sin/exp/log may differ from the C library's in the last bit, and warn where
math raises "math domain error"). The result stands for the Python number math returns
(weak, NEP 50). The derivative is the matching NumPy ufunc's rule.

    math.sqrt(x)   ->   v3 = k_math_sqrt(v2)        # a Python float when the graph runs
"""
from __future__ import annotations

import math
from typing import Callable

import numpy as np

from runtime.core.registry import OpDef
from runtime.ops.ufuncs import ufunc_op

_FLOAT, _INT, _BOOL = np.dtype(np.float64), np.dtype(np.int64), np.dtype(np.bool_)
_INT64 = np.iinfo(np.int64)

# math function -> the NumPy ufunc whose derivative it shares
_FLOAT_FUNCTIONS = {
    math.sqrt: np.sqrt, math.exp: np.exp, math.expm1: np.expm1, math.log2: np.log2,
    math.log10: np.log10, math.log1p: np.log1p, math.sin: np.sin, math.cos: np.cos,
    math.tan: np.tan, math.asin: np.arcsin, math.acos: np.arccos, math.atan: np.arctan,
    math.sinh: np.sinh, math.cosh: np.cosh, math.tanh: np.tanh, math.asinh: np.arcsinh,
    math.acosh: np.arccosh, math.atanh: np.arctanh, math.fabs: np.fabs,
    math.degrees: np.degrees, math.radians: np.radians, math.cbrt: np.cbrt,
    math.exp2: np.exp2, math.atan2: np.arctan2, math.hypot: np.hypot, math.pow: np.power,
    math.copysign: np.copysign, math.fmod: np.fmod,
}
_INT_FUNCTIONS = (math.floor, math.ceil, math.trunc)
_BOOL_FUNCTIONS = (math.isnan, math.isinf, math.isfinite)


def _same_derivative(ufunc) -> Callable:
    def grad(rec, cts):  # (the ufunc rules load with runtime.autodiff, before any gradient)
        return ufunc_op(ufunc).grad(rec, cts)
    return grad


def _log_grad(rec, cts):
    g = cts[0]
    if len(rec.inputs) == 1:
        return [g / rec.inputs[0]]
    x, base = rec.inputs
    ln_base = np.log(base)
    return [g / (x * ln_base), -g * np.log(x) / (base * ln_base * ln_base)]


def _as_int64(fn: Callable) -> Callable:
    """`fn`'s Python int, which the graph holds as int64: beyond it, an OverflowError
    (never a wrapped number)."""
    def kernel(x):
        r = fn(x)
        if not _INT64.min <= r <= _INT64.max:
            raise OverflowError(f"math.{fn.__name__}({x!r}) does not fit in int64, which a "
                                "graph uses for a Python int: keep it a float here "
                                f"(np.{fn.__name__}(x))")
        return r
    kernel.__name__ = fn.__name__
    return kernel


def _record(fn: Callable, kernel: Callable, dtype: np.dtype, grad=None) -> OpDef:
    return OpDef(f"math.{fn.__name__}", kernel, lambda op, ins, attrs: [((), dtype)],
                 grad=grad)


MATH_OPS: dict = {}  # math function -> its op
for _fn, _ufunc in _FLOAT_FUNCTIONS.items():
    MATH_OPS[_fn] = _record(_fn, _fn, _FLOAT, _same_derivative(_ufunc))
MATH_OPS[math.log] = _record(math.log, math.log, _FLOAT, _log_grad)
for _fn in _INT_FUNCTIONS:
    MATH_OPS[_fn] = _record(_fn, _as_int64(_fn), _INT)
for _fn in _BOOL_FUNCTIONS:
    MATH_OPS[_fn] = _record(_fn, _fn, _BOOL)
