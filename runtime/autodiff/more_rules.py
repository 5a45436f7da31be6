"""Gradient rules for the op records of runtime/ops/more.py: take_along_axis, partition,
interp, convolve/correlate and the order statistics (median, percentile, quantile with
method='linear'). The searching ops (searchsorted, digitize, argpartition) have integer
results and no gradient. The functions more.py builds from other ops (cumulative_sum,
kron, cov, polyval, select, ...) differentiate through those ops.

Written with NumPy calls, so each rule runs eagerly on arrays and records graph nodes on
Tensors; they need static shapes along the axes they scatter into.
"""
from __future__ import annotations

import numpy as np

from runtime.autodiff.rule_base import rule
from runtime.autodiff.shapes import reshape_like, shape_of_value, sum_to
from runtime.ops.indexing import index_update
from runtime.ops.more_arrays import put_along_axis_value


def _static(x, what) -> tuple:
    shape = tuple(shape_of_value(x))
    if None in shape:
        raise NotImplementedError(f"gradient of {what} for an input of unknown shape {shape}")
    return shape


def _dtype(x):
    return x.dtype if hasattr(x, "dtype") else np.asarray(x).dtype


def _real_only(what, *xs) -> None:
    if any(_dtype(x).kind == "c" for x in xs):
        raise NotImplementedError(f"gradient of {what} for complex values")


def along_axis_grad(shape: tuple, dtype, idx, g, axis):
    """Cotangent of `arr` (of `shape`) for `take_along_axis(arr, idx, axis)` with
    cotangent `g`: scatter-add along `axis`; broadcast dims of `arr` (size 1) collect the
    sum over the broadcast."""
    zeros = np.zeros(shape, dtype)
    if axis is None:
        return np.reshape(index_update(np.reshape(zeros, (-1,)), idx, g, mode="add"), shape)
    nd = len(shape)
    ax = axis % nd
    index = tuple(idx if d == ax else
                  np.arange(shape[d]).reshape(tuple(-1 if k == d else 1 for k in range(nd)))
                  for d in range(nd))
    return index_update(zeros, index, g, mode="add")


@rule("take_along_axis")
def _take_along_axis(rec, cts):
    arr, idx = rec.inputs
    shape = _static(arr, "np.take_along_axis")
    return [along_axis_grad(shape, _dtype(cts[0]), idx, cts[0], rec.attrs.get("axis", -1)),
            None]


@rule("partition")
def _partition(rec, cts):
    x = rec.inputs[0]
    shape = _static(x, "np.partition")
    axis = rec.attrs.get("axis", -1)
    idx = np.argpartition(x, rec.attrs["kth"], axis=axis)
    return [along_axis_grad(shape, _dtype(cts[0]), idx, cts[0], axis)]


@rule("searchsorted", "digitize", "argpartition")
def _no_gradient(rec, cts):
    return [None] * len(rec.inputs)


# -- interp ------------------------------------------------------------------------------
def _scatter(n, dtype, idx, values):
    return index_update(np.zeros((n,), dtype), np.ravel(idx), np.ravel(values), mode="add")


def _gather(vec, i, n):
    # vec[i] when either may be a constant (np.take does not dispatch on its indices)
    return np.sum(np.where(np.expand_dims(i, -1) == np.arange(n), vec, 0.0), axis=-1)


