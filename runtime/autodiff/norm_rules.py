"""Gradient rules for the norms: np.linalg.norm (every `ord`, `axis`, `keepdims`),
np.linalg.vector_norm, np.linalg.matrix_norm and np.linalg.cond.

Vector norms: the p-norm's derivative sign(x) |x|^(p-1) / y^(p-1) (x / y for p = 2,
sign(x) for p = 1, zero for p = 0); the max / min norms (inf, -inf, and the 1 / inf
matrix norms, which take the largest column / row sum) share the gradient equally
between tied entries. Matrix 2-norms and the nuclear norm go through the SVD (distinct
extreme singular values). Written with NumPy calls: eager on arrays, graph on Tensors.
"""
from __future__ import annotations

import numpy as np

from runtime.autodiff.rule_base import rule


def _safe(y):
    return np.where(y == 0, 1.0, y)


def _expand(v, axes, keepdims):
    return v if keepdims else np.expand_dims(v, axes)


def vector_grad(x, y, g, ord_, axes: tuple, keepdims: bool):
    """Gradient of the vector norm of `x` over `axes` (y: the norm, g: its cotangent)."""
    y, g = _expand(y, axes, keepdims), _expand(g, axes, keepdims)
    if ord_ is None or ord_ == 2:
        return g * x / _safe(y)
    if ord_ == 0:
        return np.zeros_like(x) * g
    if ord_ == 1:
        return g * np.sign(x)
    a = np.abs(x)
    if ord_ in (np.inf, -np.inf):
        tied = a == y
        count = np.sum(tied, axis=axes, keepdims=True)
        return g * np.sign(x) * tied / count
    p = float(ord_)
    return g * np.sign(x) * a ** (p - 1) / _safe(y) ** (p - 1)


def matrix_grad(x, y, g, ord_, axes: tuple, keepdims: bool):
    """Gradient of the matrix norm of `x` over (row, col) `axes`."""
    row, col = axes
    if ord_ in (None, "fro", "f"):
        return vector_grad(x, y, g, 2, tuple(sorted(axes)), keepdims)
    if ord_ in (2, -2, "nuc"):
        g_red = np.squeeze(g, axis=tuple(sorted(axes))) if keepdims else g
        moved = np.moveaxis(x, (row, col), (-2, -1))
        u, _, vh = np.linalg.svd(moved, full_matrices=False)
        if ord_ == "nuc":
            d = np.matmul(u, vh)
        else:
            k = slice(0, 1) if ord_ == 2 else slice(-1, None)
            d = np.matmul(u[..., :, k], vh[..., k, :])
        return np.moveaxis(g_red[..., None, None] * d, (-2, -1), (row, col))
    sorted_axes = tuple(sorted(axes))
    y, g = _expand(y, sorted_axes, keepdims), _expand(g, sorted_axes, keepdims)
    # 1 / -1: the largest / smallest column sum (over rows); inf / -inf: row sums
    summed, other = (row, col) if ord_ in (1, -1) else (col, row)
    sums = np.sum(np.abs(x), axis=summed, keepdims=True)
    tied = sums == y
    count = np.sum(tied, axis=other, keepdims=True)
    return g * np.sign(x) * tied / count


def _axes(axis, nd):
    items = axis if isinstance(axis, tuple) else (axis,)
    return tuple(int(a) % nd for a in items)


@rule("norm")
def _norm(rec, cts):
    x = rec.inputs[0]
    nd = np.ndim(x)
    ord_, axis = rec.attrs.get("ord"), rec.attrs.get("axis")
    keep = bool(rec.attrs.get("keepdims", False))
    y, g = rec.outputs[0], cts[0]
    if axis is None:
        if ord_ is None or (ord_ in ("f", "fro") and nd == 2) or (ord_ == 2 and nd == 1):
            return [vector_grad(x, y, g, 2, tuple(range(nd)), keep)]
        axis = tuple(range(nd))
    axes = _axes(axis, nd)
    if len(axes) == 1:
        return [vector_grad(x, y, g, ord_, axes, keep)]
    return [matrix_grad(x, y, g, ord_, axes, keep)]


@rule("linalg.vector_norm")
def _vector_norm(rec, cts):
    x = rec.inputs[0]
    nd = np.ndim(x)
    axis = rec.attrs.get("axis")
    axes = tuple(range(nd)) if axis is None else tuple(sorted(_axes(axis, nd)))
    keep = bool(rec.attrs.get("keepdims", False))
    y, g = rec.outputs[0], cts[0]
    if axis is None and not keep:  # a scalar, whatever the rank
        y, g = np.reshape(y, (1,) * nd), np.reshape(g, (1,) * nd)
        keep = True
    return [vector_grad(x, y, g, rec.attrs.get("ord", 2), axes, keep)]


@rule("linalg.matrix_norm")
def _matrix_norm(rec, cts):
    x = rec.inputs[0]
    nd = np.ndim(x)
    return [matrix_grad(x, rec.outputs[0], cts[0], rec.attrs.get("ord", "fro"),
                        (nd - 2, nd - 1), bool(rec.attrs.get("keepdims", False)))]


@rule("linalg.cond")
def _cond(rec, cts):
    x = rec.inputs[0]
    if np.result_type(x).kind == "c":
        raise NotImplementedError("gradient of np.linalg.cond of a complex matrix")
    p, g = rec.attrs.get("p"), cts[0]
    if p in (None, 2, -2):
        u, s, vh = np.linalg.svd(x, full_matrices=False)
        big, small = s[..., 0], s[..., -1]
        d_big = np.matmul(u[..., :, :1], vh[..., :1, :])
        d_small = np.matmul(u[..., :, -1:], vh[..., -1:, :])
        if p == -2:  # small / big
            w_small, w_big = 1.0 / big, -small / (big * big)
        else:
            w_small, w_big = -big / (small * small), 1.0 / small
        return [(g * w_big)[..., None, None] * d_big + (g * w_small)[..., None, None] * d_small]
    nd = np.ndim(x)
    axes = (nd - 2, nd - 1)
    inv = np.linalg.inv(x)
    n_x, n_inv = np.linalg.norm(x, p, axes), np.linalg.norm(inv, p, axes)
    g_x = matrix_grad(x, n_x, g * n_inv, p, axes, False)
    g_inv = matrix_grad(inv, n_inv, g * n_x, p, axes, False)
    inv_t = np.swapaxes(inv, -1, -2)
    return [g_x - np.matmul(np.matmul(inv_t, g_inv), inv_t)]
