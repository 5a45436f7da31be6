"""Gradient rules for the non-ufunc ops: reductions, reshapes, joining, selection, indexing.

`@rule("name", ...)` (rule_base.py) makes the function the `grad` of the op records of
those names when the module loads (`backprop` reads only `op.grad`). More rules attach
the same way from `array_rules.py` (more shape ops, sorting, NaN-aware reductions),
`linalg_rules.py` (einsum, dot, inv, ...) and the other `*_rules.py` here, all loaded by
runtime/autodiff/__init__.py. An op whose `grad` is None has no gradient: backprop raises
NotImplementedError when one lies between target and source.
"""
from __future__ import annotations

import numpy as np

from runtime.autodiff.rule_base import axes_of, expand_reduced, rule, take_grad
from runtime.autodiff.shapes import broadcast_like, reshape_like, sum_to
from runtime.core.tensor import Tensor
from runtime.ops.indexing import _fill, index_update
from runtime.core.registry import bind
from runtime.ops.shape import SHAPE_DIM, shape_of


def _count(rec, x):
    axes = axes_of(rec, np.ndim(x))
    shape = x.shape if hasattr(x, "shape") else np.shape(x)
    if all(shape[a] is not None for a in axes):
        n = 1
        for a in axes:
            n *= shape[a]
        return n
    sizes = shape_of(x)
    return np.prod(sizes[list(axes)]).astype(np.float64)


@rule("sum")
def _sum(rec, cts):
    x = rec.inputs[0]
    return [broadcast_like(expand_reduced(cts[0], rec, x), x)]


@rule("nansum")
def _nansum(rec, cts):
    x = rec.inputs[0]
    g = broadcast_like(expand_reduced(cts[0], rec, x), x)
    return [np.where(np.isnan(x), np.zeros_like(g), g)]


@rule("mean")
def _mean(rec, cts):
    x = rec.inputs[0]
    g = expand_reduced(cts[0], rec, x) / _count(rec, x)
    return [broadcast_like(g.astype(cts[0].dtype) if hasattr(g, "astype") else g, x)]


@rule("max", "min", "amax", "amin", "nanmax", "nanmin")
def _extremum(rec, cts):
    x = rec.inputs[0]
    y = expand_reduced(rec.outputs[0], rec, x)
    g = expand_reduced(cts[0], rec, x)
    mask = (x == y)
    # ties share the gradient equally
    count = np.sum(mask, axis=axes_of(rec, np.ndim(x)), keepdims=True)
    return [g * mask / count.astype(g.dtype)]


@rule("var")
def _var(rec, cts):
    x = rec.inputs[0]
    ddof = rec.attrs.get("ddof", 0)
    mean = np.mean(x, axis=axes_of(rec, np.ndim(x)), keepdims=True)
    g = expand_reduced(cts[0], rec, x)
    return [g * 2 * (x - mean) / (_count(rec, x) - ddof)]


@rule("std")
def _std(rec, cts):
    x = rec.inputs[0]
    ddof = rec.attrs.get("ddof", 0)
    mean = np.mean(x, axis=axes_of(rec, np.ndim(x)), keepdims=True)
    g = expand_reduced(cts[0], rec, x) / expand_reduced(rec.outputs[0], rec, x)
    return [g * (x - mean) / (_count(rec, x) - ddof)]


@rule("reshape", "squeeze", "expand_dims", "ravel")
def _reshape(rec, cts):
    return [reshape_like(cts[0], rec.inputs[0])]


@rule("transpose")
def _transpose(rec, cts):
    axes = rec.attrs.get("axes")
    if axes is None:
        return [np.transpose(cts[0])]
    ndim = np.ndim(cts[0])
    inverse = np.argsort([a % ndim for a in axes])
    return [np.transpose(cts[0], tuple(int(a) for a in inverse))]


@rule("swapaxes")
def _swapaxes(rec, cts):
    return [np.swapaxes(cts[0], rec.attrs["axis1"], rec.attrs["axis2"])]


@rule("broadcast_to")
def _broadcast_to(rec, cts):
    return [sum_to(cts[0], rec.inputs[0])]


@rule("astype", "copy")
def _cast(rec, cts):
    x = rec.inputs[0]
    dtype = x.dtype if hasattr(x, "dtype") else np.asarray(x).dtype
    return [np.astype(cts[0], dtype) if cts[0].dtype != dtype else cts[0]]


def _split_along(g, pieces, axis, stack: bool):
    out, start = [], 0
    for p in pieces:
        if stack:
            out.append(np.take(g, start, axis=axis))
            start += 1
        else:
            n = np.shape(p)[axis] if not hasattr(p, "shape") else p.shape[axis]
            if n is None:  # a length known when the graph runs (np.unique's result)
                n = bind(SHAPE_DIM, p, axis=axis)
            index = [slice(None)] * np.ndim(g)
            index[axis] = slice(start, start + n)
            out.append(g[tuple(index)])
            start += n
    return out


