"""Constant materialization: hand elementwise kernels their constants in the form NumPy
computes with fastest, without changing a bit of any result.

    before:  v2 = add(v1, b)       # v1: float32[1,64], b: a constant float32[64]
             v3 = multiply(v2, 2.0)
             v5 = greater(v4, 1)   # v4: int64[] (a NumPy scalar at run time)
    after:   v2 = add(v1, b')      # b' = b as float32[1,64] (a view when only 1s are added)
             v3 = multiply(v2, c)  # c = np.float32(2.0) as a 0-d array
             v5 = greater(v4, d)   # d = np.int64(1)

Why: on small arrays a ufunc's cost is dispatch, and NumPy takes a much shorter path
when every operand already has the result's shape or is a 0-d array of the loop's
dtype (~0.25 µs) than when it must broadcast a lower-rank operand or convert a Python
scalar on every call (~0.5–0.7 µs). At batch size 1 that is a third of a dense layer.
NumPy's scalar arithmetic likewise skips a conversion when both operands are NumPy
scalars of one type (`n > np.int64(1)` 23 ns against `n > 1` 39 ns): a third of a
Collatz step.

Bitwise the same: a scalar becomes a 0-d array (or, for a scalar result, a NumPy
scalar) of exactly the dtype the ufunc's loop would have cast it to (checked with
`ufunc.resolve_dtypes`, so NEP 50's weak-scalar rules give the same loop), and a
broadcast operand keeps its dtype and values. Arrays
are only broadcast up to `MAX_BROADCAST_ELEMENTS` (beyond it the arithmetic dominates
and the copy would only cost memory), except when adding leading 1s suffices (a view).
Runs once, after the fixpoint: the 0-d arrays it makes would hide scalars from the
algebraic simplifier and from CSE. A broadcast constant can change a result's memory
order (NumPy lays out a result like its operands), so graphs that read memory order
(`ravel(order='K')`) keep their constants as they are.
"""
from __future__ import annotations

import math

import numpy as np

from runtime.passes.memory_order import reads_memory_order
from runtime.core.graph import Graph, Node
from runtime.core.rewrite import each_graph
from runtime.core.tensor import Tensor

MAX_BROADCAST_ELEMENTS = 1 << 12
_PYTHON_SCALARS = (bool, int, float, complex)


def materialize_constants(graph: Graph) -> bool:
    made: dict = {}  # one array per (value, dtype) or (array, shape): shared by the nodes
    # a broadcast constant can change a result's memory order (values read in that order)
    broadcast = not reads_memory_order(graph)
    changed = False
    for g in each_graph(graph):
        for node in g.nodes:
            if _elementwise(node):
                new = [_materialized(node, i, made, broadcast) for i in range(len(node.inputs))]
                if any(a is not b for a, b in zip(new, node.inputs)):
                    node.inputs = new
                    changed = True
    return changed


def _elementwise(node: Node) -> bool:
    """A ufunc on numbers (object loops convert NumPy scalars to Python ones: left alone)."""
    k, out = node.op.kernel, node.outputs[0] if len(node.outputs) == 1 else None
    return isinstance(k, np.ufunc) and k.signature is None and not node.attrs \
        and out is not None and None not in out.shape and out.dtype.kind != "O" \
        and not any(isinstance(x, (Tensor, np.ndarray)) and x.dtype.kind == "O"
                    for x in node.inputs) \
        and not any(isinstance(x, Tensor) and x.weak for x in node.inputs)


def _materialized(node: Node, i: int, made: dict, broadcast: bool):
    x = node.inputs[i]
    if isinstance(x, Tensor):
        return x
    if type(x) in _PYTHON_SCALARS or isinstance(x, np.generic):
        return _as_loop_array(node, i, made)
    if broadcast and isinstance(x, np.ndarray) and x.ndim >= 1:
        return _broadcast(node, x, made)
    return x


def _as_loop_array(node: Node, i: int, made: dict):
    """Scalar input `i` as a 0-d array (a NumPy scalar on a scalar result) of the dtype
    the ufunc's loop casts it to."""
    ufunc, x = node.op.kernel, node.inputs[i]
    dtypes = _loop_dtypes(ufunc, node.inputs)
    if dtypes is None or any(d.kind == "O" for d in dtypes):
        return x
    try:
        with np.errstate(all="raise"):  # a cast that overflows would warn on every call
            candidate = np.asarray(x, dtype=dtypes[i])
    except (OverflowError, TypeError, ValueError, FloatingPointError):
        return x
    if type(x) in (bool, int) and candidate.item() != x:
        return x  # not exactly representable: leave it to NumPy's own rules
    if _loop_dtypes(ufunc, node.inputs[:i] + [candidate] + node.inputs[i + 1:]) != dtypes:
        return x
    key = ("scalar", candidate.dtype, _bits(candidate), node.outputs[0].ndim == 0)
    if key not in made:
        candidate.flags.writeable = False
        # scalars meet NumPy scalars on a scalar result: NumPy's scalar math takes those
        made[key] = candidate[()] if node.outputs[0].ndim == 0 else candidate
    return made[key]


def _loop_dtypes(ufunc: np.ufunc, inputs: list):
    def dtype(v):
        if isinstance(v, Tensor):
            return v.dtype
        if type(v) in _PYTHON_SCALARS and type(v) is not bool:
            return type(v)  # weak (NEP 50)
        return np.asarray(v).dtype
    try:
        return ufunc.resolve_dtypes(tuple(dtype(v) for v in inputs) + (None,) * ufunc.nout)
    except (TypeError, ValueError, np.exceptions.DTypePromotionError):
        return None


def _bits(a: np.ndarray) -> bytes:
    return a.tobytes()  # by bits: -0.0 and 0.0 (and NaN payloads) stay apart


def _broadcast(node: Node, x: np.ndarray, made: dict):
    """A constant array in the result's shape, when every symbolic operand has it."""
    shape = node.outputs[0].shape
    if x.shape == shape or any(isinstance(v, Tensor) and v.shape != shape for v in node.inputs):
        return x
    try:
        full = np.broadcast_to(x, shape)
    except ValueError:
        return x
    key = ("array", id(x), shape)
    if key not in made:
        if x.size == math.prod(shape):  # only 1s added: a view of the same memory
            y = x.reshape(shape)
        elif full.size <= MAX_BROADCAST_ELEMENTS:
            y = np.ascontiguousarray(full)
        else:
            return x
        y.flags.writeable = False
        made[key] = (x, y)  # x kept alive so its id stays unique while the pass runs
    return made[key][1]
