"""Run-time shapes: `shape_of(x)`, and `x.shape[i]` / `x.size` where a dimension is unknown.

A dimension that is None while tracing (an `input_signature` or `reduce_retracing`
dimension, a boolean mask's length, a loop variable that grows) is read by user code
as a symbolic int64 scalar computed when the graph runs, as `tf.shape` does; known
dimensions stay Python ints. The ops read only their input's shape (`shape_only`).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from runtime.core import tracing
from runtime.core.registry import OpDef, bind
from runtime.core.protocol import TensorProtocol
from runtime.core.tensor import Tensor

_INT64 = np.dtype(np.int64)


def _shape_kernel(x):
    return np.array(np.shape(x), dtype=np.int64)


def _dim_kernel(x, *, axis):
    return np.int64(np.shape(x)[axis])


def _size_kernel(x):
    return np.int64(np.size(x))


SHAPE_OF = OpDef("shape_of", _shape_kernel,
                 lambda op, ins, attrs: [((len(ins[0].static_shape),), _INT64)],
                 shape_only=(0,), bookkeeping=True)
SHAPE_DIM = OpDef("shape_dim", _dim_kernel, lambda op, ins, attrs: [((), _INT64)],
                  shape_only=(0,), bookkeeping=True)
SIZE_OF = OpDef("size_of", _size_kernel, lambda op, ins, attrs: [((), _INT64)],
                shape_only=(0,), bookkeeping=True)


def shape_of(x: Any) -> Any:
    """The shape of `x` as an int64 vector (a graph value when `x` is symbolic)."""
    if isinstance(x, Tensor):
        if None not in x.static_shape:
            return np.array(x.static_shape, dtype=np.int64)
        return bind(SHAPE_OF, x)
    return _shape_kernel(x)


def _weak(t: Tensor) -> Tensor:
    # it stands for the Python int NumPy gives: NEP 50 weak, so `f32 * x.shape[0]` is f32
    t.weak = True
    return t


def symbolic_shape(x: Tensor) -> tuple:
    """`x.shape` as user code sees it: ints where known, int64 scalars where unknown.
    Outside a trace (inspecting a finished graph) the static shape, None where unknown."""
    if tracing.current_graph() is None:
        return x.static_shape
    return tuple(_weak(bind(SHAPE_DIM, x, axis=i)) if d is None else d
                 for i, d in enumerate(x.static_shape))


def symbolic_size(x: Tensor) -> Any:
    """`x.size` as user code sees it when a dimension is unknown (None outside a trace)."""
    if tracing.current_graph() is None:
        return None
    return _weak(bind(SIZE_OF, x))


TensorProtocol.symbolic_shape = symbolic_shape
TensorProtocol.symbolic_size = symbolic_size