@rule("interp")
def _interp(rec, cts):
    x, xp, fp = rec.inputs
    if rec.attrs.get("period") is not None:
        raise NotImplementedError("gradient of np.interp with period=")
    _real_only("np.interp", fp)
    n = _static(xp, "np.interp")[0]
    g = cts[0]
    f8 = np.float64
    x64, xp64, fp64 = (np.astype(v, f8) if hasattr(v, "dtype") else np.asarray(v, f8)
                       for v in (x, xp, fp))
    below, above = x64 < xp64[0], x64 > xp64[n - 1]
    g_fp = np.zeros((n,), f8)
    if rec.attrs.get("left") is None:  # left of the samples: fp[0]
        g_fp = g_fp + _scatter(n, f8, np.zeros((1,), np.intp), np.sum(np.where(below, g, 0.0)))
    if rec.attrs.get("right") is None:
        g_fp = g_fp + _scatter(n, f8, np.full((1,), n - 1, np.intp),
                               np.sum(np.where(above, g, 0.0)))
    if n == 1:  # one sample: a constant, whatever x is
        inside = np.logical_not(below | above)
        g_fp = g_fp + _scatter(n, f8, np.zeros((1,), np.intp), np.sum(np.where(inside, g, 0.0)))
        return [np.zeros_like(x64).astype(_dtype(x)), np.zeros((n,), _dtype(xp)),
                g_fp.astype(_dtype(fp))]
    inside = np.logical_not(below | above)
    i = np.clip(np.searchsorted(xp64, x64, side="right") - 1, 0, n - 2)
    x0, x1 = _gather(xp64, i, n), _gather(xp64, i + 1, n)
    f0, f1 = _gather(fp64, i, n), _gather(fp64, i + 1, n)
    h = x1 - x0
    t = (x64 - x0) / h
    slope = (f1 - f0) / h
    gi = np.where(inside, g, 0.0)
    g_x = gi * slope
    g_fp = g_fp + _scatter(n, f8, i, gi * (1 - t)) + _scatter(n, f8, i + 1, gi * t)
    g_xp = _scatter(n, f8, i, gi * slope * (t - 1)) + _scatter(n, f8, i + 1, -gi * slope * t)
    return [g_x.astype(_dtype(x)), g_xp.astype(_dtype(xp)), g_fp.astype(_dtype(fp))]


@rule("histogram")
def _histogram(rec, cts):
    # counts are piecewise constant in `a`; weighted counts are linear in the weights
    a, weights = rec.inputs
    if len(cts) > 1 and cts[1] is not None and rec.attrs.get("range") is None and \
            np.ndim(rec.attrs.get("bins", 10)) == 0:
        raise NotImplementedError("gradient through np.histogram's bin edges (which follow "
                                  "min(a) and max(a)); give range= to fix them")
    if weights is None or cts[0] is None:
        return [None, None]
    if rec.attrs.get("density"):
        raise NotImplementedError("gradient of np.histogram(..., density=True) w.r.t. weights")
    edges = rec.outputs[1]
    nbins = _static(edges, "np.histogram")[0] - 1
    flat = np.ravel(a)
    inside = (flat >= edges[0]) & (flat <= edges[nbins])
    bins = np.clip(np.searchsorted(edges, flat, side="right") - 1, 0, nbins - 1)
    g_w = np.where(inside, _gather(cts[0], bins, nbins), 0.0)
    return [None, reshape_like(np.astype(g_w, _dtype(weights)), weights)]


