"""Arithmetic on values that stand for Python ints: exact, or an OverflowError.

A Python int carried by a symbolic loop (`a, b = b, a + b` over Python ints once the loop
is a graph loop) is an int64 in the graph; NumPy's int64 arithmetic would wrap where
Python's int is exact. So `+ - * ** // % <<`, unary minus and abs of such values (all of
them weak ints, NEP 50) are one `exact_int` node each: the kernel computes with Python
ints and raises OverflowError, naming the user's line, when the result leaves int64 -
never a wrapped number. Division and modulo by zero raise ZeroDivisionError, as Python
does (NumPy would give 0).
"""
from __future__ import annotations

import operator

import numpy as np

from runtime.core.errors import user_origin
from runtime.core.registry import OpDef, bind
from runtime.core.tensor import Tensor

_MIN, _MAX = int(np.iinfo(np.int64).min), int(np.iinfo(np.int64).max)

# ufunc -> (Python operator, the spelling for messages)
EXACT = {np.add: (operator.add, "+"), np.subtract: (operator.sub, "-"),
         np.multiply: (operator.mul, "*"), np.power: (operator.pow, "**"),
         np.floor_divide: (operator.floordiv, "//"), np.remainder: (operator.mod, "%"),
         np.left_shift: (operator.lshift, "<<"), np.negative: (operator.neg, "-"),
         np.absolute: (operator.abs, "abs"), np.square: (lambda x: x * x, "** 2")}
_BY_NAME = {u.__name__: fn for u, (fn, _) in EXACT.items()}


def _exact_kernel(*xs, ufunc: str, where: str):
    ints = [int(x) for x in xs]
    if ufunc in ("power", "left_shift") and ints[1] < 0:
        return getattr(np, ufunc)(*[np.int64(x) for x in ints])  # NumPy's own error
    if ufunc == "power" and abs(ints[0]) > 1 and ints[1] >= 64 or \
            ufunc == "left_shift" and ints[0] and ints[1] >= 64:
        raise OverflowError(_message(ufunc, where))  # (without computing a huge number)
    result = _BY_NAME[ufunc](*ints)
    if not _MIN <= result <= _MAX:
        raise OverflowError(_message(ufunc, where))
    return np.int64(result)


def _message(ufunc: str, where: str) -> str:
    spelling = next(s for u, (_, s) in EXACT.items() if u.__name__ == ufunc)
    return (f"a Python int computed with `{spelling}` in the graph{where} does not fit "
            "int64: Python's int would be exact, the graph holds ints as int64 and refuses "
            "to wrap. Make it a NumPy int64 knowingly (np.int64(...)), or a float")


def _rule(op, inputs, attrs):
    return [((), np.dtype(np.int64))]


EXACT_INT = OpDef("exact_int", _exact_kernel, _rule)


def stands_for_int(inputs) -> bool:
    """Whether every input is a Python int or a 0-d weak int64 (a Python int in the graph),
    with at least one symbolic that is not arithmetic on array sizes alone (`n * 2` of an
    unknown `x.shape[0]` cannot leave int64, and stays a plain op ONNX can export)."""
    symbolic = False
    for x in inputs:
        if isinstance(x, Tensor):
            if not (x.weak and x.dtype == np.int64 and x.ndim == 0):
                return False
            symbolic = symbolic or not _sizes_only(x, 8)
        elif type(x) is not int and type(x) is not bool:
            return False
    return symbolic


_SIZE_OPS = frozenset({"shape_dim", "size_of"})


def _sizes_only(x: Tensor, depth: int) -> bool:
    """Whether `x` is computed from array sizes and constants only (a few ops deep)."""
    node = x.node
    if node is None or depth == 0:
        return False
    if node.op.name in _SIZE_OPS:
        return True
    if not isinstance(node.op.kernel, np.ufunc) and node.op.name != "python_number":
        return False
    return all(_sizes_only(v, depth - 1) for v in node.inputs if isinstance(v, Tensor))


def exact_int(ufunc, inputs) -> Tensor:
    """`ufunc(*inputs)` on Python ints standing in the graph: exact or OverflowError."""
    origin = user_origin()
    out = bind(EXACT_INT, *inputs, ufunc=ufunc.__name__,
               where=f" (at {origin})" if origin else "")
    out.weak = True
    return out
