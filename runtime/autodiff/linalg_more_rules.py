"""Gradient rules for the np.linalg ops of runtime/ops/linalg.py: cholesky, qr, svd,
svdvals, eigh, eigvalsh, slogdet, pinv, lstsq, matrix_power, multi_dot, cond and the
vector / matrix norms (np.linalg.norm's rule too, for every `ord`).

Written with NumPy calls, so each rule runs eagerly on arrays and records graph nodes on
Tensors. Real inputs only (a complex one raises NotImplementedError). The rules are the
derivatives of what NumPy computes: cholesky and eigh read one triangle of the matrix
(`upper` / `UPLO`), so the gradient lives on that triangle; svd and eigh need distinct
singular values / eigenvalues (else the derivative does not exist), qr and pinv a
constant rank.
"""
from __future__ import annotations

import numpy as np

from runtime.autodiff.linalg_rules import dot_grad
from runtime.autodiff.rule_base import rule
from runtime.autodiff.shapes import shape_of_value


def _mT(x):
    return np.swapaxes(x, -1, -2)


def _real_only(rec):
    for x in rec.inputs:
        dt = getattr(x, "dtype", None)
        if dt is None and isinstance(x, (int, float, complex)):
            dt = np.asarray(x).dtype
        if dt is not None and dt.kind == "c":
            raise NotImplementedError(f"gradient of np.{rec.op.name} of a complex matrix")


def _diag_part(x):
    """The diagonal of each matrix, as a diagonal matrix (no static size needed)."""
    return np.triu(np.tril(x))


def _one_triangle(s, upper: bool):
    """Gradient w.r.t. a matrix of which only one triangle is read (the other mirrors it)."""
    both = s + _mT(s)
    return (np.triu(both) if upper else np.tril(both)) - _diag_part(s)


def _inverse_gap(w):
    """F[i, j] = 1 / (w[j] - w[i]) off the diagonal, 0 on it."""
    diff = w[..., None, :] - w[..., :, None]
    zero = diff == 0
    return np.where(zero, 0.0, 1.0 / np.where(zero, 1.0, diff))


def _static_dims(x, what):
    shp = shape_of_value(x)
    if shp[-1] is None or shp[-2] is None:
        raise NotImplementedError(f"gradient of {what} with matrix dimensions unknown while "
                                  "tracing")
    return shp[-2], shp[-1]


# -- decompositions ---------------------------------------------------------------------------
@rule("linalg.cholesky")
def _cholesky(rec, cts):
    _real_only(rec)
    upper = bool(rec.attrs.get("upper", False))
    low, g = rec.outputs[0], cts[0]
    if upper:
        low, g = _mT(low), _mT(g)
    p = np.tril(np.matmul(_mT(low), g))
    p = p - 0.5 * _diag_part(p)
    inv = np.linalg.inv(low)
    s = np.matmul(np.matmul(_mT(inv), p), inv)
    return [_one_triangle(s, upper)]


def _eigh_grad(w, v, gw, gv, upper):
    s = np.matmul(v * gw[..., None, :], _mT(v))
    if gv is not None:
        inner = _inverse_gap(w) * np.matmul(_mT(v), gv)
        s = s + np.matmul(np.matmul(v, inner), _mT(v))
    return _one_triangle(s, upper)


@rule("linalg.eigh")
def _eigh(rec, cts):
    _real_only(rec)
    w, v = rec.outputs
    upper = rec.attrs.get("UPLO", "L") == "U"
    return [_eigh_grad(w, v, cts[0], cts[1], upper)]


@rule("linalg.eigvalsh")
def _eigvalsh(rec, cts):
    _real_only(rec)
    uplo = rec.attrs.get("UPLO", "L")
    w, v = np.linalg.eigh(rec.inputs[0], UPLO=uplo)
    return [_eigh_grad(w, v, cts[0], None, uplo == "U")]