# -- convolve / correlate ---------------------------------------------------------------
def _conv_grads(a, w, g, mode, correlate=False):
    """Cotangents of a and w for np.convolve(a, w, mode) (1-d, real); `correlate`: the
    window of np.correlate(a, w[::-1], mode), centred otherwise in 'same' mode when a is
    the shorter."""
    n, m = np.size(a), np.size(w)
    full = n + m - 1
    length = {"full": full, "same": max(n, m), "valid": max(n, m) - min(n, m) + 1}[mode]
    offset = {"full": 0, "same": (min(n, m) - 1) // 2, "valid": min(n, m) - 1}[mode]
    if correlate and mode == "same" and n < m:
        offset = full - length - offset
    g_full = np.pad(np.ravel(g), ((offset, full - offset - length),))
    return np.correlate(g_full, np.ravel(w), "valid"), np.correlate(g_full, np.ravel(a), "valid")


@rule("convolve")
def _convolve(rec, cts):
    a, v = rec.inputs
    _real_only("np.convolve", a, v)
    _static(a, "np.convolve"), _static(v, "np.convolve")
    g_a, g_v = _conv_grads(a, v, cts[0], rec.attrs.get("mode", "full"))
    return [reshape_like(g_a, a), reshape_like(g_v, v)]


@rule("correlate")
def _correlate(rec, cts):
    # correlate(a, v) is convolve(a, v[::-1]) for real values, in every mode
    a, v = rec.inputs
    _real_only("np.correlate", a, v)
    _static(a, "np.correlate"), _static(v, "np.correlate")
    w = np.flip(np.ravel(v))
    g_a, g_w = _conv_grads(a, w, cts[0], rec.attrs.get("mode", "valid"),
                            correlate=True)
    return [reshape_like(g_a, a), reshape_like(np.flip(g_w), v)]


# -- median / percentile / quantile (method='linear') -------------------------------------
def _order_grads(rec, g, q, scale, what):
    """Cotangents of a and q for a linear-interpolation quantile at fractions q / scale."""
    x = rec.inputs[0]
    _real_only(what, x)
    shape = _static(x, what)
    nd = len(shape)
    axis = rec.attrs.get("axis")
    axes = tuple(range(nd)) if axis is None else tuple(
        sorted(a % nd for a in (axis if isinstance(axis, (tuple, list)) else (axis,))))
    rest = [d for d in range(nd) if d not in axes]
    perm = rest + list(axes)
    rest_shape = tuple(shape[d] for d in rest)
    k = 1
    for d in axes:
        k *= shape[d]
    merged = np.reshape(np.transpose(x, perm), rest_shape + (k,))
    q_shape = tuple(shape_of_value(q)) if q is not None else ()
    qs = np.reshape(np.asarray(0.5) if q is None else q, (-1,))
    nq = 1
    for d in q_shape:
        nq *= d
    # the cotangent without keepdims' ones, the q axis last: (rest..., nq)
    gm = np.moveaxis(np.reshape(g, (nq,) + rest_shape), 0, -1)
    pos = np.astype(qs, np.float64) / scale * (k - 1)
    lo = np.clip(np.astype(np.floor(pos), np.intp), 0, k - 1)
    hi = np.minimum(lo + 1, k - 1)
    t = pos - np.astype(lo, np.float64)
    order = np.argsort(merged, axis=-1)
    dt = _dtype(g)
    grid = rest_shape + (nq,)
    ids_lo = np.take(order, lo, axis=-1)
    ids_hi = np.take(order, hi, axis=-1)
    gx = along_axis_grad(rest_shape + (k,), dt, ids_lo, np.astype(gm * (1 - t), dt), -1) + \
        along_axis_grad(rest_shape + (k,), dt, ids_hi, np.astype(gm * t, dt), -1)
    gx = np.transpose(np.reshape(gx, tuple(shape[d] for d in perm)),
                      tuple(int(i) for i in np.argsort(perm)))
    g_q = None
    if q is not None and _dtype(q).kind == "f":
        values = np.take_along_axis(merged, order, axis=-1)
        step = np.take(values, hi, axis=-1) - np.take(values, lo, axis=-1)
        total = np.sum(np.reshape(gm * step * ((k - 1) / scale), (-1, nq)) if grid else gm,
                       axis=0)
        g_q = np.reshape(np.astype(total, _dtype(q)), q_shape)
    return gx, g_q


@rule("median")
def _median(rec, cts):
    return [_order_grads(rec, cts[0], None, 1.0, "np.median")[0]]


def _quantile_rule(scale: float):
    """np.quantile (`scale` 1) or np.percentile (`scale` 100: q in percent)."""
    def grad(rec, cts):
        if rec.attrs.get("method", "linear") != "linear":
            raise NotImplementedError(f"gradient of np.{rec.op.name} with method="
                                      f"{rec.attrs['method']!r}")
        gx, g_q = _order_grads(rec, cts[0], rec.inputs[1], scale, f"np.{rec.op.name}")
        return [gx, g_q]
    return grad


rule("quantile")(_quantile_rule(1.0))
rule("percentile")(_quantile_rule(100.0))


@rule("put_along_axis")
def _put_along_axis(rec, cts):
    """`out = arr` with `values` written at `indices`: the written positions take their
    cotangent from `values`, the rest from `arr`. Where an index repeats, only the value
    NumPy kept (the one the kernel writes last) gets it: which one is found by writing
    each value's position number with the same kernel and reading back who won."""
    arr, idx, values = rec.inputs
    axis, g = rec.attrs.get("axis"), cts[0]
    _real_only("np.put_along_axis", arr, values)
    g_arr = put_along_axis_value(g, idx, 0, axis)
    picked = np.take_along_axis(g, idx, axis)
    ones = np.ones_like(picked, dtype=np.intp)
    ids = reshape_like(np.cumsum(np.ravel(ones)), ones)  # 1, 2, ... (0: not written)
    marks = put_along_axis_value(np.zeros_like(g, dtype=np.intp), idx, ids, axis)
    kept = np.where(np.take_along_axis(marks, idx, axis) == ids, picked, 0)
    extra = np.ndim(values) - np.ndim(kept)  # values may carry leading size-1 dims
    if extra > 0:
        kept = np.reshape(kept, (1,) * extra + tuple(np.shape(kept)))
    return [g_arr, None, sum_to(kept, values)]


@rule("diag")
def _diag(rec, cts):
    # np.diag(v, k) of a 1-D `v` puts it on diagonal k: its cotangent is read back there
    return [np.diagonal(cts[0], offset=rec.attrs.get("k", 0))]
