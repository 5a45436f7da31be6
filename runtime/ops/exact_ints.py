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


def _exact_kernel(*xs, ufunc: str, where: str, masked: bool = False):
    if masked or any(np.ndim(x) for x in xs):  # vmap: one Python int per example
        return _exact_arrays(xs[:-1] if masked else xs, xs[-1] if masked else None,
                             ufunc, where)
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


def _exact_arrays(xs, mask, ufunc: str, where: str) -> np.ndarray:
    """The kernel on arrays of Python ints (vmap's batched form): each element as the
    scalar kernel computes it, checked only where `mask` (the examples still running)
    holds; the others give 0 (their result is discarded)."""
    if ufunc in ("add", "subtract"):  # (the common case, a counter: no copies)
        a, b = np.asarray(xs[0], np.int64), np.asarray(xs[1], np.int64)
        r = a + b if ufunc == "add" else a - b  # wraps; a test on the result finds each overflow
        if b.ndim == 0:  # a counter (`i += 1`): only values within |b| of the limit it moves
            step = int(b)  # toward can wrap (one reduction finds none, the common case)
            up = (step >= 0) == (ufunc == "add")
            if (int(a.max()) <= _MAX - abs(step)) if up else (int(a.min()) >= _MIN + abs(step)):
                return r
            wrapped = r < a if up else r > a  # it wrapped where it moved the wrong way
        else:
            wrapped = ((a ^ r) & (b ^ r)) < 0 if ufunc == "add" else ((a ^ b) & (a ^ r)) < 0
        if wrapped.any() and (mask is None or (wrapped & np.reshape(
                mask, np.shape(mask) + (1,) * (r.ndim - np.ndim(mask)))).any()):
            raise OverflowError(_message(ufunc, where))
        return r
    arrays = np.broadcast_arrays(*[np.asarray(x, np.int64) for x in xs])
    out = np.zeros(arrays[0].shape, np.int64)
    active = np.ones(out.shape, bool) if mask is None else np.broadcast_to(
        np.reshape(mask, np.shape(mask) + (1,) * (out.ndim - np.ndim(mask))), out.shape)
    ins = [a[active] for a in arrays]
    if ufunc in ("power", "left_shift") and (ins[1] < 0).any():
        getattr(np, ufunc)(ins[0], ins[1])  # NumPy's own error
    if ufunc == "power" and ((np.abs(ins[0]) > 1) & (ins[1] >= 64)).any() or \
            ufunc == "left_shift" and ((ins[0] != 0) & (ins[1] >= 64)).any():
        raise OverflowError(_message(ufunc, where))
    fn = _BY_NAME[ufunc]
    exact = [fn(*(int(v) for v in vs)) for vs in zip(*ins)]  # Python's ints (and its
    if any(not _MIN <= v <= _MAX for v in exact):             # ZeroDivisionError)
        raise OverflowError(_message(ufunc, where))
    out[active] = np.array(exact, np.int64).reshape(ins[0].shape) if exact else 0
    return out


def _message(ufunc: str, where: str) -> str:
    spelling = next(s for u, (_, s) in EXACT.items() if u.__name__ == ufunc)
    return (f"a Python int computed with `{spelling}` in the graph{where} does not fit "
            "int64: Python's int would be exact, the graph holds ints as int64 and refuses "
            "to wrap. Make it a NumPy int64 knowingly (np.int64(...)), or a float")


def _rule(op, inputs, attrs):
    values = inputs[:-1] if attrs.get("masked") else inputs
    shapes = [tuple(x.shape) if isinstance(x, Tensor) else np.shape(x) for x in values]
    return [(np.broadcast_shapes(*shapes), np.dtype(np.int64))]


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