def _svd_grad(u, s, vh, gu, gs, gvh):
    """Gradient of A = U diag(s) Vh (reduced; distinct singular values)."""
    v = _mT(vh)
    out = np.matmul(u * gs[..., None, :], vh)
    if gu is None and gvh is None:
        return out
    gv = _mT(gvh)
    f = _inverse_gap(s * s)
    utgu = np.matmul(_mT(u), gu)
    vtgv = np.matmul(_mT(v), gv)
    inner = (f * (utgu - _mT(utgu))) * s[..., None, :] + \
        s[..., :, None] * (f * (vtgv - _mT(vtgv)))
    out = out + np.matmul(np.matmul(u, inner), vh)
    out = out + np.matmul((gu - np.matmul(u, utgu)) / s[..., None, :], vh)
    return out + np.matmul(u, _mT((gv - np.matmul(v, vtgv)) / s[..., None, :]))


@rule("linalg.svd")
def _svd(rec, cts):
    _real_only(rec)
    a = rec.inputs[0]
    m, n = _static_dims(a, "np.linalg.svd")
    if rec.attrs.get("full_matrices", True) and m != n:
        raise NotImplementedError("gradient of np.linalg.svd(full_matrices=True) of a "
                                  "non-square matrix: the extra singular vectors are not "
                                  "unique; use full_matrices=False")
    g = _svd_grad(*rec.outputs, *cts)
    return [_one_triangle(g, False) if rec.attrs.get("hermitian") else g]


@rule("linalg.svdvals")
def _svdvals(rec, cts):
    _real_only(rec)
    hermitian = bool(rec.attrs.get("hermitian", False))
    u, _, vh = np.linalg.svd(rec.inputs[0], full_matrices=False, hermitian=hermitian)
    g = np.matmul(u * cts[0][..., None, :], vh)
    return [_one_triangle(g, False) if hermitian else g]


def _qr_square_or_tall(q, r, gq, gr):
    m = np.matmul(r, _mT(gr)) - np.matmul(_mT(gq), q)
    copied = np.tril(m) + _mT(np.tril(m, -1))
    b = gq + np.matmul(q, copied)
    return _mT(np.linalg.solve(r, _mT(b)))  # b @ inv(r).T


@rule("linalg.qr")
def _qr(rec, cts):
    _real_only(rec)
    a = rec.inputs[0]
    m, n = _static_dims(a, "np.linalg.qr")
    q, r = rec.outputs
    gq, gr = cts
    if m >= n:
        if rec.attrs.get("mode") == "complete" and m > n:
            raise NotImplementedError("gradient of np.linalg.qr(mode='complete') of a tall "
                                      "matrix: the extra columns of Q are not unique; use "
                                      "mode='reduced'")
        return [_qr_square_or_tall(q, r, gq, gr)]
    # wide: A = [X | Y] with X = Q U square, Y = Q V
    y = a[..., :, m:]
    gu, gv = gr[..., :, :m], gr[..., :, m:]
    gx = _qr_square_or_tall(q, r[..., :, :m], gq + np.matmul(y, _mT(gv)), gu)
    return [np.concatenate([gx, np.matmul(q, gv)], axis=-1)]


@rule("linalg.slogdet")
def _slogdet(rec, cts):
    _real_only(rec)
    g = cts[1]
    return [g[..., None, None] * _mT(np.linalg.inv(rec.inputs[0]))]


# -- pseudo-inverse and least squares ----------------------------------------------------------
def _pinv_grad(a, p, g):
    """Gradient of P = pinv(A) for cotangent G (constant rank)."""
    pt = _mT(p)
    out = -np.matmul(np.matmul(pt, g), pt)
    x = np.matmul(_mT(g), np.matmul(p, pt))           # G^T P P^T, then (I - A P) X
    out = out + x - np.matmul(a, np.matmul(p, x))
    y = np.matmul(np.matmul(pt, p), _mT(g))           # P^T P G^T, then Y (I - P A)
    return out + y - np.matmul(np.matmul(y, p), a)


