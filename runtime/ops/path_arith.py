"""Arithmetic on a value that is a Python number on one path and a NumPy value on another.

A symbolic `if` whose paths give a Python number and a NumPy value carries the kind of
the path taken beside its output (runtime/control_flow/path_kinds.py). Python and NumPy
then compute differently with it:

    m = min(0, k)         # 0 (int) when k >= 0, else k (np.int64)
    60 // (0 - m)         # Python int: ZeroDivisionError; NumPy int64: 0 and a warning

So `+ - * / // % ** << abs` and unary minus of such a value with Python numbers (or
other such values) are one `path_arith` node: its kernel computes with Python's numbers
where every operand is one on the path taken (Python's errors included; an int that
leaves int64 is an OverflowError naming the line, never wrapped) and with NumPy
otherwise. Its outputs are the value, and the code and number of the result's kind, so
the kind flows on to later arithmetic and to the function's result.
"""
from __future__ import annotations

import operator

import numpy as np

from runtime.core.errors import user_origin
from runtime.core.registry import OpDef, bind
from runtime.core.tensor import Tensor
from runtime.core.tensor_map import TensorMap
from runtime.ops.path_result import AS_COMPUTED, PYTHON_INT, PYTHON_NUMBER

_PYTHON = {np.add: operator.add, np.subtract: operator.sub, np.multiply: operator.mul,
           np.true_divide: operator.truediv, np.floor_divide: operator.floordiv,
           np.remainder: operator.mod, np.power: operator.pow, np.left_shift: operator.lshift,
           np.negative: operator.neg, np.absolute: operator.abs}
_BY_NAME = {u.__name__: fn for u, fn in _PYTHON.items()}
UFUNC_NAMES = tuple(_BY_NAME)
_INT_RESULT = frozenset({"add", "subtract", "multiply", "floor_divide", "remainder",
                         "left_shift", "negative", "absolute"})
_MIN, _MAX = int(np.iinfo(np.int64).min), int(np.iinfo(np.int64).max)
_EXACT_IN_FLOAT64 = 2 ** 53


def kind_of(x):
    """(code, number) carried beside `x` by its graph, or None."""
    if not isinstance(x, Tensor):
        return None
    table = getattr(x.graph, "path_kinds", None)
    kind = None if table is None else table.get(x)
    # (a code known to be no Python number's - a loop's first-assigned value - carries none)
    return None if kind is None or type(kind[0]) is int and kind[0] not in (
        PYTHON_NUMBER, PYTHON_INT) else kind


def applies(ufunc, inputs) -> bool:
    """Whether `ufunc(*inputs)` is arithmetic whose result Python computes differently on
    some path: a 0-d operand of path-dependent kind, and the others Python numbers."""
    if ufunc not in _PYTHON:
        return False
    kinded = False
    for x in inputs:
        if isinstance(x, Tensor):
            if x.ndim != 0 or x.dtype.kind not in "biuf":
                return False
            if kind_of(x) is not None:
                kinded = True
            elif not x.weak:
                return False
        elif type(x) not in (bool, int, float):
            return False
    return kinded


def path_arith(ufunc, inputs) -> Tensor:
    """`ufunc(*inputs)` as Python computes it on each path (see the module docstring)."""
    flat, parts, samples, pythonic = [], [], [], []
    for x in inputs:
        kind = kind_of(x)
        if kind is not None:
            flat += [kind[0], kind[1], x]
            parts.append("k")
            # (a value standing for a Python number meets typed ones as one, NEP 50)
            samples.append(np.ones((), x.dtype) if not x.weak else
                           np.ones((), x.dtype).item())
            number_dtype = kind[1].dtype if isinstance(kind[1], Tensor) else \
                np.asarray(kind[1]).dtype
            pythonic.append(number_dtype.kind)
        else:
            flat.append(x)
            parts.append("v")
            kind_char = np.asarray(x).dtype.kind if not isinstance(x, Tensor) else x.dtype.kind
            samples.append(1.0 if kind_char == "f" else 1)
            pythonic.append(kind_char)
    with np.errstate(all="ignore"):
        value_dtype = np.asarray(ufunc(*samples)).dtype
    ints_only = all(k in "biu" for k in pythonic) and ufunc.__name__ in _INT_RESULT
    number_dtype = np.dtype(np.int64 if ints_only else np.float64)
    origin = user_origin()
    value, code, number = bind(PATH_ARITH, *flat, ufunc=ufunc.__name__, parts=tuple(parts),
                               value_dtype=value_dtype.str, number_dtype=number_dtype.str,
                               where=f" (at {origin})" if origin else "")
    table = getattr(value.graph, "path_kinds", None)
    if table is None:
        table = value.graph.path_kinds = TensorMap()
    table[value] = (code, number)
    return value


def _python_value(code, number):
    if code == PYTHON_INT:
        return int(number)
    return number.item() if isinstance(number, (np.generic, np.ndarray)) else number


def _kernel(*flat, ufunc: str, parts: tuple, value_dtype: str, number_dtype: str, where: str):
    operands, codes, k = [], [], 0  # operands: (Python value or None, NumPy value)
    for part in parts:
        if part == "k":
            code, number, value = flat[k:k + 3]
            k += 3
            python = code in (PYTHON_NUMBER, PYTHON_INT)
            codes.append(int(code))
            operands.append((_python_value(code, number) if python else None, value))
        else:
            x = flat[k]
            k += 1
            x = x.item() if isinstance(x, (np.generic, np.ndarray)) else x
            operands.append((x, x))
    value_dt, number_dt = np.dtype(value_dtype), np.dtype(number_dtype)
    if all(p is not None for p, _ in operands):  # Python numbers on this path: Python's rules
        result = _BY_NAME[ufunc](*(p for p, _ in operands))
        if isinstance(result, int) and not _MIN <= result <= _MAX:
            raise OverflowError(
                f"a Python int computed in the graph{where} does not fit int64: Python's int "
                "would be exact, the graph holds ints as int64 and refuses to wrap. Make it a "
                "NumPy int64 knowingly (np.int64(...)), or a float")
        code = PYTHON_NUMBER
        if isinstance(result, int) and number_dt.kind == "f":
            if abs(result) > _EXACT_IN_FLOAT64:
                raise OverflowError(f"a Python int computed in the graph{where} is too large "
                                    "to carry beside a float on another path")
            code = PYTHON_INT
        return (np.asarray(result).astype(value_dt)[()], np.int8(code),
                number_dt.type(result))
    # NumPy's rules (a Python number among them is weak, NEP 50), through Python's operator
    # as the eager code runs it (NumPy's scalar paths and messages)
    result = _BY_NAME[ufunc](*(_scalar(v) if p is None else p for p, v in operands))
    code = next((c for c in codes if c not in (PYTHON_NUMBER, PYTHON_INT)), AS_COMPUTED)
    return np.asarray(result).astype(value_dt, copy=False)[()], np.int8(code), number_dt.type(0)


def _scalar(v):
    """A 0-d array as its NumPy scalar (NumPy's scalar rules and messages, as eagerly)."""
    return v[()] if isinstance(v, np.ndarray) and v.ndim == 0 else v


def _rule(op, inputs, attrs):
    return [((), np.dtype(attrs["value_dtype"])), ((), np.dtype(np.int8)),
            ((), np.dtype(attrs["number_dtype"]))]


PATH_ARITH = OpDef("path_arith", _kernel, _rule, num_outputs=3)
