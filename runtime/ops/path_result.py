"""`path_result`: the kind of value a symbolic `if` gave on the path the graph took.

Python code can return a Python number on one path and a NumPy value on another:

    if x.sum() > 0:            eager: 1 (int) or np.float32(2.5)
        r = 1                  graph: the `cond` output is one float32 value, so the
    else:                      kind - Python number, NumPy scalar or array - is carried
        r = np.float32(2.5)    beside it (runtime/control_flow/path_kinds.py) and
    return r                   applied here, where the function returns it.

Inputs: `code` (0 = as computed, 1 = the Python number, 2 = a NumPy scalar, 3 = a Python
int held as a float64 number, when the other path's number is a float), `number` (the Python
side's value in its own dtype, exact where the shared dtype would round it) and `value` (the
shared output).
"""
from __future__ import annotations

import numpy as np

from runtime.core.registry import OpDef, bind
from runtime.core.tensor import Tensor

AS_COMPUTED, PYTHON_NUMBER, NUMPY_SCALAR, PYTHON_INT = 0, 1, 2, 3


def _path_result_kernel(code, number, value):
    if code == PYTHON_NUMBER:  # (a counter the graph keeps as a Python int already is one)
        return number.item() if isinstance(number, (np.generic, np.ndarray)) else number
    if code == PYTHON_INT:
        return int(number)
    if code == NUMPY_SCALAR and isinstance(value, np.ndarray):
        return value[()]
    return value


PATH_RESULT = OpDef("path_result", _path_result_kernel,
                    lambda op, ins, attrs: [(ins[2].static_shape, ins[2].dtype)],
                    bookkeeping=True, returns_python=True)
# the value is `value` cast (exactly, or the cond would have refused) on every path
PATH_RESULT.grad = lambda rec, cts: [None, None, cts[0]]


def path_result(code: Tensor, number: Tensor, value: Tensor) -> Tensor:
    return bind(PATH_RESULT, code, number, value)
