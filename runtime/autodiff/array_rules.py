"""Gradient rules for more array ops: products, axis moves, repeats and tiles, rolls, pads,
differences, triangles, the stacking helpers, sorting, NaN-aware means, rounding, and the
gradient module's own shape ops (so gradients of gradients work).

Written with NumPy calls, so each rule runs eagerly on arrays and records graph nodes on
Tensors.
"""
from __future__ import annotations

import numpy as np

from runtime.autodiff.rule_base import axes_of, expand_reduced, rule, take_grad
from runtime.autodiff.shapes import broadcast_like, reshape_like, shape_of_value, sum_to


def _static_shape(x, what):
    shape = shape_of_value(x)
    if None in shape:
        raise NotImplementedError(f"gradient of {what} for an input of unknown shape {shape}")
    return tuple(shape)


def _dtype(x):
    return x.dtype if hasattr(x, "dtype") else np.asarray(x).dtype


# -- products ----------------------------------------------------------------------------
def _exclusive_products(x, axis):
    """Product of all other elements along `axis`, for each element (no division: zeros
    in x are fine)."""
    n = _static_shape(x, "np.prod")[axis]
    ones = np.ones_like(np.take(x, np.arange(1), axis=axis))
    before = np.concatenate([ones, np.take(np.cumprod(x, axis=axis), np.arange(n - 1),
                                           axis=axis)], axis=axis)
    rev = np.flip(x, axis)
    after = np.flip(np.concatenate([ones, np.take(np.cumprod(rev, axis=axis), np.arange(n - 1),
                                                  axis=axis)], axis=axis), axis)
    return before * after


@rule("prod")
def _prod(rec, cts):
    x = rec.inputs[0]
    if rec.attrs.get("where") is not None or rec.attrs.get("initial") is not None:
        raise NotImplementedError("gradient of np.prod with where= or initial=")
    shape = _static_shape(x, "np.prod")
    axes = axes_of(rec, len(shape))
    g = expand_reduced(cts[0], rec, x)
    if not axes:
        return [broadcast_like(g, x)]
    # move the reduced axes last and merge them, so one axis holds each product's factors
    rest = [a for a in range(len(shape)) if a not in axes]
    perm = rest + list(axes)
    merged = np.reshape(np.transpose(x, perm), tuple(shape[a] for a in rest) + (-1,))
    others = _exclusive_products(merged, -1)
    others = np.transpose(np.reshape(others, tuple(shape[a] for a in perm)),
                          tuple(int(i) for i in np.argsort(perm)))
    return [g * others]


@rule("cumprod")
def _cumprod(rec, cts):
    # dx_i = sum_{j >= i} g_j prod_{k <= j, k != i} x_k, from the cumulative products of x
    # with x_i set to 1 (an n x n table per slice: no division, so zeros in x are fine)
    x, g = rec.inputs[0], cts[0]
    axis = rec.attrs.get("axis")
    if rec.attrs.get("dtype") is not None:
        raise NotImplementedError("gradient of np.cumprod with dtype=")
    if axis is None:
        flat = np.ravel(x)
        n = _static_shape(flat, "np.cumprod")[0]
        return [reshape_like(_cumprod_grad(flat, g, n), x)]
    axis = axis % np.ndim(x)
    n = _static_shape(x, "np.cumprod")[axis]
    xm, gm = np.moveaxis(x, axis, -1), np.moveaxis(g, axis, -1)
    return [np.moveaxis(_cumprod_grad(xm, gm, n), -1, axis)]


def _cumprod_grad(x, g, n):
    eye = np.eye(n, dtype=bool)
    table = np.cumprod(np.where(eye, np.ones_like(x[..., None, :]), x[..., None, :]), axis=-1)
    upper = np.triu(np.ones((n, n), _dtype(g)))
    return np.sum(upper * table * g[..., None, :], axis=-1)


# -- moving, repeating, tiling, rolling, padding ----------------------------------------
@rule("moveaxis")
def _moveaxis(rec, cts):
    return [np.moveaxis(cts[0], rec.attrs["destination"], rec.attrs["source"])]


@rule("repeat")
def _repeat(rec, cts):
    # repeat(x, r, axis) is take(x, repeat(arange(n), r), axis): scatter-add back
    x = rec.inputs[0]
    axis = rec.attrs.get("axis")
    shape = _static_shape(x, "np.repeat")
    n = int(np.prod(shape)) if axis is None else shape[axis]
    index = np.repeat(np.arange(n), rec.attrs["repeats"])
    return [take_grad(x, index, axis, cts[0])]


@rule("tile")
def _tile(rec, cts):
    x = rec.inputs[0]
    shape = _static_shape(x, "np.tile")
    reps = rec.attrs["reps"]
    reps = (reps,) if np.ndim(reps) == 0 else tuple(reps)
    nd = max(len(shape), len(reps))
    shape = (1,) * (nd - len(shape)) + shape
    reps = (1,) * (nd - len(reps)) + reps
    split = tuple(d for r, s in zip(reps, shape) for d in (r, s))
    g = np.sum(np.reshape(cts[0], split), axis=tuple(range(0, 2 * nd, 2)))
    return [reshape_like(g, x)]


@rule("roll")
def _roll(rec, cts):
    shift = rec.attrs["shift"]
    back = -shift if np.ndim(shift) == 0 else tuple(-s for s in shift)
    return [np.roll(cts[0], back, axis=rec.attrs.get("axis"))]