@rule("linalg.pinv", "linalg.pinv_tol")
def _pinv(rec, cts):
    _real_only(rec)
    g = _pinv_grad(rec.inputs[0], rec.outputs[0], cts[0])
    # (a tolerance input only decides which singular values count: no gradient)
    return [_one_triangle(g, False) if rec.attrs.get("hermitian") else g] + \
        [None] * (len(rec.inputs) - 1)


@rule("linalg.lstsq")
def _lstsq(rec, cts):
    _real_only(rec)
    a, b = rec.inputs
    x, _, _, s = rec.outputs
    gx, gres, _, gs = cts
    p = np.linalg.pinv(a)
    vector = np.ndim(b) == 1
    bm, xm, gxm = (v[:, None] if vector else v for v in (b, x, gx))
    ga = _pinv_grad(a, p, np.matmul(gxm, _mT(bm)))
    gb = np.matmul(_mT(p), gxm)
    # residuals (full column rank, M > N): d|b - A x|^2 = 2 r . (db - dA x) at the optimum
    if vector:
        weight = np.sum(gres)  # () or (1,) residuals: zero when there are none
    else:
        k = shape_of_value(b)[-1]
        if k is None:
            raise NotImplementedError("gradient of np.linalg.lstsq with an unknown number of "
                                      "right-hand sides")
        weight = np.concatenate([gres, np.zeros(k, dtype=gres.dtype)])[:k]
    r = (bm - np.matmul(a, xm)) * (2.0 * weight)
    gb = gb + r
    ga = ga - np.matmul(r, _mT(xm))
    u, _, vh = np.linalg.svd(a, full_matrices=False)
    ga = ga + np.matmul(u * gs[..., None, :], vh)
    return [ga, gb[:, 0] if vector else gb]


# -- products and powers -------------------------------------------------------------------------
def _power_grad(a, n, g):
    """Gradient of A^n (n >= 1): sum over k of (A^T)^k G (A^T)^(n-1-k)."""
    at = _mT(a)
    powers = [None]
    for _ in range(n - 1):
        powers.append(at if powers[-1] is None else np.matmul(powers[-1], at))
    total = None
    for k in range(n):
        term = g if powers[k] is None else np.matmul(powers[k], g)
        right = powers[n - 1 - k]
        term = term if right is None else np.matmul(term, right)
        total = term if total is None else total + term
    return total


@rule("linalg.matrix_power")
def _matrix_power(rec, cts):
    _real_only(rec)
    a, n = rec.inputs[0], int(rec.attrs["n"])
    g = cts[0]
    if n == 0:
        return [np.zeros_like(a)]
    if n > 0:
        return [_power_grad(a, n, g)]
    inv = np.linalg.inv(a)
    g_inv = _power_grad(inv, -n, g)
    return [-np.matmul(np.matmul(_mT(inv), g_inv), _mT(inv))]


@rule("linalg.multi_dot")
def _multi_dot(rec, cts):
    arrays = list(rec.inputs)
    g = cts[0]
    if len(arrays) == 2:
        return dot_grad(rec, cts)
    first, last = np.ndim(arrays[0]) == 1, np.ndim(arrays[-1]) == 1
    if first:
        arrays[0] = arrays[0][None, :]
        g = g[None, ...]
    if last:
        arrays[-1] = arrays[-1][:, None]
        g = g[..., None]
    grads = []
    for i in range(len(arrays)):
        left = right = None
        for x in arrays[:i]:
            left = x if left is None else np.matmul(left, x)
        for x in arrays[i + 1:]:
            right = x if right is None else np.matmul(right, x)
        gi = g if left is None else np.matmul(_mT(left), g)
        gi = gi if right is None else np.matmul(gi, _mT(right))
        grads.append(gi)
    if first:
        grads[0] = grads[0][0]
    if last:
        grads[-1] = grads[-1][:, 0]
    return grads

