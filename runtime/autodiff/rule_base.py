"""What every gradient rule module builds on: `@rule("name", ...)`, which makes the
decorated function the `grad` of the op records of those names, `attach_grad`, and the
helpers several rule modules share (`axes_of`, `expand_reduced`, `take_grad`).

Ops are found by name among the records of runtime/ops/ (the NumPy function table
`functions.OPS`, which the op modules imported here fill, plus indexing, run-time shapes)
and the gradient module's own shape ops (shapes.py). The rule modules (`*rules.py` here)
build on this module and are loaded by runtime/autodiff/__init__.py.
"""
from __future__ import annotations

import numpy as np

from runtime.autodiff import shapes
from runtime.autodiff.shapes import reshape_like
# the op modules whose records rules name (each adds its records to functions.OPS)
from runtime.ops import dynamic, fft, functions, indexing, linalg, more, more_arrays  # noqa: F401
from runtime.ops import shape, shaping  # noqa: F401
from runtime.ops.indexing import index_update

# the records outside functions.OPS that have gradient rules
_OTHER_OPS = (indexing.GETITEM, indexing.INDEX_UPDATE, shape.SHAPE_OF,
              shapes.SUM_TO, shapes.BROADCAST_LIKE, shapes.RESHAPE_LIKE)


def op_named(name: str):
    """The op record named `name` (KeyError if there is none)."""
    op = functions.OPS.get(name)
    if op is None:
        op = next((o for o in _OTHER_OPS if o.name == name), None)
    if op is None:
        raise KeyError(f"gradient rule for unknown op {name!r}")
    return op


def attach_grad(op, fn) -> None:
    """Make `fn` the gradient rule of op record `op` (one rule per op)."""
    if op.grad is not None and op.grad is not fn:
        raise RuntimeError(f"op {op.name!r} has two gradient rules")
    op.grad = fn


def rule(*names):
    """Attach the decorated function as the gradient rule of the ops with these names."""
    def deco(fn):
        for n in names:
            attach_grad(op_named(n), fn)
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
    zeros = np.zeros_like(x)
    if axis is None:
        return reshape_like(index_update(np.reshape(zeros, (-1,)), idx, g, mode="add"), x)
    index = (slice(None),) * (axis % np.ndim(x)) + (idx,)
    return index_update(zeros, index, g, mode="add")
