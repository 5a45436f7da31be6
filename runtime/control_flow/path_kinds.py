"""Which kind of value each path of a symbolic `if` gives: a Python number, a NumPy scalar
or an array, carried beside the output so the function returns what Python would.

A `cond` output has one dtype, but the value Python holds after the `if` may be a Python
number on one path and a NumPy value on the other:

    if x.sum() > 0:
        r = 1                  ->  cond outputs (r, code, number); code is 1 on this path
    else:
        r = x.sum()            ->  code 0 here (as computed)
    return r                   ->  path_result(code, number, r): 1 (int) or np.float32(...)

`add_kind_outputs` adds the two outputs for every 0-d output whose paths differ in kind
(a branch's own `if` passes its kinds on); `with_kind` applies them where the traced
function returns a value. A value computed further from such an output has the shared
dtype on every path (the number was cast exactly, or the `cond` refused it).
"""
from __future__ import annotations

import numpy as np

from runtime.core.tensor import Tensor
from runtime.core.tensor_map import TensorMap
from runtime.ops.path_result import (
    AS_COMPUTED, NUMPY_SCALAR, PYTHON_INT, PYTHON_NUMBER, path_result,
)

_NUMBER_DTYPES = {int: np.dtype(np.int64), float: np.dtype(np.float64),
                  complex: np.dtype(np.complex128)}
_EXACT_IN_FLOAT64 = 2 ** 53


def kinds_of(graph) -> TensorMap:
    """The graph's table: cond output -> (code, number) values of the same graph."""
    table = getattr(graph, "path_kinds", None)
    if table is None:
        table = graph.path_kinds = TensorMap()
    return table


def kinds_of_value(x):
    """(code, number) carried beside `x` by its graph, or None."""
    if not isinstance(x, Tensor):
        return None
    table = getattr(x.graph, "path_kinds", None)
    return None if table is None else table.get(x)


def _side(x):
    """(code, number) that branch output leaf `x` gives."""
    if type(x) in _NUMBER_DTYPES:
        return PYTHON_NUMBER, x
    if isinstance(x, np.generic):
        return NUMPY_SCALAR, None
    if isinstance(x, Tensor):
        carried = getattr(x.graph, "path_kinds", None)
        carried = carried.get(x) if carried is not None else None
        if carried is not None:
            return carried
        if x.weak and x.ndim == 0 and x.dtype.kind in "iufc":
            return PYTHON_NUMBER, x  # stands for a Python number (a loop counter, len())
    return AS_COMPUTED, None


def _dtype_of(number) -> np.dtype:
    return number.dtype if isinstance(number, Tensor) else _NUMBER_DTYPES[type(number)]


def _number_plan(sides):
    """The number output's dtype and each side's (code, number), or None to carry nothing."""
    dtypes = {_dtype_of(n) for _, n in sides if n is not None}
    if not dtypes:
        return np.dtype(np.bool_), [(c, False) for c, _ in sides]
    if len(dtypes) == 1:
        dtype = dtypes.pop()
        return dtype, [(c, n if n is not None else dtype.type(0)) for c, n in sides]
    if dtypes != {np.dtype(np.int64), np.dtype(np.float64)}:
        return None
    plan = []  # a Python int beside a Python float: held as float64 where that is exact
    for code, n in sides:
        if n is not None and _dtype_of(n) == np.int64:
            if isinstance(n, Tensor) or abs(n) > _EXACT_IN_FLOAT64:
                return None
            code, n = PYTHON_INT, float(n)
        plan.append((code, n if n is not None else 0.0))
    return np.dtype(np.float64), plan


def add_kind_outputs(branches, leaves_per_branch, outputs_per_branch, node_avals, as_value):
    """For each 0-d output whose branches give different kinds of value, add a code and a
    number output to every branch. Returns [(output, code output, number output)] indices."""
    added = []
    for j, (shape, _) in enumerate(list(node_avals)):
        if len(shape) != 0:
            continue
        sides = [_side(leaves[j]) for leaves in leaves_per_branch]
        codes = {c if type(c) is int else None for c, _ in sides}
        if codes == {AS_COMPUTED} or (codes == {PYTHON_NUMBER} and
                                      len({_dtype_of(n) for _, n in sides}) == 1):
            continue  # nothing to carry, or a Python number on every path (`weak`)
        plan = _number_plan(sides)
        if plan is None:
            continue
        dtype, plan = plan
        for g, outputs, (code, number) in zip(branches, outputs_per_branch, plan):
            outputs.append(as_value(g, code, np.dtype(np.int8)))
            outputs.append(as_value(g, number, dtype))
        node_avals += [((), np.dtype(np.int8)), ((), dtype)]
        added.append((j, len(node_avals) - 2, len(node_avals) - 1))
    return added


def note_kinds(graph, outs, added) -> None:
    table = kinds_of(graph) if added else None
    for j, code, number in added:
        table[outs[j]] = (outs[code], outs[number])


def with_kind(x):
    """`x` as the traced function returns it: with the kind of the path taken applied."""
    if isinstance(x, Tensor):
        carried = getattr(x.graph, "path_kinds", None)
        carried = carried.get(x) if carried is not None else None
        if carried is not None:
            return path_result(carried[0], carried[1], x)
    return x