@rule("concatenate")
def _concatenate(rec, cts):
    axis = rec.attrs.get("axis", 0)
    return _split_along(cts[0], rec.inputs, axis % np.ndim(cts[0]), stack=False)


@rule("stack")
def _stack(rec, cts):
    axis = rec.attrs.get("axis", 0)
    return _split_along(cts[0], rec.inputs, axis % np.ndim(cts[0]), stack=True)


@rule("where")
def _where(rec, cts):
    c, a, b = rec.inputs
    g = cts[0]
    zero = np.zeros_like(g)
    return [None, sum_to(np.where(c, g, zero), a), sum_to(np.where(c, zero, g), b)]


@rule("clip")
def _clip(rec, cts):
    # clip(x, lo, hi) is minimum(maximum(x, lo), hi): the value it returns gets the
    # gradient; at x == lo or x == hi it is x's
    x, lo, hi = rec.inputs
    g = cts[0]
    zero = np.zeros_like(g)
    below = (x < lo) if lo is not None else None
    above = None
    if hi is not None:
        above = (np.maximum(x, lo) if lo is not None else x) > hi
        if below is not None:
            below = below & ~above
    g_x = g
    for mask in (below, above):
        if mask is not None:
            g_x = np.where(mask, zero, g_x)
    g_lo = sum_to(np.where(below, g, zero), lo) if _array(lo) else None
    g_hi = sum_to(np.where(above, g, zero), hi) if _array(hi) else None
    return [sum_to(g_x, x), g_lo, g_hi]


def _array(v) -> bool:
    """Not None and not a Python number (those have no gradient to receive)."""
    return v is not None and not isinstance(v, (bool, int, float))


@rule("cumsum")
def _cumsum(rec, cts):
    axis = rec.attrs.get("axis")
    g = cts[0]
    if axis is None:
        return [reshape_like(np.flip(np.cumsum(np.flip(g))), rec.inputs[0])]
    return [np.flip(np.cumsum(np.flip(g, axis), axis=axis), axis)]


@rule("take")
def _take(rec, cts):
    x, idx = rec.inputs
    return [take_grad(x, idx, rec.attrs.get("axis"), cts[0]), None]


@rule("getitem")
def _getitem(rec, cts):
    x, *dynamic = rec.inputs
    index = _fill(rec.attrs["index"], dynamic)
    return [index_update(np.zeros_like(x), index, cts[0], mode="add")] + [None] * len(dynamic)


@rule("index_update")
def _index_update(rec, cts):
    x, value, *dynamic = rec.inputs
    index = _fill(rec.attrs["index"], dynamic)
    g = cts[0]
    picked = g[index]
    mode = rec.attrs["mode"]
    if mode == "add":  # np.add.at: every value, repeated or not, adds in
        return [g, sum_to(picked, value)] + [None] * len(dynamic)
    if mode == "subtract":
        return [g, -sum_to(picked, value)] + [None] * len(dynamic)
    if mode != "set":
        raise NotImplementedError(
            f"np.{mode}.at has no gradient rule; only np.add.at and np.subtract.at (and "
            "`x[i] = v`) are differentiable. Compute the update with np.add.at, or outside "
            "the tape.")
    if _may_repeat(index):
        # NumPy keeps the value written last where an index repeats: only that one gets
        # the cotangent. Write each value's position number with the same kernel and
        # read back who won (1, 2, ...; 0 is never written).
        ones = np.ones_like(picked, dtype=np.intp)
        ids = reshape_like(np.cumsum(np.ravel(ones)), ones)
        marks = index_update(np.zeros_like(g, dtype=np.intp), index, ids)
        picked = np.where(marks[index] == ids, picked, np.zeros_like(picked))
    return [index_update(g, index, np.zeros_like(g[index])), sum_to(picked, value)] + \
        [None] * len(dynamic)


def _may_repeat(index) -> bool:
    """Whether `index` holds an integer array (the only index that can name a position
    twice; slices, integers and boolean masks name each position at most once)."""
    parts = index if isinstance(index, tuple) else (index,)
    for p in parts:
        if isinstance(p, Tensor):
            if p.ndim > 0 and p.dtype.kind != "b":
                return True
        elif isinstance(p, (list, np.ndarray)) and np.ndim(p) > 0 and \
                np.asarray(p).dtype.kind != "b":
            return True
    return False


@rule("full_like")
def _full_like(rec, cts):
    # the values come from fill_value (broadcast), none from the template array
    return [None, sum_to(cts[0], rec.inputs[1]) if _array(rec.inputs[1]) else None]


@rule("zeros_like", "ones_like", "empty_like", "argmax", "argmin", "shape_of",
      "count_nonzero", "any", "all", "argsort")
def _no_gradient(rec, cts):
    return [None] * len(rec.inputs)


@rule("flip")
def _flip(rec, cts):
    return [np.flip(cts[0], **rec.attrs)]
