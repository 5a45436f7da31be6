"""What every gradient rule module builds on: `@rule("name", ...)`, which makes the
decorated function the `grad` of the op records of those names, `attach_grad`, and the
helpers several rule modules share (`axes_of`, `expand_reduced`, `take_grad`).

The rule modules (`*rules.py` here) build on this module.
"""
from __future__ import annotations

import numpy as np

from runtime.autodiff.shapes import reshape_like


def attach_grad(op, fn) -> None:
    """Make `fn` the gradient rule of op record `op` (one rule per op)."""
    if op.grad is not None and op.grad is not fn:
        raise RuntimeError(f"op {op.name!r} has two gradient rules")
    op.grad = fn


def rule(*names):
    """Attach the decorated function as the gradient rule of the ops with these names."""
    from runtime.saved.optable import op_table

    def deco(fn):
        for n in names:
            op = op_table().get(n)
            if op is None:
                raise KeyError(f"gradient rule for unknown op {n!r}")
            attach_grad(op, fn)
        return fn
    return deco


def axes_of(rec, ndim):
    """The reduced axes of reduction record `rec` (sorted, non-negative)."""
    axis = rec.attrs.get("axis")
    if axis is None:
        return tuple(range(ndim))
    axis = axis if isinstance(axis, tuple) else (axis,)
    return tuple(sorted(a % ndim for a in axis))


def expand_reduced(g, rec, x):
    """Give a reduced cotangent its reduced axes back (as size 1) if keepdims was False."""
    if rec.attrs.get("keepdims", False):
        return g
    axes = axes_of(rec, np.ndim(x))
    return np.expand_dims(g, axes) if axes else g


def take_grad(x, idx, axis, g):
    """Cotangent of x for `np.take(x, idx, axis)`: scatter-add (repeated indices add up)."""
    from runtime.ops.indexing import index_update

    zeros = np.zeros_like(x)
    if axis is None:
        return reshape_like(index_update(np.reshape(zeros, (-1,)), idx, g, mode="add"), x)
    index = (slice(None),) * (axis % np.ndim(x)) + (idx,)
    return index_update(zeros, index, g, mode="add")
