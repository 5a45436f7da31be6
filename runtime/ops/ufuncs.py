"""Every NumPy ufunc as an op: `np.add(x, 1)`, `x * y`, `np.exp(x)`, `x @ w`, ...

One `OpDef` per ufunc is made on first use; its kernel is the ufunc itself, so
generated code reads `np.add(x, 1.0)`. Shapes follow broadcasting (an unknown dim
broadcast against a known one takes the known one) and dtypes come from the ufunc's
own resolver, which applies NEP 50 (Python scalars are weak: float32 + 1.0 is float32).
"""
from __future__ import annotations

import numpy as np

from runtime.errors import where
from runtime.ops.registry import OpDef, bind, eval_by_example
from runtime.tensor import Tensor

_OPS: dict[np.ufunc, OpDef] = {}


def broadcast_shapes(*shapes) -> tuple:
    """Broadcast static shapes whose entries may be None (unknown)."""
    ndim = max((len(s) for s in shapes), default=0)
    out = []
    for axis in range(-ndim, 0):
        dims = [s[axis] for s in shapes if len(s) >= -axis]
        known = {d for d in dims if d is not None and d != 1}
        if len(known) > 1:
            raise ValueError(
                f"operands could not be broadcast together with shapes "
                f"{' '.join(str(tuple(s)) for s in shapes)}{where()}"
            )
        if known:
            out.append(known.pop())
        elif None in dims:
            out.append(None)
        else:
            out.append(1)
    return tuple(out)


_PYTHON_TYPE = {"f": float, "i": int, "u": int, "c": complex}


def _all_weak(inputs) -> bool:
    """Every operand is a Python number or stands for one (and at least one is symbolic)."""
    return any(isinstance(x, Tensor) for x in inputs) and all(
        (isinstance(x, Tensor) and x.weak) or type(x) in (bool, int, float, complex)
        for x in inputs)


def _operand_dtype(x, all_weak: bool = False):
    if isinstance(x, Tensor):
        if x.weak and not all_weak and x.dtype.kind in _PYTHON_TYPE:
            return _PYTHON_TYPE[x.dtype.kind]
        return x.dtype
    if all_weak and type(x) in (int, float, complex):
        return np.asarray(x).dtype
    if isinstance(x, (bool, np.bool_)):
        return np.dtype(bool)
    if type(x) in (int, float, complex):
        return type(x)  # weak Python scalar (NEP 50)
    return np.asarray(x).dtype


def _ufunc_abstract_eval(op: OpDef, inputs: list, attrs: dict):
    ufunc = op.kernel
    if attrs or ufunc.signature is not None:
        return eval_by_example(op, inputs, attrs)
    weak = _all_weak(inputs)
    try:
        dtypes = ufunc.resolve_dtypes(tuple(_operand_dtype(x, weak) for x in inputs)
                                      + (None,) * ufunc.nout)
    except (TypeError, np.exceptions.DTypePromotionError):
        return eval_by_example(op, inputs, attrs)  # raises NumPy's own error (no loop, ...)
    # after the dtypes, like NumPy: a dtype error wins over a broadcasting error
    shape = broadcast_shapes(*(np.shape(x) if not isinstance(x, Tensor) else x.shape for x in inputs))
    return [(shape, dt) for dt in dtypes[ufunc.nin:]]


def _matmul_abstract_eval(op: OpDef, inputs: list, attrs: dict):
    a, b = (x.shape if isinstance(x, Tensor) else np.shape(x) for x in inputs)
    if attrs or len(a) == 0 or len(b) == 0:
        return eval_by_example(op, inputs, attrs)
    dtype = np.result_type(*(x.dtype if isinstance(x, Tensor) else np.asarray(x).dtype for x in inputs))
    a2 = a if len(a) > 1 else (1,) + a
    b2 = b if len(b) > 1 else b + (1,)
    if a2[-1] is not None and b2[-2] is not None and a2[-1] != b2[-2]:
        raise ValueError(f"matmul: inner dimensions differ: {a} @ {b}{where()}")
    batch = broadcast_shapes(a2[:-2], b2[:-2])
    out = batch + ((a2[-2],) if len(a) > 1 else ()) + ((b2[-1],) if len(b) > 1 else ())
    return [(out, dtype)]


def ufunc_op(ufunc: np.ufunc) -> OpDef:
    op = _OPS.get(ufunc)
    if op is None:
        rule = _matmul_abstract_eval if ufunc is np.matmul else _ufunc_abstract_eval
        op = OpDef(ufunc.__name__, ufunc, rule, num_outputs=ufunc.nout, kernel_ref=f"np.{ufunc.__name__}")
        _OPS[ufunc] = op
    return op


def dispatch_ufunc(ufunc, method, inputs, kwargs):
    """`__array_ufunc__` of Tensor: record `ufunc(*inputs)` as a node."""
    if method != "__call__":
        raise TypeError(
            f"np.{ufunc.__name__}.{method} is not supported in graphs{where()}; "
            f"use the matching NumPy function (e.g. np.sum, np.max, np.cumsum) instead."
        )
    if kwargs.get("out") is not None:
        raise TypeError(f"np.{ufunc.__name__}(..., out=...) is not supported in graphs{where()}: "
                        "tensors are immutable; use the returned value.")
    if "where" in kwargs:
        raise TypeError(f"np.{ufunc.__name__}(..., where=...) is not supported in graphs{where()}; "
                        "use np.where on the result.")
    kwargs = {k: v for k, v in kwargs.items() if k != "out"}
    from runtime.ops.functions import resolve_variables

    inputs = resolve_variables(inputs)
    result = bind(ufunc_op(ufunc), *inputs, **kwargs)
    if _all_weak(inputs):  # Python numbers in, a Python number out (dtype discovery)
        for r in result if isinstance(result, tuple) else (result,):
            if isinstance(r, Tensor):
                r.weak = True
    return result