@rule("pad")
def _pad(rec, cts):
    x = rec.inputs[0]
    if rec.attrs.get("mode", "constant") != "constant":
        raise NotImplementedError(f"gradient of np.pad with mode={rec.attrs['mode']!r} "
                                  "(only mode='constant' has a rule)")
    nd = np.ndim(x)
    widths = np.broadcast_to(np.asarray(rec.attrs["pad_width"]), (nd, 2))
    shape = shape_of_value(cts[0])
    # an unknown dim: the end padding counted from the end (`-hi`, or to the end for 0)
    index = tuple(slice(int(lo), (-int(hi) or None) if shape[i] is None else shape[i] - int(hi))
                  for i, (lo, hi) in enumerate(widths))
    return [cts[0][index]]


@rule("diff")
def _diff(rec, cts):
    if rec.attrs.get("prepend") is not None or rec.attrs.get("append") is not None:
        raise NotImplementedError("gradient of np.diff with prepend= or append=")
    x = rec.inputs[0]
    n, axis = rec.attrs.get("n", 1), rec.attrs.get("axis", -1) % np.ndim(x)
    g = cts[0]
    def widths(pad):  # a fresh tuple each time: graph nodes keep their attributes
        return tuple(pad if d == axis else (0, 0) for d in range(np.ndim(x)))

    for _ in range(n):  # diff is x[1:] - x[:-1]: each step sends g to both neighbours
        g = np.pad(g, widths((1, 0))) - np.pad(g, widths((0, 1)))
    return [g]


def _triangle_rule(fn):
    """np.tril / np.triu: the cotangent keeps the same triangle."""
    def grad(rec, cts):
        return [fn(cts[0], **rec.attrs)]
    return grad


rule("tril")(_triangle_rule(np.tril))
rule("triu")(_triangle_rule(np.triu))


# -- stacking helpers: split the cotangent, give each piece its input's shape -------------
def _split(g, pieces, sizes, axis):
    out, start = [], 0
    for x, n in zip(pieces, sizes):
        index = [slice(None)] * np.ndim(g)
        index[axis] = slice(start, start + n)
        out.append(reshape_like(g[tuple(index)], x))
        start += n
    return out


def _size(x, axis, min_ndim):
    if np.ndim(x) < min_ndim:
        return 1
    n = shape_of_value(x)[axis]
    if n is None:
        raise NotImplementedError("gradient of a stacking function over an unknown dimension")
    return n


@rule("hstack")
def _hstack(rec, cts):
    xs = rec.inputs
    axis = 0 if all(np.ndim(x) <= 1 for x in xs) else 1
    return _split(cts[0], xs, [_size(x, axis, 1) for x in xs], axis)


@rule("vstack")
def _vstack(rec, cts):
    xs = rec.inputs
    return _split(cts[0], xs, [_size(x, 0, 2) for x in xs], 0)


@rule("column_stack")
def _column_stack(rec, cts):
    xs = rec.inputs
    return _split(cts[0], xs, [_size(x, 1, 2) for x in xs], 1)


@rule("atleast_1d", "atleast_2d", "atleast_3d")
def _atleast(rec, cts):
    return [reshape_like(cts[0], rec.inputs[0])]


# -- sorting --------------------------------------------------------------------------------
@rule("sort")
def _sort(rec, cts):
    x = rec.inputs[0]
    axis = rec.attrs.get("axis", -1)
    g = cts[0]
    if axis is None:
        rank = np.argsort(np.argsort(np.ravel(x), kind="stable"), kind="stable")
        return [reshape_like(g[rank], x)]
    if np.ndim(x) == 1:  # (a length known only when the graph runs: np.unique's result)
        return [g[np.argsort(np.argsort(x, kind="stable"), kind="stable")]]
    shape = _static_shape(x, "np.sort")
    axis = axis % len(shape)
    rank = np.argsort(np.argsort(x, axis=axis, kind="stable"), axis=axis, kind="stable")
    # g[..., rank[...], ...]: where each element of x went in the sorted result
    index = tuple(rank if d == axis else
                  np.arange(n).reshape((n,) + (1,) * (len(shape) - d - 1))
                  for d, n in enumerate(shape))
    return [g[index]]


# -- NaN-aware reductions and elementwise odds and ends --------------------------------------
@rule("nanmean")
def _nanmean(rec, cts):
    x = rec.inputs[0]
    valid = ~np.isnan(x)
    count = np.sum(valid, axis=axes_of(rec, np.ndim(x)), keepdims=True)
    g = expand_reduced(cts[0], rec, x)
    return [np.where(valid, g / count.astype(_dtype(g)), np.zeros_like(x))]


@rule("nan_to_num")
def _nan_to_num(rec, cts):
    x = rec.inputs[0]
    return [np.where(np.isfinite(x), cts[0], np.zeros_like(cts[0]))]


# A complex value's cotangent is dL/dRe + i dL/dIm (as np.abs's rule g * x / |x| has it).
@rule("real")
def _real(rec, cts):
    if _dtype(rec.inputs[0]).kind == "c":
        return [cts[0] * (1 + 0j)]
    return [cts[0]]


@rule("imag")
def _imag(rec, cts):
    if _dtype(rec.inputs[0]).kind == "c":
        return [cts[0] * 1j]
    return [np.zeros_like(rec.inputs[0])]


@rule("round", "around")
def _round(rec, cts):
    return [np.zeros_like(rec.inputs[0])]


# -- the gradient module's own shape ops ------------------------------------------------------
@rule("sum_to_shape_of")
def _sum_to(rec, cts):
    return [broadcast_like(cts[0], rec.inputs[0]), None]


@rule("broadcast_like")
def _broadcast_like(rec, cts):
    return [sum_to(cts[0], rec.inputs[0]), None]


@rule("reshape_like")
def _reshape_like(rec, cts):
    return [reshape_like(cts[0], rec.inputs[0]), None]
