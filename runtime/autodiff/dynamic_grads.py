"""Gradient rules for the ops of runtime/ops/dynamic.py whose sizes are symbolic: reshape,
broadcast_to, full, pad and repeat with sizes computed in the graph.

Written with the same ops, so they work eagerly and in graphs. Attached to the records
directly, like control_flow_grads.py (their finite-difference check:
tests/autograph/test_dynamic_shapes.py).
"""
from __future__ import annotations

import numpy as np

from runtime.autodiff.rule_base import attach_grad, take_grad
from runtime.autodiff.shapes import reshape_like, sum_to
from runtime.core.errors import where
from runtime.core.tensor import Tensor
from runtime.ops.dynamic import BROADCAST_TO, FULL, PAD, REPEAT, RESHAPE, arange
from runtime.ops.shape import symbolic_shape, symbolic_size


def _reshape_grad(rec, cts):
    return [reshape_like(cts[0], rec.inputs[0])] + [None] * (len(rec.inputs) - 1)


def _full_grad(rec, cts):
    fill = rec.inputs[0]
    keep = fill is not None and not isinstance(fill, (bool, int, float))
    return [sum_to(cts[0], fill) if keep else None] + [None] * (len(rec.inputs) - 1)


def _pad_grad(rec, cts):
    x, widths, c = rec.inputs
    if isinstance(widths, Tensor):
        raise NotImplementedError(f"No gradient rule for np.pad with a symbolic pad_width"
                                  f"{where()}; give pad_width as Python ints.")
    nd = len(x.static_shape) if isinstance(x, Tensor) else np.ndim(x)
    w = np.broadcast_to(np.asarray(widths), (nd, 2))
    inner = cts[0][tuple(slice(int(b), -int(a) if a else None) for b, a in w)]
    keep = not isinstance(c, (bool, int, float))
    return [inner, None, np.sum(cts[0]) - np.sum(inner) if keep else None]


def _repeat_grad(rec, cts):
    x, repeats = rec.inputs
    axis = rec.attrs.get("axis")
    n = (x.size if axis is None else x.shape[axis]) if not isinstance(x, Tensor) else \
        symbolic_size(x) if axis is None else symbolic_shape(x)[axis]
    index = np.repeat(arange(n), repeats)
    return [take_grad(x, index, axis, cts[0]), None]


def _broadcast_to_grad(rec, cts):
    return [sum_to(cts[0], rec.inputs[0])] + [None] * (len(rec.inputs) - 1)


attach_grad(BROADCAST_TO, _broadcast_to_grad)
attach_grad(RESHAPE, _reshape_grad)
attach_grad(FULL, _full_grad)
attach_grad(PAD, _pad_grad)
attach_grad(REPEAT, _repeat_grad)
