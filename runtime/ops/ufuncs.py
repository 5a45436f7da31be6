"""Every NumPy ufunc as an op: `np.add(x, 1)`, `x * y`, `np.exp(x)`, `x @ w`, ...

One `OpDef` per ufunc is made on first use; its kernel is the ufunc itself, so
generated code reads `np.add(x, 1.0)`. The shape/dtype rule (ufuncs_rules.py) follows
broadcasting and the ufunc's own dtype resolver (NEP 50: float32 + 1.0 is float32).
"""
from __future__ import annotations

import numpy as np

from runtime.errors import where
from runtime.ops.registry import OpDef, bind
from runtime.ops.rules_common import broadcast_shapes  # noqa: F401 - re-exported
from runtime.ops.ufuncs_rules import all_weak, ufunc_rule
from runtime.tensor import Tensor

_OPS: dict[np.ufunc, OpDef] = {}


def ufunc_op(ufunc: np.ufunc) -> OpDef:
    op = _OPS.get(ufunc)
    if op is None:
        op = OpDef(ufunc.__name__, ufunc, ufunc_rule, num_outputs=ufunc.nout, kernel_ref=f"np.{ufunc.__name__}")
        _OPS[ufunc] = op
    return op


def _python_number_kernel(v):
    return v.item() if isinstance(v, (np.generic, np.ndarray)) else v


# A value standing for a Python number (`x.shape[i]` of an unknown dimension, a Python int
# carried by a loop) is a NumPy scalar when the graph runs; mixed with typed operands it
# must promote as the Python number does, so the ufunc is given the number itself.
PYTHON_NUMBER = OpDef("python_number", _python_number_kernel,
                      lambda op, ins, attrs: [(ins[0].static_shape, ins[0].dtype)])


PYTHON_NUMBER.grad = lambda rec, cts: [cts[0]]  # the same number


def python_number(x: Tensor) -> Tensor:
    out = bind(PYTHON_NUMBER, x)
    out.weak = True
    return out


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
    weak_all = all_weak(inputs)
    if not weak_all:  # a weak value among typed ones: NumPy sees the Python number (NEP 50)
        inputs = [python_number(x) if isinstance(x, Tensor) and x.weak else x for x in inputs]
    result = bind(ufunc_op(ufunc), *inputs, **kwargs)
    if weak_all:  # Python numbers in, a Python number out (dtype discovery)
        for r in result if isinstance(result, tuple) else (result,):
            if isinstance(r, Tensor):
                r.weak = True
    return result
