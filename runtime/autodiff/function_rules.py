"""Gradient rules for the non-ufunc ops (reductions, shapes, indexing, selection, linalg).

Keyed by op name; `install()` puts each rule in its OpDef's `grad` slot.
"""
from __future__ import annotations

import numpy as np

from runtime.autodiff.shapes import broadcast_like, sum_to
from runtime.ops.shape import shape_of

RULES = {}


def rule(*names):
    def deco(fn):
        for n in names:
            RULES[n] = fn
        return fn
    return deco


def _axes(rec, ndim):
    axis = rec.attrs.get("axis")
    if axis is None:
        return tuple(range(ndim))
    axis = axis if isinstance(axis, tuple) else (axis,)
    return tuple(sorted(a % ndim for a in axis))


def _expand(g, rec, x):
    """Give a reduced cotangent its reduced axes back (as size 1) if keepdims was False."""
    if rec.attrs.get("keepdims", False):
        return g
    axes = _axes(rec, np.ndim(x))
    return np.expand_dims(g, axes) if axes else g


def _count(rec, x):
    axes = _axes(rec, np.ndim(x))
    shape = x.shape if hasattr(x, "shape") else np.shape(x)
    if all(shape[a] is not None for a in axes):
        n = 1
        for a in axes:
            n *= shape[a]
        return n
    sizes = shape_of(x)
    return np.prod(sizes[list(axes)]).astype(np.float64)


@rule("sum", "nansum")
def _sum(rec, cts):
    x = rec.inputs[0]
    return [broadcast_like(_expand(cts[0], rec, x), x)]


@rule("mean")
def _mean(rec, cts):
    x = rec.inputs[0]
    g = _expand(cts[0], rec, x) / _count(rec, x)
    return [broadcast_like(g.astype(cts[0].dtype) if hasattr(g, "astype") else g, x)]


@rule("max", "min", "amax", "amin")
def _extremum(rec, cts):
    x = rec.inputs[0]
    y = _expand(rec.outputs[0], rec, x)
    g = _expand(cts[0], rec, x)
    mask = (x == y)
    # ties share the gradient equally
    count = np.sum(mask, axis=_axes(rec, np.ndim(x)), keepdims=True)
    return [g * mask / count]


@rule("var")
def _var(rec, cts):
    x = rec.inputs[0]
    ddof = rec.attrs.get("ddof", 0)
    mean = np.mean(x, axis=_axes(rec, np.ndim(x)), keepdims=True)
    g = _expand(cts[0], rec, x)
    return [g * 2 * (x - mean) / (_count(rec, x) - ddof)]


@rule("std")
def _std(rec, cts):
    x = rec.inputs[0]
    ddof = rec.attrs.get("ddof", 0)
    mean = np.mean(x, axis=_axes(rec, np.ndim(x)), keepdims=True)
    g = _expand(cts[0], rec, x) / _expand(rec.outputs[0], rec, x)
    return [g * (x - mean) / (_count(rec, x) - ddof)]


@rule("reshape", "squeeze", "expand_dims", "ravel")
def _reshape(rec, cts):
    x = rec.inputs[0]
    shape = x.shape if hasattr(x, "shape") else np.shape(x)
    if None in shape:
        return [np.reshape(cts[0], shape_of(x))]
    return [np.reshape(cts[0], shape)]


@rule("transpose")
def _transpose(rec, cts):
    axes = rec.attrs.get("axes")
    if axes is None:
        return [np.transpose(cts[0])]
    return [np.transpose(cts[0], np.argsort(axes))]


@rule("swapaxes")
def _swapaxes(rec, cts):
    return [np.swapaxes(cts[0], rec.attrs["axis1"], rec.attrs["axis2"])]


@rule("broadcast_to")
def _broadcast_to(rec, cts):
    return [sum_to(cts[0], rec.inputs[0])]


@rule("astype", "copy", "asarray")
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
    x, lo, hi = rec.inputs
    g = cts[0]
    inside = np.ones_like(g, dtype=bool)
    if lo is not None:
        inside = inside & (x >= lo)
    if hi is not None:
        inside = inside & (x <= hi)
    return [sum_to(np.where(inside, g, 0), x), None, None]


@rule("dot")
def _dot(rec, cts):
    a, b = rec.inputs
    if np.ndim(a) <= 2 and np.ndim(b) <= 2:
        from runtime.autodiff.rules import UFUNC_RULES
        return UFUNC_RULES[np.matmul](rec, cts)
    raise NotImplementedError("gradient of np.dot for arrays of more than 2 dimensions")


@rule("einsum")
def _einsum(rec, cts):
    spec = rec.attrs["subscripts"].replace(" ", "")
    if "->" not in spec or "." in spec:
        raise NotImplementedError("gradient of np.einsum needs explicit '->' output "
                                  "subscripts and no ellipsis")
    ins, out = spec.split("->")
    terms = ins.split(",")
    grads = []
    for i, term in enumerate(terms):
        others = [t for j, t in enumerate(terms) if j != i]
        ops = [x for j, x in enumerate(rec.inputs) if j != i]
        g = np.einsum(",".join([out] + others) + "->" + term, cts[0], *ops)
        grads.append(g)
    return grads


@rule("cumsum")
def _cumsum(rec, cts):
    axis = rec.attrs.get("axis")
    g = cts[0]
    if axis is None:
        x = rec.inputs[0]
        return [np.reshape(np.flip(np.cumsum(np.flip(g))), np.shape(x) if not hasattr(x, "shape") else x.shape)]
    return [np.flip(np.cumsum(np.flip(g, axis), axis=axis), axis)]


@rule("take")
def _take(rec, cts):
    x, idx = rec.inputs
    axis = rec.attrs.get("axis")
    zeros = np.zeros_like(x)
    if axis is None:
        flat = np.reshape(zeros, (-1,))
        from runtime.ops.indexing import index_update
        return [np.reshape(index_update(flat, idx, cts[0], mode="add"), np.shape(x) if not hasattr(x, "shape") else x.shape), None]
    index = (slice(None),) * (axis % np.ndim(x)) + (idx,)
    from runtime.ops.indexing import index_update
    return [index_update(zeros, index, cts[0], mode="add"), None]


@rule("getitem")
def _getitem(rec, cts):
    from runtime.ops.indexing import _fill, index_update

    x, *dynamic = rec.inputs
    index = _fill(rec.attrs["index"], dynamic)
    return [index_update(np.zeros_like(x), index, cts[0], mode="add")] + [None] * len(dynamic)


@rule("index_update")
def _index_update(rec, cts):
    from runtime.ops.indexing import _fill, index_update

    x, value, *dynamic = rec.inputs
    index = _fill(rec.attrs["index"], dynamic)
    g = cts[0]
    if rec.attrs["mode"] == "add":
        return [g, sum_to(g[index], value)] + [None] * len(dynamic)
    return [index_update(g, index, np.zeros_like(g[index])), sum_to(g[index], value)] + \
        [None] * len(dynamic)


@rule("zeros_like", "ones_like", "empty_like", "full_like", "argmax", "argmin", "shape_of",
      "count_nonzero", "any", "all", "argsort")
def _no_gradient(rec, cts):
    return [None] * len(rec.inputs)


@rule("flip")
def _flip(rec, cts):
    return [np.flip(cts[0], **rec.attrs)]
