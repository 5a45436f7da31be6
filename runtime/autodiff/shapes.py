"""Shape plumbing for gradients: sum a cotangent back to an input's shape, broadcast one
out, or reshape one to an input's shape.

All take the reference value itself, so they work when static dims are unknown.
"""
from __future__ import annotations

import numpy as np

from runtime.control_flow.lists import is_list
from runtime.core.registry import OpDef, bind
from runtime.core.tensor import Tensor


def _aval_like(ref, dtype_from):
    shape = ref.shape if isinstance(ref, Tensor) else np.shape(ref)
    dtype = dtype_from.dtype if isinstance(dtype_from, Tensor) else np.asarray(dtype_from).dtype
    return [(tuple(shape), dtype)]


def _sum_to_kernel(g, like):
    shape = np.shape(like)
    g = np.asarray(g)
    if g.shape == shape:
        return g
    lead = g.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, d in enumerate(shape) if d == 1 and g.shape[lead + i] != 1)
    out = np.sum(g, axis=axes, keepdims=True) if axes else g
    return out.reshape(shape)


def _broadcast_kernel(g, like):
    return np.broadcast_to(g, np.shape(like))


def _reshape_kernel(g, like):
    return np.reshape(g, np.shape(like))


SUM_TO = OpDef("sum_to_shape_of", _sum_to_kernel, lambda op, ins, attrs: _aval_like(ins[1], ins[0]),
               shape_only=(1,))
BROADCAST_LIKE = OpDef("broadcast_like", _broadcast_kernel,
                       lambda op, ins, attrs: _aval_like(ins[1], ins[0]), shape_only=(1,))
RESHAPE_LIKE = OpDef("reshape_like", _reshape_kernel,
                     lambda op, ins, attrs: _aval_like(ins[1], ins[0]), shape_only=(1,))


def shape_of_value(x):
    return x.shape if isinstance(x, Tensor) else np.shape(x)


def _known(*shapes) -> bool:
    return all(None not in s for s in shapes)


def sum_to(g, like):
    """Reduce cotangent `g` (broadcast result) back to the shape of input `like`: with
    static shapes as plain `np.sum` / `np.reshape` nodes, else one `sum_to_shape_of`."""
    gs, shape = tuple(shape_of_value(g)), tuple(shape_of_value(like))
    if gs == shape and _known(shape):
        return g
    if not _known(gs, shape):
        return bind(SUM_TO, g, like)
    lead = len(gs) - len(shape)
    kept = tuple(lead + i for i, d in enumerate(shape) if d == 1 and gs[lead + i] != 1)
    if not kept:  # only leading axes to drop: one plain sum
        return np.sum(g, axis=tuple(range(lead)))
    out = np.sum(g, axis=tuple(range(lead)) + kept, keepdims=True)
    return np.reshape(out, shape) if tuple(shape_of_value(out)) != shape else out


def broadcast_like(g, like):
    gs, shape = tuple(shape_of_value(g)), tuple(shape_of_value(like))
    if gs == shape and _known(shape):
        return g
    if not _known(gs, shape):
        return bind(BROADCAST_LIKE, g, like)
    return np.broadcast_to(g, shape)


def reshape_like(g, like):
    """`g` reshaped to the shape of `like` (known statically or only at run time)."""
    shape = shape_of_value(like)
    if None not in shape:
        return g if shape_of_value(g) == tuple(shape) else np.reshape(g, shape)
    return bind(RESHAPE_LIKE, g, like)


def is_differentiable(x) -> bool:
    if is_list(x) or type(x) is list:
        return True  # a graph list (a Python list when run eagerly): its cotangent is
        #              its stacked array's
    dtype = x.dtype if isinstance(x, Tensor) else getattr(x, "dtype", None)
    if dtype is None:
        return isinstance(x, (float, complex))
    return np.dtype(dtype).kind in "fc"
